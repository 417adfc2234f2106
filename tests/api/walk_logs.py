"""Helpers shared by tests (moved out of tests.api.test_service_walk, so that no test module imports another)."""

from __future__ import annotations
from typing import Any
from tests.engines.drivers import playout


def corrected_log(seed: int) -> list[dict[str, Any]]:
    """A playout up to two moves into a later hand, then corrections and a re-deal of that hand."""
    events, _ = playout("la-cabra", seed)
    moves = ("lead", "beat", "discard", "tira")  # they name no seq, so they can be recorded again
    second = next(
        i
        for i, e in enumerate(events)
        if i > 1 and e.type == "hand_started" and {events[i + 1].type, events[i + 2].type} <= set(moves)
    )
    head = events[: second + 3]
    n = len(head)
    deal = head[second]
    renamed = {**head[0].data, "players": ["Nora", "Eloi", "Sara", "Wim"]}

    def ev(type_: str, **data: Any) -> dict[str, Any]:
        return {"type": type_, "data": data}

    return (
        [{"type": e.type, "data": dict(e.data)} for e in head]
        + [
            ev("void", target=deal.seq, reason="misdeal: a card showed"),  # n + 1: the hand goes
            {"type": "hand_started", "data": dict(deal.data)},  # n + 2: dealt again
            *({"type": e.type, "data": dict(e.data)} for e in head[second + 1 :]),  # n + 3, n + 4
            ev("note", text="East dealt too fast", target=deal.seq),  # n + 5
            ev("score_claimed", hand=1, points=[9, 9]),  # n + 6
            ev("amend", target=n + 6, data={"hand": 1, "points": [0, 0]}, reason="misread"),  # n + 7
            ev("amend", target=1, data=renamed, reason="names"),  # n + 8
            ev("void", target=n + 7, reason="it was 9-9 after all"),  # n + 9: voids the amend
            ev("void", target=n + 5, reason="not a comment for the sheet"),  # n + 10: voids the note
        ]
    )
