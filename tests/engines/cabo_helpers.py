"""Cabo's recording helpers shared by its tests: a match at the table, built event by event, and CB4's set-up."""

from __future__ import annotations

from typing import Any

import pytest


from engines import cabo
from engines.base import Event, RuleViolation
from schemas import validate_event

PLAYERS = ["Anna", "Ben", "Carl", "Dora"]
A, B, C, D = 0, 1, 2, 3
U = "??"
HIDDEN4 = [[U] * 4 for _ in range(4)]


class Match:
    """Record events one by one like the service does: refused events write nothing."""

    def __init__(
        self, options: dict[str, Any] | None = None, initial: list[int] | None = None, players: list[str] | None = None
    ) -> None:
        data: dict[str, Any] = {"game": "cabo", "players": players or PLAYERS, "options": options or {}}
        if initial is not None:
            data["initial"] = {"totals": initial}
        self.events = [Event(1, "match_started", data)]
        self.state = cabo.start(data)
        self.texts: list[str] = []

    @property
    def seq(self) -> int:
        return len(self.events) + 1

    @property
    def rnd(self) -> cabo.Round:
        assert self.state.current is not None
        return self.state.current

    def add(self, type: str, **data: Any) -> cabo.State:
        validate_event("cabo", type, data)
        event = Event(self.seq, type, data)
        before = self.state
        self.state = cabo.apply(before, event)
        self.events.append(event)
        self.texts.append(cabo.narrate(before, event, self.state))
        return self.state

    def refuse(self, type: str, code: str, **data: Any) -> RuleViolation:
        before = self.state
        with pytest.raises(RuleViolation) as info:
            cabo.apply(before, Event(self.seq, type, data))
        assert info.value.code == code, info.value
        assert self.state is before
        assert info.value.message and not info.value.message.startswith(code)
        return info.value

    def deal(self, dealer: int, layouts: list[list[str]] | None = None, discard: str = "5") -> cabo.State:
        n = len(self.state.players)
        return self.add("hand_started", dealer=dealer, layouts=layouts or [[U] * 4 for _ in range(n)], discard=discard)

    def rows(self, viewer: Any = "all") -> list[list[str]]:
        return [r["cards"] for r in cabo.view(self.state, viewer)["rows"]]

    def hand(self, number: int | None = None) -> dict[str, Any]:
        hands = cabo.score(self.state)["hands"]
        return hands[-1] if number is None else hands[number - 1]


def cb4(options: dict[str, Any] | None = None) -> Match:
    """CB4's set-up: Ben's row 9 4 9 11 known to the scorer; Ben starts and draws a 2."""
    m = Match(options)
    m.deal(B, [[U] * 4, ["9", "4", "9", "11"], [U] * 4, [U] * 4])
    m.add("draw", seat=B, card="2")
    return m
