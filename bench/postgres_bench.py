"""PostgreSQL beside SQLite: the same service, the same events, the same machine, one run.

    .venv/bin/python bench/postgres_bench.py [--matches 20] [--events 500] [--rounds 3] [--url postgresql://…]

Without ``--url`` a throwaway PostgreSQL server is started from Debian's binaries in a
temporary directory (the tests' helper, but with PostgreSQL's default durability: fsync and
synchronous commit on), beside the SQLite file (``synchronous=FULL``) in the same directory
tree, so both pay for a real flush per commit. Every figure is events per second through
``Service`` (JSON Schema, rules, chain, insert), and the ratio is PostgreSQL / SQLite.

(a)  durable append, one event per transaction, one writer;
(a8) the same with 8 writer threads, each on its own match (SQLite: a ledger per thread as
     ``tanteo serve`` keeps; PostgreSQL: one pooled ledger shared by the threads);
(b)  bulk record, one batch of a whole match per transaction;
(c)  replay + verify: read the log, recompute the chain, fold it with the rules;
(d)  cold state at the last step of a 10,000-event match (a new process's empty cache).

The matches are La Cabra series recorded from the score sheet (result-only deals, as in
``ledger_bench.eggs_match``): the rules' cost is small and alike on both sides, so the
ratios show the storage.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from api.service import Service, StateCache  # noqa: E402
from engines import la_cabra  # noqa: E402
from engines.base import events_from, replay  # noqa: E402
from ledger import Ledger, open_ledger  # noqa: E402
from ledger_bench import eggs_match  # noqa: E402
from tests.postgres_server import MISSING, PostgresServer, find_bindir  # noqa: E402

Log = list[dict[str, Any]]
Opener = Callable[[], Ledger]


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def per_event(open_ledger_: Opener, logs: list[Log]) -> None:
    with open_ledger_() as ledger:
        service = Service(ledger, StateCache())
        for log in logs:
            created = service.start_match(log[0]["data"])
            for event in log[1:]:
                service.record(created["id"], [event], token=created["token"])


def concurrent(open_ledger_: Opener, logs: list[Log], shared: bool) -> None:
    """One writer thread per log; ``shared``: one ledger for all (a pool), else one per thread."""
    common = open_ledger_() if shared else None
    cache = StateCache()

    def write(log: Log) -> None:
        ledger = common if common is not None else open_ledger_()
        try:
            service = Service(ledger, cache)
            created = service.start_match(log[0]["data"])
            for event in log[1:]:
                service.record(created["id"], [event], token=created["token"])
        finally:
            if common is None:
                ledger.close()

    threads = [threading.Thread(target=write, args=(log,)) for log in logs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if common is not None:
        common.close()


def bulk(open_ledger_: Opener, logs: list[Log], ids: list[str]) -> None:
    with open_ledger_() as ledger:
        service = Service(ledger, StateCache())
        for log in logs:
            created = service.start_match(log[0]["data"])
            service.record(created["id"], log[1:], token=created["token"])
            ids.append(created["id"])


def replay_verify(open_ledger_: Opener, ids: list[str]) -> None:
    with open_ledger_() as ledger:
        for match_id in ids:
            records = ledger.read(match_id)
            if not ledger.verify(match_id)[0].valid:
                raise SystemExit(f"chain broken in {match_id}")
            replay(la_cabra, events_from(records))


def cold_state(open_ledger_: Opener, log: Log, repeat: int) -> float:
    with open_ledger_() as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        for start in range(1, len(log), 500):
            service.record(created["id"], log[start : start + 500], token=created["token"])
        return (
            timed(lambda: [Service(ledger, StateCache()).state(created["id"], at=len(log)) for _ in range(repeat)])
            / repeat
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--per-event-matches", type=int, default=2, help="matches for (a) and per thread in (a8)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians are shown")
    parser.add_argument("--url", help="an existing, empty PostgreSQL database (default: a throwaway server)")
    parser.add_argument("--long", type=int, default=10_000, help="events of the match whose cold state (d) reads")
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="one round of 2 matches × 20 events, a 200-event long match: checks that it runs",
    )
    args = parser.parse_args()
    if args.tiny:
        args.matches, args.events, args.per_event_matches, args.rounds, args.long = 2, 20, 1, 1, 200
    logs = [eggs_match(args.events) for _ in range(args.matches)]
    total = sum(len(log) for log in logs)
    server = None
    if args.url is None:
        bindir = find_bindir()
        if bindir is None:
            raise SystemExit(MISSING)
        server = PostgresServer(bindir)
        server.start(durable=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            counter = iter(range(10**6))
            sqlite_db = {name: Path(tmp) / f"{name}.db" for name in ("a", "a8", "b", "d")}
            pg_url = {name: (args.url if args.url else server.new_url(name)) for name in ("a", "a8", "b", "d")}  # type: ignore[union-attr]
            sides: dict[str, Callable[[str], Opener]] = {
                "sqlite": lambda name: lambda: open_ledger(sqlite_db[name]),
                "postgres": lambda name: lambda: open_ledger(pg_url[name]),
            }
            runs: dict[str, dict[str, list[float]]] = {"sqlite": {}, "postgres": {}}
            few = logs[: args.per_event_matches]
            n_few = sum(len(log) for log in few)
            eight = [eggs_match(args.events) for _ in range(8 * args.per_event_matches)]
            n_eight = sum(len(log) for log in eight)
            long_match = eggs_match(args.long)
            # Rounds alternate the sides figure by figure, so that the load of a shared
            # machine drifting during the run hits both alike; the median of the rounds is shown.
            for _round in range(args.rounds):
                for figure in ("a", "a8", "b", "d"):
                    for side, opener in sides.items():
                        got = runs[side]
                        if figure == "a":
                            got.setdefault("a", []).append(n_few / timed(lambda: per_event(opener("a"), few)))
                        elif figure == "a8":
                            got.setdefault("a8", []).append(
                                n_eight / timed(lambda: concurrent(opener("a8"), eight, side == "postgres"))
                            )
                        elif figure == "b":
                            ids: list[str] = []
                            got.setdefault("b", []).append(total / timed(lambda: bulk(opener("b"), logs, ids)))
                            got.setdefault("c", []).append(total / timed(lambda: replay_verify(opener("b"), ids)))
                        else:
                            got.setdefault("d", []).append(1 / cold_state(opener("d"), long_match, 1))
            results = {side: {k: statistics.median(v) for k, v in got.items()} for side, got in runs.items()}
            del counter
    finally:
        if server is not None:
            server.stop()
    labels = {
        "a": "(a) append, 1 event/txn, 1 writer (events/s)",
        "a8": "(a8) append, 1 event/txn, 8 writers on 8 matches (events/s)",
        "b": f"(b) bulk record, {args.events} events/txn (events/s)",
        "c": "(c) replay + verify (events/s)",
        "d": f"(d) cold state at step {args.long:,} (requests/s)",
    }
    rows = [
        [
            labels[k],
            f"{results['sqlite'][k]:,.1f}",
            f"{results['postgres'][k]:,.1f}",
            f"{results['postgres'][k] / results['sqlite'][k]:.2f}",
        ]
        for k in labels
    ]
    head = ["figure", "SQLite", "PostgreSQL", "PG/SQLite"]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    print(
        f"{args.matches} matches × {args.events} events; (a) {n_few} events, (a8) {n_eight}; "
        f"median of {args.rounds} alternating rounds"
    )
    for r in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
