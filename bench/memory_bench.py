"""Server memory after reading many long matches: the byte-bounded state cache (issue 15).

    python bench/memory_bench.py [--quick] [--matches N] [--events N] [--cache-mb M] [--no-baseline]

Measured here (1,000 matches, 128 MiB): peak VmRSS 236 MiB (idle 52), against 1,867 MiB with
nothing evicted; 287 MiB on the first run after an upgrade that makes every stored snapshot
stale (each read then folds its match from event 1 and stores a new one; 409 MiB before the
codec's memo of hand texts moved into the states it belongs to). The first build of that file
takes ~20 minutes on a busy 2-core machine.

A real ``tanteo serve`` process (waitress, ``python -m api.cli serve``) on a SQLite file
holding ``--matches`` long matches of ``--events`` events each (default 1,000 of 10,000:
ten million events). Each is a La Cabra series of result-only 60-60 deals with a note every
seventh event (``ledger_bench.eggs_match``: the only legal way to make a match that long),
recorded through ``Service.record`` in one batch per match, so each is checked by the rules
and chained, and the service stores its snapshot at the head, as a scorer's appends would.
The file is built once with ``synchronous=OFF`` and kept under the temp directory for
reruns (``--dir``; the build's time is printed).

The client reads the state of every match over HTTP with the write token
(``GET /matches/{id}/state``, the scorer's view), one after another on one keep-alive
connection, twice over (the second pass finds the least recently used entries gone: each
read misses again). Then the server's resident memory is read from ``/proc/PID/status``:
``VmRSS`` (now) and ``VmHWM`` (the peak), against the target of ≤ 300 MiB. The baseline is
the same server with a budget so large that nothing is ever evicted: what a cache bounded
only by a count of matches holds once it has that many entries (the old one kept 512).

Only memory is a target here; the seconds printed are for information.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api.service import Service, StateCache  # noqa: E402
from api.service.cache import DEFAULT_BUDGET  # noqa: E402
from ledger import SqliteLedger  # noqa: E402
from ledger_bench import eggs_match  # noqa: E402

TARGET_MIB = 300
QUICK_BUDGET_MIB = 16
"""``--quick``'s budget: 50 long matches weigh ~90 MiB, so 16 MiB still makes the cache evict."""
NEVER_EVICTS_MIB = 1024 * 1024
"""A budget of 1 TiB: nothing is ever evicted (the baseline)."""


# --------------------------------------------------------------------------- the database


def build(path: Path, matches: int, events: int) -> list[tuple[str, str]]:
    """Record ``matches`` matches of ``events`` events into a fresh file; return (id, token) each.

    The (id, token) list is written beside the file last, so a file whose build was cut short
    is never taken for a finished one.
    """
    tokens = path.with_suffix(".tokens.json")
    if path.exists() and tokens.exists():
        found = json.loads(tokens.read_text())
        print(f"database: {path} (built before: {len(found)} matches of {events:,} events; --rebuild to redo)")
        return [tuple(pair) for pair in found]  # type: ignore[misc]
    for stale in (path, tokens, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    log = eggs_match(events)
    made: list[tuple[str, str]] = []
    start = time.perf_counter()
    with SqliteLedger(path, synchronous="OFF") as ledger:
        service = Service(ledger, StateCache(0))  # the builder keeps nothing in memory
        for n in range(matches):
            created = service.start_match(log[0]["data"])
            service.record(created["id"], log[1:], token=created["token"])
            made.append((str(created["id"]), str(created["token"])))
            if (n + 1) % 50 == 0 or n + 1 == matches:
                spent = time.perf_counter() - start
                print(
                    f"  built {n + 1:,}/{matches:,} matches ({(n + 1) * events:,} events) in {spent:.0f} s", flush=True
                )
    spent = time.perf_counter() - start
    tokens.write_text(json.dumps(made))
    print(
        f"database: {path}: {matches:,} matches × {events:,} events built in {spent:.0f} s "
        f"({spent / matches:.2f} s per match; {path.stat().st_size / 2**30:.1f} GiB)"
    )
    return made


# --------------------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def memory(pid: int) -> dict[str, int]:
    """Return the process's VmRSS and VmHWM in bytes, from /proc."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    return out


def mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def serve_and_read(db: Path, matches: list[tuple[str, str]], cache_mb: int, events: int, passes: int) -> dict[str, Any]:
    """Start ``tanteo serve`` on ``db``, read every match's state ``passes`` times; return the memory seen."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--db", str(db), "--port", str(port), "--cache-mb", str(cache_mb)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline().decode().strip()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for _ in range(200):  # up to ~20 s for the port to answer
            try:
                conn.request("GET", "/games")
                conn.getresponse().read()
                break
            except (ConnectionError, OSError):
                conn.close()
                time.sleep(0.1)
        idle = memory(process.pid)
        seen: dict[str, Any] = {"banner": banner, "idle": idle, "after": []}
        for _ in range(passes):
            start = time.perf_counter()
            for match_id, token in matches:
                conn.request("GET", f"/matches/{match_id}/state", headers={"Authorization": f"Bearer {token}"})
                response = conn.getresponse()
                body = response.read()
                if response.status != 200:
                    raise RuntimeError(f"GET state of {match_id}: {response.status} {body[:300]!r}")
                if json.loads(body)["version"] != events:
                    raise RuntimeError(f"GET state of {match_id}: not at event {events}")
            seen["after"].append((time.perf_counter() - start, memory(process.pid)))
        conn.close()
        return seen
    finally:
        process.terminate()
        process.wait(timeout=30)


def report(label: str, budget_mib: int | None, seen: dict[str, Any], count: int) -> None:
    idle = seen["idle"]["VmRSS"]
    print(f"\n{label}   [{seen['banner']}]")
    print(f"  idle server:            VmRSS {mib(idle)}")
    for n, (seconds, mem) in enumerate(seen["after"], 1):
        grown = (mem["VmRSS"] - idle) / count
        print(
            f"  after read pass {n}:     VmRSS {mib(mem['VmRSS'])}, VmHWM {mib(mem['VmHWM'])}  "
            f"({count:,} states in {seconds:.1f} s; {grown / 1024:,.0f} KiB of RSS per match read)"
        )
    if budget_mib is not None:
        peak = max(mem["VmHWM"] for _, mem in seen["after"])
        verdict = "met" if peak <= TARGET_MIB * 2**20 else "NOT met"
        print(f"  target: peak RSS ≤ {TARGET_MIB} MiB with a {budget_mib} MiB budget: {mib(peak)}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--events", type=int, default=10_000, help="events per match")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="50 matches and a 16 MiB budget, so that it still evicts (well under 3 minutes)",
    )
    parser.add_argument(
        "--cache-mb",
        type=int,
        default=None,
        help=f"the server's budget (tanteo serve --cache-mb; default {DEFAULT_BUDGET // 2**20})",
    )
    parser.add_argument("--passes", type=int, default=2, help="times every match is read")
    parser.add_argument("--no-baseline", action="store_true", help="skip the never-evicting server")
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "tanteo-memory-bench",
        help="where the built database is kept for reruns",
    )
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--tiny", action="store_true", help="3 matches of 100 events, one pass, built afresh: checks that it runs"
    )
    args = parser.parse_args()
    if args.tiny:
        args.matches, args.events, args.passes, args.cache_mb = 3, 100, 1, args.cache_mb or 1
        args.dir = Path(tempfile.mkdtemp(prefix="tanteo-memory-tiny-"))
    if args.quick:
        args.matches = min(args.matches, 50)
    if args.cache_mb is None:
        args.cache_mb = QUICK_BUDGET_MIB if args.quick else DEFAULT_BUDGET // 2**20
    db = args.dir / f"matches-{args.matches}x{args.events}.db"
    if args.rebuild:
        db.with_suffix(".tokens.json").unlink(missing_ok=True)
    matches = build(db, args.matches, args.events)

    print(
        f"\nserver memory after reading {len(matches):,} matches of {args.events:,} events "
        f"({args.passes} passes, GET /matches/{{id}}/state with the token)"
    )
    ours = serve_and_read(db, matches, args.cache_mb, args.events, args.passes)
    report(f"budget {args.cache_mb} MiB", args.cache_mb, ours, len(matches))
    if not args.no_baseline:
        base = serve_and_read(db, matches, NEVER_EVICTS_MIB, args.events, 1)
        report("baseline: no byte bound (nothing evicted)", None, base, len(matches))
    if args.tiny:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
