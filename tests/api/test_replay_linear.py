"""A replay costs the same per frame whatever the number of earlier hands (no O(hands) step).

``GET /replay`` walks the log once (``replays.steps.frames``: the fold and each move in
words), renders each frame's view (``frames_json``) and numbers hands and moves
(``replays.addressing.positions``). None of these may walk or copy the earlier hands for each
frame: a 5,000-event match must cost ten times a 500-event one, not a hundred.

The work is counted, never timed: Python lines executed (``sys.settrace``), as
tests/engines/test_linear_folds.py counts the fold alone.

* For every game, a real playout is cut before its last deal and its state padded with ``M``
  or ``2M`` earlier hands (the same padding as the fold test): the frames of that last hand,
  rendered for the public and for the scorer, must cost the same (within 10%).
* For La Cabra, the long series of the bench (result-only 60-60 deals and table notes, the
  only legal way to make a match of thousands of events): the whole replay of ``2N``
  events costs at most 2.2 times the replay of ``N``.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from tests.engines.linear import cut, lines_executed, padded

from replays.addressing import positions
from engines import ENGINES, Engine
from engines.base import CORRECTIONS, Event
from replays.steps import frames, frames_json

M = 2000


def lines_of(run: Callable[[], Any]) -> int:
    """Python lines executed by ``run()``: the fold tests' counter, given one step to run it in."""
    return lines_executed(lambda _event: run(), [Event(1, "note", {})])


def render(engine: Engine, events: list[Event], *, after: int = 0, state: Any = None) -> None:
    """What ``GET /replay`` does with a log: one walk, the views for the public and the scorer, the positions."""
    steps = frames(engine, events, "recorded", after=after, state=state) if after else frames(engine, events)
    views: dict[int, Any] = {}
    frames_json(engine, steps, None, before=state, views=views)
    frames_json(engine, steps, "all", before=state)
    positions(engine, steps, hands_before=0, views=views)


def tail_cost(game: str, extra: int) -> int:
    """Lines executed rendering the last hand of a playout after ``extra`` more earlier hands."""
    base, events = cut(game)
    assert not any(e.type in CORRECTIONS for e in events), "the cut hand must replay from the padded state alone"
    state = padded(base, extra)
    after = events[0].seq - 1
    return lines_of(lambda: render(ENGINES[game], events, after=after, state=state))


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_frames_of_a_hand_cost_the_same_after_m_or_2m_earlier_hands(game: str) -> None:
    once, twice = tail_cost(game, M), tail_cost(game, 2 * M)
    assert twice <= 1.1 * once, f"lines: {once} with {M} earlier hands, {twice} with {2 * M}"


def series(length: int) -> list[Event]:
    """A La Cabra series of result-only 60-60 deals (which never end it) with a note every seventh event."""
    log = [Event(1, "match_started", {"game": "la-cabra", "players": ["North", "East", "South", "West"]})]
    dealer = 3
    while len(log) < length:
        seq = len(log) + 1
        if len(log) % 7 == 0:
            log.append(Event(seq, "note", {"text": f"table talk {seq}"}))
            continue
        log.append(Event(seq, "hand_started", {"dealer": dealer}))
        log.append(Event(seq + 1, "hand_result", {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": dealer}))
        dealer = (dealer + 1) % 4
    return log[:length]


def test_a_la_cabra_replay_of_twice_the_events_costs_at_most_twice_as_much() -> None:
    engine = ENGINES["la-cabra"]
    short, long = series(600), series(1200)
    assert engine.view(frames(engine, long)[-1].state, None)["hand"] > 300  # hundreds of earlier hands
    once = lines_of(lambda: render(engine, short))
    twice = lines_of(lambda: render(engine, long))
    assert twice <= 2.2 * once, f"lines: {once} for {len(short)} events, {twice} for {len(long)}"


def test_a_replay_shares_what_did_not_change_between_frames() -> None:
    """Equal view values of consecutive frames are one object (a long replay keeps one copy), and the JSON is the same."""
    engine = ENGINES["la-cabra"]
    steps = frames(engine, series(30))
    out = frames_json(engine, steps, None)
    deal, result = out[1], out[2]  # hand 1 dealt, then its result
    assert deal["type"] == "hand_started" and result["type"] == "hand_result"
    assert result["state"]["players"] is deal["state"]["players"]
    assert result["state"]["lossPoints"] is deal["state"]["lossPoints"]
    assert "players" not in result["changed"] and "dealOver" in result["changed"]
    assert out[4]["type"] == "hand_result" and out[4]["changed"] is result["changed"]  # equal lists are one list
    assert (
        out[7]["type"] == out[14]["type"] == "note"
        and out[7]["changed"] == []
        and out[7]["changed"] is out[14]["changed"]
    )
    fresh = [engine.view(f.state, None) for f in steps]
    assert [f["state"] for f in out] == fresh


def test_only_values_written_alike_are_shared() -> None:
    """``True == 1`` and dicts equal in another key order: sharing them would change the bytes, so they are not shared."""
    from types import SimpleNamespace

    import orjson

    from replays.steps import Frame

    before = {"flags": [1, 0], "seats": {"a": 1, "b": 2}, "names": ["Ana", "Bo"], "totals": [3, 4]}
    after = {"flags": [True, False], "seats": {"b": 2, "a": 1}, "names": ["Ana", "Bo"], "totals": [3, 4]}
    engine = SimpleNamespace(
        view=lambda state, seat: dict(after)
    )  # a view with those values, as an engine would build it
    out = Frame(2, "note", {}, "played", "", object()).to_json(engine, None, before)  # type: ignore[arg-type]
    assert out["changed"] == []  # equal values: nothing changed, as before
    assert out["state"]["names"] is before["names"] and out["state"]["totals"] is before["totals"]
    assert orjson.dumps(out["state"]) == orjson.dumps(after)  # written as the new view, not the old one
