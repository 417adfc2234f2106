"""Rule-fold benchmark: µs per event of each engine over whole series, and the fold's linearity.

    /work/venv/bin/python bench/fold_bench.py [--rounds 5] [--series 8] [--against DIR]

Workload: ``--series`` whole series of each game played to the end by the conformance
drivers (``ledger_bench.whole_series``: real deals, moves, reveals, results), built once per
run and handed to every measurement as the same JSON. Per game two figures: ``replay``
(``engines.base.replay``, the walk every read and append uses) and ``apply`` (a bare
``start`` + ``apply`` loop: the engine alone). Then the linearity row of ledger_bench:
folding a 20k-event La Cabra match (``eggs_match``) vs its first 10k events.

Each round runs every tree in a fresh process (``--against`` adds a second checkout, e.g.
one made with ``git archive main | tar -x -C /tmp/base``), alternating which goes first;
each figure in a process is the best of 3 passes, in CPU time of the process
(``time.process_time``: the machine is shared, and waiting for a core is not the fold's cost). Printed: medians over the rounds, and
with ``--against`` the median of per-round speedups (theirs ÷ ours, > 1 means faster here).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker(path: str) -> None:
    """Time this tree's engines on the logs in ``path``; print the seconds as JSON."""
    from engines import ENGINES
    from engines.base import CORRECTIONS, STATE_NEUTRAL, Event, replay

    with open(path) as f:
        work = json.load(f)
    out: dict[str, float] = {}
    aside = CORRECTIONS | STATE_NEUTRAL

    def best(fn) -> float:  # type: ignore[no-untyped-def]
        times = []
        for _ in range(3):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return min(times)

    for game, logs in work["series"].items():
        engine = ENGINES[game]
        events = [[Event(i, e["type"], e["data"]) for i, e in enumerate(log, 1)] for log in logs]

        def folds() -> None:
            for evs in events:
                replay(engine, evs)

        def applies() -> None:
            for evs in events:
                state = engine.start(evs[0].data)
                for event in evs[1:]:
                    if event.type not in aside:
                        state = engine.apply(state, event)

        out[f"{game} replay"] = best(folds)
        out[f"{game} apply"] = best(applies)
    long = [Event(i, e["type"], e["data"]) for i, e in enumerate(work["eggs"], 1)]
    engine = ENGINES["la-cabra"]
    out["fold 20k"] = best(lambda: replay(engine, long))
    out["fold 10k"] = best(lambda: replay(engine, long[: len(long) // 2]))  # "20k", "10k": the long match, its half
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--series", type=int, default=8)
    parser.add_argument("--against", type=Path, help="another checkout to compare with, interleaved")
    parser.add_argument("--long", type=int, default=20_000, help="events of the long match (linearity: it vs its half)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="one round, one series per game, a 200-event long match: checks that it runs",
    )
    args = parser.parse_args()
    if args.tiny:
        args.rounds, args.series, args.long = 1, 1, 200
    if args.worker:
        sys.path.insert(0, os.getcwd())  # the tree being measured (the parent sets it)
        return worker(args.worker)

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from ledger_bench import eggs_match, whole_series
    from engines import ENGINES

    series = {game: [whole_series(game, s) for s in range(args.series)] for game in sorted(ENGINES)}
    sizes = {game: sum(map(len, logs)) for game, logs in series.items()}
    trees = [ROOT] + ([args.against.resolve()] if args.against else [])
    runs: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump({"series": series, "eggs": eggs_match(args.long)}, f)
        f.flush()
        for r in range(args.rounds):
            for tree in trees if r % 2 == 0 else trees[::-1]:
                done = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--worker", f.name],
                    cwd=tree,
                    env={**os.environ, "PYTHONPATH": str(tree)},
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs[tree].append(json.loads(done.stdout))

    def per_event(tree: Path, key: str, n: int) -> float:
        return statistics.median(run[key] for run in runs[tree]) / n * 1e6

    head = f"{'µs/event':22}" + "".join(f"{'here' if t == ROOT else t.name:>12}" for t in trees)
    print(head + ("     speedup (median, min–max)" if args.against else ""))
    for game, n in sizes.items():
        for kind in ("replay", "apply"):
            key = f"{game} {kind}"
            line = f"{key:22}" + "".join(f"{per_event(t, key, n):12.2f}" for t in trees)
            if args.against:
                ratios = [b[key] / a[key] for a, b in zip(runs[ROOT], runs[trees[1]])]
                line += f"     {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"
            print(line)
    line = f"{f'linearity {args.long:,} / {args.long // 2:,}':22}"
    for t in trees:
        line += f"{statistics.median(run['fold 20k'] / run['fold 10k'] for run in runs[t]):12.2f}"
    print(line + "     (target ≤ 2.2)")
    print(f"events per game: {sizes}; {args.rounds} rounds")


if __name__ == "__main__":
    main()
