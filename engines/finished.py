"""The score-sheet entries of finished hands, made once per hand and handed out again.

An engine's ``score`` reads the whole state: a 1,000-event series is some 280 hands, each
explained in lines of words, and a match page scores its sheet again after every event. A
finished hand's entry is a function of a few immutable parts of the state (the hand, its
score, the hand before it, the options, the players), and a fold shares those objects from
one state to the next (a :class:`~engines.history.History` keeps its earlier items; only the
hand in play and what it changes are built anew). So an engine asks :meth:`FinishedHands.entry`
with those parts, and an entry whose parts are the very objects it was made from is handed
out again instead of being made anew.

Still pure as far as anyone can tell: the parts are immutable values compared by identity (the
same object is the same value), each part an entry reads is in its key (the engines' tests
compare a sheet scored through the memo with one scored without it, at every step of random
playouts), and every entry is handed out as a copy (:func:`_copied`), since callers add to
what they get. Bounded: past ``size`` entries the memo starts again empty.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

__all__ = ["FinishedHands", "anew"]


class FinishedHands:
    """Entries of finished hands, kept by the identity of the parts each was made from."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self.on = True
        """Off (:func:`anew`): every entry is made anew, as without the memo."""
        self.hits = 0
        """Entries handed out again (what the tests count to know the memo is used)."""
        self._kept: dict[tuple[int, ...], tuple[tuple[object, ...], dict[str, Any]]] = {}
        _EVERY.append(self)

    def entry(self, parts: tuple[object, ...], make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Return the entry ``make`` gives for ``parts`` (every value it reads), made at most once per parts."""
        if not self.on:
            return make()
        key = tuple(map(id, parts))
        kept = self._kept.get(key)
        if kept is not None and all(a is b for a, b in zip(kept[0], parts)):
            self.hits += 1
            return _copied(kept[1])
        made = make()
        if len(self._kept) >= self.size:
            self._kept.clear()
        self._kept[key] = (parts, _copied(made))  # the parts are held: their ids stay theirs while kept
        return made

    def clear(self) -> None:
        self._kept.clear()


_EVERY: list[FinishedHands] = []
"""Every memo made (one per engine that keeps one)."""


@contextlib.contextmanager
def anew() -> Iterator[None]:
    """Make every entry anew while inside, as without the memos: what the tests compare them with."""
    for memo in _EVERY:
        memo.on = False
    try:
        yield
    finally:
        for memo in _EVERY:
            memo.on = True


def _copied(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of an entry as callers change one: the entry, each dict in it (its ``result``) and
    each list in it (its ``lines``, with each line's dict). What those hold (numbers, words, the
    lists of numbers of a result) is shared: nothing changes it in place."""
    out = dict(entry)
    for key, value in entry.items():
        kind = type(value)
        if kind is list:
            out[key] = [dict(item) if type(item) is dict else item for item in value]
        elif kind is dict:
            out[key] = dict(value)
    return out
