"""What a hostile import costs a real server (issue 26 item 2), measured through /proc of a
``tanteo serve`` process: 20 MB of junk text notation, and 5 MB of ``{}`` archive lines (before
the import was streamed: 6.95 GB and 187 s; 1.0 GB and a 202 MB answer), are refused with the
server's memory growing by less than 100 MB and an answer under 64 KB.

Memory, not time, is asserted (the machine running the suite may be slow); the growth is
the peak (``VmHWM``) after the import less the resident size (``VmRSS``) before it, an upper
bound of what the import added. Run alone with ``-s`` to see the figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import Server
from tests.server.memory import MB, junk_text, post_import as post, status_kb

GROWTH_LIMIT = 100 * MB
ANSWER_LIMIT = 64 * 1024


@pytest.fixture
def measured(tmp_path: Path) -> Any:
    server = Server(tmp_path / "served.db")
    server.start()
    assert server.process is not None
    # warm up every module an import loads (schemas, engines, the notation), so that only the
    # import itself is measured
    for body, kind in (
        (b'[Game "kabu"]\n[Players "A" "B"]\n2. note {x}\n{}\n', "text/plain"),
        (b'{}\n{"match": "x"}\nnot json\n', "application/x-ndjson"),
    ):
        assert post(server, body, kind)[0] in (201, 422)
    yield server
    server.stop()


@pytest.mark.parametrize(
    "what, body, content_type",
    [
        ("20 MB of junk text notation", lambda: junk_text(20 * 1000 * 1000), "text/plain"),
        ("20 MB of notation lines without tags", lambda: b"play card=ZZ x=[1 2 3]\n" * 870_000, "text/plain"),
        ("5 MB of {} archive lines", lambda: b"{}\n" * (5 * 1000 * 1000 // 3), "application/x-ndjson"),
        (
            "20 MB of broken archive lines",
            lambda: b'{"match": "AAAAAAAAAAAAAAAAAAAAAA", "seq": x}\n' * 400_000,
            "application/x-ndjson",
        ),
    ],
)
def test_a_junk_import_is_refused_within_100_mb_and_a_64_kb_answer(
    measured: Server, what: str, body: Any, content_type: str
) -> None:
    payload = body()
    pid = measured.process.pid  # type: ignore[union-attr]
    stored = measured.call("GET", "/matches")[1]["total"]
    before = status_kb(pid)
    status, answer, headers = post(measured, payload, content_type)
    after = status_kb(pid)
    growth = after["VmHWM"] - before["VmRSS"]
    print(
        f"\n{what}: {len(payload):,} bytes sent; status {status}; answer {len(answer):,} bytes; "
        f"RSS before {before['VmRSS'] / MB:.1f} MB, peak after {after['VmHWM'] / MB:.1f} MB, growth {growth / MB:.1f} MB"
    )
    assert status == 422 and headers["Content-Type"] == "application/problem+json"
    problem = json.loads(answer)
    assert problem["code"] in ("import.nothing_imported", "import.time_limit")
    assert problem["imported"] == [] and len(problem["errors"]) <= 100
    assert problem.get("moreErrors") or problem.get("unreadLines"), "what was not listed is counted"
    assert len(answer) < ANSWER_LIMIT, f"{what}: the answer is {len(answer):,} bytes"
    assert growth < GROWTH_LIMIT, f"{what}: the server grew by {growth / MB:.1f} MB"
    # the server still answers, and nothing was written
    assert measured.call("GET", "/matches")[1]["total"] == stored
