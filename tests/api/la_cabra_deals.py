"""Helpers shared by tests (moved out of tests.api.test_la_cabra_series, so that no test module imports another)."""

from __future__ import annotations
from typing import Any


U = "??"


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}}


DEAL_1 = [
    ev(
        "hand_started",
        dealer=3,
        trump="QS",
        hands=[["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], [U, U, U, U]],
    ),
    ev("lead", seat=0, cards=["6C"]),
    ev("beat", seat=1, cards=["6S"]),
    ev("tira", seat=2, cards=["7D", "8D", "KD", "AD"]),
    ev("discard", seat=3, cards=[U, U, U, U]),  # seq 6: West's hand, face down
    ev("discard", seat=0, cards=["6C", "8H", "9H", "6D"]),
    ev("discard", seat=1, cards=["6S", "8S", "9S", "JH"]),
    ev("lead", seat=2, cards=["10H", "QH", "KH", "AH"]),
    ev("beat", seat=3, cards=["7S", "10S", "JS", "KS"]),
    ev("discard", seat=0, cards=[U, U, U, U]),
    ev("discard", seat=1, cards=[U, U, U, U]),
    ev("lead", seat=3, cards=["QS"]),
    ev("discard", seat=0, cards=[U]),
    ev("discard", seat=1, cards=[U]),
    ev("discard", seat=2, cards=[U]),  # seq 16: the deal's last card
]


REVEAL = ev("reveal", cards=[{"seq": 6, "index": i, "card": c} for i, c in enumerate(["6H", "7H", "8C", "9C"])])


REST = [
    ev("score_claimed", hand=1, points=[4, 0], totals=[4, 0], cardPoints=[17, 103]),  # seq 18
    ev("hand_started", dealer=0, leader=3),  # seq 19
    ev("hand_result", cardPoints=[70, 50], tricks=[5, 2], lastTrick=0),  # seq 20, miscounted
    ev("amend", target=20, data={"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}, reason="recounted: 72-48"),
    ev("score_claimed", hand=2, points=[0, 2], totals=[4, 2]),
    ev("hand_started", dealer=1),
    ev("hand_result", cardPoints=[25, 95], tricks=[2, 6], lastTrick=1),
    ev("score_claimed", hand=3, points=[4, 0], totals=[8, 2]),
    ev("hand_started", dealer=2),
    ev("hand_result", cardPoints=[120, 0], tricks=[6, 0], lastTrick=2),
    ev("score_claimed", hand=4, points=[0, 4], totals=[8, 6]),  # seq 28: EW lose 6, not 4
    ev("hand_started", dealer=3),
    ev("hand_result", cardPoints=[30, 90], tricks=[1, 5], lastTrick=1),
    ev("score_claimed", hand=5, points=[4, 0], totals=[12, 8], winners=[1]),
]
