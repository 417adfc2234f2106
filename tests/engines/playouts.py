"""Random legal playouts without the conformance checks: logs for round trips and cost counts.

The same drivers as ``test_conformance.py`` (their deals, template filling and follow-ups),
played straight through: each step asks ``legal_moves``, lets the driver choose, applies.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from tests.engines.drivers import DRIVERS

from engines import ENGINES
from engines.base import Event

LIMIT = 3000


@lru_cache(maxsize=None)
def play(game: str, seed: int) -> tuple[tuple[Event, ...], tuple[Any, ...]]:
    """Play one seeded match to its end; return its events and the state after each of them."""
    engine = ENGINES[game]
    driver = DRIVERS[game](random.Random(seed))
    data = driver.match_data()
    events = [Event(1, "match_started", data)]
    states = [engine.start(data)]
    for _ in range(LIMIT):
        state = states[-1]
        moves = engine.legal_moves(state)
        if not moves and not driver.pending:
            break
        kind, payload = driver.choose(state, moves)
        event = Event(len(events) + 1, kind, payload)
        after = engine.apply(state, event)
        driver.observe(state, event, after)
        events.append(event)
        states.append(after)
    return tuple(events), tuple(states)
