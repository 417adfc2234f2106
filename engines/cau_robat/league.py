"""How Cau Robat adds up across a club's matches (see :mod:`engines.league`).

A league table ranks by matches won, then by hands won (RULES.md §1.6: a match is won by hand
wins, so hand wins are the natural tie-break). The next match's first dealer continues the
rotation of ``dealerRotation`` after the last hand's dealer (§1.2).
"""

from __future__ import annotations

from typing import Any, Mapping

from engines.cau_robat.rules import next_dealer as _after
from engines.cau_robat.state import GAME, State
from engines.league import League
from engines.said import Said


def hand_won(result: Mapping[str, Any], seat: int) -> bool:
    """A hand is won by the seats it names as winners (the most cards; a share when tied)."""
    return seat in (result.get("winners") or ())


def next_dealer(state: State) -> int | None:
    """The seat that deals first in the next match: the rotation goes on from the last hand."""
    return None if state.current is None else _after(state, state.current)


LEAGUE = League(
    game=GAME,
    unit=Said("hand wins"),
    order=(("won", "desc"), ("handsWon", "desc")),
    words=Said("matches won, then hands won"),
    better="higher",
    hand_won=hand_won,
    next_dealer=next_dealer,
)
