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
from typing import Any, Callable, Generic, Iterable, Iterator, Sequence, TypeVar, overload

T = TypeVar("T")

_NOTHING: Any = object()


class History(Sequence[T], Generic[T]):
    """An immutable sequence with O(1) append at the end and O(1) prefix views."""

    __slots__ = ("_shared", "_k", "_last", "_hash", "_decode", "_memo")

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

    def _set(
        self, shared: list[T], k: int, last: T, decode: Callable[[Any], T] | None = None, memo: list[Any] | None = None
    ) -> None:
        self._shared = shared
        self._k = k
        self._last = last
        self._hash: int | None = None
        self._decode = decode
        """Set when items of ``_shared`` may still be undecoded JSON (see :meth:`lazy`)."""
        self._memo = memo
        """See :meth:`memo`: None until first asked for."""

    def _view(self, shared: list[T], k: int, last: T) -> History[T]:
        new = History.__new__(History)
        new._set(shared, k, last, self._decode, self._memo if shared is self._shared else None)
        return new

    def memo(self) -> list[Any]:
        """A list beside the shared items, for a codec to remember what item ``i`` encodes to.

        Items in the shared list never change, so what one of them encodes to stays true for
        every version that shares it: storing a long match's snapshot every few hundred events
        then encodes only the hands added since the last one. It belongs to the history, so it
        lives and goes with the state that holds it (the memory cache weighs it with the
        entry), unlike a table kept beside every state ever stored.
        """
        if self._memo is None:
            self._memo = []
        return self._memo

    @classmethod
    def lazy(cls, raw: Sequence[Any], decode: Callable[[Any], T]) -> History[T]:
        """Return a history of stored JSON items decoded one by one, when first read.

        A cold start from a stored snapshot reads the current hand and the last score, not
        the thousands of earlier hands: those stay JSON text (a ``str`` per item; a lazy
        history's items are never strings) until something asks for them. The last item is
        decoded at once.
        """
        if not raw:
            return History()
        new = cls.__new__(cls)
        new._set(list(raw[:-1]), len(raw) - 1, decode(raw[-1]), decode)
        return new

    def _item(self, i: int) -> T:
        """Return item ``i < _k`` of the shared list, decoding it in place if it is still JSON."""
        item = self._shared[i]
        if self._decode is not None and type(item) is str:
            item = self._decode(item)
            self._shared[i] = item  # the same value for every version that sees slot i
        return item

    @property
    def is_lazy(self) -> bool:
        """Whether some items may still be JSON text (made by :meth:`lazy`)."""
        return self._decode is not None

    def stored_items(self) -> Iterator[Any]:
        """Yield the items as held: still-undecoded ones as their JSON text (for re-storing them as is)."""
        if self._last is _NOTHING:
            return iter(())
        return chain(islice(self._shared, self._k), (self._last,))

    def __len__(self) -> int:
        return 0 if self._last is _NOTHING else self._k + 1

    def __bool__(self) -> bool:
        return self._last is not _NOTHING

    def __iter__(self) -> Iterator[T]:
        if self._last is _NOTHING:
            return iter(())
        if self._decode is not None:
            return chain((self._item(i) for i in range(self._k)), (self._last,))
        return chain(islice(self._shared, self._k), (self._last,))

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> History[T]: ...

    def __getitem__(self, i: int | slice) -> T | History[T]:
        if i == -1 and self._last is not _NOTHING and type(i) is int:
            return self._last  # the last hand or score: what states read on nearly every move
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
        return self._last if i == self._k else self._item(i)

    def _prefix(self, j: int) -> History[T]:
        """Return the first ``j`` items as a history sharing this one's list."""
        if j >= len(self):
            return self
        if j == 0:
            return History()
        return self._view(self._shared, j - 1, self._item(j - 1))

    def append(self, item: T) -> History[T]:
        """Return this history with ``item`` added at the end (this one is unchanged)."""
        if self._last is _NOTHING:
            return History._view(self, [], 0, item)
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
