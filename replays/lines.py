"""Reading an imported file as it arrives: its lines from a stream, and a bounded list of errors.

An import is read a line at a time from the request's body (or a file), so that what it
costs is what its matches hold, not what its bytes weigh: a line longer than any a match
needs is cut at ``limit`` bytes and the rest of it is skipped unread into memory, and the
errors found are kept up to a fixed number (the first ones in the file), the rest counted.
Pure functions, no Flask, no database.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Generator, Iterator
from typing import Any, Generic, TypeVar

from engines.said import Counted
from engines.written import grouped

MAX_LINE = 4 * 1024 * 1024
"""The longest line an import reads, in bytes: one event's envelope (a batch of a whole match
is 1 MiB at most, ``TANTEO_MAX_BODY``) fits many times over."""

CHUNK = 64 * 1024
"""How many bytes are read from the stream at a time."""

MAX_ERRORS = 100
"""How many errors an import's report lists: the first ones in the file; the rest are counted."""


def lines_of(read: Callable[[int], bytes], limit: int = MAX_LINE) -> Lines:
    """Return the lines of a byte stream (``read``: its ``read`` method), without their line ends.

    A line longer than ``limit`` bytes is yielded cut to ``limit + 1`` bytes (so that its
    reader can tell it is too long, :func:`is_too_long`) and the rest of it is read and
    dropped. Memory stays about ``limit`` plus one chunk, whatever the stream's size.
    """
    return Lines(read, limit)


class Lines:
    """A byte stream's lines, as :func:`lines_of` yields them, that can also be counted unread.

    An import that has seen enough to refuse a file (:func:`not_a_record`) stops reading its
    lines; :meth:`count_rest` then reads the rest of the stream a chunk at a time and
    counts its line ends (in C: ``bytes.count``), so the report can say how many lines were
    not read without splitting, decoding or tokenizing them.
    """

    def __init__(self, read: Callable[[int], bytes], limit: int = MAX_LINE) -> None:
        self.read, self.limit = read, limit
        self._chunk = b""  # the chunk being split, and where its unread part starts
        self._at = 0
        self._skipping = False  # inside a line already yielded as too long
        self._lines = self._split()

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return next(self._lines)

    def _split(self) -> Generator[bytes, None, None]:
        pending = b""
        limit = self.limit
        while True:
            chunk = self.read(CHUNK)
            if not chunk:
                break
            self._chunk = chunk
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    break
                if self._skipping:
                    self._skipping = False
                else:
                    line = pending + chunk[start:end] if pending else chunk[start:end]
                    pending = b""
                    self._at = end + 1
                    yield _cut(line, limit)
                start = end + 1
            self._at = len(chunk)
            if self._skipping:
                continue
            pending += chunk[start:]
            if len(pending) > limit:
                self._skipping = True
                yield pending[: limit + 1]
                pending = b""
        self._chunk, self._at = b"", 0
        if pending and not self._skipping:
            yield _cut(pending, limit)

    def count_rest(self) -> int:
        """Read the rest of the stream without keeping it; return how many lines it held.

        Only for a reading stopped right after a line was yielded (a line whose end was
        already read is not counted again; a cut line's unread tail is not a line).
        """
        self._lines.close()
        piece = self._chunk[self._at :]
        self._chunk = b""
        ends = 0
        last = b"\n"
        while True:
            if piece:
                ends += piece.count(b"\n")
                last = piece[-1:]
            piece = self.read(CHUNK)
            if not piece:
                break
        lines = ends + (0 if last == b"\n" else 1)  # a last line without its end is a line too
        return max(0, lines - 1) if self._skipping else lines


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
    def overflowing(self) -> bool:
        """Whether more errors were found than the report lists."""
        return self.total > self.limit

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
    return Counted(
        "%(count)s more error was found and not listed: a report lists the first %(limit)s in the file; correct "
        "those and import the file again to see the next ones",
        "%(count)s more errors were found and not listed: a report lists the first %(limit)s in the file; correct "
        "those and import the file again to see the next ones",
        more,
        count=grouped(more),
        limit=limit,
    )


def not_a_record(errors: ErrorLog[Any], accepted: bool) -> bool:
    """Whether an import has seen enough of a file to stop reading it: nothing in it was accepted
    (no line an archive keeps, no match a text starts) and the report is already full.

    Reading on could only count more errors: a file that opens with more than :data:`MAX_ERRORS`
    of them and nothing sound is not a Tanteo record, and a person corrects it from the first
    errors. What stays unread is counted, not read (:meth:`Lines.count_rest`): 20 MB of junk
    text took 11 s to tokenize line by line before it was refused (issue 26).
    """
    return not accepted and errors.overflowing


def unread_said(count: int, first: int) -> str:
    """Say, for a report, that the file's last ``count`` lines (from line ``first`` on) were not read."""
    return Counted(
        "the file's last %(count)s line (from line %(first)s on) was not read: what came before it showed this is "
        "not a file Tanteo wrote (an archive or the text notation), with nothing in it to import; correct the "
        "errors listed and import it again",
        "the file's last %(count)s lines (from line %(first)s on) were not read: what came before them showed this "
        "is not a file Tanteo wrote (an archive or the text notation), with nothing in it to import; correct the "
        "errors listed and import it again",
        count,
        count=grouped(count),
        first=grouped(first),
    )
