"""Helpers shared by tests (moved out of tests.engines.test_linear_folds, so that no test module imports another)."""

from __future__ import annotations
import sys
from types import FrameType
from typing import Any, Callable
from tests.engines.playouts import play
from engines.base import Event
from engines.history import History


SEEDS = {"cabo": 0, "cau-robat": 0, "el-roby": 0, "kabu": 0, "la-cabra": 0}


def padded(state: Any, extra: int) -> Any:
    """Return ``state`` with ``extra`` more earlier hands: copies of the first, in every per-hand history."""
    fields = {f: getattr(state, f) for f in state._fields if isinstance(getattr(state, f), History)}
    assert fields and all(len(h) for h in fields.values()), "the cut must come after a finished hand"
    # built by appends, as a fold builds it (a list built in one go has no spare room, so the
    # first append would reallocate it: a one-off, amortized over the next hands)
    return state._replace(**{f: History() + ((h[0],) * extra + tuple(h)) for f, h in fields.items()})


def cut(game: str) -> tuple[Any, list[Event]]:
    """Return the state just before the match's last deal and the events from that deal on."""
    events, states = play(game, SEEDS[game])
    last = max(i for i, e in enumerate(events) if e.type == "hand_started")
    return states[last - 1], list(events[last:])


def lines_executed(run: Callable[[Event], Any], events: list[Event]) -> int:
    """Count the Python lines executed while the events are applied."""
    count = 0

    def tracer(frame: FrameType, what: str, arg: Any) -> Any:
        nonlocal count
        if what == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        for event in events:
            run(event)
    finally:
        sys.settrace(None)
    return count
