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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ledger.records import StoredEvent, stored_event
from schemas import SchemaError, validate_envelope


@dataclass(frozen=True)
class LineError:
    """Why one line (or a match starting at it) could not be imported."""

    line: int
    column: int | None
    code: str
    message: str
    match: str | None = None

    def json(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "code": self.code, "message": self.message,
                "match": self.match}


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


def archive_line(envelope: Mapping[str, Any]) -> bytes:
    """Return one archive line (with its newline) for an envelope as the ledger lists it."""
    return orjson.dumps(envelope) + b"\n"


def read_archive(lines: Iterable[bytes | str]) -> tuple[list[ArchivedMatch], list[LineError]]:
    """Read an archive into its matches, in the order they first appear, and the lines refused.

    A refused line names the match it seems to come from when its text still shows a
    ``"match": "…"`` field: the importer then refuses that whole match, so that a damaged
    last line never lets the rest of its match in as if it were complete.
    """
    grouped: dict[str, tuple[list[StoredEvent], list[int]]] = {}
    errors: list[LineError] = []
    for number, raw in enumerate(lines, 1):
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
        try:
            event = _event(text)
        except _Refused as refused:
            errors.append(LineError(number, refused.column, refused.code, refused.message,
                                    refused.match or _match_named(text)))
            continue
        events, numbers = grouped.setdefault(event.match, ([], []))
        events.append(event)
        numbers.append(number)
    matches = [ArchivedMatch(mid, tuple(events), tuple(numbers)) for mid, (events, numbers) in grouped.items()]
    return matches, errors


class _Refused(Exception):
    def __init__(self, code: str, message: str, column: int | None = None, match: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.column, self.match = code, message, column, match


def _event(text: str) -> StoredEvent:
    """Decode one line into a stored event, or say why it is not one.

    Raises:
        _Refused: broken JSON (with its column), or an envelope that breaks the envelope schema.
    """
    try:
        envelope = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise _Refused("archive.bad_json", f"this line is not JSON: {error.msg}", error.colno) from None
    if not isinstance(envelope, dict):
        raise _Refused("archive.bad_envelope", "each line of an archive is one event's envelope (a JSON object)", 1)
    match = envelope.get("match")
    if not isinstance(match, str) or not match:
        raise _Refused("archive.bad_envelope", "the envelope has no match id ('match')", 1)
    if not _plain_envelope(envelope):  # the common case is checked in one pass; the schema names what is wrong
        try:
            validate_envelope(envelope)
        except SchemaError as error:
            raise _Refused("archive.bad_envelope", f"the envelope: {error.message}", None, match) from None
    salts = tuple((tuple(item["path"]), item["salt"]) for item in envelope.get("private") or ())
    return stored_event(match, envelope["seq"], envelope["type"], envelope["data"], envelope["at"], envelope["by"],
                        envelope["key"], envelope["prev"], envelope["hash"], envelope.get("format", 1), salts)


_ENVELOPE_KEYS = frozenset({"match", "seq", "type", "data", "at", "by", "key", "prev", "hash", "format"})
_AT = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)\.\d{3}Z")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SALT = re.compile(r"[0-9a-f]{32}")


def _plain_envelope(envelope: dict[str, Any]) -> bool:
    """Whether an envelope is well formed as the ledger writes them (what envelope.v1.json says).

    The archive's hot path: a 100k-line restore checks every line, and the schema's
    date-time format check alone cost more than the rest of the line. Anything unusual
    (a ``null`` prev, an odd time) goes to the schema, which decides and explains. ``prev``
    and ``hash`` need only be strings here: the chain check that follows recomputes every hash
    and links every ``prev``, so anything but the right hex is refused there, at its line;
    the event type is checked by its schema.
    """
    get = envelope.get
    seq, at = get("seq"), get("at")
    return (
        (envelope.keys() == _ENVELOPE_KEYS or (len(envelope) == 11 and "private" in envelope
                                               and _plain_salts(envelope["private"])))
        and type(seq) is int and seq >= 1
        and type(get("type")) is str and type(get("data")) is dict and type(get("by")) is str
        and (get("key") is None or type(get("key")) is str)
        and type(get("prev")) is str and type(get("hash")) is str
        and type(at) is str and _AT.fullmatch(at) is not None
        and get("format") in (1, 2)
    )


_SALT_KEYS = frozenset({"path", "salt", "commitment"})


def _plain_salts(items: Any) -> bool:
    """Whether listed private values are well formed: ``[{"path": [...], "salt": hex, "commitment": hex}, …]``."""
    if type(items) is not list or not items or len(items) > 1000:  # the bounds of envelope.v1.json
        return False
    for item in items:
        if type(item) is not dict or item.keys() != _SALT_KEYS:
            return False
        path, salt, digest = item["path"], item["salt"], item["commitment"]
        if type(path) is not list or not 0 < len(path) <= 16 or not all(
                (type(p) is str and len(p) <= 64) or (type(p) is int and 0 <= p <= 1000) for p in path):
            return False
        if type(salt) is not str or _SALT.fullmatch(salt) is None or type(digest) is not str or _HEX64.fullmatch(digest) is None:
            return False
    return True


def _match_named(text: str) -> str | None:
    """Return the match id a damaged line still shows (``"match":"…"``), or None."""
    at = text.find('"match"')
    if at < 0:
        return None
    rest = text[at + len('"match"'):].lstrip()
    if not rest.startswith(":"):
        return None
    rest = rest[1:].lstrip()
    if not rest.startswith('"'):
        return None
    end = rest.find('"', 1)
    return rest[1:end] or None if end > 0 else None


def archive_lines(envelopes: Iterable[Mapping[str, Any]]) -> Iterator[bytes]:
    """Return the archive lines of a stream of envelopes."""
    return (archive_line(envelope) for envelope in envelopes)
