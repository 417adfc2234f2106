"""Random playouts recorded as a scorer would: the engines' drivers, plus notes, claims and corrections.

The drivers (``tests/engines/driver_<game>.py``) play whole matches with unseen cards where
their recording mode hides them; here notes on earlier events, the table's score claims
after each hand, and corrections (a note voided, a claim amended, a void voided) are woven
in, and every ``reveal`` binding by seq is renumbered to the event's new place. The result
is recorded through the service, so every event passed the same checks as an append.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from tests.engines.drivers import DRIVERS, run

from api.service import Service
from engines import ENGINES
from engines.base import Event, walk
from schemas import SchemaError, validate_event

GAMES = sorted(DRIVERS)


@lru_cache(maxsize=None)
def driver_events(game: str, seed: int) -> tuple[Event, ...]:
    """The driver's playout for a seed (cached: several tests record the same one)."""
    events, _ = run(ENGINES[game], DRIVERS[game](random.Random(seed)))
    return tuple(events)


def decorated(game: str, seed: int, *, limit: int | None = None) -> list[dict[str, Any]]:
    """The playout as ``{"type", "data"}`` dicts with notes, claims and corrections woven in.

    ``limit`` keeps only the first events of the playout (a match left in play).
    """
    rng = random.Random(f"{game}/{seed}/decor")
    engine = ENGINES[game]
    source = list(driver_events(game, seed))
    if limit is not None:
        source = source[:limit]
    steps = list(walk(engine, source, "recorded"))
    renumber: dict[int, int] = {}
    out: list[dict[str, Any]] = []
    claims: list[int] = []
    hands = 0

    def add(kind: str, data: dict[str, Any]) -> int:
        out.append({"type": kind, "data": data})
        return len(out)

    for step in steps:
        event = step.event
        data = dict(event.data)
        if event.type == "reveal":
            data["cards"] = [{**b, "seq": renumber[b["seq"]]} if "seq" in b else b for b in data["cards"]]
        if event.type == "hand_started" and hands:
            claim = _claim(engine, game, step_before(steps, event.seq), hands)
            if claim is not None:
                claims.append(add("score_claimed", claim))
        renumber[event.seq] = add(event.type, data)
        hands += event.type == "hand_started"
        if len(out) > 1 and rng.random() < 0.08:
            target = rng.randint(1, len(out))
            text = rng.choice(["Dora bluffed a pair", "tea break", "dealer's cut was 7", "«¿quién?» said Ana"])
            note = add("note", {"text": text, "target": target})
            if rng.random() < 0.3:
                void = add("void", {"target": note, "reason": "note on the wrong move"})
                if rng.random() < 0.5:
                    add("void", {"target": void, "reason": "the note was right after all"})
        if claims and rng.random() < 0.05:
            target = rng.choice(claims)
            amended = dict(out[target - 1]["data"])
            amended["hand"] = amended.get("hand", 1)
            add("amend", {"target": target, "data": amended, "reason": "the sheet was misread"})
    return out


def step_before(steps: list[Any], seq: int) -> Any:
    """The state after the event before ``seq``."""
    return next(s.state for s in reversed(steps) if s.event.seq < seq)


def _claim(engine: Any, game: str, state: Any, hand: int) -> dict[str, Any] | None:
    """What the table wrote after hand ``hand``: the running totals the engine computes."""
    totals = [s["total"] for s in engine.score(state)["standings"]]
    claim = {"hand": hand, "totals": totals}
    try:
        validate_event(game, "score_claimed", claim)
    except SchemaError:
        return None
    return claim


def record(service: Service, game: str, seed: int, *, limit: int | None = None, by: str = "scorer") -> dict[str, Any]:
    """Record a decorated playout through the service; return the created match (id, token)."""
    events = decorated(game, seed, limit=limit)
    created = service.start_match(events[0]["data"], by=by)
    for start in range(1, len(events), 40):
        service.record(created["id"], events[start : start + 40], token=created["token"], by=by)
    return created
