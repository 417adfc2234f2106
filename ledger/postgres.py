"""The PostgreSQL ledger: many app servers, one shared database.

The same :class:`~ledger.base.Ledger` as the SQLite file, for deployments that outgrow one
machine: several ``tanteo serve`` processes behind a load balancer all write to one
PostgreSQL database. The rows are the SQLite ledger's rows (canonical JSON text, the same
envelope, the same chain format per row), built by the same :mod:`ledger._core` functions,
so the same events hash to the same bytes on either backend and ``tanteo verify`` reads
either.

Why it is built this way:

* **A connection pool per ledger object** (psycopg-pool), shared by the threads of a
  process: one ``PostgresLedger`` serves every worker thread of ``tanteo serve``. Each
  connection is checked as it is lent, so a database restart costs no request an error
  unless it happens in the middle of that request. A thread
  that is inside a write transaction keeps its connection for every ledger call it makes
  meanwhile (a ``check`` that reads the log back sees the transaction it runs in, and
  never waits for a second connection from a pool the other writers hold).
* **The write procedure is not here**: :class:`ledger.base.Ledger` runs it, the same for
  every backend; this module gives it PostgreSQL's transaction and statements (:class:`_Write`).
* **One write transaction** (:meth:`PostgresLedger._transaction`): ``READ COMMITTED`` plus
  ``SELECT … FOR UPDATE`` on the match row, so two writers of one match queue on that row
  and the second one reads the version the first one committed (the expected-version check
  is exact); writers of different matches do not wait for each other until the insert.
* **One global order of events** (``feed``) without serializing writers: ids come from an
  identity column, and concurrent transactions may commit them out of order (id 50 visible
  while id 49 is still in flight). Every writer holds a *shared* advisory lock from just
  before its insert to its commit; ``feed`` reads the highest id handed out so far, then
  takes the same lock *exclusively* for an instant — which waits for every writer that may
  hold an id up to that one — and returns only ids up to it. So a consumer that remembers the
  last id it saw never skips a later-committing lower id, and writers of different matches
  commit in parallel (a global exclusive lock held to the commit, measured in
  ``bench/postgres_bench.py``, cut 8 concurrent writers to a quarter).
* **Append-only enforced by the database**: triggers refuse UPDATE, DELETE and TRUNCATE on
  ``events`` and ``idempotency`` (and DELETE, TRUNCATE and identity changes on ``matches``);
  every open checks that they are present, enabled and call the unchanged refusing function.
* **Every storage error translated in one place** (:func:`_translate`), into the same
  ledger errors the SQLite backend raises.
* **Schema versions** in ``tanteo_schema``: migrations run on first use, in one
  transaction under an advisory lock, so servers starting together agree.

Tables (schema versions 1 and 2), in the first schema of the connection's ``search_path``::

    tanteo_schema  version PK, applied_at
    matches        id PK, game, token_hash, created_at, players (jsonb array), status,
                   version, head, ord (creation order) — the only mutable rows
    events         id (identity, the feed order), match_id → matches, seq, type, data
                   (canonical JSON text, never jsonb: jsonb reorders keys and the hash is
                   over these bytes), at, by, key, prev, hash, fmt, private (format 2:
                   the salts of its private values, added by version 2); UNIQUE (match_id, seq)
    idempotency    (match_id, key) PK, body_hash, first_seq, last_seq, created_at
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from ._core import Row, event_from_row
from .words import Said
from ._sql import MATCH_COLUMNS, SqlLedger, SqlStore, Statements, json_text, meta_text
from .base import Head, Snapshot, Store
from .errors import (
    ConcurrencyConflict,
    LedgerError,
    StorageUnavailable,
)
from .records import MatchRecord, StoredEvent, VerifyReport


URL_SCHEMES = ("postgresql://", "postgres://")
"""The spellings of a PostgreSQL location that :func:`ledger.open_ledger` recognizes."""

BUSY_TIMEOUT_SECONDS = 10.0
"""How long a writer waits for another writer's lock, or a caller for a free connection."""

POOL_SIZE = 8
"""Connections per ledger object at most (``tanteo serve`` runs 4 worker threads)."""

MIGRATION_LOCK = 0x7A4E7E01
"""Advisory lock key held while migrating (servers starting together migrate once)."""

FEED_LOCK = 0x7A4E7E02
"""Advisory lock key: writers hold it shared from the events insert to the commit; ``feed``
takes it exclusively for an instant to wait out writers holding lower ids."""

SCHEMA_VERSION = 5

ANNOUNCE_CHANNEL = "tanteo_appends"
"""The LISTEN/NOTIFY channel on which every append announces its match's new version
(payload: ``<schema> <version> <match id>``), so readers on every server wake at once.

Sent just after the commit, on the same connection, in a transaction of its own that does
not wait for the disk (``synchronous_commit = off``: it writes nothing but the
notification): a transaction that notifies holds a database-wide lock from its pre-commit to
the end of its commit (PostgreSQL orders notifications that way), so a NOTIFY inside the
append would make every append wait for every other append's flush to disk."""

VERIFY_BATCH = 2000
"""Rows fetched at a time by ``verify()`` of a whole database (a server-side cursor: the
events of every match never sit in memory at once)."""

# -- schema --------------------------------------------------------------------------------

REFUSE_FUNCTION = "tanteo_refuse"
REFUSE_BODY = "BEGIN RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation'; END"
"""The body of the one function every guard trigger calls: refuse, naming why."""

_TABLES_V1 = (
    f"""
    CREATE FUNCTION {REFUSE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $body${REFUSE_BODY}$body$
    """,
    """
    CREATE TABLE matches (
        id          text PRIMARY KEY,
        game        text NOT NULL,
        token_hash  text NOT NULL,
        created_at  text NOT NULL,
        players     jsonb NOT NULL CHECK (jsonb_typeof(players) = 'array'),
        status      text NOT NULL,
        version     integer NOT NULL CHECK (version >= 1),
        head        text NOT NULL,
        ord         bigint GENERATED ALWAYS AS IDENTITY UNIQUE
    )
    """,
    "CREATE INDEX matches_created ON matches (created_at, ord)",
    "CREATE INDEX matches_game ON matches (game, created_at)",
    "CREATE INDEX matches_status ON matches (status, created_at)",
    """
    CREATE TABLE events (
        id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        match_id  text NOT NULL REFERENCES matches (id),
        seq       integer NOT NULL CHECK (seq >= 1),
        type      text NOT NULL,
        data      text NOT NULL,
        at        text NOT NULL,
        "by"      text NOT NULL,
        "key"     text,
        prev      text NOT NULL,
        hash      text NOT NULL,
        fmt       integer NOT NULL,
        CONSTRAINT events_match_seq UNIQUE (match_id, seq)
    )
    """,
    """
    CREATE TABLE idempotency (
        match_id    text NOT NULL REFERENCES matches (id),
        "key"       text NOT NULL,
        body_hash   text NOT NULL,
        first_seq   integer NOT NULL,
        last_seq    integer NOT NULL,
        created_at  text NOT NULL,
        PRIMARY KEY (match_id, "key")
    )
    """,
)


def _guard(name: str, when: str, table: str, message: str, *, each: str = "ROW") -> tuple[str, tuple[str, str, str]]:
    sql = (
        f"CREATE TRIGGER {name} BEFORE {when} ON {table} FOR EACH {each} "
        f"EXECUTE FUNCTION {REFUSE_FUNCTION}('{message}')"
    )
    return name, (table, sql, message)


GUARDS: dict[str, tuple[str, str, str]] = dict(
    [
        _guard("events_no_update", "UPDATE", "events", "events table is append-only"),
        _guard("events_no_delete", "DELETE", "events", "events table is append-only"),
        _guard("events_no_truncate", "TRUNCATE", "events", "events table is append-only", each="STATEMENT"),
        _guard("idempotency_no_update", "UPDATE", "idempotency", "idempotency table is append-only"),
        _guard("idempotency_no_delete", "DELETE", "idempotency", "idempotency table is append-only"),
        _guard(
            "idempotency_no_truncate", "TRUNCATE", "idempotency", "idempotency table is append-only", each="STATEMENT"
        ),
        _guard("matches_no_delete", "DELETE", "matches", "matches are never deleted"),
        _guard("matches_no_truncate", "TRUNCATE", "matches", "matches are never deleted", each="STATEMENT"),
        _guard(
            "matches_fixed_identity",
            "UPDATE OF id, game, created_at, players",
            "matches",
            "a match keeps its id, game, creation time and players",
        ),
    ]
)
"""The guard triggers by name: (table, the statement that creates it, its message).
Checked on every open: present, enabled, and the definition PostgreSQL reports unchanged."""

MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (*_TABLES_V1, *(sql for _, sql, _ in GUARDS.values()))),
    # Chain format 2: each event's salts of its private values, JSON [[path, salt], …]
    # (NULL: none), as SQLite's m002_private.
    (2, ("ALTER TABLE events ADD COLUMN private text CHECK (private IS NULL OR private::jsonb IS NOT NULL)",)),
    # What people call a match by (title, date, place, tags), as SQLite's m003_match_meta;
    # place_key is meta.place casefolded by Python on write, so that the place filter folds
    # case as SQLite's does whatever the database's locale.
    (
        3,
        (
            "ALTER TABLE matches ADD COLUMN meta jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(meta) = 'object')",
            "ALTER TABLE matches ADD COLUMN place_key text",
            "CREATE INDEX matches_place ON matches (place_key)",
        ),
    ),
    # The service's stored states, a cache beside the log (SQLite's m004_snapshots): not
    # append-only (a stale one is rebuilt in place) and not chained (the service checks it).
    (
        4,
        (
            """
    CREATE TABLE snapshots (
        match_id  text NOT NULL REFERENCES matches (id),
        seq       integer NOT NULL,
        head      text NOT NULL,
        rules     text NOT NULL,
        state     text NOT NULL,
        digest    text NOT NULL,
        PRIMARY KEY (match_id, seq)
    )
    """,
        ),
    ),
    # Projections (league tables, profiles), SQLite's m006_projections; keys compare by code
    # point (COLLATE "C"), whatever the database's locale, so that a prefix is a key range.
    (
        5,
        (
            'CREATE TABLE projection_docs (name text NOT NULL, doc_key text COLLATE "C" NOT NULL, '
            "doc text NOT NULL, PRIMARY KEY (name, doc_key))",
            "CREATE TABLE projection_positions (name text PRIMARY KEY, position bigint NOT NULL)",
        ),
    ),
)
"""Schema versions in order: (version, its statements). Each runs once, recorded in
``tanteo_schema``; a new version appends here and never edits an older one."""

# -- SQL -----------------------------------------------------------------------------------

_SQL = Statements(
    "%s",
    tag="meta -> 'tags' @> jsonb_build_array(?::text)",
    place="place_key = ?",
    date="meta ->> 'date' = ? AND jsonb_typeof(meta -> 'date') = 'string'",
    player="players @> jsonb_build_array(?::text)",
    newest="ord",
)
"""The statements SQLite and PostgreSQL share (:mod:`ledger._sql`); PostgreSQL's own follow."""

_SQL_LOCK_HEAD = f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = %s FOR UPDATE"  # the whole row: the check is given it
_SQL_KEY = 'SELECT body_hash, first_seq, last_seq FROM idempotency WHERE match_id = %s AND "key" = %s'
PROJECTION_LOCK = 7_362_901
"""The first key of the advisory lock a projection's write holds (the second: its name's hash)."""
_SQL_PROJECTION_LOCK = "SELECT pg_advisory_xact_lock(%s, hashtext(%s))"

_SQL_FEED_LOCK = f"SELECT pg_advisory_xact_lock_shared({FEED_LOCK})"
_SQL_ANNOUNCE = (  # one round trip: several statements, bound on the client (psycopg.ClientCursor)
    "BEGIN; SET LOCAL synchronous_commit = off; "
    f"SELECT pg_notify('{ANNOUNCE_CHANNEL}', current_schema() || ' ' || %s); COMMIT"
)
_SQL_MATCH_PUT = (
    "INSERT INTO matches (id, game, token_hash, created_at, players, status, version, head, meta, place_key) "
    "VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s::jsonb, %s) ON CONFLICT (id) DO NOTHING RETURNING 1"
)
_SQL_MATCH_META = "UPDATE matches SET meta = %s::jsonb, place_key = %s WHERE id = %s"
_SQL_SNAPSHOT_PUT = (
    "INSERT INTO snapshots (match_id, seq, head, rules, state, digest) VALUES (%s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (match_id, seq) DO UPDATE SET head = EXCLUDED.head, rules = EXCLUDED.rules, "
    "state = EXCLUDED.state, digest = EXCLUDED.digest"
)
_SQL_LAST_ID = "SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass), 0)"

_R = TypeVar("_R")


_NO_UPPER_BOUND = 2**31 - 1  # seq is an integer column


def is_postgres_url(text: str) -> bool:
    """Return whether a configuration string names a PostgreSQL database."""
    return text.strip().startswith(URL_SCHEMES)


class PostgresLedger(SqlLedger):
    """A :class:`~ledger.base.Ledger` in a PostgreSQL database, safe to share between threads.

    Several objects, in one process or many, may work on the same database: writes of one
    match queue on its row lock, and every server sees every other server's commits.
    """

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = POOL_SIZE,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
        read_only: bool = False,
        migrate: bool = True,
    ) -> None:
        """Connect to the database ``url`` names, creating or upgrading the schema if needed.

        ``read_only`` (``tanteo serve --read-only``) runs every transaction read-only: reads
        work, writes raise ``StorageUnavailable("read_only")``, and no schema is created.
        ``migrate=False`` (``tanteo verify``) never creates or changes a table either: the
        database must already hold the current schema.

        Raises:
            StorageUnavailable: the database cannot be reached (``io``).
            LedgerError: it is not a Tanteo ledger, or its guard triggers are missing,
                disabled or altered.
        """
        if not isinstance(url, str) or not is_postgres_url(url):
            raise ValueError(f"a PostgreSQL ledger needs a postgresql:// URL, got {url!r}")
        self.url = url.strip()
        self.busy_timeout = float(busy_timeout)
        self.read_only = read_only
        migrate = migrate and not read_only
        self._local = threading.local()
        self._closed = False
        lock_ms = max(1, int(self.busy_timeout * 1000))
        try:
            # Keep whatever options the URL carries (a search_path, say) and add ours.
            given = psycopg.conninfo.conninfo_to_dict(self.url).get("options") or ""
            ours = f"-c lock_timeout={lock_ms}" + (" -c default_transaction_read_only=on" if read_only else "")
            conninfo = psycopg.conninfo.make_conninfo(self.url, options=f"{given} {ours}".strip())
        except psycopg.ProgrammingError as error:
            raise ValueError(f"not a usable PostgreSQL URL: {error}") from None
        # One connection first, on its own: it says why a database cannot be reached (a wrong
        # password, no such database) where the pool would only time out, and it migrates.
        try:
            probe = psycopg.connect(conninfo, autocommit=True, connect_timeout=max(1, round(self.busy_timeout)))
        except psycopg.OperationalError as error:
            self._closed = True
            reason = " ".join(str(error).split())
            raise _unavailable("io", f"cannot connect to {safe_url(self.url)}: {reason}") from error
        try:
            with probe:
                if migrate:
                    self._migrate(probe)
                elif (_schema_version(probe) or 0) < SCHEMA_VERSION and _schema_version(probe) is not None:
                    raise LedgerError(
                        Said(
                            "%(url)s has an older schema; open it with tanteo serve once to upgrade it",
                            url=safe_url(self.url),
                        )
                    )
                self._check_schema(probe)
        except psycopg.Error as error:
            self._closed = True
            translated = _translate(error)
            if translated is error:
                raise
            raise translated from error
        except BaseException:
            self._closed = True
            raise
        self._pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True},
            # A pooled connection is checked (one empty round trip) as it is lent: after a
            # database restart or failover the dead ones are replaced instead of failing
            # one request each.
            check=ConnectionPool.check_connection,
            open=False,
            name="tanteo-ledger",
        )
        self._pool.open(wait=False)  # the pool connects in the background; calls wait for it
        self._conninfo = conninfo
        self._announcements: _Announcements | None = None
        self._announcements_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PostgresLedger({safe_url(self.url)!r})"

    # -- the one connection boundary and the one write transaction ---------------------

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """Lend this thread a connection: the one it already holds, or one from the pool.

        Every storage error raised inside is translated here, by :func:`_translate`.
        """
        held: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if held is not None:  # a check reading back inside this thread's write transaction
            yield held
            return
        if self._closed:
            raise LedgerError("the ledger is closed")
        try:
            with self._pool.connection(timeout=self.busy_timeout) as conn:
                self._local.conn = conn
                try:
                    yield conn
                finally:
                    self._local.conn = None
        except PoolTimeout as error:
            raise _unavailable("busy", "no database connection came free in time") from error
        except psycopg.Error as error:
            translated = _translate(error)
            if translated is error:
                raise
            raise translated from error

    @contextlib.contextmanager
    def _transaction(self, match_id: str = "") -> Iterator[_Write]:
        """Run the body in one transaction on this thread's connection; commit or roll back.

        After the commit, the versions the body put in ``announce`` are announced to every
        server's listeners (best effort: the write stands whatever happens to the announcement).
        """
        with self._connection() as conn:
            with conn.transaction():
                with conn.cursor() as cur:
                    write = _Write(cur)
                    yield write
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                return  # nested in a transaction of this thread's: nothing is committed yet
            for match_id, version in write.announce:
                try:
                    psycopg.ClientCursor(conn).execute(_SQL_ANNOUNCE, (f"{version} {match_id}",))
                except psycopg.Error:
                    break  # listeners fall back to their timeout; the append is committed

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[psycopg.Cursor[Any]]:
        """Run several reads on one snapshot (a read-only REPEATABLE READ transaction), or
        inside the write transaction this thread already holds."""
        with self._connection() as conn:
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                with conn.cursor() as cur:
                    yield cur
                return
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                with conn.cursor() as cur:
                    yield cur
            finally:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.execute(
                        "COMMIT" if conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS else "ROLLBACK"
                    )

    # -- opening ---------------------------------------------------------------------------

    @staticmethod
    def _migrate(conn: psycopg.Connection[Any]) -> None:
        """Apply pending schema versions in one transaction under the migration lock."""
        if _schema_version(conn) == SCHEMA_VERSION:
            return  # the common case: one cheap query per open
        with conn.transaction():
            conn.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS tanteo_schema ("
                "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            applied = {version for (version,) in conn.execute("SELECT version FROM tanteo_schema")}
            for version, statements in MIGRATIONS:
                if version in applied:
                    continue
                for statement in statements:
                    conn.execute(statement)
                conn.execute("INSERT INTO tanteo_schema (version) VALUES (%s)", (version,))

    def _check_schema(self, conn: psycopg.Connection[Any]) -> None:
        """Refuse to work on a database whose guard triggers are not what we created."""
        where = safe_url(self.url)
        version = _schema_version(conn)
        if version is None:
            raise LedgerError(Said("%(url)s is not a Tanteo ledger (no tanteo_schema table)", url=where))
        if version > SCHEMA_VERSION:
            raise LedgerError(
                Said(
                    "%(url)s has schema version %(version)s, newer than this Tanteo knows (%(known)s); "
                    "upgrade Tanteo before serving it",
                    url=where,
                    version=version,
                    known=SCHEMA_VERSION,
                )
            )
        found: dict[str, tuple[str, str]] = {}
        for name, definition, enabled in conn.execute(
            "SELECT t.tgname, pg_get_triggerdef(t.oid), t.tgenabled FROM pg_trigger AS t "
            "WHERE NOT t.tgisinternal AND t.tgrelid = ANY (ARRAY[to_regclass('events'), "
            "to_regclass('idempotency'), to_regclass('matches')])"
        ):
            found[name] = (" ".join(definition.split()), enabled)
        bad = []
        for name, (table, sql, _message) in GUARDS.items():
            definition, enabled = found.get(name, ("", ""))
            # PostgreSQL reports the table schema-qualified and the argument as written.
            expected_tail = sql.split(f" ON {table} ", 1)[1]
            if enabled != "O" or not definition.endswith(" " + " ".join(expected_tail.split())):
                bad.append(name)
            elif not definition.startswith(sql.split(f" ON {table} ", 1)[0] + " ON "):
                bad.append(name)
        body = conn.execute(
            "SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure(%s)", (f"{REFUSE_FUNCTION}()",)
        ).fetchone()
        if body is None or " ".join(str(body[0]).split()) != REFUSE_BODY:
            bad.append(f"{REFUSE_FUNCTION}()")
        if bad:
            raise LedgerError(
                Said(
                    "%(url)s: append-only guard triggers missing, disabled or altered: %(triggers)s; "
                    "the database was changed outside Tanteo and cannot be trusted (restore a backup)",
                    url=where,
                    triggers=", ".join(sorted(bad)),
                )
            )

    # -- the backend's part of the procedure (see :class:`ledger.base.Ledger`) ---------------

    _SQL = _SQL
    _NO_UPPER_BOUND = _NO_UPPER_BOUND
    _NO_LIMIT = None

    def _run(self, match_id: str, key: str | None, work: Callable[[Store], _R]) -> _R:
        """Run an append or a new match in one transaction (the match row locked by its head)."""
        try:
            with self._transaction() as write:
                return work(write)
        except _SeqTaken as taken:
            # Rows were written behind the match row's back (another program): a lost race.
            raise ConcurrencyConflict(write.base, self._max_seq(match_id), match_id=match_id) from taken.__cause__

    def _reading(self) -> contextlib.AbstractContextManager[psycopg.Connection[Any]]:
        return self._connection()

    def _consistent(self, raw: bool = False, place: bool = False) -> contextlib.AbstractContextManager[Any]:
        return self._snapshot()

    def _all_events(self, cur: Any) -> Iterable[Sequence[Any]]:
        """Every event row through a server-side cursor: the events of every match never sit in memory at once."""
        with cur.connection.cursor(name="tanteo_verify") as events:  # in the snapshot transaction
            events.itersize = VERIFY_BATCH
            yield from events.execute(_SQL.verify_all)

    def _max_seq(self, match_id: str) -> int:
        with self._connection() as conn:
            (current,) = conn.execute(_SQL.max_seq, (match_id,)).fetchone() or (0,)
        return int(current)

    def _feed(self, after_id: int, limit: int) -> list[tuple[int, StoredEvent]]:
        """Only ids whose writers have all finished are returned (see the module docstring), so
        a consumer that remembers the last id it saw never misses an event."""
        with self._connection() as conn:
            (last,) = conn.execute(_SQL_LAST_ID).fetchone() or (0,)
            # Session-level lock and unlock: an instant, even inside a transaction.
            conn.execute(f"SELECT pg_advisory_lock({FEED_LOCK})")
            conn.execute(f"SELECT pg_advisory_unlock({FEED_LOCK})")
            rows = conn.execute(_SQL.feed, (after_id, last, limit)).fetchall()
        return [(int(row[0]), event_from_row(row[1:])) for row in rows]

    def _changes(self, after_id: int | None) -> tuple[int, dict[str, int]]:
        """As :meth:`_feed`: only ids whose writers have all finished count, so nothing is skipped."""
        with self._connection() as conn:
            (last,) = conn.execute(_SQL_LAST_ID).fetchone() or (0,)
            if after_id is None:
                return int(last), {}
            conn.execute(f"SELECT pg_advisory_lock({FEED_LOCK})")
            conn.execute(f"SELECT pg_advisory_unlock({FEED_LOCK})")
            rows = conn.execute(_SQL.changes, (after_id, last)).fetchall()
        return max(int(last), after_id), {row[0]: int(row[1]) for row in rows}

    # -- waiting for appends (any server's) ----------------------------------------------

    def _listening(self) -> _Announcements:
        if self._closed:
            raise LedgerError("the ledger is closed")
        with self._announcements_lock:
            if self._announcements is None:
                self._announcements = _Announcements(self._conninfo)
            return self._announcements

    def _append_mark(self) -> int:
        return self._listening().heard

    def _await_append(self, mark: int, seconds: float) -> None:
        """Woken by any server's announcement; a missed one only makes the wait run to ``seconds``."""
        self._listening().wait_any(mark, seconds)

    def wait_for_append(self, match_id: str, after: int, timeout: float) -> bool:
        """Wait until the match is past version ``after`` (appended to by any server), at
        most ``timeout`` seconds; say whether it is.

        Raises:
            MatchNotFound: no such match.

        Woken by the announcement every append makes after its commit (LISTEN/NOTIFY, one
        listening connection per ledger object, opened on first use), so a live reader on
        one server sees what was recorded through another at once, without polling. A lost
        listening connection is reopened; an announcement missed meanwhile (or never sent: a
        server killed between its commit and its announcement) only makes the wait run to its
        timeout, so callers read the log after every wait, woken or not.
        """
        announcements = self._listening()
        # Listening already, so a commit after this read is heard.
        if self.version(match_id) > after:
            return True
        return announcements.wait(match_id, after, timeout)

    def close(self) -> None:
        """Close every pooled connection (and the listening one); the ledger is unusable afterwards."""
        if not self._closed:
            self._closed = True
            self._pool.close()
            with self._announcements_lock:
                if self._announcements is not None:
                    self._announcements.close()


def verify_database(url: str) -> list[VerifyReport]:
    """Verify every chain in a PostgreSQL ledger without creating or changing anything."""
    with PostgresLedger(url, pool_size=1, migrate=False) as ledger:
        return ledger.verify()


class _Write(SqlStore):
    """The write transaction's cursor (the store of :class:`ledger.base.Store`), and the match
    versions to announce once it commits."""

    __slots__ = ("announce", "feed_locked")

    sql = _SQL
    no_limit = None
    failures: tuple[type[BaseException], ...] = (psycopg.Error,)

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        super().__init__(cur)
        self.announce: list[tuple[str, int]] = []
        self.feed_locked = False

    def head(self, match_id: str, key: str | None) -> Head | None:
        """Lock the match row (``FOR UPDATE``: the next writer of this match waits here, then
        reads what this one committed), then look the key up."""
        row = self.cur.execute(_SQL_LOCK_HEAD, (match_id,)).fetchone()
        if row is None:
            return None
        self.row = row
        # A statement of its own, after the lock: it reads what the writer we waited for
        # committed (a join would read the key as of before the wait).
        seen = None if key is None else self.cur.execute(_SQL_KEY, (match_id, key)).fetchone()
        return int(row[6]), row[7], row[5], seen

    def insert_match(self, match: MatchRecord) -> bool:
        """Insert a match row; a racing creator of the same id commits first, and the insert then finds its row."""
        self._lock_feed(again=True)
        created = self.cur.execute(
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
                *_meta_columns(match.meta),
            ),
        ).fetchone()
        if created is not None:
            self.announce.append((match.id, match.version))
        return created is not None

    def insert_events(self, rows: list[Row]) -> None:
        self._lock_feed()
        self.cur.executemany(_SQL.event_put, rows)

    def set_meta(self, match_id: str, meta: Mapping[str, Any]) -> None:
        self.cur.execute(_SQL_MATCH_META, (*_meta_columns(meta), match_id))

    def move(self, match_id: str, version: int, head: str, status: str | None) -> None:
        super().move(match_id, version, head, status)
        self.announce.append((match_id, version))

    def put_snapshot(self, snapshot: Snapshot) -> None:
        self.cur.execute(
            _SQL_SNAPSHOT_PUT,
            (snapshot.match_id, snapshot.seq, snapshot.head, snapshot.rules, snapshot.state, snapshot.digest),
        )

    def doc_position(self, name: str) -> int:
        """Hold the projection's lock until the commit, then read its position: under READ
        COMMITTED two servers catching up from one position would both read it and both write."""
        self.cur.execute(_SQL_PROJECTION_LOCK, (PROJECTION_LOCK, name))
        return super().doc_position(name)

    def savepoint(self) -> psycopg.Transaction:
        savepoint: psycopg.Transaction = self.cur.connection.transaction()
        return savepoint

    def _lock_feed(self, again: bool = False) -> None:
        """Hold the feed lock shared from the first insert to the commit (see the module docstring);
        ``again`` inside each savepoint of an import, which may have let it go."""
        if again or not self.feed_locked:
            self.cur.execute(_SQL_FEED_LOCK)
            self.feed_locked = True


class _Announcements:
    """One listening connection and the newest version it heard of per match."""

    KEEP = 10_000
    """Matches remembered at most (the least recently announced are forgotten)."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._versions: dict[str, int] = {}
        self.heard = 0
        """Announcements heard so far (of any match)."""
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._schema = ""
        self._thread = threading.Thread(target=self._listen, name="tanteo-listen", daemon=True)
        self._thread.start()
        self._ready.wait(BUSY_TIMEOUT_SECONDS)  # listening before the first wait starts

    def wait(self, match_id: str, after: int, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._versions.get(match_id, 0) > after, timeout)

    def wait_any(self, heard: int, timeout: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self.heard > heard, timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(BUSY_TIMEOUT_SECONDS)

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    (self._schema,) = conn.execute("SELECT current_schema()").fetchone() or ("",)
                    conn.execute(f"LISTEN {ANNOUNCE_CHANNEL}")
                    self._ready.set()
                    while not self._stop.is_set():
                        for notify in conn.notifies(timeout=0.5):
                            self._heard(notify.payload)
            except psycopg.Error:
                self._ready.set()  # nobody waits for a listener that cannot connect
                self._stop.wait(1.0)  # the database went away: listen again in a moment

    def _heard(self, payload: str) -> None:
        schema, _, rest = payload.partition(" ")
        version, _, match_id = rest.partition(" ")
        if schema != self._schema or not version.isdigit():
            return
        with self._changed:
            self._versions.pop(match_id, None)
            self._versions[match_id] = int(version)
            self.heard += 1
            while len(self._versions) > self.KEEP:
                del self._versions[next(iter(self._versions))]
            self._changed.notify_all()


class _SeqTaken(Exception):
    """Internal: the (match_id, seq) unique constraint refused an insert."""


def _unavailable(reason: str, detail: str) -> StorageUnavailable:
    """The error for storage that cannot serve now, with SQLite's reasons (answered 503)."""
    return StorageUnavailable(reason, detail)


_BUSY = (
    psycopg.errors.LockNotAvailable,  # lock_timeout: another writer held the match too long
    psycopg.errors.QueryCanceled,
    psycopg.errors.SerializationFailure,
    psycopg.errors.DeadlockDetected,
)


def _translate(error: psycopg.Error) -> BaseException:
    """Return the ledger error a PostgreSQL error means: the one place they are translated."""
    if isinstance(error, psycopg.errors.UniqueViolation) and error.diag.constraint_name == "events_match_seq":
        taken = _SeqTaken(str(error))
        taken.__cause__ = error
        return taken
    if isinstance(error, _BUSY):
        return _unavailable("busy", str(error).strip())
    if isinstance(error, psycopg.errors.DiskFull):
        return _unavailable("full", str(error).strip())
    if isinstance(error, psycopg.errors.ReadOnlySqlTransaction):
        return _unavailable("read_only", str(error).strip())
    if isinstance(error, psycopg.OperationalError):  # the server went away or refuses us
        return _unavailable("io", str(error).strip())
    if isinstance(error, psycopg.errors.RestrictViolation):  # a guard trigger refused
        return LedgerError(str(error).strip())
    return error


def _schema_version(conn: psycopg.Connection[Any]) -> int | None:
    (exists,) = conn.execute("SELECT to_regclass('tanteo_schema') IS NOT NULL").fetchone() or (False,)
    if not exists:
        return None
    row = conn.execute("SELECT max(version) FROM tanteo_schema").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _meta_columns(meta: Mapping[str, Any]) -> tuple[str, str | None]:
    """Return a match's meta as stored: its JSON text and its casefolded place (None: no place)."""
    place = meta.get("place")
    return meta_text(meta), place.casefold() if isinstance(place, str) else None


def safe_url(url: str) -> str:
    """Name the database without its password, for messages and logs."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "the PostgreSQL database"
    info.pop("password", None)
    host = info.get("host", "")
    return f"postgresql database {info.get('dbname', '')!s}" + (f" on {host}" if host else "")
