"""The live stream on a real ``tanteo serve`` (waitress): a reader follows while another client records.

A reader holds ``GET /matches/{id}/stream`` open and sees an event that another client
appends; it drops the connection, more events are recorded, and a new connection with
``Last-Event-ID`` gets exactly those, neither losing nor repeating one. Waits are bounded
(a stuck stream fails the test) but nothing is timed.
"""

from __future__ import annotations

from typing import Any

from tests.server.conftest import Server
from tests.server.streams import Reader, record


def take(seat: int) -> dict[str, Any]:
    return {"type": "take", "data": {"seat": seat}}


def test_a_reader_sees_another_clients_event_and_resumes_after_a_dropped_connection(server: Server) -> None:
    status, match = server.call("POST", "/matches", {"game": "kabu", "players": ["P1", "P2", "P3", "P4"]})
    assert status == 201
    match_id, token = match["id"], match["token"]
    record(server, match_id, token, {"type": "hand_started", "data": {"dealer": 3, "hands": [["??", "??"]] * 4}})

    reader = Reader(server, match_id)
    assert [reader.next()[0] for _ in range(2)] == [1, 2]
    record(server, match_id, token, take(0))
    seq, envelope = reader.next()  # appended by another client while the reader waits
    assert (seq, envelope["type"], envelope["data"]) == (3, "take", {"seat": 0})

    reader.drop()
    record(server, match_id, token, take(1))
    record(server, match_id, token, take(2), take(3))

    again = Reader(server, match_id, last_event_id=3)
    assert [again.next()[0] for _ in range(3)] == [4, 5, 6]
    record(server, match_id, token, take(0))
    assert again.next()[0] == 7  # the next one, not a repeat of 4, 5 or 6
    _, listed = server.call("GET", f"/matches/{match_id}/events")
    assert again.events.empty()
    again.drop()
    assert [e["seq"] for e in listed["events"]] == [1, 2, 3, 4, 5, 6, 7]
