"""The El Roby driver for the conformance playouts (see ``tests/engines/test_conformance.py``).

Hands are dealt known and every stock draw names its card (the driver holds the true stock,
and rebuilds it by shuffling when the engine turns the discard pile over), so hands stay
known and ``legal_moves`` gives concrete moves; the driver plays greedily (melds and
lay-offs first) so that hands end. Some hands are recorded by result only, some dealt hands
get a ``showdown`` cross-check, and busted players sometimes re-buy. High carried-in scores
keep matches short.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from engines import el_roby
from engines.base import Engine, Event
from engines.cards import FRENCH_104
from engines.el_roby.scoring import settle, standings_now
from engines.el_roby.state import value
from tests.engines.views import strings

GAME = "el-roby"
NAMES = ["Ana", "Bea", "Carlos", "Dani", "Eva", "Fede"]


RANK = {r: i for i, r in enumerate(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], start=1)}


def _useful(card: str, hand: list[str]) -> int:
    """How many cards of ``hand`` could combine with ``card`` (same rank, or same suit and near)."""
    r, s = RANK[card[:-1]], card[-1]
    score = 0
    used = False
    for other in hand:
        if other == card and not used:
            used = True
            continue
        q, t = RANK[other[:-1]], other[-1]
        if q == r:
            score += 1
        elif t == s and abs(q - r) <= 2:
            score += 1
    return score


class ElRobyDriver:
    """Deals, template filling and invariants for El Roby."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        n = rng.choice([4, 4, 4, 5, 6, 3, 2])
        self.options: dict[str, Any] = {
            "players": "2-8" if n < 4 else rng.choice(["4-8", "2-8"]),
            "entry": rng.choice([0, 10, 7]),
            "stake": rng.choice([0, 2, 1]),
            "setsDistinctSuits": rng.random() < 0.3,
            "aceWrap": rng.random() < 0.3,
            "discardCheck": rng.choice(["othersMelds", "allMelds"]),
            "elevenCardSource": rng.choice(["stockOnly", "either"]),
            "noImmediateRediscard": rng.random() < 0.3,
            "stockOut": rng.choice(["reshuffle", "reshuffle", "voidHand"]),
            "limitCheck": rng.choice(["afterDiscard", "beforeDiscard"]),
            "limitScope": rng.choice(["everyMeld", "firstExposure", "alsoLayoffs"]),
            "rebuyDenominator": rng.choice(["remaining", "includeRebuyers"]),
            "rebuyRounding": rng.choice(["up", "down"]),
        }
        self.seats = tuple(range(n))
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.stock: list[str] = []
        self.rebuys = 0
        self.cross_checked: set[int] = set()

    def match_data(self) -> dict[str, Any]:
        n = len(self.seats)
        data: dict[str, Any] = {"game": "el-roby", "players": NAMES[:n], "options": self.options}
        if self.rng.random() < 0.7:
            data["initial"] = {"scores": [self.rng.randrange(10, 60) for _ in range(n)]}
        return data

    @staticmethod
    def is_complete(move: dict[str, Any]) -> bool:
        kind, data = move["type"], move["data"]
        if kind == "draw":
            return True
        if kind in ("meld", "lay_off"):
            return "cards" in data
        if kind == "discard":
            return "card" in data
        if kind in ("rebuy",):
            return True
        if kind == "hand_started":
            return "dealer" in data
        return False

    # ---- choosing

    def _result(self, state: el_roby.State) -> dict[str, Any]:
        hand = state.current
        assert hand is not None
        deck = [str(c) for c in FRENCH_104.cards]
        self.rng.shuffle(deck)
        out = self.rng.choice(hand.seats)
        hands: list[Any] = []
        for s in range(state.n):
            if s not in hand.seats:
                hands.append(None)
            elif s == out:
                hands.append([])
            elif self.rng.random() < 0.2:
                k = self.rng.randint(1, 10)
                hands.append(sum(value(el_roby.state.read_card(deck.pop())) for _ in range(k)))  # type: ignore[arg-type]
            else:
                hands.append([deck.pop() for _ in range(self.rng.randint(2, 10))])
        if self.options["stockOut"] == "voidHand" and self.rng.random() < 0.1:
            return {"out": None}
        return {"out": out, "hands": hands}

    def choose(self, state: el_roby.State, moves: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        if self.pending:
            return self.pending.pop(0)
        kinds = {m["type"] for m in moves}
        hand = state.current
        if "hand_started" in kinds:
            rebuys = [m for m in moves if m["type"] == "rebuy"]
            if rebuys and self.rebuys < 2 and rng.random() < 0.4:
                self.rebuys += 1
                return "rebuy", rng.choice(rebuys)["data"]
            if (
                hand is not None
                and not hand.result_only
                and not hand.void
                and hand.number not in self.cross_checked
                and rng.random() < 0.3
            ):
                self.cross_checked.add(hand.number)
                return "showdown", {
                    "hands": [None if s not in hand.seats else [str(c) for c in hand.known[s]] for s in range(state.n)]
                }
            data = dict(next(m for m in moves if m["type"] == "hand_started")["data"])
            return self._deal(state, data)
        if kinds == {"hand_started"} or (hand is None):
            return self._deal(state, {})
        if kinds == {"hand_result"}:
            return "hand_result", self._result(state)
        assert hand is not None
        draws = [m for m in moves if m["type"] == "draw"]
        if draws:
            top = next((m for m in draws if m["data"]["from"] == "discard"), None)
            mine = [str(c) for c in hand.known[hand.turn]]
            pick = (
                top
                if top is not None and (_useful(top["data"]["card"], mine) >= 2 and rng.random() < 0.5)
                else draws[0]
            )
            data = dict(pick["data"])
            if data["from"] == "stock":
                data["card"] = self.stock.pop(0)
            return "draw", data
        melds = [m for m in moves if m["type"] == "meld"]
        lays = [m for m in moves if m["type"] == "lay_off"]
        discards = [m for m in moves if m["type"] == "discard"]
        if melds and rng.random() < 0.9:
            return "meld", rng.choice(melds)["data"]
        if lays and rng.random() < 0.9:
            return "lay_off", rng.choice(lays)["data"]
        if not discards:
            move = rng.choice(melds or lays)
            return move["type"], move["data"]
        if rng.random() < 0.9:
            mine = [str(c) for c in hand.known[hand.turn]]
            best = min(
                discards,
                key=lambda m: (_useful(m["data"]["card"], mine), -value(el_roby.state.read_card(m["data"]["card"]))),
            )  # type: ignore[arg-type]
            return "discard", best["data"]
        return "discard", rng.choice(discards)["data"]

    def _deal(self, state: el_roby.State, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        scores, _, _, _, deciding = standings_now(state)
        alive = [s for s in range(state.n) if scores[s] is not None and s not in deciding]
        data.setdefault("dealer", rng.choice(alive))
        if rng.random() < 0.4:
            return "hand_started", data
        deck = [str(c) for c in FRENCH_104.cards]
        rng.shuffle(deck)
        hands: list[Any] = []
        for s in range(state.n):
            hands.append([deck.pop() for _ in range(10)] if s in alive else None)
        data["hands"] = hands
        data["discard"] = deck.pop()
        self.stock = deck
        return "hand_started", data

    def observe(self, before: el_roby.State, event: Event, after: el_roby.State) -> None:
        """Rebuild the true stock when the engine turns the discard pile over."""
        old, new = before.current, after.current
        if old is None or new is None or old.number != new.number or event.type != "discard":
            return
        if new.stock > old.stock:
            cards = [str(c) for c in old.pile] + [event.data["card"]]
            assert [str(c) for c in new.pile] == cards[-1:]
            self.stock = cards[:-1]
            self.rng.shuffle(self.stock)

    # ---- invariants

    def check(self, engine: Engine, state: el_roby.State) -> None:
        """El Roby invariants: 104 cards, money balance, lines add up, elimination and end, views."""
        hand = state.current
        if hand is not None and not hand.result_only:
            held = sum(hand.size(s) for s in hand.seats)
            on_table = sum(len(m.cards) for m in hand.melds)
            assert held + on_table + hand.stock + len(hand.pile) == 104
            placed = Counter(hand.pile)
            for s in hand.seats:
                placed.update(hand.known[s])
            for m in hand.melds:
                placed.update(m.cards)
                assert el_roby.state.classify(m.cards, state.options) is not None
            assert all(k <= 2 for k in placed.values())
            if not hand.over and hand.phase == "draw":
                assert all(hand.size(s) == 10 or s in hand.own for s in hand.seats)
        sheet = engine.score(state)
        json.dumps(sheet)
        money_now = [s["money"] for s in sheet["standings"]]
        pot_now = sheet["standings"][0]["pot"]
        assert sum(money_now) + pot_now == 0
        prev_money = list(state.initial_money)
        scored = [h for h in sheet["hands"] if h["status"] == "scored"]
        for entry in scored:
            r = entry["result"]
            assert sum(r["money"]) + r["pot"] == 0
            for s in range(state.n):
                pts = sum(line["points"] for line in entry["lines"] if line["seat"] == s)
                got = sum(line["money"] for line in entry["lines"] if line["seat"] == s)
                assert got == r["money"][s] - prev_money[s], (entry, s)
                if entry["points"][s] is not None and entry["totals"][s] is not None:
                    rec = next(x for x in state.records if x.number == entry["hand"])
                    assert entry["totals"][s] - rec.before[s] == pts, (entry, s)
            if r["out"] is not None:
                assert r["points"][r["out"]] == 0
            prev_money = r["money"]
        over = sheet["end"]["over"]
        if over:
            assert len(sheet["end"]["winners"]) == 1
            assert engine.legal_moves(state) == [] and pot_now == 0
            alive = [s for s in sheet["standings"] if s["status"] != "out"]
            assert [s["seat"] for s in alive] == sheet["end"]["winners"]
        if state.records:
            st = settle(state.records[-1], state.options)
            assert over == (len(st.remaining) <= 1 and not state.records[-1].void)
        everything = engine.view(state, "all")
        json.dumps(everything)
        if hand is None or hand.result_only or hand.final is not None:
            return
        public: Counter[str] = Counter(str(c) for c in hand.pile)
        for m in hand.melds:
            public.update(str(c) for c in m.cards)
        for s in hand.seats:
            public.update(str(c) for c in hand.shown[s])
        for seat in self.seats:
            mine = engine.view(state, seat)
            json.dumps(mine)
            seen = Counter(
                t
                for t in strings(mine, frozenset({"players", "name", "discardPile", "melds"}))
                if t in el_roby.state.CARDS
            )
            seen.update(str(c) for c in hand.pile)
            for m in hand.melds:
                seen.update(str(c) for c in m.cards)
            allowed = public + Counter(str(c) for c in hand.known[seat])
            allowed.update(str(c) for c in hand.shown[seat])  # listed in both "shown" and "cards"
            for card, k in seen.items():
                assert k <= allowed[card], (seat, card, k, allowed[card])


Driver = ElRobyDriver
