"""Voiding a hand through HTTP voids its moves and results only (VOCABULARY.md §4 ``void``).

A claim for another hand and a note written while the misdealt hand was open keep their
effect; a claim about the misdealt hand is listed by the audit as orphaned.
"""

from __future__ import annotations

from tests.conftest import Scorer
from tests.replays.logs import kabu_log_with_a_misdeal


def test_voiding_a_hand_keeps_other_claims_and_notes_and_orphans_its_own_claims(scorer: Scorer) -> None:
    start, *rest = kabu_log_with_a_misdeal()
    scorer.start(dict(start.data))
    for event in rest:  # one request per event, as a scorer at the table sends them
        scorer.record({"type": event.type, "data": dict(event.data)})
    report = scorer.get("/audit")
    assert sorted({c["claimSeq"] for c in report["claims"]}) == [7, 14]
    assert all(c["agrees"] for c in report["claims"]) and report["firstDivergence"] is None
    assert [(o["claimSeq"], o["hand"], o["voidSeq"]) for o in report["orphaned"]] == [(9, 2, 10)]
    assert "hand 2 (dealt at entry 5) was voided at entry 10 (misdeal)" in report["orphaned"][0]["why"]
    status = {f["seq"]: f["status"] for f in scorer.get("/replay")["frames"]}
    assert (status[5], status[6]) == ("voided", "voided")  # the deal and its move
    assert (status[7], status[8], status[9]) == ("claim", "note", "claim")  # written while it was open: they stay
    assert [s["total"] for s in scorer.get()["standings"]] == [83, 75, 47, 75]
