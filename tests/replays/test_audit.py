"""The audit's comparison of claims with computed scores, on hand-made score sheets."""

from __future__ import annotations

from typing import Any

from engines.base import Event, Step, walk
from replays.audit import audit
from tests.replays.logs import kabu_log_with_a_misdeal

CHAIN = {"valid": True, "length": 9, "head": "h", "firstBad": None, "reason": None}


def sheet(**end: Any) -> dict[str, Any]:
    return {
        "hands": [
            {
                "hand": 1,
                "status": "scored",
                "points": [0, 2],
                "totals": [0, 2],
                "result": {"cardPoints": [72, 48]},
                "lines": [
                    {"team": 1, "points": 2, "reason": "EW took 48 (31-59): 2", "rule": "/rules/la-cabra#scoring-deal"}
                ],
            },
            {
                "hand": 2,
                "status": "incomplete",
                "points": None,
                "totals": [0, 2],
                "missing": [{"seq": 9, "index": 0}],
                "result": {},
                "lines": [],
            },
        ],
        "standings": [{"team": 0, "total": 0}, {"team": 1, "total": 2}],
        "end": end or {"over": False},
    }


def claims(*data: dict[str, Any]) -> list[Event]:
    return [Event(1, "match_started", {})] + [Event(i + 2, "score_claimed", d) for i, d in enumerate(data)]


class Nothing:
    """An engine with no game: the audit reads only the claims and corrections of the walk."""

    @staticmethod
    def start(data: Any) -> str:
        return "started"


def walked(events: list[Event]) -> list[Step]:
    return list(walk(Nothing, events))  # type: ignore[arg-type]


def test_agreeing_and_diverging_values_per_team() -> None:
    report = audit(sheet(), walked(claims({"hand": 1, "points": [0, 2], "cardPoints": [70, 50]})), CHAIN)
    assert [(c["field"], c["team"], c["agrees"]) for c in report["claims"]] == [
        ("points", 0, True),
        ("points", 1, True),
        ("cardPoints", 0, False),
        ("cardPoints", 1, False),
    ]
    first = report["firstDivergence"]
    assert (first["hand"], first["field"], first["team"], first["claimed"], first["computed"]) == (
        1,
        "cardPoints",
        0,
        70,
        72,
    )
    assert "70" in first["why"] and "72" in first["why"]


def test_undecidable_values_are_null_and_never_a_divergence() -> None:
    report = audit(sheet(), walked(claims({"hand": 2, "points": [4, 0]})), CHAIN)
    assert [c["agrees"] for c in report["claims"]] == [None, None]
    assert report["firstDivergence"] is None
    assert "incomplete" in report["claims"][0]["why"]


def test_unwritten_values_are_skipped_and_a_missing_hand_diverges() -> None:
    report = audit(sheet(), walked(claims({"hand": 1, "points": [None, 2]}, {"hand": 7, "totals": [0, 4]})), CHAIN)
    assert [(c["hand"], c["agrees"]) for c in report["claims"]] == [(1, True), (7, False), (7, False)]
    assert "does not exist" in report["firstDivergence"]["why"]


def test_match_claims_compare_standings_and_winners() -> None:
    report = audit(sheet(over=True, winners=[0]), walked(claims({"totals": [0, 2], "winners": [1]})), CHAIN)
    assert [(c["field"], c["agrees"]) for c in report["claims"]] == [
        ("totals", True),
        ("totals", True),
        ("winners", False),
    ]


def test_voided_claims_are_not_compared_and_amended_ones_use_the_new_data() -> None:
    events = claims({"hand": 1, "points": [0, 4]}, {"hand": 1, "points": [9, 9]})
    events += [
        Event(4, "void", {"target": 3, "reason": "wrong hand"}),
        Event(5, "amend", {"target": 2, "data": {"hand": 1, "points": [0, 2]}, "reason": "typo"}),
    ]
    report = audit(sheet(), walked(events), CHAIN)
    assert [c["claimed"] for c in report["claims"]] == [0, 2]
    assert report["firstDivergence"] is None
    assert [(c["seq"], c["inForce"]) for c in report["corrections"]] == [(4, True), (5, True)]


# --------------------------------------------------------------------------- a voided hand (VOCABULARY.md §4 void)


def test_voiding_a_hand_keeps_claims_about_other_hands_and_orphans_the_ones_about_it() -> None:
    from engines import kabu

    events = kabu_log_with_a_misdeal()
    steps = list(walk(kabu, events))  # type: ignore[arg-type]
    report = audit(kabu.score(steps[-1].state), steps, CHAIN)
    assert sorted({c["claimSeq"] for c in report["claims"]}) == [7, 14]  # the corrected claim for hand 1 is compared
    assert all(c["agrees"] for c in report["claims"]) and report["firstDivergence"] is None
    (orphan,) = report["orphaned"]
    assert (orphan["claimSeq"], orphan["hand"], orphan["handSeq"], orphan["voidSeq"]) == (9, 2, 5, 10)
    assert orphan["claimed"] == {"points": [1, 1, 1, -3]}
    assert orphan["why"] == (
        "hand 2 (dealt at entry 5) was voided at entry 10 (misdeal): "
        "what the table wrote for it has no hand to be compared with"
    )
    assert steps[7].status == "note"  # the note stays
    assert [h["hand"] for h in report["hands"]] == [1, 2]
