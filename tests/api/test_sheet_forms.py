"""Recording from the score sheet, through HTTP (VOCABULARY.md §4, §5.3, §5.5).

A Cabo match recorded from the players' sums alone, and a La Cabra series recorded from card
points alone and from loss points alone, score and audit exactly as the same matches
recorded in the full form (every row; card points with tricks): the kamikaze, the caller's
+5, the 100 → 50 reset, eggs, 0-point deals with and without a trick. A hand recorded move by
move for a while and then closed from the sheet scores from the sheet and says in the replay
where recording stopped; a close that contradicts the recorded moves is refused (422, naming
the conflict) and leaves the stored rows as they were.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.problems import problem, snapshot, unchanged
from tests.conftest import Scorer

U = "??"


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def compared(scorer: Scorer) -> dict[str, Any]:
    """Everything a sheet form must score as the full form does: standings, end, hands' numbers, the audit's claims.

    The rows a form does not give (``layouts``, the deal), and the words of the lines (a row
    spells its sum out, a sum cannot), are left out; every line's points are kept.
    """
    audit = scorer.get("/audit")
    summary = scorer.get()
    hands = []
    for h in audit["hands"]:
        result = {k: v for k, v in h["result"].items() if k not in ("layouts", "dealt", "cardPoints", "tricks")}
        hands.append(
            {
                "hand": h["hand"],
                "status": h["status"],
                "points": h["points"],
                "totals": h["totals"],
                "result": result,
                "lines": [
                    (ln.get("seat", ln.get("team")), ln["points"], ln["rule"]) for ln in h["lines"] if ln["points"]
                ],
            }
        )
    claims = [{k: c[k] for k in ("hand", "field", "claimed", "computed", "agrees")} for c in audit["claims"]]
    first = audit["firstDivergence"]
    return {
        "standings": summary["standings"],
        "end": summary["end"],
        "status": summary["status"],
        "hands": hands,
        "claims": claims,
        "first": None if first is None else (first["hand"], first["field"], first["claimed"], first["computed"]),
        "chain": audit["chain"]["valid"],
    }


# --------------------------------------------------------------------------- Cabo from the sums (docs/RULES.md §3.7)

CABO = {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"], "initial": {"totals": [20, 93, 85, 40]}}
CABO_ROUNDS = [  # (start player, final rows, caller, the table's claim)
    (
        0,
        [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]],
        0,  # CB1: +5, a tie, 100 → 50
        {"hand": 1, "points": [15, 0, 15, 0], "totals": [35, 93, 50, 40]},
    ),
    (
        3,
        [["2", "3", "4", "0"], ["2", "3", "0"], ["1", "1", "2", "1"], ["4", "7", "1", "2"]],
        1,  # CB2: caller tied lowest
        {"hand": 2, "points": [9, 0, 5, 14], "totals": [44, 93, 55, 54]},
    ),
    (
        1,
        [["9", "9", "9", "10"], ["8", "8"], ["12", "13", "12", "13"], ["1", "2"]],
        3,  # CB3: kamikaze ends the game
        {"hand": 3, "points": [50, 50, 0, 55], "totals": [94, 143, 55, 109], "winners": [2]},
    ),  # the table added Dora's +5
]


def _cabo(scorer: Scorer, by_sums: bool) -> None:
    scorer.start(CABO)
    for dealer, rows, caller, claim in CABO_ROUNDS:
        if by_sums:
            result: dict[str, Any] = {"sums": [sum(map(int, r)) for r in rows], "caller": caller}
            kamikaze = next((s for s, r in enumerate(rows) if sorted(map(int, r)) == [12, 12, 13, 13]), None)
            if kamikaze is not None:
                result["kamikaze"] = kamikaze
        else:
            result = {"layouts": rows, "caller": caller}
        scorer.record(ev("hand_started", dealer=dealer), ev("hand_result", **result), ev("score_claimed", **claim))


def test_cabo_from_sums_scores_and_audits_as_from_rows(client: Any) -> None:
    full, sheet = Scorer(client), Scorer(client)
    _cabo(full, by_sums=False)
    _cabo(sheet, by_sums=True)
    assert compared(sheet) == compared(full)
    got = compared(sheet)
    assert [s["total"] for s in got["standings"]] == [94, 143, 55, 104]
    assert got["end"]["over"] and got["end"]["winners"] == [2]
    assert [h["result"]["resets"] for h in got["hands"]] == [[2], [], []]
    assert got["hands"][2]["result"]["kamikaze"] == 2 and got["hands"][0]["points"][0] == 15  # 10 + 5
    assert got["first"] == (3, "points", 55, 50)  # the table's wrong +5 on top of a kamikaze
    audit = sheet.get("/audit")
    assert audit["hands"][0]["result"]["layouts"] is None and audit["hands"][0]["result"]["sums"] == [10, 7, 15, 7]


# --------------------------------------------------------------------------- La Cabra from card points, from loss points (docs/RULES.md §5.7 Z3)

CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}
Z3 = [  # full form, card points alone, loss points alone
    ({"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}, {"cardPoints": [72, 48]}, {"lossPoints": [0, 2]}),
    ({"cardPoints": [25, 95], "tricks": [2, 5]}, {"cardPoints": [25, 95]}, {"lossPoints": [4, 0]}),
    ({"cardPoints": [60, 60], "tricks": [4, 4]}, {"cardPoints": [60, 60]}, {"lossPoints": [0, 0]}),  # eggs
    (
        {"cardPoints": [0, 120], "tricks": [1, 6]},
        {"cardPoints": [0, 120], "tricks": [1, 6]},
        {"lossPoints": [4, 0]},
    ),  # a blank trick
    (
        {"cardPoints": [120, 0], "tricks": [7, 0]},
        {"cardPoints": [120, 0], "tricks": [7, 0]},
        {"lossPoints": [0, 6]},
    ),  # no trick
    ({"cardPoints": [30, 90], "tricks": [3, 4]}, {"cardPoints": [30, 90]}, {"lossPoints": [4, 0]}),
]
Z3_CLAIMS = [[0, 2], [4, 2], [4, 2], [8, 2], [8, 8], [12, 8]]


def _cabra(scorer: Scorer, form: int, options: dict[str, Any], deals: int) -> None:
    scorer.start({**CABRA, "options": options})
    for i, forms in enumerate(Z3[:deals]):
        claim = {"hand": i + 1, "totals": Z3_CLAIMS[i]}
        scorer.record(ev("hand_started", dealer=i % 4), ev("hand_result", **forms[form]), ev("score_claimed", **claim))


@pytest.mark.parametrize("options, deals", [({}, 6), ({"eggs": "doubleNext"}, 4)])
def test_la_cabra_from_card_points_and_from_loss_points_scores_and_audits_as_the_full_form(
    client: Any, options: dict[str, Any], deals: int
) -> None:
    recorded = []
    for form in range(3):
        scorer = Scorer(client)
        _cabra(scorer, form, options, deals)
        recorded.append(compared(scorer))
    assert recorded[1] == recorded[0] and recorded[2] == recorded[0]
    got = recorded[0]
    assert got["end"]["over"] and got["end"]["goat"] == 0
    points = [h["points"] for h in got["hands"]]
    if options:  # doubleNext: deal 4 after the eggs of deal 3 counts double, NS reach 12
        assert points == [[0, 2], [4, 0], [0, 0], [8, 0]] and got["first"] == (4, "totals", 8, 12)
    else:
        assert points == [[0, 2], [4, 0], [0, 0], [4, 0], [0, 6], [4, 0]] and got["first"] is None
    assert [h["result"]["eggs"] for h in got["hands"]][2] is True


# --------------------------------------------------------------------------- closing a hand from the sheet

Z1_DEAL = ev(
    "hand_started",
    dealer=3,
    trump="QS",
    hands=[["9H", "KH", "6C", "7C"], ["10H", "6S", "8C", "9C"], ["AH", "7S", "JC", "10C"], [U, U, U, U]],
)
Z1_TRICK = [
    ev("lead", seat=0, cards=["9H", "KH"]),
    ev("beat", seat=1, cards=["10H", "6S"]),
    ev("beat", seat=2, cards=["AH", "7S"]),
    ev("discard", seat=3, cards=["6D", "QC"]),
]


def test_la_cabra_deal_closed_from_the_sheet_scores_from_the_facts(scorer: Scorer) -> None:
    scorer.start(CABRA)
    scorer.record(Z1_DEAL, *Z1_TRICK)
    scorer.record(ev("hand_result", cardPoints=[72, 48]), ev("score_claimed", hand=1, points=[0, 2], totals=[0, 2]))
    audit = scorer.get("/audit")
    hand = audit["hands"][0]
    assert (
        hand["status"] == "scored"
        and hand["points"] == [0, 2]
        and hand["closedFromSheet"] == {"afterMove": 4, "seq": 7}
    )
    assert audit["firstDivergence"] is None and all(c["agrees"] for c in audit["claims"])
    frames = scorer.get("/replay")["frames"]
    assert (
        frames[6]["text"]
        == "Hand 1 closed from the score sheet after move 4: North and South 72, East and West 48 card points: East and West 2 loss points (totals 0–2)"
    )
    assert scorer.get("/state")["state"]["closedFromSheet"] == {"afterMove": 4, "seq": 7}
    refused = scorer.post(ev("lead", seat=2, cards=["JC"]))
    assert problem(refused, 422, "la-cabra.deal_over")["detail"]
    # lastTrick was not on the sheet: the next dealt hand names its leader
    assert (
        scorer.post(ev("hand_started", dealer=0, trump="QS", hands=[[U] * 4] * 4)).get_json()["code"]
        == "la-cabra.leader_required"
    )
    scorer.record(ev("hand_started", dealer=0, trump="QS", hands=[[U] * 4] * 4, leader=1))


def test_cabo_round_closed_from_the_sheet_scores_from_the_facts(scorer: Scorer) -> None:
    scorer.start({"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]})
    scorer.record(
        ev("hand_started", dealer=0, layouts=[["5", "6", "7", "8"], [U] * 4, [U] * 4, [U] * 4], discard="9"),
        ev("draw", seat=0, card="1"),
        ev("replace", seat=0, slots=[4], cards=["8"]),
        ev("draw", seat=1),
        ev("discard", seat=1, card="4"),
        ev("call_cabo", seat=2),
    )
    scorer.record(ev("hand_result", sums=[19, 12, 3, 20], caller=2))
    hand = scorer.get("/audit")["hands"][0]
    assert (
        hand["status"] == "scored"
        and hand["points"] == [19, 12, 0, 20]
        and hand["closedFromSheet"] == {"afterMove": 5, "seq": 8}
    )
    assert [s["total"] for s in scorer.get()["standings"]] == [19, 12, 0, 20]
    text = scorer.get("/replay")["frames"][7]["text"]
    assert text.startswith("Round 1 closed from the score sheet after move 5: sums Anna 19, Ben 12, Carl 3, Dora 20")
    scorer.record(ev("hand_started", dealer=2))


@pytest.mark.parametrize(
    "game, record, close, code, words",
    [
        (
            "la-cabra",
            [Z1_DEAL, *Z1_TRICK],
            ev("hand_result", cardPoints=[20, 100]),
            "la-cabra.result_conflict",
            "North and South already hold 28 card points in tricks after move 4; the sheet says 20",
        ),
        (
            "la-cabra",
            [Z1_DEAL, *Z1_TRICK],
            ev("hand_result", lossPoints=[6, 0]),
            "la-cabra.result_conflict",
            "North and South already took 1 trick after move 4; the sheet's 6 loss points say they took none",
        ),
        (
            "cabo",
            [ev("hand_started", dealer=0, layouts=[[U] * 4] * 4, discard="9"), ev("call_cabo", seat=0)],
            ev("hand_result", sums=[1, 2, 3, 4], caller=1),
            "cabo.result_conflict",
            "Anna called CABO at entry 3; the sheet says Ben called",
        ),
    ],
)
def test_a_contradicting_close_is_refused_and_writes_nothing(
    scorer: Scorer, game: str, record: list[dict[str, Any]], close: dict[str, Any], code: str, words: str
) -> None:
    players = ["North", "East", "South", "West"] if game == "la-cabra" else ["Anna", "Ben", "Carl", "Dora"]
    scorer.start({"game": game, "players": players})
    scorer.record(*record)
    before = snapshot(scorer)
    body = problem(scorer.post(close), 422, code)
    assert words in body["detail"]
    unchanged(scorer, before)
    assert scorer.get("/audit")["hands"][0]["status"] == "playing"
