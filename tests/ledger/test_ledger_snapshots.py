"""Stored snapshots, the same on every backend: opaque rows the ledger keeps beside the log."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.ledger.ledger_helpers import plays, start

from ledger import Ledger, MatchNotFound, Snapshot, SqliteLedger


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
