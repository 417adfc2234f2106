"""Group commit: appends to different matches that arrive together share one SQLite transaction
and one fsync, each still all or nothing, each acknowledged only after the commit.

The appends are made to arrive together deterministically: the first writer is held inside
its ``check`` (it leads, holding the file's write transaction) until every other writer has
queued behind it; then it is let go, and takes them into its transaction before its
``COMMIT``. Commits are counted with each connection's trace callback (the leader's
connection runs the one ``COMMIT`` of a batch).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.ledger.faults import rows, writes_fail_past
from tests.ledger.ledger_helpers import plays, start

from ledger import (
    ConcurrencyConflict,
    IdempotencyConflict,
    MatchNotFound,
    NewEvent,
    SqliteLedger,
    StorageUnavailable,
)

Append = Callable[[SqliteLedger], Any]


class Refused(Exception):
    """What a check raises to refuse a batch (the service raises its rule errors)."""


@contextlib.contextmanager
def ledgers(db: Path, count: int) -> Iterator[tuple[list[SqliteLedger], list[str]]]:
    """``count`` ledgers on one file (one per writer thread) and the COMMITs they run from now on."""
    books = [SqliteLedger(db) for _ in range(count)]
    commits: list[str] = []
    for book in books:
        book._connection().set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    try:
        yield books, commits
    finally:
        for book in books:
            book.close()


def together(books: list[SqliteLedger], first: Append, rest: list[Append]) -> list[Any]:
    """Run ``first`` and each of ``rest`` in its own thread with its own ledger, all arriving
    while ``first`` writes; return each outcome (a result, or the exception it raised), in order.

    ``first`` is given a check that holds it inside the write transaction until every one of
    ``rest`` has queued behind it.
    """
    inside, go = threading.Event(), threading.Event()

    def hold(version: int, events: object) -> None:
        inside.set()
        assert go.wait(60)

    calls: list[Append] = [lambda book: first(book, hold), *rest]  # type: ignore[call-arg]
    outcomes: list[Any] = [None] * len(calls)

    def call(i: int) -> None:
        try:
            outcomes[i] = calls[i](books[i])
        except Exception as error:  # noqa: BLE001 - the outcome under test
            outcomes[i] = error

    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(calls))]
    threads[0].start()
    assert inside.wait(60)
    for thread in threads[1:]:
        thread.start()
    queue = books[0]._queue
    for _ in range(6000):  # a bounded number of polls, not a clock
        with queue.cond:
            if len(queue.pending) == len(rest):
                break
        time.sleep(0.005)
    with queue.cond:
        assert len(queue.pending) == len(rest)
    go.set()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


def appending(match_id: str, *events: NewEvent, **kwargs: Any) -> Append:
    return lambda book: book.append(match_id, list(events), by=match_id, **kwargs)


def note(text: str, size: int = 0) -> NewEvent:
    return NewEvent("note", {"text": text + "x" * size})


def matches(db: Path, count: int) -> None:
    with SqliteLedger(db) as book:
        for i in range(count):
            start(book, f"m{i}")


def test_appends_to_different_matches_arriving_together_share_one_commit(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    matches(db, 4)
    with ledgers(db, 4) as (books, commits):
        outcomes = together(
            books,
            lambda book, hold: book.append("m0", plays("7D"), by="m0", check=hold),  # type: ignore[misc]
            [appending("m1", *plays("8C", "KH")), appending("m2", note("n")), appending("m3", note("k"), key="k3")],
        )
        assert len(commits) == 1  # the three that queued behind the held writer joined its commit
    assert [(o.version, o.replayed) for o in outcomes] == [(2, False), (3, False), (2, False), (2, False)]
    with SqliteLedger(db) as book:
        for i, outcome in enumerate(outcomes):
            stored = book.read(f"m{i}")
            assert [e.seq for e in stored] == list(range(1, outcome.version + 1))  # each exactly once
            assert tuple(stored[1:]) == outcome.events
            assert {e.by for e in stored[1:]} == {f"m{i}"}
        assert all(report.valid for report in book.verify())


def test_a_refused_append_is_rolled_back_alone_and_told_to_its_own_writer(tmp_path: Path) -> None:
    """Refused by its check, by its expected version, by its key, by a stray row: only that
    append is undone (its savepoint); the others in the same commit are written."""
    db = tmp_path / "ledger.db"
    matches(db, 8)
    with SqliteLedger(db) as book:
        first = book.append("m5", [note("once")], by="m5", key="k")
    conn = sqlite3.connect(db, isolation_level=None)  # a row written behind the ledger's back
    conn.execute(
        'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
        "VALUES ('m7', 2, 'note', '{}', '2026-01-01T00:00:00.000Z', 'rogue', NULL, 'p', 'h', 1)"
    )
    conn.close()
    before = rows(db)

    def refuse(version: int, events: object) -> None:
        raise Refused("that card is not in the hand")

    with ledgers(db, 8) as (books, commits):
        outcomes = together(
            books,
            lambda book, hold: book.append("m0", plays("7D"), by="m0", check=hold),  # type: ignore[misc]
            [
                appending("m1", note("kept")),
                appending("m2", note("refused"), check=refuse),
                appending("m3", note("late"), expected_version=5),
                appending("m4", note("kept too"), key="k4"),
                appending("m5", note("once"), key="k"),  # a retry: replayed
                appending("m9", note("no such match")),
                appending("m7", note("collides")),
            ],
        )
        assert len(commits) == 1
    ok, kept, refused, late, kept_too, retried, missing, collides = outcomes
    assert (ok.version, kept.version, kept_too.version) == (2, 2, 2)
    assert isinstance(refused, Refused) and str(refused) == "that card is not in the hand"
    assert isinstance(late, ConcurrencyConflict) and (late.expected, late.current) == (5, 1)
    assert retried.replayed and retried.events == first.events
    assert isinstance(missing, MatchNotFound)
    assert isinstance(collides, ConcurrencyConflict) and (collides.expected, collides.current) == (1, 2)
    after = rows(db)
    written = [row for row in after["events"] if row not in before["events"]]
    assert sorted((row[1], row[4]) for row in written) == [
        ("m0", '{"card":"7D","seat":0}'),
        ("m1", '{"text":"kept"}'),
        ("m4", '{"text":"kept too"}'),
    ]
    assert [row[:2] for row in after["idempotency"] if row not in before["idempotency"]] == [("m4", "k4")]
    with SqliteLedger(db) as book:
        assert [book.version(f"m{i}") for i in (2, 3, 5)] == [1, 1, 2]
        with pytest.raises(IdempotencyConflict):  # the key of m4 was stored with its batch
            book.append("m4", [note("other")], by="m4", key="k4")


def test_appends_to_the_same_match_never_share_a_commit(tmp_path: Path) -> None:
    """A check reads its match as committed (through its own ledger): two appends to one match
    are committed one after the other, the second on the first's result."""
    db = tmp_path / "ledger.db"
    matches(db, 2)
    seen: list[int] = []

    def count(version: int, events: object) -> None:
        seen.append(version)

    with ledgers(db, 3) as (books, commits):
        outcomes = together(
            books,
            lambda book, hold: book.append("m0", plays("7D"), by="m0", check=hold),  # type: ignore[misc]
            [appending("m1", note("a"), check=count), appending("m1", note("b"), check=count)],
        )
        assert len(commits) == 2  # m0 with the first of m1, then the second of m1
    assert sorted(o.version for o in outcomes[1:]) == [2, 3] and sorted(seen) == [1, 2]
    with SqliteLedger(db) as book:
        assert book.verify("m1")[0].valid


def test_a_failed_commit_acknowledges_nobody_in_it(tmp_path: Path) -> None:
    """The storage fails at the shared COMMIT (the WAL cannot grow): every writer in it gets
    StorageUnavailable, the leader too, and nothing of theirs is written; the next commit works."""
    db = tmp_path / "ledger.db"
    matches(db, 4)
    before = rows(db)
    wal = Path(f"{db}-wal")
    fault = contextlib.ExitStack()
    lock = threading.Lock()

    def fail_from_now(version: int, events: object) -> None:
        with lock:
            if not fault._exit_callbacks:  # the first follower's check: no insert is on disk yet
                fault.enter_context(writes_fail_past(wal))

    big = [note(f"{i}", 1500) for i in range(6)]  # more pages than the WAL holds: it must grow
    with ledgers(db, 4) as (books, commits):
        try:
            outcomes = together(
                books,
                lambda book, hold: book.append("m0", plays("7D"), by="m0", check=hold),  # type: ignore[misc]
                [appending(f"m{i}", *big, check=fail_from_now) for i in (1, 2, 3)],
            )
        finally:
            fault.close()
        assert len(commits) == 1  # the shared one was tried, and failed
    for outcome in outcomes:
        assert isinstance(outcome, StorageUnavailable) and outcome.reason == "io"
    assert rows(db) == before
    with SqliteLedger(db) as book:
        assert [book.version(f"m{i}") for i in range(4)] == [1, 1, 1, 1]
        assert book.append("m1", big, by="m1").version == 7
        assert all(report.valid for report in book.verify())


def test_many_writers_on_one_file_each_get_their_own_results(tmp_path: Path) -> None:
    """Free-running writers (however the batches form): every append acknowledged is stored
    once, in its place, and every chain verifies."""
    db = tmp_path / "ledger.db"
    writers, appends = 4, 40
    matches(db, writers)
    results: dict[int, list[int]] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(writers, timeout=60)

    def write(i: int) -> None:
        try:
            with SqliteLedger(db) as book:
                barrier.wait()
                results[i] = [book.append(f"m{i}", [note(f"{i}-{n}")], by=f"w{i}").version for n in range(appends)]
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    with SqliteLedger(db) as book:
        for i in range(writers):
            assert results[i] == list(range(2, appends + 2))
            assert [e.data["text"] for e in book.read(f"m{i}")[1:]] == [f"{i}-{n}" for n in range(appends)]
        assert all(report.valid for report in book.verify())


def test_a_write_taken_by_a_leader_is_not_given_up_when_its_timeout_passes(tmp_path: Path) -> None:
    """The busy timeout bounds the wait for a leader to take a write; once taken, the writer
    waits for that commit, however long the batch runs, and gets its own result."""
    db = tmp_path / "ledger.db"
    matches(db, 2)
    with SqliteLedger(db) as leader_book, SqliteLedger(db, busy_timeout=1.0) as quick:

        def slow(version: int, events: object) -> None:
            time.sleep(1.5)  # run past the follower's busy timeout, inside the shared transaction

        outcomes = together(
            [leader_book, quick],
            lambda book, hold: book.append("m0", plays("7D"), by="m0", check=hold),  # type: ignore[misc]
            [appending("m1", note("patient"), check=slow)],
        )
    assert [o.version for o in outcomes] == [2, 2]
    with SqliteLedger(db) as book:
        assert book.read("m1")[-1].data == {"text": "patient"}
