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

The cache is bounded by bytes, not by a count of matches: a 10,000-event match weighs
megabytes and a short one a few dozen kilobytes, so a count bound was either useless or
wasteful. Each entry is weighed by :func:`weigh` (what its objects take, checkpoints
included, shared objects once) when it is stored; an entry that grows by appends is weighed
again only after it has grown by half (and extrapolated in between), so long matches pay
O(1) per event for it. The least recently used entries go first once the total passes the
budget; an entry heavier than the whole budget is not kept at all (its match is read from the
stored snapshots each time, which is what they are for). Checkpoints are not bounded apart:
they share the head state's histories, so 40 of them add about 1% to a 10k-event entry.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple

from api.service import snapshots
from engines.base import CORRECTIONS, Engine, Event, Step, events_from, walk
from engines.cards import Card
from engines.history import History
from ledger import Ledger, MatchNotFound, MatchRecord

CHECKPOINT_EVERY = 256

DEFAULT_BUDGET = 128 * 1024 * 1024
"""Bytes of folded states one process keeps (``TANTEO_CACHE_BYTES``, ``tanteo serve --cache-mb``)."""

RECORDS = 1024
"""Match rows kept (id, game, players, token hash: a few hundred bytes each), by count."""

FOLD_CHUNK = 512
"""Events read and folded at a time when an entry catches up or is folded cold: a 10,000-event
match is not held as 10,000 stored events at once (rebuilding every snapshot after an upgrade,
those transient megabytes per read left a server's heap fragmented well past its cache budget)."""

REWEIGH_AFTER = 16
"""An entry extended by appends is weighed again after this many events, or once its length has
doubled when that is more (a weighing walks the whole state: a 500-event series is weighed seven
times on its way, not once every few dozen appends); in between its weight is extrapolated from
the last weighing. A state's bytes per event fall as a match goes on (the options and seating are
paid once), so the extrapolation errs on the heavy side: an entry may leave the cache a little
early, never late."""


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
    kept = on.checkpoints if on is not None else {}
    checkpoints: dict[int, Any] | None = None  # copied only when a step adds one: most appends add none
    for step in steps:
        state = step.state
        if _keeps_checkpoint(step.event.seq, step.event.type):
            if checkpoints is None:
                checkpoints = dict(kept)
            checkpoints[step.event.seq] = state
    return Folded(
        version, head, state, kept if checkpoints is None else checkpoints, on.stored if on is not None else 0
    )


def log_on(ledger: Ledger, match_id: str, after: int, newer: list[Event]) -> list[Event]:
    """Return what to walk on from event ``after``: ``newer`` alone, or the whole log when a
    correction is among them (a correction is read against everything before it)."""
    if after and any(e.type in CORRECTIONS for e in newer):
        return events_from(ledger.read(match_id, upto=after)) + newer
    return newer


def walk_on(
    ledger: Ledger, match_id: str, engine: Engine, after: int, state: Any, newer: list[Event]
) -> Iterable[Step]:
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


def weigh(entry: Folded) -> int:
    """Return about how many bytes the objects of ``entry`` take (``sys.getsizeof``, each object once).

    Walks what an engine state is made of (the kinds :mod:`engines.codec` stores: tuples,
    named tuples, dataclasses, frozensets, dicts, histories, cards, scalars), the head state and
    every checkpoint, counting an object shared by several of them (earlier hands in a
    :class:`~engines.history.History`) once. Cards are the decks' own objects, shared by every
    match: not counted. A lazy history's undecoded items count as the JSON text they are; once
    read they are decoded in place and the entry grows past its weight until it is weighed again.
    A history's memo of its items' stored text (:meth:`~engines.history.History.memo`) counts too.
    """
    seen: set[int] = set()
    add = seen.add
    size = sys.getsizeof
    total = size(entry.checkpoints)
    stack: list[Any] = [entry.state, *entry.checkpoints.values()]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        value = pop()
        kind = type(value)
        if kind in _UNWEIGHED:
            continue
        if id(value) in seen:
            continue
        add(id(value))
        total += size(value)
        if kind in _LEAVES:
            continue
        if kind is tuple or kind is frozenset or kind is list or kind is set:
            extend(value)
            continue
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = _fields_of(kind)
        if fields:
            extend(getattr(value, name) for name in fields)
        elif kind is History:  # its backing list, shared by every version of it: walked once, not per version
            shared = value._shared
            if value._decode is not None and id(shared) not in seen:
                # A lazy history (a cold start from a stored snapshot) holds thousands of items
                # still as JSON text, each its own string: summed at C speed, only the items
                # already decoded walked.
                add(id(shared))
                decoded = [item for item in shared if type(item) is not str]
                total += size(shared) + sum(map(size, shared)) - sum(map(size, decoded))
                extend(decoded)
            else:
                push(shared)
            memo = value._memo  # what its items encode to (engines.codec), shared as the items are
            if memo is not None and id(memo) not in seen:
                add(id(memo))
                total += size(memo) + sum(size(text) for text in memo if text is not None)
            push(value._last)
        elif isinstance(value, tuple):  # a named tuple
            extend(value)
        elif kind is dict:
            extend(value.keys())
            extend(value.values())
    return total


_UNWEIGHED = frozenset({type(None), bool, Card})
"""Not counted: ``None`` and the booleans are singletons, cards are the decks' own objects."""

_LEAVES = frozenset({str, int, float, bytes})

_FIELDS: dict[type, tuple[str, ...]] = {}
"""The field names of each dataclass kind met (empty for anything else), looked up once per kind."""


def _fields_of(kind: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    return ()


class Weight(NamedTuple):
    """What an entry is counted for: ``estimate`` bytes, from ``measured`` bytes weighed at version ``at``."""

    estimate: int
    measured: int
    at: int


def _weight(entry: Folded, before: Weight | None) -> Weight:
    """Weigh ``entry``, or extrapolate from the same match's last weighing when it grew only a little."""
    if before is not None and before.at <= entry.version < before.at + max(REWEIGH_AFTER, before.at):
        grown = entry.version - before.at
        return Weight(before.measured + grown * before.measured // max(before.at, 1), before.measured, before.at)
    measured = weigh(entry)
    return Weight(measured, measured, entry.version)


class StateCache:
    """States of recently used matches, shared by the requests of one process.

    Keyed by match id; at most ``budget`` bytes of entries by their :func:`weigh` (least
    recently used dropped first; an entry heavier than the budget is not kept; 0 keeps
    nothing). Each entry holds the head state and checkpoints; all states are immutable engine
    values, so handing them out needs no copy. The match rows are kept apart, at most
    ``records`` of them.
    """

    def __init__(self, budget: int = DEFAULT_BUDGET, *, records: int = RECORDS) -> None:
        if budget < 0:
            raise ValueError(f"the state cache's budget is a number of bytes, 0 or more, not {budget}")
        self.budget = budget
        self._records_max = records
        self._entries: OrderedDict[str, tuple[Folded, Weight]] = OrderedDict()
        self._weight = 0
        self._heavy: OrderedDict[str, Weight] = OrderedDict()
        """The last weight of matches too heavy to keep, so that their next put is not a whole walk."""
        self._records: OrderedDict[str, MatchRecord] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def weight(self) -> int:
        """The bytes the kept entries are counted for (at most ``budget``)."""
        with self._lock:
            return self._weight

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, match_id: object) -> bool:
        with self._lock:
            return match_id in self._entries

    def record(self, match_id: str) -> MatchRecord | None:
        """Return the match row as first read: its id, game, players and token never change."""
        with self._lock:
            return self._records.get(match_id)

    def keep_record(self, record: MatchRecord) -> None:
        with self._lock:
            self._records[record.id] = record
            self._records.move_to_end(record.id)
            while len(self._records) > self._records_max:
                self._records.popitem(last=False)

    def get(self, match_id: str) -> Folded | None:
        with self._lock:
            kept = self._entries.get(match_id)
            if kept is None:
                return None
            self._entries.move_to_end(match_id)
            return kept[0]

    def put(self, match_id: str, entry: Folded) -> None:
        """Keep an entry, unless a newer one for the match is already there (a racing writer).

        The entry is weighed outside the lock (a long match takes milliseconds to walk); the
        least recently used entries are then dropped until the total fits the budget. An entry
        heavier than the budget is not kept, and the match's older entry goes with it; its
        weight is remembered, so the match's next entries are extrapolated from it, not walked.
        """
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current[0].version > entry.version:
                return
            before = current[1] if current is not None else self._heavy.get(match_id)
        weight = _weight(entry, before)
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current[0].version > entry.version:
                return
            if current is not None:
                del self._entries[match_id]
                self._weight -= current[1].estimate
            if weight.estimate > self.budget:
                self._heavy[match_id] = weight
                self._heavy.move_to_end(match_id)
                while len(self._heavy) > self._records_max:
                    self._heavy.popitem(last=False)
                return
            self._heavy.pop(match_id, None)
            self._entries[match_id] = (entry, weight)
            self._weight += weight.estimate
            while self._weight > self.budget:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._weight -= dropped.estimate

    def drop(self, match_id: str) -> None:
        with self._lock:
            self._heavy.pop(match_id, None)
            kept = self._entries.pop(match_id, None)
            if kept is not None:
                self._weight -= kept[1].estimate

    def at_head(self, ledger: Ledger, match_id: str, engine: Engine, version: int) -> Folded:
        """Return the entry for the match at ``version``: cached, caught up from the log, or folded cold."""
        entry = self.get(match_id)
        if entry is not None and entry.version == version:
            return entry
        if entry is None or entry.version > version:
            loaded = snapshots.load(ledger, match_id, engine, version)
            if loaded is not None:  # a cold start from the stored snapshot
                entry = Folded(loaded.seq, loaded.head, loaded.state, {loaded.seq: loaded.state}, loaded.seq)
        fresh = entry if entry is not None and entry.version <= version else None  # None: folded cold, from event 1
        after = 0 if fresh is None else fresh.version
        while after < version:  # caught up FOLD_CHUNK events at a time
            records = ledger.read(match_id, after=after, upto=min(after + FOLD_CHUNK, version))
            if not records:
                raise MatchNotFound(match_id)  # the log is shorter than its match row says: never on a sound file
            newer = events_from(records)
            steps = (
                walk(engine, newer, "recorded")
                if fresh is None
                else walk_on(ledger, match_id, engine, after, fresh.state, newer)
            )
            fresh = folded(steps, records[-1].seq, records[-1].hash, fresh)
            after = fresh.version
        assert fresh is not None  # version >= 1: at least match_started was folded
        self.put(match_id, fresh)
        return fresh
