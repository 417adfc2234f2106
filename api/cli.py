"""The ``tanteo`` command line: serve the API, record a JSON Lines file, replay, audit, verify.

Every command but ``serve`` works straight on the database file through the same
Flask-free service the API uses, so the rules, the chain and the errors are the same.
The database is ``--db``, else ``TANTEO_DB``, else ``tanteo.db`` in the working directory; a
``postgresql://`` URL there works the same (several ``tanteo serve`` may share it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sys
from typing import Any, Iterator, Mapping, Sequence

import click

from engines.said import Counted, Said

DB_OPTION = click.option(
    "--db",
    envvar="TANTEO_DB",
    default="tanteo.db",
    show_default=True,
    help="SQLite file or postgresql:// URL (also TANTEO_DB)",
)


def _service(db: str, *, create: bool = False) -> Any:
    """The service on the database ``db``; only a command that records new matches (``create``)
    may start a new database file: the others need one that exists, and say so if it does not
    (a typo in --db, or the wrong folder, made an empty database file and then 'not found')."""
    from api.service import Service
    from ledger import open_ledger, sqlite_file

    context = click.get_current_context(silent=True)
    if context is not None:
        context.meta["tanteo.db"] = db  # named by the message if the database fails (_Commands)
    try:
        path = sqlite_file(db)
    except ValueError as error:
        _fail(str(error))
    if not create and path is not None and not os.path.exists(path):
        _fail(
            Said(
                "there is no database at %(db)s: nothing has been recorded there; "
                "name the file with --db (or TANTEO_DB), or run this in the folder that holds it",
                db=_where(db),
            )
        )
    ledger = open_ledger(db)
    if context is not None:  # closed when the command ends (a PostgreSQL pool's connections with it)
        context.call_on_close(ledger.close)
    return Service(ledger)


def _where(db: str) -> str:
    """Name the database for people: a file path as given, a PostgreSQL URL without its password."""
    from ledger import is_shared_database

    if is_shared_database(db):
        from ledger.postgres import safe_url

        return safe_url(db)
    return db


LANG_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Where a terminal says its language, in gettext's order of precedence."""


def _language() -> str:
    """The language the command speaks: ``--lang`` (or ``TANTEO_LANG``), else the terminal's
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``) when Tanteo has it, else English."""
    from api.languages import DEFAULT, LANGUAGES

    context = click.get_current_context(silent=True)
    chosen = context.find_root().meta.get("tanteo.lang") if context is not None else None
    if chosen:
        return str(chosen)
    for name in LANG_VARIABLES:
        for value in os.environ.get(name, "").split(":"):  # LANGUAGE may list several: "ca:es"
            code = value.split(".")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
            if code and name != "LANGUAGE":
                return DEFAULT  # a terminal set to a language Tanteo does not speak (or "C")
    return DEFAULT


def _said(value: Any) -> str:
    """What the command (or an engine, through the service) said, in the command's language."""
    from api.languages import say_in
    from api.service.words import said

    return str(say_in(said(value), _language()))


def _echo(value: Any, *, err: bool = False) -> None:
    click.echo(_said(value), err=err)


def _fail(message: Any) -> None:
    _echo(Said("error: %(message)s", message=message), err=True)
    sys.exit(1)


def _explain(error: Exception) -> Any:
    """Say an error as the API would, in one line: its code (the same in every language) and its words."""
    from api.service import AuthError, EventRefused
    from ledger import StorageUnavailable

    if isinstance(error, StorageUnavailable):
        return _storage_words(error, _database_named())
    if isinstance(error, EventRefused):
        inner = error.error
        path = getattr(inner, "path", None)
        if path:
            return Said("%(code)s at %(path)s: %(message)s", code=inner.code, path=path, message=inner.message)
        return Said("%(code)s: %(message)s", code=inner.code, message=inner.message)
    if isinstance(error, AuthError):
        return Said("%(code)s: %(message)s", code=error.code, message=error.message)
    code = getattr(error, "code", None)
    if code:
        return Said("%(code)s: %(message)s", code=code, message=getattr(error, "message", None) or str(error))
    return str(error)


def _database_named() -> str:
    """The database the running command opened, as people name it (for messages)."""
    context = click.get_current_context(silent=True)
    db = context.meta.get("tanteo.db") if context is not None else None
    return _where(db) if db else Said("the database")


def _storage_words(error: Any, where: Any) -> Said:
    """Say a storage fault to the person at the command line: which database, what happened, what to do."""
    if error.reason == "read_only":
        return Said(
            "%(db)s cannot be written (a read-only file, folder or disk), so nothing was written; "
            "reading it still works (verify, audit, replay, export): to write, fix its permissions "
            "or copy it where you may write",
            db=where,
        )
    if error.reason == "busy":
        return Said(
            "%(db)s was kept busy by another writer (a 'tanteo serve' or another command) for too long, "
            "so nothing was written; try again in a moment",
            db=where,
        )
    if error.reason == "full":
        return Said("the disk holding %(db)s is full, so nothing was written; free some space and try again", db=where)
    return Said(
        "could not open, read or write %(db)s (%(cause)s): "
        "is it a database file (not a folder) on a working disk? Run 'tanteo verify' to see what it holds",
        db=where,
        cause=error.detail or Said("an input/output error"),
    )


class _Commands(click.Group):
    """The ``tanteo`` group: a database or file that cannot be used is said in words, never as a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as error:  # noqa: BLE001 - sorted below; anything else goes on
            from ledger import LedgerError, StorageUnavailable

            if isinstance(error, StorageUnavailable):
                _fail(_storage_words(error, _database_named()))
            if isinstance(error, LedgerError):  # e.g. a file that is not a Tanteo database
                _fail(error.args[0] if error.args else str(error))  # its words, said in the command's language
            if isinstance(error, OSError) and error.filename is not None:
                _fail(Said("cannot use %(file)s: %(cause)s", file=error.filename, cause=error.strerror or str(error)))
            raise


@click.group(cls=_Commands)
@click.version_option(package_name="tanteo")
@click.option(
    "--lang",
    envvar="TANTEO_LANG",
    type=click.Choice(["ca", "es", "de", "en"]),
    help="the language of what the commands say (also TANTEO_LANG; default: the terminal's, LANG and LANGUAGE)",
)
@click.pass_context
def main(ctx: click.Context, lang: str | None) -> None:
    """Tanteo: record card games played with physical cards, replay them, audit every score.

    What a command says to a person (the audit's table and reasons, a replay's narration,
    refusals and errors) is in the terminal's language, or --lang's: Catalan, Spanish, German
    or English. JSON output (--json), codes and the notation are the same in every language.

    Exit status, for scripts: 0 done and all is well; 1 it could not be done (said on the
    error stream: a match not found, a wrong token, a storage fault); 2 it was done and found a
    problem (a broken chain, a diverging claim, lines an import refused) or the command was
    mistyped; 130 stopped by Ctrl-C.
    """
    ctx.meta["tanteo.lang"] = lang


SERVER_SETTINGS: dict[str, Any] = {
    "threads": 16,
    "connection_limit": 10_000,
    "keep_alive": 30,
}
"""How ``tanteo serve`` runs its server (api/serving.py: uvicorn, the Flask app on worker
threads through a2wsgi), and why (docs/OPERATING.md, "Serving"):

* ``threads`` 16: the workers that run requests, each with its own SQLite connection kept
  for the life of the process. Writes queue on SQLite's lock and folding holds the GIL, so
  more threads add no throughput; they let quick requests pass a slow one (a long audit).
  Live streams hold no worker thread: the fan-out (api/fanout.py) holds them on the event loop.
* ``connection_limit`` 10,000: live followers at once (``TANTEO_MAX_STREAMS``; past it a
  follower is told to come back later, 503 ``stream.busy``); the server itself accepts a
  thousand connections more, so recording and reading go on beside a full room. Open
  connections cost a socket and a few kilobytes each; the process raises its own limit of
  open files to match (as far as the system's hard limit allows).
* ``keep_alive`` 30 s: an idle connection between requests is closed after that long.
"""

STREAM_TIMINGS = ("TANTEO_STREAM_HEARTBEAT", "TANTEO_STREAM_SECONDS", "TANTEO_STREAM_WAIT")
"""The live streams' timings ``tanteo serve`` takes from the environment (seconds; api/stream.py)."""

CONNECTIONS_BESIDE_STREAMS = 1000
"""Connections the server accepts beyond the live streams' cap, for everything else."""


def _raise_open_files_limit(needed: int) -> None:
    """Let the process hold ``needed`` descriptors if the hard limit allows (idle clients)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


MALLOC_ARENAS = 2
"""How many heaps glibc's malloc keeps for the server's threads (``M_ARENA_MAX``; its default is 8 per core)."""


def _share_malloc_heaps() -> None:
    """Make the worker threads share ``MALLOC_ARENAS`` malloc heaps instead of one each (glibc).

    A cold read of a long match allocates a few megabytes for a moment (the snapshot's text
    from SQLite, its parsed form). glibc gives each thread its own heap and keeps what was
    freed in it for that thread's next use, so with 16 worker threads the server held about
    150 MiB of freed buffers, more than the state cache itself (``bench/memory_bench.py``).
    Two shared heaps keep two threads' worth. Measured against the other remedy, a fixed
    ``M_MMAP_THRESHOLD`` (every big buffer mapped and unmapped): the same memory, but three
    times the system time per cold read. Elsewhere than glibc nothing is done.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(-8, MALLOC_ARENAS)  # M_ARENA_MAX: heaps made for threads started from now on


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--threads",
    default=SERVER_SETTINGS["threads"],
    show_default=True,
    type=int,
    help="worker threads for requests (each keeps one database connection; live streams hold none)",
)
@click.option(
    "--connection-limit",
    default=SERVER_SETTINGS["connection_limit"],
    show_default=True,
    type=int,
    help="live followers at once (a thousand more connections are kept for everything else)",
)
@click.option(
    "--keep-alive",
    default=SERVER_SETTINGS["keep_alive"],
    show_default=True,
    type=int,
    help="seconds an idle connection is kept open between requests",
)
@click.option("--read-only", is_flag=True, help="serve the database read-only (writes answer 503)")
@click.option(
    "--cache-mb",
    type=click.IntRange(min=0),
    default=None,
    help="MiB of folded match states kept in memory (default: TANTEO_CACHE_BYTES, or 128; 0 keeps none)",
)
@click.option(
    "--public-url",
    envvar="TANTEO_PUBLIC_URL",
    default=None,
    metavar="URL",
    help="the address other phones open this server at (http://192.168.1.20:8000): the hand-over "
    "QR code and the printed sheet's code use it (default: TANTEO_PUBLIC_URL; none)",
)
@DB_OPTION
def serve(
    host: str,
    port: int,
    threads: int,
    connection_limit: int,
    keep_alive: int,
    read_only: bool,
    cache_mb: int | None,
    public_url: str | None,
    db: str,
) -> None:
    """Serve the API and the pages (uvicorn; SQLite file created on first use)."""
    import signal

    from api.app import cache_bytes, create_app
    from api.app import public_url as public_url_of
    from api.serving import serve as serve_app

    _raise_open_files_limit(connection_limit + CONNECTIONS_BESIDE_STREAMS + 64)
    _share_malloc_heaps()
    config: dict[str, Any] = {
        "TANTEO_DB": db,
        "TANTEO_READ_ONLY": read_only,
        "TANTEO_PUBLIC_URL": public_url,
        "TANTEO_MAX_STREAMS": int(os.environ.get("TANTEO_MAX_STREAMS", connection_limit)),
    }
    try:
        public_url_of(public_url)
    except ValueError as error:  # said before the server starts, not as a traceback
        _fail(str(error).replace("TANTEO_PUBLIC_URL", "--public-url (or TANTEO_PUBLIC_URL)"))  # an operator's setting
    for name in STREAM_TIMINGS:  # the live streams' timings, for an operator (api/stream.py)
        if name in os.environ:
            try:
                seconds = float(os.environ[name])
            except ValueError:
                seconds = math.nan
            if not (math.isfinite(seconds) and seconds > 0):
                _fail(
                    Said(
                        "%(name)s is '%(value)s': it takes a number of seconds above 0, like 15",
                        name=name,
                        value=os.environ[name][:40],
                    )
                )
            config[name] = seconds
    if cache_mb is not None:
        config["TANTEO_CACHE_BYTES"] = cache_mb * 1024 * 1024
    elif "TANTEO_CACHE_BYTES" in os.environ:
        try:
            cache_bytes(os.environ["TANTEO_CACHE_BYTES"])
        except ValueError as error:  # said before the server starts, not as a traceback
            _fail(str(error))
    try:
        app = create_app(config)
    except ValueError as error:  # a setting from the environment (TANTEO_TRUSTED_PROXIES …), said in words
        _fail(str(error))
    # uvicorn stops on SIGTERM as on Ctrl-C, then raises the signal again with the handler it
    # found: this one, so the ledgers are closed below (folding SQLite's WAL into the file).
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    budget = app.extensions["tanteo.cache"].budget
    url, cache = f"http://{host}:{port}/", f"{budget / 2**20:,.{0 if budget % 2**20 == 0 else 1}f}"
    _echo(
        Said(
            "Tanteo on %(url)s  (docs: /docs, database: %(db)s, state cache: %(cache)s MiB)",
            url=url,
            db=_where(db),
            cache=cache,
        )
    )
    if app.config["TANTEO_PUBLIC_URL"]:
        _echo(
            Said(
                "Other phones open it at %(url)s (hand-over and sheet QR codes)",
                url=app.config["TANTEO_PUBLIC_URL"] + "/",
            )
        )
    try:
        serve_app(
            app,
            host=host,
            port=port,
            threads=threads,
            connection_limit=connection_limit + CONNECTIONS_BESIDE_STREAMS,
            keep_alive=keep_alive,
            fanout=True,
        )
    finally:
        app.extensions["tanteo.ledgers"].close()


def _lines(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as error:
                _fail(f"line {number}: not JSON ({error.msg})")
            if not isinstance(event, dict) or set(event) - {"type", "data"} or "type" not in event:
                _fail(f'line {number}: an event is {{"type": ..., "data": {{...}}}}')
            yield number, {"type": event["type"], "data": event.get("data", {})}


def line_keys(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """Return one idempotency key per event line, derived from the file's content up to that line.

    Key *i* is a hash of the lines 1…i (each as canonical JSON), so it names the whole prefix:
    re-running a file after a refusal finds the last key already stored and resumes after it,
    and a line fixed after a refusal changes its own key and every later one, never an
    earlier one. A batch is stored under the key of its last line.
    """
    keys: list[str] = []
    digest = hashlib.sha256(b"tanteo record v1")
    for event in events:
        digest.update(json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
        digest.update(b"\n")
        keys.append("line-" + digest.copy().hexdigest()[:40])
    return keys


def _recorded_prefix(service: Any, match: str, keys: Sequence[str]) -> int:
    """Return how many leading lines of the file the match already holds (by their keys)."""
    stored = {e["key"] for e in service.events(match)[0] if e.get("key")}
    return max((i + 1 for i, key in enumerate(keys) if key in stored), default=0)


@main.command()
@click.argument("match")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--token", envvar="TANTEO_TOKEN", help="the match's write token (also TANTEO_TOKEN)")
@click.option("--by", default="", help="who records")
@click.option("--batch", default=500, show_default=True, type=int, help="events per transaction")
@DB_OPTION
def record(match: str, file: str, token: str | None, by: str, batch: int, db: str) -> None:
    """Append a JSON Lines file of events to MATCH ('new': the file starts with match_started).

    Stops at the first refused event, names its line, and keeps everything before it. Each
    batch carries an idempotency key derived from the file's content up to its last line, so
    running the same file again (after fixing the refused line) skips what is already
    recorded and writes nothing twice.
    """
    from tqdm import tqdm

    from api.service import EventRefused

    started = match == "new"
    service = _service(db, create=started)
    lines = list(_lines(file))
    if started:
        if not lines or lines[0][1]["type"] != "match_started":
            _fail(Said("a new match's file starts with a match_started line"))
        try:
            created = service.start_match(lines[0][1]["data"], by=by)
        except Exception as error:  # noqa: BLE001 - every refusal is reported the same way
            _fail(Said("line %(line)s: %(error)s", line=lines[0][0], error=_explain(error)))
        match, token = created["id"], created["token"]
        _echo(Said("match %(match)s (token %(token)s)", match=match, token=token))
        lines = lines[1:]
    elif lines and lines[0][1]["type"] == "match_started":
        try:
            first = service.events(match, limit=1)[0][0]
        except Exception as error:  # noqa: BLE001
            _fail(_explain(error))
        given = lines[0][1]["data"]
        stored = {k: v for k, v in first["data"].items() if k != "rulesVersion" or "rulesVersion" in given}
        if stored != given:  # the service fills in the rules version when the file leaves it out
            _fail(
                Said(
                    "line %(line)s: this file starts another match than %(match)s (its match_started differs)",
                    line=lines[0][0],
                    match=match,
                )
            )
        lines = lines[1:]  # the same file that started this match: its first line is there already
    keys = line_keys([e for _, e in lines])
    if lines and not token:
        _fail(Said("recording needs the match's write token: --token or TANTEO_TOKEN"))
    done = _recorded_prefix(service, match, keys) if lines and not started else 0
    if done:
        first, last = lines[0][0], lines[done - 1][0]
        if done < len(lines):
            _echo(
                Said(
                    "lines %(first)s to %(last)s are recorded already (same content): resuming at line %(line)s",
                    first=first,
                    last=last,
                    line=lines[done][0],
                )
            )
        else:
            _echo(
                Said(
                    "lines %(first)s to %(last)s are recorded already (same content): resuming at the end",
                    first=first,
                    last=last,
                )
            )
    written = 0
    with tqdm(total=len(lines) - done, unit="event", disable=None, file=sys.stderr) as bar:
        for start in range(done, len(lines), batch):
            chunk = lines[start : start + batch]
            try:
                service.record(match, [e for _, e in chunk], token=token, by=by, key=keys[start + len(chunk) - 1])
            except EventRefused as refused:
                command = f"tanteo record {match} {file} --token …"
                good = chunk[: refused.index]
                if good:
                    service.record(match, [e for _, e in good], token=token, by=by, key=keys[start + len(good) - 1])
                written += len(good)
                _fail(
                    Said(
                        "line %(line)s refused: %(error)s (%(written)s events before it were recorded; fix the "
                        "line and run '%(command)s': the lines already recorded are skipped)",
                        line=chunk[refused.index][0],
                        error=_explain(refused),
                        written=written,
                        command=command,
                    )
                )
            except Exception as error:  # noqa: BLE001
                _fail(
                    Said(
                        "line %(line)s: %(error)s (%(written)s events recorded)",
                        line=chunk[0][0],
                        error=_explain(error),
                        written=written,
                    )
                )
            written += len(chunk)
            bar.update(len(chunk))
    _echo(
        Said(
            "recorded %(written)s events; match %(match)s is at version %(version)s",
            written=written,
            match=match,
            version=service.ledger.version(match),
        )
    )


def _seat(value: str | None) -> int | str | None:
    """A seat number, a player's name (the service resolves it) or ``all``."""
    if value is None or value == "all":
        return value
    from schemas.strict import is_whole_number

    return int(value) if is_whole_number(value) and len(value) <= 20 else value


@main.command()
@click.argument("match")
@click.option("--seat", help="a seat number, a player's name or 'all' (default: the public view)")
@click.option("--at", type=int, help="stop after this step (the event's number in the log)")
@click.option("--hand", type=int, help="replay this hand only (1, 2, …)")
@click.option("--move", type=int, help="with --hand: stop after this move of the hand (0 is the deal)")
@click.option("--trick", type=int, help="with --hand: stop at the end of this trick (La Cabra)")
@click.option("--course", type=click.Choice(["corrected", "recorded"]), default="corrected", show_default=True)
@click.option(
    "--token",
    envvar="TANTEO_TOKEN",
    help="the match's write token: the full view of a match in play (needed for --seat all)",
)
@click.option("--state", "show_state", is_flag=True, help="print the state after the last step shown")
@DB_OPTION
def replay(
    match: str,
    seat: str | None,
    at: int | None,
    hand: int | None,
    move: int | None,
    trick: int | None,
    course: str,
    token: str | None,
    show_state: bool,
    db: str,
) -> None:
    """Print a match step by step, in words: the event's number, hand.move, and what happened."""
    service = _service(db)
    try:
        out = service.replay(
            match, seat=_seat(seat), course=course, stop=at, token=token, hand=hand, move=move, trick=trick
        )
    except Exception as error:  # noqa: BLE001
        _fail(_explain(error))
    marks = {"voided": Said("[voided]"), "amended": Said("[amended]")}
    for frame in out["frames"]:
        mark = marks.get(frame["status"])
        where = (
            ""
            if frame.get("hand") is None
            else str(frame["hand"]) + (f".{frame['move']}" if frame.get("move") is not None else "")
        )  # a claim or note: its hand only
        text = _said(frame["text"]) + (" " + _said(mark) if mark else "")
        click.echo(f"{frame['seq']:>5}  {where:<7} {text}")
    if show_state and out["frames"]:
        click.echo(json.dumps(out["frames"][-1]["state"], indent=2, ensure_ascii=False))


def audit_table(report: Mapping[str, Any]) -> list[str]:
    """Lay an audit out as the table's score sheet: a row per hand, a column per seat or team.

    Each cell is the hand's computed points; where the table claimed that hand's points for
    that column the cell adds ``ok`` or ``≠ N claimed``. The last row holds the totals and each
    standing's status; claims, the first divergence and corrections follow in words.
    """
    standings = report["standings"]
    unit = "team" if standings and "team" in standings[0] else "seat"
    columns = [(s[unit], s.get("name") or _said(_unit_named(unit, s[unit]))) for s in standings]
    claimed: dict[tuple[int, int], Mapping[str, Any]] = {}
    for claim in report["claims"]:
        if claim["field"] == "points" and claim.get(unit) is not None and claim["hand"] is not None:
            claimed[(claim["hand"], claim[unit])] = claim

    def cell(hand: Mapping[str, Any], index: int, number: int) -> str:
        points = hand.get("points")
        value = points[index] if isinstance(points, list) and index < len(points) else None
        text = "—" if value is None else str(value)
        claim = claimed.get((hand["hand"], number))
        if claim is not None and claim["agrees"] is not None:
            text += " " + _said(
                Said("ok") if claim["agrees"] else Said("≠ %(points)s claimed", points=claim["claimed"])
            )
        return text

    rows = [[_said(Said("hand")), _said(Said("status")), *(name for _, name in columns)]]
    for hand in report["hands"]:
        rows.append(
            [str(hand["hand"]), _status(hand["status"]), *(cell(hand, i, n) for i, (n, _) in enumerate(columns))]
        )
    rows.append([_said(Said("total")), "", *(f"{s['total']} {_status(s['status'])}" for s in standings)])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _unit_named(unit: str, number: Any) -> Said:
    return Said("team %(team)s", team=number) if unit == "team" else Said("seat %(seat)s", seat=number)


def _status(status: Any) -> str:
    from api.languages import STATUSES

    return _said(STATUSES.get(status, status or ""))


@main.command()
@click.argument("match")
@click.option("--json", "as_json", is_flag=True, help="print the audit as JSON, for machines")
@click.option(
    "--lines", "all_lines", is_flag=True, help="print every hand's score lines, not only the diverging hand's"
)
@click.option(
    "--token",
    envvar="TANTEO_TOKEN",
    help="the match's write token: a match in play scored from every private fact, not the public view",
)
@DB_OPTION
def audit(match: str, as_json: bool, all_lines: bool, token: str | None, db: str) -> None:
    """Rescore every hand from the log and compare the table's claims.

    Prints a table (hands × seats or teams, computed points, claimed where they differ), the
    first divergence in words with the engine's reasons, and the corrections; exit status 2
    when a claim diverges or the chain is broken.
    """
    service = _service(db)
    try:
        report = service.audit(match, token=token)
    except Exception as error:  # noqa: BLE001
        _fail(_explain(error))
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    chain = report["chain"]
    head = (chain["head"] or "")[:16]
    if chain["valid"]:
        _echo(Said("chain: valid, %(length)s events, head %(head)s", length=chain["length"], head=head))
    else:
        _echo(
            Said(
                "chain: BROKEN at event %(seq)s, %(length)s events, head %(head)s",
                seq=chain["firstBad"],
                length=chain["length"],
                head=head,
            )
        )
    for note in report.get("rules", {}).get("notes", []):
        _echo(Said("rules: %(note)s", note=note))
    click.echo("")
    for line in audit_table(report):
        click.echo(line)
    click.echo("")
    first = report["firstDivergence"]
    agreed = sum(1 for c in report["claims"] if c["agrees"])
    _echo(Said("claims: %(agreed)s of %(claims)s agree", agreed=agreed, claims=len(report["claims"])))
    if first:
        _echo(Said("first divergence (claim at entry %(seq)s): %(why)s", seq=first["claimSeq"], why=first["why"]))
    for hand in report["hands"]:
        if all_lines or (first and hand["hand"] == first["hand"]):
            _echo(Said("hand %(hand)s, %(status)s:", hand=hand["hand"], status=_status(hand["status"])))
            for line in hand.get("lines", []):
                who = line.get("name") or _unit_named(
                    "team" if "team" in line else "seat", line.get("team", line.get("seat"))
                )
                points = line.get("points")
                amount = f"{points:+}" if isinstance(points, int) else ""
                click.echo(f"    {_said(who)}: {amount}  {_said(line['reason'])}  ({line['rule']})")
    for orphan in report.get("orphaned", []):
        _echo(Said("orphaned claim at entry %(seq)s: %(why)s", seq=orphan["claimSeq"], why=orphan["why"]))
    end = report.get("end") or {}
    if end.get("over"):
        _echo(Said("end: %(reason)s", reason=end.get("reason", "")))
    for correction in report["corrections"]:
        parts = {
            "seq": correction["seq"],
            "type": correction["type"],
            "target": correction["target"],
            "reason": correction["reason"],
        }
        if correction.get("inForce", True):
            _echo(Said("correction at entry %(seq)s: %(type)s of entry %(target)s: %(reason)s", **parts))
        else:
            _echo(Said("correction at entry %(seq)s: %(type)s of entry %(target)s (undone): %(reason)s", **parts))
    for dispute in report.get("disputes", []):
        words = [
            Said(
                "dispute %(seq)s on hand %(hand)s: %(state)s",
                seq=dispute["seq"],
                hand=dispute["hand"],
                state=_status(dispute["state"]),
            )
        ]
        if dispute["ruling"]:
            words.append(
                Said("at entry %(seq)s (%(reason)s)", seq=dispute["ruling"]["seq"], reason=dispute["ruling"]["reason"])
            )
        fixes = [
            Said("%(type)s of %(target)s at entry %(seq)s", type=c["type"], target=c["target"], seq=c["seq"])
            for c in dispute["correction"]
        ]
        line = " ".join(_said(w) for w in words)
        if fixes:
            line += ", " + _said(Said("corrected by %(fixes)s", fixes=", ".join(_said(f) for f in fixes)))
        click.echo(line + "; " + _said(Said("claim: %(reason)s", reason=dispute["reason"])))
    if first or not chain["valid"]:
        sys.exit(2)


@main.command("rotate-token")
@click.argument("match")
@click.option("--token", envvar="TANTEO_TOKEN", help="the match's current write token (also TANTEO_TOKEN)")
@DB_OPTION
def rotate_token(match: str, token: str | None, db: str) -> None:
    """Replace MATCH's write token; prints the new one, and the old one stops working.

    A lost token cannot be recovered (only its hash is stored): rotate while you hold it.
    """
    service = _service(db)
    try:
        rotated = service.rotate_token(match, token)
    except Exception as error:  # noqa: BLE001
        _fail(_explain(error))
    _echo(
        Said(
            "match %(match)s (token %(token)s); the old token no longer writes to it",
            match=match,
            token=rotated["token"],
        )
    )


@main.command()
@click.argument("match", required=False)
@DB_OPTION
@click.option(
    "--url",
    "base",
    default=None,
    metavar="BASE",
    help="check MATCH from a server's open listing (BASE/matches/MATCH/events) instead of the file",
)
def verify(match: str | None, db: str, base: str | None) -> None:
    """Check hash chains: offline from the database file or PostgreSQL URL, or with --url from a server's open listing.

    With --url only what anyone may read is used (private values are checked through their
    commitments while the match is in play); prints the head. Exit status 0 when every chain
    checked is valid, 2 when one is broken (offline or with --url alike), 1 when it could not
    be checked.
    """
    if base is not None:
        if not match:
            _fail(Said("verify --url needs the match id: tanteo verify --url BASE MATCH"))
        _verify_url(base, str(match))
        return
    from ledger import LedgerError, StorageUnavailable, verify_file

    click.get_current_context().meta["tanteo.db"] = db
    try:
        reports = verify_file(db)
    except LedgerError as error:
        if isinstance(error, StorageUnavailable):
            raise  # said with the database's name (_Commands)
        _fail(error.args[0] if error.args else str(error))
    if match:
        reports = [r for r in reports if r.match == match]
        if not reports:
            _fail(Said("no match %(match)s in %(db)s", match=match, db=_where(db)))
    bad = 0
    for report in reports:
        if report.valid:
            _echo(
                Said(
                    "%(match)s: valid, %(length)s events, head %(head)s",
                    match=report.match,
                    length=report.length,
                    head=report.head[:16],
                )
            )
        else:
            bad += 1
            _echo(
                Said(
                    "%(match)s: BROKEN at event %(seq)s: %(reason)s",
                    match=report.match,
                    seq=report.first_bad,
                    reason=report.reason,
                )
            )
    _echo(Said("%(valid)s of %(chains)s chains valid", valid=len(reports) - bad, chains=len(reports)))
    service = _service(db)
    unsigned = 0
    for report in reports:
        reader = service.reader(report.match, owner=True)
        unsigned += _signatures(report.match, reader.engine, reader.log, reader.stored, reader.record.players)
    if bad or unsigned:
        sys.exit(2)


def _signatures(match: str, engine: Any, log: Any, envelopes: Any, players: Any) -> int:
    """Check every confirm's signature and say who signed which hand; return how many do not verify."""
    from api.service import seats

    hashes = {
        str(e["hash"] if isinstance(e, dict) else e.hash): int(e["seq"] if isinstance(e, dict) else e.seq)
        for e in envelopes
    }
    found = seats.read_confirmations(match, engine, log, hashes)
    bad = 0
    for c in found:
        name = players[c.seat] if c.seat < len(players) else str(c.seat)
        if not c.valid:
            bad += 1
            _echo(Said("hand %(hand)s: %(name)s's signature does not verify ✗", hand=c.hand, name=name))
        elif c.counts:
            _echo(Said("hand %(hand)s: %(name)s (seat %(seat)s) signed ✓", hand=c.hand, name=name, seat=c.seat))
        else:
            _echo(
                Said(
                    "hand %(hand)s: %(name)s (seat %(seat)s) signed ✓, before a correction of the hand: to sign again",
                    hand=c.hand,
                    name=name,
                    seat=c.seat,
                )
            )
    return bad


@main.command("export")
@click.argument("match", required=False)
@click.argument("file", required=False, type=click.Path(dir_okay=False, writable=True))
@click.option("--all", "everything", is_flag=True, help="every match of the database (a backup archive)")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "jsonl"]),
    help="text notation or JSON Lines archive (default: jsonl with --all or a .jsonl file, else text)",
)
@DB_OPTION
def export_(match: str | None, file: str | None, everything: bool, fmt: str | None, db: str) -> None:
    """Export MATCH (or --all) to FILE, or to standard output; the owner of the file gets every value.

    With --all the one argument is the FILE: `tanteo export --all backup.jsonl`.
    """
    from tqdm import tqdm

    from api.service import transfer

    if everything:
        if file is None and match is not None:
            match, file = None, match
        if match is not None:
            _fail(Said("give a match id or --all, not both"))
    elif match is None:
        _fail(Said("name a match to export, or --all"))
    if fmt is None:
        fmt = "jsonl" if everything or (file or "").endswith((".jsonl", ".ndjson")) else "text"
    if fmt == "text" and everything:
        _fail(Said("--all writes the archive (--format jsonl)"))
    service = _service(db)
    out = open(file, "wb") if file else sys.stdout.buffer  # noqa: SIM115 - closed below
    try:
        if everything:
            with tqdm(total=transfer.count_matches(service), unit="match", disable=None, file=sys.stderr) as bar:
                last = None
                for line in transfer.all_lines(service, full=True):
                    out.write(line)
                    mid = line[line.index(b'"match":') + 9 :].split(b'"', 1)[0]
                    if mid != last:
                        bar.update(1)
                        last = mid
        else:
            assert match is not None
            try:
                if fmt == "text":
                    lines = [transfer.match_text(service, match, full=True).encode("utf-8")]
                else:
                    lines = list(transfer.match_lines(service, match, full=True))
            except Exception as error:  # noqa: BLE001
                _fail(_explain(error))
            out.writelines(lines)
    finally:
        if file:
            out.close()
        else:
            out.flush()


def _is_text(file: str, raw: bytes) -> bool:
    """A .tnt or .txt file, or one whose first character is not an archive's opening brace."""
    if file.endswith((".tnt", ".txt")):
        return True
    if file.endswith((".jsonl", ".ndjson")):
        return False
    return not raw.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


@main.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--json", "as_json", is_flag=True, help="print the report as JSON (the shape POST /matches/import returns)"
)
@click.option("--by", default="", help="who records (text imports)")
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=None,
    help="processes that check an archive's rules (default: one per core but one, for 10,000 events or more; 0: none)",
)
@DB_OPTION
def import_(file: str, as_json: bool, by: str, workers: int | None, db: str) -> None:
    """Import a JSON Lines archive (or a .tnt text file): every sound match, each error by line.

    Exit status 0 when something was imported (or everything was already there), 2 when
    errors were reported.
    """
    import tqdm as progress_bars

    from api.service import transfer
    from replays.lines import lines_of

    with open(file, "rb") as handle:
        raw = handle.read()
    packed = transfer.compressed(raw)
    if packed:
        command = f"{packed[1]} {file}"
        _fail(
            Said(
                "%(file)s is compressed (%(kind)s): unpack it first (%(command)s), "
                "then import the archive or text file it holds",
                file=file,
                kind=packed[0],
                command=command,
            )
        )
    if not raw.strip():
        _fail(
            Said("%(file)s is empty: there is nothing to import (was the backup written to another file?)", file=file)
        )
    service = _service(db, create=True)
    if _is_text(file, raw):
        del raw  # read again a line at a time: a text import holds one match, not the file
        with _stop_on_ctrl_c(None) as asked, open(file, "rb") as handle:
            stream = lines_of(handle.read)
            lines = (line.decode("utf-8", "replace") for line in stream)
            try:
                report = transfer.import_text(service, lines, by=by, stop=asked, rest=stream.count_rest)
            except transfer.ImportStopped as stopped:
                _import_stopped(stopped, as_json)
    else:
        lines = raw.splitlines()
        progress_bars.tqdm.monitor_interval = 0  # no monitor thread: the checking workers are forked
        workers = transfer.import_workers(workers, len(lines))
        if workers:
            _echo(
                Counted(
                    "checking the rules in %(n)s worker process",
                    "checking the rules in %(n)s worker processes",
                    workers,
                ),
                err=True,
            )
        with (
            progress_bars.tqdm(
                total=len(lines), unit="event", disable=True if as_json else None, file=sys.stderr
            ) as bar,
            _stop_on_ctrl_c(bar) as asked,
        ):
            try:
                report = transfer.import_archive(service, lines, progress=bar.update, workers=workers, stop=asked)
            except transfer.WorkersStopped as stopped:  # before anything was stored
                bar.close()
                _fail(stopped.message)
            except transfer.ImportStopped as stopped:
                bar.close()
                _import_stopped(stopped, as_json)
    _print_import(report, as_json)
    if report["errors"]:
        sys.exit(2)


def _import_stopped(stopped: Any, as_json: bool) -> None:
    """Show what an import stopped half-way stored, with the write tokens, then exit (130 for Ctrl-C)."""
    _print_import(stopped.report, as_json)
    _echo(Said("error: %(message)s", message=stopped.message), err=True)
    sys.exit(130 if stopped.cause is None else 1)  # 130: stopped by Ctrl-C, as shells count it


@contextlib.contextmanager
def _stop_on_ctrl_c(bar: Any) -> Iterator[Any]:
    """While a file is imported, make Ctrl-C a request to stop between two matches (``bar``: the
    progress bar to clear first, if any).

    The new write tokens of the matches stored so far exist only in the report (only their
    hashes are kept), so an import stopped at once would lose them: the first Ctrl-C asks to
    stop, and the import then says what it stored with their tokens; a second one stops at
    once. Forked workers inherit the handler and leave the asking to this process.
    """
    import signal

    asked: list[bool] = []
    me = os.getpid()

    def ask(_signum: int, _frame: Any) -> None:
        if os.getpid() != me:
            return  # a checking worker: the import itself decides when to stop
        if asked:
            raise KeyboardInterrupt
        asked.append(True)
        if bar is not None:
            bar.clear()
        _echo(
            "\n"
            + _said(
                Said(
                    "stopping after the match being written (Ctrl-C again to stop at once: "
                    "the tokens of the matches imported so far would not be shown)"
                )
            ),
            err=True,
        )

    previous = signal.signal(signal.SIGINT, ask)
    try:
        yield lambda: bool(asked)
    finally:
        signal.signal(signal.SIGINT, previous)


def _print_import(report: Mapping[str, Any], as_json: bool) -> None:
    """Print an import's report: as the API's JSON, or a line per match and per error."""
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for item in report["imported"]:
        _echo(
            Said(
                "imported %(match)s (lines %(first)s-%(last)s): version %(version)s, head %(head)s, token %(token)s",
                match=item["id"],
                first=item["lines"][0],
                last=item["lines"][1],
                version=item["version"],
                head=item["head"][:16],
                token=item["token"],
            )
        )
    for item in report["unchanged"]:
        _echo(
            Said(
                "unchanged %(match)s: already stored, identical (version %(version)s)",
                match=item["id"],
                version=item["version"],
            )
        )
    for error in report["errors"]:
        if error["column"]:
            where = Said("line %(line)s, column %(column)s", line=error["line"], column=error["column"])
        else:
            where = Said("line %(line)s", line=error["line"])
        if error["match"]:
            where = Said("%(where)s (match %(match)s)", where=where, match=error["match"])
        _echo(
            Said("%(where)s: %(code)s: %(message)s", where=where, code=error["code"], message=error["message"]),
            err=True,
        )
    if report.get("moreErrors"):
        _echo(report["moreErrorsDetail"], err=True)
    if report.get("unreadLines"):
        _echo(report["unreadLinesDetail"], err=True)
    _echo(
        Said(
            "%(imported)s imported, %(unchanged)s unchanged, %(errors)s errors",
            imported=len(report["imported"]),
            unchanged=len(report["unchanged"]),
            errors=len(report["errors"]) + report.get("moreErrors", 0),
        )
    )


def _get_json(url: str) -> Any:
    """GET a JSON document; exit with a one-line error when the server cannot give it."""
    import urllib.error
    import urllib.request

    try:
        asked = {"Accept": "application/json", "Accept-Language": _language()}  # the server's words in ours
        with urllib.request.urlopen(urllib.request.Request(url, headers=asked), timeout=30) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read()).get("detail", "")
        except (ValueError, AttributeError):
            detail = ""
        _fail(f"{url}: HTTP {error.code} {detail}".rstrip())  # the server's own words, in our language
    except (urllib.error.URLError, OSError, ValueError) as error:
        _fail(Said("%(url)s: cannot read it (%(cause)s)", url=url, cause=str(getattr(error, "reason", error))))


def _verify_url(base: str, match: str) -> None:
    """Recompute a match's chain from the open listing, page by page, and compare with its summary."""
    from urllib.parse import quote

    from ledger import verify_listing

    root = f"{base.rstrip('/')}/matches/{quote(match, safe='')}"
    summary = _get_json(root)
    envelopes: list[Any] = []
    after = 0
    while True:
        page = _get_json(f"{root}/events?after={after}&limit=1000")
        envelopes += page["events"]
        if page.get("next") is None:
            break
        after = page["next"]
    report = verify_listing(match, envelopes, summary.get("version"), summary.get("head"))
    if report.valid:
        hidden = sum(
            1
            for e in envelopes
            if "private" not in e and '"private":true' in json.dumps(e["data"], separators=(",", ":"))
        )
        parts = {"match": match, "length": report.length, "head": report.head}
        if hidden:
            _echo(
                Said(
                    "%(match)s: valid, %(length)s events, head %(head)s (%(hidden)s with private values checked by commitment)",
                    hidden=hidden,
                    **parts,
                )
            )
        else:
            _echo(Said("%(match)s: valid, %(length)s events, head %(head)s", **parts))
        from engines import get_engine
        from engines.base import Event, RuleViolation

        log = [Event(e["seq"], e["type"], e["data"]) for e in envelopes]
        try:
            unsigned = _signatures(match, get_engine(summary["game"]), log, envelopes, summary.get("players") or [])
        except (RuleViolation, KeyError, TypeError, ValueError):
            _echo(
                Said(
                    "the signatures were not checked: the open listing of a match in play hides cards the check "
                    "needs; check again once the match is over"
                )
            )
            return
        if unsigned:
            sys.exit(2)
        return
    if report.first_bad:
        _echo(
            Said(
                "%(match)s: BROKEN at event %(seq)s: %(reason)s",
                match=match,
                seq=report.first_bad,
                reason=report.reason,
            )
        )
    else:
        _echo(Said("%(match)s: BROKEN: %(reason)s", match=match, reason=report.reason))
    _echo(Said("head %(head)s", head=report.head))
    sys.exit(2)  # a broken chain, as offline: 1 is for a check that could not be made


# ---- clubs: a club's roster, its matches, league tables and profiles (tanteo club …)

KEY_OPTION = click.option("--key", envvar="TANTEO_CLUB_KEY", help="the club's key (also TANTEO_CLUB_KEY)")
BY_OPTION = click.option("--by", default="", help="who makes the change")


@main.group()
def club() -> None:
    """A club's roster, seasons and nights, its league tables, profiles and archive.

    A club (a casal, a family, a bar league) is created with `tanteo club create` and gets a
    key, shown once: every change to it needs the key (--key or TANTEO_CLUB_KEY). Reading a
    club, a table or a profile needs none. PLAYER is an id (p3) or a player's name.
    """


def _club_explain(error: Exception) -> Any:
    """Say a club command's error in one line: a club or a game that does not exist, else as :func:`_explain`."""
    from api.service.clubs import ClubNotFound
    from engines import ENGINES
    from engines.base import UnknownGame
    from ledger import MatchNotFound

    if isinstance(error, ClubNotFound):
        return Said(
            "%(code)s: %(message)s",
            code="club.not_found",
            message=Said("club %(club)s not found", club=repr(error.match_id)),
        )
    if isinstance(error, MatchNotFound):
        return Said(
            "%(code)s: %(message)s",
            code="match.not_found",
            message=Said("match %(match)s not found", match=repr(error.match_id)),
        )
    if isinstance(error, UnknownGame):
        return Said(
            "%(code)s: %(message)s",
            code="game.unknown",
            message=Said(
                "there is no game %(game)s: the games are %(games)s",
                game=repr(str(error.game)),
                games=", ".join(sorted(ENGINES)),
            ),
        )
    return _explain(error)


def _club_do(action: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the service; a refusal (or a club, match or game that does not exist) is said in words, exit status 1."""
    try:
        return action(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - every refusal is reported the same way
        from ledger import StorageUnavailable

        if isinstance(error, StorageUnavailable):
            raise  # said with the database's name (_Commands)
        _fail(_club_explain(error))


def _need_key(key: str | None) -> str:
    if not key:
        _fail(Said("changing a club needs its key: --key or TANTEO_CLUB_KEY"))
    assert key is not None
    return key


def _player_id(service: Any, club_id: str, given: str) -> str:
    """A player's id from what the organiser typed: the id itself (p3), or a name (any case).

    Exits with the roster's words (``club.unknown_player``) when neither names a player."""
    found = _find_player(_club_do(service.clubs.roster, club_id), given)
    if found is None:
        from engines.base import RuleViolation

        _fail(
            _club_explain(RuleViolation("club.unknown_player", Said("the club has no player %(player)s", player=given)))
        )
    assert found is not None
    return found


def _find_player(roster: Any, given: str) -> str | None:
    """The id ``given`` names in ``roster``: an id (merged entries too: the roster says why it
    refuses them), else the name of a listed or hidden player, compared ignoring case."""
    if given in roster.players:
        return given
    folded = given.strip().casefold()
    for player in roster.listed(hidden=True):
        if player.name.strip().casefold() == folded:
            return str(player.id)
    return None


def _named(service: Any, club_id: str, player: str) -> Said:
    """A player as the messages name them: the name and the id."""
    roster = service.clubs.roster(club_id)
    name = roster.players[player].name if player in roster.players else player
    return Said("%(name)s (%(player)s)", name=name, player=player)


def _change(service: Any, club_id: str, event: dict[str, Any], key: str | None, by: str) -> dict[str, Any]:
    """Write one roster event with the club's key; a refusal is said in words and nothing is written."""
    written: dict[str, Any] = _club_do(service.clubs.record, club_id, [event], key=_need_key(key), by=by)
    return written


def _number(value: Any) -> str:
    """A figure as the command's language writes numbers (45,5 in Catalan); nothing for None."""
    if value is None:
        return "—"
    from babel.numbers import format_decimal

    return str(format_decimal(value, locale=_language()))


def _columns(rows: Sequence[Sequence[str]], right: Sequence[bool] = ()) -> list[str]:
    """Lay rows out in columns, the first row the headers, a rule under it; ``right``: columns of figures."""
    while len(rows[0]) > 1 and not any(row[-1] for row in rows):  # a column with nothing in it
        rows = [row[:-1] for row in rows]
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            text.rjust(width) if c < len(right) and right[c] else text.ljust(width)
            for c, (text, width) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths).rstrip())
    return lines


@club.command("create")
@click.argument("name")
@click.option("--place", help="where the club meets")
@BY_OPTION
@DB_OPTION
def club_create(name: str, place: str | None, by: str, db: str) -> None:
    """Create a club; prints its id and its key (shown only now: keep it)."""
    service = _service(db, create=True)
    created = _club_do(service.clubs.create, name, place=place, by=by)
    _echo(Said("club %(club)s (key %(key)s)", club=created["id"], key=created["key"]))
    _echo(
        Said(
            "Keep this key: it is shown only now (only its hash is stored), and adding players, "
            "seasons, nights or matches needs it (--key or TANTEO_CLUB_KEY)"
        )
    )


@club.command("show")
@click.argument("club_id", metavar="CLUB")
@click.option("--key", envvar="TANTEO_CLUB_KEY", help="the club's key: hidden players are listed too")
@click.option("--json", "as_json", is_flag=True, help="print the club as JSON (the shape GET /clubs/{id} returns)")
@DB_OPTION
def club_show(club_id: str, key: str | None, as_json: bool, db: str) -> None:
    """Show a club: its players with their ids and matches, its seasons and nights."""
    service = _service(db)
    found = _club_do(service.clubs.club, club_id, key=key)
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    if found["place"]:
        _echo(Said("%(name)s, %(place)s (club %(club)s)", name=found["name"], place=found["place"], club=club_id))
    else:
        _echo(Said("%(name)s (club %(club)s)", name=found["name"], club=club_id))
    _echo(
        Counted(
            "%(n)s match recorded, log version %(version)s",
            "%(n)s matches recorded, log version %(version)s",
            found["matches"],
            version=found["version"],
        )
    )
    click.echo("")
    if found["players"]:
        rows = [[_said(Said("id")), _said(Said("name")), _said(Said("nickname")), _said(Said("matches")), ""]]
        for player in found["players"]:
            rows.append(
                [
                    player["id"],
                    player["name"],
                    player["nickname"] or "",
                    _number(player["matches"]),
                    _said(Said("hidden")) if player["hidden"] else "",
                ]
            )
        for line in _columns(rows, right=(False, False, False, True)):
            click.echo(line)
    else:
        _echo(Said("no players yet: add them with 'tanteo club add %(club)s NAME'", club=club_id))
    if found["seasons"]:
        click.echo("")
        _echo(Said("seasons:"))
        for season in found["seasons"]:
            _echo(
                Said(
                    "  %(season)s  %(name)s, %(from)s to %(to)s",
                    season=season["id"],
                    name=season["name"],
                    **{"from": season["from"], "to": season["to"]},
                )
            )
    if found["nights"]:
        click.echo("")
        _echo(Said("nights:"))
        for night in found["nights"]:
            _echo(
                Counted(
                    "  %(night)s  %(name)s, %(date)s: %(n)s match",
                    "  %(night)s  %(name)s, %(date)s: %(n)s matches",
                    len(night["matches"]),
                    night=night["id"],
                    name=night["name"],
                    date=night["date"],
                )
            )
    if found["games"]:
        click.echo("")
        _echo(Said("games played: %(games)s", games=", ".join(found["games"])))


@club.command("add")
@click.argument("club_id", metavar="CLUB")
@click.argument("name")
@click.option("--nickname", help="a nickname shown beside the name")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_add(club_id: str, name: str, nickname: str | None, key: str | None, by: str, db: str) -> None:
    """Add a player to the club's roster (a display name; no personal data is asked for)."""
    service = _service(db)
    data: dict[str, Any] = {"name": name}
    if nickname:
        data["nickname"] = nickname
    written = _change(service, club_id, {"type": "player_added", "data": data}, key, by)
    _echo(Said("added %(name)s as %(player)s", name=name, player=written["made"][0]))


@club.command("rename")
@click.argument("club_id", metavar="CLUB")
@click.argument("player")
@click.argument("name")
@click.option("--nickname", help="a new nickname (unchanged if not given)")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_rename(club_id: str, player: str, name: str, nickname: str | None, key: str | None, by: str, db: str) -> None:
    """Rename a player (their matches stay theirs)."""
    service = _service(db)
    pid = _player_id(service, club_id, player)
    data: dict[str, Any] = {"player": pid, "name": name}
    if nickname:
        data["nickname"] = nickname
    before = _named(service, club_id, pid)
    _change(service, club_id, {"type": "player_renamed", "data": data}, key, by)
    _echo(Said("%(player)s is now called %(name)s", player=before, name=name))


@club.command("merge")
@click.argument("club_id", metavar="CLUB")
@click.argument("player")
@click.argument("into")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_merge(club_id: str, player: str, into: str, key: str | None, by: str, db: str) -> None:
    """Merge two entries that are the same person: PLAYER's matches count as INTO's from now on."""
    service = _service(db)
    pid, into_id = _player_id(service, club_id, player), _player_id(service, club_id, into)
    before = _named(service, club_id, pid)
    _change(service, club_id, {"type": "players_merged", "data": {"player": pid, "into": into_id}}, key, by)
    _echo(
        Said(
            "%(player)s merged into %(into)s: their matches count as one player's",
            player=before,
            into=_named(service, club_id, into_id),
        )
    )


@club.command("hide")
@click.argument("club_id", metavar="CLUB")
@click.argument("player")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_hide(club_id: str, player: str, key: str | None, by: str, db: str) -> None:
    """Hide a player from the club's public lists and tables (their matches are kept)."""
    service = _service(db)
    pid = _player_id(service, club_id, player)
    _change(service, club_id, {"type": "player_hidden", "data": {"player": pid}}, key, by)
    _echo(Said("%(player)s is hidden from the club's public lists", player=_named(service, club_id, pid)))


@club.command("unhide")
@click.argument("club_id", metavar="CLUB")
@click.argument("player")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_unhide(club_id: str, player: str, key: str | None, by: str, db: str) -> None:
    """Show a hidden player in the club's lists again."""
    service = _service(db)
    pid = _player_id(service, club_id, player)
    _change(service, club_id, {"type": "player_shown", "data": {"player": pid}}, key, by)
    _echo(Said("%(player)s is shown in the club's lists again", player=_named(service, club_id, pid)))


@club.command("season")
@click.argument("club_id", metavar="CLUB")
@click.argument("name")
@click.argument("start", metavar="FROM")
@click.argument("end", metavar="TO")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_season(club_id: str, name: str, start: str, end: str, key: str | None, by: str, db: str) -> None:
    """Declare a season: its matches from FROM to TO (dates, YYYY-MM-DD) make a league table of their own."""
    service = _service(db)
    data = {"name": name, "from": start, "to": end}
    written = _change(service, club_id, {"type": "season_declared", "data": data}, key, by)
    _echo(
        Said(
            "season %(season)s: %(name)s, %(from)s to %(to)s",
            season=written["made"][0],
            name=name,
            **{"from": start, "to": end},
        )
    )


@club.command("night")
@click.argument("club_id", metavar="CLUB")
@click.argument("name")
@click.argument("date")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_night(club_id: str, name: str, date: str, key: str | None, by: str, db: str) -> None:
    """Open a club night on DATE (YYYY-MM-DD): the matches of an evening, across tables."""
    service = _service(db)
    written = _change(service, club_id, {"type": "night_opened", "data": {"name": name, "date": date}}, key, by)
    _echo(Said("night %(night)s: %(name)s, %(date)s", night=written["made"][0], name=name, date=date))


@club.command("attach")
@click.argument("club_id", metavar="CLUB")
@click.argument("match")
@click.argument("players", nargs=-1, metavar="[PLAYER]...")
@click.option("--token", envvar="TANTEO_TOKEN", help="the match's write token (also TANTEO_TOKEN)")
@KEY_OPTION
@BY_OPTION
@DB_OPTION
def club_attach(
    club_id: str, match: str, players: tuple[str, ...], token: str | None, key: str | None, by: str, db: str
) -> None:
    """Make a casual MATCH one of the club's: one PLAYER per seat, in seat order.

    Without PLAYERs each seat's name in the match is looked up in the roster (any case).
    Needs the match's write token and the club's key.
    """
    service = _service(db)
    key = _need_key(key)
    if not token:
        _fail(Said("attaching a match needs its write token: --token or TANTEO_TOKEN"))
    _club_do(service.clubs.roster, club_id)
    if players:
        seats = [_player_id(service, club_id, p) for p in players]
    else:
        names = _club_do(service.match, match)["players"]
        roster = service.clubs.roster(club_id)
        seats = []
        for seat, name in enumerate(names):
            pid = _find_player(roster, str(name))
            if pid is None:
                _fail(
                    Said(
                        "seat %(seat)s, %(name)s, is no player of the club: name the club's players in seat "
                        "order after the match, or add %(name)s first",
                        seat=seat,
                        name=name,
                    )
                )
            assert pid is not None
            seats.append(pid)
    _club_do(service.clubs.attach, club_id, match, seats, key=key, token=token, by=by)
    _echo(
        Said(
            "match %(match)s is the club's now: %(seats)s",
            match=match,
            seats=", ".join(_said(_named(service, club_id, pid)) for pid in seats),
        )
    )


def _table_columns(table: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """The columns of a league table as a person reads it: each a header and how to take a row's figure."""
    unit = table["rule"]["unit"]
    columns: list[tuple[Any, Any]] = [
        (Said("matches played"), lambda row: row["played"]),
        (Said("matches won"), lambda row: row["won"]),
        (Said("hands"), lambda row: row["hands"]),
        (Said("hands won"), lambda row: row["handsWon"]),
        (Said("net (%(unit)s)", unit=unit), lambda row: row["net"]),
        (Said("average"), lambda row: row["average"]),
    ]
    figures = {step["figure"] for step in table["rule"]["order"]}
    if "money" in figures:
        columns.append((Said("money"), lambda row: row["money"]))
    if "lossDiff" in figures:
        columns.append((Said("loss-point difference"), lambda row: row["lossDiff"]))
    return columns


@club.command("table")
@click.argument("club_id", metavar="CLUB")
@click.argument("game")
@click.option(
    "--period",
    default="all",
    show_default=True,
    help="all, season:s1, night:n1 or tag:TAG (the matches of a season, a night or a tag)",
)
@click.option("--key", envvar="TANTEO_CLUB_KEY", help="the club's key: hidden players are listed too (not in --csv)")
@click.option("--csv", "as_csv", is_flag=True, help="print the table as CSV (the headers in the command's language)")
@click.option(
    "--json", "as_json", is_flag=True, help="print the table as JSON (the shape GET /clubs/{id}/table returns)"
)
@DB_OPTION
def club_table(club_id: str, game: str, period: str, key: str | None, as_csv: bool, as_json: bool, db: str) -> None:
    """Print a club's league table of one game over a period, ranked by the game's rule (its words under it)."""
    from api.service import transfer

    service = _service(db)
    if as_csv:
        click.echo(_club_do(transfer.table_csv, service, club_id, game, period, _language()), nl=False)
        return
    table = _club_do(service.clubs.table, club_id, game, period, key=key)
    if as_json:
        click.echo(json.dumps(table, indent=2, ensure_ascii=False))
        return
    _echo(Said("%(game)s, %(period)s:", game=game, period=_period_words(service, club_id, period)))
    if not table["rows"]:
        _echo(Said("no matches of %(game)s in this period yet", game=game))
    else:
        columns = _table_columns(table)
        rows = [[_said(Said("rank")), _said(Said("player")), *(_said(header) for header, _ in columns)]]
        for row in table["rows"]:
            rank = f"{row['rank']}=" if row["tied"] else str(row["rank"])
            rows.append([rank, row["name"], *(_number(value(row)) for _, value in columns)])
        click.echo("")
        for line in _columns(rows, right=(True, False, *(True for _ in columns))):
            click.echo(line)
        click.echo("")
    _echo(Said("ranked by %(rule)s", rule=table["rule"]["words"]))
    if any(row["tied"] for row in table["rows"]):
        _echo(Said("= tied: equal on every figure of the rule"))
    playing = sum(row["inPlay"] for row in table["rows"])
    if playing:
        _echo(
            Counted(
                "a match still in play counts its finished hands (%(n)s seat)",
                "matches still in play count their finished hands (%(n)s seats)",
                playing,
            )
        )


def _period_words(service: Any, club_id: str, period: str) -> Any:
    """A period as a person reads it: all matches, a season's or a night's name and dates, a tag."""
    kind, _, name = period.partition(":")
    roster = service.clubs.roster(club_id)
    if kind == "season" and name in roster.seasons:
        season = roster.seasons[name]
        return Said(
            "season %(name)s (%(from)s to %(to)s)",
            name=season["name"],
            **{"from": season["from"], "to": season["to"]},
        )
    if kind == "night" and name in roster.nights:
        night = roster.nights[name]
        return Said("night %(name)s (%(date)s)", name=night["name"], date=night["date"])
    if kind == "tag":
        return Said("matches tagged %(tag)s", tag=name)
    return Said("all matches")


@club.command("profile")
@click.argument("club_id", metavar="CLUB")
@click.argument("player")
@click.option("--key", envvar="TANTEO_CLUB_KEY", help="the club's key: needed for a hidden player")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="print the profile as JSON (the shape GET /clubs/{id}/players/{pid} returns)",
)
@DB_OPTION
def club_profile(club_id: str, player: str, key: str | None, as_json: bool, db: str) -> None:
    """Print a player's figures per game: matches, wins, hands, points, average, best and worst, form, head-to-head."""
    service = _service(db)
    pid = _player_id(service, club_id, player)
    profile = _club_do(service.clubs.profile, club_id, pid, key=key)
    if as_json:
        click.echo(json.dumps(profile, indent=2, ensure_ascii=False))
        return
    if profile["nickname"]:
        _echo(
            Said(
                "%(name)s, %(nickname)s (%(player)s)",
                name=profile["name"],
                nickname=profile["nickname"],
                player=profile["player"],
            )
        )
    else:
        _echo(Said("%(name)s (%(player)s)", name=profile["name"], player=profile["player"]))
    if not profile["games"]:
        _echo(Said("no matches yet"))
    for game, mine in profile["games"].items():
        unit = _unit_of(game)
        click.echo("")
        _echo(
            Counted(
                "%(game)s: %(n)s match played, %(won)s won",
                "%(game)s: %(n)s matches played, %(won)s won",
                mine["played"],
                game=game,
                won=mine["won"],
            )
        )
        if mine["inPlay"]:
            _echo(Counted("  and %(n)s in play", "  and %(n)s in play", mine["inPlay"]))
        _echo(Said("  hands: %(hands)s, won %(won)s", hands=mine["hands"], won=mine["handsWon"]))
        _echo(
            Said(
                "  %(unit)s: %(gained)s won, %(lost)s lost, net %(net)s",
                unit=unit,
                gained=mine["gained"],
                lost=mine["lost"],
                net=mine["net"],
            )
        )
        if mine["average"] is not None:
            _echo(Said("  average final total: %(average)s", average=_number(mine["average"])))
        if mine["best"]:
            _echo(
                Said(
                    "  best match: %(total)s (%(match)s); worst: %(worst)s (%(worst_match)s)",
                    total=mine["best"]["total"],
                    match=mine["best"]["match"],
                    worst=mine["worst"]["total"],
                    worst_match=mine["worst"]["match"],
                )
            )
        if mine["form"]:
            marks = " ".join(_said(Said("W") if f["won"] else Said("L")) for f in mine["form"])
            _echo(Said("  form, newest first: %(form)s", form=marks))
        if mine["headToHead"]:
            _echo(Said("  against each other player (played, won, lost):"))
            for row in mine["headToHead"]:
                _echo(
                    Said(
                        "    %(name)s (%(player)s): %(played)s, %(won)s, %(lost)s",
                        name=row["name"],
                        player=row["opponent"],
                        played=row["played"],
                        won=row["won"],
                        lost=row["lost"],
                    )
                )


def _unit_of(game: str) -> Any:
    from engines import LEAGUES

    league = LEAGUES.get(game)
    return league.unit if league is not None else game


@club.command("export")
@click.argument("club_id", metavar="CLUB")
@click.option(
    "-o", "--output", "file", type=click.Path(dir_okay=False, writable=True), help="the file (default: standard output)"
)
@DB_OPTION
def club_export(club_id: str, file: str | None, db: str) -> None:
    """Export a club's archive: its log, then its matches' logs, as JSON Lines (`tanteo import` takes it back)."""
    from api.service import transfer

    service = _service(db)
    text = _club_do(transfer.club_archive, service, club_id)
    if file is None:
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()
        return
    with open(file, "wb") as out:
        out.write(text.encode("utf-8"))
    matches = len(service.clubs.roster(club_id).matches)
    _echo(
        Counted(
            "wrote club %(club)s to %(file)s: its log and %(n)s match",
            "wrote club %(club)s to %(file)s: its log and %(n)s matches",
            matches,
            club=club_id,
            file=file,
        ),
        err=True,
    )


@club.command("rebuild")
@DB_OPTION
def club_rebuild(db: str) -> None:
    """Rebuild every club's league tables and profiles from the logs (after an upgrade that changes a figure)."""
    import time

    service = _service(db)
    start = time.perf_counter()
    done = service.clubs.rebuild()
    seconds = time.perf_counter() - start
    _echo(
        Said(
            "rebuilt the league tables and profiles from the logs: %(events)s events read, %(matches)s club "
            "matches in %(clubs)s clubs, in %(seconds)s s",
            events=done["events"],
            matches=done["matches"],
            clubs=done["clubs"],
            seconds=_number(round(seconds, 2)),
        )
    )


if __name__ == "__main__":
    main()
