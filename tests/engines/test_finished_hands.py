"""A sheet scored through the memo of finished hands (engines/finished.py) is the sheet scored anew.

The memo hands out a finished hand's entry again when the objects it was made from are the
very same; these tests score every state of random playouts in order (so that each state finds
the entries its predecessors left) and compare each sheet with one made anew, count that the
memo was used, change what they were handed and score again, and rename the players by an
amend, whose sheet must say the new names.
"""

from __future__ import annotations

import importlib

import pytest
from tests.engines.playouts import play

from engines import ENGINES
from engines.base import Event, walk
from engines.finished import FinishedHands, anew

KEPT = ("cau-robat", "el-roby", "kabu", "la-cabra")
"""The games whose ``score`` keeps a memo (Cabo's rounds carry their lines already: nothing to keep)."""


def memo_of(game: str) -> FinishedHands:
    memo = importlib.import_module(f"engines.{game.replace('-', '_')}.scoring").FINISHED
    assert isinstance(memo, FinishedHands)
    return memo


@pytest.mark.parametrize("game", KEPT)
@pytest.mark.parametrize("seed", range(3))
def test_every_sheet_of_a_playout_is_the_sheet_made_anew(game: str, seed: int) -> None:
    engine = ENGINES[game]
    memo = memo_of(game)
    memo.clear()
    events, states = play(game, seed)
    hits = memo.hits
    kept = [engine.score(state) for state in states]
    assert memo.hits > hits  # the later states took over the entries of the earlier ones
    with anew():
        made = [engine.score(state) for state in states]
    assert kept == made
    assert any(hand["status"] == "scored" for hand in made[-1]["hands"])


@pytest.mark.parametrize("game", KEPT)
def test_what_a_caller_changes_in_a_sheet_is_not_handed_out_again(game: str) -> None:
    engine = ENGINES[game]
    _, states = play(game, 0)
    state = states[-1]
    engine.score(state)  # the entries kept
    hits = memo_of(game).hits
    first = engine.score(state)  # and handed out again
    assert memo_of(game).hits > hits
    scored = [hand for hand in first["hands"] if hand["status"] == "scored"]
    assert scored
    for hand in scored:
        hand["lines"].append({"seat": 0, "points": 99, "reason": "changed"})
        hand["result"]["changed"] = True
        hand["lines"][0]["points"] = -1
        hand["status"] = "changed"
    with anew():
        made = engine.score(state)
    assert engine.score(state) == made


@pytest.mark.parametrize("game", KEPT)
def test_a_state_with_other_names_is_not_handed_the_entries_of_the_old_names(game: str) -> None:
    """The same hands under other names (every part of an entry's key is needed: here the names)."""
    engine = ENGINES[game]
    _, states = play(game, 2)
    state = states[-1]
    engine.score(state)
    other = state._replace(players=tuple(f"{name} the second" for name in state.players))
    said = engine.score(other)
    with anew():
        assert said == engine.score(other)
    assert "the second" in repr([hand["lines"] for hand in said["hands"] if hand["status"] == "scored"])


def renamed(events: tuple[Event, ...]) -> list[Event]:
    """The log with an amend of the opening after it that gives every player another name."""
    opening = events[0].data
    players = [f"{name} the second" for name in opening["players"]]
    amend = Event(len(events) + 1, "amend", {"target": 1, "data": {**opening, "players": players}, "reason": "names"})
    return [*events, amend]


@pytest.mark.parametrize("game", KEPT)
def test_an_amend_of_the_names_is_said_in_every_finished_hand(game: str) -> None:
    engine = ENGINES[game]
    events, _ = play(game, 1)
    before = engine.score(list(walk(engine, events))[-1].state)  # the entries kept with the old names
    log = renamed(events)
    steps = list(walk(engine, log))
    after = engine.score(steps[-1].state)
    with anew():
        made = engine.score(steps[-1].state)
    assert after == made and after != before
    said = repr([hand["lines"] for hand in after["hands"] if hand["status"] == "scored"])
    assert "the second" in said
