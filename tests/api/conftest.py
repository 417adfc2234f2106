"""The API suite runs on both backends: every test that takes ``app``, ``client``, ``scorer``
or ``db_path`` runs once on a SQLite file and once on the session's throwaway PostgreSQL
server (a schema of its own per test); ``TANTEO_TEST_DB=sqlite`` or ``=postgres`` runs one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engines import la_cabra
from engines.base import Event

BACKENDS = {"sqlite": ("sqlite",), "postgres": ("postgres",)}.get(
    os.environ.get("TANTEO_TEST_DB", ""), ("sqlite", "postgres")
)


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where the test's ledger lives: a SQLite file, or a PostgreSQL URL."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return tmp_path / "tanteo.db"


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Count the events La Cabra's ``apply`` folds (a counting hook around the real function)."""
    count = [0]
    real = la_cabra.apply

    def counting(state: Any, event: Event) -> Any:
        count[0] += 1
        return real(state, event)

    monkeypatch.setattr(la_cabra, "apply", counting)
    yield count
