"""Helpers shared by tests (moved out of tests.api.test_errors, so that no test module imports another)."""

from __future__ import annotations
from pathlib import Path
from typing import Any
from tests.conftest import Scorer, stored_rows


START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}


DEAL = {
    "type": "hand_started",
    "data": {
        "dealer": 3,
        "trump": "QS",
        "hands": [
            ["6C", "8H", "9H", "6D"],
            ["6S", "8S", "9S", "JH"],
            ["7D", "8D", "KD", "AD"],
            ["??", "??", "??", "??"],
        ],
    },
}


def stored(db: Path | str | None) -> list[tuple[Any, ...]]:
    """Every stored event row, read straight from the database (SQLite file or PostgreSQL)."""
    return stored_rows(db)


def unchanged(scorer: Scorer, before: tuple[bytes, list[tuple[Any, ...]]]) -> None:
    assert (scorer.raw_log(), stored(scorer.db)) == before


def snapshot(scorer: Scorer) -> tuple[bytes, list[tuple[Any, ...]]]:
    return scorer.raw_log(), stored(scorer.db)


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["code"] == code and body["detail"]
    return body
