"""A fold runs without cyclic garbage collections, and leaves the collector as it found it.

The fold builds acyclic immutable state, so the collector has nothing to free in it, while
the hands a long match keeps would trigger full collections that rescan the whole process
(engines.base.collector_paused). Collections are counted with ``gc.callbacks``, under a
threshold low enough that any fold of a few events would trigger some.
"""

from __future__ import annotations

import gc
import threading
from typing import Any, Iterator

import pytest

from engines import la_cabra
from engines.base import Event, RuleViolation, replay, walk

PLAYERS = ["North", "East", "South", "West"]


def series(hands: int) -> list[Event]:
    """A legal result-only La Cabra series: every deal 60-60, so no team ever loses."""
    events = [Event(1, "match_started", {"game": "la-cabra", "players": PLAYERS})]
    for h in range(hands):
        events.append(Event(len(events) + 1, "hand_started", {"dealer": (3 + h) % 4}))
        events.append(
            Event(len(events) + 1, "hand_result", {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": (3 + h) % 4})
        )
    return events


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """Count the collections that start while the test runs, with a threshold of 10 allocations."""
    counted: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            counted.append(info["generation"])

    threshold = gc.get_threshold()
    enabled = gc.isenabled()
    gc.enable()
    gc.set_threshold(10, 2, 2)
    gc.callbacks.append(count)
    try:
        yield counted
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*threshold)
        if not enabled:
            gc.disable()


def test_a_fold_triggers_no_collection_and_resumes_the_collector(collections: list[int]) -> None:
    events = series(200)
    for _ in walk(la_cabra, events):  # the walk alone pauses nothing: the threshold is low enough
        pass
    assert collections
    collections.clear()
    state = replay(la_cabra, events)
    assert collections == [] and gc.isenabled()
    assert len(state.past) == 199 and state.current.number == 200
    gc.collect()  # the collector still works after the fold
    assert collections


def test_a_refused_move_resumes_the_collector(collections: list[int]) -> None:
    events = series(3)
    events.append(Event(len(events) + 1, "lead", {"seat": 0, "cards": ["AS"]}))  # result-only hand: no moves
    with pytest.raises(RuleViolation) as refused:
        replay(la_cabra, events)
    assert refused.value.code == "common.no_deal" and gc.isenabled()


def test_a_collector_disabled_before_the_fold_stays_disabled() -> None:
    gc.disable()
    try:
        replay(la_cabra, series(5))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_concurrent_folds_resume_the_collector_once_all_have_ended() -> None:
    events = series(300)
    done: list[Any] = []
    threads = [threading.Thread(target=lambda: done.append(replay(la_cabra, events))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(done) == 4 and all(s == done[0] for s in done) and gc.isenabled()
