"""A La Cabra series recorded through the HTTP API, as a scorer at the table would.

Deal 1 is move by move: docs/RULES.md §5.7 Z2's tira opens it, West's hand is unknown to the
scorer and his face-down discard is revealed after the deal; deals 2-5 are result only
(Z3's numbers), deal 2's result is amended, and the table's claim for deal 4 is wrong.

Deal 1, trump ♠ (QS shown and returned). Trick 1: N 6♣, E beats with 6♠, S's tira
7♦ 8♦ K♦ A♦ sends both back; W, N, E discard; S takes K♦ 4 + A♦ 11 + J♥ 2 = 17 (W's
6♥ 7♥ 8♣ 9♣ add nothing). Trick 2: S leads 10♥ Q♥ K♥ A♥, W beats with four trumps,
N and E discard face down: W. Trick 3: one card each, W's Q♠ wins. NS 17 ≤ 30 with a
trick: 4 loss points. Then EW 48 → 2, NS 25 → 4, EW no trick → 6, NS 30 → 4: NS reach 12.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import Scorer
from tests.api.la_cabra_deals import DEAL_1, REST, REVEAL, START, ev


def test_series_records_replays_and_audits(scorer: Scorer) -> None:
    created = scorer.start(START)
    assert created["version"] == 1
    for event in DEAL_1[:4]:  # one move at a time, as at the table
        scorer.record(event)
    assert scorer.record(*DEAL_1[4:])["version"] == 16

    # the deal is over but West's face-down discard hides points from both piles
    hand = scorer.get("/audit")["hands"][0]
    assert hand["status"] == "incomplete"
    assert {"seq": 6, "index": 0} in hand["missing"]

    # a correction that would make a later event illegal is refused, naming that event
    before = scorer.raw_log()
    refused = scorer.post(ev("void", target=5, reason="no tira after all"))
    assert refused.status_code == 422
    body = refused.get_json()
    assert body["code"] == "common.correction_breaks" and body["seq"] > 5
    assert scorer.raw_log() == before

    scorer.record(REVEAL)
    for event in REST:
        scorer.record(event)

    summary = scorer.get()
    assert summary["version"] == 31 and summary["status"] == "over"
    assert [s["total"] for s in summary["standings"]] == [12, 8]
    assert summary["end"]["over"] is True and summary["end"]["winners"] == [1]

    audit = scorer.get("/audit")
    assert audit["chain"]["valid"] is True and audit["chain"]["length"] == 31
    assert [h["status"] for h in audit["hands"]] == ["scored"] * 5
    assert [h["points"] for h in audit["hands"]] == [[4, 0], [0, 2], [4, 0], [0, 6], [4, 0]]
    assert audit["hands"][0]["result"]["cardPoints"] == [17, 103]
    assert audit["hands"][1]["result"]["cardPoints"] == [72, 48]  # the amended count
    assert all(
        line["reason"] and line["rule"].startswith("/rules/la-cabra#") for h in audit["hands"] for line in h["lines"]
    )
    first = audit["firstDivergence"]
    assert (first["hand"], first["field"], first["team"], first["claimed"], first["computed"]) == (4, "points", 1, 4, 6)
    assert first["why"]
    assert [c["seq"] for c in audit["corrections"]] == [21]
    assert audit["corrections"][0]["reason"] == "recounted: 72-48"

    # a sixth deal cannot start: the series is over
    assert scorer.post(ev("hand_started", dealer=0)).get_json()["code"] == "common.match_over"


def test_replay_steps_through_both_courses(scorer: Scorer) -> None:
    scorer.start(START)
    scorer.record(*DEAL_1, REVEAL, *REST[:4])
    replay = scorer.get("/replay")
    frames = replay["frames"]
    assert [f["seq"] for f in frames] == list(range(1, 22))
    assert all(f["text"] for f in frames)
    assert frames[19]["status"] == "amended" and frames[19]["data"]["cardPoints"] == [72, 48]
    recorded = scorer.get("/replay", course="recorded")["frames"]
    assert recorded[19]["data"]["cardPoints"] == [70, 50] and recorded[20]["status"] == "correction"
    # the public view never shows a seat's hand; South's view shows South's own, to everyone
    # once deal 1 has ended (its piles were counted in the open), and to the scorer before
    at_deal = scorer.get("/state", at=2)["state"]
    assert "7D" not in str(at_deal)
    assert "7D" in str(scorer.get("/state", at=2, seat=2)["state"])
    assert "7D" in str(scorer.read("/state", at=2, seat=2)["state"])
    # stepping: after the tira (step 5) the trick is South's four diamonds
    assert "KD" in str(scorer.get("/state", at=5)["state"])
    assert scorer.get("/state", at=4)["state"] != scorer.get("/state", at=5)["state"]


def test_list_filters_and_pagination(scorer: Scorer, client: Any) -> None:
    for _ in range(3):
        Scorer(client).start(START)
    page = client.get("/matches", query_string={"perPage": 2, "page": 2}).get_json()
    assert page["total"] == 3 and len(page["items"]) == 1
    assert client.get("/matches", query_string={"player": "North"}).get_json()["total"] == 3
    assert client.get("/matches", query_string={"player": "Nobody"}).get_json()["total"] == 0
    assert client.get("/matches", query_string={"status": "over"}).get_json()["total"] == 0


def test_games_and_openapi_are_served(client: Any) -> None:
    games = client.get("/games").get_json()["games"]
    cabra = next(g for g in games if g["game"] == "la-cabra")
    assert cabra["options"]["eggs"]["default"] == "none"
    schema_url = cabra["schemas"]["lead"]
    assert client.get(schema_url).get_json()["$schema"].endswith("2020-12/schema")
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.") and "/matches/{match_id}/events" in spec["paths"]
    docs = client.get("/docs").get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in docs and "http://" not in docs and "https://" not in docs
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 200
