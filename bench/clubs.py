"""Clubs bench (issue 30): a league table and a profile read with 20,000 recorded matches against
200, and rebuilding every projection against a replay+verify of the same events.

    .venv/bin/python bench/clubs.py [--matches 20000] [--small 200] [--rounds 7] [--dir DIR]

Workload: two SQLite files, each one club of 12 players whose matches are whole Cabo playouts
of the conformance driver (``tests/engines/drivers.py``: deals, peeks, draws, swaps, calls,
showdowns and result-only hands, 2 to 5 seats, 33 to 280 events), seated at random, written
through the service as an organiser's page writes them (``Clubs.start_match`` with the match's
events: schema, rules, chain and the club's ``match_added``, each checked), dated across a
year so that a season holds part of them. Building 20,000 takes minutes: ``--dir`` keeps the
files (and reuses them when they are there with the same sizes).

Rows:

(a) ``Clubs.table`` (all time, and a season) and ``Clubs.profile`` of one player (and, for
    information, ``Clubs.club``, the club's page), with the
    projection caught up, on the big club against the small one: a serving process's reads
    (its service, state cache and roster warm). Rounds alternate which file goes first; each
    figure is the best of 5 passes of 20 reads, in CPU time of the process; printed: the median
    of the per-round ratios big ÷ small, with min–max. Target: at most 3.
(b) ``Clubs.rebuild()`` (every document dropped, then caught up from the first event) against a
    replay+verify of the same matches (``ledger.read_verified`` of each match and of the club's
    log, then each match folded by its engine, as the audit and ``tanteo verify`` read it), both on
    the small and on the big file, in a fresh service (cold cache) each time. Printed: the median
    of the per-round ratios replay ÷ rebuild (the speed of the rebuild against the replay).
    Target: at least 0.5.

Never part of the test run.
"""

from __future__ import annotations

import argparse
import shutil
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.service import Service  # noqa: E402
from api.service.cache import StateCache  # noqa: E402
from engines import get_engine  # noqa: E402
from engines.base import events_from, replay  # noqa: E402
from ledger import CLUB_LOG, open_ledger  # noqa: E402

PLAYERS = 12
NAMES = ("table", "season table", "profile", "club")
"""The reads of row (a): the league table of all time and of a season, a profile, and (for
information) the club's page, its roster (``Clubs.club``)."""
SEEDS = range(1, 41)
"""Cabo playouts seated in turn (played once each and cached: building is the cost of writing)."""


def playouts() -> list[list[dict[str, Any]]]:
    from tests.engines.drivers import playout

    return [[{"type": e.type, "data": e.data} for e in playout("cabo", seed)[0]] for seed in SEEDS]


def build(path: Path, matches: int, logs: list[list[dict[str, Any]]], seed: int = 30) -> dict[str, Any]:
    """Write one club of ``matches`` Cabo matches into a new file at ``path``; its ids and key."""
    rng = random.Random(seed)
    with open_ledger(str(path)) as ledger:
        service = Service(ledger, StateCache())
        club = service.clubs.create("Casal del bench", place="Gràcia")
        key = club["key"]
        names = [{"type": "player_added", "data": {"name": f"Jugador {i}"}} for i in range(1, PLAYERS + 1)]
        seasons = [{"type": "season_declared", "data": {"name": "Tardor", "from": "2026-09-01", "to": "2026-12-31"}}]
        service.clubs.record(club["id"], [*names, *seasons], key=key)
        players = [f"p{i}" for i in range(1, PLAYERS + 1)]
        start = time.perf_counter()
        for number in range(matches):
            log = logs[number % len(logs)]
            first = dict(log[0]["data"])
            first["players"] = rng.sample(players, len(first["players"]))
            first["date"] = f"2026-{1 + number * 12 // matches:02d}-{1 + number % 28:02d}"
            service.clubs.start_match(club["id"], first, key=key, events=log[1:])
            if (number + 1) % 1000 == 0:
                rate = (number + 1) / (time.perf_counter() - start)
                print(f"  {path.name}: {number + 1:,} matches written ({rate:,.0f}/s)", file=sys.stderr)
        service.clubs.projector.catch_up()
        return {"club": club["id"], "key": key, "matches": matches}


def ready(directory: Path, matches: int, logs: list[list[dict[str, Any]]]) -> tuple[Path, dict[str, Any]]:
    """The file of a club of ``matches`` matches in ``directory``: reused when it is there, else built."""
    path = directory / f"club-{matches}.db"
    about = directory / f"club-{matches}.json"
    if path.exists() and about.exists():
        return path, json.loads(about.read_text())
    for stale in (path, about, Path(f"{path}-wal"), Path(f"{path}-shm")):
        stale.unlink(missing_ok=True)
    started = time.perf_counter()
    made = build(path, matches, logs)
    print(f"built {path} in {time.perf_counter() - started:,.0f} s", file=sys.stderr)
    about.write_text(json.dumps(made))
    return path, made


def cpu(action: Callable[[], Any], passes: int = 5) -> float:
    """The best of ``passes`` CPU times of ``action`` (the machine is shared: waiting for a core is not our cost)."""
    best = float("inf")
    for _ in range(passes):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def reads(service: Service, club: str, per: int = 20) -> dict[str, Callable[[], Any]]:
    clubs = service.clubs

    def table() -> None:
        for _ in range(per):
            clubs.table(club, "cabo")

    def season() -> None:
        for _ in range(per):
            clubs.table(club, "cabo", "season:s1")

    def profile() -> None:
        for _ in range(per):
            clubs.profile(club, "p1")

    def page() -> None:
        for _ in range(per):
            clubs.club(club)

    return {"table": table, "season table": season, "profile": profile, "club": page}


def rebuild(path: Path) -> float:
    with open_ledger(str(path)) as ledger:
        service = Service(ledger, StateCache())
        start = time.process_time()
        service.clubs.rebuild()
        return time.process_time() - start


def replay_verify(path: Path) -> float:
    """Read every chain of the file verified and fold each match with its engine (the audit's read)."""
    with open_ledger(str(path)) as ledger:
        start = time.process_time()
        clubs, _ = ledger.list_matches(game=CLUB_LOG, limit=100)
        ids = [c.id for c in clubs]
        total = ledger.list_matches(limit=1)[1]
        offset = 0
        while offset < total:
            page, _ = ledger.list_matches(limit=500, offset=offset)
            ids += [m.id for m in page]
            offset += 500
        for match_id in ids:
            record = ledger.get_match(match_id)
            report, stored = ledger.read_verified(match_id)
            if not report.valid:
                raise SystemExit(f"chain broken in {match_id}")
            if record.game != CLUB_LOG:
                replay(get_engine(record.game), events_from(stored))
        return time.process_time() - start


def summary(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20_000, help="matches of the big club")
    parser.add_argument("--small", type=int, default=200, help="matches of the small club")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rebuild-rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="keep (and reuse) the two database files here")
    parser.add_argument(
        "--tiny", action="store_true", help="clubs of 6 and 3 matches, one round each: checks that it runs"
    )
    args = parser.parse_args()
    if args.tiny:
        args.matches, args.small, args.rounds, args.rebuild_rounds = 6, 3, 1, 1
    directory = args.dir or Path(tempfile.mkdtemp(prefix="tanteo-clubs-"))
    directory.mkdir(parents=True, exist_ok=True)
    logs = playouts()
    small_path, small = ready(directory, args.small, logs)
    big_path, big = ready(directory, args.matches, logs)
    events = {}
    for label, path in (("small", small_path), ("big", big_path)):
        with open_ledger(str(path)) as ledger:
            events[label] = ledger.doc_position("league")  # the feed's last id: the projection caught up at build
    print(
        f"small: {args.small:,} matches, {events['small']:,} events; big: {args.matches:,} matches, {events['big']:,} events"
    )

    # (a) reads: one warm service per file for the whole run, as a serving process holds
    ledgers = {label: open_ledger(str(path)) for label, path in (("small", small_path), ("big", big_path))}
    services = {label: Service(ledger, StateCache()) for label, ledger in ledgers.items()}
    ids = {"small": small["club"], "big": big["club"]}
    cold = {}
    for label, service in services.items():
        start = time.process_time()
        service.clubs.table(ids[label], "cabo")
        service.clubs.profile(ids[label], "p1")
        cold[label] = time.process_time() - start  # the first read: the roster folded from the club's log
    ratios: dict[str, list[float]] = {}
    seconds: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        order = ("small", "big") if round_ % 2 == 0 else ("big", "small")
        took: dict[tuple[str, str], float] = {}
        for label in order:
            for name, action in reads(services[label], ids[label]).items():
                took[(label, name)] = cpu(action) / 20
        for name in NAMES:
            ratios.setdefault(name, []).append(took[("big", name)] / took[("small", name)])
            for label in ("small", "big"):
                seconds.setdefault((label, name), []).append(took[(label, name)])
    for ledger in ledgers.values():
        ledger.close()

    # (b) rebuild against replay+verify, cold, alternating
    rebuild_ratios: dict[str, list[float]] = {"small": [], "big": []}
    rebuild_seconds: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rebuild_rounds):
        for label, path in (("small", small_path), ("big", big_path)):
            if round_ % 2 == 0:
                ours, theirs = rebuild(path), replay_verify(path)
            else:
                theirs, ours = replay_verify(path), rebuild(path)
            rebuild_ratios[label].append(theirs / ours)
            rebuild_seconds.setdefault((label, "rebuild"), []).append(ours)
            rebuild_seconds.setdefault((label, "replay+verify"), []).append(theirs)

    print()
    print(f"(a) reads, CPU ms per read (median of {args.rounds} rounds), big ÷ small (target ≤ 3)")
    for name in NAMES:
        small_ms = statistics.median(seconds[("small", name)]) * 1000
        big_ms = statistics.median(seconds[("big", name)]) * 1000
        verdict = "met" if statistics.median(ratios[name]) <= 3 else "NOT met"
        print(f"    {name:<13} {small_ms:8.3f} ms  {big_ms:8.3f} ms  ratio {summary(ratios[name])}  {verdict}")
    print(
        f"    first read after start (roster folded from the club's log, for information): "
        f"{cold['small'] * 1000:.1f} ms vs {cold['big'] * 1000:.1f} ms"
    )
    print("(b) rebuild every projection vs replay+verify of the same events, speed ratio (target ≥ 0.5)")
    for label in ("small", "big"):
        ours = statistics.median(rebuild_seconds[(label, "rebuild")])
        theirs = statistics.median(rebuild_seconds[(label, "replay+verify")])
        verdict = "met" if statistics.median(rebuild_ratios[label]) >= 0.5 else "NOT met"
        print(
            f"    {label:<5} {events[label]:>9,} events: rebuild {ours:7.2f} s, replay+verify {theirs:7.2f} s, "
            f"speed {summary(rebuild_ratios[label])}  {verdict}"
        )
    if args.tiny and not args.dir:
        shutil.rmtree(directory, ignore_errors=True)
    else:
        print(f"files: {directory}")


if __name__ == "__main__":
    main()
