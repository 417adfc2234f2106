"""The API suite runs on both backends: every test that takes ``app``, ``client``, ``scorer``
or ``db_path`` runs once on a SQLite file and once on the session's throwaway PostgreSQL
server (a schema of its own per test); ``TANTEO_TEST_DB=sqlite`` or ``=postgres`` runs one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

BACKENDS = {"sqlite": ("sqlite",), "postgres": ("postgres",)}.get(
    os.environ.get("TANTEO_TEST_DB", ""), ("sqlite", "postgres"))


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where the test's ledger lives: a SQLite file, or a PostgreSQL URL."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return tmp_path / "tanteo.db"
