"""The SQLite ledger: one file, WAL, append-only enforced by the database itself.

Why it is built this way (see ``/work/shared/research/DEPENDENCIES.md`` §2):

* **Raw ``sqlite3`` on the request path, sqlite-utils for the schema.** sqlite-utils'
  ``Migrations`` creates and upgrades the tables once per open; appends use prepared SQL
  strings (cached by the ``sqlite3`` module) and ``executemany``, because sqlite-utils looks
  the schema up on every insert and cannot issue ``BEGIN IMMEDIATE``.
* **``BEGIN IMMEDIATE``** takes the write lock *before* the version is read, so two writers
  never both read version n; a deferred transaction would fail with "database is locked"
  on the read-to-write upgrade, which ``busy_timeout`` does not cover.
* **One connection per ledger object, used by one thread at a time.** The API keeps one
  ledger per worker thread for the life of the process (:class:`ledger.PerThread`), so a
  request never pays for opening a connection, nor for the WAL checkpoint the last close
  of a file does. ``check_same_thread`` is off only so that shutdown may close every
  thread's connection from the main thread.
* **The write procedure is not here**: :class:`ledger.base.Ledger` runs it, the same for
  every backend; this module gives it SQLite's transaction and statements (:class:`_Write`).
* **One write transaction** (:class:`_Write`): every write runs inside it,
  ``BEGIN IMMEDIATE`` … ``COMMIT`` or ``ROLLBACK``, and it is the one place where a
  ``sqlite3`` error becomes a ledger error: a broken uniqueness becomes
  :class:`ConcurrencyConflict` / :class:`MatchExists` / :class:`IdempotencyConflict`, a full
  disk, a read-only file, a lock held past the busy timeout or an I/O error becomes
  :class:`StorageUnavailable` (reads translate the storage faults the same way, through
  :func:`storage_error`). Nothing is half-written: the rollback leaves the log as it was.
* **Group commit.** Appends (and new matches) of one process to different matches that
  arrive while another is being written share the next transaction and its one fsync, a
  savepoint each, each acknowledged only after that commit (:class:`_Write`): four
  writers no longer pay four fsyncs. A writer alone pays nothing for it. PostgreSQL keeps
  one transaction per append.
* **Read-only files are served.** ``read_only=True`` opens ``file:…?mode=ro``; when SQLite
  cannot even create the WAL's shared-memory file next to it (a read-only directory or file
  system) and no WAL is pending, it opens the file ``immutable=1``. :func:`ledger.open_ledger`
  falls back to this by itself when the file or its directory cannot be written.
* **Per-connection PRAGMAs** (``synchronous``, ``foreign_keys``, ``busy_timeout``) are set
  on every open; ``journal_mode=WAL`` persists in the file. ``synchronous=FULL`` (the
  default) makes an acknowledged append survive a power cut, not only a crash.
* **Triggers refuse UPDATE and DELETE** on ``events`` and ``idempotency``; every open checks
  that they exist with the expected text, because a ``table.transform()`` (or a hand edit)
  silently drops triggers.

Tables (created by migration ``m001_initial``)::

    matches      id TEXT PK, game, token_hash, created_at, players (JSON array), status,
                 version, head, meta (JSON object, m003) — the only mutable rows (version,
                 head, status, meta, token_hash)
    events       id INTEGER PK (the global feed order), match_id → matches, seq, type,
                 data (canonical JSON, CHECK json_valid), at, by, key, prev, hash,
                 fmt (chain format), private (format 2: the salts of its private
                 values, JSON ``[[path, salt], …]``, added by ``m002_private``); UNIQUE (match_id, seq)
    idempotency  (match_id, key) PK, body_hash, first_seq, last_seq, created_at

``events`` has an explicit ``id INTEGER PRIMARY KEY`` instead of ``PRIMARY KEY (match_id,
seq)``: the feed's cursor is the rowid, and ``VACUUM`` may renumber rowids unless they are an
explicit INTEGER PRIMARY KEY. ``UNIQUE (match_id, seq)`` is the concurrency guard.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from sqlite_utils import Database, Migrations

from ._core import event_from_row
from ._sql import SqlLedger, SqlStore, Statements, json_text, meta_text
from .base import Head, Snapshot, Store
from .errors import (
    ConcurrencyConflict,
    IdempotencyConflict,
    LedgerError,
    MatchExists,
    StorageUnavailable,
)
from .records import MatchRecord, StoredEvent
from .words import Said


BUSY_TIMEOUT_SECONDS = 10.0
"""How long a writer waits for another writer's transaction before giving up (the default;
``busy_timeout=`` sets it per ledger). Past it the write fails as ``StorageUnavailable("busy")``."""

PAGE_SIZE = 2048
"""Page size of new files. Each commit writes every page it touched to the WAL and fsyncs
it; a one-event append touches three pages (event row, (match_id, seq) index, match row),
so smaller pages mean fewer bytes to sync per append. Measured here at synchronous=FULL:
4096 → 2048 cut an append by up to ~10% in our runs; 1024 gains little more and makes deal events
overflow their page."""

WAL_CHECKPOINT_PAGES = 256
"""Pages in the WAL before a commit folds them into the file (SQLite's default is 1000).

A commit that makes the WAL file longer costs its fsync a file-system journal commit too;
one that overwrites frames of an earlier round does not. The WAL grows until the first
checkpoint (on a new file, and after every restart: the last close deletes it), so a
smaller WAL stops growing sooner. Measured here at synchronous=FULL, a small commit that
overwrites costs about a third less than one that grows the WAL (120 vs 180 µs), and
checkpointing every ~85 one-event appends instead of every ~330 costs little (256 pages
at a time, which also bounds the pause of each)."""

SYNCHRONOUS_LEVELS = frozenset({"OFF", "NORMAL", "FULL", "EXTRA"})

MIGRATION_SET = "tanteo-ledger"

# -- schema --------------------------------------------------------------------------------

_TABLES_V1 = (
    """
    CREATE TABLE matches (
        id          TEXT PRIMARY KEY NOT NULL,
        game        TEXT NOT NULL,
        token_hash  TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        players     TEXT NOT NULL CHECK (json_valid(players) AND json_type(players) = 'array'),
        status      TEXT NOT NULL,
        version     INTEGER NOT NULL CHECK (version >= 1),
        head        TEXT NOT NULL
    ) STRICT
    """,
    "CREATE INDEX matches_created ON matches (created_at)",
    "CREATE INDEX matches_game ON matches (game, created_at)",
    "CREATE INDEX matches_status ON matches (status, created_at)",
    """
    CREATE TABLE events (
        id        INTEGER PRIMARY KEY,
        match_id  TEXT NOT NULL REFERENCES matches (id),
        seq       INTEGER NOT NULL CHECK (seq >= 1),
        type      TEXT NOT NULL,
        data      TEXT NOT NULL CHECK (json_valid(data)),
        at        TEXT NOT NULL,
        "by"      TEXT NOT NULL,
        "key"     TEXT,
        prev      TEXT NOT NULL,
        hash      TEXT NOT NULL,
        fmt       INTEGER NOT NULL,
        UNIQUE (match_id, seq)
    ) STRICT
    """,
    """
    CREATE TABLE idempotency (
        match_id    TEXT NOT NULL REFERENCES matches (id),
        "key"       TEXT NOT NULL,
        body_hash   TEXT NOT NULL,
        first_seq   INTEGER NOT NULL,
        last_seq    INTEGER NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (match_id, "key")
    ) STRICT, WITHOUT ROWID
    """,
)


def _refuse(name: str, when: str, table: str, message: str) -> tuple[str, str]:
    sql = f"CREATE TRIGGER {name} BEFORE {when} ON {table} BEGIN SELECT RAISE(ABORT, '{message}'); END"
    return name, sql


TRIGGERS: dict[str, str] = dict(
    [
        _refuse("events_no_update", "UPDATE", "events", "events table is append-only"),
        _refuse("events_no_delete", "DELETE", "events", "events table is append-only"),
        _refuse("idempotency_no_update", "UPDATE", "idempotency", "idempotency table is append-only"),
        _refuse("idempotency_no_delete", "DELETE", "idempotency", "idempotency table is append-only"),
        _refuse("matches_no_delete", "DELETE", "matches", "matches are never deleted"),
        _refuse(
            "matches_fixed_identity",
            "UPDATE OF id, game, created_at, players",
            "matches",
            "a match keeps its id, game, creation time and players",
        ),
    ]
)
"""The guard triggers, by name, as the current schema creates them; checked on every open.
A migration that rebuilds a table must re-create these (``table.transform()`` drops them)."""

_MIGRATIONS = Migrations(MIGRATION_SET)
_MIGRATION_NAMES: list[str] = []


def _migration(fn: Callable[[Database], None]) -> Callable[[Database], None]:
    """Register a schema migration (applied in definition order, each exactly once)."""
    _MIGRATION_NAMES.append(fn.__name__)
    return _MIGRATIONS()(fn)


@_migration
def m001_initial(db: Database) -> None:
    """Create the matches, events and idempotency tables and their guard triggers."""
    for statement in _TABLES_V1:
        db.execute(statement)
    for sql in TRIGGERS.values():
        db.execute(sql)


@_migration
def m002_private(db: Database) -> None:
    """Add the column that keeps each format-2 event's salts beside it (NULL: no private value)."""
    db.execute("ALTER TABLE events ADD COLUMN private TEXT CHECK (private IS NULL OR json_valid(private))")


@_migration
def m003_match_meta(db: Database) -> None:
    """Give matches a ``meta`` JSON object (title, date, place, tags) to list and filter by."""
    db.execute("ALTER TABLE matches ADD COLUMN meta TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta))")


_SNAPSHOT_FIELDS = """
            match_id  TEXT NOT NULL REFERENCES matches (id),
            seq       INTEGER NOT NULL,
            head      TEXT NOT NULL,
            rules     TEXT NOT NULL,
            state     TEXT NOT NULL,
            digest    TEXT NOT NULL,"""
"""The snapshot columns of m004 and m005 (the text of each CREATE TABLE as it was first written)."""


@_migration
def m004_snapshots(db: Database) -> None:
    """Create the snapshots table: the service's stored states, a cache beside the log.

    Not append-only (a snapshot found stale is rebuilt in place) and not chained: the
    service checks each row against the log and its rules version before using it.
    """
    db.execute(
        f"""
        CREATE TABLE snapshots ({_SNAPSHOT_FIELDS}
            PRIMARY KEY (match_id, seq)
        ) STRICT, WITHOUT ROWID
        """
    )


@_migration
def m005_snapshots_by_rowid(db: Database) -> None:
    """Keep snapshots in a rowid table with an index on (match, seq), not ``WITHOUT ROWID``.

    A ``WITHOUT ROWID`` table is one b-tree keyed by its whole rows, and a row bigger than a
    few hundred bytes (every snapshot) spills onto overflow pages. Comparing a search key with
    such a row reads the whole row into memory: every look-up read whole stored states on its
    way down (and beside an empty range), about 0.5 ms per look-up with 200 KB states, where the
    index holds only (match, seq, rowid). The rows are copied as they are.
    """
    db.execute("ALTER TABLE snapshots RENAME TO snapshots_old")
    db.execute(
        f"""
        CREATE TABLE snapshots (
            id        INTEGER PRIMARY KEY,{_SNAPSHOT_FIELDS}
            UNIQUE (match_id, seq)
        ) STRICT
        """
    )
    db.execute(
        "INSERT INTO snapshots (match_id, seq, head, rules, state, digest) "
        "SELECT match_id, seq, head, rules, state, digest FROM snapshots_old ORDER BY match_id, seq"
    )
    db.execute("DROP TABLE snapshots_old")


@_migration
def m006_projections(db: Database) -> None:
    """Projections (league tables, profiles): documents derived from the logs, and the feed id
    each has caught up to. A cache beside the log: neither chained nor append-only."""
    db.execute(
        "CREATE TABLE projection_docs (name TEXT NOT NULL, doc_key TEXT NOT NULL, doc TEXT NOT NULL, "
        "PRIMARY KEY (name, doc_key)) WITHOUT ROWID, STRICT"
    )
    db.execute("CREATE TABLE projection_positions (name TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL) STRICT")


_SQL = Statements(
    "?",
    tag="EXISTS (SELECT 1 FROM json_each(matches.meta, '$.tags') WHERE json_each.value = ?)",
    place="tanteo_casefold(json_extract(meta, '$.place')) = ?",  # lower() folds ASCII only: "GRÀCIA" finds "Gràcia"
    date="json_extract(meta, '$.date') = ?",
    player="EXISTS (SELECT 1 FROM json_each(matches.players) WHERE json_each.value = ?)",
    newest="rowid",
)
"""The statements SQLite and PostgreSQL share (:mod:`ledger._sql`), prepared once per connection
by the ``sqlite3`` statement cache; SQLite's own follow."""

_SQL_SNAPSHOT_GET = _SQL.snapshot_get
_SQL_SNAPSHOT_PUT = (
    "INSERT OR REPLACE INTO snapshots (match_id, seq, head, rules, state, digest) VALUES (?, ?, ?, ?, ?, ?)"
)
_SQL_APPEND_HEAD = _SQL.get_match  # the whole row: the check is given it
_SQL_APPEND_HEAD_KEYED = (  # the head and the key's first use, in one look-up
    "SELECT m.id, m.game, m.token_hash, m.created_at, m.players, m.status, m.version, m.head, m.meta, "
    "i.body_hash, i.first_seq, i.last_seq FROM matches AS m "
    'LEFT JOIN idempotency AS i ON i.match_id = m.id AND i."key" = ? WHERE m.id = ?'
)
_SQL_MATCH_PUT = (
    "INSERT INTO matches (id, game, token_hash, created_at, players, status, version, head, meta) "
    "VALUES (?, ?, ?, ?, json(?), ?, ?, ?, json(?))"
)
_SQL_MATCH_META = "UPDATE matches SET meta = json(?) WHERE id = ?"

_NO_UPPER_BOUND = 2**63 - 1

_R = TypeVar("_R")


class _Reading:
    """Lend the connection to a read, its storage faults (an I/O error, a file that vanished)
    raised as :class:`StorageUnavailable`, translated by the same :func:`storage_error` as writes."""

    __slots__ = ("ledger",)

    def __init__(self, ledger: SqliteLedger) -> None:
        self.ledger = ledger

    def __enter__(self) -> sqlite3.Connection:
        return self.ledger._connection()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if isinstance(exc, sqlite3.Error):
            translated = storage_error(exc)
            if translated is not None:
                raise translated from exc


class SqliteLedger(SqlLedger):
    """A :class:`~ledger.base.Ledger` in one SQLite file.

    Open one per thread (or per request) and close it when done; several objects on the same
    file, in one process or many, serialize their writes through SQLite's write lock.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        read_only: bool = False,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
    ) -> None:
        """Open (creating the file, its directory and its schema if needed) a ledger file.

        ``read_only`` opens an existing file without writing anything, not even the schema
        (``verify_file`` and read-only file systems use it): the file must exist and hold a
        current Tanteo schema; every write then raises ``StorageUnavailable("read_only")``.
        ``busy_timeout`` is how many seconds a write waits for another writer's lock.

        Raises:
            ValueError: ``synchronous`` is not OFF, NORMAL, FULL or EXTRA.
            StorageUnavailable: the file or its directory cannot be written (``read_only``
                reason: open it read-only instead), or the storage failed while opening.
            LedgerError: the file is not a Tanteo ledger, is damaged, or its guard triggers
                are missing or altered.
        """
        level = str(synchronous).upper()
        if level not in SYNCHRONOUS_LEVELS:
            raise ValueError(f"synchronous must be one of {sorted(SYNCHRONOUS_LEVELS)}, got {synchronous!r}")
        self.path = os.fspath(path)
        self.read_only = read_only
        self.immutable = False
        """True when the file was opened ``immutable=1`` (read-only, no WAL file possible)."""
        self.busy_timeout = float(busy_timeout)
        in_memory = self.path == ":memory:"
        self._queue = _Queue() if in_memory else _file_queue(self.path)
        self._mode = (level, read_only)
        """Appends are committed together only by connections opened alike (durability, read-only)."""
        self._conn: sqlite3.Connection | None = None
        if read_only:
            if in_memory or not os.path.exists(self.path):
                raise LedgerError(Said("no ledger database at %(path)s", path=self.path))
            self._open_read_only(level)
        else:
            if not in_memory:
                try:
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                except OSError as error:
                    raise StorageUnavailable(
                        _os_reason(error), f"cannot create the directory of {self.path}"
                    ) from error
            self._open(self.path, False, level, in_memory)

    def _open(self, target: str, uri: bool, level: str, in_memory: bool) -> None:
        try:
            self._conn = sqlite3.connect(
                target, timeout=self.busy_timeout, isolation_level=None, uri=uri, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise self._open_error(error) from error
        # One reusable cursor for the write path: creating a cursor per statement costs
        # about a microsecond each, five times per append.
        self._cur = self._conn.cursor()
        try:
            self._configure(level, in_memory)
            if not self.read_only:
                self._migrate()
            self._check_schema()
        except sqlite3.DatabaseError as error:
            self._conn.close()
            self._conn = None
            raise self._open_error(error) from error
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    def _open_read_only(self, level: str) -> None:
        """``mode=ro``; ``immutable=1`` when SQLite cannot create the WAL index beside the file.

        ``immutable`` ignores any WAL file, so it is only used when there is no WAL
        content to miss (none on disk, or an empty one).
        """
        base = Path(self.path).resolve().as_uri()
        try:
            self._open(base + "?mode=ro", True, level, False)
            return
        except StorageUnavailable:
            wal = Path(f"{self.path}-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise
        self.immutable = True
        self._open(base + "?immutable=1", True, level, False)

    def _open_error(self, error: sqlite3.Error) -> LedgerError:
        """Say why a file could not be opened: a storage fault, or not a usable ledger."""
        if _sqlite_code(error) == sqlite3.SQLITE_CANTOPEN:
            writable = os.access(self.path if os.path.exists(self.path) else Path(self.path).parent, os.W_OK)
            if self.read_only or not writable:
                how = "the WAL index beside" if self.read_only else "for writing"
                return StorageUnavailable("read_only", f"cannot open {how} {self.path}")
        translated = storage_error(error)
        if translated is not None:
            return translated
        return LedgerError(
            Said("%(path)s is not a usable ledger database: %(error)s", path=self.path, error=str(error))
        )

    def __repr__(self) -> str:
        mode = ", read_only=True" if self.read_only else ""
        return f"SqliteLedger({self.path!r}{mode})"

    # -- opening ---------------------------------------------------------------------------

    def _configure(self, synchronous: str, in_memory: bool) -> None:
        conn = self._connection()
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        if not self.read_only:
            # Only takes effect on a new, empty file (before WAL is on and the first table
            # exists); an existing file keeps its page size.
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode != "wal" and not in_memory:
                raise LedgerError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
            conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
        conn.execute(f"PRAGMA synchronous = {synchronous}")  # checked against SYNCHRONOUS_LEVELS
        conn.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        """Apply pending migrations under the write lock, so concurrent first opens agree."""
        conn = self._connection()
        if self._migrations_applied() == len(_MIGRATION_NAMES):
            return  # the common case: one cheap query per open
        with self._transaction():
            # Inside our transaction sqlite-utils uses savepoints, so the whole upgrade
            # commits at once and a second process waiting on the lock then finds it done.
            _MIGRATIONS.apply(Database(conn, execute_plugins=False, recursive_triggers=False))

    def _migrations_applied(self) -> int:
        try:
            (count,) = (
                self._connection()
                .execute("SELECT count(*) FROM _sqlite_migrations WHERE migration_set = ?", (MIGRATION_SET,))
                .fetchone()
            )
        except sqlite3.OperationalError as error:
            if storage_error(error) is not None:
                raise
            return 0  # no migrations table yet: a new file
        return int(count)

    def _check_schema(self) -> None:
        """Refuse to work on a file whose tables or guard triggers are not what we created."""
        conn = self._connection()
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing_tables = {"matches", "events", "idempotency"} - tables
        if missing_tables:
            raise LedgerError(
                Said(
                    "%(path)s is not a Tanteo ledger (missing tables: %(tables)s)",
                    path=self.path,
                    tables=", ".join(sorted(missing_tables)),
                )
            )
        if self._migrations_applied() < len(_MIGRATION_NAMES):
            raise LedgerError(
                Said("%(path)s has an older schema; open it read-write once to upgrade it", path=self.path)
            )
        found = {
            name: " ".join(sql.split())
            for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        }
        bad = sorted(name for name, sql in TRIGGERS.items() if found.get(name) != " ".join(sql.split()))
        if bad:
            raise LedgerError(
                Said(
                    "%(path)s: append-only guard triggers missing or altered: %(triggers)s; "
                    "the file was changed outside Tanteo and cannot be trusted (restore a backup)",
                    path=self.path,
                    triggers=", ".join(bad),
                )
            )

    # -- the backend's part of the procedure (see :class:`ledger.base.Ledger`) ---------------

    _SQL = _SQL
    _NO_UPPER_BOUND = _NO_UPPER_BOUND
    _NO_LIMIT = -1

    def _run(self, match_id: str, key: str | None, work: Callable[[Store], _R]) -> _R:
        """Run an append or a new match in a ``BEGIN IMMEDIATE`` transaction, shared with the
        appends to other matches arriving at the same time, a savepoint each (see :class:`_Write`).

        Five statements for a batch without a key (``BEGIN IMMEDIATE``, the head, the
        inserts, the match row, ``COMMIT``), one more with a key: the key is looked up with
        the head (an idempotency row only exists for an existing match, so the order of
        the refusals is unchanged) and stored after the inserts. The head is the whole match
        row, so that the check is given it at no further statement.
        """
        return _Write(self, match_id, key).run(work)  # type: ignore[no-any-return]

    def _transaction(self, match_id: str = "") -> _Write:
        """The write transaction every other write runs in, alone (see :class:`_Write`)."""
        return _Write(self, match_id, None)

    def _reading(self) -> _Reading:
        return _Reading(self)

    @contextlib.contextmanager
    def _consistent(self, raw: bool = False, place: bool = False) -> Iterator[sqlite3.Connection]:
        """Several reads on one snapshot (a read transaction, unless the write transaction is
        open: a check may call back into the ledger); ``raw`` reads text as bytes, so that a
        damaged file is reported rather than crashing the verifier."""
        with self._reading() as conn:
            if place:
                conn.create_function("tanteo_casefold", 1, _casefold, deterministic=True)
            saved_factory = conn.text_factory
            if raw:
                conn.text_factory = bytes
            try:
                with _snapshot(conn):
                    yield conn
            finally:
                conn.text_factory = saved_factory

    def _feed(self, after_id: int, limit: int) -> list[tuple[int, StoredEvent]]:
        """Writes are serialized, so ids grow in commit order."""
        with self._reading() as conn:
            rows = conn.execute(_SQL.feed, (after_id, _NO_UPPER_BOUND, limit)).fetchall()
        return [(row[0], event_from_row(row[1:])) for row in rows]

    def _changes(self, after_id: int | None) -> tuple[int, dict[str, int]]:
        """Writes are serialized, so an id seen means every lower id is stored too."""
        with self._reading() as conn:
            if after_id is None:
                return int(conn.execute(_SQL.feed_end).fetchone()[0]), {}
            rows = conn.execute(_SQL.changes, (after_id, _NO_UPPER_BOUND)).fetchall()
        return max((int(row[2]) for row in rows), default=after_id), {row[0]: int(row[1]) for row in rows}

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Store (or replace) a match's snapshot at its seq, in its own small transaction.

        The transaction does not wait for the disk (``synchronous = NORMAL``, which in WAL mode
        never corrupts the file): a snapshot is a cache, so a power cut may lose it, never the
        log, and the next durable commit (an append's fsync of the same WAL) makes it
        durable too. The writer that stores one at a match's end then pays no second fsync.

        Raises:
            MatchNotFound: no such match.
        """
        conn = self._connection()
        (level,) = conn.execute("PRAGMA synchronous").fetchone()
        conn.execute("PRAGMA synchronous = NORMAL")
        try:
            super().put_snapshot(snapshot)
        finally:
            conn.execute(f"PRAGMA synchronous = {int(level)}")

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (the last one to close checkpoints the WAL into the file).

        The API closes its ledgers once, at shutdown, never after a request.
        """
        if self._conn is not None:
            self._cur.close()
            self._conn.close()
            self._conn = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise LedgerError("the ledger is closed")
        return self._conn

    def _cursor(self) -> sqlite3.Cursor:
        if self._conn is None:
            raise LedgerError("the ledger is closed")
        return self._cur


class _Queue:
    """The writers of one database file in this process, and who is writing now.

    ``busy`` is True while one thread (the leader) holds the file's write transaction;
    ``pending`` holds the appends waiting for a leader to take them (see :class:`_Write`).
    """

    __slots__ = ("busy", "cond", "pending", "waiting")

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.Lock())
        self.pending: deque[_Write] = deque()
        self.busy = False
        self.waiting = 0
        """How many threads wait on ``cond`` (none: leaving wakes nobody)."""


_FILE_QUEUES: dict[str, _Queue] = {}
_FILE_QUEUES_GUARD = threading.Lock()


def _file_queue(path: str) -> _Queue:
    """The one in-process writers' queue of a database file (by its real path)."""
    key = os.path.realpath(path)
    with _FILE_QUEUES_GUARD:
        queue = _FILE_QUEUES.get(key)
        if queue is None:
            queue = _FILE_QUEUES[key] = _Queue()
        return queue


_Work = Callable[[Store], Any]

GROUP_MOST = 64
"""The most appends one group commit takes (it bounds how long the leader's own write waits)."""


class _Write(SqlStore):
    """One write transaction: ``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` on any error.

    Every write of :class:`SqliteLedger` runs inside one, and this is the one place where a
    write's ``sqlite3`` errors become ledger errors:

    * a duplicate ``(match_id, seq)`` → :class:`ConcurrencyConflict` (``BEGIN IMMEDIATE``
      means our own writers never collide there; a collision means a row was written
      behind the match row's back, by another program or an old version, and it is
      reported like any other lost race), a duplicate match id → :class:`MatchExists`, a
      duplicate idempotency key → :class:`IdempotencyConflict`;
    * a full disk, a read-only file, a lock held past the busy timeout, an I/O error →
      :class:`StorageUnavailable` (see :func:`storage_error`).

    Anything else (the caller's ``check`` refusing, a bug) propagates unchanged after the
    rollback. A class, not a generator-based context manager: it is on the append hot path.

    Two ways in. ``with`` (migrations, imports, snapshots, token rotation): the thread
    writes alone, in its own transaction. :meth:`run` (appends and new matches, the request
    path): **group commit**. The writers of one process queue per file (:class:`_Queue`);
    a writer that finds nobody writing becomes the *leader*: it opens one ``BEGIN
    IMMEDIATE`` on its own connection, takes every append queued by then (one per match,
    from connections opened alike), runs each inside ``SAVEPOINT`` … ``RELEASE`` (one that
    raises is rolled back to its savepoint, its error kept for its own writer, and the
    others go on), takes in the same way those that queued meanwhile, then one ``COMMIT``:
    one fsync for all. Only then is anyone acknowledged: each writer gets its own result
    or error, and all get the storage error if the ``COMMIT`` failed. A writer alone runs
    without a savepoint and never waits for company, so it pays nothing for this. The
    leader runs the followers' work, ``check`` included, in its thread (a check must not
    depend on thread-locals); two appends to the same match never share a transaction, so
    a check that reads its match through its own ledger sees everything committed before
    it. Waiters are woken by the leader, where SQLite's busy handler polls by sleeping
    (1, 2, 5, 10 … 100 ms); other processes still queue on SQLite's lock. The
    wait for the queue is bounded by the ledger's busy timeout. (PostgreSQL keeps one
    transaction per append: :mod:`ledger.postgres`.)
    """

    __slots__ = ("done", "error", "key", "match_id", "mode", "queue", "queued", "result", "timeout", "work")

    sql = _SQL
    no_limit = -1
    failures: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, ledger: SqliteLedger, match_id: str, key: str | None) -> None:
        super().__init__(ledger._cursor())
        self.queue = ledger._queue
        self.mode = ledger._mode
        self.timeout = ledger.busy_timeout
        self.match_id = match_id
        self.key = key
        self.done = False
        self.queued = False
        """In the queue's ``pending``, waiting for a leader to take it."""
        self.result: Any = None
        self.error: BaseException | None = None

    # -- the store (see :class:`ledger.base.Store`): SQLite's own statements ----------------

    def head(self, match_id: str, key: str | None) -> Head | None:
        if key is None:
            row = self.cur.execute(_SQL_APPEND_HEAD, (match_id,)).fetchone()
        else:
            row = self.cur.execute(_SQL_APPEND_HEAD_KEYED, (key, match_id)).fetchone()
        if row is None:
            return None
        self.row = row
        return row[6], row[7], row[5], (row[9:] if key is not None and row[9] is not None else None)

    def insert_match(self, match: MatchRecord) -> bool:
        """Insert a match row (a taken id is a uniqueness error: :class:`MatchExists`, by :meth:`_translate`)."""
        self.cur.execute(
            _SQL_MATCH_PUT,
            (
                match.id,
                match.game,
                match.token_hash,
                match.created_at,
                json_text(list(match.players)),
                match.status,
                match.version,
                match.head,
                meta_text(match.meta),
            ),
        )
        return True

    def set_meta(self, match_id: str, meta: Mapping[str, Any]) -> None:
        self.cur.execute(_SQL_MATCH_META, (meta_text(meta), match_id))

    def put_snapshot(self, snapshot: Snapshot) -> None:
        self.cur.execute(
            _SQL_SNAPSHOT_PUT,
            (snapshot.match_id, snapshot.seq, snapshot.head, snapshot.rules, snapshot.state, snapshot.digest),
        )

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        cur = self.cur
        cur.execute("SAVEPOINT tanteo_import")
        try:
            yield
        except sqlite3.Error:
            raise  # the storage failed: the whole transaction goes (translated on leaving it)
        except Exception:
            cur.execute("ROLLBACK TO tanteo_import")
            cur.execute("RELEASE tanteo_import")
            raise
        cur.execute("RELEASE tanteo_import")

    # -- alone (with) ----------------------------------------------------------------------

    def __enter__(self) -> _Write:
        queue = self.queue
        with queue.cond:
            if queue.busy:
                queue.waiting += 1
                try:
                    if not queue.cond.wait_for(lambda: not queue.busy, self.timeout):
                        raise StorageUnavailable("busy", "another thread of this process held the write lock")
                finally:
                    queue.waiting -= 1
            queue.busy = True
        try:
            self.cur.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            self._leave()
            raise self._translate(error) from error
        except BaseException:
            self._leave()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc is None:
                try:
                    self.cur.execute("COMMIT")
                    return
                except sqlite3.Error as error:
                    _rollback(self.cur.connection)
                    raise self._translate(error) from error
            _rollback(self.cur.connection)
            if isinstance(exc, sqlite3.Error):
                raise self._translate(exc) from exc
        finally:
            self._leave()

    def _leave(self) -> None:
        """Give up the file: wake the waiting writers (one of them leads next)."""
        queue = self.queue
        with queue.cond:
            queue.busy = False
            if queue.waiting:
                queue.cond.notify_all()

    # -- grouped (run) ---------------------------------------------------------------------

    def run(self, work: _Work) -> Any:
        """Run ``work(self)`` in a write transaction, shared with the appends to other matches
        queued at the same time; return its result once committed, or raise its error.

        Raises:
            StorageUnavailable: ``busy`` when no leader took this write within the busy
                timeout (nothing was written), or the storage failed (nobody was acknowledged).
        """
        self.work = work
        queue = self.queue
        with queue.cond:
            if queue.busy:
                queue.pending.append(self)
                self.queued = True
                deadline: float | None = time.monotonic() + self.timeout
                queue.waiting += 1
                try:
                    while queue.busy and not self.done:
                        remaining = None if deadline is None else deadline - time.monotonic()
                        if remaining is not None and remaining <= 0:
                            if self.queued:
                                queue.pending.remove(self)
                                raise StorageUnavailable("busy", "another thread of this process held the write lock")
                            deadline = remaining = None  # a leader took it: its outcome comes after that commit
                        queue.cond.wait(remaining)
                finally:
                    queue.waiting -= 1
                if self.done:
                    return self._outcome()
            queue.busy = True
        try:
            while not self.done:
                self._lead()
        finally:
            with queue.cond:
                if self.queued:  # interrupted before anyone took it
                    queue.pending.remove(self)
                queue.busy = False
                if queue.waiting:
                    queue.cond.notify_all()
        return self._outcome()

    def _outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result

    def _take(self, pending: deque[_Write], matches: set[str], room: int) -> list[_Write]:
        """The queued appends this leader writes next: one per match not in its transaction
        yet (``matches``, updated), from connections opened alike, at most ``room``."""
        taken: list[_Write] = []
        for write in pending:
            if len(taken) == room:
                break
            if write.mode == self.mode and write.match_id not in matches:
                matches.add(write.match_id)
                write.queued = False
                taken.append(write)
        if len(taken) == len(pending):
            pending.clear()
        else:
            for write in taken:
                pending.remove(write)
        return taken

    def _lead(self) -> None:
        """Open one transaction on this leader's connection, write what is queued in it, commit;
        record each write's outcome and wake its writer.

        The batch is taken once the transaction is open (another process may have made the
        leader wait for SQLite's lock), and appends that queue while it runs join it before
        the ``COMMIT`` (at most :data:`GROUP_MOST` in all): the leader never waits for
        anyone, but a writer that arrives in time shares the fsync instead of waiting for
        the next one. If ``BEGIN`` fails, only the leader's own write is told so.
        """
        cur, queue = self.cur, self.queue
        try:
            cur.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            if self.queued:
                with queue.cond:
                    queue.pending.remove(self)
                    self.queued = False
            self.error, self.done = self._translate(error), True
            return
        batch: list[_Write] = [] if self.queued else [self]
        matches = {self.match_id} if batch else set()
        if queue.pending:  # read without the lock: an append missed here waits for the next leader
            with queue.cond:
                batch += self._take(queue.pending, matches, GROUP_MOST - len(batch))
        savepoints = len(batch) > 1  # a writer alone needs none: its error rolls back everything
        written = ran = 0
        try:
            while True:
                while ran < len(batch):
                    write = batch[ran]
                    ran += 1
                    write.cur = cur
                    if savepoints:
                        cur.execute("SAVEPOINT tanteo_append")
                    try:
                        write.result = write.work(write)
                    except Exception as error:  # noqa: BLE001 - this append is refused, the others go on
                        translated = write._translate(error) if isinstance(error, sqlite3.Error) else error
                        if isinstance(translated, StorageUnavailable) or not cur.connection.in_transaction:
                            raise  # the storage failed: the whole transaction goes
                        write.error = translated
                        if savepoints:
                            cur.execute("ROLLBACK TO tanteo_append")
                            cur.execute("RELEASE tanteo_append")
                        continue
                    if savepoints:
                        cur.execute("RELEASE tanteo_append")
                    written += 1
                if not written or len(batch) >= GROUP_MOST or not queue.pending:
                    break
                with queue.cond:
                    more = self._take(queue.pending, matches, GROUP_MOST - len(batch))
                if not more:
                    break
                batch += more
                savepoints = True
            if written:
                cur.execute("COMMIT")
            else:
                _rollback(cur.connection)
        except BaseException as error:
            _rollback(cur.connection)
            failed = self._translate(error) if isinstance(error, sqlite3.Error) else error
            for write in batch:  # nobody is acknowledged
                write.result, write.error = None, failed
            if not isinstance(error, Exception):
                raise
        finally:
            if len(batch) == 1 and batch[0] is self:
                self.done = True
            else:
                with queue.cond:
                    for write in batch:
                        write.done = True
                    queue.cond.notify_all()

    def _translate(self, error: BaseException) -> BaseException:
        if isinstance(error, sqlite3.IntegrityError):
            message = str(error)
            if "events.match_id, events.seq" in message:
                (current,) = self.cur.execute(_SQL.max_seq, (self.match_id,)).fetchone()
                return ConcurrencyConflict(self.base, current, match_id=self.match_id)
            if "matches.id" in message:
                return MatchExists(self.match_id)
            if "idempotency.match_id, idempotency.key" in message and self.key is not None:
                return IdempotencyConflict(self.key, match_id=self.match_id)
            return error
        if isinstance(error, sqlite3.Error):
            return storage_error(error) or error
        return error


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is open (SQLite ends some on its own, e.g. on a full disk)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # SQLite rolls back a failed transaction itself when the connection cannot


_STORAGE_REASONS = {
    sqlite3.SQLITE_FULL: "full",
    sqlite3.SQLITE_READONLY: "read_only",
    sqlite3.SQLITE_BUSY: "busy",
    sqlite3.SQLITE_LOCKED: "busy",
    sqlite3.SQLITE_IOERR: "io",
    sqlite3.SQLITE_CANTOPEN: "io",
}


def _sqlite_code(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF  # the primary code of an extended one


def storage_error(error: sqlite3.Error) -> StorageUnavailable | None:
    """Return the :class:`StorageUnavailable` a storage fault means, or None for any other error."""
    code = _sqlite_code(error)
    reason = _STORAGE_REASONS.get(code) if code is not None else None
    if reason is None:
        return None
    return StorageUnavailable(reason, str(error))


def _os_reason(error: OSError) -> str:
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "read_only"
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "full"
    return "io"


@contextlib.contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Run several reads on one snapshot (a read transaction), unless one is already open:
    a ``check`` may call back into the ledger from inside the write transaction."""
    if conn.in_transaction:
        yield
        return
    try:
        conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
    except sqlite3.Error as error:
        translated = storage_error(error)
        if translated is None:
            raise
        raise translated from error


def _casefold(value: object) -> str | None:
    return value.casefold() if isinstance(value, str) else None
