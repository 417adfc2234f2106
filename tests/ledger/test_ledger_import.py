"""The ledger's import path, on every backend: a match recreated from events given whole.

Restoring an archive must give back the same ids, seqs, times, recorders, keys and hashes;
a chain that does not recompute, a taken id or a refusing check writes nothing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.ledger.ledger_helpers import plays, start

from ledger import ChainBroken, Ledger, MatchExists, MemoryLedger, NewEvent, SqliteLedger, StoredEvent


def source_log(tmp_path: Path) -> list[StoredEvent]:
    """A match written the ordinary way in its own ledger: two batches, one with a key."""
    with SqliteLedger(tmp_path / "source.db") as book:
        start(book, "m1", by="anna")
        book.append("m1", plays("1", "2"), by="ben", key="k-1")
        book.append("m1", plays("3"), by="")
        return book.read("m1")


def restore(book: Ledger, events: list[StoredEvent], **kw: object) -> object:
    return book.import_match("m1", game="cabo", players=("Anna", "Ben", "Carl"), token_hash="t2", events=events, **kw)  # type: ignore[arg-type]


def test_import_reproduces_every_field_and_the_head(ledger: Ledger, tmp_path: Path) -> None:
    events = source_log(tmp_path)
    result = restore(ledger, events)
    assert result.version == 4 and result.head == events[-1].hash  # type: ignore[attr-defined]
    assert [e.envelope() for e in ledger.read("m1")] == [e.envelope() for e in events]
    record = ledger.get_match("m1")
    assert (record.version, record.head, record.created_at, record.token_hash) == (
        4,
        events[-1].hash,
        events[0].at,
        "t2",
    )
    assert ledger.verify("m1")[0].valid
    # appends continue the imported chain, and a retry of the imported keyed batch replays
    again = ledger.append("m1", plays("1", "2"), by="ben", key="k-1")
    assert again.replayed and again.version == 3
    assert ledger.append("m1", plays("4"), by="ben", expected_version=4).version == 5
    assert ledger.verify("m1")[0].valid


def test_an_altered_event_is_refused_naming_its_seq_and_nothing_is_written(ledger: Ledger, tmp_path: Path) -> None:
    events = source_log(tmp_path)
    altered = [*events[:2], dataclasses.replace(events[2], data={"seat": 1, "card": "9"}), events[3]]
    with pytest.raises(ChainBroken) as caught:
        restore(ledger, altered)
    assert caught.value.first_bad == 3 and "altered" in caught.value.reason
    assert ledger.list_matches()[1] == 0
    gap = [events[0], events[2], events[3]]
    with pytest.raises(ChainBroken) as caught:
        restore(ledger, gap)
    assert caught.value.first_bad == 2


def test_a_taken_id_or_a_refusing_check_writes_nothing(ledger: Ledger, tmp_path: Path) -> None:
    events = source_log(tmp_path)

    def refuse(version: int, batch: object) -> None:
        assert version == 0 and len(batch) == 4  # type: ignore[arg-type]
        raise RuntimeError("rules say no")

    with pytest.raises(RuntimeError):
        restore(ledger, events, check=refuse)
    assert ledger.list_matches()[1] == 0 and ledger.feed() == []
    restore(ledger, events, check=lambda version, batch: {"status": "over"})
    assert ledger.get_match("m1").status == "over"
    with pytest.raises(MatchExists):
        restore(ledger, events)
    assert len(ledger.read("m1")) == 4


def test_events_of_another_match_are_refused(ledger: Ledger, tmp_path: Path) -> None:
    events = source_log(tmp_path)
    with pytest.raises(ValueError):
        ledger.import_match("m2", game="cabo", players=("A", "B"), token_hash="t", events=events)
    with pytest.raises(ValueError):
        ledger.import_match("m2", game="cabo", players=("A", "B"), token_hash="t", events=[])


def test_both_backends_store_the_same_rows(tmp_path: Path) -> None:
    events = source_log(tmp_path)
    memory = MemoryLedger()
    restore(memory, events)
    with SqliteLedger(tmp_path / "copy.db") as book:
        restore(book, events)
        assert [e.envelope() for e in book.read("m1")] == [e.envelope() for e in memory.read("m1")]
        assert book.append("m1", [NewEvent("note", {"text": "x"})], by="a").version == 5


def test_import_matches_refuses_one_and_keeps_the_others(ledger: Ledger, tmp_path: Path) -> None:
    from ledger import MatchImport

    events = source_log(tmp_path)
    other = [dataclasses.replace(e) for e in events]
    broken = [*events[:3], dataclasses.replace(events[3], by="mallory")]

    def refuse(version: int, batch: object) -> None:
        raise RuntimeError("rules say no")

    results = ledger.import_matches(
        [
            MatchImport("m1", "cabo", ("Anna", "Ben", "Carl"), "t", events),
            MatchImport("m1", "cabo", ("Anna", "Ben", "Carl"), "t", other),  # the same id again
            MatchImport("m1", "cabo", ("Anna", "Ben", "Carl"), "t", broken),
        ]
    )
    assert results[0].version == 4  # type: ignore[union-attr]
    assert isinstance(results[1], MatchExists) and isinstance(results[2], ChainBroken)
    assert results[2].first_bad == 4
    with SqliteLedger(tmp_path / "second.db") as book:
        src = book.import_matches([MatchImport("m1", "cabo", ("A", "B"), "t", events, check=refuse)])
        assert isinstance(src[0], RuntimeError) and book.list_matches()[1] == 0 and book.feed() == []
    assert ledger.verify("m1")[0].valid and len(ledger.read("m1")) == 4
