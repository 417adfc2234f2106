"""Can a hand still be emptied this turn? A small exhaustive search over melds and lay-offs.

Used where a rule looks ahead within one turn, on a hand the record knows completely:
a meld in the first round (the turn must end with the hand empty), and the 11-card Roby
(every card laid off on the table's melds). A longer meld is a three-card meld plus
lay-offs, so new melds are tried as three-card melds only. The search remembers the
positions it has seen; past ``BUDGET`` positions it gives the benefit of the doubt (True).
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable

from engines.cards import Card
from engines.el_roby.state import Options, classify, sort_key

BUDGET = 20000


def can_empty(
    hand: tuple[Card, ...], melds: tuple[tuple[Card, ...], ...], options: Options, *, new_melds: bool, leave: int = 0
) -> bool:
    """Tell whether ``hand`` can be brought down to ``leave`` cards or fewer.

    ``melds`` are the cards of the melds on the table; lay-offs go on any of them (and on
    new ones when ``new_melds``). ``leave = 1`` allows a final discard.
    """
    hand = tuple(sorted(hand, key=sort_key))
    if not new_melds and not _each_could_fit(hand, melds):
        return False
    return can_reach(hand, melds, options, lambda rest, _melds: len(rest) <= leave, new_melds=new_melds)


def _each_could_fit(hand: tuple[Card, ...], melds: tuple[tuple[Card, ...], ...]) -> bool:
    """A quick necessary condition for lay-offs alone: each card shares a set's rank or a run's suit."""
    ranks = {m[0].rank for m in melds if len({c.rank for c in m}) == 1}
    suits = {m[0].suit for m in melds if len({c.rank for c in m}) > 1}
    return all(c.rank in ranks or c.suit in suits for c in hand)


def can_reach(
    hand: tuple[Card, ...],
    melds: tuple[tuple[Card, ...], ...],
    options: Options,
    goal: Callable[[tuple[Card, ...], tuple[tuple[Card, ...], ...]], bool],
    *,
    new_melds: bool = True,
) -> bool:
    """Tell whether some melds and lay-offs from ``hand`` reach a position where ``goal(rest, melds)`` holds.

    ``goal`` is tried on ``hand`` itself first. Past ``BUDGET`` positions: True.
    """
    seen: set[tuple[tuple[Card, ...], tuple[tuple[Card, ...], ...]]] = set()
    budget = [BUDGET]

    def canon(ms: list[tuple[Card, ...]]) -> tuple[tuple[Card, ...], ...]:
        return tuple(sorted(tuple(sorted(m, key=sort_key)) for m in ms))

    def go(rest: tuple[Card, ...], ms: tuple[tuple[Card, ...], ...]) -> bool:
        key = (rest, ms)
        if key in seen:
            return False
        seen.add(key)
        budget[0] -= 1
        if budget[0] < 0 or goal(rest, ms):
            return True
        for i, c in enumerate(rest):
            if i and rest[i - 1] == c:
                continue
            left = rest[:i] + rest[i + 1 :]
            for j, m in enumerate(ms):
                if classify(m + (c,), options) is not None:
                    grown = list(ms)
                    grown[j] = m + (c,)
                    if go(left, canon(grown)):
                        return True
        if new_melds:
            tried: set[tuple[Card, ...]] = set()
            for combo in combinations(range(len(rest)), 3):
                cards = tuple(rest[k] for k in combo)
                if cards in tried:
                    continue
                tried.add(cards)
                if classify(cards, options) is None:
                    continue
                left = tuple(rest[k] for k in range(len(rest)) if k not in combo)
                if go(left, canon(list(ms) + [cards])):
                    return True
        return False

    return go(tuple(sorted(hand, key=sort_key)), canon(list(melds)))
