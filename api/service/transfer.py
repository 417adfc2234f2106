"""Export and import: the lossless archive, the text notation, spreadsheets; Flask-free.

An archive import recreates each match with the same id, seqs, times, recorders and hashes
through the ledger's one import path (:meth:`ledger.Ledger.import_matches`): the chain is
recomputed first, then every event is checked again — its shape by the JSON Schema, the
rules by the same fold an append runs (``Service._fold_batch``), inside the ledger's write
transaction (a chunk of matches per transaction, a savepoint each). A text import
(``docs/NOTATION.md``) records each match's valid prefix through :meth:`Service.record`,
like a scorer would. A match that is already stored, event for event, is reported as unchanged; one
that differs, or whose chain or rules fail, is refused with its line while the other matches
of the file are imported. Imported matches get new write tokens (an archive never carries
one).

The report has the shape of VOCABULARY's import response::

    {"imported": [{"id", "token", "version", "head", "lines": [first, last]}],
     "unchanged": [{"id", "version", "head", "lines"}],
     "errors": [{"line", "column", "code", "message", "match"}]}
"""

from __future__ import annotations

import contextlib
import csv
import io
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

import orjson

from api.languages import DEFAULT, STATUSES, say_in
from api.service.tokens import AuthError, hash_token, new_token
from engines import get_engine
from engines.base import Engine, Event, RuleViolation, UnknownGame, collector_paused, events_from, walk
from ledger.records import StoredEvent, is_placeholder
from ledger import CLUB_LOG, ChainBroken, MatchExists, MatchImport, MatchNotFound, StorageUnavailable
from replays.archive import ArchivedMatch, LineError, archive_line, damaged_match, iter_archive, read_archive
from replays.lines import MAX_ERRORS, ErrorLog, more_errors_said, not_a_record, unread_said
from replays.notation import (
    NOT_NOTATION,
    NotationError,
    TextMatch,
    Written,
    card_problem,
    coerce,
    column_of,
    deck_of,
    iter_text,
    value_at,
    write_text,
)
from schemas import SchemaError, validate_club_event, validate_event
from api.service.reader import roster_listing
from api.service.words import grouped, said
from engines.said import Counted, Joined, Said

if TYPE_CHECKING:
    from api.service import Service


def match_meta(data: Any) -> dict[str, Any]:
    from api.service import match_meta as meta_of

    return meta_of(data)


PAGE = 200


class NothingImported(Exception):
    """An import of which nothing could be imported: ``report`` lists every error by line."""

    def __init__(self, report: dict[str, Any]) -> None:
        errors = report["errors"]
        first = errors[0] if errors else None
        count = len(errors) + report.get("moreErrors", 0)
        head = (
            Counted(
                "nothing was imported: %(count)s error (first: line %(line)s: %(message)s)",
                "nothing was imported: %(count)s errors (first: line %(line)s: %(message)s)",
                count,
                count=grouped(count),
                line=first["line"],
                message=first["message"],
            )
            if first
            else Counted(
                "nothing was imported: %(count)s error",
                "nothing was imported: %(count)s errors",
                count,
                count=grouped(count),
            )
        )
        more = [report["moreErrorsDetail"]] if report.get("moreErrors") else []
        more += [report["unreadLinesDetail"]] if report.get("unreadLines") else []
        self.message: str = Joined([head, *more], "; ") if more else head
        super().__init__(self.message)
        self.report = report


class ImportStopped(Exception):
    """An archive import that stopped before the end of the file, after some matches were stored.

    Each match is stored whole or not at all, but the write tokens of the matches stored so
    far exist only in ``report`` (only their hashes are kept): whoever stops an import must
    still be shown them. ``why`` says what stopped it (the person's Ctrl-C, a storage fault,
    a worker process that died), ``cause`` is that error (None for a stop that was asked).
    """

    def __init__(self, report: dict[str, Any], why: str, cause: Exception | None = None, *, text: bool = False) -> None:
        count = len(report["imported"])
        stored: str
        if not count:
            stored = Said("nothing was imported; importing the same file again starts it over")
        elif text:  # a text file has no match ids: importing it again would start every match again
            stored = Counted(
                "%(n)s match was imported before it (listed with their new write tokens; the last one holds the "
                "events up to its version); a text file names no match, so importing it again would import these "
                "again too: import only the matches after them",
                "%(n)s matches were imported before it (listed with their new write tokens; the last one holds the "
                "events up to its version); a text file names no match, so importing it again would import these "
                "again too: import only the matches after them",
                count,
            )
        else:
            stored = Counted(
                "%(n)s match was imported before it, each whole (listed with their new write tokens); importing the "
                "same file again imports the rest and reports those as unchanged",
                "%(n)s matches were imported before it, each whole (listed with their new write tokens); importing "
                "the same file again imports the rest and reports those as unchanged",
                count,
            )
        self.message: str = Said(
            "the import stopped before the end of the file (%(why)s); %(stored)s", why=why, stored=stored
        )
        super().__init__(self.message)
        self.report = report
        self.why = why
        self.cause = cause


class ImportBusy(Exception):
    """Another import is running in this server process (one at a time: answered 503 ``import.busy``)."""

    def __init__(self) -> None:
        self.message = Said(
            "another import is running on this server; one import runs at a time, so send this "
            "one again once it has finished"
        )
        super().__init__(self.message)


class Cut(Exception):
    """An import cut short by a bound of the server (time, size): it stops between two lines or
    two matches, with what it stored so far (:class:`ImportStopped`); ``message`` says which."""

    message: str


class OutOfTime(Cut):
    """An import that ran past its time budget (``TANTEO_IMPORT_SECONDS``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.message = Said(
            "it had run for %(seconds)s seconds, the longest an import may take on this server; split "
            "the file in smaller ones, or import it with 'tanteo import' on the server",
            seconds=int(seconds) if seconds == int(seconds) else format(seconds, "g"),
        )
        super().__init__(self.message)


class TooLarge(Cut):
    """A body sent without a length that grew past the largest file an import takes (``limit`` bytes),
    found while it was read (a body with a length is refused before)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.message = Said(
            "the file is larger than %(limit)s bytes, the most an import takes on this server; split it "
            "in smaller ones, or import it with 'tanteo import' on the server",
            limit=grouped(limit),
        )
        super().__init__(self.message)


class Deadline:
    """When an import must stop: ``seconds`` from now (None: never)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def check(self) -> None:
        """Raise :class:`OutOfTime` once the time is up."""
        if self.at is not None and time.monotonic() > self.at:
            raise OutOfTime(self.seconds or 0)

    def lines(self, lines: Iterable[Any], every: int = 256) -> Iterator[Any]:
        """Yield ``lines``, checking the time every ``every`` of them."""
        if self.at is None:
            yield from lines
            return
        for number, line in enumerate(lines):
            if number % every == 0:
                self.check()
            yield line


def _listed(
    report: dict[str, Any],
    errors: ErrorLog[Any],
    as_json: Callable[[Any], dict[str, Any]],
    unread: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Put an import's errors in its report: the first :data:`MAX_ERRORS` in the file and, when
    there were more, ``moreErrors`` (their count) and ``moreErrorsDetail`` (that count in words);
    when the file was not read to its end (``unread``: how many lines were left, from which),
    ``unreadLines`` and ``unreadLinesDetail``."""
    report["errors"] = [as_json(e) for e in errors.kept()]
    if errors.more:
        report["moreErrors"] = errors.more
        report["moreErrorsDetail"] = more_errors_said(errors.more, errors.limit)
    if unread is not None and unread[0]:
        report["unreadLines"] = unread[0]
        report["unreadLinesDetail"] = unread_said(*unread)
    return report


class _Refused(Exception):
    def __init__(self, line: int, code: str, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.error = (line, column, code, message)

    def of(self, match_id: str) -> LineError:
        """The report's error for match ``match_id``."""
        line, column, code, message = self.error
        return LineError(line, column, code, message, match_id)


# --------------------------------------------------------------------------- export


ARCHIVE_NEEDS_KEY = Said(
    "the archive of this match holds cards the rules still hide, with the salts that prove "
    "them: exporting it needs the match's write key. Without it, export the text notation "
    "(format=text): it imports as a match in which those cards are unknown"
)
"""Why an open reader's archive export of a match in play is refused (docs/HTTP.md, "What an open read shows")."""


def match_lines(service: Service, match_id: str, *, token: str | None = None, full: bool = False) -> Iterator[bytes]:
    """Return a match's archive lines, one stored event each: the lossless archive.

    ``full`` is the database owner's form (the command line's backup). Otherwise the archive
    is a restore, so it must hold every value: with the write token, once the match is over,
    or while nothing the match holds is still hidden (no card dealt, or every hand ended) the
    open listing is that archive; a match in play that hides a card cannot be restored from
    its open listing (the rules need the values it hides), so its archive needs the key. The
    open, importable copy of such a match is its text notation (:func:`match_text`).

    Raises:
        MatchNotFound: no such match.
        AuthError: a token that is not this match's; ``auth.missing`` for an open reader of a
            match in play (:data:`ARCHIVE_NEEDS_KEY`).
    """
    reader = service.reader(match_id, token, owner=full)
    if not reader.hides_nothing:
        raise AuthError("auth.missing", ARCHIVE_NEEDS_KEY)
    return (archive_line(envelope) for envelope in reader.listing(reader.stored))


def all_lines(service: Service, *, full: bool = False, **filters: str | None) -> Iterator[bytes]:
    """Return the archive lines of every match the filters keep (those of the list), oldest match first.

    Without ``full`` (an open reader of the whole database), a match in play that still hides
    a card is left out: its archive needs its write key (:data:`ARCHIVE_NEEDS_KEY`).
    """
    ids: list[str] = []
    offset = 0
    while True:
        rows, total = service.ledger.list_matches(**filters, limit=PAGE, offset=offset)
        ids.extend(r.id for r in rows)
        offset += len(rows)
        if not rows or offset >= total:
            break
    for match_id in reversed(ids):
        try:
            yield from match_lines(service, match_id, full=full)
        except AuthError:
            continue  # a match in play that hides a card: its archive needs its key
    if not any(value is not None for value in filters.values()):  # the whole database: the clubs' logs too
        clubs: list[str] = []
        offset = 0
        while True:
            rows, total = service.ledger.list_matches(game=CLUB_LOG, limit=PAGE, offset=offset)
            clubs.extend(r.id for r in rows)
            offset += len(rows)
            if not rows or offset >= total:
                break
        for club_id in reversed(clubs):
            yield from (archive_line(envelope) for envelope in roster_listing(service.ledger.read(club_id)))


def count_matches(service: Service) -> int:
    """Return how many matches the database holds (for a progress bar)."""
    return service.ledger.list_matches(limit=0)[1]


# --------------------------------------------------------------------------- import


CHUNK_EVENTS = 20_000
"""How many events an archive import writes per transaction (one savepoint per match in it):
one durable commit per chunk instead of one per match, and the write lock is let go between
chunks so that scorers at other tables are not kept waiting by a long restore."""

PARALLEL_FROM = 10_000
"""An archive with at least this many events to check has its schemas and rules checked by
worker processes, one per core but one, while this process reads, recomputes the chains and
writes on the core left (the checks are pure Python: one process runs one at a time). A
smaller one is checked here: starting the workers would cost more than they save. ``tanteo import`` restores a club's
database through this path; ``POST /matches/import`` runs among a web server's threads, so
it is checked in its own process (see :func:`import_workers`)."""

TASK_EVENTS = 2_000
"""About how many events one task of a worker holds: the first matches are written while the
workers check the next ones."""

WORKERS_CHUNK_EVENTS = 4_000
"""The chunk per transaction when workers check: smaller, so that this process writes one
while the workers check the next (a commit per 4,000 events costs a few per cent)."""


COMPRESSED = {
    b"\x1f\x8b": ("gzip", "gunzip -k"),
    b"PK\x03\x04": ("zip", "unzip"),
    b"BZh": ("bzip2", "bunzip2 -k"),
    b"\xfd7zXZ\x00": ("xz", "unxz -k"),
    b"(\xb5/\xfd": ("zstd", "unzstd"),
}
"""The first bytes of a compressed file, its kind and the command that unpacks it."""


def compressed(raw: bytes) -> tuple[str, str] | None:
    """Return the kind of a compressed file given to an import and the command that unpacks it, or None.

    A backup gzipped to save room was read as the text notation (an unclosed quote on line 1)
    or as hundreds of lines that are not JSON: the import says what it is instead.
    """
    return next((found for magic, found in COMPRESSED.items() if raw.startswith(magic)), None)


def import_archive(
    service: Service,
    lines: Iterable[bytes | str],
    *,
    progress: Any = None,
    workers: int | None = None,
    stop: Callable[[], bool] | None = None,
    seconds: float | None = None,
    rest: Callable[[], int] | None = None,
) -> dict[str, Any]:
    """Import every match of an archive that is sound; report the rest by line.

    ``progress``, if given, is called with the number of events of each match handled.
    ``workers`` is how many processes check the schemas and rules: None for one per core but
    one when the archive has :data:`PARALLEL_FROM` events or more (else none), 0 for none.
    The report is the same either way. ``stop``, if given, is asked between matches whether
    to stop there (the command line's Ctrl-C). ``seconds`` is the time budget: past it the
    import stops (between two lines or two matches) as a stop does, saying so.

    ``lines`` that are not a list (a request body's lines, :func:`replays.lines.lines_of`)
    are read as they come, checked here (no workers), one match at a time
    (:func:`replays.archive.iter_archive`): each match's lines come together, as an export
    writes them, and a match is decided, and stored with its chunk, once its lines end; a
    line of a match that resumes after another began is refused by line. What is held is
    a chunk of :data:`CHUNK_EVENTS` events and one match, whatever the body's size. A body
    that shows it is no archive (more than :data:`MAX_ERRORS` errors before a single event)
    is read no further: its other lines are counted (``rest``: the stream's own count) and
    reported as ``unreadLines``. A list (the command line's file, read whole) may spread a
    match's lines over the file: each match is decided whole at the end. The report lists
    the first :data:`MAX_ERRORS` errors in the file, and counts the rest (``moreErrors``).

    Raises:
        ImportStopped: ``stop`` answered yes, the time ran out, or the storage or a worker
            failed, after some matches were stored or lines refused: it carries the report of
            those (their new tokens with them).
        StorageUnavailable, WorkersStopped: the same before anything was stored.
    """
    if workers and not isinstance(lines, list):
        lines = list(lines)
    deadline = Deadline(seconds)
    asked = stop or (lambda: False)

    def stopping() -> bool:
        deadline.check()
        return asked()

    # the matches are held decoded until stored: a chunk of them, or a whole file given as a list
    with collector_paused():
        return _import_archive(
            service, lines if isinstance(lines, list) else deadline.lines(lines), progress, workers, stopping, rest
        )


_Checked = tuple[Any, ...]
"""What checking one match's events found: ``("ok", changes)`` (the status and metadata its
match row takes), ``("shape", index, code, message)`` (an event breaks its schema: refused
before the chain is looked at) or ``("rules", index, code, message)`` (the fold refused it)."""


def _import_archive(
    service: Service,
    lines: list[bytes | str] | Iterator[bytes | str],
    progress: Any,
    workers: int | None,
    stop: Callable[[], bool],
    rest: Callable[[], int] | None = None,
) -> dict[str, Any]:
    imported: list[dict[str, Any]] = []
    unchanged: list[dict[str, Any]] = []
    errors: ErrorLog[LineError] = ErrorLog(MAX_ERRORS, names=damaged_match)
    pending: list[tuple[ArchivedMatch, MatchImport, str]] = []
    count = import_workers(workers, len(lines)) if isinstance(lines, list) else 0
    unread: list[tuple[int, int]] = []  # a body that is no archive: (lines left unread, the first of them)

    def handled(archived: ArchivedMatch) -> None:
        if progress is not None:
            progress(len(archived.events))

    def flush() -> None:
        results = service.ledger.import_matches([item for _, item, _ in pending])
        for (archived, _item, token), result in zip(pending, results):
            try:
                entry = _imported(archived, result, token)
            except _Refused as why:
                errors.append(why.of(archived.id))
            else:
                imported.append({**entry, "lines": [archived.lines[0], archived.lines[-1]]})
            handled(archived)
        pending.clear()

    def report() -> dict[str, Any]:
        imported.sort(key=lambda entry: entry["lines"][0])  # in the file's order (workers may settle a match late)
        unchanged.sort(key=lambda entry: entry["lines"][0])
        return _listed(
            {"imported": imported, "unchanged": unchanged}, errors, LineError.json, unread[0] if unread else None
        )

    try:
        settled = (
            _settled_by_workers(service, lines, count, errors, stop)
            if count and isinstance(lines, list)
            else _settled(service, lines, errors)
            if isinstance(lines, list)
            else _streamed(service, lines, errors, unread, rest)
        )
        with contextlib.closing(settled):  # a stop lets the workers go at once
            for archived, decision in settled:
                if stop():
                    raise _StopAsked  # the matches checked but not yet written are not: a stop writes nothing more
                if decision[0] != "import":
                    if decision[0] == "error":
                        errors.append(decision[1])
                    elif decision[0] == "unchanged":
                        unchanged.append({**decision[1], "lines": [archived.lines[0], archived.lines[-1]]})
                    handled(archived)
                    continue
                _, engine, checked = decision
                try:
                    pending.append(_ready(archived, engine, checked))
                except _Refused as why:
                    errors.append(why.of(archived.id))
                    handled(archived)
                    continue
                if sum(len(a.events) for a, _, _ in pending) >= (WORKERS_CHUNK_EVENTS if count else CHUNK_EVENTS):
                    flush()
        if pending:
            flush()
    except _StopAsked:
        raise ImportStopped(report(), Said("stopped on request")) from None
    except Cut as cut:
        raise ImportStopped(report(), cut.message, cut) from None
    except (StorageUnavailable, WorkersStopped) as error:
        if not imported:  # nothing stored: the error says it all
            raise
        said = getattr(error, "message", None) or _STOPPED_BY.get(getattr(error, "reason", ""), Said("a storage fault"))
        raise ImportStopped(report(), said, error) from error
    return report()


class _StopAsked(Exception):
    """The import was asked to stop (``stop`` said so) before the end of the file."""


_STOPPED_BY = {
    "busy": Said("the database was busy with other writes for too long"),
    "full": Said("the disk is full"),
    "read_only": Said("the database cannot be written"),
    "io": Said("the database could not be read or written"),
}
"""What stopped an import half-way, by :class:`StorageUnavailable` reason, for :class:`ImportStopped`."""


_Decision = tuple[Any, ...]
"""What becomes of a match read whole: ``("skip",)`` (a damaged line of it was reported),
``("error", LineError)``, ``("unchanged", entry)`` (stored already, event for event) or
``("import", engine, checked)`` (``checked``: what a worker found, None when checked here)."""


def _settled(
    service: Service, lines: Iterable[bytes | str], refused: ErrorLog[LineError]
) -> Generator[tuple[ArchivedMatch, _Decision], None, None]:
    """Read the whole file, then decide each match in the order it first appears."""
    matches, _ = read_archive(lines, errors=refused)
    damaged = set(refused.named)
    for archived in matches:
        yield archived, _decision(service, archived, damaged)


def _streamed(
    service: Service,
    lines: Iterable[bytes | str],
    refused: ErrorLog[LineError],
    unread: list[tuple[int, int]],
    rest: Callable[[], int] | None,
) -> Generator[tuple[ArchivedMatch, _Decision], None, None]:
    """Decide each match as soon as its lines end (a body read as it arrives: one match held)."""
    for archived in iter_archive(lines, refused, unread=unread, rest=rest):
        yield archived, _decision(service, archived, refused.named)


def _decision(service: Service, archived: ArchivedMatch, damaged: Collection[str | None]) -> _Decision:
    if archived.id in damaged:  # reported at the damaged line; a part of a match is not the match
        return ("skip",)
    try:
        opening = _opening(service, archived)
    except _Refused as why:
        return ("error", why.of(archived.id))
    if isinstance(opening, dict):
        return ("unchanged", opening)
    return ("import", opening, None)


ROSTER_IMPORT: Any = object()
"""What :func:`_opening` gives for a club's log: it is checked by the roster's rules, in this
process (a roster is short), not by a game's engine."""


def _opening(service: Service, archived: ArchivedMatch) -> Engine | dict[str, Any]:
    """Check the match's first event and whether the match is stored already; return its engine,
    or the unchanged entry when it is stored event for event.

    Raises:
        _Refused: the match does not start with a sound match_started, or it is stored
            already with other events.
    """
    first = archived.events[0]
    if first.seq == 1 and first.type == "club_started":  # a club's roster log (api.service.clubs)
        same = _already_stored(service, archived)
        return ROSTER_IMPORT if same is None else same
    if first.seq != 1 or first.type != "match_started":
        raise _Refused(
            archived.lines[0],
            "import.no_start",
            Said("match %(match)s does not start with its match_started event (seq 1) on this line", match=archived.id),
        )
    try:
        validate_event(None, "match_started", first.data)
        engine = get_engine(first.data["game"])
    except (SchemaError, UnknownGame) as error:
        raise _Refused(archived.lines[0], getattr(error, "code", "game.unknown"), _say(error)) from None
    same = _already_stored(service, archived)
    return engine if same is None else same


def _ready(archived: ArchivedMatch, engine: Engine, checked: _Checked | None) -> tuple[ArchivedMatch, MatchImport, str]:
    """Return what the ledger imports for a match: its events, a new token's hash, and the rules'
    check run inside the write transaction (the fold itself, or what a worker's fold found).

    Raises:
        _Refused: an event breaks its schema.
    """
    events = archived.events
    if engine is ROSTER_IMPORT:
        return _ready_roster(archived)
    players = len(events[0].data["players"])
    if checked is None:  # checked here: the shapes now, the rules inside the transaction
        problem = _shape_problem(engine, events)
        if problem is not None:
            checked = ("shape", *problem)
    if checked is not None and checked[0] == "shape":
        _, index, code, message = checked
        raise _Refused(archived.lines[index], code, message)

    def check(current: int, stored: Any) -> dict[str, Any]:
        if checked is None:
            return _folded_changes(engine, events_from(stored), players, archived.id, {r.hash: r.seq for r in stored})
        if checked[0] == "rules":
            _, index, code, message = checked
            from api.service import EventRefused

            raise EventRefused(index, RuleViolation(code, message))
        return dict(checked[1])

    token = new_token()
    item = MatchImport(archived.id, engine.GAME, list(events[0].data["players"]), hash_token(token), events, check)
    return archived, item, token


def _ready_roster(archived: ArchivedMatch) -> tuple[ArchivedMatch, MatchImport, str]:
    """A club's log to import: each event's shape now, the roster's rules inside the transaction;
    a new key is made (the archive never holds one), as a match gets a new token.

    Raises:
        _Refused: an event breaks its schema.
    """
    from api.service import EventRefused
    from api.service.roster import Roster, apply

    for index, event in enumerate(archived.events):
        try:
            validate_club_event(event.type, event.data)
        except SchemaError as error:
            raise _Refused(archived.lines[index], error.code, _event_said(event, error.message)) from None

    def check(current: int, stored: Any) -> None:
        roster = Roster()
        for index, event in enumerate(stored):
            try:
                apply(roster, event.type, event.data, event.seq, event.at)
            except RuleViolation as error:
                raise EventRefused(index, error) from None

    key = new_token()
    item = MatchImport(archived.id, CLUB_LOG, [], hash_token(key), archived.events, check)
    return archived, item, key


def club_archive(service: Service, club_id: str) -> str:
    """A club's archive: its log, then the log of each of its matches (oldest first), as JSON Lines.

    The club's log holds no hidden value; a match still in play that hides a card is left out
    (its archive needs its write key, as in :func:`all_lines`).

    Raises:
        ClubNotFound: no such club.
    """
    roster = service.clubs.roster(club_id)
    out = [archive_line(envelope) for envelope in roster_listing(service.ledger.read(club_id))]
    for match_id in sorted(roster.matches, key=lambda m: roster.matches[m]["seq"]):
        try:
            out.extend(match_lines(service, match_id))
        except AuthError:
            continue
    return b"".join(out).decode("utf-8")


def _shape_problem(engine: Engine, events: Sequence[Any]) -> tuple[int, str, str] | None:
    """Return (index, code, message) of the first event after match_started whose data breaks
    its schema, or None."""
    for index in range(1, len(events)):
        event = events[index]
        try:
            validate_event(engine.GAME, event.type, event.data)
        except SchemaError as error:
            if unseen(event.data) != event.data:  # a placeholder never fits a schema: looked for only then
                return (
                    index,
                    "import.public_form",
                    Said(
                        "event %(seq)s holds a private value as its commitment only: this is the public form "
                        "of a match in play; export it with the match's write token (or after the match) to "
                        "import it",
                        seq=event.seq,
                    ),
                )
            return index, error.code, _event_said(event, error.message)
    return None


def _folded_changes(
    engine: Engine, events: list[Event], players: int, match_id: str, hashes: dict[str, int]
) -> dict[str, Any]:
    """Fold a whole match with every check an append runs; return its match row's status and
    metadata (as the log reads once corrected: an amend of match_started may retag it). Every
    confirmation's signature is checked again (``match_id`` and ``hashes``: what it was signed over).

    Raises:
        EventRefused: the first event that a check or the rules refuse.
    """
    from api.service import checked_steps

    state = None
    for step in checked_steps(engine, engine.GAME, events, events, 0, None, players, match_id=match_id, hashes=hashes):
        state = step.state
    if any(e.type == "amend" and e.data.get("target") == 1 for e in events):
        opening = next(walk(engine, events)).read.data  # match_started as the log now reads it
    else:
        opening = events[0].data  # as recorded (the fold above started the match from it)
    return {"status": "over" if engine.is_over(state) else "playing", "meta": match_meta(opening)}


def import_workers(asked: int | None, events: int) -> int:
    """How many worker processes check an import of ``events`` events (0: none, check here).

    Workers are forked, which is safe only in a process running no other thread (``tanteo
    import``); a web server's import, among its threads, is checked here.
    """
    if threading.active_count() > 1 or not hasattr(os, "fork"):
        return 0
    if asked is not None:
        return max(0, asked)
    if events < PARALLEL_FROM:
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores - 1  # this process reads, chains and writes: it keeps a core of its own


PIECE_LINES = 4_000
"""With workers, the file is read this many lines at a time, and the matches read whole are
sent to the workers at once: they check while the rest of the file is read."""


def _settled_by_workers(
    service: Service, lines: list[bytes | str], workers: int, refused: ErrorLog[LineError], stop: Callable[[], bool]
) -> Generator[tuple[ArchivedMatch, _Decision], None, None]:
    """Read the file piece by piece; send each match to ``workers`` processes for its schemas and
    rules as soon as a piece goes by without a line of it; once the whole file is read, yield
    each match's decision with what its worker found.

    The decisions are those of :func:`_settled`: a match is taken as read whole only
    provisionally, and one that a later line turns out to continue (a file whose matches are
    interleaved, or a damaged line naming it further down) is decided again, whole, and its
    worker's answer dropped. Nothing is yielded, so nothing written, before the file is read.
    The workers are forked (this process has no other thread: see :func:`import_workers`),
    so they start at once with everything imported; each gets a match's lines as they came
    and reads only the event fields the checks need.
    """
    groups: dict[str, tuple[list[StoredEvent], list[int]]] = {}
    decided: dict[str, tuple[ArchivedMatch, _Decision]] = {}
    sent: dict[str, tuple[int, int]] = {}  # match id -> (task, place in it)
    damaged: set[str | None] = set()
    tasks: list[Future[list[_Checked]]] = []
    task: list[tuple[str, int, list[bytes | str]]] = []
    size = 0
    # Forked before any thread of the pool starts (Python does so for the fork context); a
    # worker that dies (killed, out of memory) breaks the pool, which raises, never hangs.
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))

    def send() -> None:
        nonlocal task, size
        if task:
            tasks.append(pool.submit(_check_task, task))
            task, size = [], 0

    def settle(match_id: str) -> None:
        nonlocal size
        events, numbers = groups[match_id]
        archived = ArchivedMatch(match_id, tuple(events), tuple(numbers))
        decision = decided[match_id] = (archived, _decision(service, archived, damaged))
        if decision[1][0] == "import" and decision[1][1] is not ROSTER_IMPORT:
            engine = decision[1][1]
            sent[match_id] = (len(tasks), len(task))
            task.append((engine.GAME, len(events[0].data["players"]), [lines[n - 1] for n in numbers]))
            size += len(events)
            if size >= TASK_EVENTS:
                send()

    try:
        for start in range(0, len(lines), PIECE_LINES):
            if stop():
                raise _StopAsked
            matches, errors = read_archive(lines[start : start + PIECE_LINES], first=start + 1)
            refused.extend(errors)
            named = {e.match for e in errors if e.match}
            damaged |= named
            touched = named | {m.id for m in matches}
            for archived in matches:
                events, numbers = groups.setdefault(archived.id, ([], []))
                events.extend(archived.events)
                numbers.extend(archived.lines)
            for match_id in touched & decided.keys():  # it goes on: decided again once read whole
                del decided[match_id]
                sent.pop(match_id, None)
            for match_id in [m for m in groups if m not in decided and m not in touched]:
                settle(match_id)
        for match_id in [m for m in groups if m not in decided]:
            settle(match_id)
        send()
        found: dict[int, list[_Checked]] = {}
        for match_id, (archived, decision) in decided.items():
            if decision[0] == "import" and match_id in sent:
                number, place = sent[match_id]
                if number not in found:
                    found[number] = tasks[number].result()
                decision = ("import", decision[1], found[number][place])
            yield archived, decision
    except BrokenProcessPool:
        raise WorkersStopped() from None
    finally:  # an import stopped early (a storage fault) does not wait for checks nobody will read
        pool.shutdown(wait=True, cancel_futures=True)


class WorkersStopped(Exception):
    """A worker process checking an import stopped before it answered (killed, out of memory)."""

    def __init__(self) -> None:
        self.message: str = Said(
            "a worker process checking the rules stopped before it answered (was the machine out of "
            "memory?); the matches stored before it stay stored, and importing the file again reports them "
            "as unchanged; --workers 0 checks everything in one process"
        )
        super().__init__(self.message)


def _check_task(task: list[tuple[str, int, list[bytes | str]]]) -> list[_Checked]:
    """A worker's task: check each match's schemas, then its rules (see :data:`_Checked`)."""
    from api.service import EventRefused

    out: list[_Checked] = []
    with collector_paused():
        for game, players, raws in task:
            engine = get_engine(game)
            envelopes = [orjson.loads(raw) for raw in raws]
            events = [Event(e["seq"], e["type"], e["data"]) for e in envelopes]
            problem = _shape_problem(engine, events)
            if problem is not None:
                out.append(("shape", *problem))
                continue
            try:
                hashes = {str(e["hash"]): int(e["seq"]) for e in envelopes}
                match_id = str(envelopes[0].get("match") or "")
                out.append(("ok", _folded_changes(engine, events, players, match_id, hashes)))
            except EventRefused as refused:
                out.append(("rules", refused.index, refused.error.code, refused.error.message))
    return out


def _imported(archived: ArchivedMatch, result: Any, token: str) -> dict[str, Any]:
    """Turn the ledger's result for one match into the report's entry, or raise why it was refused.

    Raises:
        _Refused: the chain is broken, an event breaks the rules, the id was taken meanwhile.
    """
    from api.service import EventRefused

    events = archived.events
    if isinstance(result, ChainBroken):
        raise _Refused(
            archived.line_of(result.first_bad),
            "import.chain_broken",
            Said(
                "match %(match)s: the hash chain does not verify: %(reason)s",
                match=archived.id,
                reason=said(result.reason),
            ),
        )
    if isinstance(result, EventRefused):
        event = events[result.index]
        raise _Refused(archived.lines[result.index], result.error.code, _event_said(event, result.error.message))
    if isinstance(result, MatchExists):  # stored by another writer since we looked
        raise _Refused(
            archived.lines[0],
            "import.exists",
            Said("match %(match)s was stored by someone else while this file was imported", match=archived.id),
        )
    if isinstance(result, Exception):
        raise result
    # Not kept in the state cache: a restore brings back many matches at once, and weighing
    # each for the cache's byte budget cost a tenth of the import (the newest would only push
    # the others out); the first read folds the match as after a restart.
    return {"id": archived.id, "token": token, "version": result.version, "head": result.head}


def _already_stored(service: Service, archived: ArchivedMatch) -> dict[str, Any] | None:
    """Return the unchanged entry when the match is stored event for event; None when it is new.

    Raises:
        _Refused: a match with this id is stored with other events (named at the first line
            that differs).
    """
    try:
        record = service.ledger.get_match(archived.id)
    except MatchNotFound:
        return None
    stored = service.ledger.read(archived.id)
    for event, line in zip(archived.events, archived.lines):
        if event.seq > len(stored) or stored[event.seq - 1] != event:  # every field, salts included
            raise _Refused(
                line,
                "import.exists_different",
                Said(
                    "match %(match)s is already stored and its event %(seq)s differs from this line; "
                    "nothing of it was imported",
                    match=archived.id,
                    seq=event.seq,
                ),
            )
    if len(stored) != len(archived.events):
        raise _Refused(
            archived.lines[-1],
            "import.exists_different",
            Said(
                "match %(match)s is already stored with %(stored)s events, this file has %(here)s; "
                "nothing of it was imported",
                match=archived.id,
                stored=len(stored),
                here=len(archived.events),
            ),
        )
    return {"id": record.id, "version": record.version, "head": record.head}


def _say(error: Exception) -> str:
    if isinstance(error, UnknownGame):
        return Said("there is no game %(game)s; GET /games lists them", game=error.game)
    message = getattr(error, "message", None)
    return message if isinstance(message, str) else str(error)


def _event_said(event: Any, message: str) -> str:
    """Why an archived event was refused, said with its seq and type: ``event 5 (play): …``."""
    return Said("event %(seq)s (%(type)s): %(message)s", seq=event.seq, type=event.type, message=message)


# --------------------------------------------------------------------------- text notation


def match_text(service: Service, match_id: str, *, token: str | None = None, full: bool = False) -> str:
    """Return a match in the portable text notation (``docs/NOTATION.md``), as this reader may see it.

    A card this reader may not see is written ``??``, as a scorer who did not see the card
    would have recorded it (:meth:`~api.service.reader.Reader.exported`): an open export of a
    match in play imports as a new match in which those cards are unknown.

    Raises:
        MatchNotFound: no such match.
        AuthError: a token that is not this match's.
    """
    reader = service.reader(match_id, token, owner=full)
    events = reader.exported()
    return write_text(events[0][2], events[1:], reader.stored[-1].hash)


def unseen(value: Any) -> Any:
    """Return ``value`` with every hidden private value (its placeholder) written as the unknown card ``??``."""
    if is_placeholder(value) or (isinstance(value, dict) and value == {"private": True}):  # format 1 has no commitment
        return "??"
    if isinstance(value, dict):
        return {k: unseen(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unseen(v) for v in value]
    return value


def import_text(
    service: Service,
    text: str | Iterable[str],
    *,
    by: str = "",
    stop: Callable[[], bool] | None = None,
    seconds: float | None = None,
    rest: Callable[[], int] | None = None,
) -> dict[str, Any]:
    """Import every match of a text file, leniently: each keeps its valid prefix and stays open.

    Every error is reported by line and column: what cannot be read, what breaks an event's
    schema, and the first event the rules refuse (the events before it are recorded). The
    report lists the first :data:`MAX_ERRORS` in the file and counts the rest (``moreErrors``).

    ``text`` is the whole text or its lines, read as they come (:func:`replays.notation.iter_text`):
    a match is recorded once the next one starts, so what an import holds is one match.
    ``stop`` (the command line's Ctrl-C) is asked between two matches; ``seconds`` is the time
    budget, checked between lines and between matches. A stop, the time running out once
    something was found, or a storage fault once a match was started, raises
    :class:`ImportStopped` with the matches started so far and their write tokens, which exist
    nowhere else (a fault in the middle of a match leaves it with the events recorded before
    it: its version says how many).

    A file that has shown it is no Tanteo record (more than :data:`MAX_ERRORS` errors before
    any match could start, :func:`replays.lines.not_a_record`; or no match tags in its first
    lines, :data:`replays.notation.NOT_NOTATION`) is read no further: the report
    counts the lines left (``unreadLines``), with ``rest`` (how many lines the stream under
    ``text`` still holds, :meth:`replays.lines.Lines.count_rest`) when given, else by going
    through them.
    """
    imported: list[dict[str, Any]] = []
    errors: ErrorLog[dict[str, Any]] = ErrorLog(MAX_ERRORS)
    deadline = Deadline(seconds)
    source = iter(
        text.split("\n")[:-1]
        if isinstance(text, str) and text.endswith("\n")
        else text.split("\n")
        if isinstance(text, str)
        else text
    )
    read = 0  # lines handed to the reader so far

    def counted() -> Iterator[str]:
        nonlocal read
        for line in source:
            read += 1
            yield line

    unread: tuple[int, int] | None = None  # (lines not read, the first of them)

    def report() -> dict[str, Any]:
        return _listed({"imported": imported, "unchanged": []}, errors, dict, unread)

    try:
        for written in iter_text(deadline.lines(counted())):
            deadline.check()
            if stop is not None and stop():
                raise _StopAsked
            errors.extend(_text_error(e, None) for e in written.errors)
            _import_written(service, written, by, imported, errors)
            if not_a_record(errors, bool(imported)) or any(e.code == NOT_NOTATION for e in written.errors):
                # no Tanteo record: the lines left are counted, not read
                left = rest() if rest is not None else sum(1 for _ in source)
                unread = (read - written.last_line + left, written.last_line + 1)
                break
    except _StopAsked:
        raise ImportStopped(report(), Said("stopped on request"), text=True) from None
    except Cut as cut:
        raise ImportStopped(report(), cut.message, cut, text=True) from None
    except StorageUnavailable as error:
        if not imported:  # nothing stored: the error says it all
            raise
        raise ImportStopped(report(), _STOPPED_BY[error.reason], error, text=True) from error
    return report()


def _text_error(error: NotationError, match: str | None) -> dict[str, Any]:
    return {"line": error.line, "column": error.column, "code": error.code, "message": error.message, "match": match}


def _import_written(
    service: Service, written: TextMatch, by: str, imported: list[dict[str, Any]], errors: ErrorLog[dict[str, Any]]
) -> None:
    """Check and record one match read from text; append what happened to ``imported``/``errors``."""
    if written.broken_at == 0 or not written.start:
        return
    start = coerce(None, "match_started", written.start, written.start_bare)
    try:
        validate_event(None, "match_started", start)
        engine = get_engine(start["game"])
        engine.start(start)
    except SchemaError as error:
        column = column_of(error.path, written.start_columns, 1)
        line = _line_of_tag(written, error.path)
        errors.append({"line": line, "column": column, "code": error.code, "message": error.message, "match": None})
        return
    except (RuleViolation, UnknownGame) as error:
        errors.append(
            {
                "line": written.line,
                "column": 1,
                "code": getattr(error, "code", "game.unknown"),
                "message": _say(error),
                "match": None,
            }
        )
        return
    events, stop = _shaped(engine.GAME, written, errors)
    created = service.start_match(start, by=by)
    match_id = created["id"]
    # listed at once, and kept up to date chunk by chunk: a storage fault later in this match
    # still reports its token, with the version it reached
    entry = {
        "id": match_id,
        "token": created["token"],
        "version": created["version"],
        "head": created["head"],
        "lines": [written.line, written.last_line],
    }
    imported.append(entry)
    for problem in errors:
        if problem["match"] is None and written.line <= problem["line"] <= written.last_line:
            problem["match"] = match_id
    good = events[:stop]
    from api.service import EventRefused

    for first in range(0, len(good), 200):
        chunk = good[first : first + 200]
        try:
            done = service.record(
                match_id, [{"type": w.type, "data": w.data} for w in chunk], token=created["token"], by=by
            )
            entry.update(version=done.version, head=done.head)
        except EventRefused as refused:
            bad = chunk[refused.index]
            if refused.index:
                done = service.record(
                    match_id,
                    [{"type": w.type, "data": w.data} for w in chunk[: refused.index]],
                    token=created["token"],
                    by=by,
                )
                entry.update(version=done.version, head=done.head)
            inner = refused.error
            column = (
                column_of(getattr(inner, "path", "$") or "$", bad.columns, bad.column)
                if isinstance(inner, SchemaError)
                else bad.column
            )
            errors.append(
                {"line": bad.line, "column": column, "code": inner.code, "message": inner.message, "match": match_id}
            )
            break
    _say_what_was_left(written, entry["version"], errors)


def _say_what_was_left(written: TextMatch, version: int, errors: ErrorLog[dict[str, Any]]) -> None:
    """Say, at the error that ended a match's recorded prefix, that nothing after it was recorded.

    The rules are checked up to the first event they (or its shape) refuse: the state after
    a refused move is unknown, so the later lines are read and their shapes checked (each
    shape error is reported) but no rule can judge them.
    """
    left = written.events[version - 1 :]  # event seq version + 1 on (written.events starts at seq 2)
    if not left:
        return
    first = left[0].line
    ending = next((e for e in errors if e["line"] == first), None)
    if ending is None:
        return
    later = [w.line for w in left[1:]]
    if later:
        checked = (
            Said("line %(line)s was checked for its shape only", line=later[0])
            if later[0] == later[-1]
            else Said("lines %(first)s to %(last)s were checked for their shape only", first=later[0], last=later[-1])
        )
        ending["message"] = Said(
            "%(message)s — nothing from this line on was recorded; %(checked)s "
            "(the rules judge a move only after every move before it)",
            message=ending["message"],
            checked=checked,
        )
    else:
        ending["message"] = Said("%(message)s — this line was not recorded", message=ending["message"])


def _shaped(game: str, written: TextMatch, errors: ErrorLog[dict[str, Any]]) -> tuple[list[Written], int]:
    """Read each event's values as its schema expects; report every shape error; return the events and
    how many of them form the valid prefix."""
    limit = len(written.events) if written.broken_at is None else written.broken_at
    stop = limit
    types = {1: "match_started"}
    for index, event in enumerate(written.events[:limit]):
        seq = index + 2
        types[seq] = event.type
        if event.number is not None and event.number != seq:
            errors.append(
                {
                    "line": event.line,
                    "column": event.column - len(str(event.number)) - 2,
                    "code": "notation.bad_number",
                    "message": Said(
                        "this line is numbered %(number)s but it is event %(seq)s of the match "
                        "(number every event from 2 on, or leave the numbers out)",
                        number=event.number,
                        seq=seq,
                    ),
                    "match": None,
                }
            )
            stop = min(stop, index)
        event.data = coerce(game, event.type, event.data, event.bare)
        if event.type == "amend" and isinstance(event.data.get("data"), dict):
            target = types.get(event.data.get("target"))  # type: ignore[arg-type]
            if target is not None:
                inner = {
                    "$" + p[len("$.data") :]: w
                    for p, w in event.bare.items()
                    if p.startswith("$.data.") or p.startswith("$.data[")
                }
                event.data = {
                    **event.data,
                    "data": coerce(game if target != "match_started" else None, target, event.data["data"], inner),
                }
        try:
            validate_event(game, event.type, event.data)
        except SchemaError as error:
            message: str = Said("%(where)s: %(message)s", where=event.type, message=error.message)
            code = error.code
            bad_card = card_problem(value_at(event.data, error.path), deck_of(written.start))
            if bad_card is not None and any(w in error.message for w in ("card", "accepted forms", "does not match")):
                code, message = "notation.bad_card", bad_card
            errors.append(
                {
                    "line": event.line,
                    "column": column_of(error.path, event.columns, event.column),
                    "code": code,
                    "message": message,
                    "match": None,
                }
            )
            stop = min(stop, index)
    return written.events, stop


def _line_of_tag(written: TextMatch, path: str) -> int:
    """The line of the tag a match_started path points into (the match's first line if unknown)."""
    return column_of(path, written.start_lines, written.line)


# --------------------------------------------------------------------------- spreadsheets


def sheet_csv(service: Service, match_id: str, lang: str = DEFAULT) -> str:
    """Return a match's score sheet as CSV: one row per hand, one column per player (or team), then the totals.

    Each cell is what the hand added to that standing (the sum of its score lines, as the
    audit explains them); a void hand is listed with empty cells, an incomplete one with what
    is known. Headers and statuses are in ``lang``; names and numbers are the same facts in every language.
    """
    audit = service.audit(match_id)
    standings = audit["standings"]
    unit = "team" if standings and "team" in standings[0] else "seat"
    keys = [s[unit] for s in standings]
    labels = [s.get("name") or _team_name(s) for s in standings]
    rows: list[list[Any]] = [[Said("hand"), Said("status"), *labels]]
    for hand in audit["hands"]:
        points: dict[Any, int] = {}
        for line in hand.get("lines", []):
            if unit in line and isinstance(line.get("points"), int):
                points[line[unit]] = points.get(line[unit], 0) + line["points"]
        if hand.get("withheld") and isinstance(hand.get("points"), list):  # an open read: no lines, the sheet's numbers
            points = {k: v for k, v in enumerate(hand["points"]) if isinstance(v, int)}
        cells = ["" if hand["status"] == "void" else points.get(k, 0) for k in keys]
        rows.append([hand["hand"], STATUSES.get(hand["status"], hand["status"]), *cells])
    over = STATUSES["winner" if audit["end"].get("over") else "playing"]
    rows.append([Said("total"), over, *[s["total"] for s in standings]])
    return _csv(rows, lang)


def matches_csv(service: Service, lang: str = DEFAULT, **filters: str | None) -> str:
    """Return one CSV row per match the filters keep (those of the list): title, date, place, game,
    players, winners, final totals; the headers and statuses in ``lang``."""
    rows: list[list[Any]] = [
        [
            Said("id"),
            Said("title"),
            Said("date"),
            Said("place"),
            Said("game"),
            Said("players"),
            Said("status"),
            Said("winners"),
            Said("totals"),
            Said("version"),
        ]
    ]
    offset = 0
    while True:
        page, total = service.ledger.list_matches(**filters, limit=PAGE, offset=offset)
        for record in page:
            summary = service.match(record.id)
            standings = summary["standings"]
            names = [s.get("name") or _team_name(s) for s in standings]
            unit = "team" if standings and "team" in standings[0] else "seat"
            by_key = {s[unit]: name for s, name in zip(standings, names)}
            winners = [by_key.get(w, str(w)) for w in summary["end"].get("winners", [])]
            rows.append(
                [
                    record.id,
                    summary["title"] or "",
                    summary["date"] or "",
                    summary["place"] or "",
                    record.game,
                    "; ".join(record.players),
                    STATUSES.get(summary["status"], summary["status"]),
                    Joined(winners, "; "),
                    "; ".join(f"{say_in(name, lang)} {s['total']}" for name, s in zip(names, standings)),
                    record.version,
                ]
            )
        offset += len(page)
        if not page or offset >= total:
            break
    return _csv(rows, lang)


def _team_name(standing: dict[str, Any]) -> Said:
    return Said("team %(seats)s", seats=" + ".join(str(s) for s in standing.get("seats", [standing.get("team")])))


def _csv(rows: list[list[Any]], lang: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(say_in(v, lang)) for v in row])
    return out.getvalue()


def _cell(value: Any) -> Any:
    """A spreadsheet reads a leading = + - @ as a formula: such text gets a leading apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def table_csv(service: Service, club_id: str, game: str, period: str = "all", lang: str = DEFAULT) -> str:
    """Return a club's league table as CSV: rank, player, then the figures; the headers in ``lang``."""
    table = service.clubs.table(club_id, game, period)
    rows: list[list[Any]] = [
        [
            Said("rank"),
            Said("player"),
            Said("matches played"),
            Said("matches won"),
            Said("hands played"),
            Said("hands won"),
            Said("won (%(unit)s)", unit=table["rule"]["unit"]),
            Said("lost (%(unit)s)", unit=table["rule"]["unit"]),
            Said("net (%(unit)s)", unit=table["rule"]["unit"]),
            Said("average"),
            Said("money"),
            Said("loss-point difference"),
            Said("tied"),
        ]
    ]
    for row in table["rows"]:
        rows.append(
            [
                row["rank"],
                row["name"],
                row["played"],
                row["won"],
                row["hands"],
                row["handsWon"],
                row["gained"],
                row["lost"],
                row["net"],
                "" if row["average"] is None else row["average"],
                row["money"],
                row["lossDiff"],
                Said("yes") if row["tied"] else "",
            ]
        )
    return _csv(rows, lang)
