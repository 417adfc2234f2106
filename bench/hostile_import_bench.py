"""What a hostile import costs a real server in seconds, beside a large valid one (issue 26).

    .venv/bin/python bench/hostile_import_bench.py [--rounds 5] [--events 60000]

A real ``tanteo serve`` (waitress, ``python -m api.cli serve``) on a fresh SQLite file takes
``POST /matches/import`` three ways, one after another, ``--rounds`` times, the order rotating:

- 20 MB of junk text notation (``tests/server/memory.junk_text``: nothing a match
  is made of), which the issue's bar wants refused in under 10 s;
- 5 MB of ``{}`` archive lines;
- a large valid text file: whole La Cabra series played by the conformance driver until
  ``--events`` events, each exported with ``transfer.match_text`` (what ``GET
  /matches/{id}/export`` answers), one after another: it must still import whole.

Printed: each import's seconds, status and answer size per round, then the medians. Seconds
are information, not a test: on a shared machine they swing; compare medians of one run.
The bounds that tests assert (memory, answer size) are in ``tests/server/test_import_memory.py``.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from import_bench import la_cabra_series  # noqa: E402

from api.service import Service, StateCache, transfer  # noqa: E402
from ledger import SqliteLedger  # noqa: E402
from tests.server.conftest import Server  # noqa: E402
from tests.server.memory import junk_text  # noqa: E402


def valid_text(path: Path, events: int) -> tuple[bytes, int]:
    """Whole La Cabra series until ``events`` events, as one text file; return it and its match count."""
    logs = la_cabra_series(events)
    with SqliteLedger(path, synchronous="OFF") as ledger:
        service = Service(ledger, StateCache())
        texts = []
        for log in logs:
            created = service.start_match(log[0]["data"])
            service.record(created["id"], log[1:], token=created["token"])
            texts.append(transfer.match_text(service, created["id"], full=True))
    return "\n".join(texts).encode(), len(logs)


def post(port: int, body: bytes, content_type: str) -> tuple[float, int, int]:
    """POST an import; return its seconds, status and answer size."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    try:
        start = time.perf_counter()
        connection.request("POST", "/matches/import", body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        answer = response.read()
        return time.perf_counter() - start, response.status, len(answer)
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=60_000)
    parser.add_argument("--mb", type=int, default=20, help="megabytes of junk text (the {} lines are a quarter of it)")
    parser.add_argument("--tiny", action="store_true", help="one round, 200 events, 1 MB of junk: checks that it runs")
    args = parser.parse_args()
    if args.tiny:
        args.rounds, args.events, args.mb = 1, 200, 1
    with tempfile.TemporaryDirectory() as tmp:
        text, matches = valid_text(Path(tmp) / "source.db", args.events)
        bodies = {
            f"junk text {args.mb} MB": (junk_text(args.mb * 1000 * 1000), "text/plain"),
            f"{{}} lines {args.mb / 4:g} MB": (b"{}\n" * (args.mb * 1000 * 1000 // 12), "application/x-ndjson"),
            f"valid text {len(text) / 1e6:.1f} MB ({matches} matches)": (text, "text/plain"),
        }
        server = Server(Path(tmp) / "served.db")
        server.start()
        try:
            times: dict[str, list[float]] = {name: [] for name in bodies}
            names = list(bodies)
            for n in range(args.rounds):
                for name in names[n % 3 :] + names[: n % 3]:
                    body, kind = bodies[name]
                    seconds, status, size = post(server.port, body, kind)
                    times[name].append(seconds)
                    print(f"round {n + 1}: {name}: {seconds:.2f} s, status {status}, answer {size:,} bytes", flush=True)
        finally:
            server.stop()
        for name, measured in times.items():
            print(
                f"{name}: median {statistics.median(measured):.2f} s (min {min(measured):.2f}, max {max(measured):.2f}, "
                f"{len(measured)} runs)"
            )


if __name__ == "__main__":
    main()
