"""Shared fixtures: an app on a real SQLite file in a temporary directory, and its client."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from tests.plain_errors import plain_errors  # noqa: F401  (autouse: every error any test provokes reads as words)

VOCABULARY = Path(__file__).resolve().parents[1] / "docs" / "VOCABULARY.md"
"""The project's copy of the notation reference: the tests read it here, never outside the repository."""


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "tanteo.db"


@pytest.fixture
def app(db_path: Path) -> Iterator[Flask]:
    yield create_app({"TANTEO_DB": str(db_path), "TESTING": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


class Scorer:
    """A scorer at the table, talking to the API through the test client."""

    def __init__(self, client: FlaskClient, db: Path | None = None) -> None:
        self.client = client
        self.db = db
        """The SQLite file behind the app, to read stored rows directly."""
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
        response = self.client.get(f"/matches/{self.id}{path}", query_string=params,
                                   headers={"Authorization": f"Bearer {self.token}"})
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def raw_log(self) -> bytes:
        return self.client.get(f"/matches/{self.id}/events").data


@pytest.fixture
def scorer(client: FlaskClient, db_path: Path) -> Scorer:
    return Scorer(client, db_path)
