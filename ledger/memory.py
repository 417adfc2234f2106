"""An in-memory ledger with exactly the SQLite ledger's semantics, for tests and tools.

It stores the same rows the SQLite ledger stores (canonical JSON text, hashes, chain format)
and decodes them on every read, so a caller can never change stored data by mutating a dict
it was given, and :meth:`MemoryLedger.verify` recomputes the chain from stored text just as
the SQLite verifier does. A write is atomic because everything that can fail — validation,
chaining, the caller's check — happens before the first change to the store, under one lock.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from typing import Any
from dataclasses import dataclass, field
from types import TracebackType

from ._core import (
    DEFAULT_STATUS,
    Row,
    body_hash,
    chain_batch,
    check_append_args,
    check_count,
    check_page,
    check_players,
    check_recorder,
    check_text,
    check_window,
    event_from_row,
    prepare,
    ready_import,
    meta_update,
    status_update,
    verify_chain,
)
from .base import Check, ImportOne, MatchImport, Snapshot
from .errors import ConcurrencyConflict, IdempotencyConflict, LedgerError, MatchExists, MatchNotFound
from .records import GENESIS, AppendResult, MatchRecord, NewEvent, StoredEvent, VerifyReport, utc_now


@dataclass
class _Match:
    """One match's mutable row and its log (``rows[i]`` holds seq ``i + 1``)."""

    id: str
    game: str
    token_hash: str
    created_at: str
    players: tuple[str, ...]
    status: str
    version: int
    head: str
    order: int
    rows: list[Row] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def record(self) -> MatchRecord:
        return MatchRecord(
            self.id, self.game, self.token_hash, self.created_at, self.players, self.status,
            self.version, self.head, copy.deepcopy(self.meta),
        )


@dataclass(frozen=True)
class _Idempotent:
    body_hash: str
    first_seq: int
    last_seq: int


class MemoryLedger(ImportOne):
    """A :class:`~ledger.base.Ledger` held in memory; safe to share between threads."""

    def __init__(self) -> None:
        # Re-entrant so that a check may read the ledger it is running inside, as it can
        # through the SQLite connection holding the write transaction.
        self._lock = threading.RLock()
        self._matches: dict[str, _Match] = {}
        self._feed: list[Row] = []
        self._keys: dict[tuple[str, str], _Idempotent] = {}
        self._snapshots: dict[str, dict[int, Snapshot]] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryLedger({len(self._matches)} matches, {len(self._feed)} events)"

    # -- writes --------------------------------------------------------------------------

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
        """Create a match and store its first event (seq 1), all or nothing.

        ``more``: the events after it (seq 2 on), in the same transaction (see the Protocol).

        Raises:
            MatchExists: the id is taken.
        """
        check_text("match_id", match_id)
        check_text("game", game)
        check_text("token_hash", token_hash)
        check_recorder(by)
        names = check_players(players)
        prepared = prepare([first, *more])
        with self._lock:
            self._ensure_open()
            if match_id in self._matches:
                raise MatchExists(match_id)
            at = utc_now()
            events, rows = chain_batch(match_id, 0, GENESIS, prepared, at=at, by=by, key=None)
            changes = check(0, events) if check is not None else None
            status, meta = status_update(changes), meta_update(changes) or meta
            # Nothing below can fail: the match appears whole or not at all.
            match = _Match(
                match_id, game, token_hash, at, names, status or DEFAULT_STATUS,
                events[-1].seq, events[-1].hash, len(self._matches), meta=copy.deepcopy(dict(meta or {})),
            )
            match.rows.extend(rows)
            self._matches[match_id] = match
            self._feed.extend(rows)
            return AppendResult(match.version, match.head, events, replayed=False)

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
        """Append a batch at the end of the match's log, all or nothing.

        Raises:
            ValueError: ``events`` is empty.
            IdempotencyConflict: ``key`` was used on this match for different events.
            MatchNotFound: no such match.
            ConcurrencyConflict: the match is not at ``expected_version``.
        """
        check_append_args(match_id, by, expected_version, key)
        prepared = prepare(events)
        digest = body_hash(prepared) if key is not None else None
        with self._lock:
            self._ensure_open()
            if key is not None:
                seen = self._keys.get((match_id, key))
                if seen is not None:
                    if seen.body_hash != digest:
                        raise IdempotencyConflict(key, match_id=match_id)
                    rows = self._matches[match_id].rows[seen.first_seq - 1 : seen.last_seq]
                    replay = tuple(event_from_row(row) for row in rows)
                    return AppendResult(seen.last_seq, replay[-1].hash, replay, replayed=True)
            match = self._get(match_id)
            if expected_version is not None and expected_version != match.version:
                raise ConcurrencyConflict(expected_version, match.version, match_id=match_id)
            at = utc_now()
            built, rows = chain_batch(
                match_id, match.version, match.head, prepared, at=at, by=by, key=key
            )
            changes = check(match.version, built) if check is not None else None
            status = status_update(changes)
            meta = meta_update(changes)
            # Nothing below can fail.
            match.rows.extend(rows)
            self._feed.extend(rows)
            if key is not None and digest is not None:
                self._keys[(match_id, key)] = _Idempotent(digest, built[0].seq, built[-1].seq)
            match.version = built[-1].seq
            match.head = built[-1].hash
            if status is not None:
                match.status = status
            if meta is not None:
                match.meta = copy.deepcopy(meta)
            return AppendResult(match.version, match.head, built, replayed=False)

    def import_matches(self, items: Sequence[MatchImport]) -> list[AppendResult | Exception]:
        """Recreate several matches under one lock, each all or nothing (see the Protocol)."""
        results: list[AppendResult | Exception] = []
        with self._lock:
            self._ensure_open()
            for item in items:
                try:
                    results.append(self._import_one(item))
                except Exception as error:  # noqa: BLE001 - this match is refused, the others go on
                    results.append(error)
        return results

    def _import_one(self, item: MatchImport) -> AppendResult:
        _, names, rows, keys = ready_import(item)
        built = tuple(item.events)
        if item.match_id in self._matches:
            raise MatchExists(item.match_id)
        changes = item.check(0, built) if item.check is not None else None
        status, meta = status_update(changes), meta_update(changes)
        last = built[-1]
        match = _Match(item.match_id, item.game, item.token_hash, built[0].at, names, status or DEFAULT_STATUS,
                       last.seq, last.hash, len(self._matches), meta=copy.deepcopy(meta or {}))
        match.rows.extend(rows)
        self._matches[item.match_id] = match
        self._feed.extend(rows)
        for key, digest, first, final, _at in keys:
            self._keys[(item.match_id, key)] = _Idempotent(digest, first, final)
        return AppendResult(last.seq, last.hash, built, replayed=False)

    def replace_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        """Store a new write-token hash if the match still has ``old_hash``; say whether it did."""
        check_text("token_hash", new_hash)
        with self._lock:
            self._ensure_open()
            match = self._get(match_id)
            if match.token_hash != old_hash:
                return False
            match.token_hash = new_hash
            return True

    # -- reads ---------------------------------------------------------------------------

    def read(
        self, match_id: str, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return the match's events with ``after < seq <= upto`` (at most ``limit``), by seq."""
        check_window(after, upto, limit)
        with self._lock:
            self._ensure_open()
            rows = self._get(match_id).rows
            stop = len(rows) if upto is None else min(upto, len(rows))
            if limit is not None:
                stop = min(stop, after + limit)
            return [event_from_row(row) for row in rows[after:stop]]

    def version(self, match_id: str) -> int:
        """Return the seq of the match's last event."""
        with self._lock:
            self._ensure_open()
            return self._get(match_id).version

    def get_match(self, match_id: str) -> MatchRecord:
        """Return the match's row."""
        with self._lock:
            self._ensure_open()
            return self._get(match_id).record()

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
        """Return one page of matches (newest first) and the total matching the filters."""
        check_page(limit, offset)
        with self._lock:
            self._ensure_open()
            found = [
                match
                for match in self._matches.values()
                if (game is None or match.game == game)
                and (player is None or player in match.players)
                and (status is None or match.status == status)
                and (tag is None or tag in (match.meta.get("tags") or []))
                and (place is None or str(match.meta.get("place", "")).casefold() == place.casefold())
                and (date is None or match.meta.get("date") == date)
            ]
            found.sort(key=lambda match: (match.created_at, match.order), reverse=True)
            return [match.record() for match in found[offset : offset + limit]], len(found)

    def feed(self, after_id: int = 0, limit: int = 1000) -> list[tuple[int, StoredEvent]]:
        """Return ``(id, event)`` for every match's events in storage order, ids after ``after_id``."""
        check_count("after_id", after_id)
        check_count("limit", limit)
        with self._lock:
            self._ensure_open()
            rows = self._feed[after_id : after_id + limit]
            return [(after_id + i + 1, event_from_row(row)) for i, row in enumerate(rows)]

    def verify(self, match_id: str | None = None) -> list[VerifyReport]:
        """Recompute the chain of one match (or of every match, by id) from the stored rows.

        Raises:
            MatchNotFound: ``match_id`` names no match.
        """
        with self._lock:
            self._ensure_open()
            if match_id is not None:
                matches = [self._get(match_id)]
            else:
                matches = sorted(self._matches.values(), key=lambda match: match.id)
            return [
                verify_chain(match.id, [row[1:] for row in match.rows], match.version, match.head)
                for match in matches
            ]

    def read_verified(self, match_id: str) -> tuple[VerifyReport, list[StoredEvent]]:
        """Return the match's chain report and its events, from one pass over the stored rows.

        Raises:
            MatchNotFound: ``match_id`` names no match.
        """
        events: list[StoredEvent] = []
        with self._lock:
            self._ensure_open()
            match = self._get(match_id)
            report = verify_chain(match.id, [row[1:] for row in match.rows], match.version, match.head, events)
        return report, events

    # -- snapshots -----------------------------------------------------------------------

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Store (or replace) a match's snapshot at its seq.

        Raises:
            MatchNotFound: no such match.
        """
        with self._lock:
            self._ensure_open()
            self._get(snapshot.match_id)
            self._snapshots.setdefault(snapshot.match_id, {})[snapshot.seq] = snapshot

    def snapshot(self, match_id: str, *, upto: int | None = None) -> Snapshot | None:
        """Return the match's newest snapshot with ``seq <= upto`` (None: there is none)."""
        with self._lock:
            self._ensure_open()
            stored = self._snapshots.get(match_id, {})
            seqs = [s for s in stored if upto is None or s <= upto]
            return stored[max(seqs)] if seqs else None

    # -- lifecycle -----------------------------------------------------------------------

    def close(self) -> None:
        """Mark the ledger closed; later calls raise LedgerError (as the SQLite ledger does)."""
        self._closed = True

    def __enter__(self) -> MemoryLedger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _ensure_open(self) -> None:
        if self._closed:
            raise LedgerError("the ledger is closed")

    def _get(self, match_id: str) -> _Match:
        match = self._matches.get(match_id)
        if match is None:
            raise MatchNotFound(match_id)
        return match
