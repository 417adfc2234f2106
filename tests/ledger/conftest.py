"""Fixtures for the ledger tests: one ledger per backend, a path for a SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger import Ledger, MemoryLedger, SqliteLedger

BACKENDS = ("sqlite", "memory")


@pytest.fixture(params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """A fresh ledger of each backend: a real SQLite file in tmp_path, and the memory one."""
    book: Ledger
    if request.param == "sqlite":
        book = SqliteLedger(tmp_path / "ledger.db")
    else:
        book = MemoryLedger()
    yield book
    book.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a SQLite ledger file for one test lives."""
    return tmp_path / "data" / "tanteo.db"
