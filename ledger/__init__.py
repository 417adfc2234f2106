"""The append-only, hash-chained store of match logs.

The ledger stores and chains events and knows no game: the service hands it a ``check`` to
run inside each write transaction (see :data:`ledger.base.Check`). Two backends share one
interface (:class:`Ledger`) and one contract test suite: :class:`SqliteLedger` (one file,
WAL, append-only enforced by triggers) and :class:`MemoryLedger` (tests and tools).

>>> from ledger import MemoryLedger, NewEvent
>>> with MemoryLedger() as book:
...     first = book.create_match("m1", game="cabo", players=["Anna", "Ben"], token_hash="t",
...                               first=NewEvent("match_started", {"game": "cabo"}), by="anna")
...     book.append("m1", [NewEvent("note", {"text": "hi"})], by="anna", expected_version=1).version
2
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .base import Check, Ledger
from .errors import (
    ChainBroken,
    ConcurrencyConflict,
    IdempotencyConflict,
    LedgerError,
    MatchExists,
    MatchNotFound,
)
from .memory import MemoryLedger
from .records import (
    CHAIN_FORMAT,
    GENESIS,
    AppendResult,
    MatchRecord,
    NewEvent,
    StoredEvent,
    VerifyReport,
    canonical_json,
    chain_hash,
)
from .sqlite import SqliteLedger

__all__ = [
    "CHAIN_FORMAT",
    "GENESIS",
    "AppendResult",
    "ChainBroken",
    "Check",
    "ConcurrencyConflict",
    "IdempotencyConflict",
    "Ledger",
    "LedgerError",
    "MatchExists",
    "MatchNotFound",
    "MatchRecord",
    "MemoryLedger",
    "NewEvent",
    "SqliteLedger",
    "StoredEvent",
    "VerifyReport",
    "canonical_json",
    "chain_hash",
    "open_ledger",
    "verify_file",
]

SUPPORTED_FORMS = "a file path, 'sqlite:///relative/path', 'sqlite:////absolute/path' or 'memory:'"

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def open_ledger(url_or_path: str | os.PathLike[str], *, synchronous: str = "FULL") -> Ledger:
    """Open the ledger a configuration string names.

    A plain path or ``sqlite:///path`` (SQLAlchemy's spelling: three slashes, then the
    path, so ``sqlite:////var/tanteo.db`` is absolute) opens a :class:`SqliteLedger`,
    creating the file if needed; ``memory:`` gives a new, empty :class:`MemoryLedger`.
    ``synchronous`` applies to SQLite only.

    Raises:
        ValueError: any other URL (``postgresql://`` is not supported yet) or an empty string.
    """
    if isinstance(url_or_path, os.PathLike):
        return SqliteLedger(url_or_path, synchronous=synchronous)
    if not isinstance(url_or_path, str):
        raise TypeError(f"expected a path or URL string, got {type(url_or_path).__name__}")
    text = url_or_path.strip()
    if text == "memory:":
        return MemoryLedger()
    if text.startswith("sqlite:///") and len(text) > len("sqlite:///"):
        return SqliteLedger(text[len("sqlite:///") :], synchronous=synchronous)
    if not text or text.startswith(("sqlite:", "memory:")) or _URL.match(text):
        raise ValueError(f"unsupported ledger location {url_or_path!r}; use {SUPPORTED_FORMS}")
    return SqliteLedger(text, synchronous=synchronous)


def verify_file(path: str | os.PathLike[str]) -> list[VerifyReport]:
    """Verify every chain in a ledger file without changing the file (``tanteo verify``).

    The file is opened read-only (``file:…?mode=ro``); it is never created, migrated or
    written.

    Raises:
        LedgerError: there is no file at ``path``, it is not a Tanteo ledger, or its
            append-only triggers are missing or altered.
    """
    if not Path(path).is_file():
        raise LedgerError(f"no ledger database at {os.fspath(path)}")
    with SqliteLedger(path, read_only=True) as ledger:
        return ledger.verify()
