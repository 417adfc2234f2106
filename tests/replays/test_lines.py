"""Reading an import as it arrives (replays.lines, issue 26 item 2): a stream's lines whatever
its chunks, a line too long cut and skipped, and the first errors of a file kept, the rest counted;
the text notation read from lines, one match at a time."""

from __future__ import annotations

import io
import itertools
from typing import Iterator

from replays import lines as lines_module
from replays.archive import read_archive
from replays.lines import ErrorLog, is_too_long, lines_of
from replays.notation import MAX_SPAN_LINES, iter_text, read_text


def reader(data: bytes, chunk: int) -> io.BytesIO:
    """A stream that hands out at most ``chunk`` bytes per read, as a socket does."""
    stream = io.BytesIO(data)
    original = stream.read
    stream.read = lambda size=-1: original(min(size, chunk) if size and size > 0 else chunk)  # type: ignore[method-assign]
    return stream


def test_lines_are_the_same_whatever_the_chunks() -> None:
    data = b'{"a": 1}\r\n\n{"b": 2}\nlast without end'
    for chunk in (1, 2, 3, 7, 64 * 1024):
        assert list(lines_of(reader(data, chunk).read)) == [b'{"a": 1}', b"", b'{"b": 2}', b"last without end"]
    assert list(lines_of(io.BytesIO(b"").read)) == []
    assert list(lines_of(io.BytesIO(b"one\n").read)) == [b"one"]


def test_a_line_too_long_is_cut_to_one_byte_past_the_limit_and_the_rest_skipped() -> None:
    data = b"short\n" + b"x" * 100 + b"\nafter\n" + b"y" * 50
    for chunk in (1, 5, 16, 1000):
        got = list(lines_of(reader(data, chunk).read, limit=20))
        assert got == [b"short", b"x" * 21, b"after", b"y" * 21], chunk
        assert [is_too_long(line, 20) for line in got] == [False, True, False, True]


def test_lines_of_never_holds_more_than_a_line_and_a_chunk() -> None:
    """An endless line of junk is read through in chunks: what is held stays about the limit."""
    held: list[int] = []
    chunks = itertools.count()

    def endless(size: int) -> bytes:
        return b"" if next(chunks) > 200 else b"z" * size  # 200 chunks of 64 KiB, no newline

    for line in lines_of(endless, limit=1000):
        held.append(len(line))
    assert held == [1001]


def test_the_error_log_keeps_the_first_errors_in_the_file_and_counts_the_rest() -> None:
    log: ErrorLog[dict[str, int]] = ErrorLog(3)
    for line in (9, 2, 7, 1, 8, 2):
        log.append({"line": line, "column": 0})
    assert [e["line"] for e in log.kept()] == [1, 2, 2]
    assert len(log) == 6 and log.more == 3 and bool(log)
    assert not ErrorLog(3)


def test_an_archive_of_a_million_broken_lines_keeps_a_hundred_errors() -> None:
    log = ErrorLog(names=lambda e: e.match)
    matches, errors = read_archive((b"{}" for _ in range(200_000)), errors=log)
    assert matches == [] and errors is log
    assert len(log.kept()) == lines_module.MAX_ERRORS == 100 and log.more == 199_900
    assert [e.line for e in log.kept()][:3] == [1, 2, 3]


def test_an_archive_line_too_long_is_refused_by_its_line() -> None:
    _, errors = read_archive([b"{" + b" " * lines_module.MAX_LINE + b"}"])
    assert [(e.line, e.code) for e in errors] == [(1, "archive.line_too_long")]
    assert "longer than 4 MiB" in errors[0].message


def test_text_read_from_lines_is_read_as_the_whole_text() -> None:
    text = (
        '[Game "cabo"]\n[Players "A" "B"]\n{a comment\nover lines}\n2. hand_started dealer=0 layouts=[[1 2]\n'
        '  [3 4]]\n[Game "kabu"]\n[Players "C" "D"]\n2. note {hola}\n'
    )
    whole = read_text(text)
    streamed = list(iter_text(iter(text.split("\n"))))
    assert [(m.line, m.start, [(e.line, e.type, e.data) for e in m.events], m.errors) for m in whole] == [
        (m.line, m.start, [(e.line, e.type, e.data) for e in m.events], m.errors) for m in streamed
    ]
    assert [m.start["game"] for m in whole] == ["cabo", "kabu"] and whole[0].events[0].data["layouts"] == [
        [1, 2],
        [3, 4],
    ]


def test_text_is_read_one_match_at_a_time() -> None:
    """The reader asks for the next match's lines only when that match is wanted."""
    asked: list[int] = []

    def lines() -> Iterator[str]:
        for number in itertools.count(1):
            asked.append(number)
            yield '[Game "kabu"]' if number % 3 == 1 else '[Players "A" "B"]' if number % 3 == 2 else "2. note {x}"

    matches = iter_text(lines())
    first = next(matches)
    assert first.line == 1 and len(first.events) == 1
    assert max(asked) == 5  # its own three lines, and the next match's first two (a line may continue the one above)


def test_a_statement_that_never_ends_breaks_the_text_there() -> None:
    lines = [
        '[Game "cabo"]',
        '[Players "A" "B"]',
        "2. hand_started dealer=0 layouts=[",
        *(["[1 2]"] * (MAX_SPAN_LINES + 5)),
    ]
    (match,) = read_text(lines)
    assert match.broken_at == 0 and match.errors[-1].line == 3
    assert f"not closed within {MAX_SPAN_LINES:,} lines" in match.errors[-1].message
    (comment,) = read_text(['[Game "cabo"]', "{never closed", *(["words"] * (MAX_SPAN_LINES + 5))])
    assert comment.errors[-1].line == 2 and "never closed" in comment.errors[-1].message


def test_the_lines_left_are_counted_as_reading_them_would_count_them() -> None:
    """``count_rest`` after any number of lines gives what reading on would have yielded, whatever
    the chunks, a last line with or without its end, a line cut as too long included."""
    for data in (
        b"a\nbb\n\nccc\n" + b"x" * 50 + b"\nlast",
        b"a\n" + b"y" * 50 + b"\n\nb\n",
        b"z" * 45,
        b"",
        b"\n\n",
    ):
        for chunk in (1, 3, 7, 1000):
            every = list(lines_of(reader(data, chunk).read, limit=20))
            for taken in range(len(every) + 1):
                lines = lines_of(reader(data, chunk).read, limit=20)
                got = [next(lines) for _ in range(taken)]
                assert got == every[:taken]
                assert lines.count_rest() == len(every) - taken, (data, chunk, taken)


def test_a_text_without_tags_is_read_no_further_than_its_first_1000_lines() -> None:
    """Lines before the first [Game] tag cannot be imported; past 1,000 of them the file is not the
    notation, and its reader stops there instead of tokenizing the rest (20 MB took 11 s)."""
    pulled = 0

    def endless() -> Iterator[str]:
        nonlocal pulled
        for _ in range(100_000):
            pulled += 1
            yield "play card=ZZ x=[1 2 3]"

    (match,) = iter_text(endless())
    assert [(e.line, e.code) for e in match.errors] == [(1, "notation.no_tags"), (1001, "notation.not_notation")]
    assert pulled < 1010
    short = "\n".join(["junk line"] * 999 + ['[Game "kabu"]', '[Players "A" "B"]', "2. note {x}"])
    assert [m.start.get("game") for m in iter_text(short)] == [None, "kabu"]  # 999 junk lines: still read
