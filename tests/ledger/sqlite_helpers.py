"""Helpers shared by tests (moved out of tests.ledger.test_ledger_sqlite, so that no test module imports another)."""

from __future__ import annotations
import sqlite3
from pathlib import Path
from ledger import (
    SqliteLedger,
)
from ledger.sqlite import TRIGGERS


def raw(path: Path) -> sqlite3.Connection:
    """A plain connection to the file, as a person with the sqlite3 shell would have."""
    return sqlite3.connect(path, isolation_level=None)


def statements(book: SqliteLedger) -> list[str]:
    """Collect the SQL the ledger's connection runs from now on (first word + table)."""
    seen: list[str] = []
    book._connection().set_trace_callback(lambda sql: seen.append(" ".join(sql.split()[:3])))
    return seen


def drop_edit_restore(path: Path, *statements: str, params: tuple[object, ...] = ()) -> None:
    """Edit the file the way a careful forger would: drop the guards, edit, put them back."""
    conn = raw(path)
    saved = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    for statement in statements:
        conn.execute(statement, params if "?" in statement else ())
    for (sql,) in saved:
        conn.execute(sql)
    conn.close()
