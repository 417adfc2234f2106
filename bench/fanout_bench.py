"""Spectators: how many followers of live matches one ``tanteo serve`` holds, against a minimal fan-out.

    python bench/fanout_bench.py [--tables 40] [--rate 1] [--levels 8,50,1000,4000,6000]
                                 [--seconds 20] [--client-processes 2] [--retry-after 10] [--tiny]

The table of issue 32, measured in one run on loopback:

* **Tanteo**: ``tanteo serve`` (``python -m api.cli serve``, whatever server it runs) as a child
  process on a fresh SQLite file, with ``--tables`` matches. One scorer per table appends one
  legal event every ``1/--rate`` seconds (``POST /matches/{id}/events`` with its token and
  ``expectedVersion``), from a process of its own on keep-alive connections, so the followers'
  client never disturbs its timing. The moves are whole series of the five games played with
  seeded legal random moves (the conformance drivers, through ``bench/ledger_bench.py``), one
  game per table in turn; a table whose series has ended goes on with table notes, so each table
  is one match for the whole run. A scorer that falls behind sends its next event at once
  (no burst to catch up); an append that fails is counted and its match's version read again.
* **Comparison**: a minimal asynchronous fan-out written here as the yardstick (the issue's
  "about 70 lines on asyncio"), in a child process of its own: one reader task per match polls
  the same SQLite file read-only every ``--comparison-poll`` seconds and writes each new event
  to every follower of that match, as an SSE frame of the same shape (``id: seq``, ``data:`` the
  event as JSON, no public-view redaction). The scorers keep appending through ``tanteo serve``
  while the comparison's followers are connected, so its append columns say what its load
  costs the product's appends on the same two cores.

Followers open ``GET /matches/{id}/stream?lastEventId=<the table's last seq>`` (as the match page
does), spread evenly over the tables, from ``--client-processes`` processes of plain asyncio
(uvloop when installed) that only look for ``id:`` lines; a refused follower comes back after
``--retry-after`` seconds (10, as the match page does: api/static/follow.js). Each level of followers is run once
against each side, the two in alternating order from one level to the next; all the followers
of a level connect first (served = answered 200; refused = answered 503 ``stream.busy``; failed =
no answer, another status, or a connection error or timeout), then the level is held for
``--seconds`` and only that window is measured:

* **append** p50/p99: from sending an append to its 2xx answer, for the appends sent in the window;
* **delivery** p50/p99: from the moment the scorer had the 2xx answer of an append to the
  moment a follower of that match has parsed the event's ``id:`` line (``time.time()`` in both
  processes, one clock), for every event answered in the window and every follower served on its
  match. It can be slightly negative when a follower parses the event before the scorer has
  read its answer. An event a served follower had not received ``--grace`` seconds after the
  window is counted as **missed**, not as a delivery time.

The last table gives, per level, both sides and the ratios Tanteo ÷ comparison where both
sides have a figure. ``--tiny`` (2 tables, levels 2,4, 1.5 s each) runs in well under 30 s and
prints the same table (the tests run it; no figure is asserted anywhere).
"""

from __future__ import annotations

import argparse
import array
import asyncio
import http.client
import json
import math
import multiprocessing
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from http_bench import free_port, start  # noqa: E402  (the one way the benches start a server and find a port)

CONNECTS_AT_ONCE = 200
"""Followers one client process has connecting at the same time (a ramp, not a SYN flood)."""
CONNECT_TIMEOUT = 15.0
"""Seconds a follower waits for its connection and status line before it counts as failed."""

Record = tuple[int, int, float, float, int]
"""One append: table, seq, sent, answered (``time.time()``), HTTP status (0: no answer)."""


# --------------------------------------------------------------------------- the comparison fan-out


def serve_comparison(port: int, db: str, poll: float) -> None:
    """The yardstick: one reader per match polls SQLite, each new event goes to every follower."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    raise_open_files_limit()
    asyncio.run(_comparison(port, db, poll))


async def _comparison(port: int, db: str, poll: float) -> None:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    matches = [row[0] for row in conn.execute("SELECT id FROM matches")]
    followers: dict[str, set[asyncio.StreamWriter]] = {m: set() for m in matches}

    async def read(match_id: str) -> None:
        (after,) = conn.execute("SELECT coalesce(max(seq), 0) FROM events WHERE match_id = ?", (match_id,)).fetchone()
        quiet = time.monotonic()
        while True:
            await asyncio.sleep(poll)
            rows = conn.execute(
                'SELECT seq, type, data, at, "by" FROM events WHERE match_id = ? AND seq > ? ORDER BY seq',
                (match_id, after),
            ).fetchall()
            out = b""
            for seq, kind, data, at, by in rows:
                event = {"matchId": match_id, "seq": seq, "type": kind, "data": json.loads(data), "at": at, "by": by}
                out += f"id: {seq}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n".encode()
                after = seq
            if not out and time.monotonic() - quiet >= 15:
                out = b": heartbeat\n\n"
            if out:
                quiet = time.monotonic()
                for writer in list(followers[match_id]):
                    writer.write(out)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            found = re.match(rb"GET /matches/([^/?\s]+)/stream[?\s]", head)
            match_id = found.group(1).decode() if found else ""
            if match_id not in followers:
                status = b"200 OK" if head.startswith(b"GET /ready ") else b"404 Not Found"
                writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                b"Connection: close\r\n\r\nretry: 1000\n\n"
            )
            followers[match_id].add(writer)
            try:
                while await reader.read(4096):  # until the follower leaves
                    pass
            finally:
                followers[match_id].discard(writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    readers = [asyncio.create_task(read(m)) for m in matches]
    server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=4096, reuse_address=True)
    async with server:
        await server.serve_forever()
    del readers


# --------------------------------------------------------------------------- the scorers


def scorers(port: int, tables: list[dict[str, Any]], rate: float, records: Any, stop: Any) -> None:
    """One thread per table appends its next event every ``1/rate`` s; each append goes to ``records``."""
    began = time.time() + 0.5
    threads = [
        threading.Thread(target=_score, args=(port, n, table, rate, began + n / (rate * len(tables)), records, stop))
        for n, table in enumerate(tables)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _score(port: int, n: int, table: dict[str, Any], rate: float, next_at: float, records: Any, stop: Any) -> None:
    log: list[dict[str, Any]] = table["log"]
    path = f"/matches/{table['id']}/events"
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {table['token']}"}
    version = 1
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while not stop.is_set():
        pause = next_at - time.time()
        if pause > 0 and stop.wait(pause):
            break
        event = log[version] if version < len(log) else {"type": "note", "data": {"text": f"table talk {version + 1}"}}
        body = json.dumps({"events": [event], "expectedVersion": version})
        sent = time.time()
        try:
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            status = 0
        answered = time.time()
        records.put((n, version + 1, sent, answered, status))
        if 200 <= status < 300:
            version += 1
        else:  # a failed append may still have been stored: read the match's version again
            version = _version(conn, table) or version
        next_at = max(next_at + 1 / rate, time.time())
    conn.close()


def _version(conn: http.client.HTTPConnection, table: dict[str, Any]) -> int | None:
    try:
        conn.request("GET", f"/matches/{table['id']}")
        response = conn.getresponse()
        summary = json.loads(response.read())
        return int(summary["version"]) if response.status == 200 else None
    except (OSError, ValueError, KeyError, http.client.HTTPException):
        conn.close()
        return None


# --------------------------------------------------------------------------- the followers' client


class Follower(asyncio.Protocol):
    """One SSE connection that reads its status line, then only the ``id:`` lines, with their time."""

    def __init__(self, table: int, request: bytes, answered: asyncio.Future[int]) -> None:
        self.table = table
        self.request = request
        self.answered = answered
        self.head = b""
        self.tail = b""
        self.status = 0
        self.seen: dict[int, float] = {}
        self.joined = float("inf")
        self.closed = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports are no asyncio.Transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time()
        if not self.status:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            try:
                self.status = int(self.head.split(b" ", 2)[1])
            except (IndexError, ValueError):
                self.status = -1
            data, self.head = self.head[end + 4 :], b""
            self.joined = now
            if not self.answered.done():
                self.answered.set_result(self.status)
            if self.status != 200:
                assert self.transport is not None
                self.transport.close()
                return
        buf = self.tail + data
        at = 0
        while True:
            i = buf.find(b"id: ", at)
            if i < 0:
                break
            if i and buf[i - 1] != 10:  # not at the start of a line
                at = i + 4
                continue
            j = buf.find(b"\n", i)
            if j < 0:
                self.tail = buf[i:]
                return
            try:
                self.seen.setdefault(int(buf[i + 4 : j]), now)
            except ValueError:
                pass
            at = j + 1
        last = buf.rfind(b"\n")
        self.tail = buf[last + 1 :] if last >= 0 else buf
        if len(self.tail) > 1 << 20:  # a data line we do not read
            self.tail = b""

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.answered.done():
            self.answered.set_result(0)


def client(pipe: Connection) -> None:
    """A followers' client process: it obeys the main process's commands until told to stop."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    raise_open_files_limit()
    asyncio.run(_client(pipe))


async def _client(pipe: Connection) -> None:
    loop = asyncio.get_running_loop()
    crowd: Crowd | None = None
    while True:
        command, *args = await loop.run_in_executor(None, pipe.recv)
        if command == "stop":
            return
        if command == "connect":
            port, wanted, retry_after = args
            crowd = Crowd(port, retry_after)
            outcomes = await asyncio.gather(*(crowd.follow(table, path) for table, path in wanted))
            pipe.send(
                {
                    "served": outcomes.count(200),
                    "busy": outcomes.count(503),
                    "failed": len(outcomes) - outcomes.count(200) - outcomes.count(503),
                }
            )
        elif command == "finish" and crowd is not None:
            pipe.send(crowd.finish(*args))
            crowd = None
            await asyncio.sleep(0)


class Crowd:
    """The followers of one level in one client process; a refused one comes back ``retry_after``
    seconds later (the match page does so after 10 s: api/static/follow.js), 0 for never."""

    def __init__(self, port: int, retry_after: float) -> None:
        self.port = port
        self.retry_after = retry_after
        self.gate = asyncio.Semaphore(CONNECTS_AT_ONCE)
        self.followers: list[Follower] = []
        self.refusals: list[float] = []
        self.retries: set[asyncio.TimerHandle] = set()
        self.finished = False

    async def follow(self, table: int, path: str) -> int:
        loop = asyncio.get_running_loop()
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAccept: text/event-stream\r\n\r\n"
        async with self.gate:
            answered: asyncio.Future[int] = loop.create_future()
            follower = Follower(table, request.encode(), answered)
            try:
                await asyncio.wait_for(
                    loop.create_connection(lambda: follower, "127.0.0.1", self.port), CONNECT_TIMEOUT
                )
                status = await asyncio.wait_for(answered, CONNECT_TIMEOUT)
            except (OSError, asyncio.TimeoutError):
                status = 0
        if self.finished:
            status = 0
        if status == 200:
            self.followers.append(follower)
            return status
        if follower.transport is not None:
            follower.transport.abort()
        if status == 503:
            self.refusals.append(time.time())
            if self.retry_after > 0:
                handle = loop.call_later(self.retry_after, self._retry, table, path)
                self.retries.add(handle)
        return status

    def _retry(self, table: int, path: str) -> None:
        if not self.finished:
            asyncio.ensure_future(self.follow(table, path))

    def finish(self, answered: dict[int, list[tuple[int, float]]], start: float, end: float) -> dict[str, Any]:
        """Delivery times (s) of each event answered in the window to each follower of its match
        served before that answer; then every follower leaves."""
        self.finished = True
        for handle in self.retries:
            handle.cancel()
        dropped = sum(f.closed for f in self.followers)
        times = array.array("d")
        missed = 0
        for follower in self.followers:
            for seq, at in answered.get(follower.table, ()):
                if at < follower.joined:
                    continue
                got = follower.seen.get(seq)
                if got is None:
                    missed += 1
                else:
                    times.append(got - at)
            if follower.transport is not None:
                follower.transport.abort()
        return {
            "times": times.tobytes(),
            "missed": missed,
            "dropped": dropped,
            "refusals": sum(start <= t < end for t in self.refusals),
            "late": sum(start <= f.joined for f in self.followers),
        }


# --------------------------------------------------------------------------- the main process


def raise_open_files_limit() -> None:
    """Let this process hold as many sockets as the hard limit allows (``tanteo serve`` does the same)."""
    from api.cli import _raise_open_files_limit

    _raise_open_files_limit(1 << 20)


def create_tables(port: int, count: int) -> list[dict[str, Any]]:
    """``count`` matches, each with the legal whole series its scorer will record (not timed)."""
    from ledger_bench import whole_series  # bench/ledger_bench.py: seeded legal play of every game

    from engines import ENGINES

    games = sorted(ENGINES)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    tables = []
    for n in range(count):
        log = [e for e in whole_series(games[n % len(games)], 3200 + n) if e["type"] != "note"]
        conn.request("POST", "/matches", body=json.dumps(log[0]["data"]), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        created = json.loads(response.read())
        if response.status != 201:
            raise RuntimeError(f"POST /matches answered {response.status}: {created}")
        tables.append({"id": created["id"], "token": created["token"], "log": log})
    conn.close()
    return tables


def pct(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (nearest rank) of ``values``, None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


class Bench:
    def __init__(self, args: argparse.Namespace, ports: dict[str, int], tables: list[dict[str, Any]]) -> None:
        self.args = args
        self.ports = ports
        self.tables = tables
        context = multiprocessing.get_context("fork")
        self.records: Any = context.Queue()
        self.stop = context.Event()
        self.done: list[Record] = []
        self.scorer = context.Process(
            target=scorers, args=(ports["tanteo"], tables, args.rate, self.records, self.stop), daemon=True
        )
        self.pipes: list[Connection] = []
        self.clients = []
        for _ in range(args.client_processes):
            mine, theirs = context.Pipe()
            self.pipes.append(mine)
            self.clients.append(context.Process(target=client, args=(theirs,), daemon=True))
        for process in [self.scorer, *self.clients]:
            process.start()

    def drain(self) -> None:
        while True:
            try:
                self.done.append(self.records.get_nowait())
            except Exception:  # queue.Empty
                return

    def level(self, side: str, count: int) -> dict[str, Any]:
        self.drain()
        last = [1] * len(self.tables)
        for table, seq, _, _, status in self.done:
            if 200 <= status < 300:
                last[table] = max(last[table], seq)
        wanted: list[list[tuple[int, str]]] = [[] for _ in self.pipes]
        for j in range(count):
            table = j % len(self.tables)
            path = f"/matches/{self.tables[table]['id']}/stream?lastEventId={last[table]}"
            wanted[j % len(self.pipes)].append((table, path))
        for pipe, mine in zip(self.pipes, wanted):
            pipe.send(("connect", self.ports[side], mine, self.args.retry_after))
        counts = [pipe.recv() for pipe in self.pipes]
        start = time.time()
        time.sleep(self.args.seconds)
        end = time.time()
        time.sleep(self.args.grace)
        self.drain()
        window = [r for r in self.done if start <= r[2] < end]
        answered: dict[int, list[tuple[int, float]]] = {}
        for table, seq, _, at, status in self.done:
            if 200 <= status < 300 and start <= at < end:
                answered.setdefault(table, []).append((seq, at))
        for pipe in self.pipes:
            pipe.send(("finish", answered, start, end))
        delivered = [pipe.recv() for pipe in self.pipes]
        times: list[float] = []
        for d in delivered:
            times.extend(array.array("d", d["times"]))
        appends = [r[3] - r[2] for r in window if 200 <= r[4] < 300]
        time.sleep(0.5)  # the servers see the followers leave before the next level
        return {
            "served": sum(c["served"] for c in counts),
            "busy": sum(c["busy"] for c in counts),
            "failed": sum(c["failed"] for c in counts),
            "append_errors": sum(1 for r in window if not 200 <= r[4] < 300),
            "appends": len(appends),
            "append_p50": pct(appends, 0.5),
            "append_p99": pct(appends, 0.99),
            "delivered": len(times),
            "missed": sum(d["missed"] for d in delivered),
            "dropped": sum(d["dropped"] for d in delivered),
            "refusals": sum(d["refusals"] for d in delivered) / (end - start),
            "late": sum(d["late"] for d in delivered),
            "delivery_p50": pct(times, 0.5),
            "delivery_p99": pct(times, 0.99),
        }

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(("stop",))
        self.stop.set()
        for process in [*self.clients, self.scorer]:
            process.join(timeout=15)
            if process.is_alive():
                process.kill()


def ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{1000 * seconds:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def ratio(ours: float | None, theirs: float | None) -> str:
    return "–" if ours is None or theirs is None or theirs <= 0 else f"{ours / theirs:.2f}"


def table(args: argparse.Namespace, results: list[tuple[int, dict[str, dict[str, Any]]]]) -> str:
    retry = f"a refused follower tries again after {args.retry_after:g} s" if args.retry_after else "no retries"
    lines = [
        f"{args.tables} tables × {args.rate:g} append/s each; each level held {args.seconds:g} s after its "
        f"followers connected (+{args.grace:g} s for late events); {args.client_processes} client processes; "
        f"{retry}; the comparison polls every {args.comparison_poll:g} s.",
        "Served and refused: when all had connected (+ served later, refusals a second in the window). "
        "Delivery: from the append's 2xx answer to a follower's parsed `id:` line; "
        "missed: events answered in the window that a served follower had not received by its end + grace.",
        "",
        "| followers | side | served | refused 503 | failed | append p50 | append p99 | "
        "delivery p50 | delivery p99 | missed | append errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for count, sides in results:
        for side in ("tanteo", "comparison"):
            r = sides[side]
            served = f"{r['served']:,}" + (f" (+{r['late']:,})" if r["late"] else "")
            refused = f"{r['busy']:,}" + (f" ({r['refusals']:.0f}/s)" if r["refusals"] else "")
            lines.append(
                f"| {count:,} | {side} | {served} | {refused} | {r['failed']:,} | {ms(r['append_p50'])} | "
                f"{ms(r['append_p99'])} | {ms(r['delivery_p50'])} | {ms(r['delivery_p99'])} | {r['missed']:,} | "
                f"{r['append_errors']:,} |"
            )
        ours, theirs = sides["tanteo"], sides["comparison"]
        figures = ("append_p50", "append_p99", "delivery_p50", "delivery_p99")
        lines.append(
            f"| {count:,} | tanteo ÷ comparison | {ratio(ours['served'], theirs['served'])} | | | "
            + " | ".join(ratio(ours[k], theirs[k]) for k in figures)
            + " | | |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=40, help="matches, each with a scorer")
    parser.add_argument("--rate", type=float, default=1.0, help="appends per second per table")
    parser.add_argument("--levels", default="8,50,1000,4000,6000", help="followers at each level, comma-separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window of each level and side")
    parser.add_argument("--grace", type=float, default=3.0, help="seconds after the window for late events")
    parser.add_argument("--client-processes", type=int, default=2, help="processes holding the followers")
    parser.add_argument(
        "--retry-after", type=float, default=10.0, help="a refused follower tries again after this (s; 0: never)"
    )
    parser.add_argument("--comparison-poll", type=float, default=0.2, help="the comparison's poll interval (s)")
    parser.add_argument(
        "--tiny", action="store_true", help="2 tables, levels 2,4, 1.5 s each: a run that proves it runs"
    )
    parser.add_argument("--serve-comparison", nargs=3, metavar=("PORT", "DB", "POLL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_comparison:
        port, db, poll = args.serve_comparison
        serve_comparison(int(port), db, float(poll))
        return
    if args.tiny:
        args.tables, args.levels, args.seconds, args.grace = 2, "2,4", 1.5, 0.5
    levels = [int(n) for n in args.levels.split(",")]
    raise_open_files_limit()
    processes: list[subprocess.Popen[bytes]] = []
    bench: Bench | None = None
    with tempfile.TemporaryDirectory(prefix="tanteo-fanout-") as tmp:
        db = os.path.join(tmp, "tanteo.db")
        try:
            ports = {"tanteo": free_port(), "comparison": free_port()}
            serve = [sys.executable, "-m", "api.cli", "serve", "--port", str(ports["tanteo"]), "--db", db]
            processes.append(start(serve, ports["tanteo"], "/games", Path(tmp) / "tanteo.log"))
            print(f"creating {args.tables} matches and their series …", file=sys.stderr)
            tables = create_tables(ports["tanteo"], args.tables)
            comparison = [sys.executable, str(Path(__file__).resolve()), "--serve-comparison"]
            comparison += [str(ports["comparison"]), db, str(args.comparison_poll)]
            processes.append(start(comparison, ports["comparison"], "/ready", Path(tmp) / "comparison.log"))
            bench = Bench(args, ports, tables)
            time.sleep(1.0)  # the scorers are under way
            results: list[tuple[int, dict[str, dict[str, Any]]]] = []
            previous = ""
            for n, count in enumerate(levels):
                order = ("tanteo", "comparison") if n % 2 == 0 else ("comparison", "tanteo")
                sides = {}
                for side in order:
                    if side == previous:  # a server may notice a follower gone only when it next writes to it
                        time.sleep(2 / args.rate)
                    previous = side
                    print(f"{count} followers on {side} …", file=sys.stderr)
                    sides[side] = bench.level(side, count)
                results.append((count, sides))
        finally:
            if bench is not None:
                bench.close()
            for process in processes:
                process.terminate()
                try:  # a server still holding streams may take its time to stop: its file is thrown away
                    process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    process.kill()
    print(table(args, results))


if __name__ == "__main__":
    main()
