"""Helpers shared by tests (moved out of tests.api.test_snapshots, so that no test module imports another)."""

from __future__ import annotations
from typing import Any
from engines.base import Event


def eggs_log(length: int) -> list[dict[str, Any]]:
    """A long legal series: result-only 60-60 deals never end it; a note now and then."""
    log: list[dict[str, Any]] = [
        {"type": "match_started", "data": {"game": "la-cabra", "players": ["N", "E", "S", "W"]}}
    ]
    dealer = 3
    while len(log) < length:
        if len(log) % 7 == 0:
            log.append({"type": "note", "data": {"text": f"note {len(log) + 1}"}})
            continue
        log.append({"type": "hand_started", "data": {"dealer": dealer}})
        log.append({"type": "hand_result", "data": {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": dealer}})
        dealer = (dealer + 1) % 4
    return log[:length]


def ended_log(game: str, seed: int) -> list[dict[str, Any]]:
    """A whole series played to its end with legal random moves (the conformance driver)."""
    import random

    from engines import ENGINES
    from tests.engines.drivers import DRIVERS

    engine, driver = ENGINES[game], DRIVERS[game](random.Random(seed))
    data = driver.match_data()
    events, state = [Event(1, "match_started", data)], engine.start(data)
    while not engine.is_over(state):
        kind, payload = driver.choose(state, engine.legal_moves(state))
        event = Event(len(events) + 1, kind, payload)
        after = engine.apply(state, event)
        driver.observe(state, event, after)
        events.append(event)
        state = after
    return [{"type": e.type, "data": dict(e.data)} for e in events]


def recorded(client: Any, log: list[dict[str, Any]], batch: int = 200) -> tuple[str, str]:
    """Start a match from ``log[0]`` and record the rest through the API, ``batch`` events a
    request; return the match's id and write token."""
    created = client.post("/matches", json=log[0]["data"]).get_json()
    for start in range(1, len(log), batch):
        response = client.post(
            f"/matches/{created['id']}/events",
            json={"events": log[start : start + batch]},
            headers={"Authorization": f"Bearer {created['token']}"},
        )
        assert response.status_code == 201, response.get_json()
    return created["id"], created["token"]
