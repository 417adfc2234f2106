"""Helpers shared by tests (moved out of tests.replays.test_audit, so that no test module imports another)."""

from __future__ import annotations
from typing import Any
from engines.base import Event


def kabu_log_with_a_misdeal() -> list[Event]:
    """Hand 1 by values; hand 2 dealt, claims and a note written while it is open, then its deal voided; hand 2 again."""
    entries: list[tuple[str, dict[str, Any]]] = [
        ("match_started", {"game": "kabu", "players": ["P1", "P2", "P3", "P4"]}),
        ("hand_started", {"dealer": 3}),
        ("hand_result", {"values": [9, 7, 0, 7]}),
        ("score_claimed", {"hand": 1, "points": [13, 5, -23, 4]}),  # 4: a slip for hand 1
        ("hand_started", {"dealer": 3, "hands": [["??", "??"]] * 4}),  # 5: the misdeal
        ("stand", {"seat": 0}),
        ("score_claimed", {"hand": 1, "points": [13, 5, -23, 5]}),  # 7: hand 1 corrected
        ("note", {"text": "P4 dealt three cards to P1"}),  # 8
        ("score_claimed", {"hand": 2, "points": [1, 1, 1, -3]}),  # 9: about the misdealt hand
        ("void", {"target": 5, "reason": "misdeal"}),  # 10
        ("void", {"target": 4, "reason": "corrected at event 7"}),  # 11
        ("hand_started", {"dealer": 3}),  # 12: hand 2 again
        ("hand_result", {"values": [1, 1, 1, 1]}),
        ("score_claimed", {"hand": 2, "points": [0, 0, 0, 0]}),  # 14
    ]
    return [Event(i + 1, t, d) for i, (t, d) in enumerate(entries)]
