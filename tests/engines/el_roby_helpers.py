"""Helpers for El Roby engine tests: a match recorder and positions."""

from __future__ import annotations

from typing import Any

import pytest

from engines import el_roby
from engines.base import Event, RuleViolation

PLAYERS = ["Ana", "Bea", "Carlos", "Dani"]
ANA, BEA, CARLOS, DANI = 0, 1, 2, 3


def cards(text: str) -> list[str]:
    """``"9H KH"`` → ``["9H", "KH"]``."""
    return text.split()


class Match:
    """Record events one by one like the service does: refused events change nothing."""

    def __init__(
        self,
        options: dict[str, Any] | None = None,
        initial: dict[str, Any] | None = None,
        players: list[str] | None = None,
        state: el_roby.State | None = None,
    ) -> None:
        data: dict[str, Any] = {"game": "el-roby", "players": players or PLAYERS, "options": options or {}}
        if initial is not None:
            data["initial"] = initial
        self.events = [Event(1, "match_started", data)]
        self.state = state if state is not None else el_roby.start(data)
        self.texts: list[str] = []

    @classmethod
    def at(cls, **position: Any) -> "Match":
        """A match from a mid-hand position (:func:`engines.el_roby.position`)."""
        state = el_roby.position(position.pop("players", PLAYERS), **position)
        m = cls(state=state)
        m.events.append(Event(2, "hand_started", {"dealer": 0}))  # placeholder seq for the position's deal
        return m

    @property
    def seq(self) -> int:
        return len(self.events) + 1

    @property
    def hand(self) -> el_roby.Hand:
        assert self.state.current is not None
        return self.state.current

    def add(self, type: str, **data: Any) -> el_roby.State:
        """Apply an event that must be legal; remember its narration."""
        event = Event(self.seq, type, data)
        before = self.state
        self.state = el_roby.apply(before, event)
        self.events.append(event)
        self.texts.append(el_roby.narrate(before, event, self.state))
        return self.state

    def draw(self, seat: int, card: str | None = None, source: str = "stock") -> el_roby.State:
        data: dict[str, Any] = {"seat": seat, "from": source}
        if card is not None:
            data["card"] = card
        return self.add("draw", **data)

    def refuse(self, type: str, code: str, **data: Any) -> RuleViolation:
        """Apply an event that must be refused with ``code``; nothing changes."""
        before = self.state
        with pytest.raises(RuleViolation) as info:
            el_roby.apply(before, Event(self.seq, type, data))
        assert info.value.code == code, info.value
        assert self.state is before
        return info.value

    def score(self) -> dict[str, Any]:
        return el_roby.score(self.state)

    def hand_score(self, number: int | None = None) -> dict[str, Any]:
        hands = self.score()["hands"]
        return hands[-1] if number is None else hands[number - 1]
