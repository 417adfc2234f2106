"""The dispute desk through HTTP: disputes, rulings with their corrections, the audit, the correction window.

The match is VOCABULARY.md §7's Cabo round 1 (CB1, result only): Anna called CABO with 10,
Ben and Dora have 7, so Anna scores 10 + 5 = 15. A dispute says Ben called, not Anna; an
upheld ruling amends the hand's result in the same batch, and the hand is re-scored.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from tests.conftest import Clock, Scorer

CB1 = {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"], "initial": {"totals": [20, 93, 85, 40]}}
LAYOUTS = [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]]


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


@pytest.fixture
def app(db_path: Path, clock: Clock) -> Iterator[Flask]:
    yield create_app({"TANTEO_DB": str(db_path), "TESTING": True, "TANTEO_CLOCK": clock})


def cb1(scorer: Scorer, **options: Any) -> None:
    scorer.start({**CB1, "options": options} if options else CB1)
    scorer.record(
        ev("hand_started", dealer=0),
        ev("hand_result", layouts=LAYOUTS, caller=0),
        ev("score_claimed", hand=1, points=[15, 0, 15, 0]),
    )


def refused(
    scorer: Scorer, code: str, *events: dict[str, Any], status: int = 422, index: int | None = None
) -> dict[str, Any]:
    before = scorer.raw_log()
    response = scorer.post(*events)
    body = response.get_json()
    assert response.status_code == status, body
    assert body["code"] == code, body
    if index is not None:
        assert body["index"] == index, body
    assert scorer.raw_log() == before  # nothing written
    return body  # type: ignore[no-any-return]


def test_an_upheld_ruling_carries_its_amend_and_the_hand_is_rescored(scorer: Scorer) -> None:
    cb1(scorer)
    assert scorer.get("/audit")["hands"][0]["result"]["scores"] == [15, 0, 15, 0]
    scorer.record(ev("dispute", hand=1, field="points", seat=0, reason="Ben called CABO, not Anna"))
    dispute = scorer.get("/audit")["disputes"]
    assert dispute == [
        {
            "seq": 5,
            "hand": 1,
            "field": "points",
            "seat": 0,
            "reason": "Ben called CABO, not Anna",
            "state": "open",
            "ruling": None,
            "correction": [],
        }
    ]
    scorer.record(
        ev("ruling", dispute=5, decision="upheld", reason="the table agrees Ben called"),
        ev("amend", target=3, data={"layouts": LAYOUTS, "caller": 1}, reason="Ben called CABO"),
    )
    audit = scorer.get("/audit")
    assert audit["hands"][0]["result"]["caller"] == 1
    assert audit["hands"][0]["result"]["scores"] == [
        10,
        0,
        15,
        7,
    ]  # Ben, tied lowest, called: 0; everyone else their sum
    [entry] = audit["disputes"]
    assert entry["state"] == "upheld"
    assert entry["ruling"] == {"seq": 6, "decision": "upheld", "reason": "the table agrees Ben called"}
    assert entry["correction"] == [
        {"seq": 7, "type": "amend", "target": 3, "reason": "Ben called CABO", "inForce": True}
    ]
    assert audit["firstDivergence"]["seat"] == 0 and audit["firstDivergence"]["claimed"] == 15
    frames = scorer.get("/replay")["frames"]
    assert [f["status"] for f in frames[4:6]] == ["dispute", "ruling"]
    assert "dispute about hand 1" in frames[4]["text"]


def test_a_rejected_ruling_needs_no_correction_and_changes_nothing(scorer: Scorer) -> None:
    cb1(scorer)
    scorer.record(ev("dispute", hand=1, reason="Carl's row was 2 3 4 5"))
    scorer.record(ev("ruling", dispute=5, decision="rejected", reason="the photo shows 2 3 4 6"))
    audit = scorer.get("/audit")
    assert audit["disputes"][0]["state"] == "rejected" and audit["disputes"][0]["correction"] == []
    assert audit["hands"][0]["result"]["scores"] == [15, 0, 15, 0]


def test_refused_disputes_and_rulings(scorer: Scorer) -> None:
    cb1(scorer)
    refused(scorer, "common.unknown_hand", ev("dispute", hand=2, reason="no such hand"))
    refused(scorer, "common.bad_seat", ev("dispute", hand=1, seat=4, reason="no such seat"))
    refused(scorer, "common.unknown_dispute", ev("ruling", dispute=3, decision="rejected", reason="3 is a hand_result"))
    refused(scorer, "common.unknown_dispute", ev("ruling", dispute=9, decision="rejected", reason="no event 9"))
    refused(scorer, "schema.invalid", ev("ruling", dispute=3, decision="maybe", reason="not a decision"), status=400)
    scorer.record(ev("dispute", hand=1, reason="Ben called"))
    body = refused(scorer, "common.ruling_needs_correction", ev("ruling", dispute=5, decision="upheld", reason="yes"))
    assert "same batch" in body["detail"]
    refused(
        scorer,
        "common.ruling_needs_correction",
        ev("ruling", dispute=5, decision="upheld", reason="yes"),
        ev("note", text="a note is no correction"),
    )
    refused(scorer, "common.amend_type", ev("amend", target=5, data={"hand": 1, "reason": "x"}, reason="reworded"))
    scorer.record(ev("ruling", dispute=5, decision="rejected", reason="no"))
    refused(
        scorer,
        "common.already_ruled",
        ev("ruling", dispute=5, decision="upheld", reason="on second thought"),
        ev("amend", target=3, data={"layouts": LAYOUTS, "caller": 1}, reason="Ben called"),
    )
    # voiding the ruling reopens the dispute, which may then be ruled again
    scorer.record(ev("void", target=6, reason="ruled by the wrong person"))
    assert scorer.get("/audit")["disputes"][0]["state"] == "open"
    scorer.record(
        ev("ruling", dispute=5, decision="upheld", reason="the umpire agrees"),
        ev("amend", target=3, data={"layouts": LAYOUTS, "caller": 1}, reason="Ben called"),
    )
    assert scorer.get("/audit")["disputes"][0]["state"] == "upheld"


def test_a_withdrawn_dispute_cannot_be_ruled(scorer: Scorer) -> None:
    cb1(scorer)
    scorer.record(ev("dispute", hand=1, reason="Ben called"), ev("void", target=5, reason="Anna agrees after all"))
    assert scorer.get("/audit")["disputes"][0]["state"] == "withdrawn"
    body = refused(scorer, "common.unknown_dispute", ev("ruling", dispute=5, decision="rejected", reason="no"))
    assert "withdrawn" in body["detail"]


def test_a_ruling_in_the_same_batch_as_its_dispute(scorer: Scorer) -> None:
    cb1(scorer)
    scorer.record(
        ev("dispute", hand=1, reason="Ben called"),
        ev("ruling", dispute=5, decision="upheld", reason="agreed"),
        ev("amend", target=3, data={"layouts": LAYOUTS, "caller": 1}, reason="Ben called"),
    )
    assert scorer.get("/audit")["disputes"][0]["state"] == "upheld"


def finished(scorer: Scorer, minutes: int) -> None:
    """Two players, Anna at 95: her sum of 10 takes her to 105 and ends the match."""
    scorer.start(
        {
            "game": "cabo",
            "players": ["Anna", "Ben"],
            "initial": {"totals": [95, 0]},
            "options": {"correctionWindow": minutes},
        }
    )
    scorer.record(ev("hand_started", dealer=0), ev("hand_result", layouts=[["5", "5"], ["1"]], caller=1))
    assert scorer.get()["status"] == "over"


def test_corrections_within_the_window_are_accepted_and_refused_after_it(scorer: Scorer, clock: Clock) -> None:
    finished(scorer, 30)
    clock.offset = timedelta(minutes=29)
    scorer.record(ev("dispute", hand=1, reason="Anna's row was 5 4"))
    clock.offset = timedelta(minutes=31)
    body = refused(
        scorer,
        "common.match_final",
        ev("ruling", dispute=4, decision="upheld", reason="it was 5 4"),
        ev("amend", target=3, data={"layouts": [["5", "4"], ["1"]], "caller": 1}, reason="5 4"),
        index=0,
    )
    assert "30 minute(s)" in body["detail"]
    refused(scorer, "common.match_final", ev("note", text="late"), ev("void", target=3, reason="late"), index=1)
    refused(scorer, "common.match_final", ev("dispute", hand=1, reason="too late"))
    scorer.record(ev("note", text="notes are always welcome"))
    clock.offset = timedelta(minutes=29)  # the clock decides, nothing else
    scorer.record(
        ev("ruling", dispute=4, decision="upheld", reason="it was 5 4"),
        ev("amend", target=3, data={"layouts": [["5", "4"], ["1"]], "caller": 1}, reason="5 4"),
    )


def test_a_zero_window_closes_at_once_and_no_window_never_closes(scorer: Scorer, clock: Clock) -> None:
    finished(scorer, 0)
    clock.offset = timedelta(seconds=1)
    refused(scorer, "common.match_final", ev("void", target=3, reason="misdeal"))
    scorer.start({"game": "cabo", "players": ["Anna", "Ben"], "initial": {"totals": [95, 0]}})
    scorer.record(ev("hand_started", dealer=0), ev("hand_result", layouts=[["5", "5"], ["1"]], caller=1))
    clock.offset = timedelta(days=365)
    scorer.record(ev("void", target=3, reason="misdeal"))
    assert scorer.get()["status"] == "playing"


def test_the_window_only_starts_when_the_match_ends(scorer: Scorer, clock: Clock) -> None:
    cb1(scorer, correctionWindow=0)
    clock.offset = timedelta(days=2)
    scorer.record(ev("void", target=4, reason="claim for the wrong hand"))


def test_the_window_is_an_option_of_every_game(client: FlaskClient) -> None:
    for game, players in (
        ("cau-robat", ["A", "B", "C"]),
        ("kabu", ["A", "B"]),
        ("el-roby", ["A", "B", "C", "D"]),
        ("la-cabra", ["N", "E", "S", "W"]),
        ("cabo", ["A", "B"]),
    ):
        ok = client.post("/matches", json={"game": game, "players": players, "options": {"correctionWindow": 60}})
        assert ok.status_code == 201, ok.get_json()
        bad = client.post("/matches", json={"game": game, "players": players, "options": {"correctionWindow": -1}})
        assert bad.status_code == 400, bad.get_json()
        described = client.get(f"/games/{game}").get_json()
        assert described["options"]["correctionWindow"]["default"] is None


def test_the_vocabulary_examples_of_the_desk_validate() -> None:
    import json
    import re

    from schemas import validate_event
    from tests.conftest import VOCABULARY

    text = VOCABULARY.read_text(encoding="utf-8")
    section = text[text.index("**The dispute desk.**") :]
    block = re.findall(r"```json\n(.*?)```", section, flags=re.S)[0]
    events = [json.loads(line) for line in block.strip().splitlines()]
    assert {e["type"] for e in events} == {"dispute", "ruling", "amend"}
    for event in events:
        validate_event("cabo", event["type"], event["data"])
    assert "| every game | `correctionWindow` |" in text


def test_the_command_line_audit_lists_disputes(scorer: Scorer, db_path: Path) -> None:
    from click.testing import CliRunner

    from api.cli import main

    cb1(scorer)
    scorer.record(
        ev("dispute", hand=1, reason="Ben called"),
        ev("ruling", dispute=5, decision="upheld", reason="agreed"),
        ev("amend", target=3, data={"layouts": LAYOUTS, "caller": 1}, reason="Ben called"),
        ev("dispute", hand=1, seat=2, reason="Carl's 15"),
    )
    output = CliRunner().invoke(main, ["audit", scorer.id, "--db", str(db_path)]).output
    assert (
        "dispute 5 on hand 1: upheld at entry 6 (agreed), corrected by amend of 3 at entry 7; claim: Ben called"
        in output
    )
    assert "dispute 8 on hand 1: open; claim: Carl's 15" in output


def test_a_dry_run_checks_the_window_and_the_desk_as_an_append_does(scorer: Scorer, clock: Clock) -> None:
    finished(scorer, 30)
    clock.offset = timedelta(minutes=31)
    late = scorer.client.post(
        f"/matches/{scorer.id}/events?dryRun=true",
        json={"events": [ev("void", target=3, reason="late")]},
        headers={"Authorization": f"Bearer {scorer.token}"},
    )
    assert late.status_code == 422 and late.get_json()["code"] == "common.match_final"
    assert late.get_json()["rule"] == "/rules/cabo#option-correctionwindow"
    clock.offset = timedelta(minutes=1)
    bare = scorer.client.post(
        f"/matches/{scorer.id}/events?dryRun=true",
        json={"events": [ev("dispute", hand=1, reason="x"), ev("ruling", dispute=4, decision="upheld", reason="y")]},
        headers={"Authorization": f"Bearer {scorer.token}"},
    )
    assert bare.status_code == 422 and bare.get_json()["code"] == "common.ruling_needs_correction"
    assert scorer.get()["version"] == 3  # nothing written


# ---------------------------------------------------------------- a ruling's chain of corrections

ROBY = {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "initial": {"scores": [40, 90, 50, 30]}}
HAND_1 = {"out": 0, "hands": [0, 8, 5, 9]}  # Bea's cards made 8: 98, still in the game
HAND_2 = {"out": 2, "hands": [7, 6, 0, 4]}  # so hand 2 must give her points


def dry_run(scorer: Scorer, *events: dict[str, Any]) -> Any:
    return scorer.client.post(
        f"/matches/{scorer.id}/events?dryRun=true",
        json={"events": list(events)},
        headers={"Authorization": f"Bearer {scorer.token}"},
    )


def roby_with_a_dispute(scorer: Scorer) -> None:
    """Bea was counted 12 in hand 1 (102: over 99, out), so hand 2 was recorded without her; she disputes."""
    scorer.start(ROBY)
    scorer.record(
        ev("hand_started", dealer=1),
        ev("hand_result", out=0, hands=[0, 12, 5, 9]),
        ev("hand_started", dealer=2),
        ev("hand_result", out=2, hands=[7, None, 0, 4]),
        ev("dispute", hand=1, seat=1, reason="Bea's cards made 8, not 12"),
    )


def test_a_rulings_chain_of_corrections_is_judged_as_one(scorer: Scorer) -> None:
    roby_with_a_dispute(scorer)
    first = ev("amend", target=3, data=HAND_1, reason="counted again: 8")
    second = ev("amend", target=5, data=HAND_2, reason="Bea was still in the game")
    ruling = ev("ruling", dispute=6, decision="upheld", reason="Bea's cards were counted again")
    # alone, the first correction leaves hand 2 illegal (it leaves out a player still in the game)
    body = refused(scorer, "common.correction_breaks", first, index=0)
    assert body["seq"] == 5
    # the ruling's two corrections together: previewed, then recorded as one
    preview = dry_run(scorer, ruling, first, second)
    assert preview.status_code == 200, preview.get_json()
    assert [h["points"] for h in preview.get_json()["hands"]] == [[0, 8, 5, 9], [7, 6, 0, 4]]
    assert scorer.get()["version"] == 6  # a dry run writes nothing
    scorer.record(ruling, first, second)
    audit = scorer.get("/audit")
    assert [h["points"] for h in audit["hands"]] == [[0, 8, 5, 9], [7, 6, 0, 4]]
    assert [s["total"] for s in audit["standings"]] == [47, 104, 55, 43]
    assert [d["state"] for d in audit["disputes"]] == ["upheld"]
    assert [(c["type"], c["target"]) for c in audit["disputes"][0]["correction"]] == [("amend", 3), ("amend", 5)]
    # the stored log walks again from a cold start, in both courses
    assert [f["seq"] for f in scorer.get("/replay", course="recorded")["frames"]][-3:] == [7, 8, 9]


def test_a_chain_whose_second_correction_is_illegal_writes_nothing(scorer: Scorer) -> None:
    roby_with_a_dispute(scorer)
    ruling = ev("ruling", dispute=6, decision="upheld", reason="Bea's cards were counted again")
    first = ev("amend", target=3, data=HAND_1, reason="counted again: 8")
    wrong = ev("amend", target=5, data={"out": 2, "hands": [7, None, 0, 4]}, reason="as it was")
    body = refused(scorer, "common.correction_breaks", ruling, first, wrong, index=2)
    assert body["seq"] == 5
    assert "corrections of entries 3 and 5 would make entry 5 illegal" in body["detail"]
    assert dry_run(scorer, ruling, first, wrong).status_code == 422
    assert scorer.get()["version"] == 6
