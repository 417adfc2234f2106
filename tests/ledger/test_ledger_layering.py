"""The ledger knows no game: it imports the standard library, sqlite_utils and orjson only
(and the PostgreSQL backend, alone, psycopg and its pool)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LEDGER = Path(__file__).resolve().parents[2] / "ledger"
ALLOWED = {"sqlite_utils", "orjson"}
ALLOWED_IN = {"postgres.py": {"psycopg", "psycopg_pool"}}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_ledger_imports_only_stdlib_sqlite_utils_and_orjson() -> None:
    files = sorted(LEDGER.glob("*.py"))
    assert files, LEDGER
    for path in files:
        foreign = {
            root for root in imported_roots(path)
            if root not in sys.stdlib_module_names and root not in ALLOWED | ALLOWED_IN.get(path.name, set())
            and root != "ledger"
        }
        assert not foreign, f"{path.name} imports {sorted(foreign)}"


def test_the_checker_would_notice(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import engines.cabo\nfrom flask import g\nfrom . import records\n")
    assert imported_roots(sample) == {"engines", "flask"}
