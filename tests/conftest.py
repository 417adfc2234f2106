"""Shared fixtures: an app on a real SQLite file in a temporary directory (or, under
``TANTEO_TEST_DB=postgres``, on a throwaway PostgreSQL server), and its client."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from tests.plain_errors import plain_errors  # noqa: F401  (autouse: every error any test provokes reads as words)
from tests.postgres_server import MISSING, PostgresServer, find_bindir


os.environ.setdefault("TANTEO_CREATE_LIMIT", "100000 per minute")
"""The suite and its fuzzers start thousands of matches from one address (127.0.0.1), and every
``tanteo serve`` it starts inherits this: the limiter runs on every request, and never refuses.
tests/api/test_rate_limit.py sets the limit it tests."""

TEST_DB = os.environ.get("TANTEO_TEST_DB", "sqlite")
"""The backend of the API tests: ``sqlite`` (default) or ``postgres`` (``TANTEO_TEST_DB=postgres``
runs every test that takes ``db_path``/``app`` against a throwaway PostgreSQL server)."""


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server for the session; fails (never skips) without the binaries."""
    bindir = find_bindir()
    if bindir is None:
        pytest.fail(MISSING, pytrace=False)
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


VOCABULARY = Path(__file__).resolve().parents[1] / "docs" / "VOCABULARY.md"
"""The project's copy of the notation reference: the tests read it here, never outside the repository."""


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A postgresql:// URL of an empty schema of its own, for one test."""
    return postgres_server.new_url()


@pytest.fixture
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where the test's ledger lives: a SQLite file, or a PostgreSQL URL under TANTEO_TEST_DB=postgres."""
    if TEST_DB == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return tmp_path / "tanteo.db"


@pytest.fixture
def app(db_path: Path | str) -> Iterator[Flask]:
    app = create_app({"TANTEO_DB": str(db_path), "TESTING": True})
    yield app
    app.extensions["tanteo.ledgers"].close()


def stored_rows(db: Path | str | None) -> list[tuple[Any, ...]]:
    """Every stored event row (match, seq, type, data, at, by, key, prev, hash, fmt) in storage
    order, read straight from the database behind the ledger (SQLite file or PostgreSQL)."""
    assert db is not None
    columns = 'match_id, seq, type, data, at, "by", "key", prev, hash, fmt'
    if isinstance(db, str) and db.startswith("postgresql://"):
        with psycopg.connect(db) as conn:
            return [tuple(row) for row in conn.execute(f"SELECT {columns} FROM events ORDER BY id")]
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT {columns} FROM events ORDER BY id").fetchall()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Scorer:
    """A scorer at the table, talking to the API through the test client."""

    def __init__(self, client: FlaskClient, db: Path | str | None = None) -> None:
        self.client = client
        self.db = db
        """The database behind the app (SQLite file or PostgreSQL URL), to read stored rows directly."""
        self.id = ""
        self.token = ""

    def start(self, data: dict[str, Any]) -> dict[str, Any]:
        response = self.client.post("/matches", json=data)
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        self.id, self.token = body["id"], body["token"]
        return body

    def post(self, *events: dict[str, Any], **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.token}", **kwargs.pop("headers", {})}
        return self.client.post(f"/matches/{self.id}/events", json={"events": list(events), **kwargs}, headers=headers)

    def record(self, *events: dict[str, Any]) -> dict[str, Any]:
        response = self.post(*events)
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def get(self, path: str = "", **params: Any) -> Any:
        response = self.client.get(f"/matches/{self.id}{path}", query_string=params)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def read(self, path: str = "", **params: Any) -> Any:
        """Read as the scorer: with the write token, so private facts are shown while in play."""
        response = self.client.get(
            f"/matches/{self.id}{path}", query_string=params, headers={"Authorization": f"Bearer {self.token}"}
        )
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def raw_log(self) -> bytes:
        return self.client.get(f"/matches/{self.id}/events").data


@pytest.fixture
def scorer(client: FlaskClient, db_path: Path | str) -> Scorer:
    return Scorer(client, db_path)


class Clock:
    """The correction window's clock: real time plus an offset the test moves forward."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(timezone.utc) + self.offset


@pytest.fixture
def clock() -> Clock:
    return Clock()
