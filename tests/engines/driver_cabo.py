"""The Cabo driver for the conformance playouts (see ``tests/engines/test_conformance.py``).

The driver plays a real table: it shuffles, deals, keeps every physical card (numbered as
the engine numbers its tokens: the deal row by row, the turned-up card, the draw pile top
first, then each reshuffled pile as it is formed) and knows who has seen which card. It
chooses moves from that table alone, never from what the record knows, so the same seed
gives the same game whether it is recorded with full information (``hidden=False``: the deal
written, every draw and look noted) or as a scorer who sees no hidden card (``hidden=True``:
``??`` deals, unseen draws, some looks noted and some not, showdowns that sometimes leave a
card for a later ``reveal``). Recording choices come from a second generator, so both
recordings of a seed hold the same moves.

Results are written in both forms a table uses (every row, or each player's sum with the
kamikaze seat, as on a score sheet), and now and then a round in play is closed from the
sheet, from the rows as they lie on the table at that moment. ``truth`` keeps the rows
behind every sheet, for the invariants.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engines.base import Engine, Event
from engines.cabo import State

GAME = "cabo"
VALUES = [v for v in range(14) for _ in range(2 if v in (0, 13) else 4)]


def expected_round(edition: int, layouts: list[list[int]], caller: int | None) -> tuple[list[int], list[int]]:
    """docs/RULES.md §3.4 written independently of the engine: (scores, round winners)."""
    n = len(layouts)
    sums = [sum(r) for r in layouts]
    for s in range(n):
        if sorted(layouts[s]) == [12, 12, 13, 13]:
            return [0 if i == s else 50 for i in range(n)], [s]
    m = min(sums)
    low = [s for s in range(n) if sums[s] == m]
    if caller is not None and sums[caller] == m:
        return [0 if s == caller else sums[s] for s in range(n)], [caller]
    if caller is None:
        return [0 if s in low else sums[s] for s in range(n)], low
    if edition == 1:
        return [0 if s in low else sums[s] + 5 if s == caller else sums[s] for s in range(n)], low
    return [sums[s] + 10 if s == caller else sums[s] for s in range(n)], low


class CaboDriver:
    """Deals, moves and invariants for Cabo (see the module docstring)."""

    def __init__(self, rng: random.Random, hidden: bool | None = None) -> None:
        self.rng = rng
        self.rec = random.Random(rng.random())
        self.hidden = self.rec.random() < 0.5 if hidden is None else hidden
        edition = 2 if rng.random() < 0.25 else 1
        self.options: dict[str, Any] = {"swapAny": rng.random() < 0.3, "lockCaller": rng.random() < 0.3}
        if edition == 2:
            self.options["edition"] = 2
        if rng.random() < 0.4:
            self.options["wrongMultiPenalty"] = rng.choice(["discard", "keep"])
        self.keep = self.options.get("wrongMultiPenalty", "keep" if edition == 2 else "discard") == "keep"
        self.edition = edition
        self.n = rng.randint(2, 5 if edition == 1 else 4)
        self.seats = tuple(range(self.n))
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.phase = "between"
        self.patience = 0.03
        self.turns = 0
        # the table
        self.value: list[int] = []
        self.seen: list[set[int]] = []
        self.public: set[int] = set()
        self.rows: list[list[int]] = []
        self.draw: list[int] = []
        self.discard: list[int] = []
        self.hand: int | None = None
        self.drawn_noted = False
        self.looked: set[int] = set()
        self.totals: list[int] = []
        self.initial: list[int] | None = None
        self.used: set[int] = set()
        self.truth: dict[int, list[list[int]]] = {}
        self.closed: set[int] = set()
        """Per round number, the final rows behind a result given by its sums."""

    # ---- protocol

    def match_data(self) -> dict[str, Any]:
        names = ["Anna", "Ben", "Carl", "Dora", "Eva"][: self.n]
        data: dict[str, Any] = {"game": "cabo", "players": names, "options": self.options}
        if self.rng.random() < 0.3:
            self.initial = [self.rng.randrange(60) for _ in range(self.n)]
            data["initial"] = {"totals": self.initial}
        if self.rng.random() < 0.5:
            data["target"] = {"over": 100}
        self.totals = list(self.initial or [0] * self.n)
        return data

    @staticmethod
    def is_complete(move: dict[str, Any]) -> bool:
        kind, data = move["type"], move["data"]
        need = {
            "hand_started": "dealer",
            "hand_result": "layouts",
            "initial_peek": "slots",
            "take_discard": "slots",
            "replace": "slots",
            "discard": "card",
            "peek": "card",
            "spy": "card",
            "swap": "card",
            "showdown": "layouts",
            "reveal": "cards",
        }.get(kind)
        return need is None or need in data

    def choose(self, state: State, moves: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        if self.pending:
            return self.pending.pop(0)
        rnd = state.current
        if rnd is None or (rnd.score is not None and self.phase == "between"):
            return self._deal(moves)
        if rnd.result_only:
            return "hand_result", self._random_result(rnd.number)
        if rnd.over:
            return self._showdown(state)
        if self.hand is None and rnd.started and self.rng.random() < 0.01:
            return self._close(state)
        if not rnd.started:
            undecided = [s for s in range(self.n) if s not in self.looked]
            if undecided and self.rng.random() < 0.7:
                return self._look(self.rng.choice(undecided))
            self.looked = set(range(self.n))
        seat = rnd.turn
        if self.hand is None:
            return self._turn(state, seat)
        return self._use(state, seat)

    def observe(self, before: State, event: Event, after: State) -> None:
        if event.type == "hand_started" and "layouts" not in event.data:
            self.phase = "result"

    # ---- a round

    def _deal(self, moves: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        dealers = [m["data"]["dealer"] for m in moves if m["type"] == "hand_started"]
        dealer = rng.choice(dealers)
        if rng.random() < 0.15:
            self.phase = "result"
            return "hand_started", {"dealer": dealer}
        self.phase = "round"
        deck = list(VALUES)
        rng.shuffle(deck)
        self.value = deck
        self.seen = [set() for _ in deck]
        n = self.n
        self.rows = [list(range(4 * s, 4 * s + 4)) for s in range(n)]
        self.discard = [4 * n]
        self.public = {4 * n}
        self.draw = list(range(4 * n + 1, len(deck)))
        self.hand = None
        self.looked = set()
        self.turns = 0
        self.patience = rng.choice([0.02, 0.05, 0.1, 0.0, 0.0])
        layouts = [["??" if self.hidden else str(deck[t]) for t in row] for row in self.rows]
        return "hand_started", {"dealer": dealer, "layouts": layouts, "discard": str(deck[4 * n])}

    def _sheet(self, number: int, rows: list[list[int]], caller: int | None) -> dict[str, Any]:
        """Write a round's end in one of the two forms: every row, or the sums (and the kamikaze seat)."""
        self.phase = "between"
        self._score(rows, caller)
        if self.rng.random() < 0.5:
            return {"layouts": [[str(v) for v in r] for r in rows], "caller": caller}
        self.truth[number] = rows
        data: dict[str, Any] = {"sums": [sum(r) for r in rows], "caller": caller}
        kamikaze = next((s for s, r in enumerate(rows) if sorted(r) == [12, 12, 13, 13]), None)
        if kamikaze is not None or self.rng.random() < 0.3:
            data["kamikaze"] = kamikaze
        return data

    def _close(self, state: State) -> tuple[str, dict[str, Any]]:
        """Close the round in play from the sheet: the rows as they lie now, the caller or anyone."""
        rnd = state.current
        assert rnd is not None
        caller = rnd.caller if rnd.caller is not None else self.rng.randrange(self.n)
        self.closed.add(rnd.number)
        return "hand_result", self._sheet(rnd.number, [[self.value[t] for t in row] for row in self.rows], caller)

    def _random_result(self, number: int) -> dict[str, Any]:
        """Final rows of a possible round: values drawn from one deck, now and then a kamikaze row."""
        rng = self.rng
        deck = list(VALUES)
        rng.shuffle(deck)
        rows: list[list[int]] = []
        if rng.random() < 0.1:
            for v in (12, 12, 13, 13):
                deck.remove(v)
            rows.append([12, 13, 12, 13])
        while len(rows) < self.n:
            size = rng.choice([4, 4, 4, 3, 2, 1] + ([5] if self.keep else []))
            rows.append([deck.pop() for _ in range(size)])
        rng.shuffle(rows)
        caller: int | None = rng.randrange(self.n)
        if self.edition == 2 and rng.random() < 0.2:
            caller = None
        return self._sheet(number, rows, caller)

    def _score(self, layouts: list[list[int]], caller: int | None) -> None:
        scores, _ = expected_round(self.edition, layouts, caller)
        for s in range(self.n):
            t = self.totals[s] + scores[s]
            if t == 100 and (self.edition == 1 or s not in self.used):
                t = 50
                self.used.add(s)
            self.totals[s] = t

    def _look(self, seat: int) -> tuple[str, dict[str, Any]]:
        self.looked.add(seat)
        slots = sorted(self.rng.sample(range(1, 5), 2))
        data: dict[str, Any] = {"seat": seat, "slots": slots}
        for k in slots:
            self.seen[self.rows[seat][k - 1]].add(seat)
        if not self.hidden or self.rec.random() < 0.5:
            data["cards"] = [str(self.value[self.rows[seat][k - 1]]) for k in slots]
        return "initial_peek", data

    def _turn(self, state: State, seat: int) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        rnd = state.current
        assert rnd is not None
        self.turns += 1
        self.looked = set(range(self.n))
        r = rng.random()
        if rnd.caller is None and r < self.patience + (0.002 if self.patience else 0.0004) * self.turns:
            return "call_cabo", {"seat": seat}
        if self.discard and (r > 0.8 or not (self.draw or len(self.discard) > 1)):
            taken = self.discard.pop()
            return "take_discard", self._claim(seat, taken, taken=True)
        if not self.draw:
            back, top = self.discard[:-1], self.discard[-1]
            values = [self.value[t] for t in back]
            rng.shuffle(values)
            first = len(self.value)
            self.value += values
            self.seen += [set() for _ in values]
            self.draw = list(range(first, first + len(values)))
            self.discard = [top]
        self.hand = self.draw.pop(0)
        self.seen[self.hand].add(seat)
        data: dict[str, Any] = {"seat": seat}
        self.drawn_noted = not self.hidden or self.rec.random() < 0.2
        if self.drawn_noted:
            data["card"] = str(self.value[self.hand])
        return "draw", data

    def _use(self, state: State, seat: int) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        rnd = state.current
        assert rnd is not None and self.hand is not None
        card = self.hand
        v = self.value[card]
        self.hand = None
        r = rng.random()
        if r < 0.45:
            return "replace", self._claim(seat, card, taken=False)
        self.discard.append(card)
        self.public.add(card)
        others = [s for s in range(self.n) if s != seat]
        if v in (7, 8) and r < 0.85:
            k = rng.randrange(len(self.rows[seat])) + 1
            t = self.rows[seat][k - 1]
            self.seen[t].add(seat)
            data: dict[str, Any] = {"seat": seat, "card": str(v), "slot": k}
            if not self.hidden or self.rec.random() < 0.5:
                data["value"] = str(self.value[t])
            return "peek", data
        if v in (9, 10) and r < 0.85:
            s = rng.choice(others)
            k = rng.randrange(len(self.rows[s])) + 1
            t = self.rows[s][k - 1]
            self.seen[t].add(seat)
            data = {"seat": seat, "card": str(v), "target": {"seat": s, "slot": k}}
            if not self.hidden or self.rec.random() < 0.5:
                data["value"] = str(self.value[t])
            return "spy", data
        if v in (11, 12) and r < 0.85:
            locked = {rnd.caller} if self.options["lockCaller"] and rnd.caller is not None else set()
            firsts = list(range(self.n)) if self.options["swapAny"] else [seat]
            pairs = [(a, b) for a in firsts for b in range(self.n) if a != b and a not in locked and b not in locked]
            if pairs:
                a, b = rng.choice(pairs)
                ka, kb = rng.randrange(len(self.rows[a])) + 1, rng.randrange(len(self.rows[b])) + 1
                self.rows[a][ka - 1], self.rows[b][kb - 1] = self.rows[b][kb - 1], self.rows[a][ka - 1]
                return "swap", {
                    "seat": seat,
                    "card": str(v),
                    "first": {"seat": a, "slot": ka},
                    "second": {"seat": b, "slot": kb},
                }
        return "discard", {"seat": seat, "card": str(v)}

    def _claim(self, seat: int, new: int, *, taken: bool) -> dict[str, Any]:
        """A claim of own slots: mostly one slot, sometimes a real pair (or triple), sometimes a wrong one."""
        rng = self.rng
        row = self.rows[seat]
        by_value: dict[int, list[int]] = {}
        for k, t in enumerate(row, start=1):
            by_value.setdefault(self.value[t], []).append(k)
        groups = [ks for ks in by_value.values() if len(ks) > 1]
        r = rng.random()
        if groups and r < 0.3:
            slots = sorted(rng.choice(groups))
        elif len(row) > 1 and r < 0.4:
            slots = sorted(rng.sample(range(1, len(row) + 1), 2))
        else:
            slots = [rng.randrange(len(row)) + 1]
        tokens = [row[k - 1] for k in slots]
        shown = [self.value[t] for t in tokens]
        data: dict[str, Any] = {"seat": seat, "slots": slots, "cards": [str(v) for v in shown]}
        for t in tokens:
            self.public.add(t)
        if taken:
            self.public.add(new)
        else:
            self.seen[new].add(seat)
        if len(slots) == 1 or len(set(shown)) == 1:
            low = min(slots)
            self.discard += tokens
            row[low - 1] = new
            self.rows[seat] = [t for k, t in enumerate(row, start=1) if k == low or k not in slots]
            if not taken and self.hidden and not self.drawn_noted and self.rec.random() < 0.2:
                data["drawn"] = str(self.value[new])
        elif self.keep:
            row.append(new)
        else:
            self.discard.append(new)
            self.public.add(new)
            if not taken and not self.drawn_noted:
                data["drawn"] = str(self.value[new])
        return data

    def _showdown(self, state: State) -> tuple[str, dict[str, Any]]:
        """The rows turned up. A full-information record has scored the round already: a cross-check."""
        rnd = state.current
        assert rnd is not None
        layouts = [[str(self.value[t]) for t in row] for row in self.rows]
        for row in self.rows:
            self.public.update(row)
        self._score([[self.value[t] for t in row] for row in self.rows], rnd.caller)
        self.phase = "between"
        if self.hidden and self.rec.random() < 0.3:
            s = self.rec.randrange(self.n)
            k = self.rec.randrange(len(self.rows[s]))
            card = layouts[s][k]
            layouts[s][k] = "??"
            self.pending.append(("reveal", {"cards": [{"seat": s, "slot": k + 1, "card": card}]}))
        if self.rec.random() < 0.1:
            self.pending.append(
                (
                    "hand_result",
                    {"layouts": [[str(self.value[t]) for t in row] for row in self.rows], "caller": rnd.caller},
                )
            )
        return "showdown", {"layouts": layouts}

    # ---- invariants

    def check(self, engine: Engine, state: State) -> None:
        """Cabo invariants: conservation, the record agrees with the table, scores, views."""
        rnd = state.current
        if rnd is not None and not rnd.result_only:
            assert rnd.live() == 52
            assert [list(r) for r in rnd.layouts] == self.rows, (rnd.layouts, self.rows)
            assert list(rnd.draw) == self.draw and list(rnd.discard) == self.discard
            assert rnd.pending == self.hand
            for t, v in enumerate(rnd.values):
                assert v is None or v == self.value[t], (t, v, self.value[t])
                if not self.hidden and (t in self.public or any(self.seen[t])):
                    assert v == self.value[t]
        sheet = engine.score(state)
        json.dumps(sheet)
        totals = list(self.initial or [0] * self.n)
        used: set[int] = set()
        for entry in sheet["hands"]:
            if entry["status"] != "scored":
                assert entry is sheet["hands"][-1]
                continue
            r = entry["result"]
            layouts = (
                self.truth[entry["hand"]] if r["layouts"] is None else [[int(c) for c in row] for row in r["layouts"]]
            )
            assert r["sums"] == [sum(row) for row in layouts]
            assert r["kamikaze"] == next(
                (s for s, row in enumerate(layouts) if sorted(row) == [12, 12, 13, 13] and len(row) == 4), None
            )
            assert ("closedFromSheet" in entry) == (entry["hand"] in self.closed)
            scores, winners = expected_round(self.edition, layouts, r["caller"])
            assert entry["points"] == r["scores"] == scores and r["winners"] == winners
            before = list(totals)
            for s in range(self.n):
                totals[s] += scores[s]
                if totals[s] == 100 and (self.edition == 1 or s not in used):
                    totals[s] = 50
                    used.add(s)
            assert entry["totals"] == totals
            for s in range(self.n):
                assert sum(ln["points"] for ln in entry["lines"] if ln["seat"] == s) == totals[s] - before[s]
            if max(totals) > 100:
                assert entry is sheet["hands"][-1]
        assert [s["total"] for s in sheet["standings"]] == totals
        assert sheet["end"]["over"] == (max(totals) > 100)
        if sheet["end"]["over"]:
            assert sheet["end"]["winners"] == [s for s in range(self.n) if totals[s] == min(totals)]
            assert engine.legal_moves(state) == []
        json.dumps(engine.view(state, "all"))
        if rnd is None or rnd.result_only:
            return
        for viewer in (None, *self.seats):
            mine = engine.view(state, viewer)
            json.dumps(mine)
            assert mine["discardPile"] == [str(self.value[t]) for t in self.discard]
            for s, row in enumerate(mine["rows"]):
                for k, text in enumerate(row["cards"]):
                    t = self.rows[s][k]
                    saw = t in self.public or (viewer is not None and viewer in self.seen[t])
                    if text != "??":
                        assert saw and text == str(self.value[t]), (viewer, s, k, text)
                    elif not self.hidden:
                        assert not saw, (viewer, s, k)
            if mine["drawn"] is not None and mine["drawn"]["card"] != "??":
                assert viewer == rnd.turn


Driver = CaboDriver
