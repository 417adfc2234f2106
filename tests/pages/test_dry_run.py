"""POST /matches/{id}/events?dryRun=true: every check of an append, the would-be result, nothing written."""

from __future__ import annotations

from tests.conftest import Scorer

CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
DEAL_1 = [
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
]


def test_dry_run_returns_the_would_be_result_and_writes_nothing(scorer: Scorer) -> None:
    scorer.start(CABRA)
    before = scorer.raw_log()
    response = scorer.post(*DEAL_1)
    assert response.status_code == 201
    log_after_one = scorer.raw_log()
    assert log_after_one != before
    preview = scorer.client.post(
        f"/matches/{scorer.id}/events?dryRun=true",
        headers={"Authorization": f"Bearer {scorer.token}"},
        json={
            "events": [
                {"type": "hand_started", "data": {"dealer": 0}},
                {"type": "hand_result", "data": {"cardPoints": [20, 100], "tricks": [2, 5]}},
            ]
        },
    )
    assert preview.status_code == 200
    body = preview.get_json()
    assert body["dryRun"] is True and body["version"] == 5
    assert [h["hand"] for h in body["hands"]] == [2]
    assert body["hands"][0]["points"] == [4, 0]
    assert [s["total"] for s in body["standings"]] == [4, 2]
    assert body["next"][0]["type"] == "hand_started" and body["next"][0]["data"]["dealer"] == 1
    assert scorer.raw_log() == log_after_one
    assert scorer.get()["version"] == 3


def test_dry_run_refusals_are_the_appends_refusals(scorer: Scorer) -> None:
    scorer.start(CABRA)
    scorer.record(*DEAL_1)
    url = f"/matches/{scorer.id}/events?dryRun=true"
    bad_dealer = {"events": [{"type": "hand_started", "data": {"dealer": 2}}]}
    refused = scorer.client.post(url, json=bad_dealer, headers={"Authorization": f"Bearer {scorer.token}"})
    assert refused.status_code == 422 and refused.get_json()["code"] == "la-cabra.wrong_dealer"
    assert scorer.client.post(url, json=bad_dealer).status_code == 401
    stale = scorer.client.post(
        url, json={**bad_dealer, "expectedVersion": 2}, headers={"Authorization": f"Bearer {scorer.token}"}
    )
    assert stale.status_code == 409
    garbled = scorer.client.post(
        f"/matches/{scorer.id}/events?dryRun=perhaps",
        json=bad_dealer,
        headers={"Authorization": f"Bearer {scorer.token}"},
    )
    assert garbled.status_code == 400
    assert scorer.get()["version"] == 3


def test_dry_run_of_a_correction_shows_its_consequences(scorer: Scorer) -> None:
    scorer.start(CABRA)
    scorer.record(*DEAL_1)
    headers = {"Authorization": f"Bearer {scorer.token}"}
    amend = {
        "type": "amend",
        "data": {
            "target": 3,
            "reason": "points misread",
            "data": {"cardPoints": [48, 72], "tricks": [2, 5], "lastTrick": 1},
        },
    }
    body = scorer.client.post(
        f"/matches/{scorer.id}/events?dryRun=true", json={"events": [amend]}, headers=headers
    ).get_json()
    assert body["hands"][0]["points"] == [2, 0]
    assert [s["total"] for s in body["standings"]] == [2, 0]
    assert [s["total"] for s in scorer.get()["standings"]] == [0, 2]
