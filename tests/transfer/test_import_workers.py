"""An archive whose rules are checked by worker processes imports exactly as one checked in-process.

``tanteo import`` forks one worker per core for a big archive (``transfer.import_workers``):
the workers check every event's schema and the rules, this process recomputes the chains and
writes. The report (every error by line, in the same words) and the stored rows must not
depend on which process checked: the same archive, with a fault of each kind, is imported
both ways and compared.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from tests.transfer.playouts import GAMES, record

from api.service import Service, transfer
from ledger import NewEvent, SqliteLedger

ROOT = Path(__file__).resolve().parents[2]


def faulty_archive(tmp_path: Path) -> tuple[list[bytes], dict[str, str]]:
    """Two whole playouts of every game, then one match per fault: an illegal move and a schema
    break each under a sound chain (written past the service, straight into the ledger), an
    altered line (its chain breaks) and a damaged line. Returns the lines and the faulty ids."""
    source = Service(SqliteLedger(tmp_path / "source.db"))
    ids = [record(source, game, seed)["id"] for game in GAMES for seed in (1, 2)]
    faulty = {
        "rules": record(source, "cabo", 3, limit=30)["id"],
        "shape": record(source, "kabu", 3)["id"],
        "chain": record(source, "el-roby", 3)["id"],
        "damaged": record(source, "la-cabra", 3)["id"],
    }
    deal = next(e for e in source.ledger.read(faulty["rules"]) if e.type == "hand_started")
    source.ledger.append(faulty["rules"], [NewEvent("hand_started", dict(deal.data))], by="scorer")  # a deal mid-round
    source.ledger.append(faulty["shape"], [NewEvent("note", {"text": 5})], by="scorer")
    lines = list(transfer.all_lines(source, full=True))
    altered = next(
        i
        for i, line in enumerate(lines)
        if json.loads(line)["match"] == faulty["chain"] and json.loads(line)["type"] == "note"
    )
    envelope = json.loads(lines[altered])
    envelope["data"]["text"] += "!"
    lines[altered] = json.dumps(envelope).encode() + b"\n"
    damaged = max(i for i, line in enumerate(lines) if json.loads(line)["match"] == faulty["damaged"])
    lines[damaged] = lines[damaged][:40]
    assert len(ids) == 2 * len(GAMES)
    return [line.rstrip(b"\n") for line in lines], faulty


def python(*args: str) -> subprocess.CompletedProcess[str]:
    """Run this repository's Python in a process of its own (a test process may run threads: no fork there)."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def stored(db: Path) -> dict[str, list[dict[str, object]]]:
    with SqliteLedger(db) as book:
        return {m.id: [e.envelope() for e in book.read(m.id)] for m in book.list_matches(limit=1000)[0]}


def tokenless(report: dict[str, list[dict[str, object]]]) -> dict[str, list[dict[str, object]]]:
    return {key: [{k: v for k, v in item.items() if k != "token"} for item in items] for key, items in report.items()}


def test_workers_report_and_store_what_one_process_does(tmp_path: Path) -> None:
    lines, faulty = faulty_archive(tmp_path)
    archive = tmp_path / "club.jsonl"
    archive.write_bytes(b"\n".join(lines) + b"\n")

    here = transfer.import_archive(Service(SqliteLedger(tmp_path / "here.db")), lines, workers=0)
    run = python(
        "-m", "api.cli", "import", str(archive), "--db", str(tmp_path / "forked.db"), "--json", "--workers", "2"
    )
    assert "checking the rules in 2 worker processes" in run.stderr, run.stderr  # the workers did check
    forked = json.loads(run.stdout)

    assert tokenless(forked) == tokenless(here)
    assert stored(tmp_path / "forked.db") == stored(tmp_path / "here.db")
    by_match = {e["match"]: e for e in here["errors"]}
    assert by_match[faulty["rules"]]["code"] == "common.hand_in_progress"
    assert by_match[faulty["shape"]]["code"] == "schema.invalid"
    assert by_match[faulty["chain"]]["code"] == "import.chain_broken"
    assert by_match[faulty["damaged"]]["code"] == "archive.bad_json"
    assert len(here["imported"]) == 2 * len(GAMES)


def test_workers_check_a_match_already_stored_as_one_process_does(tmp_path: Path) -> None:
    """Matches stored already (identical, or with other events) are decided here, before any worker runs."""
    lines, _ = faulty_archive(tmp_path)
    archive = tmp_path / "club.jsonl"
    archive.write_bytes(b"\n".join(lines) + b"\n")
    for db in ("here.db", "forked.db"):
        service = Service(SqliteLedger(tmp_path / db))
        transfer.import_archive(service, lines[:200], workers=0)  # the first matches, one cut short
    here = transfer.import_archive(Service(SqliteLedger(tmp_path / "here.db")), lines, workers=0)
    run = python(
        "-m", "api.cli", "import", str(archive), "--db", str(tmp_path / "forked.db"), "--json", "--workers", "2"
    )
    assert "checking the rules in 2 worker processes" in run.stderr, run.stderr
    forked = json.loads(run.stdout)
    assert here["unchanged"] and any(e["code"] == "import.exists_different" for e in here["errors"])
    assert tokenless(forked) == tokenless(here)
    assert stored(tmp_path / "forked.db") == stored(tmp_path / "here.db")


def test_a_match_that_goes_on_further_down_is_decided_again_whole(tmp_path: Path) -> None:
    """Workers get each match once a piece of the file goes by without it; a match whose lines
    turn up again later (moved down the file, or a damaged line naming it) is decided again,
    whole, exactly as a reading of the whole file first decides it."""
    lines, _ = faulty_archive(tmp_path)
    ids = list(dict.fromkeys(json.loads(line)["match"] for line in lines if line.endswith(b"}")))
    moved, cut = ids[1], ids[3]
    tail = [line for line in lines if line.endswith(b"}") and json.loads(line)["match"] == moved][-3:]
    last_of_cut = max(i for i, line in enumerate(lines) if line.endswith(b"}") and json.loads(line)["match"] == cut)
    damaged = lines[last_of_cut][:60]
    interleaved = [line for line in lines if line not in tail] + tail + [damaged]
    archive = tmp_path / "interleaved.jsonl"
    archive.write_bytes(b"\n".join(interleaved) + b"\n")

    here = transfer.import_archive(Service(SqliteLedger(tmp_path / "here.db")), interleaved, workers=0)
    script = (
        "import json, sys\n"
        "from api.service import Service, transfer\n"
        "from ledger import SqliteLedger\n"
        "transfer.PIECE_LINES = 40\n"
        "lines = open(sys.argv[1], 'rb').read().splitlines()\n"
        "assert transfer.import_workers(2, len(lines)) == 2\n"
        "print(json.dumps(transfer.import_archive(Service(SqliteLedger(sys.argv[2])), lines, workers=2)))\n"
    )
    run = python("-c", script, str(archive), str(tmp_path / "forked.db"))
    assert run.returncode == 0, run.stderr
    forked = json.loads(run.stdout)
    assert tokenless(forked) == tokenless(here)
    assert stored(tmp_path / "forked.db") == stored(tmp_path / "here.db")
    assert moved in {m["id"] for m in here["imported"]}  # taken whole, its last lines included
    assert cut not in {m["id"] for m in here["imported"]} and any(e["match"] == cut for e in here["errors"])


def test_a_worker_that_dies_stops_the_import_with_a_message_not_a_hang(tmp_path: Path) -> None:
    """A worker killed mid-import (out of memory, a signal) ends ``tanteo import`` with one clear line."""
    lines, _ = faulty_archive(tmp_path)
    archive = tmp_path / "club.jsonl"
    archive.write_bytes(b"\n".join(lines) + b"\n")
    script = (
        "import os, sys\n"
        "from api.service import transfer\n"
        "def dying(task): os._exit(3)\n"
        "transfer._check_task = dying\n"
        "from api.cli import main\n"
        "main(['import', sys.argv[1], '--db', sys.argv[2], '--workers', '1'])\n"
    )
    run = python("-c", script, str(archive), str(tmp_path / "forked.db"))
    assert run.returncode == 1, run.stderr
    assert "error: a worker process checking the rules stopped before it answered" in run.stderr
    assert "Traceback" not in run.stderr
    assert stored(tmp_path / "forked.db") == {}


def test_no_workers_are_forked_beside_other_threads() -> None:
    """Forking beside another thread can copy a lock that thread holds: a web server's import is checked in-process."""
    assert transfer.import_workers(None, transfer.PARALLEL_FROM - 1) == 0
    assert transfer.import_workers(0, 10**6) == 0
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert transfer.import_workers(2, 10**6) == 0
        assert transfer.import_workers(None, 10**6) == 0
    finally:
        stop.set()
        other.join()
