"""Helpers for the Kabú engine tests: a match recorder that refuses like the service does."""

from __future__ import annotations

from typing import Any

import pytest

from engines import kabu
from engines.base import Event, RuleViolation

U = "??"
P4 = ["P1", "P2", "P3", "P4"]
K1_SHOWDOWN = [["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]


class Match:
    """Record events one by one: a refused event writes nothing and leaves the state as it was."""

    def __init__(
        self,
        players: list[str] | None = None,
        options: dict[str, Any] | None = None,
        target: dict[str, Any] | None = None,
        initial: dict[str, Any] | None = None,
    ) -> None:
        data: dict[str, Any] = {"game": "kabu", "players": players or P4, "options": options or {}}
        if target is not None:
            data["target"] = target
        if initial is not None:
            data["initial"] = initial
        self.events = [Event(1, "match_started", data)]
        self.state = kabu.start(data)
        self.texts: list[str] = []

    @property
    def seq(self) -> int:
        return len(self.events) + 1

    @property
    def hand(self) -> kabu.Hand:
        assert self.state.current is not None
        return self.state.current

    def add(self, type: str, **data: Any) -> kabu.State:
        """Apply an event that must be legal; remember its narration."""
        event = Event(self.seq, type, data)
        before = self.state
        self.state = kabu.apply(before, event)
        self.events.append(event)
        self.texts.append(kabu.narrate(before, event, self.state))
        return self.state

    def refuse(self, code: str, type: str, **data: Any) -> RuleViolation:
        """Apply an event that must be refused with ``code``; the state must not change."""
        before = self.state
        fingerprint = hash(before)
        with pytest.raises(RuleViolation) as info:
            kabu.apply(before, Event(self.seq, type, data))
        assert info.value.code == code, info.value
        assert hash(self.state) == fingerprint and self.state is before
        assert info.value.message
        return info.value

    def sheet(self) -> dict[str, Any]:
        return kabu.score(self.state)

    def last(self) -> dict[str, Any]:
        return self.sheet()["hands"][-1]

    def direct(self, dealer: int | None, hands: list[list[str] | None] | None = None, **extra: Any) -> kabu.State:
        n = len(self.state.players)
        if hands is None:
            hands = [[U, U] if self.state.active[s] else None for s in range(n)]
        return self.add("hand_started", dealer=dealer, hands=hands, **extra)

    def decide(self, *moves: tuple[str, int]) -> kabu.State:
        for kind, seat in moves:
            self.add(kind, seat=seat)
        return self.state

    def all_stand(self) -> kabu.State:
        for s in self.hand.order:
            self.add("stand", seat=s)
        return self.state

    def result(self, dealer: int | None, **facts: Any) -> kabu.State:
        self.add("hand_started", dealer=dealer)
        return self.add("hand_result", **facts)


def k1(options: dict[str, Any] | None = None) -> Match:
    """docs/RULES.md §2.7 K1 up to the showdown: dealer P4 keeps the deck, P1 decides first."""
    m = Match(options=options)
    m.direct(3)
    m.decide(("stand", 0), ("take", 1), ("take", 2), ("stand", 3), ("stand", 1), ("take", 2))
    return m
