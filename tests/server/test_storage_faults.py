"""Storage faults over HTTP: 503 problem+json with ``Retry-After``, the log exactly as it was.

The faults are real (``tests/ledger/faults.py``): a full tmpfs, a read-only bind mount, a
second connection holding the write lock. The app runs in-process on a real SQLite file,
except for the last test, which serves a read-only file with a real ``tanteo serve``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from flask import Flask
from tests.api.la_cabra_deals import DEAL_1, START
from tests.conftest import Scorer
from tests.ledger.faults import fill, free, lock_held, read_only_view, rows, small_disk, writes_fail_past
from tests.server.conftest import Server

from api.app import create_app

NOTES = [
    {"type": "note", "data": {"text": f"{i} " + "a comment from the table " * 12}} for i in range(40)
]  # ~12 KB: new pages


def assert_unavailable(response: Any, code: str) -> dict[str, Any]:
    assert response.status_code == 503, response.get_json()
    assert response.mimetype == "application/problem+json"
    assert int(response.headers["Retry-After"]) > 0
    body = response.get_json()
    assert body["code"] == code and body["status"] == 503
    assert "nothing" in body["detail"]  # said to a person: what happened to their write
    return body


def scorer_on(app: Flask, db: Path) -> Scorer:
    scorer = Scorer(app.test_client(), db)
    scorer.start(START)
    scorer.record(*DEAL_1[:3])
    return scorer


def test_a_full_disk_answers_503_and_records_nothing(tmp_path: Path) -> None:
    directory = tmp_path / "small"
    with small_disk(directory) as mounted:
        db = directory / "tanteo.db"
        app = create_app({"TANTEO_DB": str(db), "TESTING": True})
        scorer = scorer_on(app, db)
        before = rows(db)
        connection = lambda: app.extensions["tanteo.ledgers"].get()._connection()  # noqa: E731
        fill(directory, mounted, connection)
        response = scorer.post(*NOTES, headers={"Idempotency-Key": "notes-1"})
        body = assert_unavailable(response, "storage.full")
        assert "disk is full" in body["detail"]
        assert response.headers["Retry-After"] == "60"
        assert rows(db) == before
        assert scorer.get()["version"] == 4  # reading still works
        free(directory, mounted, connection)
        assert scorer.post(*NOTES, headers={"Idempotency-Key": "notes-1"}).status_code == 201
        assert scorer.get("/audit")["chain"]["valid"]
        app.extensions["tanteo.ledgers"].close()


def test_a_held_lock_answers_503_busy_after_the_timeout(tmp_path: Path) -> None:
    db = tmp_path / "tanteo.db"
    app = create_app({"TANTEO_DB": str(db), "TESTING": True, "TANTEO_BUSY_TIMEOUT": 0.05})
    scorer = scorer_on(app, db)
    before = rows(db)
    with lock_held(db):
        response = scorer.post(DEAL_1[3], headers={"Idempotency-Key": "move-4"})
        assert_unavailable(response, "storage.busy")
        assert response.headers["Retry-After"] == "1"
        assert scorer.get()["version"] == 4
    assert rows(db) == before
    assert scorer.post(DEAL_1[3], headers={"Idempotency-Key": "move-4"}).status_code == 201
    app.extensions["tanteo.ledgers"].close()


def test_an_io_error_answers_503_and_says_to_check_before_retrying(tmp_path: Path) -> None:
    db = tmp_path / "tanteo.db"
    app = create_app({"TANTEO_DB": str(db), "TESTING": True})
    scorer = scorer_on(app, db)
    before = rows(db)
    with writes_fail_past(Path(f"{db}-wal")):
        response = scorer.post(DEAL_1[3], headers={"Idempotency-Key": "move-4"})
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "storage.io" and response.headers["Retry-After"] == "30"
    assert "reload the match" in body["detail"] and "Idempotency-Key" in body["detail"]
    assert rows(db) == before
    assert scorer.post(DEAL_1[3], headers={"Idempotency-Key": "move-4"}).status_code == 201
    app.extensions["tanteo.ledgers"].close()


def test_a_read_only_database_serves_reads_and_answers_writes_503(tmp_path: Path) -> None:
    directory = tmp_path / "data"
    directory.mkdir()
    writer = create_app({"TANTEO_DB": str(directory / "tanteo.db"), "TESTING": True})
    scorer = scorer_on(writer, directory / "tanteo.db")
    expected = {path: scorer.get(path) for path in ("", "/events", "/replay", "/audit")}
    writer.extensions["tanteo.ledgers"].close()
    before = rows(directory / "tanteo.db")
    with read_only_view(directory) as (view, how):
        app = create_app(
            {"TANTEO_DB": str(view / "tanteo.db"), "TESTING": True, "TANTEO_READ_ONLY": how == "open-read-only"}
        )
        reader = Scorer(app.test_client())
        reader.id, reader.token = scorer.id, scorer.token
        for path, body in expected.items():
            assert reader.get(path) == body
        assert app.test_client().get("/matches").get_json()["items"][0]["id"] == scorer.id
        body = assert_unavailable(reader.post(DEAL_1[3]), "storage.read_only")
        assert "reading matches still works" in body["detail"]
        assert_unavailable(app.test_client().post("/matches", json=START), "storage.read_only")
        app.extensions["tanteo.ledgers"].close()
    assert rows(directory / "tanteo.db") == before


def _request(
    method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Mapping[str, str], Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, json.loads(response.read())  # any case of a name
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read())


def test_tanteo_serve_on_a_read_only_file(tmp_path: Path) -> None:
    """A real server whose database sits on a read-only file system (or is served --read-only)."""
    directory = tmp_path / "data"
    directory.mkdir()
    first = Server(directory / "tanteo.db")
    first.start()
    try:
        status, created = first.call("POST", "/matches", START)
        assert status == 201
    finally:
        first.stop()
    before = rows(directory / "tanteo.db")
    with read_only_view(directory) as (view, how):
        server = Server(view / "tanteo.db", ["--read-only"] if how == "open-read-only" else [])
        server.start()
        try:
            assert server.call("GET", f"/matches/{created['id']}")[0] == 200
            status, headers, body = _request(
                "POST",
                f"{server.url}/matches/{created['id']}/events",
                {"events": DEAL_1[:1]},
                {"Authorization": f"Bearer {created['token']}"},
            )
            assert (status, body["code"], headers["Content-Type"]) == (
                503,
                "storage.read_only",
                "application/problem+json",
            )
            assert headers["Retry-After"] == "300"
        finally:
            server.stop()
    assert rows(directory / "tanteo.db") == before
