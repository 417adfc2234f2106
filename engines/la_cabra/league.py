"""How La Cabra adds up across a club's matches (see :mod:`engines.league`).

A La Cabra match is a series between two teams; each seat's figures are its team's. A league
table ranks by series won, then by the loss-point difference (loss points given to the other team
minus those taken, §5.4). A hand is won by the team that takes no loss points while the other
takes some. The next series' first dealer is the seat after the last hand's dealer (the deal
passes clockwise, §5.5).
"""

from __future__ import annotations

from typing import Any, Mapping

from engines.la_cabra.state import GAME, SEATS, State
from engines.league import League
from engines.said import Said

TEAMS = ((0, 2), (1, 3))


def hand_won(result: Mapping[str, Any], seat: int) -> bool:
    """A hand is won by the team without loss points when the other team took some."""
    loss = result.get("lossPoints") or (0, 0)
    team = 0 if seat in TEAMS[0] else 1
    return (loss[team] or 0) == 0 and (loss[1 - team] or 0) > 0


def next_dealer(state: State) -> int | None:
    """The seat after the last hand's dealer deals the first hand of the next series."""
    return None if state.current is None else (state.current.dealer + 1) % SEATS


LEAGUE = League(
    game=GAME,
    unit=Said("loss points"),
    order=(("won", "desc"), ("lossDiff", "desc")),
    words=Said("series won, then the loss-point difference"),
    better="lower",
    hand_won=hand_won,
    next_dealer=next_dealer,
    teams=TEAMS,
)
