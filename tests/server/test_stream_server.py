"""The live stream on a real ``tanteo serve`` (waitress): a reader follows while another client records.

A reader holds ``GET /matches/{id}/stream`` open and sees an event that another client
appends; it drops the connection, more events are recorded, and a new connection with
``Last-Event-ID`` gets exactly those, neither losing nor repeating one. Waits are bounded
(a stuck stream fails the test) but nothing is timed.
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
from typing import Any
from urllib.parse import urlsplit

from tests.server.conftest import Server

WAIT = 15  # seconds: a bound on a wait, never an assertion about speed


class Reader:
    """An SSE client on a raw HTTP connection: a thread parses events into a queue."""

    def __init__(self, server: Server, match_id: str, last_event_id: int | None = None) -> None:
        url = urlsplit(server.url)
        self.connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=WAIT)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection.request("GET", f"/matches/{match_id}/stream", headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")
        self.events: queue.Queue[tuple[int, dict[str, Any]]] = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                text = line.decode("utf-8").rstrip("\r\n")
                if text == "":
                    if "data" in fields:
                        self.events.put((int(fields["id"]), json.loads(fields["data"])))
                    fields = {}
                elif not text.startswith(":"):
                    name, _, value = text.partition(": ")
                    fields[name] = value
        except (OSError, ValueError, http.client.HTTPException):
            return  # the connection was dropped on purpose

    def next(self) -> tuple[int, dict[str, Any]]:
        return self.events.get(timeout=WAIT)

    def drop(self) -> None:
        """Cut the connection, as a phone losing its signal would."""
        if self.connection.sock is not None:
            self.connection.sock.shutdown(2)
        self.connection.close()


def record(server: Server, match_id: str, token: str, *events: dict[str, Any]) -> int:
    status, body = server.call("POST", f"/matches/{match_id}/events", {"events": list(events)},
                               {"Authorization": f"Bearer {token}"})
    assert status == 201, body
    return int(body["version"])


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
