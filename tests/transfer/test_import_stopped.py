"""An archive import stopped half-way (Ctrl-C, a full disk) still shows the tokens of what it stored.

An import writes a chunk of matches per transaction, so a stop leaves the matches of the
chunks already committed stored, each whole. Their new write tokens exist nowhere but in the
import's report (only their hashes are kept): a stop that did not print them left those
matches unwritable for good. Here the stop is real — a SIGINT the process sends itself right
after its first chunk is committed, a database that runs out of room after some chunks — and
the report must list exactly the stored matches, with tokens that open them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from api.app import create_app
from api.service import Service, transfer
from ledger import SqliteLedger
from tests.plain import machine_text
from tests.transfer.backups import fill

ROOT = Path(__file__).resolve().parents[2]


def archive(tmp_path: Path, matches: int) -> tuple[Path, dict[str, str]]:
    """An archive of ``matches`` small matches (4 events each) and their heads by id."""
    heads = fill(tmp_path / "club.db", matches)
    with SqliteLedger(tmp_path / "club.db") as book:
        lines = list(transfer.all_lines(Service(book), full=True))
    path = tmp_path / "club.jsonl"
    path.write_bytes(b"".join(lines))
    return path, heads


def stored_heads(db: Path) -> dict[str, str]:
    with SqliteLedger(db) as book:
        return {r.id: r.head for r in book.list_matches(limit=10_000)[0]}


def tokens_open(db: Path, tokens: dict[str, str]) -> bool:
    """Whether each printed token opens its match for writing (a rotation needs the current token)."""
    service = Service(SqliteLedger(db))
    try:
        return all(service.rotate_token(match, token)["token"] for match, token in tokens.items())
    finally:
        service.ledger.close()


CTRL_C_AFTER_FIRST_CHUNK = """
import os, signal, sys
from api.service import transfer
from ledger.sqlite import SqliteLedger

transfer.CHUNK_EVENTS = 8  # two of these matches per transaction
commit = SqliteLedger.import_matches

def commit_then_ctrl_c(self, items):
    result = commit(self, items)
    if not getattr(commit_then_ctrl_c, "sent", False):
        commit_then_ctrl_c.sent = True
        os.kill(os.getpid(), signal.SIGINT)  # the person presses Ctrl-C: the first chunk is stored
    return result

SqliteLedger.import_matches = commit_then_ctrl_c
from api.cli import main
main(["import", sys.argv[1], "--db", sys.argv[2], "--workers", "0"])
"""


def test_ctrl_c_during_an_import_prints_the_tokens_of_the_matches_stored_and_a_second_run_imports_the_rest(
    tmp_path: Path,
) -> None:
    path, heads = archive(tmp_path, 12)
    db = tmp_path / "restored.db"
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_AFTER_FIRST_CHUNK, str(path), str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 130, (run.stdout, run.stderr)  # stopped by Ctrl-C, as a shell counts it
    assert "Traceback" not in run.stderr and "Aborted" not in run.stderr
    said = run.stderr.strip().splitlines()[-1]
    assert said.startswith("error: the import stopped before the end of the file (stopped on request)"), said
    assert "importing the same file again imports the rest" in said and not machine_text(said)

    stored = stored_heads(db)
    assert 0 < len(stored) < len(heads)  # stopped between two chunks, each match whole
    assert all(heads[m] == head for m, head in stored.items())
    printed = dict(re.findall(r"^imported (\S+) .*, token (\S+)$", run.stdout, re.MULTILINE))
    assert printed.keys() == stored.keys()
    assert tokens_open(db, printed)

    again = subprocess.run(
        [sys.executable, "-m", "api.cli", "import", str(path), "--db", str(db), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert {m["id"] for m in report["unchanged"]} == stored.keys()
    assert {m["id"] for m in report["imported"]} == heads.keys() - stored.keys()
    assert stored_heads(db) == heads


def test_asked_to_stop_the_service_writes_nothing_more_and_reports_what_it_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = archive(tmp_path, 6)
    monkeypatch.setattr(transfer, "CHUNK_EVENTS", 8)  # two of these matches per transaction
    service = Service(SqliteLedger(tmp_path / "restored.db"))
    handled: list[int] = []
    try:
        transfer.import_archive(
            service, path.read_bytes().splitlines(), progress=handled.append, workers=0, stop=lambda: len(handled) >= 2
        )
    except transfer.ImportStopped as stopped:
        report, cause = stopped.report, stopped.cause
    else:
        raise AssertionError("the import did not stop")
    assert cause is None
    stored = stored_heads(tmp_path / "restored.db")
    assert len(stored) == 2 and {m["id"] for m in report["imported"]} == stored.keys()
    assert tokens_open(tmp_path / "restored.db", {m["id"]: m["token"] for m in report["imported"]})
    service.ledger.close()


def test_a_disk_that_fills_half_way_answers_503_with_the_matches_already_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, heads = archive(tmp_path, 40)
    monkeypatch.setattr(transfer, "CHUNK_EVENTS", 8)
    db = tmp_path / "restored.db"
    app = create_app({"TANTEO_DB": str(db), "TESTING": True})
    client = app.test_client()
    assert client.get("/matches").status_code == 200  # the file exists, its tables made
    connection = app.extensions["tanteo.ledgers"].get()._connection()
    (pages,) = connection.execute("PRAGMA page_count").fetchone()
    connection.execute(f"PRAGMA max_page_count = {pages + 12}")  # room for a few chunks, not for 40 matches
    response = client.post("/matches/import", data=path.read_bytes(), content_type="application/x-ndjson")
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "storage.full" and response.headers["Retry-After"] == "60"
    assert "the disk is full" in body["detail"] and "listed with their new write tokens" in body["detail"]
    stored = stored_heads(db)
    assert 0 < len(stored) < len(heads)
    assert {m["id"] for m in body["imported"]} == stored.keys()
    app.extensions["tanteo.ledgers"].close()
    assert tokens_open(db, {m["id"]: m["token"] for m in body["imported"]})


def club_text(tmp_path: Path, matches: int) -> Path:
    """A text file of ``matches`` small matches, as a club types its score sheets (one after another)."""
    fill(tmp_path / "typed.db", matches)
    with SqliteLedger(tmp_path / "typed.db") as book:
        service = Service(book)
        texts = [transfer.match_text(service, r.id, full=True) for r in book.list_matches(limit=10_000)[0]]
    path = tmp_path / "club.tnt"
    path.write_text("\n".join(texts))
    return path


CTRL_C_AFTER_TWO_TEXT_MATCHES = """
import os, signal, sys
from api.service import Service
from api.cli import main

start = Service.start_match

def start_then_ctrl_c(self, *args, **kwargs):
    started = start(self, *args, **kwargs)
    start_then_ctrl_c.count = getattr(start_then_ctrl_c, "count", 0) + 1
    if start_then_ctrl_c.count == 2:
        os.kill(os.getpid(), signal.SIGINT)  # the person presses Ctrl-C while the second match is written
    return started

Service.start_match = start_then_ctrl_c
main(["import", sys.argv[1], "--db", sys.argv[2]])
"""


def test_ctrl_c_during_a_text_import_prints_the_tokens_of_the_matches_it_wrote(tmp_path: Path) -> None:
    """A typed score-sheet file (``.tnt``) stops between two matches too, and says what it wrote:
    its matches have no ids in the file, so the tokens printed are the only way back into them."""
    path = club_text(tmp_path, 5)
    db = tmp_path / "restored.db"
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_AFTER_TWO_TEXT_MATCHES, str(path), str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 130, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "KeyboardInterrupt" not in run.stderr
    said = run.stderr.strip().splitlines()[-1]
    assert said.startswith("error: the import stopped before the end of the file (stopped on request)"), said
    assert "importing it again would import these again too" in said and not machine_text(said)
    stored = stored_heads(db)
    assert len(stored) == 2  # the match being written when asked is finished, no later one is started
    printed = dict(re.findall(r"^imported (\S+) .*, token (\S+)$", run.stdout, re.MULTILINE))
    assert printed.keys() == stored.keys() and tokens_open(db, printed)


def test_a_disk_that_fills_during_a_text_import_answers_503_with_every_match_started(tmp_path: Path) -> None:
    """A storage fault in the middle of a typed match still names it, with its token and the
    version it reached: the events before the fault are stored, the rest are not."""
    path = club_text(tmp_path, 30)
    db = tmp_path / "restored.db"
    app = create_app({"TANTEO_DB": str(db), "TESTING": True})
    client = app.test_client()
    assert client.get("/matches").status_code == 200
    connection = app.extensions["tanteo.ledgers"].get()._connection()
    (pages,) = connection.execute("PRAGMA page_count").fetchone()
    connection.execute(f"PRAGMA max_page_count = {pages + 12}")
    response = client.post("/matches/import", data=path.read_bytes(), content_type="text/plain; charset=utf-8")
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "storage.full" and "the disk is full" in body["detail"], body
    assert "a text file names no match" in body["detail"] and not machine_text(body["detail"])
    app.extensions["tanteo.ledgers"].close()
    with SqliteLedger(db) as book:
        versions = {r.id: r.version for r in book.list_matches(limit=10_000)[0]}
    assert 0 < len(versions) < 30
    assert {
        m["id"]: m["version"] for m in body["imported"]
    } == versions  # each started match, at the version it reached
    assert tokens_open(db, {m["id"]: m["token"] for m in body["imported"]})
