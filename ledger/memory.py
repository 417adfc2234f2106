"""An in-memory ledger with exactly the SQLite ledger's semantics, for tests and tools.

It stores the same rows the SQLite ledger stores (canonical JSON text, hashes, chain format)
and decodes them on every read, so a caller can never change stored data by mutating a dict
it was given, and :meth:`MemoryLedger.verify` recomputes the chain from stored text just as
the SQLite verifier does. It runs the same write procedure (:class:`ledger.base.Ledger`); a
write is atomic because everything that can fail — validation, chaining, the caller's check
— happens before the first change to the store, under one lock, and nothing after it can fail.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ._core import KeyRow, Row, event_from_row, verify_chain
from orjson import loads

from ._sql import json_text
from .base import CLUB_LOG, Head, Ledger, MatchFilter, Snapshot, Store
from .errors import LedgerError, MatchNotFound
from .records import MatchRecord, StoredEvent, VerifyReport

_R = TypeVar("_R")


@dataclass
class _Match:
    """One match's row (replaced whole on every change) and its log (``rows[i]`` holds seq ``i + 1``)."""

    row: MatchRecord
    order: int
    rows: list[Row] = field(default_factory=list)

    def record(self) -> MatchRecord:
        return dataclasses.replace(self.row, meta=copy.deepcopy(self.row.meta))


class _Tables:
    """The store (see :class:`ledger.base.Store`): the dicts the ledger keeps, used under its lock."""

    failures: tuple[type[BaseException], ...] = ()

    def __init__(
        self,
        matches: dict[str, _Match],
        feed: list[Row],
        keys: dict[tuple[str, str], tuple[str, int, int]],
        snapshots: dict[str, dict[int, Snapshot]],
        docs: dict[str, dict[str, str]],
        positions: dict[str, int],
    ) -> None:
        self.matches, self.feed, self.keys, self.snapshots = matches, feed, keys, snapshots
        self.docs, self.positions = docs, positions
        self.found: _Match | None = None
        self.base = 0

    def head(self, match_id: str, key: str | None) -> Head | None:
        match = self.found = self.matches.get(match_id)
        if match is None:
            return None
        row = match.row
        return row.version, row.head, row.status, None if key is None else self.keys.get((match_id, key))

    def record(self) -> MatchRecord:
        assert self.found is not None
        return self.found.record()

    def events(self, match_id: str, first: int, last: int) -> tuple[StoredEvent, ...]:
        return tuple(event_from_row(row) for row in self.matches[match_id].rows[first - 1 : last])

    def exists(self, match_id: str) -> bool:
        return match_id in self.matches

    def insert_match(self, match: MatchRecord) -> bool:
        self.matches[match.id] = _Match(dataclasses.replace(match, meta=copy.deepcopy(match.meta)), len(self.matches))
        return True

    def insert_events(self, rows: list[Row]) -> None:
        self.matches[rows[0][0]].rows.extend(rows)
        self.feed.extend(rows)

    def insert_keys(self, match_id: str, keys: Sequence[KeyRow]) -> None:
        for key, digest, first, last, _at in keys:
            self.keys[(match_id, key)] = (digest, first, last)

    def set_meta(self, match_id: str, meta: Mapping[str, Any]) -> None:
        self._change(match_id, meta=copy.deepcopy(dict(meta)))

    def move(self, match_id: str, version: int, head: str, status: str | None) -> None:
        if status is None:
            self._change(match_id, version=version, head=head)
        else:
            self._change(match_id, version=version, head=head, status=status)

    def swap_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        if self.matches[match_id].row.token_hash != old_hash:
            return False
        self._change(match_id, token_hash=new_hash)
        return True

    def put_snapshot(self, snapshot: Snapshot) -> None:
        self.snapshots.setdefault(snapshot.match_id, {})[snapshot.seq] = snapshot

    def savepoint(self) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()  # nothing is changed before the last thing that can fail

    def doc_position(self, name: str) -> int:
        return self.positions.get(name, 0)

    def put_docs(self, name: str, docs: Mapping[str, Any], position: int | None, clear: bool) -> None:
        stored = {} if clear else dict(self.docs.get(name, {}))
        for key, doc in docs.items():
            if doc is None:
                stored.pop(key, None)
            else:
                stored[key] = json_text(doc)  # stored as text, as the SQL ledgers store it
        self.docs[name] = stored
        if position is not None:
            self.positions[name] = position

    def _change(self, match_id: str, **fields: Any) -> None:
        match = self.matches[match_id]
        match.row = dataclasses.replace(match.row, **fields)


class MemoryLedger(Ledger):
    """A :class:`~ledger.base.Ledger` held in memory; safe to share between threads."""

    def __init__(self) -> None:
        # Re-entrant so that a check may read the ledger it is running inside, as it can
        # through the SQLite connection holding the write transaction.
        self._lock = threading.RLock()
        self._matches: dict[str, _Match] = {}
        self._log: list[Row] = []
        """Every match's rows in the order they were stored (the feed)."""
        self._snapshots: dict[str, dict[int, Snapshot]] = {}
        self._docs_by_name: dict[str, dict[str, str]] = {}
        self._tables = _Tables(self._matches, self._log, {}, self._snapshots, self._docs_by_name, {})
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryLedger({len(self._matches)} matches, {len(self._log)} events)"

    # -- the backend's part of the procedure ---------------------------------------------

    def _run(self, match_id: str, key: str | None, work: Callable[[Store], _R]) -> _R:
        with self._transaction() as tables:
            return work(tables)

    @contextlib.contextmanager
    def _transaction(self, match_id: str = "") -> Iterator[_Tables]:
        with self._lock:
            self._ensure_open()
            yield self._tables

    # -- reads ---------------------------------------------------------------------------

    def _read(self, match_id: str, after: int, upto: int | None, limit: int | None) -> list[StoredEvent]:
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
            return self._get(match_id).row.version

    def get_match(self, match_id: str) -> MatchRecord:
        """Return the match's row."""
        with self._lock:
            self._ensure_open()
            return self._get(match_id).record()

    def _list(self, where: MatchFilter, limit: int, offset: int) -> tuple[list[MatchRecord], int]:
        place = None if where.place is None else where.place.casefold()
        with self._lock:
            self._ensure_open()
            found = [
                match
                for match in self._matches.values()
                if (match.row.game == where.game if where.game is not None else match.row.game != CLUB_LOG)
                and (where.player is None or where.player in match.row.players)
                and (where.status is None or match.row.status == where.status)
                and (where.tag is None or where.tag in (match.row.meta.get("tags") or []))
                and (place is None or str(match.row.meta.get("place", "")).casefold() == place)
                and (where.date is None or match.row.meta.get("date") == where.date)
            ]
            found.sort(key=lambda match: (match.row.created_at, match.order), reverse=True)
            return [match.record() for match in found[offset : offset + limit]], len(found)

    def _docs(self, name: str, keys: Sequence[str]) -> dict[str, Any]:
        with self._lock:
            stored = self._docs_by_name.get(name, {})
            return {key: loads(stored[key]) for key in keys if key in stored}

    def _scan_docs(self, name: str, low: str, high: str, limit: int | None, reverse: bool) -> list[tuple[str, Any]]:
        with self._lock:
            found = sorted(
                ((k, v) for k, v in self._docs_by_name.get(name, {}).items() if low <= k < high), reverse=reverse
            )
        return [(key, loads(doc)) for key, doc in found[:limit]]

    def _doc_position(self, name: str) -> int:
        with self._lock:
            return self._tables.positions.get(name, 0)

    def _feed(self, after_id: int, limit: int) -> list[tuple[int, StoredEvent]]:
        with self._lock:
            self._ensure_open()
            rows = self._log[after_id : after_id + limit]
            return [(after_id + i + 1, event_from_row(row)) for i, row in enumerate(rows)]

    def _changes(self, after_id: int | None) -> tuple[int, dict[str, int]]:
        with self._lock:
            self._ensure_open()
            if after_id is None:
                return len(self._log), {}
            versions: dict[str, int] = {}
            for row in self._log[after_id:]:
                event = event_from_row(row)
                versions[event.match] = event.seq
            return len(self._log), versions

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
                matches = sorted(self._matches.values(), key=lambda match: match.row.id)
            return [
                verify_chain(match.row.id, [row[1:] for row in match.rows], match.row.version, match.row.head)
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
            report = verify_chain(
                match.row.id, [row[1:] for row in match.rows], match.row.version, match.row.head, events
            )
        return report, events

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

    def _ensure_open(self) -> None:
        if self._closed:
            raise LedgerError("the ledger is closed")

    def _get(self, match_id: str) -> _Match:
        match = self._matches.get(match_id)
        if match is None:
            raise MatchNotFound(match_id)
        return match
