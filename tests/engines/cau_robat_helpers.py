"""Helpers for Cau Robat tests: a match recorder, seeded deals and an independent reference hand.

:func:`reference_hand` plays a whole hand under the default rules of docs/RULES.md §1.4 with
plain lists, written apart from the engine (no shared code), so that a deal played through
the engine can be compared card for card with it.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

import pytest

from engines import cau_robat
from engines.base import Event, RuleViolation
from engines.cards import SPANISH_40

PLAYERS = ["A", "B", "C", "D"]
A, B, C, D = 0, 1, 2, 3
CYC = ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]
TABLE = {2: 4, 3: 4, 4: 4, 5: 5, 6: 4}


class Match:
    """Record events one by one like the service does: refused events write nothing."""

    def __init__(
        self,
        players: Sequence[str] = PLAYERS,
        options: dict[str, Any] | None = None,
        target: dict[str, Any] | None = None,
        initial: dict[str, Any] | None = None,
        state: cau_robat.State | None = None,
    ) -> None:
        data: dict[str, Any] = {"game": "cau-robat", "players": list(players), "options": options or {}}
        if target is not None:
            data["target"] = target
        if initial is not None:
            data["initial"] = initial
        self.events = [Event(1, "match_started", data)]
        self.state = state if state is not None else cau_robat.start(data)
        self.texts: list[str] = []

    @classmethod
    def at(cls, *args: Any, **kwargs: Any) -> "Match":
        """A match from a mid-hand position (:func:`engines.cau_robat.position`)."""
        state = cau_robat.position(*args, **kwargs)
        return cls(state.players, state=state)

    @property
    def seq(self) -> int:
        return len(self.events) + 1

    @property
    def hand(self) -> cau_robat.Hand:
        assert self.state.current is not None
        return self.state.current

    def add(self, type: str, **data: Any) -> cau_robat.State:
        event = Event(self.seq, type, data)
        before = self.state
        self.state = cau_robat.apply(before, event)
        self.events.append(event)
        self.texts.append(cau_robat.narrate(before, event, self.state))
        return self.state

    def play(self, seat: int, card: str, **data: Any) -> cau_robat.State:
        return self.add("play", seat=seat, card=card, **data)

    def refuse(self, type: str, code: str, **data: Any) -> RuleViolation:
        before = self.state
        with pytest.raises(RuleViolation) as info:
            cau_robat.apply(before, Event(self.seq, type, data))
        assert info.value.code == code, info.value
        assert self.state is before
        return info.value

    def piles(self) -> list[list[str]]:
        return [[str(c) for c in p] for p in self.hand.piles]

    def table(self) -> list[str]:
        return [str(c) for c in self.hand.table]

    def score(self) -> dict[str, Any]:
        return cau_robat.score(self.state)


def deal(rng: random.Random, n: int) -> tuple[list[str], list[list[str]]]:
    """Shuffle and deal: the face-up table after the duplicate fix (extras replaced), then the hands."""
    deck = [str(c) for c in SPANISH_40.cards]
    rng.shuffle(deck)
    table: list[str] = []
    while len(table) < TABLE[n]:
        card = deck.pop()
        if any(c[:-1] == card[:-1] for c in table):
            deck.insert(rng.randrange(len(deck) + 1), card)  # shuffled back in
        else:
            table.append(card)
    per = len(deck) // n
    return table, [deck[i * per : (i + 1) * per] for i in range(n)]


def _rank(card: str) -> str:
    return card[:-1]


def reference_hand(
    n: int, dealer: int, table: list[str], hands: list[list[str]], rng: random.Random
) -> tuple[list[tuple[int, str]], list[list[str]], list[str]]:
    """Play a hand with random cards under the default rules; return the plays, piles and table left."""
    piles: list[list[str]] = [[] for _ in range(n)]
    tbl = list(table)
    held = [list(h) for h in hands]
    chain: list[tuple[int, str]] = []
    plays: list[tuple[int, str]] = []

    def after(x: int) -> list[int]:
        return [(x + i) % n for i in range(1, n)]

    def linked(x: int, r: str) -> bool:
        return any(_rank(c) == r for c in tbl) or any(piles[y] and _rank(piles[y][-1]) == r for y in after(x))

    def capture(x: int, r: str, base: list[str], top: str) -> None:
        nonlocal tbl
        run = [r]
        i = CYC.index(r)
        for step in (-1, 1):
            k = (i + step) % 10
            while CYC[k] not in run and linked(x, CYC[k]):
                run.append(CYC[k])
                k = (k + step) % 10
        stack = list(base)
        for rr in run:
            stack += [c for c in tbl if _rank(c) == rr]
            tbl = [c for c in tbl if _rank(c) != rr]
            for y in after(x):
                if piles[y] and _rank(piles[y][-1]) == rr:
                    stack += piles[y]
                    piles[y] = []
        piles[x] += stack + [top]

    def pay(y: int, x: int) -> None:
        if piles[y]:
            piles[x].append(piles[y].pop())

    def clear(x: int) -> None:
        if not tbl:
            for y in after(x):
                pay(y, x)

    def resolve() -> None:
        if len(chain) >= 2:
            final, top = chain[-1]
            for _, c in chain:
                tbl.remove(c)
            capture(final, _rank(top), [c for _, c in chain[:-1]], top)
            for s, _ in chain[:-1]:
                pay(s, final)
            clear(final)
        chain.clear()

    turn = (dealer + 1) % n
    for _ in range(sum(map(len, hands))):
        card = rng.choice(held[turn])
        held[turn].remove(card)
        plays.append((turn, card))
        r = _rank(card)
        if chain and _rank(chain[0][1]) == r and turn not in [s for s, _ in chain] and len(chain) < 4:
            chain.append((turn, card))
            tbl.append(card)
            if len(chain) == 4:
                resolve()
        else:
            resolve()
            match = [c for c in tbl if _rank(c) == r]
            if match:
                tbl.remove(match[0])
                capture(turn, r, [match[0]], card)
                clear(turn)
            else:
                tbl.append(card)
                chain.append((turn, card))
        turn = (turn + 1) % n
    resolve()
    return plays, piles, tbl
