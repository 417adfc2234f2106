"""The La Cabra driver for the conformance playouts (see ``tests/engines/test_conformance.py``)."""

from __future__ import annotations

import json
import random
from typing import Any

from engines import la_cabra
from engines.base import Engine, Event
from engines.cards import LA_CABRA
from tests.engines.deals import loss_points
from tests.engines.views import strings

GAME = "la-cabra"


class LaCabraDriver:
    """Deals, template filling and invariants for La Cabra.

    Hands are dealt known; after each refill the driver records a ``reveal {seat, card}``
    for every card drawn (it knows the true stock), so hands stay known and ``legal_moves``
    gives concrete moves. Some hands are recorded by result only, from a random but
    consistent split of the deck into tricks, in every form a table writes (the card lists,
    card points with tricks, card points alone, loss points alone); some dealt hands are
    closed from the score sheet between two tricks, from a random but possible way the
    remaining cards could have gone. ``truth`` keeps each such hand's card points and
    tricks, which the sheet forms need not say, for the invariants.
    """

    seats = (0, 1, 2, 3)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.options = {
            "trumpCard": rng.choice(["returned", "bottomFaceUp"]),
            "discardFaceUp": rng.random() < 0.3,
            "tiraInterruptsTira": rng.random() < 0.5,
            "eggs": rng.choice(["none", "doubleNext"]),
        }
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.stock: list[str] = []
        self.result: dict[str, Any] = {}
        self.checked: set[int] = set()
        self.truth: dict[int, tuple[list[int], list[int]]] = {}
        self.result_truth: tuple[list[int], list[int]] = ([], [])
        """Per hand number, the card points and tricks behind a sheet that need not say them."""

    def match_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": "la-cabra",
            "players": ["North", "East", "South", "West"],
            "options": self.options,
        }
        if self.rng.random() < 0.3:
            data["initial"] = {
                "lossPoints": [self.rng.randrange(9), self.rng.randrange(9)],
                "doubleNext": self.options["eggs"] == "doubleNext" and self.rng.random() < 0.5,
            }
        return data

    @staticmethod
    def is_complete(move: dict[str, Any]) -> bool:
        kind, data = move["type"], move["data"]
        if kind in ("lead", "beat", "discard", "tira"):
            return "cards" in data
        if kind == "hand_result":
            return "cardPoints" in data or "cards" in data or "lossPoints" in data
        return "dealer" in data

    def random_result(self) -> dict[str, Any]:
        """Facts of a possible deal: 3-9 tricks of 1-4 cards a seat, the deck split between teams."""
        rng = self.rng
        for _ in range(300):
            n = rng.randint(3, 9)
            ks = [1] * n
            while sum(ks) < 9:
                i = rng.randrange(n)
                if ks[i] < 4:
                    ks[i] += 1
            deck = [str(c) for c in LA_CABRA.cards]
            rng.shuffle(deck)
            piles: list[list[str]] = [[], []]
            tricks = [0, 0]
            last = 0
            for k in ks:
                team = rng.randrange(2)
                piles[team] += [deck.pop() for _ in range(4 * k)]
                tricks[team] += 1
                last = team + 2 * rng.randrange(2)
            pts = [sum(la_cabra.state.value(la_cabra.rules.read_card(c)) for c in p) for p in piles]  # type: ignore[arg-type]
            if rng.random() < 0.6 or pts == [60, 60]:
                break
        self.result_truth = (pts, tricks)
        return self.sheet(piles, pts, tricks, last, [False, False])

    def sheet(
        self, piles: list[list[str]], pts: list[int], tricks: list[int], last: int, took: list[bool]
    ) -> dict[str, Any]:
        """Write a deal's facts in one of the forms a table uses (``took``: teams the record shows with a trick)."""
        rng = self.rng
        form = rng.choice(["cards", "full", "cardPoints", "lossPoints"])
        facts: dict[str, Any] = {}
        if form == "cards":
            facts = {"cards": piles, "tricks": tricks} if rng.random() < 0.5 else {"cards": piles}
        elif form == "full":
            facts = {"cardPoints": pts, "tricks": tricks}
        elif form == "cardPoints":
            facts = {"cardPoints": pts}
            if any(p == 0 and not t for p, t in zip(pts, took)) or rng.random() < 0.2:
                facts["tricks"] = tricks
        else:
            facts = {"lossPoints": loss_points(pts, tricks)}
        if rng.random() < 0.7 and (form != "lossPoints" or facts["lossPoints"][last % 2] != 6):
            facts["lastTrick"] = last
        return facts

    def close(self, state: la_cabra.State) -> dict[str, Any]:
        """Close the hand in play from the sheet: the cards not yet won go, 4 at a time, to random teams."""
        rng = self.rng
        hand = state.current
        assert hand is not None and hand.trick is None
        piles = [[str(c) for c in hand.pile_known[t]] for t in (0, 1)]
        assert not hand.pile_hidden[0] and not hand.pile_hidden[1]
        rest = [str(c) for c in LA_CABRA.distinct() if str(c) not in piles[0] and str(c) not in piles[1]]
        rng.shuffle(rest)
        tricks = list(hand.tricks)
        last = 0
        while rest:
            team = rng.randrange(2)
            piles[team] += [rest.pop() for _ in range(4)]
            tricks[team] += 1
            last = team + 2 * rng.randrange(2)
        pts = [sum(la_cabra.state.value(la_cabra.rules.read_card(c)) for c in p) for p in piles]  # type: ignore[arg-type]
        self.truth[hand.number] = (pts, tricks)
        return self.sheet(piles, pts, tricks, last, [hand.tricks[0] > 0, hand.tricks[1] > 0])

    def choose(self, state: la_cabra.State, moves: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        if self.pending:
            return self.pending.pop(0)
        kinds = {m["type"] for m in moves}
        hand = state.current
        if "hand_started" in kinds:
            check = next((m for m in moves if m["type"] == "hand_result"), None)
            if hand is not None and check and hand.number not in self.checked and rng.random() < 0.3:
                self.checked.add(hand.number)
                assert self.is_complete(check), check
                return "hand_result", check["data"]
            data = dict(next(m for m in moves if m["type"] == "hand_started")["data"])
            data.setdefault("dealer", rng.randrange(4))
            if "leader" not in data and (hand is None and rng.random() < 0.3 or hand is not None):
                data["leader"] = rng.randrange(4)
            if rng.random() < 0.2:
                self.result = self.random_result()
                return "hand_started", data
            deck = [str(c) for c in LA_CABRA.cards]
            rng.shuffle(deck)
            self.stock = deck[16:]
            trump = self.stock[-1] if self.options["trumpCard"] == "bottomFaceUp" else rng.choice(self.stock)
            data.update(hands=[deck[4 * i : 4 * i + 4] for i in range(4)], trump=trump)
            return "hand_started", data
        if kinds == {"hand_result"}:
            assert hand is not None
            self.truth[hand.number] = self.result_truth
            return "hand_result", self.result
        if hand is not None and hand.trick is None and rng.random() < 0.02:
            return "hand_result", self.close(state)
        tiras = [m for m in moves if m["type"] == "tira"]
        plays = [m for m in moves if m["type"] not in ("tira", "hand_result")]
        move = rng.choice(tiras if tiras and (rng.random() < 0.5 or not plays) else plays)
        assert self.is_complete(move), move
        return move["type"], move["data"]

    def observe(self, before: la_cabra.State, event: Event, after: la_cabra.State) -> None:
        """Queue the reveals of the cards drawn after a trick."""
        old, new = before.current, after.current
        if new is None or old is None or new.number != old.number or new.result_only:
            return
        drawn = old.stock - new.stock
        if not drawn:
            return
        winner = new.played[-1].winner
        reveals = []
        for i in range(drawn):
            card = self.stock.pop(0)
            if self.options["trumpCard"] == "bottomFaceUp" and card == str(new.trump):
                continue
            reveals.append({"seat": (winner + i) % 4, "card": card})
        if reveals:
            self.pending.append(("reveal", {"cards": reveals}))

    def check(self, engine: Engine, state: la_cabra.State) -> None:
        """La Cabra invariants: conservation, 120 points, loss points, series end, views."""
        hand = state.current
        if hand is not None and not hand.result_only:
            trick_cards = sum(len(p.cards) for p in hand.trick.plays) if hand.trick else 0
            held = sum(hand.size(s) for s in range(4))
            assert held + hand.stock + trick_cards + sum(hand.pile_count) == 36
            free = sum(1 for c in LA_CABRA.distinct() if c not in hand.located)
            hidden = sum(hand.unknown) + sum(
                1 for p in (hand.trick.plays if hand.trick else ()) for c in p.cards if c is None
            )
            bottom = 1 if self.options["trumpCard"] == "bottomFaceUp" and hand.stock else 0
            assert free == hidden + len(hand.pile_hidden[0]) + len(hand.pile_hidden[1]) + hand.stock - bottom
            assert len({hand.size(s) for s in range(4)}) == 1 or hand.trick is not None
        sheet = engine.score(state)
        json.dumps(sheet)
        totals = list(state.initial)
        prev_eggs = state.initial_double
        for entry in sheet["hands"]:
            if entry["status"] == "playing":
                assert entry is sheet["hands"][-1]
                continue
            assert entry["status"] == "scored", entry
            r = entry["result"]
            card_points, tricks = self.truth.get(entry["hand"], (r["cardPoints"], r["tricks"]))
            assert r["cardPoints"] in (card_points, None) and r["tricks"] in (tricks, None)
            assert sum(card_points) == 120 and card_points[0] >= 0
            mult = 2 if self.options["eggs"] == "doubleNext" and prev_eggs else 1
            assert r["multiplier"] == mult and r["eggs"] == (card_points == [60, 60])
            assert entry["points"] == r["lossPoints"] == loss_points(card_points, tricks, mult)
            assert sum(line["points"] for line in entry["lines"]) == sum(entry["points"])
            totals = [totals[0] + entry["points"][0], totals[1] + entry["points"][1]]
            assert entry["totals"] == totals
            prev_eggs = r["eggs"]
            if max(totals) >= 12:
                assert entry is sheet["hands"][-1] and sheet["end"]["over"]
        assert [s["total"] for s in sheet["standings"]] == totals
        assert sheet["end"]["over"] == (max(totals) >= 12)
        if sheet["end"]["over"]:
            goat = 0 if totals[0] >= 12 else 1
            assert sheet["end"]["goat"] == goat and sheet["end"]["winners"] == [1 - goat]
            assert engine.legal_moves(state) == []
        everything = engine.view(state, "all")
        json.dumps(everything)
        for seat in self.seats:
            mine = engine.view(state, seat)
            json.dumps(mine)
            seen = set(strings(mine, frozenset({"trump"})))
            for other in self.seats:
                if other == seat or "hands" not in everything:
                    continue
                entry = everything["hands"][other]
                secret = set(entry["cards"]) - set(entry["shown"]) - {"??"}
                secret |= set(everything["faceDown"][other])
                assert not secret & seen, (seat, other, secret & seen)


Driver = LaCabraDriver
