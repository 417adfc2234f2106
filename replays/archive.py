"""The lossless archive: JSON Lines, one stored event per line with its whole envelope.

An archive is what ``GET /matches/{id}/export?format=jsonl`` and ``tanteo export`` write and
``POST /matches/import`` and ``tanteo import`` read back: each line one envelope as the
ledger lists it (``match``, ``seq``, ``type``, ``data``, ``at``, ``by``, ``key``, ``prev``,
``hash`` and whatever the chain format adds), matches one after the other, each in seq
order. Nothing is derived, so a restore gives back the same ids, seqs, times, recorders
and hashes, and the importer can recompute every chain before it trusts a line.

Reading is lenient about the file and strict about each line: blank lines are skipped, a
line that is not an envelope is reported by its line (and column, for broken JSON) and the
other lines are read on. Pure functions, no Flask, no database.
"""

from __future__ import annotations

import re
from datetime import datetime
from operator import itemgetter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ledger.records import StoredEvent, stored_event
from schemas import SchemaError, validate_envelope
from replays.lines import MAX_LINE, ErrorLog, not_a_record
from engines.said import Said
from engines.written import grouped
from schemas.strict import MATCH_ID_LENGTH, first_nul, is_issued_match_id, nul_message, shown


@dataclass(frozen=True)
class LineError:
    """Why one line (or a match starting at it) could not be imported."""

    line: int
    column: int | None
    code: str
    message: str
    match: str | None = None

    def json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "message": self.message,
            "match": self.match,
        }


@dataclass(frozen=True)
class ArchivedMatch:
    """One match's events as read from an archive, with the line of each."""

    id: str
    events: tuple[StoredEvent, ...]
    lines: tuple[int, ...]

    def line_of(self, seq: int | None) -> int:
        """Return the line of the event with ``seq`` (the match's last line when there is none)."""
        for event, line in zip(self.events, self.lines):
            if event.seq == seq:
                return line
        return self.lines[-1]


def damaged_match(error: LineError) -> str | None:
    """The match a refused line refuses whole (see :func:`read_archive`): only an id Tanteo issues
    can be imported, so only such an id need be remembered."""
    return error.match if error.match and is_issued_match_id(error.match) else None


def archive_line(envelope: Mapping[str, Any]) -> bytes:
    """Return one archive line (with its newline) for an envelope as the ledger lists it."""
    return orjson.dumps(envelope) + b"\n"


def read_archive(
    lines: Iterable[bytes | str], *, first: int = 1, errors: Any = None
) -> tuple[list[ArchivedMatch], Any]:
    """Read an archive into its matches, in the order they first appear, and the lines refused.

    A refused line names the match it seems to come from when its text still shows a
    ``"match": "…"`` field: the importer then refuses that whole match, so that a damaged
    last line never lets the rest of its match in as if it were complete.

    Each line is parsed once, as it came (bytes need no decoding first); a line that does
    not parse that way (blank, broken, not UTF-8) is read again as text, which says why.
    ``first`` is the number of the first line (a piece of a longer file). ``errors`` is where
    refused lines go (a list by default; an import passes a :class:`replays.lines.ErrorLog`,
    which keeps the first ones): it is returned beside the matches. ``lines`` is read once,
    as it comes (a stream's lines, :func:`replays.lines.lines_of`): only the events of the
    matches are kept, never a refused line. A line cut as too long is refused by its line.
    """
    grouped: dict[str, tuple[list[StoredEvent], list[int]]] = {}
    if errors is None:
        errors = []
    latest: dict[str, tuple[str, int]] = {}  # each match's latest time so far, and its line
    known_at: set[str] = set()  # a batch shares its time: each distinct one is checked once
    for number, raw in enumerate(lines, first):
        event = _line_event(number, raw, known_at, errors)
        if event is None or not _forward(event, number, latest.get(event.match), errors):
            continue
        latest[event.match] = (event.at, number)
        match = grouped.get(event.match)
        if match is None:
            match = grouped[event.match] = ([], [])
        match[0].append(event)
        match[1].append(number)
    matches = [ArchivedMatch(mid, tuple(events), tuple(numbers)) for mid, (events, numbers) in grouped.items()]
    return matches, errors


def iter_archive(
    lines: Iterable[bytes | str],
    errors: ErrorLog[LineError],
    *,
    unread: list[tuple[int, int]] | None = None,
    rest: Callable[[], int] | None = None,
) -> Iterator[ArchivedMatch]:
    """Yield each match of an archive as soon as its lines end, holding one match at a time.

    What :func:`read_archive` reads, for a body read as it arrives: an archive holds each
    match's lines together (``tanteo export`` writes them so), so a match is whole once a line
    of another match comes (or the file ends), and its events can be let go once its caller
    has stored or refused it. A line of a match whose lines ended before another match's
    began is refused by its line (``archive.match_resumed``): that match was decided already.
    Refused lines go to ``errors`` (as :func:`read_archive`'s), before the match they name
    is yielded.

    A body that has shown it is no archive (more errors than a report lists before a single
    line could be read as an event, :func:`replays.lines.not_a_record`) is read no further:
    the lines left are counted (``rest``, the stream's own count, or by going through them)
    and put in ``unread`` as (how many, the first of them); no match has begun then. Without
    ``unread`` every line is read.
    """
    known_at: set[str] = set()
    ended: dict[str, int] = {}  # every match whose lines ended, and its last line
    current: str | None = None
    events: list[StoredEvent] = []
    numbers: list[int] = []
    latest: tuple[str, int] | None = None
    source = iter(lines)
    for number, raw in enumerate(source, 1):
        event = _line_event(number, raw, known_at, errors)
        if event is None:
            if unread is not None and current is None and not_a_record(errors, False):
                unread.append((rest() if rest is not None else sum(1 for _ in source), number + 1))
                return
            continue
        if event.match != current:
            if event.match in ended:
                errors.append(
                    LineError(
                        number,
                        None,
                        "archive.match_resumed",
                        Said(
                            "this line belongs to match %(match)s, whose lines ended on line %(line)s before another "
                            "match's began: an archive holds each match's lines together, in order, as 'tanteo "
                            "export' writes them; the match was decided with its lines up to there, and this line "
                            "was not imported",
                            match=event.match,
                            line=grouped(ended[event.match]),
                        ),
                        event.match,
                    )
                )
                continue
            if current is not None:
                ended[current] = numbers[-1]
                yield ArchivedMatch(current, tuple(events), tuple(numbers))
            current, events, numbers, latest = event.match, [], [], None
        if not _forward(event, number, latest, errors):
            continue
        latest = (event.at, number)
        events.append(event)
        numbers.append(number)
    if current is not None:
        yield ArchivedMatch(current, tuple(events), tuple(numbers))


def _line_event(number: int, raw: bytes | str, known_at: set[str], errors: Any) -> StoredEvent | None:
    """Read one archive line into its event; None when it is blank or refused (its error put in ``errors``)."""
    if len(raw) > MAX_LINE:
        errors.append(
            LineError(
                number,
                None,
                "archive.line_too_long",
                Said(
                    "this line is longer than %(most)s MiB, far more than any event's envelope: it was not read",
                    most=MAX_LINE // (1024 * 1024),
                ),
                None,
            )
        )
        return None
    try:
        envelope = orjson.loads(raw)
    except orjson.JSONDecodeError:
        envelope = None
    try:
        if type(envelope) is dict:
            if (b"\\u0000" if isinstance(raw, bytes) else "\\u0000") in raw:  # type: ignore[operator]
                _refuse_nul(envelope)
            return _event(envelope, known_at)
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if not text.strip():
            return None
        return _event(_parsed(text), known_at)
    except _Refused as refused:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")
        errors.append(
            LineError(number, refused.column, refused.code, refused.message, refused.match or _match_named(raw))
        )
        return None


def _forward(event: StoredEvent, number: int, before: tuple[str, int] | None, errors: Any) -> bool:
    """Whether ``event`` was stored no earlier than its match's event before it (``before``: its
    time and line); if not, its error goes to ``errors``."""
    if before is None or event.at == before[0] or not _earlier(event.at, before[0]):
        return True
    errors.append(
        LineError(
            number,
            None,
            "archive.time_backwards",
            Said(
                "this event was stored at %(at)s, before the one on line %(line)s (%(before)s): a match's times "
                "only move forward, so these were changed after it was recorded",
                at=event.at,
                line=before[1],
                before=before[0],
            ),
            event.match,
        )
    )
    return False


class _Refused(Exception):
    def __init__(self, code: str, message: str, column: int | None = None, match: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.column, self.match = code, message, column, match


def _refuse_nul(envelope: dict[str, Any]) -> None:
    """Refuse a line with a NUL character (U+0000) in any text: PostgreSQL cannot store one, and
    an archive written on SQLite (before NUL was refused at entry) must not fail there half-way.

    Raises:
        _Refused: ``archive.nul_character``, naming where.
    """
    where = first_nul(envelope)
    if where is not None:
        match = envelope.get("match")
        raise _Refused("archive.nul_character", nul_message(where), None, match if isinstance(match, str) else None)


def _earlier(at: str, than: str) -> bool:
    """Whether the stored time ``at`` comes before ``than``: as text when both are written as the
    ledger writes them (``2026-11-21T17:03:05.123Z``, which sorts as it reads), else as instants
    (the envelope schema also takes other RFC 3339 forms)."""
    if len(at) == len(than) == 24 and at[-1] == than[-1] == "Z":
        return at < than
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")) < datetime.fromisoformat(than.replace("Z", "+00:00"))
    except ValueError:  # a form fromisoformat cannot read: the schema took it, the chain check decides
        return False


def _parsed(text: str) -> Any:
    """Parse one line's text.

    Raises:
        _Refused: broken JSON, with its column.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        why, column = error.msg, error.colno
    # raised outside the handler: an error raised in it would keep the decoder's error, its
    # traceback and this frame in a cycle, which the import (collector paused) never frees
    raise _Refused("archive.bad_json", Said("this line is not JSON: %(why)s", why=why), column)


def _event(envelope: Any, known_at: set[str]) -> StoredEvent:
    """Turn one parsed line into a stored event, or say why it is not one.

    Raises:
        _Refused: an envelope that breaks the envelope schema.
    """
    if not isinstance(envelope, dict):
        raise _Refused(
            "archive.bad_envelope", Said("each line of an archive is one event's envelope (a JSON object)"), 1
        )
    match = envelope.get("match")
    if not isinstance(match, str) or not match:
        raise _Refused("archive.bad_envelope", Said("the envelope has no match id ('match')"), 1)
    if not is_issued_match_id(match):
        raise _Refused(
            "archive.bad_match_id",
            Said(
                "the match id %(match)s is not one Tanteo issues (%(length)s letters, digits, '-' or '_', not "
                "starting with '-'): a restore keeps the ids the server gave",
                match=shown(match),
                length=MATCH_ID_LENGTH,
            ),
            None,
            match,
        )
    fields = _plain_fields(envelope, known_at)  # the common case is checked in one pass
    if fields is not None:
        private = envelope.get("private")
        return stored_event(
            match, *fields, tuple((tuple(item["path"]), item["salt"]) for item in private) if private else ()
        )
    try:  # the schema names what is wrong
        validate_envelope(envelope)
    except SchemaError as error:
        why: str | None = error.message
    else:
        why = None
    if why is not None:  # raised outside the handler (see _parsed)
        raise _Refused("archive.bad_envelope", Said("the envelope: %(problem)s", problem=why), None, match)
    salts = tuple((tuple(item["path"]), item["salt"]) for item in envelope.get("private") or ())
    return stored_event(
        match,
        envelope["seq"],
        envelope["type"],
        envelope["data"],
        envelope["at"],
        envelope["by"],
        envelope["key"],
        envelope["prev"],
        envelope["hash"],
        envelope.get("format", 1),
        salts,
    )


_AT = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)\.\d{3}Z")
_HEX = "0123456789abcdef"
"""A salt is 32 and a commitment 64 of these (what the schema's patterns say, checked without a regex)."""


_FIELDS = itemgetter("seq", "type", "data", "at", "by", "key", "prev", "hash", "format")
"""An archived envelope's fields after ``match``, in one C call (a KeyError when one is missing)."""

Fields = tuple[int, str, dict[str, Any], str, str, "str | None", str, str, int]


def _plain_fields(envelope: dict[str, Any], known_at: set[str]) -> Fields | None:
    """Return the fields of an envelope well formed as the ledger writes them (what envelope.v1.json
    says), or None when it is anything else.

    The archive's hot path: a 100k-line restore checks every line, and the schema's
    date-time format check alone cost more than the rest of the line (a time already found
    good in this file, in ``known_at``, is not matched again). Anything unusual
    (a ``null`` prev, an odd time) goes to the schema, which decides and explains. ``prev``
    and ``hash`` need only be strings here: the chain check that follows recomputes every hash
    and links every ``prev``, so anything but the right hex is refused there, at its line;
    the event type is checked by its schema.
    """
    try:
        fields: Fields = _FIELDS(envelope)
    except KeyError:
        return None
    seq, etype, data, at, by, key, prev, digest, fmt = fields
    size = len(envelope)  # the ten keys above and ``match`` are there: exactly these, or ``private`` too
    if not (
        (size == 10 or (size == 11 and "private" in envelope and _plain_salts(envelope["private"])))
        and type(seq) is int
        and seq >= 1
        and type(etype) is str
        and type(data) is dict
        and type(by) is str
        and (key is None or type(key) is str)
        and type(prev) is str
        and type(digest) is str
        and (fmt == 1 or fmt == 2)
        and type(fmt) is int
        and type(at) is str
    ):
        return None
    if at in known_at:
        return fields
    if _AT.fullmatch(at) is None:
        return None
    known_at.add(at)
    return fields


_SALT_FIELDS = itemgetter("path", "salt", "commitment")


def _plain_salts(items: Any) -> bool:
    """Whether listed private values are well formed: ``[{"path": [...], "salt": hex, "commitment": hex}, …]``."""
    if type(items) is not list or not items or len(items) > 1000:  # the bounds of envelope.v1.json
        return False
    for item in items:
        if type(item) is not dict or len(item) != 3:
            return False
        try:
            path, salt, digest = _SALT_FIELDS(item)  # with three keys: exactly these
        except KeyError:
            return False
        if type(path) is not list or not 0 < len(path) <= 16:
            return False
        for step in path:
            if not ((type(step) is str and len(step) <= 64) or (type(step) is int and 0 <= step <= 1000)):
                return False
        if not (
            type(salt) is str
            and len(salt) == 32
            and not salt.strip(_HEX)
            and type(digest) is str
            and len(digest) == 64
            and not digest.strip(_HEX)
        ):
            return False
    return True


def _match_named(text: str) -> str | None:
    """Return the match id a damaged line still shows (``"match":"…"``), or None."""
    at = text.find('"match"')
    if at < 0:
        return None
    rest = text[at + len('"match"') :].lstrip()
    if not rest.startswith(":"):
        return None
    rest = rest[1:].lstrip()
    if not rest.startswith('"'):
        return None
    end = rest.find('"', 1)
    return rest[1:end] or None if end > 0 else None
