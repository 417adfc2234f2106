"""Helpers shared by tests (moved out of tests.server.test_stream_server, so that no test module imports another)."""

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
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            return  # the connection was dropped on purpose (http.client then fails in any of these ways)

    def next(self) -> tuple[int, dict[str, Any]]:
        return self.events.get(timeout=WAIT)

    def drop(self) -> None:
        """Cut the connection, as a phone losing its signal would."""
        if self.connection.sock is not None:
            self.connection.sock.shutdown(2)
        self.connection.close()


def record(server: Server, match_id: str, token: str, *events: dict[str, Any]) -> int:
    status, body = server.call(
        "POST", f"/matches/{match_id}/events", {"events": list(events)}, {"Authorization": f"Bearer {token}"}
    )
    assert status == 201, body
    return int(body["version"])
