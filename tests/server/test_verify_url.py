"""``tanteo verify --url`` against a real ``tanteo serve``: the open listing alone proves the chain.

A Cabo match is recorded over HTTP; while it is in play the listing hides every peek, look
and spy behind its commitment, and the command still recomputes the chain to the head the
server reports; after the match (values and salts shown) it checks each value against its
commitment too. Offline, ``tanteo verify --db`` checks the same file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.api.cabo_logs import vocabulary_log
from tests.server.conftest import Server

ROOT = Path(__file__).resolve().parents[2]


def tanteo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_verify_url_during_play_and_after(server: Server) -> None:
    log = vocabulary_log()
    status, created = server.call("POST", "/matches", {**log[0]["data"], "initial": {"totals": [80, 93, 85, 40]}})
    assert status == 201
    match, auth = created["id"], {"Authorization": f"Bearer {created['token']}"}
    events = [e for e in log[1:] if e["type"] != "score_claimed"]
    status, body = server.call("POST", f"/matches/{match}/events", {"events": events[:18]}, auth)  # up to the CABO call
    assert status == 201, body
    _, listing = server.call("GET", f"/matches/{match}/events")
    peek = next(e for e in listing["events"] if e["type"] == "peek")
    assert peek["data"]["value"]["private"] is True  # Dora's peek, hidden
    run = tanteo("verify", "--url", server.url, match)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"head {body['head']}" in run.stdout and "valid" in run.stdout

    status, body = server.call("POST", f"/matches/{match}/events", {"events": events[18:]}, auth)
    assert status == 201, body
    _, summary = server.call("GET", f"/matches/{match}")
    assert summary["status"] == "over"
    _, listing = server.call("GET", f"/matches/{match}/events")
    peek = next(e for e in listing["events"] if e["type"] == "peek")
    assert peek["data"]["value"] == "1" and peek["private"][0]["salt"]
    run = tanteo("verify", "--url", server.url, match)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(rf"{match}: valid, 25 events, head {body['head']}", run.stdout)

    run = tanteo("verify", "--url", server.url, "no-such-match")
    assert run.returncode == 1 and "404" in run.stderr
    server.stop()
    run = tanteo("verify", "--db", str(server.db), match)
    assert run.returncode == 0 and "valid, 25 events" in run.stdout, run.stdout + run.stderr


def test_verify_url_catches_a_server_that_changed_a_value(server: Server) -> None:
    """A server whose listing lies: the file is edited behind its back (a value changed, the hash kept)."""
    import sqlite3

    from ledger.sqlite import TRIGGERS

    log = vocabulary_log()
    _, created = server.call("POST", "/matches", log[0]["data"])
    match, auth = created["id"], {"Authorization": f"Bearer {created['token']}"}
    status, _ = server.call("POST", f"/matches/{match}/events", {"events": log[1:20]}, auth)
    assert status == 201
    server.stop()
    conn = sqlite3.connect(server.db, isolation_level=None)
    saved = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    (data,) = conn.execute("SELECT data FROM events WHERE match_id = ? AND seq = 9", (match,)).fetchone()
    conn.execute(
        "UPDATE events SET data = ? WHERE match_id = ? AND seq = 9",
        (json.dumps({**json.loads(data), "value": "2"}, separators=(",", ":"), sort_keys=True), match),
    )
    for (sql,) in saved:
        conn.execute(sql)
    conn.close()
    server.start()
    run = tanteo("verify", "--url", server.url, match)  # in play: the commitment no longer matches the hash
    assert run.returncode == 2 and "BROKEN at event 9" in run.stdout, (
        run.stdout + run.stderr
    )  # found broken, as offline
    server.stop()
    offline = tanteo("verify", "--db", str(server.db), match)
    assert offline.returncode == 2 and "BROKEN at event 9" in offline.stdout, offline.stdout + offline.stderr
