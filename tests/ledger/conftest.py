"""Fixtures for the ledger tests: one ledger per backend (a SQLite file, memory, a schema of
the session's throwaway PostgreSQL server), a path for a SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger import Ledger, MemoryLedger, SqliteLedger
from ledger.postgres import PostgresLedger

BACKENDS = ("sqlite", "memory", "postgres")


@pytest.fixture(params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """A fresh ledger of each backend: a real SQLite file in tmp_path, the memory one, and a
    PostgreSQL schema of its own."""
    book: Ledger
    if request.param == "sqlite":
        book = SqliteLedger(tmp_path / "ledger.db")
    elif request.param == "postgres":
        book = PostgresLedger(request.getfixturevalue("postgres_url"))
    else:
        book = MemoryLedger()
    yield book
    book.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a SQLite ledger file for one test lives."""
    return tmp_path / "data" / "tanteo.db"
