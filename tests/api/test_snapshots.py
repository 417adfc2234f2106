"""Stored snapshots: a cold reader starts from the newest good snapshot, never from a bad one.

A long La Cabra match (result-only 60-60 deals, which never end the series, and notes) is
recorded through the service on a real SQLite file. A second service on its own connection
and an empty memory cache plays the new process after a restart. How much it folds is
counted with a counting hook on the engine's ``apply`` (work, not time).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from api.service import AuthError, Service, StateCache
from api.service.snapshots import rules_version
from engines import la_cabra
from engines.base import events_from, replay
from ledger import SqliteLedger
from tests.api.snapshot_logs import eggs_log, ended_log

EVERY = 100
LENGTH = 1250


def record(path: Path, log: list[dict[str, Any]], *, every: int = EVERY) -> tuple[str, str]:
    """Record the log through the service; return the match id and its write token."""
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache(), snapshot_every=every)
        created = service.start_match(log[0]["data"])
        for start in range(1, len(log), 30):
            service.record(created["id"], log[start : start + 30], token=created["token"])
        return str(created["id"]), str(created["token"])


def snapshot_rows(path: Path, match_id: str) -> list[tuple[int, str]]:
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT seq, rules FROM snapshots WHERE match_id = ? ORDER BY seq", (match_id,)).fetchall()
    conn.close()
    return rows


def test_appends_store_a_snapshot_every_n_events(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    match_id, _ = record(path, eggs_log(LENGTH))
    rows = snapshot_rows(path, match_id)
    seqs = [seq for seq, _ in rows]
    assert seqs and all(b - a >= EVERY for a, b in zip(seqs, seqs[1:])) and LENGTH - seqs[-1] < EVERY + 30
    assert {rules for _, rules in rows} == {rules_version(la_cabra)}


def test_a_new_process_reads_the_head_from_the_snapshot(tmp_path: Path, applied: list[int]) -> None:
    path = tmp_path / "s.db"
    log = eggs_log(LENGTH)
    match_id, token = record(path, log)
    newest = snapshot_rows(path, match_id)[-1][0]
    with SqliteLedger(path) as ledger:
        truth = replay(la_cabra, events_from(ledger.read(match_id)))
        applied[0] = 0
        cold = Service(ledger, StateCache(), snapshot_every=EVERY)
        state = cold.state(match_id, token=token)  # the scorer's read (a reader without it folds the public log)
        assert applied[0] == sum(1 for e in log[newest:] if e["type"] != "note")  # only the events after it
        assert state["state"] == la_cabra.view(truth, None)
        applied[0] = 0
        middle = cold.state(match_id, at=newest - 5, token=token)  # before the newest snapshot: from an older one
        assert applied[0] < EVERY + 30  # the batches are 30 events: snapshots are at most that far past due
        assert middle["state"] == la_cabra.view(
            replay(la_cabra, events_from(ledger.read(match_id, upto=newest - 5))), None
        )


def test_an_append_after_a_restart_folds_only_after_the_snapshot(tmp_path: Path, applied: list[int]) -> None:
    path = tmp_path / "s.db"
    log = eggs_log(LENGTH)
    match_id, token = record(path, log)
    newest = snapshot_rows(path, match_id)[-1][0]
    with SqliteLedger(path) as ledger:
        restarted = Service(ledger, StateCache(), snapshot_every=EVERY)
        applied[0] = 0
        with pytest.raises(AuthError):  # no token: refused before any fold
            restarted.record(match_id, [{"type": "note", "data": {"text": "x"}}], token=None)
        assert applied[0] == 0
        result = restarted.record(match_id, [eggs_log(LENGTH + 1)[-1]], token=token)  # the log's next move
        assert result.version == LENGTH + 1
        nexts = eggs_log(LENGTH + 1)[-1]["type"] != "note"
        assert (
            applied[0] == sum(1 for e in log[newest:] if e["type"] != "note") + nexts
        )  # the events after it, then the new one


@pytest.mark.parametrize(
    "column, value",
    [
        ("state", "replace(state, '60', '61')"),  # an edited state: the digest no longer matches
        ("head", "(CASE WHEN head LIKE '0%' THEN '1' ELSE '0' END) || substr(head, 2)"),  # a snapshot of another log
        ("rules", "'la-cabra:older-rules'"),  # written by an engine with other rules
    ],
)
def test_a_bad_snapshot_is_ignored_and_rebuilt(tmp_path: Path, applied: list[int], column: str, value: str) -> None:
    path = tmp_path / "s.db"
    log = eggs_log(LENGTH)
    match_id, token = record(path, log)
    newest = snapshot_rows(path, match_id)[-1][0]
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE snapshots SET {column} = {value} WHERE match_id = ? AND seq = ?", (match_id, newest))
    conn.commit()
    conn.close()
    with SqliteLedger(path) as ledger:
        truth = replay(la_cabra, events_from(ledger.read(match_id)))
        applied[0] = 0
        state = Service(ledger, StateCache(), snapshot_every=EVERY).state(match_id, token=token)
        assert state["state"] == la_cabra.view(truth, None)
        assert applied[0] == sum(1 for e in log if e["type"] not in ("note", "match_started"))  # folded from event 1
        applied[0] = 0
        Service(ledger, StateCache(), snapshot_every=EVERY).state(match_id, token=token)
        assert applied[0] == 0  # rebuilt at the head
    assert snapshot_rows(path, match_id)[-1] == (LENGTH, rules_version(la_cabra))


def test_a_correction_stores_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    log = eggs_log(40)
    note = next(seq for seq, e in enumerate(log, 1) if e["type"] == "note")
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache(), snapshot_every=10_000)
        created = service.start_match(log[0]["data"])
        service.record(created["id"], log[1:], token=created["token"])
        assert snapshot_rows(path, created["id"]) == []  # not due yet
        result = service.record(
            created["id"],
            [{"type": "void", "data": {"target": note, "reason": "off the record"}}],
            token=created["token"],
        )
    assert [seq for seq, _ in snapshot_rows(path, created["id"])] == [result.version]


def test_the_end_of_a_match_stores_a_snapshot_and_a_cold_reader_folds_nothing(
    tmp_path: Path, applied: list[int]
) -> None:
    path = tmp_path / "s.db"
    log = ended_log("la-cabra", 3)
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache(), snapshot_every=10_000)
        created = service.start_match(log[0]["data"])
        service.record(created["id"], log[1:-1], token=created["token"])
        assert snapshot_rows(path, created["id"]) == []  # in play, not due
        service.record(created["id"], log[-1:], token=created["token"])  # the move that ends the series
        assert [seq for seq, _ in snapshot_rows(path, created["id"])] == [len(log)]
        service.record(created["id"], [{"type": "note", "data": {"text": "well played"}}], token=created["token"])
        assert [seq for seq, _ in snapshot_rows(path, created["id"])] == [len(log)]  # a note changes no state
        applied[0] = 0
        cold = Service(ledger, StateCache(), snapshot_every=10_000).state(created["id"])
        assert applied[0] == 0 and cold["state"]["over"]
        assert cold["state"] == la_cabra.view(replay(la_cabra, events_from(ledger.read(created["id"]))), None)


def test_a_match_recorded_whole_at_its_start_keeps_its_final_state(tmp_path: Path, applied: list[int]) -> None:
    path = tmp_path / "s.db"
    log = ended_log("la-cabra", 4)
    with SqliteLedger(path) as ledger:
        created = Service(ledger, StateCache(), snapshot_every=10_000).start_match(log[0]["data"], events=log[1:])
        assert [seq for seq, _ in snapshot_rows(path, created["id"])] == [len(log)]
        applied[0] = 0
        assert Service(ledger, StateCache(), snapshot_every=10_000).state(created["id"])["state"]["over"]
        assert applied[0] == 0
