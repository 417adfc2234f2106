"""Closing a hand from the score sheet through HTTP (VOCABULARY.md §4), Kabú, Cau Robat, El Roby.

A hand recorded move by move for a while, then closed by a result-only ``hand_result``:
the moves stay, the hand scores from the sheet's facts, the replay says where recording
stopped. A close the recorded moves rule out is a 422 naming the conflict, and the stored
rows are byte for byte what they were.
"""

from __future__ import annotations

from typing import Any

from tests.api.problems import problem, snapshot, unchanged
from tests.conftest import Scorer


def ev(type: str, **data: Any) -> dict[str, Any]:
    return {"type": type, "data": data}


def closed_hand(scorer: Scorer, number: int) -> dict[str, Any]:
    hand = next(h for h in scorer.get("/audit")["hands"] if h["hand"] == number)
    assert hand["status"] == "scored"
    return hand


def replay_text(scorer: Scorer, seq: int) -> str:
    frames = scorer.get("/replay")["frames"]
    return str(next(f for f in frames if f["seq"] == seq)["text"])


def refused_naming(scorer: Scorer, event: dict[str, Any], code: str, words: str) -> None:
    before = snapshot(scorer)
    body = problem(scorer.post(event), 422, code)
    assert words in body["detail"], body["detail"]
    unchanged(scorer, before)


def test_kabu_hand_closed_from_the_sheet(scorer: Scorer) -> None:
    scorer.start({"game": "kabu", "players": ["P1", "P2", "P3", "P4"]})
    scorer.record(
        ev("hand_started", dealer=3, hands=[["5H", "4S"], ["7D", "8C"], ["??", "??"], ["6C", "AD"]]),
        ev("stand", seat=0),
        ev("take", seat=1),
        ev("take", seat=2),
    )
    # P1 stood on 5♥ 4♠: value 9, whatever the sheet says
    refused_naming(
        scorer, ev("hand_result", values=[7, 7, 0, 7]), "kabu.result_conflict", "P1 holds 4♠ 5♥ (4 + 5 = 9), value 9"
    )
    refused_naming(
        scorer,
        ev("hand_result", hands=[["5H", "4S"], ["7D", "8C"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]),
        "kabu.result_conflict",
        "P2 ends the hand with 3 to 4 cards (asked for a third card); the sheet shows 2",
    )
    body = scorer.record(ev("hand_result", values=[9, 7, 0, 7]))
    assert body["version"] == 6
    hand = closed_hand(scorer, 1)
    assert hand["points"] == [13, 5, -23, 5] and hand["totals"] == [83, 75, 47, 75]
    assert hand["closedFromSheet"] == {"afterMove": 3, "seq": 6}
    assert replay_text(scorer, 6).startswith("Hand 1 closed from the score sheet after move 3: ")
    assert [s["total"] for s in scorer.get()["standings"]] == [83, 75, 47, 75]


CAU_DEAL = {
    "dealer": 3,
    "table": ["1o", "3c", "5e", "11b"],
    "hands": [
        ["5o", "12o", "7o", "7b", "1e", "2o", "4o", "6o", "10o"],
        ["6c", "3o", "7c", "1b", "2c", "4c", "6e", "10e", "12c"],
        ["1c", "2e", "7e", "2b", "3e", "5c", "11c", "12e", "10b"],
        ["11o", "10c", "4b", "3b", "4e", "5b", "6b", "11e", "12b"],
    ],
}
CAU_PLAYS = [(0, "5o"), (1, "6c"), (2, "1c"), (3, "11o"), (0, "12o"), (1, "3o"), (2, "2e"), (3, "10c")]


def test_cau_robat_hand_closed_from_the_sheet(scorer: Scorer) -> None:
    scorer.start({"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 3}})
    scorer.record(ev("hand_started", **CAU_DEAL), *(ev("play", seat=s, card=c) for s, c in CAU_PLAYS))
    # after VOCABULARY §7's first eight plays the piles hold 8 cards: A [5e 5o], B [3c 3o], C [1o 1c], D [11b 11o]
    refused_naming(
        scorer,
        ev("hand_result", piles=[6, 10, 12, 9], table=["2e", "5o", "6c"]),
        "cau-robat.result_conflict",
        "is already in A's pile and cards never leave the piles; the sheet leaves it on the table",
    )
    refused_naming(
        scorer, ev("hand_result", piles=[8, 8, 8, 7], table=10), "cau-robat.bad_result", "make 41, not the 40 cards"
    )
    scorer.record(ev("hand_result", piles=[6, 10, 12, 9]))  # the sheet: each player's cards; 3 left on the table
    hand = closed_hand(scorer, 1)
    assert hand["points"] == [6, 10, 12, 9] and hand["result"]["table"] == 3 and hand["result"]["winners"] == [2]
    assert hand["totals"] == [0, 0, 1, 0] and hand["closedFromSheet"] == {"afterMove": 8, "seq": 11}
    assert replay_text(scorer, 11).startswith("Hand 1 closed from the score sheet after move 8: ")
    # the plays recorded before the close are still in the log and the replay
    assert [e["type"] for e in scorer.get("/events")["events"]].count("play") == 8


ROBY_DEAL = {
    "dealer": 0,
    "discard": "10H",
    "hands": [
        ["2C", "2D", "9H", "9S", "JC", "QD", "KS", "3H", "5D", "6S"],
        ["4H", "5H", "6H", "8C", "8D", "8S", "KC", "QH", "JS", "AC"],
        ["7H", "7C", "10D", "2S", "3S", "4C", "9D", "JD", "QC", "AS"],
        ["3C", "5C", "6C", "10C", "KD", "KH", "2H", "4S", "8H", "AD"],
    ],
}


def test_el_roby_hand_closed_from_the_sheet(scorer: Scorer) -> None:
    scorer.start(
        {
            "game": "el-roby",
            "players": ["Ana", "Bea", "Carlos", "Dani"],
            "options": {"entry": 10, "stake": 2},
            "initial": {"scores": [40, 70, 75, 97]},
        }
    )
    stock = {"from": "stock"}
    scorer.record(
        ev("hand_started", **ROBY_DEAL),
        ev("draw", seat=1, **stock),
        ev("discard", seat=1, card="AC"),
        ev("draw", seat=2, **stock),
        ev("discard", seat=2, card="AS"),
        ev("draw", seat=3, **stock),
        ev("discard", seat=3, card="AD"),
        ev("draw", seat=0, **stock),
        ev("discard", seat=0, card="KS"),
        ev("draw", seat=1, **stock),
        ev("meld", seat=1, id=1, cards=["8C", "8D", "8S"]),
    )
    # Bea has drawn and melded three: 8 cards, and she must still discard
    refused_naming(
        scorer,
        ev("hand_result", out=0, hands=[[], ["4H", "5H", "6H", "KC", "QH", "JS", "2C", "3C"], 28, 2]),
        "el-roby.result_conflict",
        "Bea holds 8 cards and must still discard, and no turn adds a card: at most 7 at the end",
    )
    scorer.record(ev("hand_result", out=0, hands=[0, 35, 28, 2]))
    hand = closed_hand(scorer, 1)
    assert hand["points"] == [0, 35, 28, 2] and hand["totals"] == [40, 105, 103, 99]
    assert hand["closedFromSheet"] == {"afterMove": 10, "seq": 13}
    assert replay_text(scorer, 13).startswith("Hand 1 closed from the score sheet after move 10: Ana made Roby")
    scorer.record(ev("rebuy", seat=1), ev("hand_started", dealer=1))  # Carlos is out, the deal passes to Bea
