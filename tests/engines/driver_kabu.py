"""The Kabú driver for the conformance playouts (see ``tests/engines/test_conformance.py``).

The driver is the table: it shuffles a real deck for every hand, deals it as the chosen
start mode says (open cards, keeps, the returned cards going back as new cards or into the
stock, third and fourth cards from the stock) and knows every card. The scorer it plays
writes some dealt cards and keeps as ``??`` and sometimes reveals one later; the showdown
shows the true hands. Some hands are recorded by their result only (cards or values). In
the timed game it buys chips for insolvent players or makes them leave, and calls time.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engines import kabu
from engines.base import Engine, Event
from engines.kabu.state import DECKS, hand_value
from tests.engines.views import strings

GAME = "kabu"


class KabuDriver:
    """Deals, template filling and invariants for Kabú."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.end = rng.choice(["insolvency", "time"])
        for _ in range(100):
            options: dict[str, Any] = {
                "deck": rng.choice(["french40", "full52", "spanish40"]),
                "dealerMode": rng.choice(["keep", "rotate", "croupier"]),
                "start": rng.choice(["direct", "choose5", "choose3"]),
                "secondCardFrom": rng.choice(["returned", "stock"]),
                "openSix": rng.random() < 0.4,
                "solvency": rng.choice(["gross", "net"]),
                "insolventCollects": rng.random() < 0.7,
                "maxPlayers": 10,
            }
            n = rng.randint(2, 10)
            if kabu.deck_problem(kabu.parse_options(options), n) is None:
                break
        self.options = options
        self.n = n
        self.seats = tuple(range(n))
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.hands_to_play = rng.randint(3, 8)
        self.result: dict[str, Any] = {}
        self.checked: set[int] = set()
        self.true: list[list[str]] = []
        self.stock: list[str] = []
        self.returned: list[str] = []
        self.keeps: list[str | None] = []
        self.written: list[list[str]] = []
        self.initial: list[int] = []
        self.mark: tuple[int, int, bool, int] | None = None

    # ---- the match

    def match_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": "kabu",
            "players": [f"P{i + 1}" for i in range(self.n)],
            "options": self.options,
            "target": {"end": self.end},
        }
        # small stacks, so that somebody soon cannot pay (the default stacks are tested elsewhere)
        self.initial = [self.rng.randint(3 * self.n, 10 + 8 * self.n) for _ in range(self.n)]
        data["initial"] = {"chips": self.initial}
        return data

    @staticmethod
    def is_complete(move: dict[str, Any]) -> bool:
        kind, data = move["type"], move["data"]
        if kind == "hand_started":
            return "dealer" in data
        if kind == "keep":
            return "card" in data
        if kind == "showdown":
            return "hands" in data
        if kind == "hand_result":
            return "values" in data or "hands" in data
        if kind == "buy_chips":
            return {"seat", "from", "chips"} <= set(data)
        return True

    # ---- dealing

    def deal(self, state: kabu.State, dealer: int | None) -> dict[str, Any]:
        """Shuffle and deal a hand as the table would; return the hand_started data as the scorer writes it."""
        rng, opts = self.rng, state.options
        deck = [str(c) for c in DECKS[opts.deck].cards]
        rng.shuffle(deck)
        n = self.n
        order = [
            s for s in (range(n) if dealer is None else ((dealer + i) % n for i in range(1, n + 1))) if state.active[s]
        ]
        k = opts.start_cards
        table: list[str] = []
        if opts.openSix and not opts.choose:
            table, deck = deck[:6], deck[6:]
        self.true = [[] for _ in range(n)]
        for s in order:
            self.true[s], deck = deck[:k], deck[k:]
        self.keeps = [None] * n
        self.returned = []
        if opts.choose:
            for s in order:
                kept = rng.choice(self.true[s])
                self.keeps[s] = kept
                self.returned += [c for c in self.true[s] if c != kept]
            rng.shuffle(self.returned)
            if opts.secondCardFrom == "stock":
                deck += self.returned
                rng.shuffle(deck)
                self.returned = []
            if opts.openSix:
                table, deck = deck[:6], deck[6:]
        self.stock = deck
        self.order = order
        known = rng.choice([0.0, 0.5, 1.0])
        self.written = [
            [c if rng.random() < known else "??" for c in self.true[s]] if s in order else [] for s in range(n)
        ]
        data: dict[str, Any] = {"dealer": dealer, "hands": [self.written[s] if s in order else None for s in range(n)]}
        if opts.openSix:
            data["table"] = table
        return data

    def serve_second(self) -> None:
        """After the last keep: each player's hand is his kept card plus one new card."""
        for s in self.order:
            self.true[s] = [self.keeps[s]]  # type: ignore[list-item]
        source = self.returned if self.options["secondCardFrom"] == "returned" else self.stock
        for s in self.order:
            self.true[s].append(source.pop(0))
        if self.options["secondCardFrom"] == "returned":
            self.stock += self.returned  # the rest go under the stock
            self.returned = []

    def random_result(self, state: kabu.State) -> dict[str, Any]:
        deck = [str(c) for c in DECKS[state.options.deck].cards]
        self.rng.shuffle(deck)
        hands: list[list[str] | None] = []
        for s in range(self.n):
            if not state.active[s]:
                hands.append(None)
                continue
            k = self.rng.randint(2, 4)
            hands.append(deck[:k])
            deck = deck[k:]
        values = [
            None if h is None else hand_value([kabu.rules.read_card(c, state.options.cards) for c in h]) for h in hands
        ]  # type: ignore[misc]
        roll = self.rng.random()
        if roll < 0.4:
            return {"values": values}
        if roll < 0.8:
            return {"hands": hands}
        return {"hands": hands, "values": values}

    # ---- choosing

    def choose(self, state: kabu.State, moves: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        if self.pending:
            return self.pending.pop(0)
        kinds = {m["type"] for m in moves}
        hand = state.current
        if hand is None or hand.over:
            if state.pending:
                seat = min(state.pending)
                sellers = [s for s in state.in_game() if s != seat and s not in state.pending and state.chips[s] > 0]
                if sellers and rng.random() < 0.7:
                    src = rng.choice(sellers)
                    return "buy_chips", {"seat": seat, "from": src, "chips": rng.randint(1, state.chips[src])}
                return "leave", {"seat": seat}
            if "time_up" in kinds and len(state.hands) >= self.hands_to_play:
                return "time_up", {}
            if "buy_chips" in kinds and hand is not None and rng.random() < 0.1:
                buyer, src = rng.sample(state.in_game(), 2)
                if state.chips[src] > 0:
                    return "buy_chips", {"seat": buyer, "from": src, "chips": rng.randint(1, state.chips[src])}
            if "leave" in kinds and rng.random() < 0.05:
                return "leave", {"seat": rng.choice(state.in_game())}
            check = next((m for m in moves if m["type"] == "hand_result"), None)
            if hand is not None and check and hand.number not in self.checked and rng.random() < 0.3:
                self.checked.add(hand.number)
                return "hand_result", check["data"]
            data = dict(next(m for m in moves if m["type"] == "hand_started")["data"])
            if "dealer" not in data:
                data["dealer"] = rng.choice(state.in_game())
            if rng.random() < 0.2:
                self.result = self.random_result(state)
                return "hand_started", {"dealer": data["dealer"]}
            return "hand_started", self.deal(state, data["dealer"])
        if kinds == {"hand_result"}:
            return "hand_result", self.result
        if hand.phase == "keep":
            seat = hand.turn()
            assert seat is not None
            kept = self.keeps[seat]
            written = "??" if None in hand.dealt[seat] and rng.random() < 0.5 else kept
            self.serve(state, "keep", {"seat": seat, "card": written})
            return "keep", {"seat": seat, "card": written}
        if hand.phase in ("third", "fourth"):
            seat = hand.turn()
            assert seat is not None
            cards = [kabu.rules.read_card(c, state.options.cards) for c in self.true[seat]]
            kind = "take" if hand_value(cards) <= rng.randint(2, 7) else "stand"  # type: ignore[arg-type]
            self.serve(state, kind, {"seat": seat})
            return kind, {"seat": seat}
        shown = [None if s not in hand.order else rng.sample(self.true[s], len(self.true[s])) for s in range(self.n)]
        return "showdown", {"hands": shown}

    def serve(self, state: kabu.State, kind: str, data: dict[str, Any]) -> None:
        """Serve the true cards the engine deals unknown after this move (before the checks see the state)."""
        old = state.current
        if old is None or old.over or old.result_only or kind not in ("keep", "take", "stand"):
            return
        new = kabu.apply(state, Event(len(state.hands) + 10_000, kind, data)).current
        assert new is not None
        if old.phase == new.phase:
            return
        if old.phase == "keep":
            self.serve_second()
        else:
            i = 0 if old.phase == "third" else 1
            for s in new.order:
                if new.draws[s][i] == "take":
                    self.true[s].append(self.stock.pop(0))

    def observe(self, before: kabu.State, event: Event, after: kabu.State) -> None:
        """Queue a reveal now and then."""
        new = after.current
        if new is None or new.result_only or new.over:
            return
        if self.rng.random() < 0.25:
            self.queue_reveal(new)

    def queue_reveal(self, hand: kabu.Hand) -> None:
        rng = self.rng
        hidden_keeps = [s for s in hand.order if hand.kept[s] is not None and hand.kept_card[s] is None]
        if hidden_keeps and rng.random() < 0.4:
            s = rng.choice(hidden_keeps)
            self.pending.append(("reveal", {"cards": [{"seq": hand.kept[s], "card": self.keeps[s]}]}))
            return
        options = []
        for s in hand.order:
            true = set(self.true[s])
            if hand.phase == "keep" and hand.kept[s] is not None:
                true = {self.keeps[s]}  # what a seat that kept still holds
            unknown = sorted(
                c for c in true if kabu.rules.read_card(c, DECKS[self.options["deck"]]) not in hand.known[s]
            )
            if hand.unknown[s] and unknown:
                options.append((s, unknown))
        if options:
            s, cards = rng.choice(options)
            self.pending.append(("reveal", {"cards": [{"seat": s, "card": rng.choice(cards)}]}))

    # ---- invariants

    def check(self, engine: Engine, state: kabu.State) -> None:
        """Kabú invariants: chips and cards conserved, the settlement's arithmetic, the end, views."""
        assert sum(state.chips) == sum(state.initial) and min(state.chips) >= 0
        hand = state.current
        deck = DECKS[state.options.deck]
        if hand is not None and not hand.result_only and not hand.over:
            held = sum(hand.size(s) for s in hand.order)
            assert held + (len(hand.table) if hand.phase != "keep" else 0) <= len(deck.cards)
            seen: set[Any] = set(hand.table)
            for s in hand.order:
                cards = self.true[s]
                if hand.phase == "keep" and hand.kept[s] is not None:
                    cards = [self.keeps[s]]  # type: ignore[list-item]
                truth = {kabu.rules.read_card(c, deck) for c in cards}
                assert hand.known[s] <= truth, (s, hand.known[s], truth)
                assert hand.size(s) == len(truth)
                unkept = (
                    hand.phase == "keep" and hand.kept[s] is None
                )  # a dealt card may go back and be laid out (stock)
                assert not hand.known[s] & (seen - set(hand.table) if unkept else seen)
                seen |= hand.known[s]
            # the cards in play and the stock the table holds make up the deck
            if hand.phase != "keep":
                in_play = (
                    sum(len(self.true[s]) for s in hand.order) + len(hand.table) + len(self.stock) + len(self.returned)
                )
                assert in_play == len(deck.cards)
        # the score sheet is rebuilt from every hand: check it when a hand, a buy or the end changed it
        mark = (len(state.settled), len(state.adjusts[-1]) if state.adjusts else 0, state.over, len(state.hands))
        if mark == self.mark:
            self.check_views(engine, state)
            return
        self.mark = mark
        sheet = engine.score(state)
        json.dumps(sheet)
        totals = list(state.initial)
        for i, entry in enumerate(sheet["hands"]):
            if entry["status"] != "scored":
                assert entry is sheet["hands"][-1]
                continue
            r = entry["result"]
            vals = r["values"]
            seats = [s for s in range(self.n) if vals[s] is not None]
            assert sum(entry["points"][s] for s in seats) == 0
            assert r["chipsBefore"] == totals
            if not r["insolvent"]:
                total = sum(vals[s] for s in seats)
                assert all(entry["points"][s] == len(seats) * vals[s] - total for s in seats)
            else:
                st = state.settled[i]
                for s in r["insolvent"]:
                    test = st.before[s] < st.owes[s] if self.options["solvency"] == "gross" else True
                    assert test and entry["points"][s] >= 0
            if r["hands"] is not None:
                for s in seats:
                    assert vals[s] == hand_value([kabu.rules.read_card(c, deck) for c in r["hands"][s]])  # type: ignore[misc]
            change = [0] * self.n
            for line in entry["lines"]:
                change[line["seat"]] += line["points"]
            assert [totals[s] + change[s] for s in range(self.n)] == entry["totals"]
            totals = entry["totals"]
            if r["insolvent"] and self.end == "insolvency":
                assert entry is sheet["hands"][-1] and sheet["end"]["over"]
        assert totals == list(state.chips) == [s["total"] for s in sheet["standings"]]
        assert sheet["end"]["over"] == state.over
        if state.over:
            pool = [s for s in range(self.n) if state.active[s]] if self.end == "time" else list(range(self.n))
            best = max(state.chips[s] for s in pool)
            assert sheet["end"]["winners"] == [s for s in pool if state.chips[s] == best]
            assert engine.legal_moves(state) == []
        self.check_views(engine, state)

    def check_views(self, engine: Engine, state: kabu.State) -> None:
        """No view shows another seat's hidden cards; the open cards stay hidden until the last keep."""
        hand = state.current
        everything = engine.view(state, "all")
        json.dumps(everything)
        if "seats" not in everything or (hand is not None and hand.over):
            for seat in self.seats:
                json.dumps(engine.view(state, seat))
            return
        for seat in self.seats:
            mine = engine.view(state, seat)
            json.dumps(mine)
            seen_strings = set(strings(mine))
            for other in self.seats:
                entry = everything["seats"][other]
                if other == seat or not entry["inHand"]:
                    continue
                secret = set(entry.get("hand", []))
                if hand is not None and hand.phase == "keep" and hand.kept[other] is None:
                    secret |= set(entry.get("dealt", []))
                secret -= {"??"}
                assert not secret & seen_strings, (seat, other, secret & seen_strings)
        public = engine.view(state, None)
        if hand is not None and state.options.choose and hand.phase == "keep":
            assert set(public.get("table", [])) <= {"??"}


Driver = KabuDriver
