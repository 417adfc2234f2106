"""Acknowledged appends survive a crash of the real server process (kill -9)."""

from __future__ import annotations

import threading

from tests.server.conftest import Server

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
RESULT_HANDS = [
    ({"dealer": 3}, {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": 0}),
    ({"dealer": 0}, {"cardPoints": [61, 59], "tricks": [4, 3], "lastTrick": 1}),
]


def test_acknowledged_events_survive_kill_9(server: Server) -> None:
    status, created = server.call("POST", "/matches", START)
    assert status == 201
    auth = {"Authorization": f"Bearer {created['token']}"}
    acknowledged = 1
    for hand, result in RESULT_HANDS:
        status, body = server.call(
            "POST",
            f"/matches/{created['id']}/events",
            {"events": [{"type": "hand_started", "data": hand}, {"type": "hand_result", "data": result}]},
            auth,
        )
        assert status == 201
        acknowledged = body["version"]
    server.kill()
    server.start()
    status, summary = server.call("GET", f"/matches/{created['id']}")
    assert status == 200 and summary["version"] == acknowledged == 5
    assert [s["total"] for s in summary["standings"]] == [0, 2]
    status, audit = server.call("GET", f"/matches/{created['id']}/audit")
    assert audit["chain"]["valid"] is True and audit["chain"]["length"] == 5


def test_concurrent_writers_through_the_server_keep_one_contiguous_log(server: Server) -> None:
    status, created = server.call("POST", "/matches", START)
    auth = {"Authorization": f"Bearer {created['token']}"}
    outcomes: list[int] = []

    def write(i: int) -> None:
        code, _ = server.call(
            "POST",
            f"/matches/{created['id']}/events",
            {"events": [{"type": "note", "data": {"text": f"note {i}"}}], "expectedVersion": 1},
            auth,
        )
        outcomes.append(code)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == [201] + [409] * 7
    status, page = server.call("GET", f"/matches/{created['id']}/events")
    assert [e["seq"] for e in page["events"]] == [1, 2]
