"""The ``tanteo`` command line: serve the API, record a JSON Lines file, replay, audit, verify.

Every command but ``serve`` works straight on the database file through the same
Flask-free service the API uses, so the rules, the chain and the errors are the same.
The database is ``--db``, else ``TANTEO_DB``, else ``tanteo.db`` in the working directory.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterator

import click

DB_OPTION = click.option("--db", envvar="TANTEO_DB", default="tanteo.db", show_default=True,
                         help="SQLite file (also TANTEO_DB)")


def _service(db: str) -> Any:
    from api.service import Service
    from ledger import open_ledger

    return Service(open_ledger(db))


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _explain(error: Exception) -> str:
    """Say an error as the API would, in one line."""
    from api.service import AuthError, EventRefused

    if isinstance(error, EventRefused):
        inner = error.error
        path = getattr(inner, "path", None)
        where = f" at {path}" if path else ""
        return f"{inner.code}{where}: {inner.message}"
    if isinstance(error, AuthError):
        return f"{error.code}: {error.message}"
    code = getattr(error, "code", None)
    return f"{code}: {getattr(error, 'message', error)}" if code else str(error)


@click.group()
@click.version_option(package_name="tanteo")
def main() -> None:
    """Tanteo: record card games played with physical cards, replay them, audit every score."""


WAITRESS_SETTINGS: dict[str, Any] = {
    "threads": 8,
    "connection_limit": 1000,
    "channel_timeout": 30,
    "cleanup_interval": 10,
    "backlog": 1024,
    "asyncore_use_poll": True,
}
"""How ``tanteo serve`` runs waitress, and why (README, "Serving"):

* ``threads`` 8: the workers that run requests, each with its own SQLite connection kept
  for the life of the process. Writes queue on SQLite's lock and folding holds the GIL, so
  more threads add no throughput; 8 lets quick requests pass a slow one (a long audit).
* ``connection_limit`` 1000 (waitress: 100): an open connection costs waitress a socket and
  a few kilobytes, not a thread, but past the limit waitress stops accepting anyone, so
  about a hundred idle or trickling connections used to lock every other client out.
* ``asyncore_use_poll``: ``select()`` cannot watch descriptors past 1024; ``poll()`` can.
* ``channel_timeout`` 30 s (waitress: 120) with ``cleanup_interval`` 10 s: a connection that
  sends nothing for 30 s is closed sooner. A client that trickles bytes keeps its
  connection; what bounds such clients is the connection limit (put a proxy with header
  deadlines in front of a server open to the internet).
* ``backlog`` 1024: connections the kernel queues while waitress is busy accepting.
"""


def _raise_open_files_limit(needed: int) -> None:
    """Let the process hold ``needed`` descriptors if the hard limit allows (idle clients)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--threads", default=WAITRESS_SETTINGS["threads"], show_default=True, type=int,
              help="worker threads (each keeps one database connection)")
@click.option("--connection-limit", default=WAITRESS_SETTINGS["connection_limit"], show_default=True, type=int,
              help="open connections accepted at once, idle ones included")
@click.option("--channel-timeout", default=WAITRESS_SETTINGS["channel_timeout"], show_default=True, type=int,
              help="seconds before a connection that sends nothing is closed")
@click.option("--read-only", is_flag=True, help="serve the database read-only (writes answer 503)")
@DB_OPTION
def serve(host: str, port: int, threads: int, connection_limit: int, channel_timeout: int, read_only: bool,
          db: str) -> None:
    """Serve the REST API with waitress (SQLite file created on first use)."""
    import signal

    from waitress import serve as waitress_serve

    from api.app import create_app

    settings = {**WAITRESS_SETTINGS, "threads": threads, "connection_limit": connection_limit,
                "channel_timeout": channel_timeout}
    _raise_open_files_limit(connection_limit + 64)
    app = create_app({"TANTEO_DB": db, "TANTEO_READ_ONLY": read_only})
    # SIGTERM ends waitress' loop like Ctrl-C does, so the ledgers are closed below.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    click.echo(f"Tanteo on http://{host}:{port}/  (docs: /docs, database: {db})")
    try:
        waitress_serve(app, host=host, port=port, **settings)
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


@main.command()
@click.argument("match")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--token", envvar="TANTEO_TOKEN", help="the match's write token (also TANTEO_TOKEN)")
@click.option("--by", default="", help="who records")
@click.option("--batch", default=500, show_default=True, type=int, help="events per transaction")
@DB_OPTION
def record(match: str, file: str, token: str | None, by: str, batch: int, db: str) -> None:
    """Append a JSON Lines file of events to MATCH ('new': the file starts with match_started).

    Stops at the first refused event, names its line, and keeps everything before it.
    """
    from tqdm import tqdm

    from api.service import EventRefused

    service = _service(db)
    lines = list(_lines(file))
    if match == "new":
        if not lines or lines[0][1]["type"] != "match_started":
            _fail("a new match's file starts with a match_started line")
        try:
            created = service.start_match(lines[0][1]["data"], by=by)
        except Exception as error:  # noqa: BLE001 - every refusal is reported the same way
            _fail(f"line {lines[0][0]}: {_explain(error)}")
        match, token = created["id"], created["token"]
        click.echo(f"match {match} (token {token})")
        lines = lines[1:]
    if lines and not token:
        _fail("recording needs the match's write token: --token or TANTEO_TOKEN")
    written = 0
    with tqdm(total=len(lines), unit="event", disable=None, file=sys.stderr) as bar:
        for start in range(0, len(lines), batch):
            chunk = lines[start:start + batch]
            try:
                service.record(match, [e for _, e in chunk], token=token, by=by)
            except EventRefused as refused:
                good = chunk[: refused.index]
                if good:
                    service.record(match, [e for _, e in good], token=token, by=by)
                written += len(good)
                _fail(f"line {chunk[refused.index][0]} refused: {_explain(refused)} "
                      f"({written} events before it were recorded)")
            except Exception as error:  # noqa: BLE001
                _fail(f"line {chunk[0][0]}: {_explain(error)} ({written} events recorded)")
            written += len(chunk)
            bar.update(len(chunk))
    click.echo(f"recorded {written} events; match {match} is at version {service.ledger.version(match)}")


def _seat(value: str | None) -> int | str | None:
    if value is None or value == "all":
        return value
    return int(value)


@main.command()
@click.argument("match")
@click.option("--seat", help="a seat number or 'all' (default: the public view)")
@click.option("--at", type=int, help="stop after this step")
@click.option("--course", type=click.Choice(["corrected", "recorded"]), default="corrected", show_default=True)
@click.option("--token", envvar="TANTEO_TOKEN",
              help="the match's write token: the full view of a match in play (needed for --seat all)")
@click.option("--state", "show_state", is_flag=True, help="print the state after the last step shown")
@DB_OPTION
def replay(match: str, seat: str | None, at: int | None, course: str, token: str | None, show_state: bool, db: str) -> None:
    """Print a match step by step, in words."""
    service = _service(db)
    try:
        out = service.replay(match, seat=_seat(seat), course=course, stop=at, token=token)
    except Exception as error:  # noqa: BLE001
        _fail(_explain(error))
    for frame in out["frames"]:
        mark = {"voided": " [voided]", "amended": " [amended]"}.get(frame["status"], "")
        click.echo(f"{frame['seq']:>5}  {frame['text']}{mark}")
    if show_state and out["frames"]:
        click.echo(json.dumps(out["frames"][-1]["state"], indent=2, ensure_ascii=False))


@main.command()
@click.argument("match")
@click.option("--json", "as_json", is_flag=True, help="print the audit as JSON")
@click.option("--token", envvar="TANTEO_TOKEN",
              help="the match's write token: a match in play scored from every private fact, not the public view")
@DB_OPTION
def audit(match: str, as_json: bool, token: str | None, db: str) -> None:
    """Rescore every hand from the log and compare the table's claims."""
    service = _service(db)
    try:
        report = service.audit(match, token=token)
    except Exception as error:  # noqa: BLE001
        _fail(_explain(error))
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    chain = report["chain"]
    click.echo(f"chain: {'valid' if chain['valid'] else 'BROKEN at ' + str(chain['firstBad'])}, "
               f"{chain['length']} events, head {chain['head'][:16]}")
    for hand in report["hands"]:
        click.echo(f"hand {hand['hand']}: {hand['status']}")
        for line in hand.get("lines", []):
            who = f"team {line['team']}" if "team" in line else f"seat {line.get('seat')}"
            click.echo(f"    {who}: {line['points']:+}  {line['reason']}  ({line['rule']})")
    for standing in report["standings"]:
        click.echo(f"total {standing}")
    first = report["firstDivergence"]
    agreed = sum(1 for c in report["claims"] if c["agrees"])
    click.echo(f"claims: {agreed} of {len(report['claims'])} agree")
    if first:
        click.echo(f"first divergence: {first['why']}")
    for correction in report["corrections"]:
        click.echo(f"correction {correction['seq']}: {correction['type']} of {correction['target']}: {correction['reason']}")
    if first or not chain["valid"]:
        sys.exit(2)


@main.command()
@click.argument("match", required=False)
@DB_OPTION
@click.option("--url", "base", default=None, metavar="BASE",
              help="check MATCH from a server's open listing (BASE/matches/MATCH/events) instead of the file")
def verify(match: str | None, db: str, base: str | None) -> None:
    """Check hash chains: offline from the database file, or with --url from a server's open listing.

    With --url only what anyone may read is used (private values are checked through their
    commitments while the match is in play); prints the head; exit status 0 valid, 1 not.
    """
    if base is not None:
        if not match:
            _fail("verify --url needs the match id: tanteo verify --url BASE MATCH")
        _verify_url(base, str(match))
        return
    from ledger import LedgerError, verify_file

    try:
        reports = verify_file(db)
    except LedgerError as error:
        _fail(str(error))
    if match:
        reports = [r for r in reports if r.match == match]
        if not reports:
            _fail(f"no match {match} in {db}")
    bad = 0
    for report in reports:
        if report.valid:
            click.echo(f"{report.match}: valid, {report.length} events, head {report.head[:16]}")
        else:
            bad += 1
            click.echo(f"{report.match}: BROKEN at event {report.first_bad}: {report.reason}")
    click.echo(f"{len(reports) - bad} of {len(reports)} chains valid")
    if bad:
        sys.exit(2)


def _get_json(url: str) -> Any:
    """GET a JSON document; exit with a one-line error when the server cannot give it."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"}), timeout=30) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read()).get("detail", "")
        except (ValueError, AttributeError):
            detail = ""
        _fail(f"{url}: HTTP {error.code} {detail}".rstrip())
    except (urllib.error.URLError, OSError, ValueError) as error:
        _fail(f"{url}: cannot read it ({getattr(error, 'reason', error)})")


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
        hidden = sum(1 for e in envelopes if "private" not in e and '"private":true' in json.dumps(e["data"], separators=(",", ":")))
        click.echo(f"{match}: valid, {report.length} events, head {report.head}"
                   + (f" ({hidden} with private values checked by commitment)" if hidden else ""))
        return
    click.echo(f"{match}: BROKEN at event {report.first_bad}: {report.reason}" if report.first_bad
               else f"{match}: BROKEN: {report.reason}")
    click.echo(f"head {report.head}")
    sys.exit(1)


if __name__ == "__main__":
    main()
