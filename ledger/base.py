"""The ledger interface every backend implements (SQLite today, PostgreSQL later).

The service talks to this Protocol only, so a backend can be swapped without touching game
code, and ``tests/ledger/test_contract.py`` runs one suite against every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from .records import AppendResult, MatchRecord, NewEvent, StoredEvent, VerifyReport

Check = Callable[[int, Sequence[StoredEvent]], "dict[str, Any] | None"]
"""The service's rule check, run inside the write transaction.

Called with the match's version before the append and the fully built batch (seq, at, prev
and hash set). It raises to refuse the batch — whatever it raises propagates unchanged after
the rollback, and nothing is written — or returns None, or a dict of match-row fields to set
in the same transaction (only ``status`` for now).
"""


@runtime_checkable
class Ledger(Protocol):
    """An append-only, hash-chained store of match logs.

    Every write is all or nothing. Every method raises :class:`~ledger.errors.MatchNotFound`
    for an unknown match id.
    """

    def create_match(
        self,
        match_id: str,
        *,
        game: str,
        players: Sequence[str],
        token_hash: str,
        first: NewEvent,
        by: str,
        check: Check | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> AppendResult:
        """Create a match and store its first event (seq 1) in one transaction.

        ``meta``: what people call the match by (title, date, place, tags), a JSON object the
        ledger stores for listing and filtering; a check may return a new one (``{"meta": …}``).
        """
        ...

    def append(
        self,
        match_id: str,
        events: Sequence[NewEvent],
        *,
        by: str,
        expected_version: int | None = None,
        key: str | None = None,
        check: Check | None = None,
    ) -> AppendResult:
        """Append a batch at the end of a match's log, all or nothing."""
        ...

    def read(
        self, match_id: str, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return the match's events with ``after < seq <= upto``, in seq order."""
        ...

    def version(self, match_id: str) -> int:
        """Return the seq of the match's last event."""
        ...

    def get_match(self, match_id: str) -> MatchRecord:
        """Return the match's row."""
        ...

    def list_matches(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
        tag: str | None = None,
        place: str | None = None,
        date: str | None = None,
    ) -> tuple[list[MatchRecord], int]:
        """Return one page of matches, newest first, and how many match the filters in all.

        ``tag``, ``place`` (ignoring case) and ``date`` filter on the match's ``meta``.
        """
        ...

    def replace_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        """Store a new write-token hash if the match still has ``old_hash``; say whether it did."""
        ...

    def verify(self, match_id: str | None = None) -> list[VerifyReport]:
        """Recompute one match's chain (or every match's) from the stored rows."""
        ...

    def feed(self, after_id: int = 0, limit: int = 1000) -> list[tuple[int, StoredEvent]]:
        """Return events of every match in the order they were stored, after ``after_id``."""
        ...

    def close(self) -> None:
        """Release the backend's resources; the ledger is unusable afterwards."""
        ...

    def __enter__(self) -> Ledger: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
