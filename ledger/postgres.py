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
* **One write transaction** (:meth:`PostgresLedger._write`): ``READ COMMITTED`` plus
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
import itertools
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from ._core import (
    DEFAULT_STATUS,
    Row,
    body_hash,
    chain_batch,
    check_append_args,
    check_count,
    check_page,
    check_players,
    check_recorder,
    check_text,
    check_window,
    event_from_row,
    meta_update,
    prepare,
    ready_import,
    status_update,
    verify_chain,
)
from .base import Check, ImportOne, MatchImport, Snapshot
from .errors import (
    ConcurrencyConflict,
    IdempotencyConflict,
    LedgerError,
    MatchExists,
    MatchNotFound,
    StorageUnavailable,
)
from .records import (
    GENESIS,
    AppendResult,
    MatchRecord,
    NewEvent,
    StoredEvent,
    VerifyReport,
    append_result,
    canonical_json,
    utc_now,
)

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

SCHEMA_VERSION = 4

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
        _guard("idempotency_no_truncate", "TRUNCATE", "idempotency", "idempotency table is append-only",
               each="STATEMENT"),
        _guard("matches_no_delete", "DELETE", "matches", "matches are never deleted"),
        _guard("matches_no_truncate", "TRUNCATE", "matches", "matches are never deleted", each="STATEMENT"),
        _guard("matches_fixed_identity", "UPDATE OF id, game, created_at, players", "matches",
               "a match keeps its id, game, creation time and players"),
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
    (3, ("ALTER TABLE matches ADD COLUMN meta jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(meta) = 'object')",
         "ALTER TABLE matches ADD COLUMN place_key text",
         "CREATE INDEX matches_place ON matches (place_key)")),
    # The service's stored states, a cache beside the log (SQLite's m004_snapshots): not
    # append-only (a stale one is rebuilt in place) and not chained (the service checks it).
    (4, ("""
    CREATE TABLE snapshots (
        match_id  text NOT NULL REFERENCES matches (id),
        seq       integer NOT NULL,
        head      text NOT NULL,
        rules     text NOT NULL,
        state     text NOT NULL,
        digest    text NOT NULL,
        PRIMARY KEY (match_id, seq)
    )
    """,)),
)
"""Schema versions in order: (version, its statements). Each runs once, recorded in
``tanteo_schema``; a new version appends here and never edits an older one."""

# -- SQL -----------------------------------------------------------------------------------

_EVENT_COLUMNS = 'match_id, seq, type, data, at, "by", "key", prev, hash, fmt, private'
_MATCH_COLUMNS = "id, game, token_hash, created_at, players, status, version, head, meta"
_VERIFY_COLUMNS = 'seq, type, data, at, "by", "key", prev, hash, fmt, private'
_SQL_LOCK_HEAD = "SELECT version, head, status FROM matches WHERE id = %s FOR UPDATE"
_SQL_KEY = 'SELECT body_hash, first_seq, last_seq FROM idempotency WHERE match_id = %s AND "key" = %s'
_SQL_FEED_LOCK = f"SELECT pg_advisory_xact_lock_shared({FEED_LOCK})"
_SQL_ANNOUNCE = (  # one round trip: several statements, bound on the client (psycopg.ClientCursor)
    "BEGIN; SET LOCAL synchronous_commit = off; "
    f"SELECT pg_notify('{ANNOUNCE_CHANNEL}', current_schema() || ' ' || %s); COMMIT"
)
_SQL_EVENT_PUT = (
    f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_SQL_IDEM_PUT = (
    'INSERT INTO idempotency (match_id, "key", body_hash, first_seq, last_seq, created_at) '
    "VALUES (%s, %s, %s, %s, %s, %s)"
)
_SQL_MATCH_PUT = (
    "INSERT INTO matches (id, game, token_hash, created_at, players, status, version, head, meta, place_key) "
    "VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s::jsonb, %s) ON CONFLICT (id) DO NOTHING RETURNING 1"
)
_SQL_MATCH_META = "UPDATE matches SET meta = %s::jsonb, place_key = %s WHERE id = %s"
_SQL_MATCH_TOKEN = "UPDATE matches SET token_hash = %s WHERE id = %s AND token_hash = %s"
_SQL_MATCH_MOVE = "UPDATE matches SET version = %s, head = %s WHERE id = %s"
_SQL_MATCH_MOVE_STATUS = "UPDATE matches SET version = %s, head = %s, status = %s WHERE id = %s"
_SQL_READ = (
    f"SELECT {_EVENT_COLUMNS} FROM events "
    "WHERE match_id = %s AND seq > %s AND seq <= %s ORDER BY seq LIMIT %s"
)
_SQL_MATCH_EXISTS = "SELECT 1 FROM matches WHERE id = %s"
_SQL_SNAPSHOT_PUT = (
    "INSERT INTO snapshots (match_id, seq, head, rules, state, digest) VALUES (%s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (match_id, seq) DO UPDATE SET head = EXCLUDED.head, rules = EXCLUDED.rules, "
    "state = EXCLUDED.state, digest = EXCLUDED.digest"
)
_SQL_SNAPSHOT_GET = (
    "SELECT match_id, seq, head, rules, state, digest FROM snapshots "
    "WHERE match_id = %s AND seq <= %s ORDER BY seq DESC LIMIT 1"
)
_SQL_MATCH_VERSION = "SELECT version FROM matches WHERE id = %s"
_SQL_MAX_SEQ = "SELECT coalesce(max(seq), 0) FROM events WHERE match_id = %s"
_SQL_GET_MATCH = f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id = %s"
_SQL_FEED = f"SELECT id, {_EVENT_COLUMNS} FROM events WHERE id > %s AND id <= %s ORDER BY id LIMIT %s"
_SQL_LAST_ID = "SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass), 0)"

_NO_UPPER_BOUND = 2**31 - 1  # seq is an integer column


def is_postgres_url(text: str) -> bool:
    """Return whether a configuration string names a PostgreSQL database."""
    return text.strip().startswith(URL_SCHEMES)


class PostgresLedger(ImportOne):
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
                        f"{safe_url(self.url)} has an older schema; open it with tanteo serve once to upgrade it"
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
    def _write(self) -> Iterator[_Write]:
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
                    conn.execute("COMMIT" if conn.info.transaction_status
                                 == psycopg.pq.TransactionStatus.INTRANS else "ROLLBACK")

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
            raise LedgerError(f"{where} is not a Tanteo ledger (no tanteo_schema table)")
        if version > SCHEMA_VERSION:
            raise LedgerError(
                f"{where} has schema version {version}, newer than this Tanteo knows "
                f"({SCHEMA_VERSION}); upgrade Tanteo before serving it"
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
                f"{where}: append-only guard triggers missing, disabled or altered: {', '.join(sorted(bad))}; "
                "the database was changed outside Tanteo and cannot be trusted (restore a backup)"
            )

    # -- writes ----------------------------------------------------------------------------

    def create_match(
        self,
        match_id: str,
        *,
        game: str,
        players: Sequence[str],
        token_hash: str,
        first: NewEvent,
        by: str,
        check: Check | None = None,
        meta: Mapping[str, Any] | None = None,
        more: Sequence[NewEvent] = (),
    ) -> AppendResult:
        """Create a match row and its first event (seq 1) in one transaction.

        ``more``: the events after it (seq 2 on), in the same transaction (see the Protocol).

        ``meta`` is what people call the match by (a JSON object the ledger only stores).

        Raises:
            MatchExists: the id is taken (also when another server takes it at the same time).
        """
        check_text("match_id", match_id)
        check_text("game", game)
        check_text("token_hash", token_hash)
        check_recorder(by)
        names = check_players(players)
        prepared = prepare([first, *more])
        meta_json, place_key = _meta_columns(dict(meta or {}))
        with self._write() as write:
            cur = write.cur
            if cur.execute(_SQL_MATCH_EXISTS, (match_id,)).fetchone() is not None:
                raise MatchExists(match_id)
            at = utc_now()
            events, rows = chain_batch(match_id, 0, GENESIS, prepared, at=at, by=by, key=None)
            changes = check(0, events) if check is not None else None
            status, changed = status_update(changes), meta_update(changes)
            if changed is not None:
                meta_json, place_key = _meta_columns(dict(changed))
            last = events[-1]
            cur.execute(_SQL_FEED_LOCK)
            # A racing creator of the same id commits first: the insert then finds its row.
            created = cur.execute(
                _SQL_MATCH_PUT,
                (match_id, game, token_hash, at, _json_list(names), status or DEFAULT_STATUS,
                 last.seq, last.hash, meta_json, place_key),
            ).fetchone()
            if created is None:
                raise MatchExists(match_id)
            cur.executemany(_SQL_EVENT_PUT, rows)
            write.announce.append((match_id, last.seq))
        return AppendResult(last.seq, last.hash, events, replayed=False)

    def append(
        self,
        match_id: str,
        events: Sequence[NewEvent],
        *,
        by: str,
        expected_version: int | None = None,
        key: str | None = None,
        check: Check | None = None,
    ) -> AppendResult:
        """Append a batch at the end of the match's log in one transaction.

        Order inside it, as in the SQLite ledger: lock the match row (``FOR UPDATE``: the
        next writer of this match waits here, then reads what this one committed), the
        idempotency look-up (a retry with the same key and body returns the first result
        and writes nothing), the expected version, chaining, the caller's ``check``, the
        inserts, the match row. All or nothing.

        Raises:
            ValueError: ``events`` is empty.
            IdempotencyConflict: ``key`` was used on this match for different events.
            MatchNotFound: no such match.
            ConcurrencyConflict: the match is not at ``expected_version`` (or another
                writer's event already holds a seq this batch needs).
        """
        check_append_args(match_id, by, expected_version, key)
        prepared = prepare(events)
        digest = body_hash(prepared) if key is not None else None
        try:
            with self._write() as write:
                cur = write.cur
                row = cur.execute(_SQL_LOCK_HEAD, (match_id,)).fetchone()
                if row is None:
                    raise MatchNotFound(match_id)
                version, head, stored_status = row
                if key is not None:
                    # A statement of its own, after the lock: it reads what the writer we
                    # waited for committed (a join would read the key as of before the wait).
                    seen = cur.execute(_SQL_KEY, (match_id, key)).fetchone()
                    if seen is not None:
                        return self._replay(cur, match_id, key, digest, seen)
                if expected_version is not None and expected_version != version:
                    raise ConcurrencyConflict(expected_version, version, match_id=match_id)
                built, rows = chain_batch(match_id, version, head, prepared, at=utc_now(), by=by, key=key)
                changes = check(version, built) if check is not None else None
                status = status_update(changes)
                meta = meta_update(changes)
                last = built[-1]
                cur.execute(_SQL_FEED_LOCK)
                cur.executemany(_SQL_EVENT_PUT, rows)
                if meta is not None:
                    cur.execute(_SQL_MATCH_META, (*_meta_columns(meta), match_id))
                if key is not None:
                    cur.execute(_SQL_IDEM_PUT, (match_id, key, digest, built[0].seq, last.seq, last.at))
                if status is None or status == stored_status:
                    cur.execute(_SQL_MATCH_MOVE, (last.seq, last.hash, match_id))
                else:
                    cur.execute(_SQL_MATCH_MOVE_STATUS, (last.seq, last.hash, status, match_id))
                write.announce.append((match_id, last.seq))
        except _SeqTaken as taken:
            # Rows were written behind the match row's back (another program): a lost race.
            raise ConcurrencyConflict(version, self._max_seq(match_id), match_id=match_id) from taken.__cause__
        return append_result(last.seq, last.hash, built, False)

    def import_matches(self, items: Sequence[MatchImport]) -> list[AppendResult | Exception]:
        """Recreate several matches in one write transaction, a savepoint each (see the Protocol).

        A refused match (its chain, a taken id, its check) rolls back to its savepoint and
        the others go on; a storage error aborts them all.
        """
        ready: list[tuple[MatchImport, tuple[str, ...], list[Row], list[Any]] | Exception] = []
        for item in items:
            try:
                ready.append(ready_import(item))
            except (LedgerError, ValueError, TypeError) as error:
                ready.append(error)
        results: list[AppendResult | Exception] = []
        with self._write() as write:
            cur = write.cur
            for entry in ready:
                if isinstance(entry, Exception):
                    results.append(entry)
                    continue
                item, names, rows, keys = entry
                built = tuple(item.events)
                last = built[-1]
                try:
                    with cur.connection.transaction():  # a savepoint: this match alone on refusal
                        if cur.execute(_SQL_MATCH_EXISTS, (item.match_id,)).fetchone() is not None:
                            raise MatchExists(item.match_id)
                        changes = item.check(0, built) if item.check is not None else None
                        status, meta = status_update(changes), meta_update(changes)
                        cur.execute(_SQL_FEED_LOCK)
                        created = cur.execute(
                            _SQL_MATCH_PUT,
                            (item.match_id, item.game, item.token_hash, built[0].at, _json_list(names),
                             status or DEFAULT_STATUS, last.seq, last.hash, *_meta_columns(meta or {})),
                        ).fetchone()
                        if created is None:  # another server imported it meanwhile
                            raise MatchExists(item.match_id)
                        cur.executemany(_SQL_EVENT_PUT, rows)
                        if keys:
                            cur.executemany(_SQL_IDEM_PUT, [(item.match_id, *key) for key in keys])
                except psycopg.Error:
                    raise  # the storage failed: the whole transaction goes (translated in _connection)
                except Exception as error:  # noqa: BLE001 - this match is refused, the others go on
                    results.append(error)
                    continue
                results.append(append_result(last.seq, last.hash, built, False))
                write.announce.append((item.match_id, last.seq))
        return results

    def replace_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        """Store a new write-token hash if the match still has ``old_hash``; say whether it did.

        Compare-and-set in one statement, so two rotations racing with the same old token
        (on one server or two) cannot both win.

        Raises:
            MatchNotFound: no such match.
            StorageUnavailable: as for any write; nothing was written.
        """
        check_text("token_hash", new_hash)
        with self._write() as write:
            if write.cur.execute(_SQL_MATCH_EXISTS, (match_id,)).fetchone() is None:
                raise MatchNotFound(match_id)
            return write.cur.execute(_SQL_MATCH_TOKEN, (new_hash, match_id, old_hash)).rowcount == 1

    def _max_seq(self, match_id: str) -> int:
        with self._connection() as conn:
            (current,) = conn.execute(_SQL_MAX_SEQ, (match_id,)).fetchone() or (0,)
        return int(current)

    @staticmethod
    def _replay(
        cur: psycopg.Cursor[Any], match_id: str, key: str, digest: str | None, seen: Sequence[Any]
    ) -> AppendResult:
        stored_digest, first_seq, last_seq = seen
        if stored_digest != digest:
            raise IdempotencyConflict(key, match_id=match_id)
        rows = cur.execute(_SQL_READ, (match_id, first_seq - 1, last_seq, None)).fetchall()
        replayed = tuple(event_from_row(row) for row in rows)
        return append_result(last_seq, replayed[-1].hash, replayed, True)

    # -- reads -----------------------------------------------------------------------------

    def read(
        self, match_id: str, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return the match's events with ``after < seq <= upto`` (at most ``limit``), by seq.

        Raises:
            MatchNotFound: no such match.
        """
        check_window(after, upto, limit)
        upper = _NO_UPPER_BOUND if upto is None else min(upto, _NO_UPPER_BOUND)
        after = min(after, _NO_UPPER_BOUND)
        with self._connection() as conn:
            rows = conn.execute(_SQL_READ, (match_id, after, upper, limit)).fetchall()
            if not rows and conn.execute(_SQL_MATCH_EXISTS, (match_id,)).fetchone() is None:
                raise MatchNotFound(match_id)
        return [event_from_row(row) for row in rows]

    def version(self, match_id: str) -> int:
        """Return the seq of the match's last event.

        Raises:
            MatchNotFound: no such match.
        """
        with self._connection() as conn:
            row = conn.execute(_SQL_MATCH_VERSION, (match_id,)).fetchone()
        if row is None:
            raise MatchNotFound(match_id)
        return int(row[0])

    def get_match(self, match_id: str) -> MatchRecord:
        """Return the match's row.

        Raises:
            MatchNotFound: no such match.
        """
        with self._connection() as conn:
            row = conn.execute(_SQL_GET_MATCH, (match_id,)).fetchone()
        if row is None:
            raise MatchNotFound(match_id)
        return _match_record(row)

    def list_matches(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
        tag: str | None = None,
        place: str | None = None,
        date: str | None = None,
    ) -> tuple[list[MatchRecord], int]:
        """Return one page of matches (newest first) and the total matching the filters.

        ``player`` matches one of the match's player names exactly; ``tag`` one of its
        ``meta.tags`` exactly; ``place`` its ``meta.place`` ignoring case (Python's
        casefold, as SQLite's); ``date`` its ``meta.date``.
        """
        check_page(limit, offset)
        where: list[str] = []
        params: list[Any] = []
        if tag is not None:
            where.append("meta -> 'tags' @> jsonb_build_array(%s::text)")
            params.append(tag)
        if place is not None:
            where.append("place_key = %s")
            params.append(place.casefold())
        if date is not None:
            where.append("meta ->> 'date' = %s AND jsonb_typeof(meta -> 'date') = 'string'")
            params.append(date)
        if game is not None:
            where.append("game = %s")
            params.append(game)
        if status is not None:
            where.append("status = %s")
            params.append(status)
        if player is not None:
            where.append("players @> jsonb_build_array(%s::text)")
            params.append(player)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        with self._snapshot() as cur:  # the page and the count agree
            (total,) = cur.execute(f"SELECT count(*) FROM matches{clause}", params).fetchone() or (0,)
            rows = cur.execute(
                f"SELECT {_MATCH_COLUMNS} FROM matches{clause} "
                "ORDER BY created_at DESC, ord DESC LIMIT %s OFFSET %s",
                (*params, limit, offset),
            ).fetchall()
        return [_match_record(row) for row in rows], int(total)

    def feed(self, after_id: int = 0, limit: int = 1000) -> list[tuple[int, StoredEvent]]:
        """Return ``(id, event)`` for every match's events in storage order, ids after ``after_id``.

        Only ids whose writers have all finished are returned (see the module docstring), so
        a consumer that remembers the last id it saw never misses an event.
        """
        check_count("after_id", after_id)
        check_count("limit", limit)
        with self._connection() as conn:
            (last,) = conn.execute(_SQL_LAST_ID).fetchone() or (0,)
            # Session-level lock and unlock: an instant, even inside a transaction.
            conn.execute(f"SELECT pg_advisory_lock({FEED_LOCK})")
            conn.execute(f"SELECT pg_advisory_unlock({FEED_LOCK})")
            rows = conn.execute(_SQL_FEED, (after_id, last, limit)).fetchall()
        return [(int(row[0]), event_from_row(row[1:])) for row in rows]

    def verify(self, match_id: str | None = None) -> list[VerifyReport]:
        """Recompute chains from the stored rows: one match, or every match (by id).

        Reads on one snapshot, so a concurrent append is not mistaken for damage. Events
        whose match row is missing are reported too.

        Raises:
            MatchNotFound: ``match_id`` names neither a match row nor any event.
        """
        with self._snapshot() as cur:
            if match_id is not None:
                return [_verify_one(cur, match_id)]
            return _verify_all(cur)

    def read_verified(self, match_id: str) -> tuple[VerifyReport, list[StoredEvent]]:
        """Return the match's chain report and its events, from one read of the rows (see the SQLite ledger).

        Raises:
            MatchNotFound: ``match_id`` names neither a match row nor any event.
        """
        events: list[StoredEvent] = []
        with self._snapshot() as cur:
            report = _verify_one(cur, match_id, events)
        return report, events


    # -- lifecycle -------------------------------------------------------------------------

    # -- snapshots -------------------------------------------------------------------------

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Store (or replace) a match's snapshot at its seq, in its own small transaction.

        Raises:
            MatchNotFound: no such match.
        """
        with self._write() as write:
            if write.cur.execute(_SQL_MATCH_EXISTS, (snapshot.match_id,)).fetchone() is None:
                raise MatchNotFound(snapshot.match_id)
            write.cur.execute(_SQL_SNAPSHOT_PUT, (snapshot.match_id, snapshot.seq, snapshot.head, snapshot.rules,
                                                  snapshot.state, snapshot.digest))

    def snapshot(self, match_id: str, *, upto: int | None = None) -> Snapshot | None:
        """Return the match's newest snapshot with ``seq <= upto`` (None: there is none)."""
        upper = _NO_UPPER_BOUND if upto is None else min(upto, _NO_UPPER_BOUND)
        with self._connection() as conn:
            row = conn.execute(_SQL_SNAPSHOT_GET, (match_id, upper)).fetchone()
        if row is None:
            return None
        return Snapshot(row[0], int(row[1]), row[2], row[3], row[4], row[5])

    # -- waiting for appends (any server's) ----------------------------------------------

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
        if self._closed:
            raise LedgerError("the ledger is closed")
        with self._announcements_lock:
            if self._announcements is None:
                self._announcements = _Announcements(self._conninfo)
            announcements = self._announcements
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

    def __enter__(self) -> PostgresLedger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def verify_database(url: str) -> list[VerifyReport]:
    """Verify every chain in a PostgreSQL ledger without creating or changing anything."""
    with PostgresLedger(url, pool_size=1, migrate=False) as ledger:
        return ledger.verify()


class _Write:
    """The write transaction's cursor, and the match versions to announce once it commits."""

    __slots__ = ("cur", "announce")

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self.cur = cur
        self.announce: list[tuple[str, int]] = []


class _Announcements:
    """One listening connection and the newest version it heard of per match."""

    KEEP = 10_000
    """Matches remembered at most (the least recently announced are forgotten)."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._versions: dict[str, int] = {}
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


def _verify_one(cur: psycopg.Cursor[Any], match_id: str, into: list[StoredEvent] | None = None) -> VerifyReport:
    row = cur.execute("SELECT version, head FROM matches WHERE id = %s", (match_id,)).fetchone()
    events = cur.execute(
        f"SELECT {_VERIFY_COLUMNS} FROM events WHERE match_id = %s ORDER BY seq", (match_id,)
    ).fetchall()
    if row is None and not events:
        raise MatchNotFound(match_id)
    version, head = (None, None) if row is None else (int(row[0]), str(row[1]))
    return verify_chain(match_id, events, version, head, into)


def _verify_all(cur: psycopg.Cursor[Any]) -> list[VerifyReport]:
    heads: dict[str, tuple[int, str]] = {
        mid: (int(version), head) for mid, version, head in cur.execute("SELECT id, version, head FROM matches")
    }
    reports: list[VerifyReport] = []
    with cur.connection.cursor(name="tanteo_verify") as events:  # in the snapshot transaction
        events.itersize = VERIFY_BATCH
        rows: Iterable[Sequence[Any]] = events.execute(
            f"SELECT match_id, {_VERIFY_COLUMNS} FROM events ORDER BY match_id, seq"
        )
        for mid, group in itertools.groupby(rows, key=lambda row: row[0]):
            version, head = heads.pop(mid, (None, None))
            reports.append(verify_chain(mid, (row[1:] for row in group), version, head))
    for mid, (version, head) in heads.items():  # match rows without a single event
        reports.append(verify_chain(mid, (), version, head))
    reports.sort(key=lambda report: report.match)
    return reports


def _meta_columns(meta: Mapping[str, Any]) -> tuple[str, str | None]:
    """Return a match's meta as stored: its JSON text and its casefolded place (None: no place)."""
    place = meta.get("place")
    return canonical_json(dict(meta)).decode("utf-8"), place.casefold() if isinstance(place, str) else None


def _json_list(names: tuple[str, ...]) -> str:
    return canonical_json(list(names)).decode("utf-8")


def _match_record(row: Sequence[Any]) -> MatchRecord:
    return MatchRecord(
        id=row[0],
        game=row[1],
        token_hash=row[2],
        created_at=row[3],
        players=tuple(row[4]),
        status=row[5],
        version=int(row[6]),
        head=row[7],
        meta=dict(row[8]) if len(row) > 8 and row[8] else {},
    )


def safe_url(url: str) -> str:
    """Name the database without its password, for messages and logs."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "the PostgreSQL database"
    info.pop("password", None)
    host = info.get("host", "")
    return f"postgresql database {info.get('dbname', '')!s}" + (f" on {host}" if host else "")
