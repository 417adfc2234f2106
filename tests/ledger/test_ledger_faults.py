"""Storage faults reach callers as ``StorageUnavailable`` with a reason, and write nothing.

Each fault is real (see ``tests/ledger/faults.py``): a full file system, a read-only
directory, another connection holding the write lock. After each, the raw rows in the file
are exactly what they were, and the ledger works again once the fault is gone.
"""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path

import pytest
from tests.ledger.faults import fill, free, lock_held, read_only_view, rows, small_disk, writes_fail_past
from tests.ledger.ledger_helpers import plays, start

from ledger import (
    LedgerError,
    NewEvent,
    PerThread,
    SqliteLedger,
    StorageUnavailable,
    open_ledger,
)


def notes(count: int, size: int = 1500) -> list[NewEvent]:
    """A batch big enough to need new database pages whatever space the last page has left."""
    return [NewEvent("note", {"text": f"{i:04d}" + "x" * size}) for i in range(count)]


def test_a_full_disk_is_storage_unavailable_and_writes_nothing(tmp_path: Path) -> None:
    directory = tmp_path / "small"
    with small_disk(directory) as mounted:
        db = directory / "ledger.db"
        with SqliteLedger(db) as book:
            start(book)
            book.append("m1", plays("7D", "8C"), by="scorer")
            before = rows(db)
            fill(directory, mounted, lambda: book._connection())
            with pytest.raises(StorageUnavailable) as error:
                book.append("m1", notes(10), by="scorer", key="k1")
            assert error.value.reason == "full"
            assert rows(db) == before
            assert book.version("m1") == 3  # reads still work on a full disk
            free(directory, mounted, lambda: book._connection())
            assert book.append("m1", notes(2), by="scorer", key="k1").version == 5
            assert book.verify("m1")[0].valid


def test_an_io_error_is_storage_unavailable_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    with SqliteLedger(db) as book:
        start(book)
        book.append("m1", plays("7D"), by="scorer")
        before = rows(db)
        with writes_fail_past(Path(f"{db}-wal")):
            with pytest.raises(StorageUnavailable) as error:
                book.append("m1", plays("8C", "KH"), by="scorer", key="k1")
        assert error.value.reason == "io"
        assert rows(db) == before
        assert book.append("m1", plays("8C", "KH"), by="scorer", key="k1").version == 4
        assert book.verify("m1")[0].valid


def test_a_held_write_lock_is_busy_after_the_timeout(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    with SqliteLedger(db, busy_timeout=0.05) as book:
        start(book)
        before = rows(db)
        with lock_held(db):
            with pytest.raises(StorageUnavailable) as error:
                book.append("m1", plays("7D"), by="scorer")
            assert error.value.reason == "busy"
            with pytest.raises(StorageUnavailable):  # creating a match waits for the same lock
                start(book, "m2")
            assert book.version("m1") == 1  # WAL: reads do not wait for the writer
        assert rows(db) == before
        assert book.append("m1", plays("7D"), by="scorer").version == 2


def test_a_read_only_directory_serves_reads_and_refuses_writes(tmp_path: Path) -> None:
    directory = tmp_path / "data"
    directory.mkdir()
    with SqliteLedger(directory / "ledger.db") as book:
        start(book)
        book.append("m1", plays("7D", "8C"), by="scorer")
    before = rows(directory / "ledger.db")
    with read_only_view(directory) as (view, how):
        book = open_ledger(view / "ledger.db", read_only=how == "open-read-only")
        try:
            assert isinstance(book, SqliteLedger) and book.read_only
            assert book.immutable == (how == "mount")  # no WAL index can be made beside the file
            assert [e.seq for e in book.read("m1")] == [1, 2, 3]
            assert book.verify("m1")[0].valid
            with pytest.raises(StorageUnavailable) as error:
                book.append("m1", plays("KH"), by="scorer")
            assert error.value.reason == "read_only"
            with pytest.raises(StorageUnavailable):
                start(book, "m2")
        finally:
            book.close()
    assert rows(directory / "ledger.db") == before


def test_a_missing_file_in_a_read_only_directory_cannot_be_created(tmp_path: Path) -> None:
    directory = tmp_path / "data"
    directory.mkdir()
    (directory / "other").write_text("so the directory is not empty")
    with read_only_view(directory) as (view, how):
        if how == "open-read-only":  # nothing stops this process creating it: ask for read-only
            with pytest.raises(LedgerError):
                open_ledger(view / "ledger.db", read_only=True)
        else:
            with pytest.raises(StorageUnavailable) as error:
                open_ledger(view / "ledger.db")
            assert error.value.reason == "read_only"
    assert not (directory / "ledger.db").exists()


def test_query_only_connection_is_read_only_too(tmp_path: Path) -> None:
    """The translation reads SQLite's error code, not the message: PRAGMA query_only says
    SQLITE_READONLY in other words."""
    with SqliteLedger(tmp_path / "ledger.db") as book:
        start(book)
        book._connection().execute("PRAGMA query_only = 1")
        with pytest.raises(StorageUnavailable) as error:
            book.append("m1", plays("7D"), by="scorer")
        assert error.value.reason == "read_only"
        book._connection().execute("PRAGMA query_only = 0")
        assert book.append("m1", plays("7D"), by="scorer").version == 2


def test_other_sqlite_errors_are_not_disguised_as_storage_faults(tmp_path: Path) -> None:
    """A bug (here: a table that vanished) must stay a loud error, not a polite 'retry later'."""
    with SqliteLedger(tmp_path / "ledger.db") as book:
        start(book)
        book._connection().execute("ALTER TABLE idempotency RENAME TO gone")
        with pytest.raises(sqlite3.OperationalError):
            book.append("m1", plays("7D"), by="scorer", key="k")
        assert book.version("m1") == 1


def test_storage_unavailable_pickles_and_knows_its_reasons() -> None:
    error = pickle.loads(pickle.dumps(StorageUnavailable("busy", "database is locked")))
    assert (error.reason, error.detail) == ("busy", "database is locked")
    with pytest.raises(ValueError):
        StorageUnavailable("tired")


def test_per_thread_keeps_one_ledger_per_thread_until_closed(tmp_path: Path) -> None:
    import threading

    ledgers = PerThread(tmp_path / "ledger.db")
    first = ledgers.get()
    assert ledgers.get() is first  # the same connection for every request of this thread
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(ledgers.get()))
    worker.start()
    worker.join()
    assert seen[0] is not first
    ledgers.close()  # from the main thread, for both threads' connections
    with pytest.raises(LedgerError):
        first.version("m1")
    with pytest.raises(LedgerError):
        seen[0].version("m1")  # type: ignore[attr-defined]
    shared = PerThread("memory:")
    assert shared.get() is shared.get()


def test_a_writer_of_this_process_holding_the_lock_is_busy_after_the_timeout(tmp_path: Path) -> None:
    """Writers of one process queue on a lock per file before SQLite's; its wait is bounded too."""
    import threading

    db = tmp_path / "ledger.db"
    inside, leave = threading.Event(), threading.Event()
    with SqliteLedger(db) as book, SqliteLedger(db, busy_timeout=0.05) as other:
        start(book)

        def slow_check(version: int, events: object) -> None:
            inside.set()
            leave.wait(timeout=30)

        writer = threading.Thread(target=lambda: book.append("m1", plays("7D"), by="slow", check=slow_check))
        writer.start()
        assert inside.wait(timeout=30)
        try:
            with pytest.raises(StorageUnavailable) as error:
                other.append("m1", plays("8C"), by="scorer")
            assert error.value.reason == "busy"
        finally:
            leave.set()
            writer.join(timeout=30)
        assert other.append("m1", plays("8C"), by="scorer").version == 3
        assert [e.by for e in other.read("m1")] == ["scorer", "slow", "scorer"]
