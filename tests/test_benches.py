"""Benches that cannot rot (issue 32): every script of ``bench/`` with a command line runs with
``--tiny`` (the same code paths at the smallest size) as a child process, and must end well and
print its result lines. A bench whose helper was removed or renamed fails here, not months later.

Nothing here reads a time or a ratio: speed is measured by running a bench, never asserted.
The benches run at the same time (each waits on servers, disks and sleeps much of its run), so
the whole file takes about as long as its slowest bench.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SECONDS = 240
"""How long one tiny bench may take before it counts as hung (a few seconds each, normally)."""


def benches() -> list[str]:
    """Every ``bench/*.py`` with a command line (a ``main`` run when the file is run)."""
    return sorted(
        path.stem
        for path in BENCH.glob("*.py")
        if "def main(" in (text := path.read_text(encoding="utf-8")) and '__name__ == "__main__"' in text
    )


RESULT_LINES: dict[str, re.Pattern[str]] = {
    "clubs": re.compile(r"^\(b\) rebuild every projection", re.M),
    "fanout_bench": re.compile(r"^\| 4 \| tanteo ÷ comparison \| 1\.00 \|", re.M),
    "fold_bench": re.compile(r"^la-cabra replay", re.M),
    "hostile_import_bench": re.compile(r"^valid text .*: median", re.M),
    "http_bench": re.compile(r"^\| 2 concurrent clients \|", re.M),
    "import_bench": re.compile(r"^import of [\d,]+ events: ours", re.M),
    "ledger_bench": re.compile(r"^GET /replay one 100-frame page", re.M),
    "memory_bench": re.compile(r"after read pass 1:", re.M),
    "page_bench": re.compile(r'"load_cold": [\d.]+,\s+"load_warm"'),  # the browser's loads ran too
    "postgres_bench": re.compile(r"^\(d\) cold state at step", re.M),
    "private_bench": re.compile(r"^\(c\) whole listing", re.M),
    "read_counts": re.compile(r"^cau-robat \(\d+ events\) /sheet\.csv", re.M),
    "stream_bench": re.compile(r'"resume_catch_up_s"'),
}
"""The last result line each bench prints; a bench not named here must print something."""


@pytest.fixture(scope="module")
def running(postgres_server: PostgresServer) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """Every bench started at once with ``--tiny`` (postgres_bench on a schema of the suite's
    throwaway PostgreSQL server, as its ``--url``)."""
    started: dict[str, subprocess.Popen[str]] = {}
    for name in benches():
        extra = ["--url", postgres_server.new_url()] if name == "postgres_bench" else []
        started[name] = subprocess.Popen(
            [sys.executable, str(BENCH / f"{name}.py"), "--tiny", *extra],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    yield started
    for process in started.values():
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_every_bench_is_found() -> None:
    assert set(RESULT_LINES) <= set(benches()), "a bench named here is gone or lost its main"


@pytest.mark.parametrize("name", benches())
def test_the_bench_runs_tiny_and_prints_its_results(running: dict[str, subprocess.Popen[str]], name: str) -> None:
    process = running[name]
    try:
        out, err = process.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"bench/{name}.py --tiny still ran after {SECONDS} s:\n{out[-2000:]}\n{err[-2000:]}")
    assert process.returncode == 0, f"bench/{name}.py --tiny failed ({process.returncode}):\n{err[-4000:]}"
    assert out.strip(), f"bench/{name}.py --tiny printed nothing"
    expected = RESULT_LINES.get(name)
    if expected is not None:
        assert expected.search(out), f"bench/{name}.py --tiny did not print its results:\n{out[-2000:]}"
