"""The Cau Robat driver for the conformance playouts (see ``tests/engines/test_conformance.py``).

Each match draws its player count, its options and its target; each hand is dealt by
:func:`tests.engines.cau_robat_helpers.deal` and recorded move by move (some seats' hands
written as ``"??"``, their cards bound as they are played; sometimes a ``reveal``), or by its
result only (random but consistent end-of-hand facts). The invariants: the 40 cards are
conserved after every move, the table never repeats a rank outside the chain, every hand's
count adds up to 40, hand winners hold the most cards, wins add up, and no view shows
another seat's hand.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engines import cau_robat
from engines.base import Engine, Event
from tests.engines.cau_robat_helpers import deal
from tests.engines.views import strings

GAME = "cau-robat"


class CauRobatDriver:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = rng.choice([2, 3, 3, 4, 4, 5, 6])
        wide = self.n in (2, 6) or rng.random() < 0.2
        self.options: dict[str, Any] = {
            "players": "2-6" if wide else "3-5",
            "dealerRotation": rng.choice(["right", "left"]),
            "dupFix": rng.choice(["replace", "redealAll"]),
            "requireAnnouncement": rng.random() < 0.3,
            "runDirection": rng.choice(["both", "both", "up", "down"]),
            "directPileCapture": rng.random() < 0.3,
            "pileOrder": rng.choice(["deterministic", "deterministic", "recorded"]),
            "chainMode": rng.choice(["deferred", "deferred", "immediate"]),
            "anyoneMayCall": rng.random() < 0.4,
            "lastPlayClears": rng.random() < 0.7,
            "leftovers": rng.choice(["nobody", "lastCapturer"]),
        }
        self.seats = tuple(range(self.n))
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.hands: list[set[str]] = []
        self.checked: set[int] = set()

    def match_data(self) -> dict[str, Any]:
        rng = self.rng
        return {
            "game": GAME,
            "players": [f"P{i}" for i in range(self.n)],
            "options": self.options,
            "target": {"wins": rng.randint(1, 3), "tie": rng.choice(["share", "playOn"])},
        }

    @staticmethod
    def is_complete(move: dict[str, Any]) -> bool:
        kind, data = move["type"], move["data"]
        if kind == "play":
            return "card" in data
        if kind == "hand_result":
            return "piles" in data
        return "dealer" in data

    def random_result(self) -> dict[str, Any]:
        rng = self.rng
        table = rng.randint(0, 6)
        piles = [0] * self.n
        for _ in range(40 - table):
            piles[rng.randrange(self.n)] += 1
        facts: dict[str, Any] = {"piles": piles, "table": table}
        last = [s for s in range(self.n) if piles[s] >= 2]
        if last and (self.options["leftovers"] == "lastCapturer" or rng.random() < 0.3):
            facts["lastCapturer"] = rng.choice(last)
        return facts

    def choose(self, state: cau_robat.State, moves: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        if self.pending:
            return self.pending.pop(0)
        kinds = {m["type"] for m in moves}
        hand = state.current
        if "hand_started" in kinds:
            check = next((m for m in moves if m["type"] == "hand_result"), None)
            if hand is not None and check and hand.number not in self.checked and rng.random() < 0.3:
                self.checked.add(hand.number)
                return "hand_result", check["data"]
            data = dict(next(m for m in moves if m["type"] == "hand_started")["data"])
            data.setdefault("dealer", rng.randrange(self.n))
            if rng.random() < 0.15:
                self.pending.append(("hand_result", self.random_result()))
                return "hand_started", data
            table, hands = deal(rng, self.n)
            self.hands = [set(h) for h in hands]
            written = [list(h) if rng.random() < 0.7 else ["??"] * len(h) for h in hands]
            data.update(table=table, hands=written)
            return "hand_started", data
        playable = []
        for move in moves:
            if (
                move["type"] == "hand_result"
            ):  # closing the hand from the sheet: tests/engines/test_sheet_close_playouts.py
                continue
            if self.is_complete(move):
                playable.append(move)
                continue
            seat = move["data"]["seat"]
            if seat == hand.turn:
                options = sorted(self.hands[seat])
            else:  # an out-of-turn call: a card of the chain's rank
                options = sorted(c for c in self.hands[seat] if hand.chain and c[:-1] == hand.chain.rank)
            if options:
                data = {**move["data"], "card": rng.choice(options)}
                if state.options.pileOrder == "recorded":
                    captures = cau_robat.rules.derived_captures(state, data)
                    if captures:
                        data["captures"] = captures
                playable.append({"type": "play", "data": data})
        calls = [m for m in playable if m["data"].get("seat") != hand.turn]
        move = rng.choice(calls if calls and rng.random() < 0.3 else [m for m in playable if m not in calls] or calls)
        data = dict(move["data"])
        if state.options.pileOrder == "recorded" and data.get("captures") and rng.random() < 0.5:
            # any order will do, as long as the capturing card stays on top
            shuffled = []
            for cap in data["captures"]:
                body = list(cap["cards"][:-1])
                rng.shuffle(body)
                shuffled.append({"seat": cap["seat"], "cards": body + [cap["cards"][-1]]})
            data["captures"] = shuffled
        elif state.options.pileOrder == "deterministic" and rng.random() < 0.2:
            data["captures"] = cau_robat.rules.derived_captures(state, data)
        return "play", data

    def observe(self, before: cau_robat.State, event: Event, after: cau_robat.State) -> None:
        if event.type == "play":
            self.hands[event.data["seat"]].discard(event.data["card"])
            hand = after.current
            if hand is not None and not hand.over and self.rng.random() < 0.05:
                hidden = [s for s in range(self.n) if hand.unknown[s]]
                if hidden:
                    seat = self.rng.choice(hidden)
                    free = sorted(c for c in self.hands[seat] if cau_robat.state.CARDS[c] not in hand.known[seat])
                    self.pending.append(("reveal", {"cards": [{"seat": seat, "card": self.rng.choice(free)}]}))

    def check(self, engine: Engine, state: cau_robat.State) -> None:
        n = self.n
        hand = state.current
        if hand is not None and hand.dealt:
            held = sum(hand.size(s) for s in range(n))
            assert held + len(hand.table) + sum(len(p) for p in hand.piles) == 40
            assert len(hand.located) + sum(hand.unknown) == 40
            outside = [c.rank for c in hand.table if hand.chain is None or c not in hand.chain.cards]
            assert len(set(outside)) == len(outside)
            if hand.chain is not None and state.options.chainMode == "deferred":
                assert all(c in hand.table for c in hand.chain.cards)
            if not hand.over:
                assert hand.size(hand.turn) > 0
        sheet = engine.score(state)
        json.dumps(sheet)
        totals = list(state.initial)
        for entry in sheet["hands"]:
            if entry["status"] == "playing":
                assert entry is sheet["hands"][-1]
                continue
            assert entry["status"] == "scored"
            r = entry["result"]
            counted = sum(entry["points"]) + (r["table"] if r["tableTo"] is None else 0)
            assert counted == 40 and sum(r["piles"]) + r["table"] == 40
            best = max(entry["points"])
            assert r["winners"] == [s for s, c in enumerate(entry["points"]) if c == best]
            assert sum(line["points"] for line in entry["lines"]) == len(r["winners"])
            totals = [t + (1 if s in r["winners"] else 0) for s, t in enumerate(totals)]
            assert entry["totals"] == totals
        assert [s["total"] for s in sheet["standings"]] == totals
        if sheet["end"]["over"]:
            assert max(totals) >= state.target and engine.legal_moves(state) == []
            if state.tie == "share":
                assert sheet["end"]["winners"] == [s for s, t in enumerate(totals) if t >= state.target]
            else:
                assert sheet["end"]["winners"] == [totals.index(max(totals))] and totals.count(max(totals)) == 1
        everything = engine.view(state, "all")
        json.dumps(everything)
        if "hands" not in everything:
            return
        for seat in self.seats:
            mine = engine.view(state, seat)
            seen = set(strings(mine))
            for other in self.seats:
                if other != seat:
                    secret = set(everything["hands"][other]["cards"]) - {"??"}
                    assert not secret & seen, (seat, other, secret & seen)
        public = set(strings(engine.view(state, None)))
        assert not public & {c for h in everything["hands"] for c in h["cards"] if c != "??"}


Driver = CauRobatDriver
