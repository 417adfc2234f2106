"""Dependencies point one way (DESIGN.md): checked by parsing every module's imports."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)
FORBIDDEN_IN_ENGINES = {"random", "time", "datetime", "secrets", "sqlite3"}


def imports(package: str, root: Path = ROOT) -> list[tuple[Path, str]]:
    found = []
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(path, alias.name.split(".")[0]) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append((path, node.module.split(".")[0]))
    return found


def test_engines_import_only_the_standard_library_and_themselves() -> None:
    bad = [(p.name, m) for p, m in imports("engines")
           if m != "engines" and (m not in STDLIB or m in FORBIDDEN_IN_ENGINES)]
    assert bad == []


def test_ledger_knows_no_game_and_no_http() -> None:
    bad = [(p.name, m) for p, m in imports("ledger") if m in {"engines", "api", "flask", "schemas", "replays", "werkzeug"}]
    assert bad == []


def test_schemas_know_no_game_rules_storage_or_http() -> None:
    bad = [(p.name, m) for p, m in imports("schemas") if m in {"engines", "api", "flask", "ledger", "replays"}]
    assert bad == []


def test_replays_use_engines_and_ledger_records_only() -> None:
    bad = [(p.name, m) for p, m in imports("replays") if m in {"api", "flask", "sqlite3", "sqlite_utils"}]
    assert bad == []


@pytest.mark.parametrize("package", ["engines", "ledger", "schemas", "replays"])
def test_only_api_imports_flask(package: str) -> None:
    assert [(p.name, m) for p, m in imports(package) if m in {"flask", "flask_smorest", "werkzeug", "marshmallow"}] == []


def test_service_module_is_flask_free() -> None:
    tree = ast.parse((ROOT / "api" / "service.py").read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not names & {"flask", "flask_smorest", "werkzeug", "marshmallow"}


def test_the_layering_check_can_fail(tmp_path: Path) -> None:
    """The parser sees forbidden imports when there are some."""
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "bad.py").write_text("import random\nfrom flask import Flask\nfrom engines import cards\n")
    assert [m for _, m in imports("engines", tmp_path)] == ["random", "flask", "engines"]
