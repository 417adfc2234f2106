"""Live stream latency: how long after an append a reader of ``/matches/{id}/stream`` sees it.

    python bench/stream_bench.py [--appends 40] [--readers 4]

Runs ``tanteo serve`` (waitress) as a child process on a fresh SQLite file, opens
``--readers`` SSE connections on one Kabú match, then appends ``--appends`` events one at a
time from another connection and measures, per append, the time from the write's answer to
the moment each reader has parsed the event. The baseline is the poll interval of the
stream (``api.stream.POLL_SECONDS``): the figure is the median latency over it (expected
at most about 1: a reader waits for the next poll, never longer), with the maximum beside.
Also measured: a reconnection with ``Last-Event-ID`` that catches up on every event.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.stream import POLL_SECONDS  # noqa: E402
from tests.server.conftest import Server  # noqa: E402  (the same child-process server the tests use)
from tests.server.streams import Reader, record  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--appends", type=int, default=40)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--tiny", action="store_true", help="three appends, two readers: checks that it runs")
    args = parser.parse_args()
    if args.tiny:
        args.appends, args.readers = 3, 2
    server = Server(Path(tempfile.mkdtemp(prefix="tanteo-stream-")) / "stream.db")
    server.start()
    try:
        _, match = server.call("POST", "/matches", {"game": "kabu", "players": ["P1", "P2", "P3", "P4"]})
        match_id, token = match["id"], match["token"]
        readers = [Reader(server, match_id) for _ in range(args.readers)]
        for reader in readers:
            reader.next()
        latencies: list[float] = []
        for i in range(args.appends):
            event = {"type": "note", "data": {"text": f"append {i}"}}  # any stored event streams alike
            started = time.perf_counter()
            record(server, match_id, token, event)
            done = threading.Barrier(len(readers) + 1)
            seen: list[float] = []
            for reader in readers:

                def wait(r: Reader = reader) -> None:
                    r.next()
                    seen.append(time.perf_counter() - started)
                    done.wait()

                threading.Thread(target=wait, daemon=True).start()
            done.wait(timeout=30)
            latencies.extend(seen)
        for reader in readers:
            reader.drop()
        started = time.perf_counter()
        again = Reader(server, match_id, last_event_id=1)
        for _ in range(args.appends):
            again.next()
        catch_up = time.perf_counter() - started
        again.drop()
    finally:
        server.stop()
    median = statistics.median(latencies)
    print(
        json.dumps(
            {
                "appends": args.appends,
                "readers": args.readers,
                "poll_s": POLL_SECONDS,
                "median_latency_s": round(median, 3),
                "max_latency_s": round(max(latencies), 3),
                "median_over_poll": round(median / POLL_SECONDS, 2),
                "resume_catch_up_s": round(catch_up, 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
