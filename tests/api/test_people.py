"""Positions and people as players name them: hand/move/trick, seats by name, names in standings and the audit."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.la_cabra_deals import DEAL_1, REST, REVEAL, START
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
    assert series.get("/state", hand=1, move=0)["at"] == 2  # move 0 is the deal
    # hand 2 is result only: its hand_result (seq 20) is move 1; the amend and the claim after it are not moves
    assert series.get("/state", hand=2, move=1)["at"] == 20
    assert series.get("/state", hand=2)["at"] == 20  # a hand alone: where it ended
    assert "hand" not in series.get("/state", at=5)  # asked by seq: answered by seq


def test_state_by_trick(series: Scorer) -> None:
    # trick 1 is seqs 3-8 (the tira sends played cards back), trick 2 seqs 9-12, trick 3 seqs 13-16
    assert series.get("/state", hand=1, trick=1)["at"] == 8
    assert series.get("/state", hand=1, trick=2, move=1)["at"] == 9
    assert series.get("/state", hand=1, trick=3)["at"] == 16
    assert bad(series, "/state", hand=1, trick=4)["detail"] == "hand 1 has no trick 4: it has 3 tricks so far"
    assert bad(series, "/state", hand=2, trick=1)["detail"].startswith("there are no tricks to count in hand 2")


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
    scorer.record(
        {"type": "hand_started", "data": {"dealer": 0}},
        {
            "type": "hand_result",
            "data": {
                "layouts": [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]],
                "caller": 0,
            },
        },
    )
    hand = scorer.get("/audit")["hands"][0]
    assert {(ln["seat"], ln["name"]) for ln in hand["lines"]} >= {(0, "Anna"), (3, "Dora")}
    assert [s["name"] for s in scorer.get()["standings"]] == ["Anna", "Ben", "Carl", "Dora"]


# --------------------------------------------------------------------------- metadata and the token

META = {"title": "Final de la lliga", "date": "2026-11-21", "place": "Casal Gràcia", "tags": ["lliga", "2026"]}


def test_metadata_is_listed_shown_filtered_and_amendable(scorer: Scorer) -> None:
    scorer.start({**START, **META})
    first = scorer.id
    scorer.start({**START, "place": "casa de la Núria", "tags": ["amics"]})
    second = scorer.id
    scorer.start(START)
    bare = scorer.id
    summary = scorer.client.get(f"/matches/{first}").get_json()
    assert {k: summary[k] for k in META} == META
    listed = {m["id"]: m for m in scorer.client.get("/matches").get_json()["items"]}
    assert listed[bare]["title"] is None and listed[bare]["tags"] == []
    assert listed[second]["place"] == "casa de la Núria"

    def ids(**params: Any) -> list[str]:
        return [m["id"] for m in scorer.client.get("/matches", query_string=params).get_json()["items"]]

    assert ids(tag="lliga") == [first]
    assert ids(place="CASAL GRÀCIA") == [first]
    assert ids(date="2026-11-21") == [first] and ids(date="2026-11-22") == []
    assert ids(tag="amics", game="la-cabra") == [second]
    # an amend of match_started renames and retags the match in the listing (scorer holds the last match)
    scorer.start({**START, **META})
    stored = scorer.client.get(f"/matches/{scorer.id}/events").get_json()["events"][0]["data"]
    scorer.record(
        {
            "type": "amend",
            "data": {
                "target": 1,
                "data": {**stored, "title": "Semifinal", "tags": ["copa"]},
                "reason": "it was the semifinal",
            },
        }
    )
    assert scorer.get()["title"] == "Semifinal" and ids(tag="copa") == [scorer.id] and ids(tag="lliga") == [first]
    refused = scorer.post(
        {"type": "amend", "data": {"target": 1, "data": {**stored, "rulesVersion": 2}, "reason": "newer rules"}}
    )
    assert refused.status_code == 422 and refused.get_json()["code"] == "common.rules_version"
    assert refused.get_json()["index"] == 0


def test_bad_metadata_is_refused_in_words(scorer: Scorer) -> None:
    response = scorer.client.post("/matches", json={**START, "date": "21/11/2026"})
    body = response.get_json()
    assert response.status_code == 400 and body["path"] == "$.date"
    assert body["detail"] == "date must be a calendar date, like 2026-11-21, not '21/11/2026'"


def test_rotating_the_token_gives_a_new_one_and_retires_the_old(scorer: Scorer) -> None:
    scorer.start(START)
    old = scorer.token
    rotated = scorer.client.post(f"/matches/{scorer.id}/token", headers={"Authorization": f"Bearer {old}"})
    assert rotated.status_code == 200, rotated.get_json()
    new = rotated.get_json()["token"]
    assert new != old and rotated.get_json()["id"] == scorer.id
    deal = DEAL_1[0]
    assert scorer.post(deal).status_code == 403  # scorer.token is still the old one
    scorer.token = new
    scorer.record(deal)
    again = scorer.client.post(f"/matches/{scorer.id}/token", headers={"Authorization": f"Bearer {old}"})
    assert again.status_code == 403 and again.get_json()["code"] == "auth.wrong"
    assert scorer.client.post(f"/matches/{scorer.id}/token").status_code == 401
    assert scorer.client.post("/matches/nope/token", headers={"Authorization": f"Bearer {new}"}).status_code == 404


def test_a_token_rotated_by_another_process_is_honoured_by_a_warm_cache(app: Any, scorer: Scorer) -> None:
    from api.service import Service
    from ledger import open_ledger

    scorer.start(START)
    scorer.record(DEAL_1[0])  # this app's cache now holds the match row with the first token
    with open_ledger(app.config["TANTEO_DB"]) as ledger:  # another process: its own service and cache
        new = Service(ledger).rotate_token(scorer.id, scorer.token)["token"]
    assert scorer.post(DEAL_1[1]).status_code == 403  # the old token stops working here too
    omniscient = scorer.client.get(
        f"/matches/{scorer.id}/state", query_string={"seat": "all"}, headers={"Authorization": f"Bearer {scorer.token}"}
    )
    assert omniscient.status_code == 403  # nor does it open every hidden card of the match in play
    scorer.token = new
    scorer.record(DEAL_1[1])


def test_the_audit_names_the_rules_version(series: Scorer) -> None:
    rules = series.get("/audit")["rules"]
    assert rules["recorded"] == rules["current"] == 1 and rules["differences"] == []
    assert rules["notes"] == ["recorded and scored with la-cabra rules version 1"]
    events = series.client.get(f"/matches/{series.id}/events").get_json()["events"]
    assert events[0]["data"]["rulesVersion"] == 1  # filled in by the service
    assert series.client.get("/games/la-cabra").get_json()["rulesVersion"] == 1
    too_new = series.client.post("/matches", json={**START, "rulesVersion": 2})
    assert too_new.status_code == 422 and too_new.get_json()["code"] == "common.rules_version"


def test_the_audit_rescores_with_the_recorded_rules_version_or_names_the_difference(
    series: Scorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import types

    import engines
    from engines import la_cabra

    monkeypatch.setattr(la_cabra, "RULES_VERSION", 2)  # this server has moved on to version 2 …
    rules = series.get("/audit")["rules"]
    assert (rules["recorded"], rules["current"], rules["available"]) == (1, 2, False)
    assert rules["notes"] == [
        "recorded with la-cabra rules version 1, scored with version 2; version 1 is no "
        "longer available here, so no hand could be rescored with it"
    ]

    def old_score(state: Any) -> dict[str, Any]:  # … and still ships version 1, which scored hand 3 otherwise
        sheet = la_cabra.score(state)
        sheet["hands"][2] = {**sheet["hands"][2], "points": [2, 0]}
        return sheet

    version_1 = types.SimpleNamespace(
        **{name: getattr(la_cabra, name) for name in dir(la_cabra) if not name.startswith("__")}
    )
    version_1.score, version_1.RULES_VERSION = old_score, 1
    monkeypatch.setitem(engines.PAST_ENGINES, ("la-cabra", 1), version_1)
    rules = series.get("/audit")["rules"]
    assert rules["available"] and rules["differences"] == [
        {"hand": 3, "field": "points", "recorded": [2, 0], "current": [4, 0]}
    ]
    assert rules["notes"] == [
        "recorded with la-cabra rules version 1, scored with version 2: hands 3 score differently"
    ]
