"""What the PostgreSQL ledger guarantees beyond the contract suite: the database itself
refuses edits, the schema is versioned and checked at open, the same events hash to the
same bytes as in SQLite, writers on separate connections (as separate servers are) keep one
contiguous log, and a lost connection is a ledger error, not a crash."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.ledger.ledger_helpers import plays, start

import ledger._core as core
import ledger.base as base
import ledger.postgres as pg
from ledger import (
    GENESIS,
    ConcurrencyConflict,
    LedgerError,
    MatchExists,
    NewEvent,
    SqliteLedger,
    StorageUnavailable,
    chain_hash,
    open_ledger,
    verify_file,
)
from ledger.postgres import PostgresLedger


def sql(url: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Run one statement straight on the database, behind the ledger's back."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return [tuple(row) for row in cur.fetchall()] if cur.description else []


@pytest.fixture
def book(postgres_url: str) -> Any:
    with PostgresLedger(postgres_url) as ledger:
        start(ledger)
        ledger.append("m1", plays("AS", "KS"), by="scorer")
        yield ledger


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET data = '{}' WHERE seq = 2",
        "DELETE FROM events WHERE seq = 3",
        "TRUNCATE events CASCADE",
        "TRUNCATE matches CASCADE",
        "DELETE FROM matches",
        "UPDATE matches SET players = '[\"Eve\"]'",
        "UPDATE idempotency SET body_hash = 'x'",
    ],
)
def test_the_database_refuses_edits(book: PostgresLedger, postgres_url: str, statement: str) -> None:
    before = [e.envelope() for e in book.read("m1")]
    if statement.startswith("UPDATE idempotency"):
        book.append("m1", plays("QS"), by="scorer", key="k1")
        before = [e.envelope() for e in book.read("m1")]
    with pytest.raises(psycopg.errors.RestrictViolation):
        sql(postgres_url, statement)
    assert [e.envelope() for e in book.read("m1")] == before
    assert book.verify()[0].valid


def test_opening_records_the_schema_version_once(postgres_url: str) -> None:
    PostgresLedger(postgres_url).close()
    PostgresLedger(postgres_url).close()
    assert sql(postgres_url, "SELECT version FROM tanteo_schema ORDER BY version") == [
        (version,) for version, _ in pg.MIGRATIONS
    ]


def test_a_database_of_an_older_version_is_upgraded_on_open(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as older:  # the Tanteo of schema version 1
        older.setattr(pg, "MIGRATIONS", pg.MIGRATIONS[:1])
        older.setattr(pg, "SCHEMA_VERSION", 1)
        PostgresLedger(postgres_url).close()
    at = "2026-01-01T00:00:00.000Z"  # a match that Tanteo stored then, in chain format 1
    digest = chain_hash(GENESIS, "m1", 1, "note", {"text": "x"}, at, "", None)
    sql(
        postgres_url,
        "INSERT INTO matches (id, game, token_hash, created_at, players, status, version, head) "
        "VALUES ('m1', 'cabo', 't', %s, '[\"A\"]', 'playing', 1, %s)",
        (at, digest),
    )
    sql(
        postgres_url,
        'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
        "VALUES ('m1', 1, 'note', '{\"text\":\"x\"}', %s, '', NULL, %s, %s, 1)",
        (at, GENESIS, digest),
    )
    with pytest.raises(LedgerError, match="older schema"):
        verify_file(postgres_url)  # verify never upgrades
    with PostgresLedger(postgres_url) as book:
        assert sql(postgres_url, "SELECT max(version) FROM tanteo_schema") == [(pg.SCHEMA_VERSION,)]
        book.append("m1", [NewEvent("peek", {"seat": 1, "value": "7D"}, private=(("value",),))], by="scorer")
        assert [e.format for e in book.read("m1")] == [1, 2]
        assert book.verify()[0].valid


def test_a_newer_schema_is_refused(postgres_url: str) -> None:
    PostgresLedger(postgres_url).close()
    sql(postgres_url, "INSERT INTO tanteo_schema (version) VALUES (%s)", (pg.SCHEMA_VERSION + 1,))
    with pytest.raises(LedgerError, match="newer than this Tanteo knows"):
        PostgresLedger(postgres_url)


@pytest.mark.parametrize(
    "damage",
    [
        "DROP TRIGGER events_no_update ON events",
        "ALTER TABLE events DISABLE TRIGGER events_no_delete",
        "CREATE OR REPLACE FUNCTION tanteo_refuse() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
        "DROP TRIGGER matches_fixed_identity ON matches; CREATE TRIGGER matches_fixed_identity BEFORE UPDATE OF id "
        "ON matches FOR EACH ROW EXECUTE FUNCTION tanteo_refuse('a match keeps its id, game, creation time and players')",
    ],
)
def test_a_defanged_guard_is_refused_at_open(postgres_url: str, damage: str) -> None:
    PostgresLedger(postgres_url).close()
    sql(postgres_url, damage)
    with pytest.raises(LedgerError, match="append-only guard triggers missing, disabled or altered"):
        PostgresLedger(postgres_url)
    with pytest.raises(LedgerError):
        verify_file(postgres_url)


def test_the_same_events_hash_to_the_same_bytes_as_in_sqlite(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "utc_now", lambda: "2026-11-23T20:00:00.000Z")  # the one clock of every backend's appends
    monkeypatch.setattr(core.secrets, "token_bytes", lambda n: bytes(range(n)))  # the same salts on both
    batches = [
        plays("AS", "10H"),
        [NewEvent("note", {"text": "ñandú — «vale» 🂡", "n": [1, {"b": 2, "a": None}]})],
        [NewEvent("peek", {"seat": 1, "value": "7D"}, private=(("value",),))],
    ]
    heads = []
    for book in (SqliteLedger(tmp_path / "a.db"), PostgresLedger(postgres_url)):
        with book:
            start(book)
            for i, batch in enumerate(batches):
                book.append("m1", batch, by="Ana", key=f"k{i}")
            heads.append([(e.seq, e.prev, e.hash, e.format, e.private) for e in book.read("m1")])
    assert heads[0] == heads[1] and len(heads[0]) == 5 and heads[0][-1][3] == 2


def test_open_ledger_and_verify_file_take_a_url(postgres_url: str) -> None:
    with open_ledger(postgres_url) as book:
        assert isinstance(book, PostgresLedger)
        start(book)
        book.append("m1", plays("AS"), by="scorer")
    (report,) = verify_file(postgres_url)
    assert report.valid and report.length == 2


def test_verify_does_not_create_a_schema(postgres_server: Any) -> None:
    url = postgres_server.new_url()
    with pytest.raises(LedgerError, match="not a Tanteo ledger"):
        verify_file(url)
    assert sql(url, "SELECT to_regclass('events') IS NULL, to_regclass('tanteo_schema') IS NULL") == [(True, True)]


def test_an_edited_row_is_found_by_verify(book: PostgresLedger, postgres_url: str) -> None:
    sql(postgres_url, "ALTER TABLE events DISABLE TRIGGER events_no_update")
    sql(postgres_url, 'UPDATE events SET data = \'{"card":"2S","seat":0}\' WHERE seq = 2')
    sql(postgres_url, "ALTER TABLE events ENABLE TRIGGER events_no_update")
    (report,) = book.verify()
    assert not report.valid and report.first_bad == 2 and "altered" in (report.reason or "")


def test_a_row_edited_after_it_was_verified_is_found_by_the_next_read(book: PostgresLedger, postgres_url: str) -> None:
    """A read that takes over an earlier one compares every row with what it verified: an edit
    of an old row behind the ledger's back is verified again and named."""
    _, _, kept = book.read_verified_on("m1", None)  # the fixture's match: seq 1 to 3
    assert kept is not None
    sql(postgres_url, "ALTER TABLE events DISABLE TRIGGER events_no_update")
    sql(postgres_url, 'UPDATE events SET data = \'{"card":"2S","seat":0}\' WHERE seq = 2')
    sql(postgres_url, "ALTER TABLE events ENABLE TRIGGER events_no_update")
    report, events, later = book.read_verified_on("m1", kept)
    assert (report, events) == book.read_verified("m1") and later is None
    assert not report.valid and report.first_bad == 2 and "altered" in (report.reason or "")


def test_writers_on_separate_pools_keep_one_contiguous_log(postgres_url: str) -> None:
    """Eight writers, each with its own connection pool (as separate servers have), race with
    expected versions and retry on conflict: every acknowledged batch is stored once."""
    with PostgresLedger(postgres_url) as setup:
        start(setup)
    acknowledged: list[tuple[int, str]] = []
    conflicts = [0]
    lock = threading.Lock()

    def writer(n: int) -> None:
        with PostgresLedger(postgres_url, pool_size=1) as book:
            for i in range(10):
                text = f"writer {n} note {i}"
                while True:
                    version = book.version("m1")
                    try:
                        result = book.append(
                            "m1", [NewEvent("note", {"text": text})], by=f"w{n}", expected_version=version
                        )
                    except ConcurrencyConflict:
                        with lock:
                            conflicts[0] += 1
                        continue
                    with lock:
                        acknowledged.append((result.version, text))
                    break

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with PostgresLedger(postgres_url) as book:
        events = book.read("m1")
        assert [e.seq for e in events] == list(range(1, 82))
        stored = {e.seq: e.data["text"] for e in events[1:]}
        assert sorted(acknowledged) == sorted(stored.items())
        assert book.verify()[0].valid
        feed_ids = [i for i, _ in book.feed()]
        assert feed_ids == sorted(feed_ids) and len(feed_ids) == 81


def test_racing_creators_of_one_id_get_one_match(postgres_url: str) -> None:
    PostgresLedger(postgres_url).close()
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def create() -> None:
        with PostgresLedger(postgres_url, pool_size=1) as book:
            barrier.wait()
            try:
                start(book, "same")
                outcomes.append("created")
            except MatchExists:
                outcomes.append("exists")

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created", "exists", "exists", "exists"]


def test_a_check_reads_back_on_its_own_connection_with_a_pool_of_one(postgres_url: str) -> None:
    with PostgresLedger(postgres_url, pool_size=1, busy_timeout=2) as book:
        start(book)
        seen: list[int] = []

        def check(version: int, batch: Any) -> None:
            seen.append(len(book.read("m1")))
            seen.append(book.version("m1"))

        book.append("m1", plays("AS"), by="scorer", check=check)
        assert seen == [1, 1] and book.version("m1") == 2


def drop_connections(url: str) -> None:
    """Close every other client's connection from the server side, as a restart does."""
    sql(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'",
    )


def test_connections_dropped_between_calls_are_replaced_without_an_error(
    book: PostgresLedger, postgres_url: str
) -> None:
    drop_connections(postgres_url)
    assert book.append("m1", plays("QS"), by="scorer").version == 4
    assert book.verify()[0].valid


def test_a_connection_lost_inside_a_transaction_is_storage_unavailable_and_writes_nothing(
    book: PostgresLedger, postgres_url: str
) -> None:
    def check(version: int, batch: Any) -> None:
        drop_connections(postgres_url)  # the database goes away in the middle of the append

    with pytest.raises(StorageUnavailable) as error:
        book.append("m1", plays("QS"), by="scorer", check=check)
    assert error.value.reason == "io"
    assert book.version("m1") == 3 and book.verify()[0].valid


def test_a_writer_held_past_the_busy_timeout_gives_up(postgres_url: str) -> None:
    with PostgresLedger(postgres_url, busy_timeout=0.3) as book:
        start(book)
        with psycopg.connect(postgres_url) as holder:
            holder.execute("SELECT 1 FROM matches WHERE id = 'm1' FOR UPDATE")
            with pytest.raises(StorageUnavailable) as error:
                book.append("m1", plays("AS"), by="scorer")
            assert error.value.reason == "busy"
        assert book.version("m1") == 1


def test_a_read_only_ledger_reads_and_refuses_writes(book: PostgresLedger, postgres_url: str) -> None:
    with open_ledger(postgres_url, read_only=True) as reader:
        assert [e.seq for e in reader.read("m1")] == [1, 2, 3]
        with pytest.raises(StorageUnavailable) as error:
            reader.append("m1", plays("QS"), by="scorer")
        assert error.value.reason == "read_only"
    assert book.version("m1") == 3


def test_a_server_that_cannot_be_reached_is_storage_unavailable(tmp_path: Path) -> None:
    with pytest.raises(StorageUnavailable) as error:
        PostgresLedger(f"postgresql://nobody@/nothing?host={tmp_path}", busy_timeout=0.5)
    assert error.value.reason == "io"


def test_a_missing_database_is_named_in_the_error(postgres_server: Any) -> None:
    url = postgres_server.admin_url.replace("/postgres?", "/no_such_club?")
    with pytest.raises(StorageUnavailable) as error:
        PostgresLedger(url)
    assert error.value.reason == "io" and 'database "no_such_club" does not exist' in error.value.detail


def test_feed_waits_for_a_writer_holding_a_lower_id(book: PostgresLedger, postgres_url: str) -> None:
    """A writer that took an id first but commits last is not skipped by a feed consumer."""
    start(book, "m2")
    after = book.feed()[-1][0]
    slow = psycopg.connect(postgres_url)  # a writer that takes its id, then dawdles before COMMIT
    slow.execute(f"SELECT pg_advisory_xact_lock_shared({pg.FEED_LOCK})")
    slow.execute(
        'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
        "SELECT 'm1', 4, 'note', '{}', 'at', '', NULL, head, 'h', 1 FROM matches WHERE id = 'm1'"
    )
    fast = book.append("m2", plays("AS"), by="scorer")  # a higher id, committed first
    seen: list[list[tuple[int, Any]]] = []
    reader = threading.Thread(target=lambda: seen.append(book.feed(after)))
    reader.start()
    while reader.is_alive() and not sql(
        postgres_url, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
    ):
        reader.join(0.01)  # until the feed waits for the slow writer (or returned without waiting)
    slow.commit()
    slow.close()
    reader.join()
    ((first_id, first), (second_id, second)) = seen[0]
    assert (first.match, first.seq, second.match, second.seq) == ("m1", 4, "m2", 2) and first_id < second_id
    assert second.hash == fast.head


def test_a_waiting_reader_is_woken_by_another_servers_append(postgres_url: str) -> None:
    """Two ledger objects are two servers: a reader waiting on one is woken by the database's
    announcement of a commit made through the other (the bound is never reached)."""
    with PostgresLedger(postgres_url) as writer, PostgresLedger(postgres_url) as reader:
        start(writer)
        assert reader.wait_for_append("m1", 0, timeout=0)  # already past version 0
        woke: list[bool] = []
        waiting = threading.Thread(target=lambda: woke.append(reader.wait_for_append("m1", 1, timeout=60)))
        waiting.start()
        writer.append("m1", plays("AS"), by="scorer")
        waiting.join(60)
        assert woke == [True]
        start(writer, "m2")
        assert not reader.wait_for_append("m2", 1, timeout=0.05)  # nothing appended to it


def test_without_the_binaries_the_postgres_tests_fail_saying_what_to_install(tmp_path: Path) -> None:
    """Never a skip: a machine without PostgreSQL's server fails these tests, naming the package."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "TANTEO_PG_BINDIR": str(tmp_path)}  # a directory without pg_ctl
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/ledger/test_ledger_postgres.py::test_opening_records_the_schema_version_once",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0 and "skipped" not in run.stdout
    assert "1 error" in run.stdout and "apt-get install postgresql" in run.stdout


def test_changes_wake_on_another_servers_append(book: PostgresLedger, postgres_url: str) -> None:
    """The fan-out's one watch per server: woken by an append made through another server's ledger
    (its announcement), not by running out its wait (a minute here, far past the join below)."""
    mark = book.feed_end()
    book.changes(mark, 0.0)  # listening from here on
    seen: list[tuple[int, dict[str, int]]] = []
    watcher = threading.Thread(target=lambda: seen.append(book.changes(mark, 60.0)), daemon=True)
    watcher.start()
    with PostgresLedger(postgres_url) as other:
        other.append("m1", plays("QS"), by="scorer")
    watcher.join(30.0)
    assert not watcher.is_alive(), "the append was not heard"
    assert seen[0][1] == {"m1": 4} and seen[0][0] > mark
