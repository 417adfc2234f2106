"""The match page of a long match against a short one's (issue 32: under 3x the bytes and the time).

    python bench/page_bench.py [--rounds 15] [--long 1000] [--short 20] [--tiny]

Runs ``tanteo serve`` as a child process (the tests' :class:`tests.server.conftest.Server`) on a
fresh SQLite file, records two La Cabra series of ``--short`` and ``--long`` events (result-only
deals and notes), then in interleaved rounds (the order flips every round) reads ``/m/{id}`` of
each over one loopback connection per request and measures, per match:

- ``bytes``: the HTML as sent, and gzip-compressed (``Accept-Encoding: gzip``);
- ``warm``: the time of a page read at a version already drawn (what the hundreds of readers of
  a match get: the kept drawing);
- ``cold``: the time of the first read after a new event (a note appended to both matches each
  round: the drawing made anew, the audit read from event 1);
- ``304``: a read that sends the ETag it got (``If-None-Match``), of the long match;
- ``load_cold`` and ``load_warm``: the page loaded by a real browser (Debian's chromium through
  playwright, a fresh context each time: nothing cached, service workers blocked), from the
  start of the navigation to its ``load`` event (the Navigation Timing entry): the first load
  after a new event (the drawing made anew), then another load of the same version — what
  issue 32 measured as "takes 1.3 s to load against 0.22 s". ``--no-browser`` leaves them out.

Each figure is the median over the rounds of the per-round ratio long / short (``304`` against
the long page's warm read). The target is a ratio under 3 for bytes and time. ``--tiny`` (three
rounds, a 120-event "long" match) finishes in seconds: a test runs it so the bench cannot rot.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.api.snapshot_logs import eggs_log  # noqa: E402
from tests.server.conftest import Server  # noqa: E402  (the same child-process server the tests use)


def recorded(server: Server, length: int) -> tuple[str, str]:
    log = eggs_log(length)
    status, created = server.call("POST", "/matches", log[0]["data"])
    assert status == 201, created
    for start in range(1, len(log), 200):
        status, body = server.call(
            "POST",
            f"/matches/{created['id']}/events",
            {"events": log[start : start + 200]},
            {"Authorization": f"Bearer {created['token']}"},
        )
        assert status == 201, body
    return created["id"], created["token"]


def read(server: Server, path: str, headers: dict[str, str] | None = None) -> tuple[int, int, float, str]:
    """GET ``path``: status, body bytes, seconds from the request to the last byte, and the ETag."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    started = time.perf_counter()
    connection.request("GET", path, headers={"Accept": "text/html", **(headers or {})})
    response = connection.getresponse()
    body = response.read()
    seconds = time.perf_counter() - started
    connection.close()
    return response.status, len(body), seconds, response.getheader("ETag") or ""


def note(server: Server, match_id: str, token: str, text: str) -> None:
    status, body = server.call(
        "POST",
        f"/matches/{match_id}/events",
        {"events": [{"type": "note", "data": {"text": text}}]},
        {"Authorization": f"Bearer {token}"},
    )
    assert status == 201, body


class Browser:
    """Debian's chromium under playwright (as the page tests drive it): each load in a fresh context."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        from tests.pages.conftest import ARGS
        from tests.server.conftest import CHROMIUM

        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)

    def load(self, url: str) -> float:
        """Seconds from the navigation's start to its ``load`` event, nothing cached."""
        context = self.browser.new_context(service_workers="block", viewport={"width": 390, "height": 844})
        try:
            page = context.new_page()
            page.goto(url, wait_until="load")
            took = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
            return float(took) / 1000
        finally:
            context.close()

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()


def measure(rounds: int, short: int, long: int, browser: bool = True) -> dict[str, Any]:
    server = Server(Path(tempfile.mkdtemp(prefix="tanteo-pages-")) / "pages.db")
    server.start()
    loads = Browser() if browser else None
    try:
        matches = {"short": recorded(server, short), "long": recorded(server, long)}
        kinds = ("bytes", "gzip_bytes", "warm", "cold", "304", *(("load_cold", "load_warm") if loads else ()))
        ratios: dict[str, list[float]] = {k: [] for k in kinds}
        sizes: dict[str, int] = {}
        timed = ("warm", "cold", *(("load_cold", "load_warm") if loads else ()))
        times: dict[str, list[float]] = {f"{k}_{m}": [] for k in timed for m in matches}
        times["304_long"] = []
        for number in range(rounds):
            order = ["short", "long"] if number % 2 == 0 else ["long", "short"]
            for name in order:  # a new version: the next read draws the page anew
                note(server, *matches[name], f"round {number}")
            cold, warm, plain, packed, tags = {}, {}, {}, {}, {}
            for name in order:
                path = f"/m/{matches[name][0]}"
                status, size, cold[name], _ = read(server, path)
                assert status == 200
                status, plain[name], warm[name], tags[name] = read(server, path)
                assert status == 200
                status, packed[name], _, _ = read(server, path, {"Accept-Encoding": "gzip"})
                assert status == 200
            status, _, held, _ = read(server, f"/m/{matches['long'][0]}", {"If-None-Match": tags["long"]})
            assert status == 304, status
            if loads is not None:  # a new version again, then a browser's first load of it and a second one
                for name in order:
                    note(server, *matches[name], f"round {number}, loaded")
                for kind in ("load_cold", "load_warm"):
                    took = {name: loads.load(f"{server.url}/m/{matches[name][0]}") for name in order}
                    ratios[kind].append(took["long"] / took["short"])
                    for name in matches:
                        times[f"{kind}_{name}"].append(took[name])
            ratios["bytes"].append(plain["long"] / plain["short"])
            ratios["gzip_bytes"].append(packed["long"] / packed["short"])
            ratios["warm"].append(warm["long"] / warm["short"])
            ratios["cold"].append(cold["long"] / cold["short"])
            ratios["304"].append(held / warm["long"])
            for name in matches:
                times[f"warm_{name}"].append(warm[name])
                times[f"cold_{name}"].append(cold[name])
            times["304_long"].append(held)
            sizes = {
                "short_bytes": plain["short"],
                "long_bytes": plain["long"],
                "short_gzip": packed["short"],
                "long_gzip": packed["long"],
            }
    finally:
        if loads is not None:
            loads.close()
        server.stop()
    return {
        "rounds": rounds,
        "events": {"short": short, "long": long},
        **sizes,
        "median_ms": {k: round(1000 * statistics.median(v), 2) for k, v in times.items()},
        "median_ratio_long_over_short": {k: round(statistics.median(v), 2) for k, v in ratios.items() if k != "304"},
        "median_ratio_304_over_warm_long": round(statistics.median(ratios["304"]), 2),
        "target": "ratios under 3: bytes, and the time of a read and of a browser's load",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--short", type=int, default=20)
    parser.add_argument("--long", type=int, default=1000)
    parser.add_argument("--tiny", action="store_true", help="three rounds, a 120-event long match: seconds")
    parser.add_argument("--no-browser", action="store_true", help="leave out the loads in chromium")
    args = parser.parse_args()
    if args.tiny:
        args.rounds, args.long = 3, 120
    print(json.dumps(measure(args.rounds, args.short, args.long, browser=not args.no_browser), indent=2))


if __name__ == "__main__":
    main()
