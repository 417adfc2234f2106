"""Cabo through the HTTP API, as a scorer at the table would record it.

The VOCABULARY.md §7 log (CB1 result only, CB2 move by move), docs/RULES.md §3.7 CB3 and CB4, a
wrong score claim found by the audit, refused moves that leave the log unchanged, and a whole
game to above 100 recorded move by move by a scorer who sees no hidden card.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines import cabo
from engines.base import Event
from tests.conftest import Scorer
from tests.engines.driver_cabo import CaboDriver, expected_round
from tests.engines.drivers import run
from tests.api.cabo_logs import vocabulary_log

U = "??"
HIDDEN4 = [[U] * 4 for _ in range(4)]
PLAYERS = ["Anna", "Ben", "Carl", "Dora"]


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def refused(scorer: Scorer, event: dict[str, Any], code: str, status: int = 422) -> dict[str, Any]:
    before = scorer.raw_log()
    response = scorer.post(event)
    assert response.status_code == status, response.get_json()
    body = response.get_json()
    assert body["code"] == code, body
    assert body["detail"]
    assert scorer.raw_log() == before
    return body


def test_games_describe_cabo(client: Any) -> None:
    games = client.get("/games").get_json()["games"]
    game = next(g for g in games if g["game"] == "cabo")
    assert game["players"]["min"] == 2 and game["players"]["max"] == 5
    assert game["options"]["edition"]["default"] == 1 and game["options"]["wrongMultiPenalty"]["default"] == "discard"
    assert set(game["schemas"]) >= {
        "draw",
        "replace",
        "peek",
        "spy",
        "swap",
        "call_cabo",
        "showdown",
        "reveal",
        "hand_result",
    }
    assert client.get(game["schemas"]["swap"]).get_json()["$id"].endswith("cabo/swap.v1.json")
    assert client.get("/games/cabo").get_json()["options"]["lockCaller"]["default"] is False


def test_vocabulary_log_cb1_and_cb2(scorer: Scorer) -> None:
    log = vocabulary_log()
    scorer.start(log[0]["data"])
    scorer.record(*log[1:4])
    assert [s["total"] for s in scorer.get()["standings"]] == [35, 93, 50, 40]
    # only Dora may start round 2 (CB1: Ben and Dora won it, Dora has the lower total)
    moves = scorer.get("/legal-moves")["moves"]
    assert moves == [{"type": "hand_started", "data": {"dealer": 3}}]
    wrong = dict(log[4], data={**log[4]["data"], "dealer": 1})
    body = refused(scorer, wrong, "cabo.wrong_dealer")
    assert "Dora" in body["detail"]
    for event in log[4:]:
        scorer.record(event)
    audit = scorer.get("/audit")
    assert [h["status"] for h in audit["hands"]] == ["scored", "scored"]
    assert [h["points"] for h in audit["hands"]] == [[15, 0, 15, 0], [9, 0, 5, 14]]
    assert [h["totals"] for h in audit["hands"]] == [[35, 93, 50, 40], [44, 93, 55, 54]]
    assert audit["hands"][0]["result"]["resets"] == [2] and audit["hands"][1]["result"]["winners"] == [1]
    assert audit["hands"][1]["result"]["dealt"][3] == ["4", "7", "1", "2"]
    assert audit["firstDivergence"] is None and all(c["agrees"] for c in audit["claims"])
    assert all(
        line["rule"] == "/rules/cabo#scoring-round" and line["reason"] for h in audit["hands"] for line in h["lines"]
    )
    assert scorer.get("/legal-moves")["moves"][0] == {"type": "hand_started", "data": {"dealer": 1}}
    # views: after Dora's peek (seq 9) she alone sees her slot 3; after the showdown everyone sees it all
    assert scorer.read("/state", at=9, seat=3)["state"]["rows"][3]["cards"] == [U, U, "1", U]
    assert scorer.read("/state", at=9, seat=2)["state"]["rows"][3]["cards"] == [U] * 4
    assert scorer.read("/state", at=9)["state"]["rows"][3]["cards"] == [U] * 4
    assert scorer.read("/state", at=7, seat=2)["state"]["rows"][2]["cards"] == ["11", "1", U, U]
    assert scorer.get("/state", at=26)["state"]["rows"][1]["cards"] == ["2", "3", "0"]
    frames = scorer.get("/replay")["frames"]
    assert all(f["text"] for f in frames) and "8" not in frames[7]["text"]


def test_wrong_claim_is_reported_at_its_round(scorer: Scorer) -> None:
    log = vocabulary_log()
    scorer.start(log[0]["data"])
    bad = ev("score_claimed", hand=2, points=[9, 5, 5, 14], totals=[44, 98, 55, 54])  # Ben scored his sum: wrong
    scorer.record(*log[1:-1], bad)
    audit = scorer.get("/audit")
    first = audit["firstDivergence"]
    assert (first["hand"], first["field"], first["seat"], first["claimed"], first["computed"]) == (2, "points", 1, 5, 0)
    assert "called CABO and is lowest" in first["why"]


def test_cb3_kamikaze_ends_the_game(scorer: Scorer) -> None:
    scorer.start({"game": "cabo", "players": PLAYERS, "initial": {"totals": [44, 93, 55, 54]}})
    scorer.record(
        ev("hand_started", dealer=1),
        ev(
            "hand_result",
            layouts=[["5", "6", "7", "8"], ["9", "9", "9"], ["12", "13", "12", "13"], ["0", "1", "2"]],
            caller=3,
        ),
        ev("score_claimed", hand=1, points=[50, 50, 0, 50], totals=[94, 143, 55, 104], winners=[2]),
    )
    summary = scorer.get()
    assert summary["status"] == "over" and summary["end"]["winners"] == [2]
    assert [s["total"] for s in summary["standings"]] == [94, 143, 55, 104]
    audit = scorer.get("/audit")
    assert audit["hands"][0]["result"]["kamikaze"] == 2 and audit["firstDivergence"] is None
    refused(scorer, ev("hand_started", dealer=2), "common.match_over")


@pytest.mark.parametrize(
    "options, claim, row, top",
    [
        ({}, [1, 3], ["2", "4", "11"], "9"),
        ({}, [1, 4], ["9", "4", "9", "11"], "2"),
        ({"wrongMultiPenalty": "keep"}, [1, 4], ["9", "4", "9", "11", "2"], "5"),
    ],
)
def test_cb4_multi_card_replacement(
    scorer: Scorer, options: dict[str, Any], claim: list[int], row: list[str], top: str
) -> None:
    scorer.start({"game": "cabo", "players": PLAYERS, "options": options})
    scorer.record(
        ev("hand_started", dealer=1, layouts=HIDDEN4, discard="5"),
        ev("initial_peek", seat=1, slots=[1, 3], cards=["9", "9"]),
        ev("draw", seat=1, card="2"),
    )
    shown = {1: "9", 3: "9", 4: "11"}
    scorer.record(ev("replace", seat=1, slots=claim, cards=[shown[k] for k in claim]))
    scorer.record(
        ev(
            "reveal",
            cards=[{"seat": 1, "slot": 2, "card": "4"}]
            + ([{"seat": 1, "slot": 4, "card": "11"}] if len(row) > 3 else [{"seat": 1, "slot": 3, "card": "11"}]),
        )
    )
    response = scorer.client.get(
        f"/matches/{scorer.id}/state", query_string={"seat": "all"}, headers={"Authorization": f"Bearer {scorer.token}"}
    )
    assert response.status_code == 200, response.get_json()
    state = response.get_json()["state"]
    assert state["rows"][1]["cards"] == row and state["discardPile"][-1] == top


def test_refused_moves_leave_the_log_unchanged(scorer: Scorer) -> None:
    scorer.start({"game": "cabo", "players": PLAYERS})
    scorer.record(ev("hand_started", dealer=0, layouts=HIDDEN4, discard="13"), ev("draw", seat=0))
    refused(scorer, ev("peek", seat=0, card="5", slot=1), "cabo.wrong_action")
    body = refused(
        scorer,
        ev("swap", seat=0, card="11", first={"seat": 0, "slot": 1}, second={"seat": 0, "slot": 2}),
        "cabo.swap_own",
    )
    assert "own two cards" in body["detail"]
    refused(scorer, ev("spy", seat=0, card="9", target={"seat": 0, "slot": 1}), "cabo.spy_own")
    refused(scorer, ev("draw", seat=1), "common.not_your_turn")
    scorer.record(ev("discard", seat=0, card="4"), ev("call_cabo", seat=1))
    body = refused(scorer, ev("call_cabo", seat=2), "cabo.second_call")
    assert "Ben already called it at entry 5" in body["detail"] and body.get("seq") == 5
    for seat in (2, 3, 0):
        scorer.record(ev("draw", seat=seat), ev("discard", seat=seat, card="4" if seat != 0 else "6"))
    body = refused(
        scorer,
        ev("showdown", layouts=[["13", "1", "2", "3"], ["13", "1", "2", "3"], ["1", "2", "3", "5"], ["5"] * 4]),
        "common.card_duplicate",
    )
    assert "13" in body["detail"]
    refused(scorer, ev("replace", seat=0, slots=[1, 1], cards=["1", "1"]), "schema.invalid", status=400)
    assert scorer.get("/audit")["hands"][0]["status"] == "incomplete"


def test_a_peek_contradicted_by_the_showdown_names_the_peek(scorer: Scorer) -> None:
    scorer.start({"game": "cabo", "players": ["Anna", "Ben"]})
    scorer.record(
        ev("hand_started", dealer=0, layouts=[[U] * 4, [U] * 4], discard="9"),
        ev("draw", seat=0, card="8"),
        ev("peek", seat=0, card="8", slot=2, value="3"),
        ev("call_cabo", seat=1),
        ev("draw", seat=0),
        ev("discard", seat=0, card="1"),
    )
    body = refused(
        scorer, ev("showdown", layouts=[["0", "2", "3", "4"], ["5", "6", "7", "10"]]), "common.card_unavailable"
    )
    assert body.get("seq") == 4 and "entry 4" in body["detail"]
    scorer.record(ev("showdown", layouts=[["0", "3", "2", "4"], ["5", "6", "7", "10"]]))
    assert scorer.get("/audit")["hands"][0]["points"] == [0, 33]  # Anna 9 lowest; Ben 28 + 5


# --------------------------------------------------------------------------- a whole game, unknown cards


def _whole_game() -> list[Event]:
    """A seeded game recorded by a scorer who sees no hidden card, move by move, at least three rounds."""
    for seed in range(200):
        driver = CaboDriver(random.Random(seed), hidden=True)
        events, _ = run(cabo, driver)
        starts = [e for e in events if e.type == "hand_started"]
        shown = sum(1 for e in events if e.type == "showdown")  # fewer than rounds: one was closed from the sheet
        if (
            driver.n >= 3
            and len(starts) >= 3
            and all("layouts" in e.data for e in starts)
            and "initial" not in events[0].data
            and shown == len(starts)
        ):
            return events
    raise AssertionError("no seed gives a whole move-by-move game")


def _expected(events: list[Event], edition: int) -> list[dict[str, Any]]:
    """Each round's points, totals and winners from its showdown and reveals (docs/RULES.md §3.4, independently)."""
    rounds: list[dict[str, Any]] = []
    for e in events:
        if e.type == "hand_started":
            rounds.append({"caller": None, "rows": None})
        elif e.type == "call_cabo":
            rounds[-1]["caller"] = e.data["seat"]
        elif e.type == "showdown":
            rounds[-1]["rows"] = [list(r) for r in e.data["layouts"]]
        elif e.type == "reveal":
            for b in e.data["cards"]:
                rounds[-1]["rows"][b["seat"]][b["slot"] - 1] = b["card"]
    n = len(events[0].data["players"])
    totals, used, out = [0] * n, set(), []
    for r in rounds:
        points, winners = expected_round(edition, [[int(c) for c in row] for row in r["rows"]], r["caller"])
        for s in range(n):
            totals[s] += points[s]
            if totals[s] == 100 and (edition == 1 or s not in used):
                totals[s] = 50
                used.add(s)
        out.append({"points": points, "totals": list(totals), "winners": winners})
    return out


def test_whole_game_with_unknown_cards_audits(scorer: Scorer) -> None:
    events = _whole_game()
    edition = events[0].data.get("options", {}).get("edition", 1)
    expected = _expected(events, edition)
    assert len(expected) >= 3 and max(expected[-1]["totals"]) > 100
    scorer.start(events[0].data)
    round_no = 0
    batch: list[dict[str, Any]] = []
    for e in events[1:]:
        if e.type == "hand_started" and batch:
            scorer.record(*batch)
            batch = []
            exp = expected[round_no - 1]
            # the next start player: a winner of the last round with the lowest total among the winners
            best = min(exp["totals"][s] for s in exp["winners"])
            assert e.data["dealer"] in exp["winners"] and exp["totals"][e.data["dealer"]] == best
            scorer.record(ev("score_claimed", hand=round_no, points=exp["points"], totals=exp["totals"]))
        if e.type == "hand_started":
            round_no += 1
            assert all(c == U for row in e.data["layouts"] for c in row)
        batch.append({"type": e.type, "data": dict(e.data)})
    scorer.record(*batch)
    exp = expected[-1]
    final = min(exp["totals"])
    scorer.record(
        ev(
            "score_claimed",
            hand=round_no,
            points=exp["points"],
            totals=exp["totals"],
            winners=[s for s, t in enumerate(exp["totals"]) if t == final],
        )
    )
    audit = scorer.get("/audit")
    assert [h["status"] for h in audit["hands"]] == ["scored"] * len(expected)
    assert [h["totals"] for h in audit["hands"]] == [x["totals"] for x in expected]
    assert [h["result"]["winners"] for h in audit["hands"]] == [x["winners"] for x in expected]
    assert audit["firstDivergence"] is None and audit["claims"] and all(c["agrees"] for c in audit["claims"])
    assert audit["end"]["over"] and audit["end"]["winners"] == [s for s, t in enumerate(exp["totals"]) if t == final]
    assert scorer.get()["status"] == "over"
    # the public view never showed a card only one seat saw: a spot check of every frame's public rows
    for frame in scorer.get("/replay")["frames"][:120]:
        rows = frame["state"].get("rows") or []
        for row in rows:
            assert all(c == U or c.isdigit() for c in row["cards"])
