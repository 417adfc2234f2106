"""What only the SQLite ledger can promise: the file itself refuses edits, survives a kill,
gives itself away when altered, and serializes writers from several threads.

Every test works on a real file in tmp_path and, where it matters, goes around the ledger
with a raw ``sqlite3`` connection, as someone editing the file by hand would.
"""

from __future__ import annotations

import dataclasses
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.ledger.ledger_helpers import plays, start

from ledger import (
    ConcurrencyConflict,
    Current,
    IdempotencyConflict,
    LedgerError,
    NewEvent,
    SqliteLedger,
    chain_hash,
    verify_file,
)
from ledger.records import chain_hash_v2
from ledger.sqlite import _MIGRATION_NAMES, TRIGGERS, WAL_CHECKPOINT_PAGES
from tests.ledger.sqlite_helpers import drop_edit_restore, raw, statements

REPO = Path(__file__).resolve().parents[2]


def checkpoint_and_close(path: Path) -> None:
    """Fold the WAL into the main file so that the bytes on disk are the whole database."""
    conn = raw(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    wal = Path(f"{path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def recorded(path: Path, events: int = 5) -> Path:
    """A closed ledger file with match m1: seq 1 match_started, then one play per card."""
    cards = ["7D", "8C", "KH", "AS", "2C", "3C", "4C", "5C"][: events - 1]
    with SqliteLedger(path) as book:
        start(book)
        for card in cards:
            book.append("m1", plays(card), by="scorer")
    return path


def test_a_row_edited_after_it_was_verified_is_found_by_the_next_read(db_path: Path) -> None:
    """A read that takes over an earlier one compares every row with what it verified: a row
    edited behind the ledger's back (guards dropped and put back) is verified again and named."""
    recorded(db_path)
    with SqliteLedger(db_path) as book:
        _, _, kept = book.read_verified_on("m1", None)
        assert kept is not None and len(kept.rows) == 5
        drop_edit_restore(db_path, 'UPDATE events SET data = \'{"card":"2S","seat":0}\' WHERE seq = 2')
        report, events, later = book.read_verified_on("m1", kept)
        assert (report, events) == book.read_verified("m1") and later is None
        assert not report.valid and report.first_bad == 2 and len(events) == 1


# -- the database enforces append-only -----------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        'UPDATE events SET data = \'{"card":"AS"}\' WHERE seq = 2',
        "UPDATE events SET hash = 'x'",
        "DELETE FROM events WHERE seq = 3",
        "DELETE FROM events",
        "UPDATE idempotency SET body_hash = 'x'",
        "DELETE FROM idempotency",
        "DELETE FROM matches",
        "UPDATE matches SET players = '[\"Mallory\"]'",
        "UPDATE matches SET game = 'kabu'",
    ],
)
def test_the_database_refuses_edits(db_path: Path, statement: str) -> None:
    recorded(db_path)
    with SqliteLedger(db_path) as book:
        book.append("m1", plays("QS"), by="scorer", key="k1")  # so idempotency has a row
    conn = raw(db_path)
    before = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
    with pytest.raises(sqlite3.IntegrityError) as error:
        conn.execute(statement)
    assert "append-only" in str(error.value) or "never" in str(error.value) or "keeps" in str(error.value)
    assert conn.execute("SELECT * FROM events ORDER BY id").fetchall() == before
    assert conn.execute("SELECT count(*) FROM idempotency").fetchone() == (1,)
    conn.close()
    assert verify_file(db_path)[0].valid


def test_the_events_table_checks_its_json(db_path: Path) -> None:
    recorded(db_path)
    conn = raw(db_path)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
            "VALUES ('m1', 99, 'play', '{not json', 'x', 'y', NULL, 'p', 'h', 1)"
        )
    with pytest.raises(sqlite3.IntegrityError):  # STRICT: a seq must be an integer
        conn.execute(
            'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
            "VALUES ('m1', 'ninety', 'play', '{}', 'x', 'y', NULL, 'p', 'h', 1)"
        )
    conn.close()


def test_triggers_and_schema_survive_reopening(db_path: Path) -> None:
    for _ in range(3):
        SqliteLedger(db_path).close()
    conn = raw(db_path)
    triggers = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    assert set(TRIGGERS) <= set(triggers)
    guards = {"events_no_update", "events_no_delete", "idempotency_no_update", "idempotency_no_delete"}
    assert guards <= set(triggers)
    applied = conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'tanteo-ledger'").fetchall()
    assert applied == [(name,) for name in _MIGRATION_NAMES]  # each migration ran once, not once per open
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


def test_opening_creates_the_directory_and_sets_the_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "c.db"
    with SqliteLedger(path) as book:
        conn = book._connection()
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (WAL_CHECKPOINT_PAGES,)
    with SqliteLedger(path, synchronous="normal") as book:
        assert book._connection().execute("PRAGMA synchronous").fetchone() == (1,)
    with pytest.raises(ValueError):
        SqliteLedger(path, synchronous="FULL; DROP TABLE events")


@pytest.mark.parametrize("name", ["events_no_update", "events_no_delete", "idempotency_no_delete"])
def test_a_missing_trigger_is_refused_at_open(db_path: Path, name: str) -> None:
    recorded(db_path)
    conn = raw(db_path)
    conn.execute(f"DROP TRIGGER {name}")
    conn.close()
    with pytest.raises(LedgerError) as error:
        SqliteLedger(db_path)
    assert name in str(error.value)
    with pytest.raises(LedgerError):
        verify_file(db_path)


def test_a_defanged_trigger_is_refused_at_open(db_path: Path) -> None:
    recorded(db_path)
    conn = raw(db_path)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT 1; END")
    conn.close()
    with pytest.raises(LedgerError) as error:
        SqliteLedger(db_path)
    assert "events_no_update" in str(error.value)


def test_not_a_ledger_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = raw(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(LedgerError):
        verify_file(other)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(LedgerError):
        SqliteLedger(garbage)
    with pytest.raises(LedgerError):
        verify_file(garbage)


# -- idempotency and the one place a duplicate seq becomes a conflict ----------------------


def test_idempotency_survives_close_and_reopen(db_path: Path) -> None:
    with SqliteLedger(db_path) as book:
        start(book)
        first = book.append("m1", plays("7D", "8D"), by="Anna", key="req-1")
    with SqliteLedger(db_path) as book:
        again = book.append("m1", plays("7D", "8D"), by="Anna", key="req-1")
        assert again.replayed and again.events == first.events and again.head == first.head
        assert book.version("m1") == 3
        with pytest.raises(IdempotencyConflict):
            book.append("m1", plays("7D"), by="Anna", key="req-1")


def test_a_row_written_behind_the_ledgers_back_becomes_a_conflict(db_path: Path) -> None:
    recorded(db_path, events=3)
    conn = raw(db_path)  # another program appends seq 4 without moving the match row
    conn.execute(
        'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
        "VALUES ('m1', 4, 'play', '{}', '2026-01-01T00:00:00.000Z', 'rogue', NULL, 'p', 'h', 1)"
    )
    conn.close()
    with SqliteLedger(db_path) as book:
        with pytest.raises(ConcurrencyConflict) as error:
            book.append("m1", plays("QS"), by="scorer")
        assert (error.value.expected, error.value.current) == (3, 4)
        assert book.version("m1") == 3
        assert book.verify("m1")[0].valid is False  # and verify sees the stray row


def test_a_batch_failing_in_the_database_half_way_is_rolled_back(db_path: Path) -> None:
    recorded(db_path, events=3)
    conn = raw(db_path)  # a stray seq 6 makes the 3rd insert of a 5-event batch fail
    conn.execute(
        'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
        "VALUES ('m1', 6, 'play', '{}', '2026-01-01T00:00:00.000Z', 'rogue', NULL, 'p', 'h', 1)"
    )
    before = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
    conn.close()
    with SqliteLedger(db_path) as book:
        with pytest.raises(ConcurrencyConflict) as error:
            book.append("m1", plays("9H", "8H", "7H", "6H", "5H"), by="scorer", key="k")
        assert (error.value.expected, error.value.current) == (3, 6)
        assert book.version("m1") == 3
    conn = raw(db_path)
    assert conn.execute("SELECT * FROM events ORDER BY id").fetchall() == before
    assert conn.execute("SELECT count(*) FROM idempotency").fetchone() == (0,)
    conn.close()


# -- what an append costs the database ------------------------------------------------------


def test_an_append_runs_five_statements_and_a_key_adds_one(db_path: Path) -> None:
    with SqliteLedger(db_path) as book:
        start(book)
        seen = statements(book)
        book.append("m1", plays("7D"), by="s")
        assert seen == ["BEGIN IMMEDIATE", "SELECT id, game,", "INSERT INTO events", "UPDATE matches SET", "COMMIT"]
        seen.clear()
        book.append("m1", plays("8D", "9C"), by="s")  # one insert per event (a single executemany)
        assert seen.count("INSERT INTO events") == 2 and len(seen) == 6
        seen.clear()
        book.append("m1", plays("9D"), by="s", key="k1")
        assert len(seen) == 6 and seen[1].startswith("SELECT m.id") and seen[3] == "INSERT INTO idempotency"
        seen.clear()
        again = book.append("m1", plays("9D"), by="s", key="k1")  # a retry only reads
        assert again.replayed and [s.split()[0] for s in seen] == ["BEGIN", "SELECT", "SELECT", "COMMIT"]


def test_a_check_is_given_its_match_row_at_no_statement_and_sees_the_current_row(db_path: Path) -> None:
    """The service's check needs the match row (a token replaced meanwhile by another connection
    must be seen): it is given the row the append read in its transaction, at no statement of
    its own, and never calls back into the ledger for it; another match is read as usual."""
    with SqliteLedger(db_path) as book, SqliteLedger(db_path) as other:
        start(book)
        start(book, "m2")
        before = book.get_match("m1")  # the token as first read
        assert other.replace_token("m1", before.token_hash, "rotated")
        rows: list[Any] = []

        def check(version: Current, events: object) -> None:
            rows.append(version.match)

        seen = statements(book)
        book.append("m1", plays("7D"), by="s", check=check)
        assert seen == ["BEGIN IMMEDIATE", "SELECT id, game,", "INSERT INTO events", "UPDATE matches SET", "COMMIT"]
        assert rows == [dataclasses.replace(before, token_hash="rotated")]  # as it is before this append writes
        seen.clear()
        book.append("m1", plays("8C"), by="s", key="k", check=check)  # looked up with the key: the same row
        assert rows[1] == dataclasses.replace(before, token_hash="rotated", version=2, head=rows[1].head)
        assert len(seen) == 6 and seen[1].startswith("SELECT m.id")
        seen.clear()
        book.append("m1", plays("9C"), by="s", check=lambda version, events: rows.append(book.get_match("m2")))
        assert rows[2].id == "m2" and seen[2] == "SELECT id, game,"  # another match: read as usual
        assert book.get_match("m1").version == 4  # after the append: read as usual


def test_the_status_is_written_only_when_the_check_changes_it(db_path: Path) -> None:
    """An unchanged status is not rewritten: its index entry would cost one more page per commit."""
    with SqliteLedger(db_path) as book:
        start(book)
        updates: list[str] = []
        book._connection().set_trace_callback(lambda sql: updates.append(sql) if sql.startswith("UPDATE") else None)
        book.append("m1", plays("7D"), by="s", check=lambda version, batch: {"status": "playing"})
        assert "status" not in updates[-1] and book.get_match("m1").status == "playing"
        book.append("m1", plays("8D"), by="s", check=lambda version, batch: {"status": "over"})
        assert "status" in updates[-1] and book.get_match("m1").status == "over"
        book.append("m1", plays("9D"), by="s", check=lambda version, batch: None)
        assert "status" not in updates[-1] and book.get_match("m1").status == "over"
        assert book.get_match("m1").version == 4 and book.verify("m1")[0].valid


# -- durability ----------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from ledger import NewEvent, SqliteLedger

    path, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    book = SqliteLedger(path)
    book.create_match("m1", game="cabo", players=["A", "B"], token_hash="t",
                      first=NewEvent("match_started", {"game": "cabo"}), by="child")
    print(1, flush=True)
    i = 0
    while count < 0 or i < count:
        events = [NewEvent("play", {"n": i * batch + j}) for j in range(batch)]
        print(book.append("m1", events, by="child").version, flush=True)
        i += 1
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def run_child(path: Path, count: int, batch: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(count), str(batch)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_log_holds(path: Path, acknowledged: int, batch: int) -> None:
    with SqliteLedger(path) as book:
        version = book.version("m1")
        assert version >= acknowledged
        assert (version - 1) % batch == 0  # whole batches only
        events = book.read("m1")
        assert [e.seq for e in events] == list(range(1, version + 1))
        assert [e.data["n"] for e in events[1:]] == list(range(version - 1))
        assert book.verify() == [book.verify("m1")[0]] and book.verify("m1")[0].valid


def test_acknowledged_appends_survive_kill_9(db_path: Path) -> None:
    child = run_child(db_path, count=40, batch=1)
    out, err = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL, err
    acknowledged = int(out.split()[-1])
    assert acknowledged == 41
    assert Path(f"{db_path}-wal").stat().st_size > 0  # killed before any checkpoint
    (report,) = verify_file(db_path)  # read-only, straight from the WAL the child left
    assert report.valid and report.length == acknowledged
    assert_log_holds(db_path, acknowledged, batch=1)


def test_a_kill_in_the_middle_of_writing_loses_no_acknowledged_batch(db_path: Path) -> None:
    child = run_child(db_path, count=-1, batch=3)
    assert child.stdout is not None
    seen = []
    for line in child.stdout:
        seen.append(int(line))
        if len(seen) == 25:
            break
    child.send_signal(signal.SIGKILL)  # while it is busy appending
    rest, _ = child.communicate(timeout=60)
    seen.extend(int(v) for v in rest.split())
    assert child.returncode == -signal.SIGKILL
    assert_log_holds(db_path, seen[-1], batch=3)


# -- tampering is detected -----------------------------------------------------------------


def test_a_flipped_byte_in_the_file_is_found_by_verify(db_path: Path) -> None:
    recorded(db_path, events=5)  # seq 4 is the only play of KH
    checkpoint_and_close(db_path)
    blob = db_path.read_bytes()
    needle = b'"card":"KH"'
    assert blob.count(needle) == 1
    where = blob.index(needle) + len(b'"card":"K')
    with open(db_path, "r+b") as handle:  # flip one bit of the H, in place
        handle.seek(where)
        handle.write(bytes([blob[where] ^ 0x01]))
    reports = verify_file(db_path)
    (report,) = reports
    assert not report.valid and report.first_bad == 3 + 1
    assert "seq 4" in (report.reason or "")
    with SqliteLedger(db_path) as book:
        assert book.verify("m1") == reports
        assert book.read("m1", after=3, upto=4)[0].data["card"] == "KI"  # silently altered


def test_a_flipped_byte_stops_read_verified_at_that_event(db_path: Path) -> None:
    """The one-pass read hashes the stored bytes: a flipped bit in a payload that still parses
    is a bad hash there, and no event from that one on is handed out as verified."""
    recorded(db_path, events=5)  # seq 4 is the only play of KH
    checkpoint_and_close(db_path)
    blob = db_path.read_bytes()
    where = blob.index(b'"card":"KH"') + len(b'"card":"K')
    with open(db_path, "r+b") as handle:
        handle.seek(where)
        handle.write(bytes([blob[where] ^ 0x01]))
    with SqliteLedger(db_path) as book:
        report, events = book.read_verified("m1")
        assert report == book.verify("m1")[0]
    assert not report.valid and report.first_bad == 4 and "seq 4: hash" in (report.reason or "")
    assert [e.seq for e in events] == [1, 2, 3]


def test_damaged_text_is_named_by_the_one_pass_verify(db_path: Path) -> None:
    recorded(db_path)
    drop_edit_restore(db_path, "UPDATE events SET \"by\" = CAST(X'FF' AS TEXT) WHERE match_id = 'm1' AND seq = 2")
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 2 and "UTF-8" in (report.reason or "")


def test_verify_file_does_not_write(db_path: Path) -> None:
    recorded(db_path)
    checkpoint_and_close(db_path)
    before = db_path.read_bytes()
    assert verify_file(db_path)[0].valid
    assert db_path.read_bytes() == before


def test_an_edited_event_is_found_by_verify(db_path: Path) -> None:
    recorded(db_path)
    drop_edit_restore(
        db_path,
        "UPDATE events SET data = ? WHERE match_id = 'm1' AND seq = 3",
        params=('{"card":"AS","seat":0}',),
    )
    with SqliteLedger(db_path) as book:  # the guards are back, so it opens
        (report,) = book.verify()
    assert not report.valid and report.first_bad == 3 and "hash" in (report.reason or "")


def test_an_edited_event_with_a_recomputed_hash_breaks_the_next_link(db_path: Path) -> None:
    recorded(db_path)
    with SqliteLedger(db_path) as book:
        e3 = book.read("m1", after=2, upto=3)[0]
    forged = {"seat": 0, "card": "AS"}
    new_hash = chain_hash_v2(e3.prev, e3.match, e3.seq, e3.type, forged, e3.at, e3.by, e3.key)
    drop_edit_restore(
        db_path,
        "UPDATE events SET data = ?, hash = ? WHERE match_id = 'm1' AND seq = 3",
        params=('{"card":"AS","seat":0}', new_hash),
    )
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 4 and "prev" in (report.reason or "")


def test_a_reformatted_payload_is_found_by_verify(db_path: Path) -> None:
    recorded(db_path)  # seq 3 plays 8C from seat 0: same JSON value, other bytes
    drop_edit_restore(
        db_path,
        "UPDATE events SET data = ? WHERE match_id = 'm1' AND seq = 3",
        params=('{"seat": 0, "card": "8C"}',),
    )
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 3 and "canonical" in (report.reason or "")


def test_a_deleted_last_event_is_found_by_verify(db_path: Path) -> None:
    recorded(db_path)
    drop_edit_restore(db_path, "DELETE FROM events WHERE match_id = 'm1' AND seq = 5")
    (report,) = verify_file(db_path)
    assert not report.valid and report.length == 4 and report.first_bad == 5


def test_a_deleted_middle_event_is_found_by_verify(db_path: Path) -> None:
    recorded(db_path)
    drop_edit_restore(db_path, "DELETE FROM events WHERE match_id = 'm1' AND seq = 2")
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 2 and "missing" in (report.reason or "")


def test_a_moved_head_is_found_by_verify(db_path: Path) -> None:
    recorded(db_path)
    conn = raw(db_path)  # the match row is mutable (version, head, status): no trigger needed
    conn.execute("UPDATE matches SET head = ? WHERE id = 'm1'", ("0" * 64,))
    conn.close()
    (report,) = verify_file(db_path)
    assert not report.valid and "head" in (report.reason or "")


def test_events_without_a_match_row_are_reported(db_path: Path) -> None:
    recorded(db_path)
    conn = raw(db_path)  # foreign keys are off on this connection, as in a careless tool
    at = "2026-01-01T00:00:00.000Z"
    digest = chain_hash("0" * 64, "ghost", 1, "play", {}, at, "y", None)  # a sound chain
    conn.execute(
        'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
        "VALUES ('ghost', 1, 'play', '{}', ?, 'y', NULL, ?, ?, 1)",
        (at, "0" * 64, digest),
    )
    conn.close()
    reports = {r.match: r for r in verify_file(db_path)}
    assert reports["m1"].valid
    ghost = reports["ghost"]
    assert not ghost.valid and ghost.length == 1 and ghost.head == digest
    assert ghost.first_bad is None and "match row is missing" in (ghost.reason or "")


def test_an_unknown_chain_format_is_reported(db_path: Path) -> None:
    recorded(db_path)
    drop_edit_restore(db_path, "UPDATE events SET fmt = 7 WHERE match_id = 'm1' AND seq = 2")
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 2 and "format 7" in (report.reason or "")


# -- feed ids and concurrency --------------------------------------------------------------


def test_feed_ids_survive_vacuum(db_path: Path) -> None:
    with SqliteLedger(db_path) as book:
        start(book, "m1")
        start(book, "m2")
        book.append("m2", plays("7D"), by="s")
        book.append("m1", plays("8D", "9D"), by="s")
        before = book.feed()
    conn = raw(db_path)
    conn.execute("VACUUM")
    conn.close()
    with SqliteLedger(db_path) as book:
        assert book.feed() == before
        assert book.feed(after_id=before[1][0]) == before[2:]


def test_concurrent_writers_on_one_file_stay_contiguous(db_path: Path) -> None:
    """Four threads, each with its own ledger on the same file, race for the same version.

    In each round every thread reads the version, waits until all have read it, then
    appends expecting it: exactly one must win and three must get ConcurrencyConflict
    (never "database is locked", never a gap). Then all append without a version at once.
    """
    with SqliteLedger(db_path) as book:
        start(book)
    threads, rounds, free = 4, 12, 10
    barrier = threading.Barrier(threads, timeout=120)
    outcomes: Counter[str] = Counter()
    unexpected: list[BaseException] = []
    lock = threading.Lock()

    def writer(name: str) -> None:
        try:
            with SqliteLedger(db_path) as book:  # one connection per thread
                for i in range(rounds):
                    version = book.version("m1")
                    barrier.wait()  # everyone holds the same version now
                    try:
                        book.append(
                            "m1",
                            [NewEvent("play", {"writer": name, "round": i})],
                            by=name,
                            expected_version=version,
                        )
                        outcome = "ok"
                    except ConcurrencyConflict as error:
                        assert (error.expected, error.current) == (version, version + 1)
                        outcome = "conflict"
                    with lock:
                        outcomes[outcome] += 1
                    barrier.wait()  # the round is over before anyone reads again
                for i in range(free):
                    book.append("m1", [NewEvent("note", {"writer": name, "i": i})], by=name)
        except BaseException as error:  # noqa: BLE001 - reported below
            unexpected.append(error)
            barrier.abort()

    workers = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert not unexpected, unexpected
    assert outcomes == {"ok": rounds, "conflict": (threads - 1) * rounds}
    with SqliteLedger(db_path) as book:
        events = book.read("m1")
        assert [e.seq for e in events] == list(range(1, 1 + 1 + rounds + threads * free))
        assert [e.data["round"] for e in events if e.type == "play"] == list(range(rounds))
        assert Counter(e.by for e in events if e.type == "note") == {f"w{n}": free for n in range(threads)}
        assert book.verify("m1")[0].valid and book.version("m1") == len(events)
