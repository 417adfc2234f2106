"""How Kabú adds up across a club's matches (see :mod:`engines.league`).

Kabú is played for chips: a league table ranks by net chips (chips won minus chips lost over the
matches), then by matches won. A hand is won by a seat whose settlement leaves it with more chips
than before (its ``net`` is positive). The next match's first dealer: under ``rotate`` the seat
after the last hand's dealer, under ``keep`` the same dealer, under ``croupier`` nobody (§2.2).
"""

from __future__ import annotations

from typing import Any, Mapping

from engines.kabu.state import GAME, State
from engines.league import League
from engines.said import Said


def hand_won(result: Mapping[str, Any], seat: int) -> bool:
    """A hand is won by a seat that comes out of the settlement with chips to the good."""
    net = result.get("net") or ()
    return seat < len(net) and (net[seat] or 0) > 0


def next_dealer(state: State) -> int | None:
    """The first dealer of the next match, as the dealer mode passes the deal on."""
    hand = state.current
    mode = state.options.dealerMode
    if hand is None or hand.dealer is None or mode == "croupier":
        return None
    return hand.dealer if mode == "keep" else (hand.dealer + 1) % len(state.players)


LEAGUE = League(
    game=GAME,
    unit=Said("chips"),
    order=(("net", "desc"), ("won", "desc")),
    words=Said("net chips (won minus lost), then matches won"),
    better="higher",
    hand_won=hand_won,
    next_dealer=next_dealer,
)
