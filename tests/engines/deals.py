"""Helpers for La Cabra engine tests: a match recorder, deals, and a deterministic play-out."""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from engines import la_cabra
from engines.base import Event, RuleViolation
from engines.cards import LA_CABRA

PLAYERS = ["North", "East", "South", "West"]
N, E, S, W = 0, 1, 2, 3


def cards(text: str) -> list[str]:
    """``"9H KH"`` → ``["9H", "KH"]``."""
    return text.split()


def hands(*seats: str) -> list[list[str]]:
    """Four hands written as strings: ``hands("9H KH 6C 7C", ...)``."""
    return [cards(h) for h in seats]


HIDDEN = [["??"] * 4 for _ in range(4)]


class Match:
    """Record events one by one like the service does: refused events write nothing."""

    def __init__(
        self,
        options: dict[str, Any] | None = None,
        initial: dict[str, Any] | None = None,
        players: list[str] | None = None,
    ) -> None:
        data: dict[str, Any] = {"game": "la-cabra", "players": players or PLAYERS, "options": options or {}}
        if initial is not None:
            data["initial"] = initial
        self.events = [Event(1, "match_started", data)]
        self.state = la_cabra.start(data)
        self.texts: list[str] = []

    @property
    def seq(self) -> int:
        """The seq the next event gets."""
        return len(self.events) + 1

    @property
    def hand(self) -> la_cabra.Hand:
        assert self.state.current is not None
        return self.state.current

    def add(self, type: str, **data: Any) -> la_cabra.State:
        """Apply an event that must be legal; remember its narration."""
        event = Event(self.seq, type, data)
        before = self.state
        self.state = la_cabra.apply(before, event)
        self.events.append(event)
        self.texts.append(la_cabra.narrate(before, event, self.state))
        return self.state

    def refuse(self, type: str, code: str, **data: Any) -> RuleViolation:
        """Apply an event that must be refused with ``code``; nothing changes."""
        before = self.state
        with pytest.raises(RuleViolation) as info:
            la_cabra.apply(before, Event(self.seq, type, data))
        assert info.value.code == code, info.value
        assert self.state is before
        return info.value

    def deal(self, dealer: int, dealt: list[list[str]], trump: str, leader: int | None = None) -> la_cabra.State:
        data: dict[str, Any] = {"dealer": dealer, "hands": dealt, "trump": trump}
        if leader is not None:
            data["leader"] = leader
        return self.add("hand_started", **data)

    def result(
        self,
        dealer: int,
        points: list[int] | None = None,
        tricks: list[int] | None = None,
        last: int | None = None,
        **extra: Any,
    ) -> la_cabra.State:
        """A result-only hand: ``hand_started {dealer}`` then ``hand_result``."""
        self.add("hand_started", dealer=dealer)
        data: dict[str, Any] = dict(extra)
        if points is not None:
            data["cardPoints"] = points
        if tricks is not None:
            data["tricks"] = tricks
        if last is not None:
            data["lastTrick"] = last
        return self.add("hand_result", **data)

    def score(self) -> dict[str, Any]:
        return la_cabra.score(self.state)

    def hand_score(self, number: int | None = None) -> dict[str, Any]:
        hands = self.score()["hands"]
        return hands[-1] if number is None else hands[number - 1]


def shuffled(rng: random.Random, bottom: bool = False) -> tuple[list[list[str]], str, list[str]]:
    """Deal a shuffled deck: four hands, the trump card shown, the stock in drawing order."""
    deck = [str(c) for c in LA_CABRA.cards]
    rng.shuffle(deck)
    dealt = [deck[4 * i : 4 * i + 4] for i in range(4)]
    stock = deck[16:]
    trump = stock[-1] if bottom else rng.choice(stock)
    return dealt, trump, stock


def first(moves: list[dict[str, Any]]) -> dict[str, Any]:
    return moves[0]


def play_out(
    m: Match,
    stock: list[str],
    pick: Callable[[list[dict[str, Any]]], dict[str, Any]] = first,
    until: Callable[[la_cabra.State], bool] | None = None,
) -> None:
    """Play the current deal with legal moves until it ends (or ``until``), revealing the drawn cards.

    ``stock`` is the true stock in drawing order; it is consumed as cards are drawn.
    """
    while not m.hand.over and not (until and until(m.state)):
        moves = [mv for mv in la_cabra.legal_moves(m.state) if mv["type"] in ("lead", "beat", "discard")]
        before = m.hand
        mv = pick(moves)
        m.add(mv["type"], **mv["data"])
        drawn = before.stock - m.hand.stock
        if drawn:
            winner = m.hand.played[-1].winner
            reveals = []
            for i in range(drawn):
                card = stock.pop(0)
                if m.state.options.trumpCard == "bottomFaceUp" and card == str(m.hand.trump):
                    continue
                reveals.append({"seat": (winner + i) % 4, "card": card})
            if reveals:
                m.add("reveal", cards=reveals)


def loss_points(card_points: list[int], tricks: list[int], multiplier: int = 1) -> list[int]:
    """docs/RULES.md §5.4, written independently of the engine."""
    a, b = card_points
    if a == b == 60:
        return [0, 0]
    loser = 0 if a < b else 1
    lp = 6 if tricks[loser] == 0 else 4 if card_points[loser] <= 30 else 2
    out = [0, 0]
    out[loser] = lp * multiplier
    return out
