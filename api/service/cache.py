"""The state cache: per match, the state at the head and checkpoints; Flask-free.

Folding a long match must not cost O(events) per append, so the process keeps a
:class:`StateCache`: per match, the state at the head plus checkpoints (every
``CHECKPOINT_EVERY`` events and at every correction) for ``state at step N`` and cold
starts. Every state here is the one the match had when that event was stored: the
``recorded`` course of :func:`engines.base.walk`, which agrees with the corrected log at
the head and never changes for an event once stored, so an entry is only ever extended.
The cache is only a cache: inside the write transaction the ledger tells the current
version, and a cache that is behind (another process appended) catches up from the log.
A match missing from the cache (a new process, an evicted entry) starts from its newest good
stored snapshot (:mod:`api.service.snapshots`) and folds only the events after it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from api.service import snapshots
from engines.base import CORRECTIONS, Engine, Event, Step, events_from, walk
from ledger import Ledger, MatchRecord

CHECKPOINT_EVERY = 256


@dataclass(frozen=True)
class Folded:
    """What the cache knows of one match: the head state and checkpoints."""

    version: int
    head: str
    state: Any
    checkpoints: Mapping[int, Any] = field(default_factory=dict)
    """States after a few seqs: 1, every ``CHECKPOINT_EVERY``-th, and every correction."""
    stored: int = 0
    """The seq of the newest stored snapshot this entry knows of (0: none)."""


def _keeps_checkpoint(seq: int, event_type: str) -> bool:
    return seq == 1 or seq % CHECKPOINT_EVERY == 0 or event_type in CORRECTIONS


def folded(steps: Iterable[Step], version: int, head: str, on: Folded | None = None) -> Folded:
    """Return the entry after walking ``steps`` on from entry ``on`` (None: from the start)."""
    state = on.state if on is not None else None
    checkpoints = dict(on.checkpoints) if on is not None else {}
    for step in steps:
        state = step.state
        if _keeps_checkpoint(step.event.seq, step.event.type):
            checkpoints[step.event.seq] = state
    return Folded(version, head, state, checkpoints, on.stored if on is not None else 0)


def log_on(ledger: Ledger, match_id: str, after: int, newer: list[Event]) -> list[Event]:
    """Return what to walk on from event ``after``: ``newer`` alone, or the whole log when a
    correction is among them (a correction is read against everything before it)."""
    if after and any(e.type in CORRECTIONS for e in newer):
        return events_from(ledger.read(match_id, upto=after)) + newer
    return newer


def walk_on(ledger: Ledger, match_id: str, engine: Engine, after: int, state: Any, newer: list[Event]) -> Iterable[Step]:
    """Walk the recorded course on from the state after event ``after`` over ``newer``."""
    return walk(engine, log_on(ledger, match_id, after, newer), "recorded", after=after, state=state)


def state_at(ledger: Ledger, match_id: str, engine: Engine, entry: Folded, at: int) -> Any:
    """Return the state after event ``at`` (at most the entry's version), from the nearest
    checkpoint or stored snapshot at or before it (from event 1 when there is neither)."""
    base = max((s for s in entry.checkpoints if s <= at), default=0)
    state = entry.checkpoints.get(base)
    if base < at:
        stored = snapshots.load(ledger, match_id, engine, at, newer_than=base)
        if stored is not None:
            base, state = stored.seq, stored.state
    if base == at:
        return state
    if base == 0:
        for step in walk(engine, events_from(ledger.read(match_id, upto=at)), "recorded"):
            state = step.state
        return state
    newer = events_from(ledger.read(match_id, after=base, upto=at))
    for step in walk_on(ledger, match_id, engine, base, state, newer):
        state = step.state
    return state


class StateCache:
    """States of recently used matches, shared by the requests of one process.

    Keyed by match id; at most ``size`` matches (least recently used dropped). Each entry
    holds the head state and checkpoints; all states are immutable engine values, so
    handing them out needs no copy.
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._entries: OrderedDict[str, Folded] = OrderedDict()
        self._records: OrderedDict[str, MatchRecord] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, match_id: str) -> MatchRecord | None:
        """Return the match row as first read: its id, game, players and token never change."""
        with self._lock:
            return self._records.get(match_id)

    def keep_record(self, record: MatchRecord) -> None:
        with self._lock:
            self._records[record.id] = record
            while len(self._records) > self._size:
                self._records.popitem(last=False)

    def get(self, match_id: str) -> Folded | None:
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is not None:
                self._entries.move_to_end(match_id)
            return entry

    def put(self, match_id: str, entry: Folded) -> None:
        """Keep an entry, unless a newer one for the match is already there (a racing writer)."""
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current.version > entry.version:
                return
            self._entries[match_id] = entry
            self._entries.move_to_end(match_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def drop(self, match_id: str) -> None:
        with self._lock:
            self._entries.pop(match_id, None)

    def at_head(self, ledger: Ledger, match_id: str, engine: Engine, version: int) -> Folded:
        """Return the entry for the match at ``version``: cached, caught up from the log, or folded cold."""
        entry = self.get(match_id)
        if entry is not None and entry.version == version:
            return entry
        if entry is None or entry.version > version:
            loaded = snapshots.load(ledger, match_id, engine, version)
            if loaded is not None:  # a cold start from the stored snapshot
                entry = Folded(loaded.seq, loaded.head, loaded.state, {loaded.seq: loaded.state}, loaded.seq)
        if entry is not None and entry.version == version:
            fresh = entry
        elif entry is not None and entry.version < version:
            records = ledger.read(match_id, after=entry.version, upto=version)
            steps = walk_on(ledger, match_id, engine, entry.version, entry.state, events_from(records))
            fresh = folded(steps, version, records[-1].hash, entry)
        else:
            records = ledger.read(match_id, upto=version)
            fresh = folded(walk(engine, events_from(records), "recorded"), version, records[-1].hash)
        self.put(match_id, fresh)
        return fresh
