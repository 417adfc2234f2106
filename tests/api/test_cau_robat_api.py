"""Cau Robat through the HTTP API, as a scorer at the table would record it.

* VOCABULARY.md §7's cau-robat log, verbatim: hand 1 result only (C3's end-of-hand numbers),
  hand 2 dealt and played up to C2's Cau, Recau and D's 4, with the stated piles;
* a wrong ``score_claimed`` found by ``/audit`` at the right hand;
* refused events: a 4xx with the rule code, and the log unchanged;
* a whole game to the target, every hand move by move, the table's claims written from an
  independent reference simulation: the audit agrees and names the right winners.
"""

from __future__ import annotations

import json
import random
from typing import Any


from tests.conftest import VOCABULARY, Scorer
from tests.engines.cau_robat_helpers import deal, reference_hand
from tests.api.cau_robat_logs import LOG


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def refused(scorer: Scorer, event: dict[str, Any], status: int, code: str) -> dict[str, Any]:
    before = scorer.raw_log()
    response = scorer.post(event)
    body = response.get_json()
    assert response.status_code == status and body["code"] == code, body
    assert scorer.raw_log() == before
    return body


def test_the_vocabulary_text_is_the_copy_here() -> None:
    text = VOCABULARY.read_text(encoding="utf-8")
    start = text.index("**cau-robat** —")
    block = text[text.index("```jsonl\n", start) + 9 : text.index("```", text.index("```jsonl\n", start) + 9)]
    assert [json.loads(x) for x in block.splitlines() if x] == LOG


def test_vocabulary_log_through_the_api(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    for event in LOG[1:]:  # one at a time, as at the table
        scorer.record(event)
    state = scorer.get("/state")["state"]
    piles = {p["name"]: p["cards"] for p in state["piles"]}
    assert piles == {
        "A": [],
        "B": ["3c"],
        "C": ["1o", "1c", "7o", "7c", "6c", "5e", "5o", "10c", "11b", "11o", "12o", "7e", "3o"],
        "D": [],
    }
    assert sorted(state["table"]) == ["2e", "4b"] and state["chain"] == {
        "rank": 4,
        "seats": [3],
        "call": None,
        "cards": ["4b"],
    }
    assert state["calls"] == [{"rank": 7, "seats": [0, 1, 2], "call": "recau"}]
    assert "hands" in state and all("cards" not in h for h in state["hands"])
    summary = scorer.get()
    assert summary["version"] == 17 and [s["total"] for s in summary["standings"]] == [0, 1, 1, 0]
    assert summary["end"] == {"over": False}
    audit = scorer.get("/audit")
    assert audit["firstDivergence"] is None and audit["chain"]["valid"] and audit["claims"]
    assert all(c["agrees"] for c in audit["claims"])
    first = audit["hands"][0]
    assert first["result"]["winners"] == [1, 2] and first["points"] == [8, 12, 12, 6]
    frames = scorer.get("/replay")["frames"]
    assert frames[16]["text"].startswith(
        "D plays 4 de bastos: C's Recau on the 7s takes 7-7-6-sota-rey and A's pile on 5 and D's pile on caballo"
    )
    assert "B pays 3" in frames[16]["text"]
    assert frames[14]["text"] == "B plays 7 de copas: Cau" and frames[15]["text"] == "C plays 7 de espadas: Recau"
    # a seat sees its own hand and nobody else's (shown with the token while in play; without it, only what is public)
    assert "10o" not in json.dumps(scorer.get("/state", seat=0)["state"])
    seat_view = scorer.read("/state", seat=0)["state"]
    assert sorted(seat_view["cards"]) == sorted(["7b", "1e", "2o", "4o", "6o", "10o"])
    assert "12c" not in json.dumps(seat_view)


def test_wrong_claim_is_found_at_its_hand(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    scorer.record(*LOG[1:3])
    scorer.record(ev("score_claimed", hand=1, points=[8, 12, 12, 6], totals=[0, 1, 0, 0]))  # C's win forgotten
    audit = scorer.get("/audit")
    first = audit["firstDivergence"]
    assert (first["hand"], first["field"], first["seat"], first["claimed"], first["computed"]) == (1, "totals", 2, 0, 1)
    assert "12 cards" in first["why"]


def test_refused_events_leave_the_log_unchanged(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    refused(
        scorer,
        ev("hand_started", dealer=0, table=["1o", "1c", "5e", "11b"], hands=LOG[4]["data"]["hands"]),
        422,
        "cau-robat.table_ranks",
    )
    scorer.record(*LOG[1:5])
    refused(scorer, ev("play", seat=1, card="6c"), 422, "common.not_your_turn")
    body = refused(scorer, ev("play", seat=0, card="8o"), 400, "schema.invalid")  # not a card of the Spanish deck
    assert body["path"] == "$.events[0].data.card"
    refused(scorer, ev("play", seat=0, card="6c"), 422, "common.card_unavailable")  # B's card
    refused(scorer, ev("play", seat=0, card="1o"), 422, "common.card_unavailable")  # on the table
    refused(
        scorer,
        ev("play", seat=0, card="5o", captures=[{"seat": 0, "cards": ["5e", "1o", "5o"]}]),
        422,
        "cau-robat.mismatch",
    )
    refused(scorer, ev("play", seat=0, card="5o", call=True), 422, "cau-robat.mismatch")
    refused(scorer, ev("play", seat=4, card="5o"), 422, "common.bad_seat")
    refused(scorer, ev("hand_started", dealer=0), 422, "common.hand_in_progress")
    scorer.record(ev("play", seat=0, card="5o", captures=[{"seat": 0, "cards": ["5e", "5o"]}]))
    # a whole batch is refused at its first bad event
    before = scorer.raw_log()
    response = scorer.post(ev("play", seat=1, card="6c"), ev("play", seat=2, card="5o"))
    assert response.status_code == 422 and response.get_json()["index"] == 1 and scorer.raw_log() == before


def test_result_only_hands_and_the_end_of_the_game(scorer: Scorer) -> None:
    scorer.start({"game": "cau-robat", "players": ["A", "B", "C"], "target": {"wins": 2}})
    scorer.record(ev("hand_started", dealer=0))
    refused(scorer, ev("hand_result", piles=[20, 10, 8], table=3), 422, "cau-robat.bad_result")
    scorer.record(ev("hand_result", piles=[20, 10, 8], table=2))
    refused(scorer, ev("hand_started", dealer=0), 422, "cau-robat.wrong_dealer")
    scorer.record(ev("hand_started", dealer=1), ev("hand_result", piles=[20, 12, 8], table=0))
    summary = scorer.get()
    assert summary["status"] == "over" and summary["end"]["winners"] == [0]
    refused(scorer, ev("hand_started", dealer=2), 422, "common.match_over")


def test_a_whole_game_recorded_move_by_move_audits_to_the_right_winners(scorer: Scorer) -> None:
    rng = random.Random(2024)
    players = ["Anna", "Bel", "Cesc", "Dora"]
    scorer.start({"game": "cau-robat", "players": players, "target": {"wins": 2}})
    wins = [0, 0, 0, 0]
    dealer = 3
    hand = 0
    expected_winners: list[list[int]] = []
    while max(wins) < 2:
        hand += 1
        table, hands = deal(rng, 4)
        plays, piles, _ = reference_hand(4, dealer, table, hands, rng)
        written = [h if s % 2 == 0 else ["??"] * 9 for s, h in enumerate(hands)]  # B's and D's hands unseen
        events = [ev("hand_started", dealer=dealer, table=table, hands=written)]
        events += [ev("play", seat=s, card=c) for s, c in plays]
        counts = [len(p) for p in piles]
        best = max(counts)
        winners = [s for s, c in enumerate(counts) if c == best]
        expected_winners.append(winners)
        wins = [w + (s in winners) for s, w in enumerate(wins)]
        events.append(ev("score_claimed", hand=hand, points=counts, totals=wins))
        scorer.record(*events)
        dealer = (dealer + 1) % 4
    audit = scorer.get("/audit")
    assert audit["firstDivergence"] is None and all(c["agrees"] for c in audit["claims"])
    assert [h["result"]["winners"] for h in audit["hands"]] == expected_winners
    assert audit["end"]["over"] and audit["end"]["winners"] == [s for s, w in enumerate(wins) if w >= 2]
    assert scorer.get()["status"] == "over"


def test_games_lists_cau_robat_with_its_options(client: Any) -> None:
    games = client.get("/games").get_json()["games"]
    cau = next(g for g in games if g["game"] == "cau-robat")
    assert cau["options"]["pileOrder"] == {**cau["options"]["pileOrder"], "default": "deterministic"}
    assert (
        len(cau["options"]) == 13
        and "correctionWindow" in cau["options"]
        and cau["options"]["confirmation"]["default"] == "none"
        and cau["target"] == {"wins": 3, "tie": "share"}
    )
    schema = client.get(cau["schemas"]["play"]).get_json()
    assert schema["$id"].endswith("cau-robat/play.v1.json")
    assert client.get("/games/cau-robat").get_json()["direction"] == "ACW"
