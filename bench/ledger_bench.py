"""Ledger and service benchmark: every figure a ratio against a baseline measured in the same run.

    .venv/bin/pip install -q -e '.[bench]' && .venv/bin/python bench/ledger_bench.py [--matches 200] [--events 500]

The archive: ``--matches`` La Cabra matches of ``--events`` events each (default 200 × 500 =
100k), generated once per run by seeded random legal play (tests/engines' driver): real
deals move by move, hidden discards, reveals, result-only hands and a ``score_claimed`` after
every deal. A La Cabra series ends at 12 loss points, after 60–400 events; a match that ends
earlier is padded with ``note`` events (the table's comments) and the share of notes is
printed. Because notes are cheap to fold, (b) and (c) are also measured on a second archive
of the same size made of whole series only (no padding). Both paths store the same events.

(a) durable append, one event per transaction, ``synchronous=FULL``: ``Service.record`` (JSON
    Schema, rules, chain, insert) vs raw ``sqlite3`` inserts, one transaction each, also FULL.
(b) bulk record of the archive from JSON Lines (decode, schema, rules, chain, one batch per
    match) vs the ``eventsourcing`` library's batch save (decode, ``Application.save``).
(c) replay and verify (read, chain check, fold with the rules) vs ``eventsourcing``'s
    read-and-fold (``repository.get``).
(d) state at the last step of a 10,000-event match vs a 100-event match, through the
    service: warm (the process that recorded it) and cold (a new process: no cache).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.service import Service, StateCache  # noqa: E402
from engines import la_cabra  # noqa: E402
from engines.base import Event, events_from, replay  # noqa: E402
from ledger import SqliteLedger  # noqa: E402
from tests.engines.driver_la_cabra import LaCabraDriver  # noqa: E402

Log = list[dict[str, Any]]


# --------------------------------------------------------------------------- the archive


def series(seed: int, length: int) -> Log:
    """One La Cabra match of exactly ``length`` events: a real series, padded with notes."""
    driver = LaCabraDriver(random.Random(seed))
    data = driver.match_data()
    data.pop("initial", None)
    events = [Event(1, "match_started", data)]
    state = la_cabra.start(data)
    hands_scored = 0
    while len(events) < length:
        moves = la_cabra.legal_moves(state)
        if not moves and not driver.pending:
            break
        kind, payload = driver.choose(state, moves)
        event = Event(len(events) + 1, kind, payload)
        after = la_cabra.apply(state, event)
        driver.observe(state, event, after)
        events.append(event)
        state = after
        sheet = la_cabra.score(state)["hands"] if kind in ("hand_result", "lead", "beat", "discard", "reveal") else []
        done = [h for h in sheet if h["status"] == "scored"]
        if len(done) > hands_scored and len(events) < length and kind != "hand_started":
            hands_scored = len(done)
            claim = {"hand": done[-1]["hand"], "points": done[-1]["points"], "totals": done[-1]["totals"]}
            events.append(Event(len(events) + 1, "score_claimed", claim))
    log = [{"type": e.type, "data": e.data} for e in events[:length]]
    while len(log) < length:
        log.append({"type": "note", "data": {"text": f"table talk {len(log) + 1}"}})
    return log


def archive(matches: int, length: int) -> list[Log]:
    return [series(seed, length) for seed in range(matches)]


def whole_series(total: int) -> list[Log]:
    """Real series only, each to its end (no padding), until ``total`` events."""
    logs: list[Log] = []
    seed = 1000
    while sum(len(log) for log in logs) < total:
        log = series(seed, 10_000)
        logs.append([e for e in log if e["type"] != "note"])
        seed += 1
    return logs


def eggs_match(length: int) -> Log:
    """A long but legal series: result-only 60-60 deals (eggs) never end it."""
    log: Log = [{"type": "match_started", "data": {"game": "la-cabra", "players": ["North", "East", "South", "West"]}}]
    dealer = 3
    while len(log) + 2 <= length:
        log.append({"type": "hand_started", "data": {"dealer": dealer}})
        log.append({"type": "hand_result", "data": {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": dealer}})
        dealer = (dealer + 1) % 4
    while len(log) < length:
        log.append({"type": "note", "data": {"text": "pad"}})
    return log


# --------------------------------------------------------------------------- timing


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def row(label: str, ours: float, base: float, count: int, target: str, higher_is_better: bool = True) -> list[str]:
    ratio = (base / ours) if higher_is_better else (ours / base)
    return [label, f"{count / ours:,.0f}/s", f"{count / base:,.0f}/s", f"{ratio:.2f}", target]


def print_table(rows: list[list[str]], head: list[str]) -> None:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


# --------------------------------------------------------------------------- paths


def raw_per_event(path: Path, logs: list[Log]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE events (match_id TEXT, seq INTEGER, type TEXT, data TEXT, PRIMARY KEY (match_id, seq))")
    for m, log in enumerate(logs):
        for seq, event in enumerate(log, 1):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO events VALUES (?, ?, ?, ?)", (f"m{m}", seq, event["type"], json.dumps(event["data"])))
            conn.execute("COMMIT")
    conn.close()


def ours_per_event(path: Path, logs: list[Log]) -> None:
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        for log in logs:
            created = service.start_match(log[0]["data"])
            for event in log[1:]:
                service.record(created["id"], [event], token=created["token"])


def ours_bulk(path: Path, lines: list[list[str]]) -> list[str]:
    ids = []
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        for match in lines:
            events = [json.loads(line) for line in match]
            created = service.start_match(events[0]["data"])
            service.record(created["id"], events[1:], token=created["token"])
            ids.append(created["id"])
    return ids


def eventsourcing_app(path: Path) -> tuple[Any, type]:
    os.environ.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Match(Aggregate):
        def __init__(self, game: str) -> None:
            self.game = game
            self.log: list[tuple[str, Any]] = []

        @event("Recorded")
        def record(self, type: str, data: dict[str, Any]) -> None:
            self.log.append((type, data))

    return Application(), Match


def es_bulk(app: Any, aggregate: type, lines: list[list[str]]) -> list[Any]:
    ids = []
    for match in lines:
        events = [json.loads(line) for line in match]
        agg = aggregate(events[0]["data"]["game"])
        for e in events[1:]:
            agg.record(e["type"], e["data"])
        app.save(agg)
        ids.append(agg.id)
    return ids


def ours_replay_verify(path: Path, ids: list[str]) -> None:
    with SqliteLedger(path) as ledger:
        for match_id in ids:
            records = ledger.read(match_id)
            if not ledger.verify(match_id)[0].valid:
                raise SystemExit(f"chain broken in {match_id}")
            replay(la_cabra, events_from(records))


def es_read_fold(app: Any, ids: list[Any]) -> None:
    for agg_id in ids:
        app.repository.get(agg_id)


def state_at_end(path: Path, log: Log, repeat: int) -> tuple[float, float]:
    """Return (warm, cold) seconds per 'state at the last step' request for a recorded match."""
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        for start in range(1, len(log), 500):
            service.record(created["id"], log[start:start + 500], token=created["token"])
        warm = timed(lambda: [service.state(created["id"], at=len(log)) for _ in range(repeat)]) / repeat
        cold = timed(lambda: [Service(ledger, StateCache()).state(created["id"], at=len(log)) for _ in range(3)]) / 3
    return warm, cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--per-event-matches", type=int, default=None,
                        help="matches used for (a), one fsync per event (default: all)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    logs = archive(args.matches, args.events)
    total = sum(len(log) for log in logs)
    notes = sum(1 for log in logs for e in log if e["type"] == "note")
    lines = [[json.dumps(e) for e in log] for log in logs]
    print(f"archive: {len(logs)} matches, {total:,} events ({notes / total:.0%} notes), built in {time.perf_counter() - t0:.1f} s")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        few = logs[: args.per_event_matches or len(logs)]
        n_few = sum(len(log) for log in few)
        base_a = timed(lambda: raw_per_event(d / "raw.db", few))
        ours_a = timed(lambda: ours_per_event(d / "a.db", few))
        rows.append(row("(a) append, 1 event/txn, FULL vs raw sqlite3", ours_a, base_a, n_few, "≥ 0.8"))

        app, aggregate = eventsourcing_app(d / "es.db")
        real = whole_series(total)
        real_lines = [[json.dumps(e) for e in log] for log in real]
        real_total = sum(len(log) for log in real)
        for name, shape, count in ((f"{len(logs)}×{args.events}", lines, total), (f"{len(real)} whole series", real_lines, real_total)):
            es_ids: list[Any] = []
            our_ids: list[str] = []
            base_b = timed(lambda: es_ids.extend(es_bulk(app, aggregate, shape)))
            ours_b = timed(lambda: our_ids.extend(ours_bulk(d / f"b{len(rows)}.db", shape)))
            rows.append(row(f"(b) bulk record from JSON Lines vs eventsourcing save [{name}]", ours_b, base_b, count, "≥ 1.0"))
            base_c = timed(lambda: es_read_fold(app, es_ids))
            ours_c = timed(lambda: ours_replay_verify(d / f"b{len(rows) - 1}.db", our_ids))
            rows.append(row(f"(c) replay + verify vs eventsourcing read-and-fold [{name}]", ours_c, base_c, count, "≥ 5"))

        long_warm, long_cold = state_at_end(d / "d.db", eggs_match(10_000), 200)
        short_warm, short_cold = state_at_end(d / "d.db", eggs_match(100), 200)
    print()
    print_table(rows, ["figure", "ours", "baseline", "ratio", "target"])
    print()
    print_table([
        ["(d) state at last step, warm (server that recorded it)", f"{long_warm * 1e3:.2f} ms", f"{short_warm * 1e3:.2f} ms",
         f"{long_warm / short_warm:.2f}", "≤ 2"],
        ["(d') same, cold (new process, empty cache)", f"{long_cold * 1e3:.1f} ms", f"{short_cold * 1e3:.1f} ms",
         f"{long_cold / short_cold:.2f}", "(info)"],
    ], ["figure", "10k-event match", "100-event match", "ratio", "target"])
    print(f"\nratios: (a)-(c) ours/baseline throughput, (d) 10k/100 time. Total {time.perf_counter() - t0:.0f} s.")


if __name__ == "__main__":
    main()
