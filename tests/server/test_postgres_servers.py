"""Two real ``tanteo serve`` processes on one PostgreSQL database, as behind a load balancer.

Eight writers alternate between the servers, each append sent with the expected version the
writer just read and an idempotency key, retried on 409 (someone else wrote first), 503 and
a dropped connection. Afterwards every acknowledged event is stored exactly once, seqs have
no gaps, the chain verifies, and both servers give the same answers; the same holds when
one server is killed with SIGKILL while the writers are busy.
"""

from __future__ import annotations

import http.client
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.server.conftest import Server

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
WRITERS = 8
NOTES_EACH = 6
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def servers(postgres_url: str) -> Iterator[list[Server]]:
    pair = [Server(postgres_url), Server(postgres_url)]  # type: ignore[arg-type]  # a URL, not a path
    try:
        for server in pair:
            server.start()
        yield pair
    finally:
        for server in pair:
            server.stop()


def call(
    server: Server, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """One request; a refused or dropped connection (a dead server) is status 0."""
    try:
        return server.call(method, path, body, headers)
    except (OSError, http.client.HTTPException):
        return 0, None


class Writers:
    """Eight scorers' devices recording notes through whichever server they reach."""

    def __init__(self, servers: list[Server], match_id: str, token: str) -> None:
        self.servers = servers
        self.match_id = match_id
        self.auth = {"Authorization": f"Bearer {token}"}
        self.acknowledged: dict[str, int] = {}  # note text -> the seq the server answered
        self.lock = threading.Lock()
        self.failures: list[str] = []

    def write(self, n: int) -> None:
        turn = n
        for i in range(NOTES_EACH):
            text = f"writer {n} note {i}"
            for _attempt in range(200):
                server = self.servers[turn % 2]
                turn += 1  # alternate between the servers on every try
                status, summary = call(server, "GET", f"/matches/{self.match_id}")
                if status != 200:
                    continue
                status, body = call(
                    server,
                    "POST",
                    f"/matches/{self.match_id}/events",
                    {"events": [{"type": "note", "data": {"text": text}}], "expectedVersion": summary["version"]},
                    {**self.auth, "Idempotency-Key": f"{n}-{i}"},
                )
                if status == 201:
                    with self.lock:
                        self.acknowledged[text] = body["version"]
                    break
                if status not in (0, 409, 503):
                    with self.lock:
                        self.failures.append(f"{text}: {status} {body}")
                    return
            else:
                with self.lock:
                    self.failures.append(f"{text}: never acknowledged")

    def run(self, during: Any = None) -> None:
        threads = [threading.Thread(target=self.write, args=(n,)) for n in range(WRITERS)]
        for thread in threads:
            thread.start()
        if during is not None:
            during()
        for thread in threads:
            thread.join()


def start_match(server: Server) -> tuple[str, str]:
    status, created = server.call("POST", "/matches", START)
    assert status == 201
    return created["id"], created["token"]


def check_one_log(servers: list[Server], match_id: str, writers: Writers, url: str) -> None:
    assert writers.failures == []
    assert len(writers.acknowledged) == WRITERS * NOTES_EACH
    logs = []
    for server in servers:
        status, page = server.call("GET", f"/matches/{match_id}/events?limit=1000")
        assert status == 200
        logs.append(page["events"])
    assert logs[0] == logs[1]  # both servers read the same log, hashes and all
    events = logs[0]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    notes = [e["data"]["text"] for e in events if e["type"] == "note"]
    assert sorted(notes) == sorted(writers.acknowledged)  # each acknowledged note stored once
    assert {e["data"]["text"]: e["seq"] for e in events if e["type"] == "note"} == writers.acknowledged
    summaries = [server.call("GET", f"/matches/{match_id}")[1] for server in servers]
    assert summaries[0] == summaries[1] and summaries[0]["version"] == len(events)
    for server in servers:
        status, audit = server.call("GET", f"/matches/{match_id}/audit")
        assert audit["chain"] == {**audit["chain"], "valid": True, "length": len(events)}
    verified = subprocess.run(
        [sys.executable, "-m", "api.cli", "verify", "--db", url], capture_output=True, text=True, cwd=ROOT
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "1 of 1 chains valid" in verified.stdout


def test_eight_writers_alternating_between_two_servers_keep_one_log(servers: list[Server], postgres_url: str) -> None:
    match_id, token = start_match(servers[0])
    # Both servers hold the match in their caches before the race: each must catch up
    # from the log with the other's appends, not answer from a stale state.
    for server in servers:
        assert server.call("GET", f"/matches/{match_id}/legal-moves")[0] == 200
    writers = Writers(servers, match_id, token)
    writers.run()
    check_one_log(servers, match_id, writers, postgres_url)
    # A deal recorded on one server is what the other one folds next.
    deal = {"type": "hand_started", "data": {"dealer": 3}}
    result = {"type": "hand_result", "data": {"cardPoints": [61, 59], "tricks": [4, 3], "lastTrick": 1}}
    status, _ = servers[0].call(
        "POST", f"/matches/{match_id}/events", {"events": [deal]}, {"Authorization": f"Bearer {token}"}
    )
    assert status == 201
    status, _ = servers[1].call(
        "POST", f"/matches/{match_id}/events", {"events": [result]}, {"Authorization": f"Bearer {token}"}
    )
    assert status == 201
    standings = [server.call("GET", f"/matches/{match_id}")[1]["standings"] for server in servers]
    assert standings[0] == standings[1] and [s["total"] for s in standings[0]] == [0, 2]


def test_kill_9_of_one_server_under_load_loses_no_acknowledged_event(servers: list[Server], postgres_url: str) -> None:
    match_id, token = start_match(servers[0])
    writers = Writers(servers, match_id, token)
    at_kill: list[int] = []

    def wait_for(acknowledged: int) -> None:
        """Poll a bounded number of times (up to ~30 s) for the writers to reach a count; no timing is asserted."""
        for _ in range(3000):
            if len(writers.acknowledged) >= acknowledged:
                return
            time.sleep(0.01)

    def crash_one() -> None:
        wait_for(WRITERS * NOTES_EACH // 4)
        at_kill.append(len(writers.acknowledged))
        servers[1].kill()  # SIGKILL in the middle of the writers' traffic
        wait_for(WRITERS * NOTES_EACH // 2)
        servers[1].start()

    writers.run(during=crash_one)
    assert 0 < at_kill[0] < WRITERS * NOTES_EACH  # the kill came while writers were busy
    check_one_log(servers, match_id, writers, postgres_url)


def test_a_live_stream_on_one_server_shows_what_is_recorded_through_the_other(servers: list[Server]) -> None:
    from tests.server.streams import Reader

    match_id, token = start_match(servers[0])
    reader = Reader(servers[1], match_id)
    assert reader.next()[0] == 1
    status, _ = servers[0].call(
        "POST",
        f"/matches/{match_id}/events",
        {"events": [{"type": "note", "data": {"text": "from the other server"}}]},
        {"Authorization": f"Bearer {token}"},
    )
    assert status == 201
    seq, envelope = reader.next()
    assert (seq, envelope["data"]) == (2, {"text": "from the other server"})
    reader.drop()
