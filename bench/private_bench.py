"""What hiding private facts costs: every figure a ratio against a baseline measured in the same run.

    .venv/bin/python bench/private_bench.py [--matches 20]

The archive: ``--matches`` La Cabra series played by seeded random legal moves (the tests'
driver): real deals with known hands (private to their owners) and face-down discards.

(a) append: ``Service.record`` one event per call, chain format 2 (each private value salted
    and committed), vs the same events appended with no private place named (format 2, no
    commitments), both in memory so the figure is the hashing, not the disk.
(b) ``GET /state`` at the head, read again: a reader without the token (the public head
    state, cached like the real one) vs the scorer with the token (the cached head); and
    the first read in a fresh process (the public log folded from event 1) vs the scorer's.
(c) the open listing of a whole match (placeholders with commitments) vs the scorer's
    listing (values with salts).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.service import Service  # noqa: E402
from engines import la_cabra  # noqa: E402
from ledger import MemoryLedger  # noqa: E402
from tests.engines.driver_la_cabra import Driver  # noqa: E402
from tests.engines.drivers import run  # noqa: E402


def timed(fn: Callable[[], Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--tiny", action="store_true", help="two matches: checks that it runs")
    args = parser.parse_args()
    if args.tiny:
        args.matches = 2
    logs = []
    for seed in range(args.matches):
        events, _ = run(la_cabra, Driver(random.Random(seed)))
        events = events[: len(events) * 9 // 10]  # stop before the series ends: the match is in play
        logs.append([{"type": e.type, "data": dict(e.data)} for e in events])
    count = sum(len(log) for log in logs)
    print(f"{args.matches} La Cabra series, {count} events")

    def record(service: Service, strip: bool) -> list[tuple[str, str]]:
        made = []
        if strip:  # the baseline: no private place named, so no commitment to compute
            service._with_private = lambda match_id, engine, events: [  # type: ignore[method-assign]
                __import__("ledger").NewEvent(e["type"], dict(e["data"])) for e in events
            ]
        for log in logs:
            created = service.start_match(log[0]["data"])
            for event in log[1:]:
                service.record(created["id"], [event], token=created["token"])
            made.append((created["id"], created["token"]))
        return made

    record(Service(MemoryLedger()), False)  # warm up: schema catalogue, imports
    plain = timed(lambda: record(Service(MemoryLedger()), True))
    committed = timed(lambda: record(Service(MemoryLedger()), False))
    print(
        f"(a) append, per event: committed {committed / count * 1e6:.0f} µs vs plain {plain / count * 1e6:.0f} µs "
        f"= {committed / plain:.2f}x"
    )

    service = Service(MemoryLedger())
    made = record(service, False)
    public = timed(lambda: [service.state(m) for m, _ in made])
    scorer = timed(lambda: [service.state(m, token=t) for m, t in made])
    print(
        f"(b) state of each match at its head: open {public / len(made) * 1e3:.2f} ms vs with the token "
        f"{scorer / len(made) * 1e3:.2f} ms = {public / scorer:.1f}x"
    )
    cold_public = timed(lambda: [Service(service.ledger).state(m) for m, _ in made], 1)
    cold_scorer = timed(lambda: [Service(service.ledger).state(m, token=t) for m, t in made], 1)
    print(
        f"    first read in a new process: open {cold_public / len(made) * 1e3:.2f} ms vs with the token "
        f"{cold_scorer / len(made) * 1e3:.2f} ms = {cold_public / cold_scorer:.1f}x"
    )
    listed = timed(lambda: [service.events(m) for m, _ in made])
    full = timed(lambda: [service.events(m, token=t) for m, t in made])
    print(
        f"(c) whole listing: open {listed / len(made) * 1e3:.2f} ms vs with the token {full / len(made) * 1e3:.2f} ms "
        f"= {listed / full:.2f}x"
    )


if __name__ == "__main__":
    main()
