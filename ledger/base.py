"""The ledger interface every backend implements (SQLite, PostgreSQL, and in memory).

The service talks to this Protocol only, so a backend can be swapped without touching game
code, and ``tests/ledger/test_ledger_contract.py`` runs one suite against every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .records import AppendResult, MatchRecord, NewEvent, StoredEvent, VerifyReport

Check = Callable[[int, Sequence[StoredEvent]], "dict[str, Any] | None"]
"""The service's rule check, run inside the write transaction.

Called with the match's version before the append and the fully built batch (seq, at, prev
and hash set). It raises to refuse the batch — whatever it raises propagates unchanged after
the rollback, and nothing is written — or returns None, or a dict of match-row fields to set
in the same transaction (only ``status`` for now).
"""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A stored snapshot of a match's folded state: a cache the service may use or ignore.

    The ledger knows no game: ``state`` is JSON text it stores and returns as given, and
    ``head``, ``rules`` and ``digest`` are strings the service checks (the hash of event
    ``seq``, the engine's rules version, a checksum of the row) before trusting it.
    Snapshots are not part of the log: a newer one for the same seq replaces the old.
    """

    match_id: str
    seq: int
    head: str
    rules: str
    state: str
    digest: str


@dataclass(frozen=True)
class MatchImport:
    """One match to recreate from events given whole (:meth:`Ledger.import_matches`)."""

    match_id: str
    game: str
    players: Sequence[str]
    token_hash: str
    events: Sequence[StoredEvent]
    check: Check | None = None


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
        more: Sequence[NewEvent] = (),
    ) -> AppendResult:
        """Create a match and store its first event (seq 1) in one transaction.

        ``meta``: what people call the match by (title, date, place, tags), a JSON object the
        ledger stores for listing and filtering; a check may return a new one (``{"meta": …}``).
        ``more``: the events after it (seq 2 on), stored in the same transaction and passed to
        ``check`` with it: a match recorded whole pays one commit, not two.
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

    def import_match(
        self,
        match_id: str,
        *,
        game: str,
        players: Sequence[str],
        token_hash: str,
        events: Sequence[StoredEvent],
        check: Check | None = None,
    ) -> AppendResult:
        """Recreate a match from events given whole (seq, at, by, key, prev, hash), in one transaction.

        The restore path of an archive: the chain is recomputed from the given fields and must
        verify (else :class:`~ledger.errors.ChainBroken`), ``check`` runs on the whole log as on
        an append from version 0, the match row takes the first event's time as its creation
        time, and the idempotency keys are rebuilt. Raises ``MatchExists`` for a taken id.
        """
        ...

    def import_matches(self, items: Sequence[MatchImport]) -> list[AppendResult | Exception]:
        """Recreate several matches in one write transaction, each all or nothing on its own.

        The result for each item is what :meth:`import_match` would return, or the exception
        it would raise (``ChainBroken``, ``MatchExists``, whatever the item's check raised);
        one refused match leaves the others imported. A storage failure aborts them all.
        A restore of many small matches then pays one durable commit, not one per match.
        """
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

    def read_verified(self, match_id: str) -> tuple[VerifyReport, list[StoredEvent]]:
        """Return one match's chain report and its events (up to the first bad row), from one read of the rows."""
        ...

    def feed(self, after_id: int = 0, limit: int = 1000) -> list[tuple[int, StoredEvent]]:
        """Return events of every match in the order they were stored, after ``after_id``."""
        ...

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Store (or replace) the snapshot of a match at its seq, in its own small transaction."""
        ...

    def snapshot(self, match_id: str, *, upto: int | None = None) -> Snapshot | None:
        """Return the match's newest snapshot with ``seq <= upto`` (None: there is none)."""
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


class ImportOne:
    """``import_match`` written once for every backend: one match through ``import_matches``."""

    def import_matches(self, items: Sequence[MatchImport]) -> list[AppendResult | Exception]:
        raise NotImplementedError

    def import_match(
        self,
        match_id: str,
        *,
        game: str,
        players: Sequence[str],
        token_hash: str,
        events: Sequence[StoredEvent],
        check: Check | None = None,
    ) -> AppendResult:
        """Recreate a match from events given whole, all or nothing, in one write transaction.

        Raises:
            ChainBroken: the given hashes do not recompute (nothing written).
            MatchExists: the id is taken.
            ValueError: no events, or an event of another match.
        """
        (result,) = self.import_matches([MatchImport(match_id, game, players, token_hash, events, check)])
        if isinstance(result, Exception):
            raise result
        return result
