"""HTTP append benchmark: ``tanteo serve`` vs a trivial Flask INSERT, same server, same durability.

    python bench/http_bench.py [--rounds 100] [--per-round 5] [--clients 4] [--threads 16] [--tiny]

Two servers run side by side as child processes on loopback, both under the same HTTP server
with the same settings: ``tanteo serve`` and the baseline both put their WSGI app on a port
through ``api.serving.serve``, whichever server that is.

* **tanteo**: the real ``tanteo serve`` on a fresh SQLite file. A request is one
  ``POST /matches/{id}/events`` carrying one event of a real La Cabra series (seeded random
  legal play: deals, leads, beats, hidden discards, reveals, claims), with its token and
  ``expectedVersion``: JSON parsing, token check, JSON Schema, the rules, the hash chain, a
  durable commit.
* **baseline**: a Flask app whose one view parses the same JSON body and does one ``INSERT``
  (one connection per worker thread, WAL, ``synchronous=FULL``: the same durability).

Rounds are short and many, and alternate (tanteo first in even rounds, the baseline first in
odd ones), so that the machine's load and the disk's fsync latency, which drift within
seconds on a shared machine, hit both alike. In each round each side gets ``--per-round``
requests per client, back to back on keep-alive connections held by client threads that
live for the whole measurement: once with one client, once with ``--clients`` clients at a
time (each on its own match). The figure is the ratio of throughputs, baseline time / tanteo
time, per round: the median over the rounds, with min–max. Target ≥ 0.7.

The databases go in a new directory under ``TMPDIR``. On a disk, each append's fsync is a
large share of both sides' time; ``TMPDIR=/dev/shm`` (tmpfs: fsync is free) shows the ratio
of the work that is left, which is CPU: parsing, checks, the chain.
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


def serve_baseline(port: int, db: str, threads: int) -> None:
    """The trivial endpoint: parse the JSON body, one INSERT, at tanteo's durability."""
    import sqlite3

    from flask import Flask, request

    from api.serving import serve

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

    serve(app, host="127.0.0.1", port=port, threads=threads, quiet=True)


# --------------------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(command: list[str], port: int, probe: str, log: Path) -> subprocess.Popen[bytes]:
    """Start a server process (its errors written to ``log``) and return once ``probe`` answers."""
    with log.open("wb") as err:  # a file, not a pipe nobody reads: a chatty server never blocks on it
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
    for _ in range(300):  # up to ~30 s
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", probe)
            conn.getresponse().read()
            conn.close()
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(log.read_text()) from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{command} did not answer within 30 s")


def call(
    conn: http.client.HTTPConnection, method: str, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, Any]:
    conn.request(method, path, body=body, headers={"Content-Type": "application/json", **headers})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


# --------------------------------------------------------------------------- the workload


def workloads(port: int, clients: int, needed: int) -> list[list[Request]]:
    """For each client, ``needed`` appends on matches of its own (created now, not timed)."""
    from ledger_bench import whole_series  # bench/ledger_bench.py: seeded legal play to the series' end

    out: list[list[Request]] = []
    seed = 5000
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(clients):
        requests: list[Request] = []
        while len(requests) < needed:
            log = whole_series("la-cabra", seed)
            seed += 1
            status, created = call(conn, "POST", "/matches", json.dumps(log[0]["data"]).encode(), {})
            assert status == 201, created
            for version, event in enumerate(log[1:], start=1):
                body = json.dumps({"events": [event], "expectedVersion": version}).encode()
                requests.append(
                    (f"/matches/{created['id']}/events", body, {"Authorization": f"Bearer {created['token']}"})
                )
        out.append(requests[:needed])
    conn.close()
    return out


def baseline_workloads(tanteo: list[list[Request]]) -> list[list[Request]]:
    """The same bodies and headers, each client on its own key."""
    return [
        [(f"/insert/client{n}", body, headers) for _, body, headers in requests] for n, requests in enumerate(tanteo)
    ]


class Clients:
    """Client threads that live for the whole measurement, each with a keep-alive connection to
    each server; :meth:`round` makes all of them send their next batch to one server at once
    and returns the wall time from the common start to the last answer."""

    def __init__(self, ports: dict[str, int], count: int) -> None:
        self.ports = ports
        self.count = count
        self.start = threading.Barrier(count + 1)
        self.done = threading.Barrier(count + 1)
        self.work: list[tuple[str, list[Request]]] = [("", [])] * count
        self.errors: list[str] = []
        self.stopping = False
        self.threads = [threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(count)]
        for thread in self.threads:
            thread.start()

    def _client(self, n: int) -> None:
        connections = {
            name: http.client.HTTPConnection("127.0.0.1", port, timeout=60) for name, port in self.ports.items()
        }
        while True:
            self.start.wait()
            if self.stopping:
                break
            name, batch = self.work[n]
            try:
                for path, body, headers in batch:
                    status, answer = call(connections[name], "POST", path, body, headers)
                    if status != 201:
                        self.errors.append(f"{name}: {status} {answer}")
                        break
            finally:
                self.done.wait()
        for conn in connections.values():
            conn.close()

    def round(self, name: str, batches: list[list[Request]]) -> float:
        self.work = [(name, batch) for batch in batches]
        self.start.wait()
        began = time.perf_counter()
        self.done.wait()
        elapsed = time.perf_counter() - began
        if self.errors:
            raise RuntimeError(self.errors[0])
        return elapsed

    def close(self) -> None:
        self.stopping = True
        self.start.wait()
        for thread in self.threads:
            thread.join(timeout=10)


def measure(
    label: str,
    ports: dict[str, int],
    tanteo: list[list[Request]],
    base: list[list[Request]],
    rounds: int,
    per_round: int,
) -> dict[str, Any]:
    clients = Clients(ports, len(tanteo))
    ratios: list[float] = []
    times: dict[str, list[float]] = {"tanteo": [], "baseline": []}
    try:
        for r in range(rounds + 1):  # round 0 warms both up and is not counted
            batches = {
                "tanteo": [requests[r * per_round : (r + 1) * per_round] for requests in tanteo],
                "baseline": [requests[r * per_round : (r + 1) * per_round] for requests in base],
            }
            order = ("tanteo", "baseline") if r % 2 == 0 else ("baseline", "tanteo")
            elapsed = {name: clients.round(name, batches[name]) for name in order}
            if r == 0:
                continue
            ratios.append(elapsed["baseline"] / elapsed["tanteo"])
            for name in times:
                times[name].append(elapsed[name] / (per_round * len(tanteo)))
    finally:
        clients.close()
    return {
        "label": label,
        "median": statistics.median(ratios),
        "min": min(ratios),
        "max": max(ratios),
        "tanteo_ms": 1000 * statistics.median(times["tanteo"]),
        "baseline_ms": 1000 * statistics.median(times["baseline"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=100, help="counted rounds (one more warms up)")
    parser.add_argument("--per-round", type=int, default=5, help="appends per client per round")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients in the second figure")
    parser.add_argument(
        "--threads", type=int, default=16, help="worker threads of each server (tanteo serve's default)"
    )
    parser.add_argument("--tiny", action="store_true", help="2 rounds of 2 appends, 2 clients: checks that it runs")
    parser.add_argument("--serve-baseline", nargs=2, metavar=("PORT", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_baseline:
        serve_baseline(int(args.serve_baseline[0]), args.serve_baseline[1], args.threads)
        return
    if args.tiny:
        args.rounds, args.per_round, args.clients = 2, 2, 2

    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="tanteo-http-bench-") as tmp:
        try:
            tanteo_port, base_port = free_port(), free_port()
            processes.append(
                start(
                    [
                        sys.executable,
                        "-m",
                        "api.cli",
                        "serve",
                        "--port",
                        str(tanteo_port),
                        "--threads",
                        str(args.threads),
                        "--db",
                        os.path.join(tmp, "tanteo.db"),
                    ],
                    tanteo_port,
                    "/games",
                    Path(tmp) / "tanteo.log",
                )
            )
            processes.append(
                start(
                    [
                        sys.executable,
                        str(Path(__file__).resolve()),
                        "--serve-baseline",
                        str(base_port),
                        os.path.join(tmp, "baseline.db"),
                        "--threads",
                        str(args.threads),
                    ],
                    base_port,
                    "/ready",
                    Path(tmp) / "baseline.log",
                )
            )
            needed = (args.rounds + 1) * args.per_round
            print(
                f"generating {1 + args.clients} clients × {needed} La Cabra events and creating their matches …",
                file=sys.stderr,
            )
            tanteo = workloads(tanteo_port, 1 + args.clients, needed)
            base = baseline_workloads(tanteo)
            ports = {"tanteo": tanteo_port, "baseline": base_port}
            results = [
                measure("sequential (1 client)", ports, tanteo[:1], base[:1], args.rounds, args.per_round),
                measure(f"{args.clients} concurrent clients", ports, tanteo[1:], base[1:], args.rounds, args.per_round),
            ]
        finally:
            for process in processes:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
    print(
        f"\nappend through tanteo serve vs one INSERT in Flask; the same server ({args.threads} threads), WAL, synchronous=FULL, files in "
        f"{tempfile.gettempdir()}; {args.rounds} alternating rounds × {args.per_round} appends per client\n"
    )
    print("| workload | tanteo ms/append | baseline ms/insert | ratio (median) | min–max | target |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['label']} | {r['tanteo_ms']:.2f} | {r['baseline_ms']:.2f} | {r['median']:.2f} | "
            f"{r['min']:.2f}–{r['max']:.2f} | ≥ 0.7 |"
        )


if __name__ == "__main__":
    main()
