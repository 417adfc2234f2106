"""An immutable sequence that grows at the end in O(1): the hands and scores of a match.

A state keeps every earlier hand and every hand's score. With tuples, starting a hand
(``past + (hand,)``) and scoring one (``scores + (score,)``) copy everything before it,
so a long match folds in O(hands²). :class:`History` is the classic "fat list": versions
share one backing Python list and each sees only its own prefix of it, plus its own last
item kept apart. Items in the backing list are never changed or removed, so an older
version stays valid for time travel exactly like a tuple would.

- ``h + (x,)`` puts ``h``'s own last item into the shared list (a no-op if it is already
  there) and keeps ``x`` apart: O(1) amortized, and ``x`` never pollutes the shared list,
  so building a throw-away ``past + (current,)`` for a view costs nothing later;
- ``h[:j]`` is a view of a prefix (O(1); other slices copy, as a tuple's do), so ``h[:-1] + (x,)`` replaces the last item in O(1);
- only a real branch (two different items appended to the same version) copies, once.

It compares, hashes and pickles like the tuple of its items.

>>> h = History() + (1,) + (2,)
>>> h2 = h + (3,)
>>> h3 = h[:-1] + (9,)
>>> tuple(h), tuple(h2), tuple(h3), h2[-1], len(h2)
((1, 2), (1, 2, 3), (1, 9), 3, 3)
>>> h == (1, 2), h2 == History((1, 2, 3))
(True, True)
"""

from __future__ import annotations

from itertools import chain, islice
from typing import Any, Generic, Iterable, Iterator, Sequence, TypeVar, overload

T = TypeVar("T")

_NOTHING: Any = object()


class History(Sequence[T], Generic[T]):
    """An immutable sequence with O(1) append at the end and O(1) prefix views."""

    __slots__ = ("_shared", "_k", "_last", "_hash")

    _shared: list[T]
    _k: int
    """How many items of ``_shared`` this version sees before ``_last``."""
    _last: T
    """The last item (``_NOTHING`` for the empty history)."""

    def __init__(self, items: Iterable[T] = ()) -> None:
        values = list(items)
        if values:
            self._set(values[:-1], len(values) - 1, values[-1])
        else:
            self._set([], 0, _NOTHING)

    def _set(self, shared: list[T], k: int, last: T) -> None:
        self._shared = shared
        self._k = k
        self._last = last
        self._hash: int | None = None

    @classmethod
    def _view(cls, shared: list[T], k: int, last: T) -> History[T]:
        new = cls.__new__(cls)
        new._set(shared, k, last)
        return new

    def __len__(self) -> int:
        return 0 if self._last is _NOTHING else self._k + 1

    def __iter__(self) -> Iterator[T]:
        if self._last is _NOTHING:
            return iter(())
        return chain(islice(self._shared, self._k), (self._last,))

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> History[T]: ...

    def __getitem__(self, i: int | slice) -> T | History[T]:
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if start == 0 and step == 1:
                return self._prefix(max(stop, 0))
            return History(tuple(self)[i])
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("history index out of range")
        return self._last if i == self._k else self._shared[i]

    def _prefix(self, j: int) -> History[T]:
        """Return the first ``j`` items as a history sharing this one's list."""
        if j >= len(self):
            return self
        if j == 0:
            return History()
        return self._view(self._shared, j - 1, self._shared[j - 1])

    def append(self, item: T) -> History[T]:
        """Return this history with ``item`` added at the end (this one is unchanged)."""
        if self._last is _NOTHING:
            return self._view([], 0, item)
        shared, k, last = self._shared, self._k, self._last
        if len(shared) == k:
            shared.append(last)
        if shared[k] is not last:  # another version took slot k first: a real branch, copy once
            shared = shared[:k]
            shared.append(last)
        return self._view(shared, k + 1, item)

    def __add__(self, other: Iterable[T]) -> History[T]:
        out = self
        for item in other:
            out = out.append(item)
        return out

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, History):
            if len(self) != len(other):
                return False
            if self._shared is other._shared and self._k == other._k:
                return bool(self._last == other._last)
            return all(a == b for a, b in zip(self, other))
        if isinstance(other, tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self))
        return self._hash

    def __reduce__(self) -> tuple[type[History[T]], tuple[tuple[T, ...]]]:
        return History, (tuple(self),)

    def __repr__(self) -> str:
        return f"History({tuple(self)!r})"


EMPTY: History[Any] = History()
"""The empty history, for state defaults."""
