"""Positions and people as players name them: hand/move/trick, seats by name, names in standings and the audit."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_la_cabra_series import DEAL_1, REST, REVEAL, START
from tests.conftest import Scorer


@pytest.fixture
def series(scorer: Scorer) -> Scorer:
    scorer.start(START)
    scorer.record(*DEAL_1, REVEAL, *REST)
    return scorer


def bad(scorer: Scorer, path: str, **params: Any) -> dict[str, Any]:
    response = scorer.client.get(f"/matches/{scorer.id}{path}", query_string=params)
    assert response.status_code == 400, response.get_json()
    return response.get_json()


def test_state_by_hand_and_move_counts_moves_not_log_lines(series: Scorer) -> None:
    # hand 1: the deal is seq 2, so move 3 (South's tira) is seq 5
    state = series.get("/state", hand=1, move=3)
    assert (state["at"], state["hand"], state["move"], state["trick"]) == (5, 1, 3, 1)
    assert state["state"] == series.get("/state", at=5)["state"]
    assert series.get("/state", hand=1, move=0)["at"] == 2          # move 0 is the deal
    # hand 2 is result only: its hand_result (seq 20) is move 1; the amend and the claim after it are not moves
    assert series.get("/state", hand=2, move=1)["at"] == 20
    assert series.get("/state", hand=2)["at"] == 20                 # a hand alone: where it ended
    assert "hand" not in series.get("/state", at=5)                 # asked by seq: answered by seq


def test_state_by_trick(series: Scorer) -> None:
    # trick 1 is seqs 3-8 (the tira sends played cards back), trick 2 seqs 9-12, trick 3 seqs 13-16
    assert series.get("/state", hand=1, trick=1)["at"] == 8
    assert series.get("/state", hand=1, trick=2, move=1)["at"] == 9
    assert series.get("/state", hand=1, trick=3)["at"] == 16
    assert "trick 4" in bad(series, "/state", hand=1, trick=4)["detail"]


def test_positions_that_do_not_exist_are_said_in_words(series: Scorer) -> None:
    assert bad(series, "/state", hand=9)["detail"] == "there is no hand 9: this match has 5 hands"
    assert bad(series, "/state", hand=2, move=2)["detail"] == "hand 2 has no move 2: it has 1 move (move 0 is the deal)"
    assert "give hand too" in bad(series, "/state", move=2)["detail"]
    assert "not both" in bad(series, "/state", at=3, hand=1, move=1)["detail"]


def test_replay_of_a_hand_stops_at_a_move_and_every_frame_says_where_it_is(series: Scorer) -> None:
    frames = series.get("/replay", hand=1, move=4)["frames"]
    assert [f["seq"] for f in frames] == [2, 3, 4, 5, 6]
    assert [(f["hand"], f["move"]) for f in frames] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4)]
    whole = series.get("/replay")["frames"]
    claim = next(f for f in whole if f["seq"] == 18)
    assert (claim["hand"], claim["move"]) == (1, None)
    assert [f["seq"] for f in series.get("/replay", at=3)["frames"]] == [1, 2, 3]


def test_a_seat_may_be_named_by_its_player(series: Scorer) -> None:
    by_name = series.client.get(f"/matches/{series.id}/state", query_string={"seat": "South", "at": 2})
    assert by_name.status_code == 200 and by_name.get_json()["seat"] == 2
    assert series.get("/state", seat="south", at=2)["seat"] == 2
    assert series.get("/replay", seat="West", hand=1, move=0)["seat"] == 3
    body = bad(series, "/state", seat="Nobody")
    assert body["code"] == "request.bad_seat" and "North, East, South, West" in body["detail"]


def test_standings_and_audit_carry_names_beside_numbers(series: Scorer) -> None:
    standings = series.get()["standings"]
    assert [(s["team"], s["name"]) for s in standings] == [(0, "North–South"), (1, "East–West")]
    audit = series.get("/audit")
    line = audit["hands"][3]["lines"][1]
    assert (line["team"], line["name"]) == (1, "East–West")
    first = audit["firstDivergence"]
    assert (first["team"], first["name"]) == (1, "East–West")
    assert first["why"].startswith("the table wrote 4 for points of East–West in hand 4; the log gives 6")


def test_seat_games_name_each_seat(scorer: Scorer) -> None:
    scorer.start({"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"], "initial": {"totals": [20, 93, 85, 40]}})
    scorer.record({"type": "hand_started", "data": {"dealer": 0}},
                  {"type": "hand_result", "data": {"layouts": [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]], "caller": 0}})
    hand = scorer.get("/audit")["hands"][0]
    assert {(ln["seat"], ln["name"]) for ln in hand["lines"]} >= {(0, "Anna"), (3, "Dora")}
    assert [s["name"] for s in scorer.get()["standings"]] == ["Anna", "Ben", "Carl", "Dora"]
