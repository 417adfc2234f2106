"""What the SQLite and PostgreSQL ledgers say to their databases alike, written once.

The statements are written with ``?`` and given to each backend in its own placeholder
(:class:`Statements`); the few that differ in more than that (the head read under the
write lock, the match row's JSON columns, a snapshot's upsert, the list filters) stay with
their backend. :class:`SqlStore` is the :class:`~ledger.base.Store` both write through, and
:class:`SqlLedger` the reads both answer the same way.
"""

from __future__ import annotations

import itertools
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from orjson import loads

from ._core import KeyRow, Row, event_from_row, verify_chain
from .base import CLUB_LOG, Head, Ledger, MatchFilter, Snapshot
from .errors import MatchNotFound
from .records import GENESIS, MatchRecord, StoredEvent, Verified, VerifyReport, canonical_json

EVENT_COLUMNS = 'match_id, seq, type, data, at, "by", "key", prev, hash, fmt, private'
MATCH_COLUMNS = "id, game, token_hash, created_at, players, status, version, head, meta"
VERIFY_COLUMNS = 'seq, type, data, at, "by", "key", prev, hash, fmt, private'
SNAPSHOT_COLUMNS = "match_id, seq, head, rules, state, digest"


class Statements:
    """The statements of one SQL dialect: written once with ``?``, each in the dialect's
    placeholder, and the list filters that differ in more than it."""

    def __init__(self, mark: str, *, tag: str, place: str, date: str, player: str, newest: str) -> None:
        def sql(text: str) -> str:
            return text.replace("?", mark)

        self.match_exists = sql("SELECT 1 FROM matches WHERE id = ?")
        self.match_version = sql("SELECT version FROM matches WHERE id = ?")
        self.match_head = sql("SELECT version, head FROM matches WHERE id = ?")
        self.get_match = sql(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = ?")
        self.max_seq = sql("SELECT coalesce(max(seq), 0) FROM events WHERE match_id = ?")
        self.event_put = sql(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        self.idem_put = sql(
            'INSERT INTO idempotency (match_id, "key", body_hash, first_seq, last_seq, created_at) '
            "VALUES (?, ?, ?, ?, ?, ?)"
        )
        self.match_token = sql("UPDATE matches SET token_hash = ? WHERE id = ? AND token_hash = ?")
        self.match_move = sql("UPDATE matches SET version = ?, head = ? WHERE id = ?")
        self.match_move_status = sql("UPDATE matches SET version = ?, head = ?, status = ? WHERE id = ?")
        self.read = sql(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE match_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?"
        )
        self.feed = sql(f"SELECT id, {EVENT_COLUMNS} FROM events WHERE id > ? AND id <= ? ORDER BY id LIMIT ?")
        self.feed_end = "SELECT coalesce(max(id), 0) FROM events"
        self.changes = sql("SELECT match_id, max(seq), max(id) FROM events WHERE id > ? AND id <= ? GROUP BY match_id")
        self.snapshot_get = sql(
            f"SELECT {SNAPSHOT_COLUMNS} FROM snapshots WHERE match_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1"
        )
        self.verify_one = sql(f"SELECT {VERIFY_COLUMNS} FROM events WHERE match_id = ? ORDER BY seq")
        self.verify_heads = "SELECT id, version, head FROM matches"
        self.verify_all = f"SELECT match_id, {VERIFY_COLUMNS} FROM events ORDER BY match_id, seq"
        self.filters = (sql(tag), sql(place), sql(date), sql("game = ?"), sql("status = ?"), sql(player))
        self.not_club = sql("game <> ?")
        self.docs_get = sql("SELECT doc_key, doc FROM projection_docs WHERE name = ? AND doc_key = ?")
        self.docs_scan = sql(
            "SELECT doc_key, doc FROM projection_docs WHERE name = ? AND doc_key >= ? AND doc_key < ? "
            "ORDER BY doc_key LIMIT ?"
        )
        self.docs_scan_back = sql(
            "SELECT doc_key, doc FROM projection_docs WHERE name = ? AND doc_key >= ? AND doc_key < ? "
            "ORDER BY doc_key DESC LIMIT ?"
        )
        self.docs_put = sql(
            "INSERT INTO projection_docs (name, doc_key, doc) VALUES (?, ?, ?) "
            "ON CONFLICT (name, doc_key) DO UPDATE SET doc = excluded.doc"
        )
        self.docs_drop = sql("DELETE FROM projection_docs WHERE name = ? AND doc_key = ?")
        self.docs_clear = sql("DELETE FROM projection_docs WHERE name = ?")
        self.docs_position = sql("SELECT position FROM projection_positions WHERE name = ?")
        self.docs_position_put = sql(
            "INSERT INTO projection_positions (name, position) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET position = excluded.position"
        )
        self.newest = newest
        self.page = sql(f" ORDER BY created_at DESC, {newest} DESC LIMIT ? OFFSET ?")


def match_record(row: Sequence[Any]) -> MatchRecord:
    """Decode a match row (:data:`MATCH_COLUMNS`, in order): JSON columns come as text from
    SQLite, decoded from PostgreSQL's jsonb."""
    players, meta = row[4], row[8] if len(row) > 8 else None
    return MatchRecord(
        row[0],
        row[1],
        row[2],
        row[3],
        tuple(loads(players) if isinstance(players, (str, bytes)) else players),
        row[5],
        int(row[6]),
        row[7],
        (loads(meta) if isinstance(meta, (str, bytes)) else dict(meta)) if meta else {},
    )


def json_text(value: Any) -> str:
    """Return a value as the canonical JSON text a row stores."""
    return canonical_json(value).decode("utf-8")


def text(value: object) -> str:
    """Decode a value read as raw bytes (damaged bytes become U+FFFD)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


class SqlStore:
    """A SQL write transaction's cursor and the primitives both dialects run alike."""

    __slots__ = ("base", "cur", "row")

    sql: Statements
    failures: tuple[type[BaseException], ...]
    no_limit: int | None
    """The ``LIMIT`` that means none (SQLite: -1, PostgreSQL: NULL)."""

    def __init__(self, cur: Any) -> None:
        self.cur = cur
        self.base = 0
        self.row: Sequence[Any] = ()

    @abstractmethod
    def head(self, match_id: str, key: str | None) -> Head | None:
        """See :meth:`ledger.base.Store.head`."""

    def record(self) -> MatchRecord:
        return match_record(self.row)

    def events(self, match_id: str, first: int, last: int) -> tuple[StoredEvent, ...]:
        rows = self.cur.execute(self.sql.read, (match_id, first - 1, last, self.no_limit)).fetchall()
        return tuple(event_from_row(row) for row in rows)

    def exists(self, match_id: str) -> bool:
        return self.cur.execute(self.sql.match_exists, (match_id,)).fetchone() is not None

    def insert_events(self, rows: list[Row]) -> None:
        if len(rows) == 1:
            self.cur.execute(self.sql.event_put, rows[0])
        else:
            self.cur.executemany(self.sql.event_put, rows)

    def insert_keys(self, match_id: str, keys: Sequence[KeyRow]) -> None:
        if len(keys) == 1:
            self.cur.execute(self.sql.idem_put, (match_id, *keys[0]))
        else:
            self.cur.executemany(self.sql.idem_put, [(match_id, *key) for key in keys])

    def move(self, match_id: str, version: int, head: str, status: str | None) -> None:
        if status is None:
            self.cur.execute(self.sql.match_move, (version, head, match_id))
        else:
            self.cur.execute(self.sql.match_move_status, (version, head, status, match_id))

    def swap_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        return bool(self.cur.execute(self.sql.match_token, (new_hash, match_id, old_hash)).rowcount == 1)

    def doc_position(self, name: str) -> int:
        row = self.cur.execute(self.sql.docs_position, (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def put_docs(self, name: str, docs: Mapping[str, Any], position: int | None, clear: bool) -> None:
        if clear:
            self.cur.execute(self.sql.docs_clear, (name,))
        puts = [(name, key, json_text(doc)) for key, doc in docs.items() if doc is not None]
        drops = [(name, key) for key, doc in docs.items() if doc is None]
        if puts:
            self.cur.executemany(self.sql.docs_put, puts)
        if drops:
            self.cur.executemany(self.sql.docs_drop, drops)
        if position is not None:
            self.cur.execute(self.sql.docs_position_put, (name, position))


class SqlLedger(Ledger):
    """The reads both SQL ledgers answer alike, over the connection a backend lends."""

    _SQL: Statements
    _NO_UPPER_BOUND: int
    """The largest seq a bound may name (SQLite: 64 bits; PostgreSQL: an integer column)."""
    _NO_LIMIT: int | None

    @abstractmethod
    def _reading(self) -> AbstractContextManager[Any]:
        """Lend a connection (``execute`` … ``fetchone``) whose storage errors become ledger errors."""

    @abstractmethod
    def _consistent(self, raw: bool = False, place: bool = False) -> AbstractContextManager[Any]:
        """Lend a cursor on one snapshot of the database (``raw``: text read as bytes, for the
        verifier; ``place``: the place filter will run)."""

    def _read(self, match_id: str, after: int, upto: int | None, limit: int | None) -> list[StoredEvent]:
        """Raises: MatchNotFound: no such match."""
        bound = self._NO_UPPER_BOUND
        params = (
            match_id,
            min(after, bound),
            bound if upto is None else min(upto, bound),
            self._NO_LIMIT if limit is None else limit,
        )
        with self._reading() as conn:
            rows = conn.execute(self._SQL.read, params).fetchall()
            if not rows and conn.execute(self._SQL.match_exists, (match_id,)).fetchone() is None:
                raise MatchNotFound(match_id)
        return [event_from_row(row) for row in rows]

    def version(self, match_id: str) -> int:
        """Return the seq of the match's last event.

        Raises:
            MatchNotFound: no such match.
        """
        return int(self._match_row(self._SQL.match_version, match_id)[0])

    def get_match(self, match_id: str) -> MatchRecord:
        """Return the match's row.

        Raises:
            MatchNotFound: no such match.
        """
        return match_record(self._match_row(self._SQL.get_match, match_id))

    def _match_row(self, sql: str, match_id: str) -> Sequence[Any]:
        with self._reading() as conn:
            row: Sequence[Any] | None = conn.execute(sql, (match_id,)).fetchone()
        if row is None:
            raise MatchNotFound(match_id)
        return row

    def snapshot(self, match_id: str, *, upto: int | None = None) -> Snapshot | None:
        """Return the match's newest snapshot with ``seq <= upto`` (None: there is none)."""
        bound = self._NO_UPPER_BOUND if upto is None else min(upto, self._NO_UPPER_BOUND)
        with self._reading() as conn:
            row = conn.execute(self._SQL.snapshot_get, (match_id, bound)).fetchone()
        if row is None:
            return None
        return Snapshot(text(row[0]), int(row[1]), text(row[2]), text(row[3]), text(row[4]), text(row[5]))

    def _list(self, where: MatchFilter, limit: int, offset: int) -> tuple[list[MatchRecord], int]:
        place = None if where.place is None else where.place.casefold()
        wanted = (where.tag, place, where.date, where.game, where.status, where.player)
        found = [(condition, value) for condition, value in zip(self._SQL.filters, wanted) if value is not None]
        if where.game is None:
            found.append((self._SQL.not_club, CLUB_LOG))
        clause = f" WHERE {' AND '.join(condition for condition, _ in found)}" if found else ""
        params = [value for _, value in found]
        with self._consistent(place=place is not None) as cur:  # the page and the count agree
            (total,) = cur.execute(f"SELECT count(*) FROM matches{clause}", params).fetchone() or (0,)
            rows = cur.execute(
                f"SELECT {MATCH_COLUMNS} FROM matches{clause}{self._SQL.page}", (*params, limit, offset)
            ).fetchall()
        return [match_record(row) for row in rows], int(total)

    def _docs(self, name: str, keys: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        with self._consistent() as cur:
            for key in keys:
                row = cur.execute(self._SQL.docs_get, (name, key)).fetchone()
                if row is not None:
                    found[text(row[0])] = loads(row[1])
        return found

    def _scan_docs(self, name: str, low: str, high: str, limit: int | None, reverse: bool) -> list[tuple[str, Any]]:
        sql = self._SQL.docs_scan_back if reverse else self._SQL.docs_scan
        with self._reading() as conn:
            rows = conn.execute(sql, (name, low, high, self._NO_LIMIT if limit is None else limit)).fetchall()
        return [(text(key), loads(doc)) for key, doc in rows]

    def _doc_position(self, name: str) -> int:
        with self._reading() as conn:
            row = conn.execute(self._SQL.docs_position, (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def verify(self, match_id: str | None = None) -> list[VerifyReport]:
        """Recompute chains from the stored rows: one match, or every match (by id).

        Reads raw bytes on one snapshot, so that a damaged row is reported rather than
        crashing the verifier and a concurrent append is not mistaken for damage. Events
        whose match row is missing are reported too.

        Raises:
            MatchNotFound: ``match_id`` names neither a match row nor any event.
        """
        with self._consistent(raw=True) as cur:
            if match_id is not None:
                return [self._verify_one(cur, match_id)]
            heads = {
                text(mid): (int(version), text(head)) for mid, version, head in cur.execute(self._SQL.verify_heads)
            }
            return verify_all(heads, self._all_events(cur))

    def read_verified(self, match_id: str) -> tuple[VerifyReport, list[StoredEvent]]:
        """Return the match's chain report and its events, from one read of the rows.

        What a replay that must trust its log needs: each row is read once (as :meth:`verify`
        reads), hashed from its stored bytes and decoded once. The events stop before the
        first bad row (all of them when valid).

        Raises:
            MatchNotFound: ``match_id`` names neither a match row nor any event.
        """
        report, events, _ = self.read_verified_on(match_id, None)
        return report, events

    def read_verified_on(
        self, match_id: str, since: Verified | None
    ) -> tuple[VerifyReport, list[StoredEvent], Verified | None]:
        """As :meth:`read_verified`, hashing and decoding only the rows that ``since`` does not hold
        byte for byte (see :meth:`ledger.base.Ledger.read_verified_on`)."""
        with self._consistent(raw=True) as cur:
            version, head, rows = self._rows_of(cur, match_id)
        kept = len(since.rows) if since is not None else 0
        if since is not None and not (
            kept <= len(rows) and rows[kept - 1] == since.rows[-1] and rows[:kept] == since.rows
        ):
            since, kept = None, 0  # a stored row is not what was verified: the whole chain again
        newer: list[StoredEvent] = []
        report = verify_chain(
            match_id,
            rows[kept:],
            version,
            head,
            newer,
            after=kept,
            after_hash=since.head if since is not None else GENESIS,
        )
        events = [*since.events, *newer] if since is not None else newer
        verified = Verified(rows, events, report.head) if report.valid and rows else None
        return report, events, verified

    def _verify_one(self, cur: Any, match_id: str) -> VerifyReport:
        version, head, rows = self._rows_of(cur, match_id)
        return verify_chain(match_id, rows, version, head)

    def _rows_of(self, cur: Any, match_id: str) -> tuple[int | None, str | None, list[Sequence[Any]]]:
        """The match row's version and head (None without a match row) and the match's raw event rows.

        Raises:
            MatchNotFound: neither a match row nor any event.
        """
        row = cur.execute(self._SQL.match_head, (match_id,)).fetchone()
        rows: list[Sequence[Any]] = cur.execute(self._SQL.verify_one, (match_id,)).fetchall()
        if row is None and not rows:
            raise MatchNotFound(match_id)
        return (None, None, rows) if row is None else (int(row[0]), text(row[1]), rows)

    def _all_events(self, cur: Any) -> Iterable[Sequence[Any]]:
        """Every event row, by match and seq (PostgreSQL reads them through a server-side cursor)."""
        rows: Iterable[Sequence[Any]] = cur.execute(self._SQL.verify_all)
        return rows


def verify_all(heads: dict[str, tuple[int, str]], rows: Iterable[Sequence[Any]]) -> list[VerifyReport]:
    """Verify every match from its head and its event rows (by match, then seq), by id."""
    reports: list[VerifyReport] = []
    for raw_id, group in itertools.groupby(rows, key=lambda row: row[0]):
        mid = text(raw_id)
        version, head = heads.pop(mid, (None, None))
        reports.append(verify_chain(mid, (row[1:] for row in group), version, head))
    for mid, (version, head) in heads.items():  # match rows without a single event
        reports.append(verify_chain(mid, (), version, head))
    reports.sort(key=lambda report: report.match)
    return reports


def meta_text(meta: Mapping[str, Any]) -> str:
    """Return a match's meta as the JSON text a row stores."""
    return json_text(dict(meta))
