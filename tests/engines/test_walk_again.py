"""A walk taken over from an earlier walk (engines.base.walk_again) is the walk made anew.

In all five games, over random playouts: a log read again after more events takes over the
earlier walk's steps (the very objects) and equals a walk from event 1; a log whose event
differs from the earlier one takes over only the steps before it; a correction after the
shared events, in the new log or in the old, sends it back to event 1.
"""

from __future__ import annotations

import pytest
from tests.engines.playouts import play

from engines import ENGINES
from engines.base import Event, Step, walk, walk_again


def note(seq: int, text: str) -> Event:
    return Event(seq, "note", {"text": text})


def same(got: list[Step], made: list[Step]) -> None:
    """The same steps: events, reads and statuses, and each state equal to the one made anew."""
    assert [(s.event, s.read, s.status) for s in got] == [(s.event, s.read, s.status) for s in made]
    assert [s.state for s in got] == [s.state for s in made]


@pytest.mark.parametrize("game", sorted(ENGINES))
@pytest.mark.parametrize("seed", range(2))
def test_a_longer_log_takes_over_the_walk_of_its_start(game: str, seed: int) -> None:
    engine = ENGINES[game]
    events, _ = play(game, seed)
    n = len(events)
    for cut in sorted({1, 2, n // 3, n // 2, n - 1}):
        before = list(walk(engine, events[:cut]))
        for end in sorted({cut, cut + 1, (cut + n) // 2, n}):
            got = list(walk_again(engine, events[:end], before))
            same(got, list(walk(engine, events[:end])))
            assert got[cut - 1] is before[cut - 1]  # taken over, not walked again


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_an_event_that_differs_is_walked_from_there(game: str) -> None:
    engine = ENGINES[game]
    events, _ = play(game, 0)
    cut = len(events) // 2
    before = list(walk(engine, [*events[:cut], note(cut + 1, "as first written")]))
    log = [*events[:cut], note(cut + 1, "as read now")]
    got = list(walk_again(engine, log, before))
    same(got, list(walk(engine, log)))
    assert got[cut - 1] is before[cut - 1] and got[cut] is not before[cut]
    assert got[cut].event.data["text"] == "as read now"


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_correction_after_the_shared_events_walks_from_event_1(game: str) -> None:
    engine = ENGINES[game]
    events, _ = play(game, 1)
    cut = len(events) // 2
    void = Event(cut + 1, "void", {"target": cut, "reason": "written too soon"})
    before = list(walk(engine, events[:cut]))
    log = [*events[:cut], void]
    got = list(walk_again(engine, log, before))  # new in the log read now
    same(got, list(walk(engine, log)))
    assert got[0] is not before[0]
    assert got[cut - 1].status == "voided"

    earlier = list(walk(engine, log))  # in the earlier log, and gone from the one read now
    replaced = [*events[:cut], note(cut + 1, "no void after all")]
    got = list(walk_again(engine, replaced, earlier))
    same(got, list(walk(engine, replaced)))
    assert got[0] is not earlier[0] and got[cut - 1].status == "played"


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_correction_among_the_shared_events_is_taken_over(game: str) -> None:
    engine = ENGINES[game]
    events, _ = play(game, 1)
    cut = len(events) // 2
    log = [*events[:cut], Event(cut + 1, "void", {"target": cut, "reason": "written too soon"})]
    before = list(walk(engine, log))
    longer = [*log, note(cut + 2, "after the void")]
    got = list(walk_again(engine, longer, before))
    same(got, list(walk(engine, longer)))
    assert got[cut] is before[cut] and got[cut - 1].status == "voided"


def test_nothing_to_take_over_is_a_walk_from_event_1() -> None:
    engine = ENGINES["la-cabra"]
    events, _ = play("la-cabra", 0)
    same(list(walk_again(engine, events, [])), list(walk(engine, events)))
    assert list(walk_again(engine, [], list(walk(engine, events)))) == []
