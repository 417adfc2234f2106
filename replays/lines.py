"""Reading an imported file as it arrives: its lines from a stream, and a bounded list of errors.

An import is read a line at a time from the request's body (or a file), so that what it
costs is what its matches hold, not what its bytes weigh: a line longer than any a match
needs is cut at ``limit`` bytes and the rest of it is skipped unread into memory, and the
errors found are kept up to a fixed number (the first ones in the file), the rest counted.
Pure functions, no Flask, no database.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

MAX_LINE = 4 * 1024 * 1024
"""The longest line an import reads, in bytes: one event's envelope (a batch of a whole match
is 1 MiB at most, ``TANTEO_MAX_BODY``) fits many times over."""

CHUNK = 64 * 1024
"""How many bytes are read from the stream at a time."""

MAX_ERRORS = 100
"""How many errors an import's report lists: the first ones in the file; the rest are counted."""


def lines_of(read: Callable[[int], bytes], limit: int = MAX_LINE) -> Iterator[bytes]:
    """Yield the lines of a byte stream (``read``: its ``read`` method), without their line ends.

    A line longer than ``limit`` bytes is yielded cut to ``limit + 1`` bytes (so that its
    reader can tell it is too long, :func:`is_too_long`) and the rest of it is read and
    dropped. Memory stays about ``limit`` plus one chunk, whatever the stream's size.
    """
    pending = b""
    skipping = False  # inside a line already yielded as too long
    while True:
        chunk = read(CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if skipping:
                skipping = False
            else:
                line = pending + chunk[start:end] if pending else chunk[start:end]
                pending = b""
                yield _cut(line, limit)
            start = end + 1
        if skipping:
            continue
        pending += chunk[start:]
        if len(pending) > limit:
            yield pending[: limit + 1]
            pending, skipping = b"", True
    if pending and not skipping:
        yield _cut(pending, limit)


def _cut(line: bytes, limit: int) -> bytes:
    if line.endswith(b"\r"):
        line = line[:-1]
    return line if len(line) <= limit else line[: limit + 1]


def is_too_long(line: bytes | str, limit: int = MAX_LINE) -> bool:
    """Whether :func:`lines_of` cut this line."""
    return len(line) > limit


T = TypeVar("T")


class ErrorLog(Generic[T]):
    """The first ``limit`` errors of an import by their place in the file, and how many more.

    ``append`` takes an error (a ``LineError`` or a report's dict, anything :attr:`place`
    reads a (line, column) from); the list keeps the ``limit`` earliest and counts the rest,
    so a file of a million broken lines costs the memory of a hundred errors.
    ``named`` remembers every match id an error named (see ``replays.archive``), even of
    errors not kept: a damaged line refuses its whole match, listed or not.
    """

    def __init__(
        self,
        limit: int = MAX_ERRORS,
        place: Callable[[T], tuple[int, int]] | None = None,
        names: Callable[[T], str | None] | None = None,
    ) -> None:
        self.limit = limit
        self.place = place or _place
        self.names = names
        self.total = 0
        self.named: set[str] = set()
        self._heap: list[tuple[tuple[int, int], int, T]] = []  # negated places: the latest kept is on top

    def append(self, error: T) -> None:
        """Keep ``error`` if it is among the first ``limit`` in the file, else count it."""
        self.total += 1
        named = self.names(error) if self.names is not None else None
        if named:
            self.named.add(named)
        line, column = self.place(error)
        key = (-line, -column)
        if len(self._heap) < self.limit:
            heapq.heappush(self._heap, (key, -self.total, error))
        elif key > self._heap[0][0]:
            heapq.heapreplace(self._heap, (key, -self.total, error))

    def extend(self, errors: Any) -> None:
        for error in errors:
            self.append(error)

    @property
    def more(self) -> int:
        """How many errors were found and not kept."""
        return self.total - len(self._heap)

    def kept(self) -> list[T]:
        """The errors kept, in the file's order."""
        return [error for _, _, error in sorted(self._heap, key=lambda item: (item[0], item[1]), reverse=True)]

    def __iter__(self) -> Iterator[T]:
        return iter(self.kept())

    def __len__(self) -> int:
        return self.total

    def __bool__(self) -> bool:
        return self.total > 0


def _place(error: Any) -> tuple[int, int]:
    if isinstance(error, dict):
        return int(error["line"]), int(error.get("column") or 0)
    return int(error.line), int(error.column or 0)


def more_errors_said(more: int, limit: int = MAX_ERRORS) -> str:
    """Say, for a report, that ``more`` errors were found beyond the ``limit`` listed."""
    return (
        f"{more:,} more error{'s were' if more != 1 else ' was'} found and not listed: a report lists the "
        f"first {limit} in the file; correct those and import the file again to see the next ones"
    )
