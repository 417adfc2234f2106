"""El Roby through the HTTP API, as a scorer at the table would record it.

* VOCABULARY.md §7's el-roby log (docs/RULES.md §4.8 R1, result only, with Bea's re-buy and the
  next hand): scores, the re-buy, stakes, the pot won, and the money check +54, −32, −10,
  −12 (sum 0) — every ``score_claimed`` agrees in the audit.
* A wrong claim is reported at the right hand, seat and field.
* A hand recorded move by move, with refused events (each a 422 with its rule code, the
  log unchanged): a discard that fits another player's run, a meld on the first round, a
  lay-off before melding, a re-buy when only one player remains …
"""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import Scorer
from tests.api.el_roby_deals import DEAL, START

# VOCABULARY.md §7, el-roby, verbatim.
R1_LOG = """\
{"type":"match_started","data":{"game":"el-roby","players":["Ana","Bea","Carlos","Dani"],"options":{"entry":10,"stake":2},"initial":{"scores":[40,70,75,97]}}}
{"type":"hand_started","data":{"dealer":3}}
{"type":"hand_result","data":{"out":0,"hands":[[],["AS","KH","7D","7C"],["5H","6H","7H","QS"],["2C"]]}}
{"type":"rebuy","data":{"seat":1}}
{"type":"score_claimed","data":{"hand":1,"points":[0,35,28,2],"totals":[40,99,null,99],"money":[-6,-32,-10,-12],"pot":60}}
{"type":"hand_started","data":{"dealer":0}}
{"type":"hand_result","data":{"out":0,"hands":[[],["3S"],null,["2H","3H"]]}}
{"type":"score_claimed","data":{"hand":2,"points":[0,3,null,5],"totals":[40,102,null,104],"money":[54,-32,-10,-12],"pot":0,"winners":[0]}}
"""
LOG = [json.loads(line) for line in R1_LOG.splitlines()]


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def refused(scorer: Scorer, event: dict[str, Any], code: str) -> dict[str, Any]:
    """Post an event that must be refused with ``code``; the log must not change."""
    before = scorer.raw_log()
    response = scorer.post(event)
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["code"] == code, body
    assert scorer.raw_log() == before
    return body


def test_r1_log_passes_with_the_money_check(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    for event in LOG[1:]:
        scorer.record(event)
    summary = scorer.get()
    assert summary["status"] == "over" and summary["version"] == 8
    assert summary["end"]["over"] is True and summary["end"]["winners"] == [0]
    standings = summary["standings"]
    assert [s["money"] for s in standings] == [54, -32, -10, -12]
    assert sum(s["money"] for s in standings) == 0 and standings[0]["pot"] == 0
    assert [s["status"] for s in standings] == ["winner", "out", "out", "out"]
    assert [s["total"] for s in standings] == [40, 102, 103, 104]
    # the ledger explains every unit: entry, re-buy, stakes, the pot
    ana = [(e["hand"], e["money"]) for e in standings[0]["ledger"]]
    assert ana == [(None, -10), (1, 4), (2, 60)]
    bea = [(e["hand"], e["money"]) for e in standings[1]["ledger"]]
    assert bea == [(None, -10), (1, -20), (1, -2)]

    audit = scorer.get("/audit")
    assert audit["firstDivergence"] is None
    assert audit["claims"] and all(c["agrees"] is True for c in audit["claims"])
    fields = {(c["hand"], c["field"]) for c in audit["claims"]}
    assert {(1, "money"), (1, "pot"), (2, "money"), (2, "pot"), (2, "winners"), (1, "totals")} <= fields
    hand1, hand2 = audit["hands"]
    assert hand1["result"]["price"] == 20 and hand1["result"]["reentry"] == 99
    assert hand1["result"]["rebuys"] == [1] and hand1["result"]["eliminated"] == [2]
    assert hand1["result"]["stakes"] == [4, -2, 0, -2]
    assert hand2["result"]["price"] is None and hand2["result"]["stakes"] == [0, 0, 0, 0]
    assert all(
        line["rule"].startswith("/rules/el-roby#") and line["reason"] for h in audit["hands"] for line in h["lines"]
    )
    for h in audit["hands"]:
        for seat in range(4):
            pts = sum(line["points"] for line in h["lines"] if line["seat"] == seat)
            if h["points"][seat] is not None:
                assert pts >= h["points"][seat] - 6  # points, plus Bea's re-entry (105 → 99)
    assert any("takes the pot of 60" in line["reason"] for line in hand2["lines"])

    # the match is over: no new hand, no re-buy (only Ana is left at 99 or less)
    refused(scorer, ev("hand_started", dealer=1), "common.match_over")
    refused(scorer, ev("rebuy", seat=3), "el-roby.rebuy_closed")


def test_a_wrong_money_claim_is_reported_at_its_hand(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    scorer.record(*LOG[1:4])
    scorer.record(ev("score_claimed", hand=1, points=[0, 35, 28, 2], money=[-6, -30, -10, -12], pot=60))
    audit = scorer.get("/audit")
    first = audit["firstDivergence"]
    assert (first["hand"], first["field"], first["seat"], first["claimed"], first["computed"]) == (
        1,
        "money",
        1,
        -30,
        -32,
    )
    assert "re-buys" in first["why"] and "stake" in first["why"]


def test_refused_events_leave_the_log_unchanged(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    scorer.record(LOG[1], LOG[2])
    refused(scorer, ev("rebuy", seat=3), "el-roby.not_busted")  # Dani is at 99: still in
    refused(scorer, ev("hand_started", dealer=1), "el-roby.wrong_dealer")  # Dani dealt: Ana deals next
    refused(scorer, ev("draw", seat=0, **{"from": "stock"}), "common.no_deal")
    scorer.record(LOG[3])
    refused(scorer, ev("rebuy", seat=1), "el-roby.rebuy_twice")
    bad = scorer.post(ev("rebuy", seat=9))
    assert bad.status_code == 400  # the schema: seats are 0-7


# A hand recorded move by move (four players, nobody carried in): Ana (seat 0) deals, so Bea
# plays first. Bea melds on her second turn; Carlos then may not discard a card that fits.


def test_a_hand_move_by_move_with_refusals(scorer: Scorer) -> None:
    scorer.start(START)
    scorer.record(ev("hand_started", dealer=0, hands=DEAL, discard="10H"))
    refused(scorer, ev("draw", seat=2, **{"from": "stock"}), "common.not_your_turn")
    refused(scorer, ev("meld", seat=1, id=1, cards=["4H", "5H", "6H"]), "el-roby.draw_first")
    scorer.record(ev("draw", seat=1, **{"from": "stock", "card": "9C"}))
    # first round: melding only to go out at once
    refused(scorer, ev("meld", seat=1, id=1, cards=["4H", "5H", "6H"]), "el-roby.first_round")
    scorer.record(ev("discard", seat=1, card="KC"))
    scorer.record(ev("draw", seat=2, **{"from": "stock", "card": "5S"}), ev("discard", seat=2, card="AS"))
    scorer.record(ev("draw", seat=3, **{"from": "stock", "card": "QS"}), ev("discard", seat=3, card="QS"))
    scorer.record(ev("draw", seat=0, **{"from": "discard", "card": "QS"}), ev("discard", seat=0, card="KS"))
    # Bea's second turn: the first round is over
    scorer.record(ev("draw", seat=1, **{"from": "stock", "card": "2D"}))
    refused(scorer, ev("meld", seat=1, id=2, cards=["4H", "5H", "6H"]), "el-roby.mismatch")  # meld id 1
    refused(scorer, ev("meld", seat=1, id=1, cards=["4H", "5H", "8C"]), "el-roby.bad_meld")
    scorer.record(
        ev("meld", seat=1, id=1, cards=["4H", "5H", "6H"]), ev("meld", seat=1, id=2, cards=["8C", "8D", "8S"])
    )
    scorer.record(ev("discard", seat=1, card="QH"))
    # Carlos: 7♥ fits Bea's run 4♥ 5♥ 6♥, and he has no meld to lay it off on
    scorer.record(ev("draw", seat=2, **{"from": "stock", "card": "KH"}))
    refused(scorer, ev("discard", seat=2, card="7H"), "el-roby.discard_fits")
    refused(scorer, ev("lay_off", seat=2, meld=1, cards=["7H"]), "el-roby.needs_meld")
    scorer.record(ev("discard", seat=2, card="KH"))
    # Dani takes Carlos's discard: the 11-card Roby needs a stock draw
    scorer.record(ev("draw", seat=3, **{"from": "discard", "card": "KH"}))
    refused(scorer, ev("lay_off", seat=3, meld=2, cards=["8H"]), "el-roby.eleven_card_source")
    state = scorer.get("/state", seat=3)["state"]
    assert state["turn"] == 3 and len(state["cards"]) == 11 and state["hands"][3]["shown"] == ["KH"]
    public = scorer.get("/state")["state"]
    assert "cards" not in public and [m["cards"] for m in public["melds"]] == [["4H", "5H", "6H"], ["8C", "8D", "8S"]]
    audit = scorer.get("/audit")
    assert audit["hands"][0]["status"] == "playing"


def test_games_lists_el_roby_with_its_options_and_schemas(client: Any) -> None:
    games = {g["game"]: g for g in client.get("/games").get_json()["games"]}
    roby = games["el-roby"]
    assert roby["options"]["limitCheck"]["default"] == "afterDiscard" and roby["options"]["stake"]["default"] == 0
    assert roby["players"]["min"] == 4 and roby["target"] == {"limit": 99}
    assert set(roby["schemas"]) >= {
        "draw",
        "meld",
        "lay_off",
        "discard",
        "showdown",
        "rebuy",
        "hand_result",
        "score_claimed",
    }
    assert client.get(roby["schemas"]["lay_off"]).get_json()["$id"].endswith("el-roby/lay_off.v1.json")
    assert client.get("/games/el-roby").get_json()["name"] == "El Roby"
