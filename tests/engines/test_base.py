"""The one walk of the log: corrections (void, amend), statuses, and what the engine is shown."""

from __future__ import annotations

from typing import Any

import pytest

from engines.base import (
    Event,
    RuleViolation,
    Step,
    check_correction,
    corrections,
    events_from,
    replay,
    voided_hands,
    voided_seqs,
    walk,
)


class Moves:
    """A toy engine whose state is the tuple of (seq, data) it was shown: what the walk fed it."""

    GAME = "moves"

    @staticmethod
    def start(data: Any) -> tuple[Any, ...]:
        return ((1, dict(data)),)

    @staticmethod
    def apply(state: tuple[Any, ...], event: Event) -> tuple[Any, ...]:
        if event.type == "bad":
            raise RuleViolation("toy.bad", "bad move")
        return (*state, (event.seq, dict(event.data)))


def steps(events: list[Event], course: str = "corrected", **resume: Any) -> list[Step]:
    return list(walk(Moves, events, course, **resume))  # type: ignore[arg-type]


def shown(state: tuple[Any, ...]) -> list[int]:
    return [seq for seq, _ in state]


def log(*entries: tuple[str, dict[str, Any]]) -> list[Event]:
    return [Event(i + 1, t, d) for i, (t, d) in enumerate(entries)]


START = ("match_started", {"game": "x"})


def test_void_skips_its_target_and_a_voided_void_restores_it() -> None:
    events = log(
        START, ("lead", {"n": 1}), ("void", {"target": 2, "reason": "r"}), ("void", {"target": 3, "reason": "undo"})
    )
    assert voided_seqs(events) == {3}
    assert [s.status for s in steps(events)] == ["played", "played", "voided", "correction"]
    assert shown(replay(Moves, events)) == [1, 2]  # type: ignore[arg-type]
    assert voided_seqs(events[:3]) == {2}
    assert [s.status for s in steps(events[:3])] == ["played", "voided", "correction"]
    assert shown(replay(Moves, events[:3])) == [1]  # type: ignore[arg-type]


def test_voided_deal_takes_its_hand_up_to_the_void_or_the_next_deal() -> None:
    events = log(
        START,
        ("hand_started", {}),
        ("lead", {}),
        ("beat", {}),
        ("void", {"target": 2, "reason": "misdeal"}),
        ("hand_started", {}),
        ("lead", {}),
    )
    assert voided_seqs(events) == {2, 3, 4}
    walked = steps(events)
    assert [s.status for s in walked] == ["played", "voided", "voided", "voided", "correction", "played", "played"]
    assert [shown(s.state) for s in walked] == [[1], [1], [1], [1], [1], [1, 6], [1, 6, 7]]
    # events after the void are read as they come (the engine refuses moves with no deal)
    after = log(START, ("hand_started", {}), ("void", {"target": 2, "reason": "misdeal"}), ("lead", {}))
    assert voided_seqs(after) == {2}


def test_latest_standing_amend_wins_and_notes_and_claims_never_reach_the_engine() -> None:
    events = log(
        START,
        ("hand_result", {"v": 1}),
        ("amend", {"target": 2, "data": {"v": 2}, "reason": "a"}),
        ("amend", {"target": 2, "data": {"v": 3}, "reason": "b"}),
        ("void", {"target": 4, "reason": "no"}),
        ("note", {"text": "hi"}),
        ("score_claimed", {"points": [1]}),
    )
    walked = steps(events)
    assert replay(Moves, events) == ((1, {"game": "x"}), (2, {"v": 2}))  # type: ignore[arg-type]
    assert [s.status for s in walked] == ["played", "amended", "correction", "voided", "correction", "note", "claim"]
    assert walked[1].read.data == {"v": 2} and walked[1].event.data == {"v": 1}  # the stored event is kept
    assert [(c.seq, c.in_force) for c in corrections(walked)] == [(3, True), (4, False), (5, True)]


@pytest.mark.parametrize(
    "correction, code",
    [
        (("void", {"target": 9, "reason": "x"}), "common.bad_target"),
        (("void", {"target": 1, "reason": "x"}), "common.bad_target"),
        (("amend", {"target": 3, "data": {}, "reason": "x"}), "common.amend_type"),
        (("amend", {"target": 1, "data": {"game": "y"}, "reason": "x"}), "common.amend_game"),
    ],
)
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


def test_replay_names_the_event_that_broke_and_skips_neutral_events() -> None:
    assert replay(Counter, log(START, ("a", {}), ("note", {}), ("score_claimed", {}), ("b", {}))) == 2  # type: ignore[arg-type]
    with pytest.raises(RuleViolation) as refused:
        replay(Counter, log(START, ("a", {}), ("bad", {})))  # type: ignore[arg-type]
    assert refused.value.event == 3
    with pytest.raises(RuleViolation) as again:
        replay(Counter, log(START, ("match_started", {})))  # type: ignore[arg-type]
    assert again.value.code == "common.already_started"
    with pytest.raises(RuleViolation) as unopened:
        replay(Counter, log(("a", {}), START))  # type: ignore[arg-type]
    assert unopened.value.code == "common.no_match"


def test_an_amended_claim_is_read_with_its_new_data_and_a_voided_one_is_voided() -> None:
    events = log(
        START,
        ("score_claimed", {"points": [1]}),
        ("score_claimed", {"points": [2]}),
        ("amend", {"target": 2, "data": {"points": [3]}, "reason": "typo"}),
        ("void", {"target": 3, "reason": "x"}),
    )
    walked = steps(events)
    assert [(s.status, dict(s.read.data)) for s in walked[1:3]] == [
        ("claim", {"points": [3]}),
        ("voided", {"points": [2]}),
    ]
    assert all(s.state == walked[0].state for s in walked)  # claims and corrections never move the game


def test_voiding_an_amend_restores_the_stored_data() -> None:
    events = log(
        START,
        ("lead", {"c": "7H"}),
        ("amend", {"target": 2, "data": {"c": "8H"}, "reason": "a"}),
        ("void", {"target": 3, "reason": "it was 7H"}),
    )
    walked = steps(events)
    assert [s.status for s in walked] == ["played", "played", "voided", "correction"]
    assert walked[-1].state == ((1, {"game": "x"}), (2, {"c": "7H"}))


def test_the_recorded_course_counts_a_move_until_its_void_arrives() -> None:
    events = log(
        START,
        ("lead", {"c": 1}),
        ("beat", {"c": 2}),
        ("note", {"text": "hm"}),
        ("void", {"target": 3, "reason": "no beat"}),
        ("beat", {"c": 3}),
        ("amend", {"target": 2, "data": {"c": 9}, "reason": "it was 9"}),
    )
    recorded = steps(events, "recorded")
    assert [s.status for s in recorded] == ["played", "played", "played", "note", "correction", "played", "correction"]
    assert [shown(s.state) for s in recorded] == [[1], [1, 2], [1, 2, 3], [1, 2, 3], [1, 2], [1, 2, 6], [1, 2, 6]]
    assert recorded[-1].state[1] == (2, {"c": 9})
    assert all(s.read is s.event for s in recorded)  # the recorded course shows events as stored
    corrected = steps(events)
    assert [s.status for s in corrected] == [
        "played",
        "amended",
        "voided",
        "note",
        "correction",
        "played",
        "correction",
    ]
    assert recorded[-1].state == corrected[-1].state == replay(Moves, events)  # type: ignore[arg-type]


def test_a_resumed_recorded_walk_goes_on_from_the_given_state() -> None:
    events = log(START, ("lead", {}), ("beat", {}), ("void", {"target": 3, "reason": "r"}), ("beat", {}))
    whole = steps(events, "recorded")
    later = steps(events[2:3], "recorded", after=2, state=whole[1].state)  # no correction: the tail is enough
    assert [(s.event.seq, s.state) for s in later] == [(3, whole[2].state)]
    resumed = steps(events, "recorded", after=2, state=whole[1].state)  # a correction reads the log from event 1
    assert [(s.event.seq, s.state) for s in resumed] == [(s.event.seq, s.state) for s in whole[2:]]
    with pytest.raises(ValueError):
        steps(events[2:], "recorded", after=2, state=whole[1].state)
    with pytest.raises(ValueError):
        steps(events, after=2, state=whole[1].state)


def test_a_walk_is_lazy_and_names_the_refused_event() -> None:
    walked = walk(Moves, log(START, ("lead", {}), ("bad", {})))  # type: ignore[arg-type]
    assert [s.status for s in (next(walked), next(walked))] == ["played", "played"]
    with pytest.raises(RuleViolation) as refused:
        next(walked)
    assert refused.value.event == 3


def test_stored_rows_become_events_with_their_seq_type_and_data() -> None:
    class Row:
        def __init__(self, seq: int, type_: str, data: dict[str, Any]) -> None:
            self.seq, self.type, self.data, self.hash = seq, type_, data, "h"

    assert events_from([Row(1, "match_started", {"game": "x"}), Row(2, "lead", {})]) == log(START, ("lead", {}))


def test_voided_deal_keeps_the_notes_claims_and_outside_reveals_recorded_while_it_was_open() -> None:
    events = log(
        START,
        ("hand_started", {}),
        ("hand_result", {}),
        ("hand_started", {}),
        ("lead", {}),
        ("score_claimed", {"hand": 1, "points": [2, 0]}),
        ("note", {"text": "Dora misdealt"}),
        ("reveal", {"cards": [{"seq": 3, "index": 0, "card": "6D"}]}),
        ("reveal", {"cards": [{"seat": 1, "card": "7D"}]}),
        ("score_claimed", {"hand": 2, "points": [0, 2]}),
        ("void", {"target": 4, "reason": "misdeal"}),
        ("hand_started", {}),
    )
    # the deal, its move and the reveal of one of its seats go; the claims, the note and the reveal of hand 1's card stay
    assert voided_seqs(events) == {4, 5, 9}
    walked = steps(events)
    assert [s.status for s in walked] == [
        "played",
        "played",
        "played",
        "voided",
        "voided",
        "claim",
        "note",
        "played",
        "voided",
        "claim",
        "correction",
        "played",
    ]
    assert shown(walked[-1].state) == [1, 2, 3, 8, 12]
    (hand,) = voided_hands(walked)
    assert (hand.seq, hand.void, hand.until, hand.number) == (4, 11, 11, 2)


def test_a_voided_void_of_a_deal_restores_the_whole_hand() -> None:
    events = log(
        START,
        ("hand_started", {}),
        ("lead", {}),
        ("void", {"target": 2, "reason": "misdeal"}),
        ("void", {"target": 4, "reason": "it was dealt right"}),
    )
    assert voided_seqs(events) == {4}
    assert voided_hands(steps(events)) == []


def test_voided_hands_are_numbered_as_they_were_while_open() -> None:
    events = log(
        START,
        ("hand_started", {}),
        ("void", {"target": 2, "reason": "misdeal"}),
        ("hand_started", {}),
        ("hand_result", {}),
        ("hand_started", {}),
        ("void", {"target": 6, "reason": "misdeal"}),
    )
    assert [(h.seq, h.number) for h in voided_hands(steps(events))] == [(2, 1), (6, 2)]
