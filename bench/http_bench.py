"""HTTP append benchmark: ``tanteo serve`` vs a trivial Flask INSERT, same waitress, same durability.

    python bench/http_bench.py [--rounds 25] [--per-round 20] [--clients 4]

Two servers run side by side as child processes on loopback, both under waitress with
``tanteo serve``'s settings (``api.cli.WAITRESS_SETTINGS``):

* **tanteo**: the real ``tanteo serve`` on a fresh SQLite file. A request is one
  ``POST /matches/{id}/events`` carrying one event of a real La Cabra series (seeded random
  legal play: deals, leads, beats, hidden discards, reveals, claims), with its token and
  ``expectedVersion``: JSON parsing, token check, JSON Schema, the rules, the hash chain, a
  durable commit.
* **baseline**: a Flask app whose one view parses the same JSON body and does one ``INSERT``
  (one connection per worker thread, WAL, ``synchronous=FULL``: the same durability).

Rounds alternate (tanteo first in even rounds, the baseline first in odd ones) so that
drift in the machine's load hits both alike. In each round each side sends ``--per-round``
requests per client, back to back on a keep-alive connection: once with one client, once
with ``--clients`` clients at a time (each on its own match). The figure is the ratio of
throughputs, baseline time / tanteo time, per round: the median, with min–max. Target ≥ 0.7.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Request = tuple[str, bytes, dict[str, str]]  # path, body, headers


# --------------------------------------------------------------------------- the baseline server


def serve_baseline(port: int, db: str) -> None:
    """The trivial endpoint: parse the JSON body, one INSERT, at tanteo's durability."""
    import sqlite3

    from flask import Flask, request
    from waitress import serve

    from api.cli import WAITRESS_SETTINGS

    local = threading.local()

    def connection() -> sqlite3.Connection:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA busy_timeout = 10000")
            local.conn = conn
        return conn

    setup = connection()
    setup.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, match TEXT NOT NULL, body TEXT NOT NULL)")
    app = Flask("baseline")

    @app.post("/insert/<match>")
    def insert(match: str) -> Any:
        body = request.get_json()
        cur = connection().execute("INSERT INTO rows (match, body) VALUES (?, ?)", (match, json.dumps(body)))
        return {"id": cur.lastrowid}, 201

    @app.get("/ready")
    def ready() -> Any:
        return {"ok": True}

    serve(app, host="127.0.0.1", port=port, _quiet=True, **WAITRESS_SETTINGS)


# --------------------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(command: list[str], port: int, probe: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(300):  # up to ~30 s
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", probe)
            conn.getresponse().read()
            conn.close()
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError((process.stderr.read() if process.stderr else b"").decode())
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{command} did not answer within 30 s")


def call(conn: http.client.HTTPConnection, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    conn.request(method, path, body=body, headers={"Content-Type": "application/json", **headers})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


# --------------------------------------------------------------------------- the workload


def workloads(port: int, clients: int, needed: int) -> list[list[Request]]:
    """For each client, ``needed`` appends on matches of its own (created now, not timed)."""
    from ledger_bench import series  # bench/ledger_bench.py: seeded legal La Cabra play

    out: list[list[Request]] = []
    seed = 5000
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(clients):
        requests: list[Request] = []
        while len(requests) < needed:
            log = [e for e in series(seed, 10_000) if e["type"] != "note"]  # one whole series
            seed += 1
            status, created = call(conn, "POST", "/matches", json.dumps(log[0]["data"]).encode(), {})
            assert status == 201, created
            for version, event in enumerate(log[1:], start=1):
                body = json.dumps({"events": [event], "expectedVersion": version}).encode()
                requests.append((f"/matches/{created['id']}/events", body,
                                 {"Authorization": f"Bearer {created['token']}"}))
        out.append(requests[:needed])
    conn.close()
    return out


def baseline_workloads(tanteo: list[list[Request]]) -> list[list[Request]]:
    """The same bodies and headers, each client on its own key."""
    return [[(f"/insert/client{n}", body, headers) for _, body, headers in requests]
            for n, requests in enumerate(tanteo)]


def run_round(port: int, batches: list[list[Request]]) -> float:
    """Send every client's batch (one thread and one keep-alive connection each); wall time."""
    errors: list[str] = []
    connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=60) for _ in batches]
    for conn in connections:
        conn.connect()
    barrier = threading.Barrier(len(batches) + 1)

    def client(conn: http.client.HTTPConnection, batch: list[Request]) -> None:
        barrier.wait()
        for path, body, headers in batch:
            status, answer = call(conn, "POST", path, body, headers)
            if status != 201:
                errors.append(f"{status} {answer}")
                return

    threads = [threading.Thread(target=client, args=(c, b)) for c, b in zip(connections, batches)]
    for thread in threads:
        thread.start()
    barrier.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    for conn in connections:
        conn.close()
    if errors:
        raise RuntimeError(errors[0])
    return elapsed


def measure(label: str, tanteo_port: int, base_port: int, tanteo: list[list[Request]],
            base: list[list[Request]], rounds: int, per_round: int) -> dict[str, Any]:
    ratios: list[float] = []
    times: dict[str, list[float]] = {"tanteo": [], "baseline": []}
    for r in range(rounds + 1):  # round 0 warms both up and is not counted
        t_batches = [requests[r * per_round:(r + 1) * per_round] for requests in tanteo]
        b_batches = [requests[r * per_round:(r + 1) * per_round] for requests in base]
        if r % 2 == 0:
            t = run_round(tanteo_port, t_batches)
            b = run_round(base_port, b_batches)
        else:
            b = run_round(base_port, b_batches)
            t = run_round(tanteo_port, t_batches)
        if r == 0:
            continue
        ratios.append(b / t)
        requests = per_round * len(tanteo)
        times["tanteo"].append(t / requests)
        times["baseline"].append(b / requests)
    return {
        "label": label,
        "median": statistics.median(ratios), "min": min(ratios), "max": max(ratios),
        "tanteo_ms": 1000 * statistics.median(times["tanteo"]),
        "baseline_ms": 1000 * statistics.median(times["baseline"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=25, help="counted rounds (one more warms up)")
    parser.add_argument("--per-round", type=int, default=20, help="appends per client per round")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients in the second figure")
    parser.add_argument("--serve-baseline", nargs=2, metavar=("PORT", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_baseline:
        serve_baseline(int(args.serve_baseline[0]), args.serve_baseline[1])
        return

    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="tanteo-http-bench-") as tmp:
        try:
            tanteo_port, base_port = free_port(), free_port()
            processes.append(start([sys.executable, "-m", "api.cli", "serve", "--port", str(tanteo_port),
                                    "--db", os.path.join(tmp, "tanteo.db")], tanteo_port, "/games"))
            processes.append(start([sys.executable, str(Path(__file__).resolve()), "--serve-baseline",
                                    str(base_port), os.path.join(tmp, "baseline.db")], base_port, "/ready"))
            needed = (args.rounds + 1) * args.per_round
            print(f"generating {1 + args.clients} clients × {needed} La Cabra events and creating their matches …",
                  file=sys.stderr)
            tanteo = workloads(tanteo_port, 1 + args.clients, needed)
            base = baseline_workloads(tanteo)
            results = [
                measure("sequential (1 client)", tanteo_port, base_port, tanteo[:1], base[:1],
                        args.rounds, args.per_round),
                measure(f"{args.clients} concurrent clients", tanteo_port, base_port, tanteo[1:], base[1:],
                        args.rounds, args.per_round),
            ]
        finally:
            for process in processes:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
    print(f"\nappend through tanteo serve vs one INSERT in Flask; waitress, WAL, synchronous=FULL; "
          f"{args.rounds} alternating rounds × {args.per_round} appends per client\n")
    print("| workload | tanteo ms/append | baseline ms/insert | ratio (median) | min–max | target |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['label']} | {r['tanteo_ms']:.2f} | {r['baseline_ms']:.2f} | {r['median']:.2f} | "
              f"{r['min']:.2f}–{r['max']:.2f} | ≥ 0.7 |")


if __name__ == "__main__":
    main()
