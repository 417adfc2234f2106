"""How El Roby adds up across a club's matches (see :mod:`engines.league`).

El Roby is played for a pot: a league table ranks by pots won (matches won), then by money (the
net of entries, rebuys, stakes and pots, §4.6). A hand is won by the seat that went out (made
Roby). The next match's first dealer is the seat after the last hand's dealer (§4.2: the deal
passes on; in a new match every player is back in).
"""

from __future__ import annotations

from typing import Any, Mapping

from engines.el_roby.state import GAME, State
from engines.league import League
from engines.said import Said


def hand_won(result: Mapping[str, Any], seat: int) -> bool:
    """A hand is won by the seat that went out."""
    return result.get("out") == seat and not result.get("void")


def next_dealer(state: State) -> int | None:
    """The seat after the last hand's dealer deals first in the next match."""
    return None if state.last_dealer is None else (state.last_dealer + 1) % state.n


LEAGUE = League(
    game=GAME,
    unit=Said("points"),
    order=(("won", "desc"), ("money", "desc")),
    words=Said("pots won, then money"),
    better="lower",
    hand_won=hand_won,
    next_dealer=next_dealer,
)
