"""Write tokens: how they are made, stored (hashed) and checked; Flask-free.

A match's token is shown once, when the match starts; the ledger keeps only its sha256, and
a write is authorized by comparing hashes in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ledger import MatchRecord
from engines.said import Said


class AuthError(Exception):
    """A write without the match's token (``auth.missing``) or with another one (``auth.wrong``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def new_token() -> str:
    """Return a fresh write token (192 random bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """Return how a write token is stored: its sha256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def authorize(record: MatchRecord, token: str | None) -> None:
    """Check a write token against the match's.

    Raises:
        AuthError: no token, or not this match's.
    """
    if not token:
        raise AuthError(
            "auth.missing", Said("writing to a match needs its token: send 'Authorization: Bearer <token>'")
        )
    if not hmac.compare_digest(hash_token(token), record.token_hash):
        raise AuthError("auth.wrong", Said("this token does not open this match for writing"))
