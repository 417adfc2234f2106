"""How Cabo adds up across a club's matches (see :mod:`engines.league`).

In Cabo the lowest total wins: a league table ranks by matches won, then by the lowest average
final total per match. A round is won by its lowest sum (the ``winners`` of the round, §3.4). The
next match's first start player is a winner of the last round (§3.2): the first of them in seat
order.
"""

from __future__ import annotations

from typing import Any, Mapping

from engines.cabo.state import GAME, State
from engines.league import League
from engines.said import Said


def hand_won(result: Mapping[str, Any], seat: int) -> bool:
    """A round is won by the seats with the lowest sum (its ``winners``)."""
    return seat in (result.get("winners") or ())


def next_dealer(state: State) -> int | None:
    """A winner of the last scored round starts the next match (the first one in seat order)."""
    if not state.scores:
        return None
    winners = state.scores[-1].winners
    return min(winners) if winners else None


LEAGUE = League(
    game=GAME,
    unit=Said("points"),
    order=(("won", "desc"), ("average", "asc")),
    words=Said("matches won, then the lowest average total per match"),
    better="lower",
    hand_won=hand_won,
    next_dealer=next_dealer,
)
