"""The fold written once: corrections (void, amend) and what the engine is shown."""

from __future__ import annotations

from typing import Any

import pytest

from engines.base import Event, RuleViolation, check_correction, corrections, effective_log, fold, voided_hands, voided_seqs


def log(*entries: tuple[str, dict[str, Any]]) -> list[Event]:
    return [Event(i + 1, t, d) for i, (t, d) in enumerate(entries)]


START = ("match_started", {"game": "x"})


def test_void_skips_its_target_and_a_voided_void_restores_it() -> None:
    events = log(START, ("lead", {"n": 1}), ("void", {"target": 2, "reason": "r"}), ("void", {"target": 3, "reason": "undo"}))
    assert voided_seqs(events) == {3}
    assert [e.seq for e in effective_log(events)] == [1, 2]
    assert voided_seqs(events[:3]) == {2}
    assert [e.seq for e in effective_log(events[:3])] == [1]


def test_voided_deal_takes_its_hand_up_to_the_void_or_the_next_deal() -> None:
    events = log(START, ("hand_started", {}), ("lead", {}), ("beat", {}), ("void", {"target": 2, "reason": "misdeal"}),
                 ("hand_started", {}), ("lead", {}))
    assert voided_seqs(events) == {2, 3, 4}
    assert [e.seq for e in effective_log(events)] == [1, 6, 7]
    # events after the void are read as they come (the engine refuses moves with no deal)
    after = log(START, ("hand_started", {}), ("void", {"target": 2, "reason": "misdeal"}), ("lead", {}))
    assert voided_seqs(after) == {2}


def test_latest_standing_amend_wins_and_notes_and_claims_never_reach_the_engine() -> None:
    events = log(START, ("hand_result", {"v": 1}), ("amend", {"target": 2, "data": {"v": 2}, "reason": "a"}),
                 ("amend", {"target": 2, "data": {"v": 3}, "reason": "b"}), ("void", {"target": 4, "reason": "no"}),
                 ("note", {"text": "hi"}), ("score_claimed", {"points": [1]}))
    assert [(e.seq, dict(e.data)) for e in effective_log(events)] == [(1, {"game": "x"}), (2, {"v": 2})]
    kept = effective_log(events, keep_neutral=True)
    assert [e.type for e in kept] == ["match_started", "hand_result", "note", "score_claimed"]
    assert [(c.seq, c.in_force) for c in corrections(events)] == [(3, True), (4, False), (5, True)]


@pytest.mark.parametrize("correction, code", [
    (("void", {"target": 9, "reason": "x"}), "common.bad_target"),
    (("void", {"target": 1, "reason": "x"}), "common.bad_target"),
    (("amend", {"target": 3, "data": {}, "reason": "x"}), "common.amend_type"),
    (("amend", {"target": 1, "data": {"game": "y"}, "reason": "x"}), "common.amend_game"),
])
def test_correction_targets_are_checked(correction: tuple[str, dict[str, Any]], code: str) -> None:
    events = log(START, ("lead", {}), ("note", {"text": "n"}), correction)
    with pytest.raises(RuleViolation) as refused:
        check_correction(events[:-1], events[-1])
    assert refused.value.code == code


def test_correction_targets_that_are_allowed() -> None:
    events = log(START, ("lead", {}), ("void", {"target": 2, "reason": "x"}))
    check_correction(events[:-1], events[-1])
    amend = log(START, ("lead", {}), ("amend", {"target": 1, "data": {"game": "x", "players": []}, "reason": "names"}))
    check_correction(amend[:-1], amend[-1])


class Counter:
    """A toy engine: counts moves, refuses a move named 'bad'."""

    GAME = "toy"

    @staticmethod
    def start(data: Any) -> int:
        return 0

    @staticmethod
    def apply(state: int, event: Event) -> int:
        if event.type == "bad":
            raise RuleViolation("toy.bad", "bad move")
        return state + 1


def test_fold_names_the_event_that_broke_and_skips_neutral_events() -> None:
    assert fold(Counter, log(START, ("a", {}), ("note", {}), ("score_claimed", {}), ("b", {}))) == 2  # type: ignore[arg-type]
    with pytest.raises(RuleViolation) as refused:
        fold(Counter, log(START, ("a", {}), ("bad", {})))  # type: ignore[arg-type]
    assert refused.value.event == 3
    with pytest.raises(RuleViolation) as again:
        fold(Counter, log(START, ("match_started", {})))  # type: ignore[arg-type]
    assert again.value.code == "common.already_started"


def test_voided_deal_keeps_the_notes_claims_and_outside_reveals_recorded_while_it_was_open() -> None:
    events = log(START, ("hand_started", {}), ("hand_result", {}),
                 ("hand_started", {}), ("lead", {}), ("score_claimed", {"hand": 1, "points": [2, 0]}),
                 ("note", {"text": "Dora misdealt"}), ("reveal", {"cards": [{"seq": 3, "index": 0, "card": "6D"}]}),
                 ("reveal", {"cards": [{"seat": 1, "card": "7D"}]}), ("score_claimed", {"hand": 2, "points": [0, 2]}),
                 ("void", {"target": 4, "reason": "misdeal"}), ("hand_started", {}))
    # the deal, its move and the reveal of one of its seats go; the claims, the note and the reveal of hand 1's card stay
    assert voided_seqs(events) == {4, 5, 9}
    kept = effective_log(events, keep_neutral=True)
    assert [e.seq for e in kept] == [1, 2, 3, 6, 7, 8, 10, 12]
    assert [e.seq for e in effective_log(events)] == [1, 2, 3, 8, 12]
    (hand,) = voided_hands(events)
    assert (hand.seq, hand.void, hand.until, hand.number) == (4, 11, 11, 2)


def test_a_voided_void_of_a_deal_restores_the_whole_hand() -> None:
    events = log(START, ("hand_started", {}), ("lead", {}), ("void", {"target": 2, "reason": "misdeal"}),
                 ("void", {"target": 4, "reason": "it was dealt right"}))
    assert voided_seqs(events) == {4}
    assert voided_hands(events) == []


def test_voided_hands_are_numbered_as_they_were_while_open() -> None:
    events = log(START, ("hand_started", {}), ("void", {"target": 2, "reason": "misdeal"}), ("hand_started", {}),
                 ("hand_result", {}), ("hand_started", {}), ("void", {"target": 6, "reason": "misdeal"}))
    assert [(h.seq, h.number) for h in voided_hands(events)] == [(2, 1), (6, 2)]
