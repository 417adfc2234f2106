"""Helpers shared by tests (moved out of tests.engines.test_conformance, so that no test module imports another)."""

from __future__ import annotations

import importlib
import json
import pickle
import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines import ENGINES
from engines.base import Engine, Event

SEEDS = range(10)


LIMIT = 1500


def _drivers() -> dict[str, Any]:
    """Find every game's driver: a module ``tests/engines/driver_<game>.py`` with ``GAME`` and ``Driver``."""
    found = {}
    for path in sorted(Path(__file__).parent.glob("driver_*.py")):
        module = importlib.import_module(f"tests.engines.{path.stem}")
        found[module.GAME] = module.Driver
    return found


DRIVERS: dict[str, Any] = _drivers()


def run(engine: Engine, driver: Any) -> tuple[list[Event], Any]:
    """Play a whole series with legal moves, checking every step."""
    data = driver.match_data()
    events = [Event(1, "match_started", data)]
    state = engine.start(data)
    for _ in range(LIMIT):
        moves = engine.legal_moves(state)
        if not moves and not driver.pending:
            break
        seq = len(events) + 1
        for move in moves:
            json.dumps(move)
            if driver.is_complete(move):
                engine.apply(state, Event(seq, move["type"], move["data"]))  # every complete template applies
        kind, payload = driver.choose(state, moves)
        event = Event(seq, kind, payload)
        fingerprint, frozen = hash(state), pickle.dumps(state)
        after = engine.apply(state, event)
        assert hash(state) == fingerprint and pickle.dumps(state) == frozen  # apply never changed its input
        assert pickle.loads(frozen) == state
        trip = json.loads(json.dumps(payload))
        assert trip == payload and engine.apply(state, Event(seq, kind, trip)) == after
        words = engine.narrate(state, event, after)
        assert isinstance(words, str) and words
        json.dumps(engine.view(after, None))
        driver.check(engine, after)  # builds and checks every seat's view and the "all" view
        driver.observe(state, event, after)
        events.append(event)
        state = after
    return events, state


@lru_cache(maxsize=None)
def playout(game: str, seed: int) -> tuple[list[Event], Any]:
    return run(ENGINES[game], DRIVERS[game](random.Random(seed)))
