"""Closing a hand from the sheet never refuses what really happened (Kabú, Cau Robat, El Roby).

The reachability checks of a close from the sheet (VOCABULARY.md §4) must be sound: the
true end-of-hand facts of a hand are reachable from every position the hand went through.
The conformance playouts (random legal series, many variants) give real hands; at several
points of each hand played move by move, the hand is closed with the facts it really ended
with, and the close must be accepted and score the hand exactly as its moves did.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from tests.engines.drivers import SEEDS, playout

from engines import ENGINES
from engines.base import Event

GAMES = ["kabu", "cau-robat", "el-roby"]


def _in_play(game: str, state: Any) -> bool:
    """A move-by-move hand is being played (a close from the sheet is possible)."""
    hand = state.current
    if hand is None or ENGINES[game].is_over(state):
        return False
    if game == "kabu":
        return not hand.result_only and not hand.over
    if game == "cau-robat":
        return hand.dealt and not hand.over
    return not hand.result_only and not hand.over


def _facts(game: str, entry: dict[str, Any], final_state: Any, rng: random.Random) -> dict[str, Any]:
    """The end-of-hand facts of a scored hand, in a result-only form (sometimes the short one)."""
    r = entry["result"]
    if game == "kabu":
        facts: dict[str, Any] = {"values": r["values"]}
        if r["hands"] is not None and rng.random() < 0.5:
            facts = {"hands": r["hands"]}
        return facts
    if game == "cau-robat":
        facts = {"piles": r["piles"]}
        if rng.random() < 0.5:
            facts["table"] = r["table"]
        if r["lastCapturer"] is not None:
            facts["lastCapturer"] = r["lastCapturer"]
        return facts
    rec = next(x for x in final_state.records if x.number == entry["hand"])
    if rec.void:
        return {"out": None}
    hands: list[Any] = []
    for s, cards in enumerate(rec.cards):
        if cards is None or isinstance(cards, int) or rng.random() < 0.5:
            hands.append(rec.points[s] if s != rec.out else ([] if cards is not None else None))
        else:
            hands.append([str(c) for c in cards])
    return {"out": rec.out, "hands": hands}


def closes_with_true_facts(game: str, seed: int) -> int:
    """Close hands of one playout with their true facts at random points; return how many."""
    engine = ENGINES[game]
    events, final = playout(game, seed)
    sheet = {h["hand"]: h for h in engine.score(final)["hands"]}
    rng = random.Random(seed)
    states = [engine.start(events[0].data)]
    for event in events[1:]:
        states.append(engine.apply(states[-1], event))
    closes = 0
    for i, state in enumerate(states):
        if not _in_play(game, state) or rng.random() > 0.15:
            continue
        entry = sheet.get(state.current.number)
        if entry is None or entry["status"] != "scored" or "closedFromSheet" in entry:
            continue
        facts = _facts(game, entry, final, rng)
        close = Event(events[i].seq + 1, "hand_result", facts)
        after = engine.apply(state, close)
        assert engine.narrate(state, close, after).startswith(
            f"Hand {entry['hand']} closed from the score sheet after move "
        )
        json.dumps([engine.view(after, seat) for seat in (None, "all", 0)])
        for move in engine.legal_moves(after):  # the match goes on from the closed hand
            json.dumps(move)
        closed = {h["hand"]: h for h in engine.score(after)["hands"]}[entry["hand"]]
        assert closed["status"] == "scored" and closed["points"] == entry["points"], (facts, closed["points"])
        assert closed["closedFromSheet"]["seq"] == events[i].seq + 1
        closes += 1
    return closes


@pytest.mark.parametrize("game", GAMES)
def test_the_true_facts_close_any_hand_in_play(game: str) -> None:
    assert sum(closes_with_true_facts(game, seed) for seed in SEEDS) >= 20
