"""Import benchmark: restoring a 100k-event archive, as events/s, against eventsourcing's batch save.

    /work/venv/bin/python bench/import_bench.py [--events 100000] [--rounds 5]

The archive is built once per run: whole La Cabra series played by the conformance driver
(real deals move by move, hidden discards, reveals, result-only hands, claims; no padding)
until ``--events`` events, recorded through the service and exported with
``transfer.all_lines`` — the bytes ``tanteo export --all`` writes.

Ours: ``transfer.import_archive`` into an empty SQLite file (synchronous=FULL, a write
transaction per chunk of matches, a savepoint each), as ``tanteo import`` runs it: read every
line, check each envelope, recompute every chain, check every event's schema and the rules by
the fold an append runs, insert with the given seqs, times and hashes. An archive this big has
its schemas and rules checked by forked worker processes, one per core but one, while the main process
reads, chains and writes (``transfer.import_workers``); the row "one process" is the same
import with ``workers=0``, for machines with one core (information: the target is the first).

Baseline: the ``eventsourcing`` library (SQLite, the same durability) saving the same events
unvalidated — decode each line and ``Application.save`` one
aggregate per match holding its events, one transaction per match (as ledger_bench's (b)).

The three run interleaved, ``--rounds`` times, each on a fresh file, the order rotating; the
figure is the median of the per-round ratios (ours events/s ÷ baseline events/s). Target ≥ 1.0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import ledger_bench  # noqa: E402

from api.service import Service, StateCache, transfer  # noqa: E402
from ledger import SqliteLedger  # noqa: E402


def la_cabra_series(total: int) -> list[ledger_bench.Log]:
    """Whole La Cabra series (each played to its end by the conformance driver) until ``total`` events."""
    logs: list[ledger_bench.Log] = []
    seed, count = 1000, 0
    while count < total:
        seed += 1
        logs.append(ledger_bench.whole_series("la-cabra", seed - 1))
        count += len(logs[-1])
    return logs


def build_archive(path: Path, total: int) -> tuple[list[bytes], int, int]:
    """Record whole series until ``total`` events and export them; return the lines, matches, events."""
    logs = la_cabra_series(total)
    with SqliteLedger(path, synchronous="OFF") as ledger:
        service = Service(ledger, StateCache())
        for log in logs:
            created = service.start_match(log[0]["data"])
            for start in range(1, len(log), 1000):
                service.record(created["id"], log[start : start + 1000], token=created["token"])
        lines = list(transfer.all_lines(service, full=True))
    return lines, len(logs), len(lines)


def ours(path: Path, lines: list[bytes], matches: int, workers: int) -> float:
    if transfer.import_workers(workers, len(lines)) != workers:
        raise SystemExit(f"the import would not use {workers} workers now (another thread is running?)")
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        start = time.perf_counter()
        report = transfer.import_archive(service, lines, workers=workers)
        elapsed = time.perf_counter() - start
    if len(report["imported"]) != matches or report["errors"]:
        raise SystemExit(f"the import failed: {report['errors'][:3]}")
    return elapsed


def baseline(path: Path, lines: list[bytes]) -> float:
    by_match: dict[str, list[bytes]] = {}
    for line in lines:  # grouping by match is bookkeeping, not timed
        key = line[line.index(b'"match":') + 9 :].split(b'"', 1)[0].decode()
        by_match.setdefault(key, []).append(line)
    groups = [[line.decode() for line in group] for group in by_match.values()]
    elapsed, _app = ledger_bench.es_bulk(path, groups, [])
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tiny", action="store_true", help="one round of about 300 events: checks that it runs")
    args = parser.parse_args()
    if args.tiny:
        args.events, args.rounds = 300, 1
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        lines, matches, events = build_archive(d / "source.db", args.events)
        print(
            f"archive: {matches} matches, {events:,} events, {sum(map(len, lines)) / 1e6:.1f} MB, "
            f"built in {time.perf_counter() - t0:.0f} s"
        )
        workers = transfer.import_workers(None, events)
        print(
            f"ours checks the rules in {workers or 'no'} worker process{'es' if workers != 1 else ''} "
            f"({len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} cores)"
        )
        ratios, ratios_one, ours_rates, one_rates, base_rates = [], [], [], [], []
        for n in range(args.rounds):
            sides = ("ours", "one", "base")
            order = sides[n % 3 :] + sides[: n % 3]  # each side goes first, second and third in turn
            times = {}
            for side in order:
                if side == "ours":
                    times[side] = ours(d / f"ours{n}.db", lines, matches, workers)
                elif side == "one":
                    times[side] = ours(d / f"one{n}.db", lines, matches, workers=0)
                else:
                    times[side] = baseline(d / f"es{n}.db", lines)
            ours_rates.append(events / times["ours"])
            one_rates.append(events / times["one"])
            base_rates.append(events / times["base"])
            ratios.append(times["base"] / times["ours"])
            ratios_one.append(times["base"] / times["one"])
            print(
                f"round {n + 1}: ours {ours_rates[-1]:,.0f} events/s, one process {one_rates[-1]:,.0f}, "
                f"eventsourcing {base_rates[-1]:,.0f} events/s; ratio {ratios[-1]:.2f} (one process {ratios_one[-1]:.2f})",
                flush=True,
            )
        print(
            f"import of {events:,} events: ours {statistics.median(ours_rates):,.0f} events/s (median), "
            f"eventsourcing unvalidated save {statistics.median(base_rates):,.0f} events/s (median); "
            f"median of ratios {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) (target ≥ 1.0)"
        )
        print(
            f"one process (workers=0, info): {statistics.median(one_rates):,.0f} events/s; "
            f"median of ratios {statistics.median(ratios_one):.2f} ({min(ratios_one):.2f}–{max(ratios_one):.2f})"
        )


if __name__ == "__main__":
    main()
