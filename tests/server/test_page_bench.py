"""bench/page_bench.py runs (its ``--tiny`` mode, against a real ``tanteo serve``), so it cannot rot
unnoticed; what it measures is printed, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_bench_runs_in_its_tiny_mode() -> None:
    done = subprocess.run(
        [sys.executable, "bench/page_bench.py", "--tiny"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rounds"] == 3 and report["events"] == {"short": 20, "long": 120}
    assert set(report["median_ratio_long_over_short"]) == {"bytes", "gzip_bytes", "warm", "cold"}
    assert report["short_gzip"] < report["short_bytes"]  # the gzip read was compressed
