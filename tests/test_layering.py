"""Dependencies point one way (docs/DESIGN.md): checked by parsing every module's imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names)
FORBIDDEN_IN_ENGINES = {"random", "time", "datetime", "secrets", "sqlite3"}


def imports(package: str, root: Path = ROOT, *, whole: bool = False) -> list[tuple[Path, str]]:
    """Every module ``package`` imports: its top-level package, or its whole dotted name (``whole``)."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(path, alias.name if whole else alias.name.split(".")[0]) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append((path, node.module if whole else node.module.split(".")[0]))
    return found


def test_engines_import_only_the_standard_library_and_themselves() -> None:
    bad = [
        (p.name, m) for p, m in imports("engines") if m != "engines" and (m not in STDLIB or m in FORBIDDEN_IN_ENGINES)
    ]
    assert bad == []


def test_ledger_knows_no_game_and_no_http() -> None:
    bad = [
        (p.name, m) for p, m in imports("ledger") if m in {"engines", "api", "flask", "schemas", "replays", "werkzeug"}
    ]
    assert bad == []


LEDGER_DRIVERS = {"sqlite_utils", "orjson"}
POSTGRES_DRIVERS = {"psycopg", "psycopg_pool"}  # the PostgreSQL backend's alone


def test_ledger_imports_only_the_standard_library_and_its_drivers() -> None:
    """The ledger knows no game: the standard library, sqlite_utils and orjson (and, in
    postgres.py alone, psycopg and its pool)."""
    bad = [
        (p.name, m)
        for p, m in imports("ledger")
        if m not in STDLIB
        and m != "ledger"
        and m not in LEDGER_DRIVERS
        and not (p.name == "postgres.py" and m in POSTGRES_DRIVERS)
    ]
    assert bad == []


WORDS = {"engines.said", "engines.written"}
"""What a sentence is made of (a message id and its parts, a number as written): pure, game-free, the one way any
package says words a reader gets in their language."""


def test_schemas_know_no_game_rules_storage_or_http() -> None:
    bad = [
        (p.name, m)
        for p, m in imports("schemas", whole=True)
        if m.split(".")[0] in {"engines", "api", "flask", "ledger", "replays"} and m not in WORDS
    ]
    assert bad == []


def test_replays_use_engines_and_ledger_records_only() -> None:
    bad = [(p.name, m) for p, m in imports("replays") if m in {"api", "flask", "sqlite3", "sqlite_utils"}]
    assert bad == []


DATABASE_MODULES = {"sqlite3", "sqlite_utils", "psycopg", "psycopg_pool", "psycopg2"}


@pytest.mark.parametrize("package", ["engines", "schemas", "replays", "api"])
def test_only_the_ledger_touches_the_database(package: str) -> None:
    """SQLite and PostgreSQL drivers are imported in ledger/ alone: the service and the HTTP
    layer reach the database through the ledger's interface (and its typed errors)."""
    assert [(p.name, m) for p, m in imports(package) if m in DATABASE_MODULES] == []


@pytest.mark.parametrize("package", ["engines", "ledger", "schemas", "replays"])
def test_only_api_imports_flask(package: str) -> None:
    assert [
        (p.name, m) for p, m in imports(package) if m in {"flask", "flask_smorest", "werkzeug", "marshmallow"}
    ] == []


HTTP_MODULES = ("flask", "flask_smorest", "werkzeug", "marshmallow")


def http_modules_loaded_by(statement: str, *args: str) -> list[str]:
    """Run ``statement`` in a fresh interpreter; return the HTTP packages it loaded."""
    probe = (
        f"import sys\n{statement}\n"
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HTTP_MODULES!r}))))"
    )
    done = subprocess.run([sys.executable, "-c", probe, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(
    "statement",
    [
        "import api.service",
        "from api.service import Service, StateCache, AuthError, EventRefused, BadRequest, hash_token",
        # the command line's non-serve path: the service run straight on a database file
        "from click.testing import CliRunner\nfrom api.cli import main\nfrom ledger import SqliteLedger\n"
        "SqliteLedger(sys.argv[1]).close()  # a database with no match in it\n"
        "result = CliRunner().invoke(main, ['audit', 'nobody', '--db', sys.argv[1]])\n"
        "assert result.exit_code == 1 and 'nobody' in result.output, result.output",
    ],
)
def test_the_service_and_the_command_line_load_no_http_code(statement: str, tmp_path: Path) -> None:
    assert http_modules_loaded_by(statement, str(tmp_path / "t.db")) == []


def test_the_http_check_can_fail() -> None:
    """The probe sees Flask when something does load it (the app factory does)."""
    assert http_modules_loaded_by("import api.app") == sorted(HTTP_MODULES)


def test_the_layering_check_can_fail(tmp_path: Path) -> None:
    """The parser sees forbidden imports when there are some."""
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "bad.py").write_text(
        "import random\nfrom flask import Flask\nfrom engines import cards\n"
        "import psycopg.rows\nfrom sqlite_utils.db import Table\n"
    )
    assert [m for _, m in imports("engines", tmp_path)] == ["random", "flask", "engines", "psycopg", "sqlite_utils"]


DISCLOSURE_WRITING = {"OptionsOf", "private_paths"}
"""What the writing side may take from api/service/disclosure.py: an event's private places, which
the ledger commits to when it appends (no read is decided there)."""


def _names_from(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == module:
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Import) and any(alias.name == module for alias in node.names):
            found.add("*")
    return found


def test_one_reader_decides_what_a_reader_may_see() -> None:
    """Only api/service/reader.py reads the disclosure code (the writing side takes the private
    places it commits to), and nothing outside it and the disclosure module redacts a stored
    event itself: every read of a match goes through the one Reader."""
    bad = []
    for package in ("api", "replays", "engines", "ledger", "schemas", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative in ("api/service/reader.py", "api/service/disclosure.py"):
                continue
            taken = _names_from(path, "api.service.disclosure")
            if taken - DISCLOSURE_WRITING:
                bad.append((relative, sorted(taken - DISCLOSURE_WRITING)))
            text = path.read_text()
            for redaction in ("public_data(", "committed_data(", "unknown_form(", ".envelope()"):
                if redaction in text and not relative.startswith("ledger/") and relative != "engines/privacy.py":
                    bad.append((relative, redaction))
    assert bad == [], f"disclosure decided outside the one reader: {bad}"


def _module_graph() -> dict[str, set[str]]:
    """Each module of the packages and the modules of the packages it imports (anywhere in it,
    functions included; not under ``if TYPE_CHECKING:``, which only the type checker reads)."""
    packages = ("api", "engines", "ledger", "replays", "schemas", "bench")
    paths = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        typing_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        edges: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names if alias.name in paths}
            elif isinstance(node, ast.ImportFrom):
                module = (
                    ".".join(base[: len(base) - node.level + 1] + [node.module or ""]).strip(".")
                    if node.level
                    else node.module or ""
                )
                for alias in node.names:
                    target = f"{module}.{alias.name}"
                    edges.add(target if target in paths else module)
        graph[name] = {e for e in edges if e in paths and e != name}
    return graph


def test_the_import_graph_has_no_circle() -> None:
    """A module never imports, directly or through others, a module that imports it (a package's
    ``__init__`` importing its own modules is the package's face, not a circle)."""
    graph = _module_graph()
    circles: list[list[str]] = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            circles.append(path[path.index(name) :] + [name])
            return
        if name in done:
            return
        for other in sorted(graph[name]):
            visit(other, path + [name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert circles == [], circles


def test_no_test_module_is_imported_by_another() -> None:
    """Helpers shared by tests live in helper modules (``tests/engines/drivers.py``,
    ``tests/api/open_reads.py`` …): a test module is collected once, by pytest, and imports none."""
    bad = []
    for path in sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "bench").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            bad += [(path.relative_to(ROOT).as_posix(), n) for n in names if n.split(".")[-1].startswith("test_")]
    assert bad == []
