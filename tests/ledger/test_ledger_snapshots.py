"""Stored snapshots, the same on every backend: opaque rows the ledger keeps beside the log."""

from __future__ import annotations

import sqlite3
from dataclasses import astuple
from pathlib import Path

import pytest
from tests.ledger.ledger_helpers import plays, start

from ledger import Ledger, MatchNotFound, Snapshot, SqliteLedger
from ledger.sqlite import _SQL_SNAPSHOT_GET


def snap(seq: int, state: str = '{"x": 1}', match_id: str = "m1") -> Snapshot:
    return Snapshot(match_id, seq, f"head{seq}", "rules-1", state, f"digest{seq}")


def test_the_newest_snapshot_at_or_before_a_seq_comes_back_as_stored(ledger: Ledger) -> None:
    start(ledger)
    assert ledger.snapshot("m1") is None
    ledger.put_snapshot(snap(1))
    ledger.put_snapshot(snap(5, '{"x": [5, "é"]}'))
    assert ledger.snapshot("m1") == snap(5, '{"x": [5, "é"]}')
    assert ledger.snapshot("m1", upto=4) == snap(1)
    assert ledger.snapshot("m1", upto=0) is None


def test_a_snapshot_at_the_same_seq_replaces_the_old_one(ledger: Ledger) -> None:
    start(ledger)
    ledger.put_snapshot(snap(1, '"old"'))
    ledger.put_snapshot(snap(1, '"new"'))
    assert ledger.snapshot("m1") == snap(1, '"new"')


def test_snapshots_of_another_or_no_match(ledger: Ledger) -> None:
    start(ledger)
    with pytest.raises(MatchNotFound):
        ledger.put_snapshot(snap(1, match_id="nope"))
    assert ledger.snapshot("nope") is None


def test_snapshots_survive_reopening_the_file(tmp_path: Path) -> None:
    with SqliteLedger(tmp_path / "t.db") as book:
        start(book)
        book.append("m1", plays("AS", "KS", "QS"), by="anna")
        book.put_snapshot(snap(4))
    with SqliteLedger(tmp_path / "t.db") as book:
        assert book.snapshot("m1") == snap(4)


def test_snapshots_are_found_through_a_small_index_not_by_reading_stored_states(tmp_path: Path) -> None:
    """A look-up must not compare its key with whole stored states (a ``WITHOUT ROWID`` table of
    big rows reads each row it compares with, overflow pages and all): the rows live in a rowid
    table, found through the (match, seq) index."""
    with SqliteLedger(tmp_path / "t.db") as book:
        start(book)
        book.put_snapshot(snap(1, '"' + "x" * 100_000 + '"'))
    conn = sqlite3.connect(tmp_path / "t.db")
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'snapshots'").fetchone()
    assert "WITHOUT ROWID" not in sql.upper()
    plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + _SQL_SNAPSHOT_GET, ("m1", 9)))
    assert "USING INDEX" in plan and "(match_id=? AND seq<?)" in plan, plan
    conn.close()


def test_snapshots_stored_in_the_old_table_are_kept_by_the_migration(tmp_path: Path) -> None:
    """A file whose snapshots table is the first one (``WITHOUT ROWID``) keeps its rows when opened."""
    with SqliteLedger(tmp_path / "t.db") as book:
        start(book)
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    conn.execute("DROP TABLE snapshots")
    conn.execute(
        "CREATE TABLE snapshots (match_id TEXT NOT NULL REFERENCES matches (id), seq INTEGER NOT NULL, "
        "head TEXT NOT NULL, rules TEXT NOT NULL, state TEXT NOT NULL, digest TEXT NOT NULL, "
        "PRIMARY KEY (match_id, seq)) STRICT, WITHOUT ROWID"
    )
    conn.executemany("INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?)", [astuple(snap(1)), astuple(snap(7, '"seven"'))])
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_snapshots_by_rowid'")
    conn.close()
    with SqliteLedger(tmp_path / "t.db") as book:
        assert book.snapshot("m1") == snap(7, '"seven"')
        assert book.snapshot("m1", upto=6) == snap(1)
        book.put_snapshot(snap(7, '"again"'))  # same seq: replaced, not a second row
        assert book.snapshot("m1") == snap(7, '"again"')
