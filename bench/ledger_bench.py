"""Ledger and service benchmark: every figure a ratio measured in interleaved rounds.

    python bench/ledger_bench.py [--quick] [--rounds N]

The machine is shared and noisy, so no figure is one long run against another: each row is
measured in ``--rounds`` short rounds; in each round ours and the baseline (or the long and
the short case) run back to back, the order alternating from round to round, on fresh
database files. The table prints the median of the per-round ratios with their min–max.

Workload: real moves. Whole series of all five games (Cau Robat, Kabú, Cabo, El Roby, La
Cabra), played to their end by seeded random legal play with the conformance drivers
(tests/engines/driver_<game>.py): deals, moves, hidden cards and reveals, result-only hands.
The long matches of (d) are La Cabra series of result-only 60-60 deals (which never end a
series) with a note every seventh event: the only legal way to make one match 20k events.

(a)  durable append, one event per transaction, ``synchronous=FULL``: ``Service.record``
     (schema, rules, chain, insert) vs raw ``sqlite3`` inserts, one transaction each, FULL.
(a') 4 writers at once, each on its own matches (each records the whole (a) workload), through
     ``Service.record`` with one ledger connection per thread: events/s of all four vs the raw
     single writer of (a).
     Information rows say what bounds these: (a) again at ``synchronous=OFF`` on both sides
     (the CPU of one append, ours vs raw), and four writers at OFF vs the raw writer at FULL (the
     most four threads of one process can reach here, the GIL serialising their Python work);
     and, for each, the ledger appended to directly at FULL with no check at all, and with only
     each event's schema and its fold by the rules (no token, private values, cache or
     snapshots): no validated append with these engines can do better than that second row.
(b)  bulk import: ``tanteo import``'s path (``transfer.import_archive``: read each line, check
     the envelope, recompute the chain, schema and rules, insert) of whole La Cabra series
     exported with ``tanteo export --all``'s bytes (30,000 events; 10,000 with ``--quick``), vs
     the ``eventsourcing`` library's batch save of the same events (decode, ``Application.save``
     per match). The same measurement as ``bench/import_bench.py`` (which see), at a size that
     fits this table's run; an import this big is checked by worker processes.
(b') bulk record (information): the API's way in, each match started with all its events in one
     transaction (``Service.start_match(data, events=…)``: decode JSON Lines, schema, rules,
     chain), on the five games' archive below, vs the same batch save.
(c)  cold replay + verify, as the product does it after a restart: the chain checked in one
     pass over the stored bytes (``verify``), then the head state through a new ``Service``
     (empty memory cache): the newest stored snapshot (written every 256 events, at
     corrections and when a match ends), checked against the log and the rules version, and
     the events after it folded; vs ``eventsourcing``'s read-and-fold (``repository.get``).
(c') the same chain check and read in one pass (``read_verified``), then every event folded
     from event 1 with the rules (no snapshot): what the audit, or a reader that trusts no
     stored state, pays. Information only (the baseline is the same as (c)).
     Both again on the padded archive: 200 matches (40 with ``--quick``) of 500 events each,
     whole series followed by table notes, recorded once and read in
     interleaved rounds (the issue's "≥ 5 on the padded 200 × 500 archive").
(d)  ``state`` at the head of a 10k-event match vs a 100-event one, cold (a new service:
     empty memory cache, the stored snapshots only); folding 20k events vs 10k (linearity);
     ``GET /replay`` (whole, through the Flask app) of a 5,000-event match vs 500, and one
     100-frame page at the end of the 5,000-event match vs at the start of the 500. The
     cold state and the replays are the scorer's (with the write token): a reader without it,
     while the match is in play, gets states folded from the public log, which snapshots do
     not hold.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.app import create_app  # noqa: E402
from api.service import Service, StateCache, transfer  # noqa: E402
from engines import ENGINES, get_engine  # noqa: E402
from engines.base import Event, events_from, replay, walk  # noqa: E402
from ledger import SqliteLedger  # noqa: E402
from ledger.records import NewEvent  # noqa: E402
from schemas import validate_event  # noqa: E402
from tests.engines.drivers import DRIVERS  # noqa: E402

Log = list[dict[str, Any]]

SHRINK = 1
"""How many times smaller every fixed size is (``--tiny``: 100, the same code paths at the smallest size)."""


def sized(n: int) -> int:
    """A fixed size of the bench, as ``--tiny`` shrinks it."""
    return max(10, n // SHRINK)


# --------------------------------------------------------------------------- workloads


def whole_series(game: str, seed: int) -> Log:
    """One match of ``game`` played to its end with legal random moves (the conformance driver)."""
    engine = ENGINES[game]
    driver = DRIVERS[game](random.Random(seed))
    data = driver.match_data()
    events = [Event(1, "match_started", data)]
    state = engine.start(data)
    for _ in range(5000):
        moves = engine.legal_moves(state)
        if not moves and not driver.pending:
            break
        kind, payload = driver.choose(state, moves)
        event = Event(len(events) + 1, kind, payload)
        after = engine.apply(state, event)
        driver.observe(state, event, after)
        events.append(event)
        state = after
    return [{"type": e.type, "data": json.loads(json.dumps(e.data))} for e in events]


def archive(per_game: int, seed0: int = 0) -> list[Log]:
    """``per_game`` whole series of each of the five games, interleaved by game."""
    return [whole_series(game, seed0 + i) for i in range(per_game) for game in sorted(ENGINES)]


def padded(log: Log, length: int) -> Log:
    """``log`` followed by table notes up to ``length`` events (the padded archive).

    The notes come after the series' last move: moves name earlier events by seq (a reveal
    names its keep), so nothing may be inserted before them.
    """
    return log + [{"type": "note", "data": {"text": f"table talk {k + 1}"}} for k in range(max(0, length - len(log)))]


def eggs_match(length: int) -> Log:
    """A long legal La Cabra series: result-only 60-60 deals never end it; a note every 7th event."""
    log: Log = [{"type": "match_started", "data": {"game": "la-cabra", "players": ["North", "East", "South", "West"]}}]
    dealer = 3
    while len(log) < length:
        if len(log) % 7 == 0:
            log.append({"type": "note", "data": {"text": f"table talk {len(log) + 1}"}})
            continue
        log.append({"type": "hand_started", "data": {"dealer": dealer}})
        log.append({"type": "hand_result", "data": {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": dealer}})
        dealer = (dealer + 1) % 4
    return log[:length]


# --------------------------------------------------------------------------- rounds


def interleaved(rounds: int, ours: Callable[[int], float], base: Callable[[int], float]) -> list[tuple[float, float]]:
    """Run ``ours`` and ``base`` (each returns its seconds) once per round, alternating which goes first."""
    out = []
    for r in range(rounds):
        if r % 2 == 0:
            a = ours(r)
            b = base(r)
        else:
            b = base(r)
            a = ours(r)
        out.append((a, b))
    return out


def summary(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# --------------------------------------------------------------------------- (a) and (a')


def raw_per_event(path: Path, logs: list[Log], synchronous: str = "FULL") -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("CREATE TABLE events (match_id TEXT, seq INTEGER, type TEXT, data TEXT, PRIMARY KEY (match_id, seq))")
    start = time.perf_counter()
    for m, log in enumerate(logs):
        for seq, event in enumerate(log, 1):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?)", (f"m{m}", seq, event["type"], json.dumps(event["data"]))
            )
            conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed


def ours_per_event(path: Path, logs: list[Log], synchronous: str = "FULL") -> float:
    with SqliteLedger(path, synchronous=synchronous) as ledger:
        service = Service(ledger, StateCache())
        start = time.perf_counter()
        for log in logs:
            created = service.start_match(log[0]["data"])
            for event in log[1:]:
                service.record(created["id"], [event], token=created["token"])
        return time.perf_counter() - start


def ledger_only(ledger: SqliteLedger, logs: list[Log], prefix: str, rules: bool) -> None:
    """Append ``logs`` straight to the ledger, one event per transaction: with ``rules``, each event's
    schema checked and the event folded by its engine (the one walk) inside the transaction, and
    nothing else of the service (no token, no private values, no cache, no snapshots)."""
    for m, log in enumerate(logs):
        game = log[0]["data"]["game"]
        engine = get_engine(game)
        match_id = f"{prefix}{m}"
        state = engine.start(log[0]["data"]) if rules else None
        ledger.create_match(
            match_id,
            game=game,
            players=list(log[0]["data"]["players"]),
            token_hash="-",
            first=NewEvent(log[0]["type"], dict(log[0]["data"]), ()),
            by="",
        )
        for seq, event in enumerate(log[1:], 2):
            folded: list[Any] = []

            def check(version: int, built: Any, event: dict[str, Any] = event, seq: int = seq) -> None:
                if rules:
                    validate_event(game, event["type"], event["data"])
                    step = next(
                        walk(engine, [Event(seq, event["type"], event["data"])], "recorded", after=seq - 1, state=state)
                    )
                    folded.append(step.state)

            ledger.append(match_id, [NewEvent(event["type"], dict(event["data"]), ())], by="", check=check)
            if rules:
                state = folded[0]


def ledger_per_event(path: Path, logs: list[Log], rules: bool) -> float:
    with SqliteLedger(path, synchronous="FULL") as ledger:
        start = time.perf_counter()
        ledger_only(ledger, logs, "m", rules)
        return time.perf_counter() - start


def ours_concurrent(path: Path, logs: list[Log], writers: int, synchronous: str = "FULL") -> float:
    """``writers`` threads, each with its own connection, each recording all of ``logs`` as matches of
    its own, one event at a time: the same work each, so that all of them write until the end (split
    among them, series of unequal length left one writer alone for most of the run)."""
    cache = StateCache()

    def record(ledger: SqliteLedger, _writer: int) -> None:
        service = Service(ledger, cache)
        for log in logs:
            created = service.start_match(log[0]["data"])
            for event in log[1:]:
                service.record(created["id"], [event], token=created["token"])

    return concurrent(path, writers, record, synchronous)


def ledger_concurrent(path: Path, logs: list[Log], writers: int, rules: bool) -> float:
    """:func:`ours_concurrent` with each thread appending straight to the ledger (:func:`ledger_only`)."""
    return concurrent(path, writers, lambda ledger, w: ledger_only(ledger, logs, f"w{w}m", rules), "FULL")


def concurrent(path: Path, writers: int, work: Callable[[SqliteLedger, int], None], synchronous: str) -> float:
    """Run ``work(ledger, writer)`` in ``writers`` threads at once, each on its own connection; the seconds."""
    SqliteLedger(path).close()  # create the file first
    barrier = threading.Barrier(writers + 1)
    errors: list[BaseException] = []

    def run(writer: int) -> None:
        try:
            with SqliteLedger(path, synchronous=synchronous) as ledger:
                barrier.wait()
                work(ledger, writer)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
            raise

    threads = [threading.Thread(target=run, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"a writer failed: {errors[0]!r}")
    return time.perf_counter() - start


# --------------------------------------------------------------------------- (b) and (c)


@lru_cache(maxsize=1)
def es_aggregate() -> type:
    """The baseline's aggregate: a match whose events are recorded as they come (defined once:
    eventsourcing registers each class by its topic)."""
    from eventsourcing.domain import Aggregate, event

    class Match(Aggregate):
        def __init__(self, game: str) -> None:
            self.game = game
            self.log: list[tuple[str, Any]] = []

        @event("Recorded")
        def record(self, type: str, data: dict[str, Any]) -> None:
            self.log.append((type, data))

    return Match


def eventsourcing_app(path: Path) -> tuple[Any, type]:
    from eventsourcing.application import Application

    return Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}), es_aggregate()


def ours_bulk(path: Path, lines: list[list[str]], ids: list[tuple[str, str]]) -> float:
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        start = time.perf_counter()
        for match in lines:
            events = [json.loads(line) for line in match]
            created = service.start_match(events[0]["data"], events=events[1:])
            ids.append((created["id"], created["token"]))
        return time.perf_counter() - start


def es_bulk(path: Path, lines: list[list[str]], ids: list[Any]) -> tuple[float, Any]:
    app, aggregate = eventsourcing_app(path)
    start = time.perf_counter()
    for match in lines:
        events = [json.loads(line) for line in match]
        agg = aggregate(events[0]["data"]["game"])
        for e in events[1:]:
            agg.record(e["type"], e["data"])
        app.save(agg)
        ids.append(agg.id)
    return time.perf_counter() - start, app


def ours_replay_verify(path: Path, ids: list[tuple[str, str]]) -> float:
    """(c): what a cold reader does: verify the chain (one pass over the stored bytes), then the
    head state through a new Service (empty memory cache: the newest stored snapshot, then the
    events after it)."""
    with SqliteLedger(path) as ledger:
        start = time.perf_counter()
        for match_id, token in ids:
            if not ledger.verify(match_id)[0].valid:
                raise SystemExit(f"chain broken in {match_id}")
            Service(ledger, StateCache()).state(match_id, token=token)
        return time.perf_counter() - start


def ours_refold_verify(path: Path, ids: list[tuple[str, str]]) -> float:
    """(c'): verify and read in one pass (``read_verified``), then fold every event from event 1
    (no snapshot): what the audit, or a reader that trusts no stored state, pays."""
    with SqliteLedger(path) as ledger:
        start = time.perf_counter()
        for match_id, _ in ids:
            record = ledger.get_match(match_id)
            report, records = ledger.read_verified(match_id)
            if not report.valid:
                raise SystemExit(f"chain broken in {match_id}")
            replay(get_engine(record.game), events_from(records))
        return time.perf_counter() - start


def es_read_fold(app: Any, ids: list[Any]) -> float:
    start = time.perf_counter()
    for agg_id in ids:
        app.repository.get(agg_id)
    return time.perf_counter() - start


# --------------------------------------------------------------------------- (d)


def recorded_match(path: Path, log: Log) -> tuple[str, str]:
    """Record a match in batches of 100: its head ends some way past its newest snapshot (99 events
    for the 10k match with snapshots every 256), as a match does between two snapshots."""
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        for start in range(1, len(log), 100):
            service.record(created["id"], log[start : start + 100], token=created["token"])
        return str(created["id"]), str(created["token"])


def cold_state(path: Path, match: tuple[str, str], repeat: int) -> float:
    """The scorer's read (with the token: the disclosed state, which snapshots hold)."""
    with SqliteLedger(path) as ledger:
        start = time.perf_counter()
        for _ in range(repeat):
            Service(ledger, StateCache()).state(match[0], token=match[1])
        return (time.perf_counter() - start) / repeat


def fold_time(events: list[Event]) -> float:
    from engines import la_cabra

    return timed(lambda: replay(la_cabra, events))


def http_get(client: Any, url: str, repeat: int, token: str) -> tuple[float, int]:
    size = 0
    start = time.perf_counter()
    for _ in range(repeat):
        r = client.get(url, headers={"Authorization": f"Bearer {token}"})
        if r.status_code != 200:
            raise SystemExit(f"GET {url}: {r.status_code} {r.data[:200]!r}")
        size = len(r.data)
    return (time.perf_counter() - start) / repeat, size


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: the whole run in under 3 minutes")
    parser.add_argument("--tiny", action="store_true", help="every row once at the smallest size: checks that it runs")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument(
        "--only",
        choices=("a", "a4", "bc", "d"),
        action="append",
        help="run only these rows (repeatable): a, a4 (a'), bc ((b), (c), (c') and the padded (c) rows), d (the scaling table)",
    )
    args = parser.parse_args()
    only = set(args.only or ("a", "a4", "bc", "d"))
    global SHRINK
    quick = args.quick or args.tiny
    rounds = args.rounds or (1 if args.tiny else 5 if quick else 9)
    per_game = 1 if args.tiny else 2 if quick else 8
    if args.tiny:
        SHRINK = 100
    t0 = time.perf_counter()
    logs = archive(per_game)
    total = sum(len(log) for log in logs)
    lines = [[json.dumps(e) for e in log] for log in logs]
    few = archive(1, seed0=100) if quick else archive(2, seed0=100)
    if args.tiny:
        logs, few = logs[:2], few[:1]
    total = sum(len(log) for log in logs)
    lines = [[json.dumps(e) for e in log] for log in logs]
    n_few = sum(len(log) for log in few)
    print(
        f"archive: {len(logs)} whole series of 5 games, {total:,} events; (a) on {len(few)} series, {n_few:,} events; "
        f"{rounds} rounds; built in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    rows: list[list[str]] = []
    tmp = tempfile.mkdtemp(prefix="tanteo-bench-")
    d = Path(tmp)

    def fresh(name: str, r: int) -> Path:
        return d / f"{name}-{r}.db"

    # (a) durable append vs raw sqlite3, one event per transaction
    if "a" in only:
        a_row(rows, rounds, fresh, few, n_few)
    if "a4" in only:
        a4_row(rows, rounds, fresh, few, n_few)
    if "bc" in only:
        import_row(rows, rounds, d, sized(10_000 if quick else 30_000))
        bc_rows(rows, rounds, fresh, lines, total)
        padded_rows(rows, quick, d)
    scale: list[list[str]] = []
    if "d" in only:
        d_rows(scale, rounds, d)
    print()
    print_table(rows, ["throughput", "ours", "baseline", "ratio: median (min–max)", "target"])
    if scale:
        print()
        print_table(scale, ["scaling", "long", "short", "ratio: median (min–max)", "target"])
    print(
        f"\n(a)-(c): ratio = our events/s ÷ the baseline's, per round; (d): long time ÷ short time, per round. "
        f"{rounds} interleaved rounds; total {time.perf_counter() - t0:.0f} s. Files in {tmp} (deleted)."
    )
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


def a_row(rows: list[list[str]], rounds: int, fresh: Callable[[str, int], Path], few: list[Log], n_few: int) -> None:
    pairs = interleaved(
        rounds, lambda r: ours_per_event(fresh("a", r), few), lambda r: raw_per_event(fresh("raw", r), few)
    )
    ratio = [b / a for a, b in pairs]
    rows.append(
        [
            "(a) append 1 event/txn FULL, ours vs raw sqlite3",
            f"{n_few / statistics.median(a for a, _ in pairs):,.0f}/s",
            f"{n_few / statistics.median(b for _, b in pairs):,.0f}/s",
            summary(ratio),
            "≥ 0.9",
        ]
    )
    # What bounds (a): the same appends with no fsync at all, on both sides, is the CPU each
    # append costs; at FULL both add about the same wait for the disk (information only).
    pairs = interleaved(
        max(3, rounds // 3),
        lambda r: ours_per_event(fresh("a-off", r), few, "OFF"),
        lambda r: raw_per_event(fresh("raw-off", r), few, "OFF"),
    )
    rows.append(
        [
            "(a) CPU only: the same at synchronous=OFF (info)",
            f"{n_few / statistics.median(a for a, _ in pairs):,.0f}/s",
            f"{n_few / statistics.median(b for _, b in pairs):,.0f}/s",
            summary([b / a for a, b in pairs]),
            "—",
        ]
    )
    # What bounds (a) from below: the ledger alone (no check at all), and the ledger with only
    # each event's schema and its fold by the rules, at FULL, against raw sqlite3 at FULL. No
    # validated append with these engines can pass the second (information only).
    for rules, what in ((False, "the ledger alone, no check"), (True, "the ledger + schema + rules' fold only")):
        pairs = interleaved(
            max(3, rounds // 3),
            lambda r: ledger_per_event(fresh(f"a-ledger{int(rules)}", r), few, rules),
            lambda r: raw_per_event(fresh(f"raw-ledger{int(rules)}", r), few),
        )
        rows.append(
            [
                f"(a) bound: {what}, FULL (info)",
                f"{n_few / statistics.median(a for a, _ in pairs):,.0f}/s",
                f"{n_few / statistics.median(b for _, b in pairs):,.0f}/s",
                summary([b / a for a, b in pairs]),
                "—",
            ]
        )
    print("  (a) done", flush=True)


def a4_row(rows: list[list[str]], rounds: int, fresh: Callable[[str, int], Path], few: list[Log], n_few: int) -> None:
    """(a') 4 concurrent writers vs the raw single writer."""
    pairs = interleaved(
        rounds, lambda r: ours_concurrent(fresh("a4", r), few, 4) / 4, lambda r: raw_per_event(fresh("raw4", r), few)
    )
    ratio = [b / a for a, b in pairs]  # ours: seconds per n_few events of the 4 writers' 4 × n_few
    rows.append(
        [
            "(a') 4 writers, ours vs raw single writer",
            f"{n_few / statistics.median(a for a, _ in pairs):,.0f}/s",
            f"{n_few / statistics.median(b for _, b in pairs):,.0f}/s",
            summary(ratio),
            "≥ 1.8",
        ]
    )
    # What bounds (a'): four writers with no fsync at all (the GIL serialises their Python
    # work) against the raw single writer at FULL; below 1.8 the target is out of reach here.
    pairs = interleaved(
        max(3, rounds // 3),
        lambda r: ours_concurrent(fresh("a4-off", r), few, 4, "OFF") / 4,
        lambda r: raw_per_event(fresh("raw4-off", r), few),
    )
    rows.append(
        [
            "(a') ceiling: 4 writers at synchronous=OFF vs raw at FULL (info)",
            f"{n_few / statistics.median(a for a, _ in pairs):,.0f}/s",
            f"{n_few / statistics.median(b for _, b in pairs):,.0f}/s",
            summary([b / a for a, b in pairs]),
            "—",
        ]
    )
    # and the same four threads appending straight to the ledger, group commit and all, with no
    # check and with only the schema and the rules' fold (information only)
    for rules, what in ((False, "the ledger alone, no check"), (True, "the ledger + schema + rules' fold only")):
        pairs = interleaved(
            max(3, rounds // 3),
            lambda r: ledger_concurrent(fresh(f"a4-ledger{int(rules)}", r), few, 4, rules) / 4,
            lambda r: raw_per_event(fresh(f"raw4-ledger{int(rules)}", r), few),
        )
        rows.append(
            [
                f"(a') bound: 4 writers, {what}, FULL (info)",
                f"{n_few / statistics.median(a for a, _ in pairs):,.0f}/s",
                f"{n_few / statistics.median(b for _, b in pairs):,.0f}/s",
                summary([b / a for a, b in pairs]),
                "—",
            ]
        )
    print("  (a') done", flush=True)


def import_row(rows: list[list[str]], rounds: int, d: Path, events: int) -> None:
    """(b) bulk import vs eventsourcing's batch save: import_bench's two sides, interleaved."""
    import import_bench  # here: it imports this module

    lines, matches, total = import_bench.build_archive(d / "b-source.db", events)
    workers = transfer.import_workers(None, total)
    pairs = interleaved(
        rounds,
        lambda r: import_bench.ours(d / f"b-import-{r}.db", lines, matches, workers),
        lambda r: import_bench.baseline(d / f"b-es-{r}.db", lines),
    )
    rows.append(
        [
            f"(b) bulk import ({total:,} events, {workers} worker{'s' if workers != 1 else ''}) vs eventsourcing save",
            f"{total / statistics.median(a for a, _ in pairs):,.0f}/s",
            f"{total / statistics.median(b for _, b in pairs):,.0f}/s",
            summary([b / a for a, b in pairs]),
            "≥ 1.0",
        ]
    )
    print("  (b) done", flush=True)


def bc_rows(
    rows: list[list[str]], rounds: int, fresh: Callable[[str, int], Path], lines: list[list[str]], total: int
) -> None:
    """(b') bulk record vs eventsourcing save, and (c), (c') replay + verify vs read-and-fold on what (b') stored."""
    b_pairs, c_pairs, c2_pairs = [], [], []
    for r in range(rounds):
        our_ids: list[tuple[str, str]] = []
        es_ids: list[Any] = []
        if r % 2 == 0:
            ours_b = ours_bulk(fresh("b", r), lines, our_ids)
            base_b, app = es_bulk(fresh("es", r), lines, es_ids)
            ours_c = ours_replay_verify(fresh("b", r), our_ids)
            ours_c2 = ours_refold_verify(fresh("b", r), our_ids)
            base_c = es_read_fold(app, es_ids)
        else:
            base_b, app = es_bulk(fresh("es", r), lines, es_ids)
            ours_b = ours_bulk(fresh("b", r), lines, our_ids)
            base_c = es_read_fold(app, es_ids)
            ours_c2 = ours_refold_verify(fresh("b", r), our_ids)
            ours_c = ours_replay_verify(fresh("b", r), our_ids)
        b_pairs.append((ours_b, base_b))
        c_pairs.append((ours_c, base_c))
        c2_pairs.append((ours_c2, base_c))
    for label, pairs, target in (
        ("(b') bulk record, five games (start_match with events) vs eventsourcing save", b_pairs, "(info)"),
        ("(c) cold replay + verify vs eventsourcing read-and-fold", c_pairs, "≥ 3"),
        ("(c') replay + verify, full refold from event 1 (no snapshots)", c2_pairs, "(info)"),
    ):
        ratio = [b / a for a, b in pairs]
        rows.append(
            [
                label,
                f"{total / statistics.median(a for a, _ in pairs):,.0f}/s",
                f"{total / statistics.median(b for _, b in pairs):,.0f}/s",
                summary(ratio),
                target,
            ]
        )
    print("  (b), (c) done", flush=True)


def padded_rows(rows: list[list[str]], quick: bool, d: Path) -> None:
    """(c) and (c') again on the padded archive: many matches of 500 events, whole series and table notes."""
    n_pad, pad_rounds = (40, 3) if quick else (200, 5)
    n_pad, pad_rounds, pad = (5, 1, sized(500)) if SHRINK > 1 else (n_pad, pad_rounds, 500)
    pad_logs = [padded(log, pad) for log in archive(n_pad // 5, seed0=1000)]
    pad_lines = [[json.dumps(e) for e in log] for log in pad_logs]
    pad_total = sum(len(log) for log in pad_logs)
    pad_ids: list[tuple[str, str]] = []
    pad_es: list[Any] = []
    ours_bulk(d / "pad.db", pad_lines, pad_ids)
    _, pad_app = es_bulk(d / "pad-es.db", pad_lines, pad_es)
    for label, ours, target in (
        (f"(c) cold replay + verify, padded {len(pad_logs)} × {pad} events", ours_replay_verify, "≥ 5"),
        (f"(c') full refold, padded {len(pad_logs)} × {pad} events", ours_refold_verify, "(info)"),
    ):
        pairs = interleaved(pad_rounds, lambda r: ours(d / "pad.db", pad_ids), lambda r: es_read_fold(pad_app, pad_es))
        ratio = [b / a for a, b in pairs]
        rows.append(
            [
                label,
                f"{pad_total / statistics.median(a for a, _ in pairs):,.0f}/s",
                f"{pad_total / statistics.median(b for _, b in pairs):,.0f}/s",
                summary(ratio),
                target,
            ]
        )
    print("  (c) padded done", flush=True)


def d_rows(scale: list[list[str]], rounds: int, d: Path) -> None:
    """(d) cold state at the head: 10k vs 100 events; linearity; GET /replay."""
    long_n, short_n = sized(10_000), sized(100)
    long_log, short_log = eggs_match(long_n), eggs_match(short_n)
    long_id, short_id = recorded_match(d / "d.db", long_log), recorded_match(d / "d.db", short_log)
    repeat = 5
    pairs = interleaved(
        rounds, lambda r: cold_state(d / "d.db", long_id, repeat), lambda r: cold_state(d / "d.db", short_id, repeat)
    )
    ratio = [a / b for a, b in pairs]
    scale.append(
        [
            f"(d) cold state at the head (scorer), {long_n:,}-event vs {short_n:,}-event match",
            f"{statistics.median(a for a, _ in pairs) * 1e3:.2f} ms",
            f"{statistics.median(b for _, b in pairs) * 1e3:.2f} ms",
            summary(ratio),
            "≤ 5",
        ]
    )

    # linearity: folding 20k events vs 10k
    twenty = [Event(i, e["type"], e["data"]) for i, e in enumerate(eggs_match(sized(20_000)), 1)]
    ten = twenty[: len(twenty) // 2]
    pairs = interleaved(rounds, lambda r: fold_time(twenty), lambda r: fold_time(ten))
    ratio = [a / b for a, b in pairs]
    scale.append(
        [
            f"fold {len(twenty):,} events vs {len(ten):,} (linearity)",
            f"{statistics.median(a for a, _ in pairs) * 1e3:.0f} ms",
            f"{statistics.median(b for _, b in pairs) * 1e3:.0f} ms",
            summary(ratio),
            "≤ 2.2",
        ]
    )

    # GET /replay through the app: 5,000 vs 500 events, whole and one page
    app = create_app({"TANTEO_DB": str(d / "http.db"), "TESTING": True})
    client = app.test_client()
    ids, tokens = {}, {}
    big, small = sized(5000), sized(500)
    for n in (big, small):
        log = eggs_match(n)
        created = client.post("/matches", json=log[0]["data"]).get_json()
        for start in range(1, n, 500):
            client.post(
                f"/matches/{created['id']}/events",
                json={"events": log[start : start + 500]},
                headers={"Authorization": f"Bearer {created['token']}"},
            )
        ids[n] = created["id"]
        tokens[n] = created["token"]
    sizes: dict[int, int] = {}

    def get(n: int, url: str) -> float:
        seconds, sizes[n] = http_get(client, url, 1, tokens[n])
        return seconds

    pairs = interleaved(
        rounds, lambda r: get(big, f"/matches/{ids[big]}/replay"), lambda r: get(small, f"/matches/{ids[small]}/replay")
    )
    ratio = [a / b for a, b in pairs]
    scale.append(
        [
            f"GET /replay whole, {big:,} vs {small:,} events",
            f"{statistics.median(a for a, _ in pairs) * 1e3:.0f} ms, {sizes[big] / 1e6:.1f} MB",
            f"{statistics.median(b for _, b in pairs) * 1e3:.1f} ms, {sizes[small] / 1e6:.2f} MB",
            summary(ratio),
            "≤ 10",
        ]
    )
    pairs = interleaved(
        rounds,
        lambda r: get(big, f"/matches/{ids[big]}/replay?from={max(1, big - 99)}&limit=100"),
        lambda r: get(small, f"/matches/{ids[small]}/replay?from=1&limit=100"),
    )
    ratio = [a / b for a, b in pairs]
    scale.append(
        [
            f"GET /replay one 100-frame page: last of {big:,} vs first of {small:,}",
            f"{statistics.median(a for a, _ in pairs) * 1e3:.1f} ms",
            f"{statistics.median(b for _, b in pairs) * 1e3:.1f} ms",
            summary(ratio),
            "(paged)",
        ]
    )
    print("  (d) done", flush=True)


def print_table(rows: list[list[str]], head: list[str]) -> None:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
