"""One test per error status of docs/DESIGN.md: each gets its status and code, and the log is unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Scorer
from tests.api.problems import DEAL, START, problem, snapshot, unchanged


@pytest.fixture
def dealt(scorer: Scorer) -> Scorer:
    scorer.start(START)
    scorer.record(DEAL)
    return scorer


def test_malformed_json_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.client.post(
        f"/matches/{dealt.id}/events",
        data='{"events": [',
        content_type="application/json",
        headers={"Authorization": f"Bearer {dealt.token}"},
    )
    problem(response, 400, "request.malformed_json")
    unchanged(dealt, before)


def test_envelope_shape_error_is_400_with_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    for sent, path in (
        ({"event": [{"type": "lead", "data": {}}]}, "$.events"),
        ({"events": {"type": "lead", "data": {}}}, "$.events"),
        ({"events": [{"type": "note", "data": {"text": "x"}}], "expectedVersion": "3"}, "$.expectedVersion"),
    ):
        body = problem(
            dealt.client.post(
                f"/matches/{dealt.id}/events", json=sent, headers={"Authorization": f"Bearer {dealt.token}"}
            ),
            400,
            "request.invalid",
        )
        assert body["path"] == path and body["detail"].startswith(f"{path}: "), body
    unchanged(dealt, before)


def test_an_event_without_data_is_said_by_the_schema_at_its_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(dealt.post({"type": "note", "data": {"text": "x"}}, {"type": "lead"}), 400, "schema.invalid")
    assert (body["path"], body["index"]) == ("$.events[1].data", 1)
    assert body["detail"] == "the 2nd event of the batch: data is required"
    unchanged(dealt, before)


def test_schema_violation_is_400_with_json_path(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.post(
        {"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}, {"type": "beat", "data": {"seat": 1, "cards": ["1H"]}}
    )
    body = problem(response, 400, "schema.invalid")
    assert body["index"] == 1
    assert body["path"] == "$.events[1].data.cards[0]"
    assert body["message"] and body["detail"] == f"the 2nd event of the batch: {body['message']}"
    unchanged(dealt, before)


def test_unknown_event_type_is_400(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(dealt.post({"type": "call_cabo", "data": {"seat": 0}}), 400, "schema.unknown_type")
    assert body["index"] == 0
    unchanged(dealt, before)


def test_missing_token_is_401(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.client.post(
        f"/matches/{dealt.id}/events", json={"events": [{"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}]}
    )
    problem(response, 401, "auth.missing")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    unchanged(dealt, before)


def test_wrong_token_is_403(dealt: Scorer, client: Any) -> None:
    other = Scorer(client)
    other.start(START)
    before = snapshot(dealt)
    response = client.post(
        f"/matches/{dealt.id}/events",
        json={"events": [{"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}]},
        headers={"Authorization": f"Bearer {other.token}"},
    )
    problem(response, 403, "auth.wrong")
    unchanged(dealt, before)


def test_unknown_match_and_game_are_404(client: Any) -> None:
    problem(client.get("/matches/nope"), 404, "match.not_found")
    problem(
        client.post(
            "/matches/nope/events",
            json={"events": [{"type": "note", "data": {"text": "x"}}]},
            headers={"Authorization": "Bearer x"},
        ),
        404,
        "match.not_found",
    )
    problem(client.get("/games/poker"), 404, "game.unknown")
    problem(client.get("/no/such/route"), 404, "route.not_found")


def test_a_404_names_the_id_or_game_asked_for_in_words(client: Any) -> None:
    """The id comes from the address, so anything may be in it: a control character or a quote
    is not echoed as Python writes a string (``'a\\x07b'``, ``"o'neil"``)."""
    for path, code, said in [
        ("/matches/a%07b", "match.not_found", "'ab'"),
        ("/matches/o'neil/audit", "match.not_found", "'o'neil'"),
        ("/games/x%09y", "game.unknown", "'xy'"),
        ("/games/o'neil", "game.unknown", "'o'neil'"),
    ]:
        detail = problem(client.get(path), 404, code)["detail"]
        assert said in detail and "\\" not in detail and '"' not in detail, detail


def test_stale_version_is_409_with_current_version(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.post({"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}, headers={"If-Match": '"1"'})
    body = problem(response, 409, "version.conflict")
    assert body["currentVersion"] == 2
    unchanged(dealt, before)
    body = problem(
        dealt.post({"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}, expectedVersion=1), 409, "version.conflict"
    )
    assert body["currentVersion"] == 2
    assert (
        dealt.post({"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}, headers={"If-Match": '"2"'}).status_code
        == 201
    )


def test_rule_violation_is_422_with_code_and_batch_index(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.post(
        {"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}, {"type": "beat", "data": {"seat": 2, "cards": ["7D"]}}
    )
    body = problem(response, 422, "common.not_your_turn")
    assert body["index"] == 1
    # the rule's own words, and the same after where in the batch the refused event stands
    assert body["message"].startswith("it is ") and body["detail"] == f"the 2nd event of the batch: {body['message']}"
    unchanged(dealt, before)


def test_idempotent_retry_writes_nothing_and_reused_key_is_refused(dealt: Scorer) -> None:
    lead = {"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}
    first = dealt.post(lead, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 201
    after_first = snapshot(dealt)
    again = dealt.post(lead, headers={"Idempotency-Key": "k1"})
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    unchanged(dealt, after_first)
    other = dealt.post({"type": "beat", "data": {"seat": 1, "cards": ["6S"]}}, headers={"Idempotency-Key": "k1"})
    problem(other, 422, "idempotency.key_reused")
    unchanged(dealt, after_first)


def test_bad_start_is_400_or_422_and_nothing_is_created(client: Any) -> None:
    problem(client.post("/matches", json={**START, "players": ["A", "B", "C"]}), 400, "schema.invalid")
    problem(client.post("/matches", json={**START, "options": {"eggs": "triple"}}), 400, "schema.invalid")
    problem(client.post("/matches", json={**START, "game": "poker"}), 400, "schema.unknown_game")
    problem(client.post("/matches", data="[", content_type="application/json"), 400, "request.malformed_json")
    assert client.get("/matches").get_json()["total"] == 0


def test_bad_query_and_step_are_400(dealt: Scorer) -> None:
    problem(dealt.client.get(f"/matches/{dealt.id}/state", query_string={"at": 99}), 400, "request.bad_step")
    problem(
        dealt.client.get(f"/matches/{dealt.id}/state", query_string={"seat": "Nobody"}), 400, "request.bad_seat"
    )  # seat=north is North
    problem(dealt.client.get(f"/matches/{dealt.id}/state", query_string={"seat": " "}), 400, "request.invalid")
    problem(dealt.client.get(f"/matches/{dealt.id}/state", query_string={"seat": 7}), 400, "request.bad_seat")


def test_omniscient_view_of_a_match_in_play_needs_the_token(dealt: Scorer) -> None:
    problem(dealt.client.get(f"/matches/{dealt.id}/state", query_string={"seat": "all"}), 401, "auth.missing")
    ok = dealt.client.get(
        f"/matches/{dealt.id}/state", query_string={"seat": "all"}, headers={"Authorization": f"Bearer {dealt.token}"}
    )
    assert ok.status_code == 200


def test_wrong_method_is_405_with_allow(client: Any) -> None:
    response = client.delete("/matches")
    problem(response, 405, "method.not_allowed")
    assert "POST" in response.headers["Allow"]


def test_an_amend_that_breaks_its_targets_schema_is_400_pointing_inside_it(dealt: Scorer) -> None:
    before = snapshot(dealt)
    body = problem(
        dealt.post({"type": "amend", "data": {"target": 2, "data": {"dealer": 9}, "reason": "typo"}}),
        400,
        "schema.invalid",
    )
    assert body["index"] == 0 and body["path"] == "$.events[0].data.data.dealer"
    unchanged(dealt, before)


def test_a_body_that_is_not_json_is_415(dealt: Scorer) -> None:
    before = snapshot(dealt)
    response = dealt.client.post(
        f"/matches/{dealt.id}/events",
        data="events",
        content_type="text/plain",
        headers={"Authorization": f"Bearer {dealt.token}"},
    )
    problem(response, 415, "request.media_type")
    problem(dealt.client.post("/matches", data="game=la-cabra"), 415, "request.media_type")
    unchanged(dealt, before)


def test_every_storage_reason_is_said_in_words_to_each_audience() -> None:
    """The ledger's storage reasons are said three ways, one per audience: the 503 a client reads
    (with its Retry-After), the command line's sentence (naming the database, with what to do),
    and the phrase of an import stopped half-way. A new reason must be worded in each: none falls
    back to a code, and each names its own cause."""
    from api.cli import _storage_words
    from api.errors import STORAGE
    from api.service.transfer import _STOPPED_BY
    from ledger import StorageUnavailable
    from ledger.errors import STORAGE_REASONS

    assert set(STORAGE) == set(_STOPPED_BY) == set(STORAGE_REASONS)
    said = {reason: _storage_words(StorageUnavailable(reason), "club.db") for reason in STORAGE_REASONS}
    assert all("club.db" in words and "_" not in words and "unavailable (" not in words for words in said.values()), (
        said
    )
    for table in ({r: STORAGE[r][1] for r in STORAGE_REASONS}, _STOPPED_BY, said):
        assert len(set(table.values())) == len(STORAGE_REASONS), table  # each reason its own words
    assert all(STORAGE[r][0] > 0 for r in STORAGE_REASONS)  # every 503 tells when to retry
