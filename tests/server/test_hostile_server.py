"""Hostile input through a real server (waitress): a chunked body has no Content-Length to refuse
up front, so the limit must hold while the app reads it; and issue 26's inputs that were 500s
answer 4xx problems, on SQLite and on PostgreSQL."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Iterator

import pytest

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
        connection.request(
            "POST",
            path,
            body=chunks(),
            encode_chunked=True,
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {created['token']}",
                "Transfer-Encoding": "chunked",
            },
        )
        response = connection.getresponse()
        body = json.loads(response.read())
    finally:
        connection.close()
    assert response.status == 413 and response.getheader("Content-Type") == "application/problem+json"
    assert body["code"] == "request.too_large"
    assert body["detail"] == "the body is larger than this server accepts (1,048,576 bytes at most)"  # read no further
    assert server.call("GET", path) == before


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """``tanteo serve`` on a SQLite file, or on the session's throwaway PostgreSQL server."""
    db = request.getfixturevalue("postgres_url") if request.param == "postgres" else tmp_path / "served.db"
    srv = Server(db)  # type: ignore[arg-type]  # a URL is a database too
    srv.start()
    yield srv
    srv.stop()


def send(
    server: Server, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str, dict[str, object]]:
    """One raw request (bytes and headers exactly as given): the status, media type and JSON body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        data = response.read()
        return response.status, response.getheader("Content-Type") or "", json.loads(data) if data else {}
    finally:
        connection.close()


def test_issue_26_inputs_are_4xx_problems_not_500s(served: Server) -> None:
    status, created = served.call("POST", "/matches", START)
    assert status == 201
    match = created["id"]
    cases = [
        ("GET", f"/matches/{match}/state?seat=%C2%B2", None, {}, "request.bad_seat"),
        ("GET", f"/matches/{match}/replay?seat=%C2%B9", None, {}, "request.bad_seat"),
        ("GET", f"/matches/{match}/stream", None, {"Last-Event-ID": str(2**64)}, "request.bad_last_event_id"),
        ("GET", f"/matches/{match}/stream", None, {"Last-Event-ID": "9" * 5000}, "request.bad_last_event_id"),
        ("GET", f"/matches/{match}/stream?lastEventId={2**63}", None, {}, "request.invalid"),
        ("GET", "/rules/" + "r" * 300, None, {}, "route.not_found"),
        ("POST", "/qr", b"[" * 50_000 + b"]" * 50_000, {}, "route.not_found"),  # the QR is drawn in the browser
        ("GET", f"/matches/{match[:3]}%00{match[3:]}", None, {}, "request.nul_character"),
        ("GET", f"/m/{match}%00/sheet", None, {}, "request.nul_character"),
        ("GET", "/matches?player=North%00", None, {}, "request.nul_character"),
        ("GET", "/matches.csv?tag=a%00", None, {}, "request.nul_character"),
        (
            "POST",
            "/matches",
            json.dumps({**START, "players": ["A\x00B", "B", "C", "D"]}).encode(),
            {},
            "request.nul_character",
        ),
    ]
    for method, path, body, headers, code in cases:
        status, media, problem = send(served, method, path, body, headers)
        assert 400 <= status < 500 and media == "application/problem+json", (path[:60], status)
        assert problem["code"] == code, (path[:60], problem)
    assert served.call("GET", "/matches")[1]["total"] == 1
