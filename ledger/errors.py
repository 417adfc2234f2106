"""The ledger's typed errors.

Every error the ledger raises on purpose is a :class:`LedgerError`, so callers (the service,
the API's error table, the command line) can map them without knowing SQLite. Each carries the
offending input as attributes and says in its message what happened and what to do next.
Anything a caller-supplied ``check`` raises is *not* wrapped: it propagates unchanged.
"""

from __future__ import annotations

from typing import Any

from .words import Said


class LedgerError(Exception):
    """Base of every error the ledger raises on purpose (a damaged file, a bad URL …)."""


class _OneMatch(LedgerError):
    """An error about one match id, said by :meth:`said` (in the ledger's words, :mod:`ledger.words`)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(self.said(match_id))
        self.match_id = match_id

    @staticmethod
    def said(match_id: str) -> str:
        return Said("match %(match)s", match=repr(match_id))

    def __reduce__(self) -> tuple[Any, ...]:
        # The default pickling re-calls the class with ``self.args`` (the message), which
        # would not match the signature; errors cross process boundaries in tools and tests.
        return (type(self), (self.match_id,))


class MatchNotFound(_OneMatch):
    """No match with this id exists in the ledger."""

    @staticmethod
    def said(match_id: str) -> str:
        return Said("match %(match)s not found", match=repr(match_id))


class MatchExists(_OneMatch):
    """A match with this id already exists; match ids are never reused."""

    @staticmethod
    def said(match_id: str) -> str:
        return Said("match %(match)s already exists", match=repr(match_id))


class ConcurrencyConflict(LedgerError):
    """Someone else appended first: the match is no longer at the version the writer expected.

    ``expected`` is the version the writer based its events on, ``current`` the version the
    match is at now. The writer should reload the match and decide again; nothing was written.
    """

    def __init__(self, expected: int, current: int, *, match_id: str | None = None) -> None:
        super().__init__(
            Said(
                "version conflict: expected the match at version %(expected)s, but it is at version "
                "%(current)s; reload it and try again (nothing was written)",
                expected=expected,
                current=current,
            )
            if match_id is None
            else Said(
                "version conflict: expected match %(match)s at version %(expected)s, but it is at version "
                "%(current)s; reload it and try again (nothing was written)",
                match=repr(match_id),
                expected=expected,
                current=current,
            )
        )
        self.expected = expected
        self.current = current
        self.match_id = match_id

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_conflict, (self.expected, self.current, self.match_id))


class IdempotencyConflict(LedgerError):
    """An idempotency key was reused for a different batch of events.

    A retry must send exactly the same events as the first attempt; a different body under
    the same key is a client bug, so it is refused rather than guessed at.
    """

    def __init__(self, key: str, *, match_id: str | None = None) -> None:
        super().__init__(
            Said(
                "idempotency key %(key)s was already used for different events; "
                "a retry must repeat the same events, new events need a new key",
                key=repr(key),
            )
            if match_id is None
            else Said(
                "idempotency key %(key)s was already used on match %(match)s for different events; "
                "a retry must repeat the same events, new events need a new key",
                key=repr(key),
                match=repr(match_id),
            )
        )
        self.key = key
        self.match_id = match_id

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_idempotency, (self.key, self.match_id))


def _rebuild_conflict(expected: int, current: int, match_id: str | None) -> ConcurrencyConflict:
    return ConcurrencyConflict(expected, current, match_id=match_id)


def _rebuild_idempotency(key: str, match_id: str | None) -> IdempotencyConflict:
    return IdempotencyConflict(key, match_id=match_id)


class ChainBroken(LedgerError):
    """Events given whole (an import) whose hash chain does not recompute; nothing was written.

    ``first_bad`` is the first seq that is wrong (None when only the head disagrees),
    ``reason`` says what is wrong in a sentence.
    """

    def __init__(self, match_id: str, first_bad: int | None, reason: str) -> None:
        super().__init__(
            Said("match %(match)s: the chain does not verify: %(reason)s", match=repr(match_id), reason=reason)
        )
        self.match_id = match_id
        self.first_bad = first_bad
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.match_id, self.first_bad, self.reason))


STORAGE_REASONS = ("full", "read_only", "busy", "io")
"""Why the storage refused: the disk is full, the file or its file system is read-only,
another writer held the lock past the busy timeout, or the operating system reported an I/O
error."""


class StorageUnavailable(LedgerError):
    """The storage could not carry out the operation now; the caller may retry later.

    ``reason`` is one of :data:`STORAGE_REASONS`. For ``full``, ``read_only`` and ``busy`` the
    transaction was rolled back and nothing was written; an ``io`` error during the commit
    itself leaves it to the next reader to find out whether the commit landed, so the caller
    should reload the match (or retry with the same idempotency key) rather than assume.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        if reason not in STORAGE_REASONS:
            raise ValueError(f"unknown storage reason {reason!r}")
        super().__init__(f"storage unavailable ({reason})" + (f": {detail}" if detail else ""))
        self.reason = reason
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.detail))
