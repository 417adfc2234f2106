"""Body limits through a real server (waitress): a chunked body has no Content-Length to refuse
up front, so the limit must hold while the app reads it."""

from __future__ import annotations

import http.client
import json
from typing import Iterator

from tests.server.conftest import Server

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}


def test_chunked_body_over_the_limit_is_413_and_nothing_is_written(server: Server) -> None:
    status, created = server.call("POST", "/matches", START)
    assert status == 201
    path = f"/matches/{created['id']}/events"
    before = server.call("GET", path)

    def chunks() -> Iterator[bytes]:
        yield b'{"events": [{"type": "note", "data": {"text": "'
        for _ in range(300):  # 1.2 MB in all
            yield b"x" * 4096
        yield b'"}}]}'

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("POST", path, body=chunks(), encode_chunked=True,
                           headers={"Content-Type": "application/json", "Authorization": f"Bearer {created['token']}",
                                    "Transfer-Encoding": "chunked"})
        response = connection.getresponse()
        body = json.loads(response.read())
    finally:
        connection.close()
    assert response.status == 413 and response.getheader("Content-Type") == "application/problem+json"
    assert body["code"] == "request.too_large"
    assert server.call("GET", path) == before
