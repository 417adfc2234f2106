"""Hostile input: each answers a clear 4xx problem and the stored rows stay exactly as they were.

Issue 9's list, one test each, through the HTTP test client on a real SQLite file; every
test compares the event rows read straight from the file before and after.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from tests.api.problems import DEAL, START, problem, snapshot, unchanged
from ledger.records import hash_function
from tests.conftest import Scorer

BIG = 2**64


@pytest.fixture
def dealt(scorer: Scorer) -> Scorer:
    scorer.start(START)
    scorer.record(DEAL)
    return scorer


def raw_post(scorer: Scorer, body: str | bytes, **headers: str) -> Any:
    """POST a hand-written body (escapes and digits exactly as typed) to the match's events."""
    return scorer.client.post(
        f"/matches/{scorer.id}/events",
        data=body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {scorer.token}", **headers},
    )


def no_repr(body: dict[str, Any], *fragments: str) -> None:
    """The message a player reads quotes no Python repr and none of the huge input."""
    for fragment in ("Traceback", "Error(", "\\\\u", *fragments):
        assert fragment not in body["detail"], body["detail"]


def test_page_of_2_to_the_64_is_400_with_its_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(dealt.client.get("/matches", query_string={"page": str(BIG)}), 400, "request.invalid")
    assert body["path"] == "$.page" and "1000000000" in body["detail"]
    unchanged(dealt, before)


def test_events_after_2_to_the_63_is_400_with_its_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(
        dealt.client.get(f"/matches/{dealt.id}/events", query_string={"after": str(2**63)}), 400, "request.invalid"
    )
    assert body["path"] == "$.after"
    unchanged(dealt, before)


def test_other_query_integers_are_bounded(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for path, query, where in [
        ("/state", {"at": str(BIG)}, "$.at"),
        ("/replay", {"start": str(BIG)}, "$.start"),
        ("/replay", {"stop": str(BIG)}, "$.stop"),
        ("/events", {"limit": "9" * 5001}, "$.limit"),
    ]:
        body = problem(dealt.client.get(f"/matches/{dealt.id}{path}", query_string=query), 400, "request.invalid")
        assert body["path"] == where
    problem(dealt.client.get(f"/matches/{dealt.id}/state", query_string={"seat": str(BIG)}), 400, "request.bad_seat")
    unchanged(dealt, before)


def test_note_target_of_2_to_the_64_is_400_with_its_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "x", "target": %d}}]}' % BIG),
        400,
        "schema.invalid",
    )
    assert body["path"] == "$.events[0].data.target" and "must be 1 to 1,000,000,000" in body["detail"]
    unchanged(dealt, before)


def test_kabu_initial_chips_of_2_to_the_64_is_400_and_no_match_is_created(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.client.post(
        "/matches",
        data='{"game": "kabu", "players": ["A", "B"], "initial": {"chips": [%d, 5]}}' % BIG,
        content_type="application/json",
    )
    body = problem(response, 400, "schema.invalid")
    assert body["path"] == "$.initial.chips[0]"
    assert dealt.client.get("/matches").get_json()["total"] == 1
    unchanged(dealt, before)


def test_lone_surrogate_in_a_player_name_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.client.post(
        "/matches", data='{"game": "la-cabra", "players": ["\\udfff", "B", "C", "D"]}', content_type="application/json"
    )
    body = problem(response, 400, "request.invalid_text")
    assert body["path"] == "$.players[0]" and "surrogate" in body["detail"]
    assert dealt.client.get("/matches").get_json()["total"] == 1
    unchanged(dealt, before)


def test_lone_surrogate_in_a_note_is_400_and_a_real_pair_is_fine(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "ok \\udfff"}}]}'), 400, "request.invalid_text"
    )
    assert body["path"] == "$.events[0].data.text"
    problem(raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "\\ud83d"}}]}'), 400, "request.invalid_text")
    unchanged(dealt, before)
    # an escaped backslash before "udfff" is no escape, and a surrogate pair is one character
    assert (
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "\\\\udfff \\ud83d\\ude00"}}]}').status_code
        == 201
    )
    assert dealt.get("/events", after=2)["events"][0]["data"]["text"] == "\\udfff \U0001f600"


def test_body_nested_100000_levels_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for deep in ("[" * 100_000 + "]" * 100_000, '{"events": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001):
        body = problem(raw_post(dealt, deep), 400, "request.too_deep")
        no_repr(body)
    problem(dealt.client.post("/matches", data="[" * 100_000, content_type="application/json"), 400, "request.too_deep")
    unchanged(dealt, before)
    # brackets inside strings are text, not nesting, also after escaped quotes and backslashes
    assert raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "%s"}}]}' % ("[" * 500)).status_code == 201
    tricky = '\\\\ \\" ' + "{[" * 40 + " \\\\"  # JSON text: \\ \" {[{[… \\
    assert raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "%s"}}]}' % tricky).status_code == 201
    assert dealt.get("/events", after=3)["events"][0]["data"]["text"] == '\\ " ' + "{[" * 40 + " \\"


def test_5001_digit_expected_version_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "x"}}], "expectedVersion": %s}' % ("9" * 5001)),
        400,
        "request.number_too_large",
    )
    assert "5001 digits" in body["detail"]
    no_repr(body, "9" * 50)
    unchanged(dealt, before)


def test_expected_version_of_2_to_the_64_is_400_with_its_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "x"}}], "expectedVersion": %d}' % BIG),
        400,
        "request.invalid",
    )
    assert body["path"] == "$.expectedVersion"
    unchanged(dealt, before)


def test_non_finite_numbers_are_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    problem(
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "x", "target": 1e400}}]}'),
        400,
        "request.number_too_large",
    )
    for constant in ("NaN", "Infinity", "-Infinity"):
        problem(
            raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "x", "target": %s}}]}' % constant),
            400,
            "request.malformed_json",
        )
    unchanged(dealt, before)


def test_a_body_that_is_not_utf8_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    problem(raw_post(dealt, b'{"events": [{"type": "note", "data": {"text": "\xff"}}]}'), 400, "request.invalid_text")
    unchanged(dealt, before)


def test_if_match_superscript_two_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for header in ('"²"', '"٣"', '"99999999999999999999"', '"-1"'):
        body = problem(
            dealt.post({"type": "note", "data": {"text": "x"}}, headers={"If-Match": header}),
            400,
            "request.bad_if_match",
        )
        assert 'like "3"' in body["detail"]
    unchanged(dealt, before)


def test_body_over_the_limit_is_413(dealt: Scorer) -> None:
    before = snapshot(dealt)
    text = "x" * (1024 * 1024)
    response = dealt.post({"type": "note", "data": {"text": text}})
    body = problem(response, 413, "request.too_large")
    assert "1,048,576" in body["detail"]
    response = dealt.client.post("/matches", json={**START, "players": [text, "B", "C", "D"]})
    problem(response, 413, "request.too_large")
    unchanged(dealt, before)


def test_body_limit_is_configurable(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = create_app({"TANTEO_DB": str(db_path), "MAX_CONTENT_LENGTH": 100}).test_client()
    problem(
        small.post("/matches", json={**START, "players": ["North" * 10, "East", "South", "West"]}),
        413,
        "request.too_large",
    )
    assert small.post("/matches", json=START).status_code == 201
    monkeypatch.setenv("TANTEO_MAX_BODY", "50")
    from_env = create_app({"TANTEO_DB": str(db_path)}).test_client()
    problem(from_env.post("/matches", json=START), 413, "request.too_large")
    assert from_env.get("/matches").get_json()["total"] == 1


def test_long_player_name_note_and_reason_are_400_without_quoting_them(dealt: Scorer) -> None:
    before = snapshot(dealt)
    name = "N" * 41
    body = problem(
        dealt.client.post("/matches", json={**START, "players": [name, "B", "C", "D"]}), 400, "schema.invalid"
    )
    assert body["path"] == "$.players[0]" and "at most 40" in body["detail"]
    no_repr(body, name)
    note = "n" * 2001
    body = problem(dealt.post({"type": "note", "data": {"text": note}}), 400, "schema.invalid")
    assert body["path"] == "$.events[0].data.text" and "at most 2,000" in body["detail"]
    no_repr(body, note)
    body = problem(dealt.post({"type": "void", "data": {"target": 2, "reason": "r" * 2001}}), 400, "schema.invalid")
    assert body["path"] == "$.events[0].data.reason"
    body = problem(
        dealt.post({"type": "amend", "data": {"target": 2, "data": DEAL["data"], "reason": "r" * 2001}}),
        400,
        "schema.invalid",
    )
    assert body["path"] == "$.events[0].data.reason"
    assert dealt.client.get("/matches").get_json()["total"] == 1
    unchanged(dealt, before)
    assert dealt.post({"type": "note", "data": {"text": "n" * 2000}}).status_code == 201


def test_recorder_header_and_body_are_bounded(dealt: Scorer) -> None:
    before = snapshot(dealt)
    note = {"type": "note", "data": {"text": "x"}}
    body = problem(dealt.post(note, headers={"X-Recorder": "r" * 101}), 400, "request.recorder_too_long")
    no_repr(body, "r" * 101)
    problem(dealt.post(note, by="r" * 101), 400, "request.invalid")
    problem(
        dealt.client.post("/matches", json=START, headers={"X-Recorder": "r" * 101}), 400, "request.recorder_too_long"
    )
    response = dealt.post(note, headers={"X-Recorder": "r" * 200_000})
    body = problem(response, 431, "request.header_too_large")
    assert "X-Recorder" in body["detail"]
    problem(dealt.post(note, headers={"Idempotency-Key": "k" * 201}), 400, "request.idempotency_key_too_long")
    assert dealt.client.get("/matches").get_json()["total"] == 1
    unchanged(dealt, before)
    assert dealt.post(note, headers={"X-Recorder": "r" * 100, "Idempotency-Key": "k" * 200}).status_code == 201


def test_wrong_method_is_405_before_the_content_type_check(client: FlaskClient) -> None:
    for response in (
        client.put("/games"),
        client.put("/games", data="x", content_type="text/plain"),
        client.patch("/matches", data="x"),
        client.delete("/games/la-cabra"),
    ):
        problem(response, 405, "method.not_allowed")
        assert "GET" in response.headers["Allow"]
    problem(client.put("/no/such/route", data="x", content_type="text/plain"), 404, "route.not_found")
    assert client.get("/matches").get_json()["total"] == 0


def test_a_query_parameter_the_route_does_not_read_is_400_naming_what_it_reads(dealt: Scorer) -> None:
    """A typo was answered as if the parameter were absent: ``?limt=3`` gave the whole replay,
    ``/matches?limit=5`` fifty matches. Now it is refused, with the names the route reads."""
    before = snapshot(dealt)
    cases = [
        (f"/matches/{dealt.id}/replay", {"limt": "3"}, "'limt'", "limit"),
        ("/matches", {"limit": "5"}, "'limit'", "perPage"),
        (f"/matches/{dealt.id}/events", {"afterr": "1"}, "'afterr'", "after"),
        (f"/matches/{dealt.id}/state", {"seet": "0"}, "'seet'", "seat"),
        (f"/matches/{dealt.id}/stream", {"lastEventID": "1"}, "'lastEventID'", "lastEventId"),
        ("/matches.csv", {"games": "la-cabra"}, "'games'", "game"),
        (f"/matches/{dealt.id}/export", {"fmt": "text"}, "'fmt'", "format"),
    ]
    for path, query, quoted, hint in cases:
        body = problem(dealt.client.get(path, query_string=query), 400, "request.unknown_parameter")
        assert quoted in body["detail"] and hint in body["detail"], (path, body["detail"])
    many = problem(
        dealt.client.get("/matches", query_string={"x" * 5000: "1", "\x01b": "2", "c": "3", "d": "4"}),
        400,
        "request.unknown_parameter",
    )
    no_repr(many, "x" * 41, "\x01")
    assert "'b'" in many["detail"] and "…" in many["detail"]
    # what the routes do read still works, the page's own calls included
    for path, query in [
        (f"/matches/{dealt.id}/replay", {"from": "1", "limit": "2", "course": "recorded"}),
        ("/matches", {"perPage": "5", "game": "la-cabra"}),
        (f"/matches/{dealt.id}/events", {"limit": "1"}),
        (f"/matches/{dealt.id}/state", {"seat": "0"}),
    ]:
        assert dealt.client.get(path, query_string=query).status_code == 200, (path, query)
    unchanged(dealt, before)


# Issue 26, item 1: values that ended in a 500 (the body was clean, the status a bug). Each runs on
# SQLite and on PostgreSQL (tests/api/conftest.py), where a NUL character could not be stored.

NUL_REFUSED = "holds a NUL character (U+0000"


def test_superscript_and_other_script_digits_as_a_seat_are_400(dealt: Scorer) -> None:
    """``"²".isdigit()`` is true and ``int("²")`` fails: the seat reached ``int()`` and was a 500."""
    before = snapshot(dealt)
    for path in ("/state", "/replay"):
        for seat in ("²", "¹", "٣", "1_0", " 1"):
            body = problem(
                dealt.client.get(f"/matches/{dealt.id}{path}", query_string={"seat": seat}), 400, "request.bad_seat"
            )
            assert "seat number 0 to 3" in body["detail"]
            no_repr(body)
    assert dealt.get("/state", seat="1")["seat"] == 1  # ASCII digits still name a seat
    unchanged(dealt, before)


def test_query_integers_are_ascii_digits_only(dealt: Scorer) -> None:
    """``int()`` read ``٣`` as 3, ``1_0`` as 10 and `` 2`` as 2: a number in a query is ASCII digits."""
    before = snapshot(dealt)
    for path, name in [("/state", "at"), ("/replay", "stop"), ("/events", "after"), ("/events", "limit")]:
        for raw in ("٣", "1_0", "²", "+1", " 2"):
            body = problem(
                dealt.client.get(f"/matches/{dealt.id}{path}", query_string={name: raw}), 400, "request.invalid"
            )
            assert body["path"] == f"$.{name}" and "digits 0 to 9" in body["detail"], body["detail"]
    problem(dealt.client.get("/matches", query_string={"page": "٣"}), 400, "request.invalid")
    unchanged(dealt, before)


def test_last_event_id_that_is_no_seq_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for header in ("²", "9" * 5000, str(BIG), str(2**63), "-1", "1e3"):
        body = problem(
            dealt.client.get(f"/matches/{dealt.id}/stream", headers={"Last-Event-ID": header}),
            400,
            "request.bad_last_event_id",
        )
        assert "whole number from 0 to 1,000,000,000" in body["detail"]
        no_repr(body, "9" * 41)
    for query in (str(2**63), str(BIG), "9" * 5000, "²"):
        body = problem(
            dealt.client.get(f"/matches/{dealt.id}/stream", query_string={"lastEventId": query}), 400, "request.invalid"
        )
        assert body["path"] == "$.lastEventId"
    unchanged(dealt, before)


def test_a_300_character_rules_name_is_404(client: FlaskClient) -> None:
    """The name became a file name too long for the file system (an OSError, a 500)."""
    body = problem(client.get("/rules/" + "r" * 300), 404, "route.not_found")
    assert "r" * 41 not in body["detail"] and "/rules lists them" in body["detail"]
    assert client.get("/rules/la-cabra").status_code == 200


def test_a_deep_body_sent_to_a_route_that_does_not_exist_is_a_quick_404(client: FlaskClient) -> None:
    """``/qr`` read its body with Flask's own parser (100,000 levels deep was a 500); it is gone, the
    hand-over code being drawn in the browser, and its body is never read."""
    for deep in ("[" * 100_000 + "]" * 100_000, '{"text": ' + "[" * 10_000 + "]" * 10_000 + "}"):
        problem(client.post("/qr", data=deep, content_type="application/json"), 404, "route.not_found")


def test_a_nul_in_a_match_id_is_400_on_every_route(dealt: Scorer) -> None:
    """PostgreSQL cannot hold U+0000 even in a comparison: every route with a match id was a 500 there."""
    before = snapshot(dealt)
    bad = dealt.id[:4] + "%00" + dealt.id[4:]
    auth = {"Authorization": f"Bearer {dealt.token}"}
    gets = ["", "/state", "/events", "/replay", "/audit", "/legal-moves", "/export", "/sheet.csv", "/stream"]
    for suffix in gets:
        body = problem(dealt.client.get(f"/matches/{bad}{suffix}"), 400, "request.nul_character")
        assert NUL_REFUSED in body["detail"] and "\x00" not in body["detail"]
    for page in ("", "/score", "/sheet", "/replay"):
        problem(dealt.client.get(f"/m/{bad}{page}"), 400, "request.nul_character")
    problem(dealt.client.post(f"/matches/{bad}/token", headers=auth), 400, "request.nul_character")
    problem(
        dealt.client.post(
            f"/matches/{bad}/events", json={"events": [{"type": "note", "data": {"text": "x"}}]}, headers=auth
        ),
        400,
        "request.nul_character",
    )
    for path in ("/games/la%00cabra", "/rules/la%00cabra", "/schemas/a%00b"):
        problem(dealt.client.get(path), 400, "request.nul_character")
    unchanged(dealt, before)


def test_a_nul_in_a_list_csv_archive_or_page_filter_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for path in ("/matches", "/matches.csv", "/matches/export", "/"):
        for name in ("player", "place", "tag", "game"):
            body = problem(dealt.client.get(f"{path}?{name}=a%00b"), 400, "request.nul_character")
            assert f"'{name}'" in body["detail"]
    problem(dealt.client.get("/matches?a%00b=1"), 400, "request.nul_character")
    assert dealt.client.get("/matches?player=North").get_json()["total"] == 1
    unchanged(dealt, before)


def test_a_nul_in_a_name_note_or_header_is_400_and_nothing_is_stored(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for body, where in [
        ({**START, "players": ["A\x00B", "East", "South", "West"]}, "$.players[0]"),
        ({**START, "title": "final\x00"}, "$.title"),
        ({**START, "tags": ["\x00"]}, "$.tags[0]"),
    ]:
        refused = problem(dealt.client.post("/matches", json=body), 400, "request.nul_character")
        assert refused["path"] == where and refused["detail"].startswith(where)
    refused = problem(dealt.post({"type": "note", "data": {"text": "bid\x00"}}), 400, "request.nul_character")
    assert refused["path"] == "$.events[0].data.text"
    problem(dealt.post({"type": "note", "data": {"text": "x"}}, by="A\x00"), 400, "request.nul_character")
    problem(
        raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "x", "\\u0000": 1}}]}'),
        400,
        "request.nul_character",
    )
    for header in ("X-Recorder", "Idempotency-Key"):
        body = problem(
            dealt.post({"type": "note", "data": {"text": "x"}}, headers={header: "a\x00b"}),
            400,
            "request.nul_character",
        )
        assert header in body["detail"]
    assert dealt.client.get("/matches").get_json()["total"] == 1
    unchanged(dealt, before)
    # an escaped backslash before "u0000" is text, not a NUL
    assert raw_post(dealt, '{"events": [{"type": "note", "data": {"text": "\\\\u0000"}}]}').status_code == 201


def nul_archive(tmp_path: Path) -> tuple[bytes, bytes]:
    """An archive and a text export of a match whose first player's name holds a NUL, as a SQLite
    database written before NUL was refused could hold: recorded through the service, which
    never saw HTTP's check."""
    from api.context import own_service

    app = create_app({"TANTEO_DB": str(tmp_path / "old.db"), "TESTING": True})
    with app.app_context():
        match_id = own_service(app).start_match({**START, "players": ["A\x00B", "East", "South", "West"]})["id"]
    client = app.test_client()
    archive = client.get(f"/matches/{match_id}/export", query_string={"format": "jsonl"}).data
    text = client.get(f"/matches/{match_id}/export", query_string={"format": "text"}).data
    app.extensions["tanteo.ledgers"].close()
    assert b"\\u0000" in archive and b"\\u0000" in text
    return archive, text


def test_an_archive_from_sqlite_with_a_nul_in_a_name_is_refused_by_line(dealt: Scorer, tmp_path: Path) -> None:
    """On PostgreSQL this import was a 500 (text cannot hold U+0000); on SQLite it stored a name
    no PostgreSQL server could restore. Both backends now refuse the line, in words."""
    before = snapshot(dealt)
    archive, text = nul_archive(tmp_path)
    body = problem(
        dealt.client.post("/matches/import", data=archive, content_type="application/x-ndjson"),
        422,
        "import.nothing_imported",
    )
    assert body["errors"][0]["line"] == 1 and body["errors"][0]["code"] == "archive.nul_character"
    assert body["errors"][0]["message"].startswith("$.data.players[0] holds a NUL character")
    body = problem(
        dealt.client.post("/matches/import", data=text, content_type="text/plain"), 422, "import.nothing_imported"
    )
    assert body["errors"][0]["line"] == 2 and NUL_REFUSED in body["errors"][0]["message"]
    raw = text.replace(b"\\u0000", b"\x00")  # the character itself, not its escape
    body = problem(
        dealt.client.post("/matches/import", data=raw, content_type="text/plain"), 422, "import.nothing_imported"
    )
    assert body["errors"][0]["line"] == 2 and NUL_REFUSED in body["errors"][0]["message"]
    assert dealt.client.get("/matches").get_json()["total"] == 1
    unchanged(dealt, before)


# Issue 26, item 5: a restore should not make history up. A chain recomputed by hand still
# verifies, so the archive reader refuses what no server writes: times that go backwards within
# a match, and a match id of another shape than the ones Tanteo issues.


def source_archive(tmp_path: Path) -> list[dict[str, Any]]:
    """The archive lines of a match with three notes, recorded on a SQLite file of its own."""
    app = create_app({"TANTEO_DB": str(tmp_path / "source.db"), "TESTING": True})
    source = Scorer(app.test_client())
    source.start(START)
    for text in ("one", "two", "three"):
        source.record({"type": "note", "data": {"text": text}})
    lines = source.client.get(f"/matches/{source.id}/export", query_string={"format": "jsonl"}).data.splitlines()
    app.extensions["tanteo.ledgers"].close()
    return [json.loads(line) for line in lines]


def rechained(envelopes: list[dict[str, Any]]) -> bytes:
    """The archive with every hash recomputed, as whoever edits an archive by hand would (no
    private values in these events: the data is hashed as it is)."""
    prev = "0" * 64
    out = []
    for envelope in envelopes:
        digest = hash_function(envelope["format"])(
            prev,
            envelope["match"],
            envelope["seq"],
            envelope["type"],  # type: ignore[misc]
            envelope["data"],
            envelope["at"],
            envelope["by"],
            envelope["key"],
        )
        out.append(json.dumps({**envelope, "prev": prev, "hash": digest}).encode())
        prev = digest
    return b"\n".join(out) + b"\n"


def importing(scorer: Scorer, archive: bytes) -> Any:
    return scorer.client.post("/matches/import", data=archive, content_type="application/x-ndjson")


def test_an_archive_whose_times_go_backwards_is_refused_by_line(dealt: Scorer, tmp_path: Path) -> None:
    before = snapshot(dealt)
    envelopes = source_archive(tmp_path)
    back = [dict(e) for e in envelopes]
    back[3]["at"] = "2020-01-01T00:00:00.000Z"  # the 3rd note, back-dated, the chain recomputed over it
    body = problem(importing(dealt, rechained(back)), 422, "import.nothing_imported")
    (error,) = body["errors"]
    assert (error["line"], error["code"], error["match"]) == (4, "archive.time_backwards", envelopes[0]["match"])
    assert "2020-01-01T00:00:00.000Z" in error["message"] and "line 3" in error["message"]
    assert "only move forward" in error["message"]
    unchanged(dealt, before)
    assert dealt.client.get("/matches").get_json()["total"] == 1
    # the same archive with its times in order imports, its chain recomputed or not
    assert importing(dealt, rechained(envelopes)).status_code == 201


@pytest.mark.parametrize(
    "match_id", ["m", "../../etc", "-abcdefghijk", "abcdefghijk!", "abcdefghijklm", "é" * 12, "<script>x</s"]
)
def test_an_archive_with_a_match_id_tanteo_never_issues_is_refused_by_line(
    dealt: Scorer, tmp_path: Path, match_id: str
) -> None:
    before = snapshot(dealt)
    envelopes = [{**e, "match": match_id} for e in source_archive(tmp_path)]
    body = problem(importing(dealt, rechained(envelopes)), 422, "import.nothing_imported")
    assert [(e["line"], e["code"]) for e in body["errors"]] == [(n, "archive.bad_match_id") for n in range(1, 5)]
    assert "is not one Tanteo issues" in body["errors"][0]["message"]
    no_repr({"detail": body["errors"][0]["message"]})
    unchanged(dealt, before)
    # an id of the issued shape, its chain recomputed, is taken: what an import cannot tell (docs/HTTP.md)
    renamed = [{**e, "match": "Zz9_Zz9-Zz9_"} for e in envelopes]
    assert importing(dealt, rechained(renamed)).status_code == 201
