"""What a large valid archive costs a real server to import (issue 26): one match at a time.

An archive import over HTTP used to hold the decoded events of every match until the end of the
body (a match's lines could be spread over the file), so its memory grew with the file. Each
match's lines come together (the exporter writes them so: checked here too), and the importer
now decides a match once its lines end and stores it with its chunk of matches: memory is a
chunk (``transfer.CHUNK_EVENTS`` events) and one match, whatever the body holds. Measured through
/proc of a ``tanteo serve`` process, as tests/server/test_import_memory.py does: the peak
(``VmHWM``) after the import less the resident size (``VmRSS``) before it. Memory, not time, is
asserted. Run alone with ``-s`` to see the figures.
"""

from __future__ import annotations

import json
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from api.service import Service, transfer
from ledger import SqliteLedger
from tests.api.snapshot_logs import eggs_log
from tests.server.conftest import Server
from tests.server.memory import MB, post_import, status_kb

MATCHES = 300
EVENTS = 250
GROWTH_LIMIT = 60 * MB
"""Holding the whole archive decoded (the import before) grew the server by 101 MB for these 21.7
MB; a chunk and one match, by 32 MB (docs/OPERATING.md, "What an import holds")."""


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """``MATCHES`` matches of ``EVENTS`` events each (La Cabra result-only deals and notes), exported whole."""
    db = tmp_path_factory.mktemp("source") / "source.db"
    log = eggs_log(EVENTS)
    with SqliteLedger(db, synchronous="OFF") as ledger:
        service = Service(ledger)
        for i in range(MATCHES):
            start = {**log[0]["data"], "players": [f"N{i}", "E", "S", "W"]}
            created = service.start_match(start)
            service.record(created["id"], log[1:], token=created["token"])
        return b"".join(transfer.all_lines(service, full=True))


def test_the_exporter_writes_each_match_lines_together(archive: bytes) -> None:
    ids = [json.loads(line)["match"] for line in archive.splitlines()]
    runs = [key for key, _ in groupby(ids)]
    assert len(runs) == len(set(runs)) == MATCHES  # one run per match: none resumes after another began


def test_a_large_archive_is_imported_holding_one_match_at_a_time(tmp_path: Path, archive: bytes) -> None:
    server = Server(tmp_path / "served.db")
    server.start()
    try:
        warm = post_import(server, b'{}\n{"match": "x"}\nnot json\n', "application/x-ndjson")
        assert warm[0] == 422  # every module an import loads is loaded: only the import is measured
        pid = server.process.pid  # type: ignore[union-attr]
        before = status_kb(pid)
        status, answer, _ = post_import(server, archive, "application/x-ndjson")
        after = status_kb(pid)
        growth = after["VmHWM"] - before["VmRSS"]
        print(
            f"\n{MATCHES} matches of {EVENTS} events, {len(archive) / MB:.1f} MB: status {status}; "
            f"RSS before {before['VmRSS'] / MB:.1f} MB, peak after {after['VmHWM'] / MB:.1f} MB, growth {growth / MB:.1f} MB"
        )
        report: Any = json.loads(answer)
        assert status == 201 and report["errors"] == [] and len(report["imported"]) == MATCHES
        assert server.call("GET", "/matches")[1]["total"] == MATCHES
        assert growth < GROWTH_LIMIT, f"the server grew by {growth / MB:.1f} MB"
    finally:
        server.stop()
