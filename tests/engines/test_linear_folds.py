"""Folding costs the same per event whatever the number of earlier hands (no O(hands) step).

A long match must fold in linear time: starting a hand, scoring one or settling it must not
copy or walk every earlier hand. For each game a real playout is cut just before a deal; its
state gets ``M`` extra earlier hands (every per-hand history of the state padded at the
front), and the rest of the match (a whole hand: its deal, moves and scoring) is folded from
there. The work is counted, never timed: bytes allocated (``tracemalloc``, the sum of each
event's peak) and Python lines executed (``sys.settrace``). With ``2M`` earlier hands instead
of ``M`` the counts must stay within 10%: a copy of the hands (the tuples this replaced) or a
loop over them makes the 2M fold cost about twice as much.
"""

from __future__ import annotations

import tracemalloc
from typing import Any, Callable

import pytest

from engines import ENGINES
from engines.base import Event
from tests.engines.linear import cut, lines_executed, padded

M = 10000


def fold(game: str, state: Any, events: list[Event]) -> Any:
    apply = ENGINES[game].apply
    for event in events:
        state = apply(state, event)
    return state


def bytes_allocated(run: Callable[[Event], Any], events: list[Event]) -> int:
    """Sum, over the events, of the peak memory each one allocates while it is applied."""
    total = 0
    tracemalloc.start()
    try:
        for event in events:
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            run(event)
            total += tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return total


def costs(game: str, extra: int) -> tuple[int, int]:
    base, events = cut(game)
    apply = ENGINES[game].apply
    counts = []
    for measure in (bytes_allocated, lines_executed):
        state = padded(base, extra)

        def run(event: Event) -> None:
            nonlocal state
            state = apply(state, event)

        counts.append(measure(run, events))
        assert len(state.past if hasattr(state, "past") else state.records) > extra  # folded on the padded state
    return counts[0], counts[1]


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_hand_costs_the_same_after_m_or_2m_earlier_hands(game: str) -> None:
    once, twice = costs(game, M), costs(game, 2 * M)
    assert twice[0] <= 1.1 * once[0], f"bytes: {once[0]} with {M} earlier hands, {twice[0]} with {2 * M}"
    assert twice[1] <= 1.1 * once[1], f"lines: {once[1]} with {M} earlier hands, {twice[1]} with {2 * M}"


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_padded_fold_reaches_the_same_end_as_the_real_one(game: str) -> None:
    """The padding only adds earlier hands: the hand folded after it ends as it did in the real match."""
    base, events = cut(game)
    real = fold(game, base, events)
    long = fold(game, padded(base, 50), events)
    engine = ENGINES[game]
    assert engine.view(long, None).keys() == engine.view(real, None).keys()
    assert engine.is_over(long) == engine.is_over(real)
