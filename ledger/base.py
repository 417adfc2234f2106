"""The ledger: its interface, and the write procedure every backend runs, written once.

The service talks to :class:`Ledger` only, so a backend can be swapped without touching game
code, and ``tests/ledger/test_ledger_contract.py`` runs one suite against every backend.

The procedure (argument checks, ``prepare``, the idempotency look-up, the expected version,
``chain_batch``, the service's check, the status and meta update, the inserts, moving the
head) is written here once, as eventsourcing writes its event store once above recorders
that only insert and select. A backend gives it a :class:`Store` inside its own write
transaction (SQLite: ``BEGIN IMMEDIATE`` and group commit; PostgreSQL: the match row locked
``FOR UPDATE``; memory: one lock) and answers the reads.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ._core import (
    DEFAULT_STATUS,
    KeyRow,
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
    meta_update,
    prepare,
    ready_import,
    status_update,
)
from .errors import ConcurrencyConflict, IdempotencyConflict, LedgerError, MatchExists, MatchNotFound
from .records import (
    GENESIS,
    AppendResult,
    MatchRecord,
    NewEvent,
    StoredEvent,
    Verified,
    VerifyReport,
    append_result,
    utc_now,
)


class Current(int):
    """The version a batch is chained on (this int), with the match's row as the write
    transaction read it (``match``; None while the match is being created or imported).

    An int, so that a check that only wants the version uses it as one; the row is there so
    that a check never calls back into the ledger for it (the service re-reads the write
    token from it: a token replaced by another writer meanwhile is seen).
    """

    match: MatchRecord | None

    def __new__(cls, version: int, match: MatchRecord | None = None) -> Current:
        current = super().__new__(cls, version)
        current.match = match
        return current


CHANGES_POLL_SECONDS = 0.05
"""How often :meth:`Ledger.changes` looks for appends on a ledger that cannot announce them
(SQLite, memory): one query on the events' primary key per server process, whatever the
number of live followers."""

CLUB_LOG = "club"
"""The ``game`` of a club's roster log. A club's log is a stream like a match's (same rows, same
chain, same append procedure, exported and verified alike); :meth:`Ledger.list_matches` leaves
such streams out unless asked for them by this game."""

DOCS_END = "\U0010ffff"
"""A key above every key that starts with the same prefix (keys compare by code point)."""

NEW_MATCH = Current(0)
"""What the check of a new (or imported) match is given: version 0, no row yet."""

Check = Callable[[Current, Sequence[StoredEvent]], "dict[str, Any] | None"]
"""The service's rule check, run inside the write transaction.

Called with the match as it stands before the append (:class:`Current`: its version, and its
row) and the fully built batch (seq, at, prev and hash set). It raises to refuse the batch —
whatever it raises propagates unchanged after the rollback, and nothing is written — or
returns None, or a dict of match-row fields to set in the same transaction (``status``,
``meta``).
"""

_R = TypeVar("_R")

Head = tuple[int, str, str, "Sequence[Any] | None"]
"""What :meth:`Store.head` finds: version, head hash, status, and the key's first use
(body hash, first seq, last seq; None: the key is new or not given)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A stored snapshot of a match's folded state: a cache the service may use or ignore.

    The ledger knows no game: ``state`` is JSON text it stores and returns as given, and
    ``head``, ``rules`` and ``digest`` are strings the service checks (the hash of event
    ``seq``, the engine's rules version, a checksum of the row) before trusting it.
    Snapshots are not part of the log: a newer one for the same seq replaces the old.
    """

    match_id: str
    seq: int
    head: str
    rules: str
    state: str
    digest: str


@dataclass(frozen=True)
class MatchImport:
    """One match to recreate from events given whole (:meth:`Ledger.import_matches`)."""

    match_id: str
    game: str
    players: Sequence[str]
    token_hash: str
    events: Sequence[StoredEvent]
    check: Check | None = None


@dataclass(frozen=True, slots=True)
class MatchFilter:
    """What :meth:`Ledger.list_matches` filters on (None: anything)."""

    game: str | None
    player: str | None
    status: str | None
    tag: str | None
    place: str | None
    date: str | None


class Store(Protocol):
    """A backend inside one of its write transactions: the few selects and inserts the
    procedure needs. It checks nothing: the order, the checks and the errors are the procedure's."""

    base: int
    """The version the batch in hand is chained on (a backend reports a lost race with it)."""

    def head(self, match_id: str, key: str | None) -> Head | None:
        """Return the match's head and the key's first use on it (see :data:`Head`), the
        match held for this transaction; None: no such match."""

    def record(self) -> MatchRecord:
        """Return the match row :meth:`head` found (what the check is given)."""

    def events(self, match_id: str, first: int, last: int) -> tuple[StoredEvent, ...]:
        """Return the stored events ``first`` to ``last`` (a replayed batch)."""

    def exists(self, match_id: str) -> bool:
        """Say whether the match has a row."""

    def insert_match(self, match: MatchRecord) -> bool:
        """Insert a match row; False when another writer took the id meanwhile."""

    def insert_events(self, rows: list[Row]) -> None:
        """Insert chained event rows."""

    def insert_keys(self, match_id: str, keys: Sequence[KeyRow]) -> None:
        """Insert idempotency rows."""

    def set_meta(self, match_id: str, meta: Mapping[str, Any]) -> None:
        """Replace the match's meta."""

    def move(self, match_id: str, version: int, head: str, status: str | None) -> None:
        """Move the match's head (and its status, unless None: unchanged)."""

    def swap_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        """Set the token hash if it still is ``old_hash``; say whether it was."""

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Store (or replace) a snapshot."""

    def savepoint(self) -> AbstractContextManager[object]:
        """Undo what the body wrote if it raises (one match of an import)."""

    def doc_position(self, name: str) -> int:
        """Return the feed position a projection stands at (0: none yet)."""

    def put_docs(self, name: str, docs: Mapping[str, Any], position: int | None, clear: bool) -> None:
        """Store (None: delete) a projection's documents, after deleting them all if ``clear``,
        and move its position (None: unchanged)."""

    failures: tuple[type[BaseException], ...]
    """The storage's own errors: raised inside an import, they abort every match of it."""


class Ledger(ABC):
    """An append-only, hash-chained store of match logs.

    Every write is all or nothing. Every method raises :class:`~ledger.errors.MatchNotFound`
    for an unknown match id.
    """

    # -- the procedure, written once ---------------------------------------------------------

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
        """Create a match and store its first event (seq 1) in one transaction.

        ``meta``: what people call the match by (title, date, place, tags), a JSON object the
        ledger stores for listing and filtering; a check may return a new one (``{"meta": …}``).
        ``more``: the events after it (seq 2 on), stored in the same transaction and passed to
        ``check`` with it: a match recorded whole pays one commit, not two.

        Raises:
            MatchExists: the id is taken (also when another writer takes it at the same time).
        """
        check_text("match_id", match_id)
        check_text("game", game)
        check_text("token_hash", token_hash)
        check_recorder(by)
        names = check_players(players)
        prepared = prepare([first, *more])

        def create(store: Store) -> AppendResult:
            if store.exists(match_id):
                raise MatchExists(match_id)
            at = utc_now()
            events, rows = chain_batch(match_id, 0, GENESIS, prepared, at=at, by=by, key=None)
            changes = check(NEW_MATCH, events) if check is not None else None
            status, changed = status_update(changes), meta_update(changes)
            last = events[-1]
            row = MatchRecord(
                match_id,
                game,
                token_hash,
                at,
                names,
                status or DEFAULT_STATUS,
                last.seq,
                last.hash,
                dict(changed if changed is not None else meta or {}),
            )
            if not store.insert_match(row):
                raise MatchExists(match_id)
            store.insert_events(rows)
            return append_result(last.seq, last.hash, events, False)

        return self._run(match_id, None, create)

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
        """Append a batch at the end of a match's log, all or nothing.

        Order inside the write transaction: the match and the key's first use (a retry with
        the same key and body returns the first result and writes nothing), the expected
        version, chaining, the caller's ``check``, the inserts, the match row.

        Raises:
            ValueError: ``events`` is empty.
            IdempotencyConflict: ``key`` was used on this match for different events.
            MatchNotFound: no such match.
            ConcurrencyConflict: the match is not at ``expected_version`` (or another
                writer's event already holds a seq this batch needs).
            StorageUnavailable: the storage failed or stayed busy; nothing was written.
        """
        check_append_args(match_id, by, expected_version, key)
        prepared = prepare(events)
        digest = body_hash(prepared) if key is not None else None

        def append(store: Store) -> AppendResult:
            found = store.head(match_id, key)
            if found is None:
                raise MatchNotFound(match_id)
            version, head, stored_status, seen = found
            if seen is not None:  # a retry: the first result, nothing written
                if seen[0] != digest:
                    raise IdempotencyConflict(key or "", match_id=match_id)
                replayed = store.events(match_id, seen[1], seen[2])
                return append_result(seen[2], replayed[-1].hash, replayed, True)
            if expected_version is not None and expected_version != version:
                raise ConcurrencyConflict(expected_version, version, match_id=match_id)
            store.base = version
            built, rows = chain_batch(match_id, version, head, prepared, at=utc_now(), by=by, key=key)
            changes = check(Current(version, store.record()), built) if check is not None else None
            status = status_update(changes)
            meta = meta_update(changes)
            store.insert_events(rows)
            if meta is not None:
                store.set_meta(match_id, meta)
            last = built[-1]
            if key is not None and digest is not None:
                store.insert_keys(match_id, [(key, digest, built[0].seq, last.seq, last.at)])
            # An unchanged status is not written: SQLite would rewrite its index entry all
            # the same, one more page per commit (the service sends a status every time).
            store.move(match_id, last.seq, last.hash, None if status == stored_status else status)
            return append_result(last.seq, last.hash, built, False)

        return self._run(match_id, key, append)

    def import_match(
        self,
        match_id: str,
        *,
        game: str,
        players: Sequence[str],
        token_hash: str,
        events: Sequence[StoredEvent],
        check: Check | None = None,
    ) -> AppendResult:
        """Recreate a match from events given whole (seq, at, by, key, prev, hash), in one transaction.

        The restore path of an archive: the chain is recomputed from the given fields and must
        verify, ``check`` runs on the whole log as on an append from version 0, the match row
        takes the first event's time as its creation time, and the idempotency keys are rebuilt.

        Raises:
            ChainBroken: the given hashes do not recompute (nothing written).
            MatchExists: the id is taken.
            ValueError: no events, or an event of another match.
        """
        (result,) = self.import_matches([MatchImport(match_id, game, players, token_hash, events, check)])
        if isinstance(result, Exception):
            raise result
        return result

    def import_matches(self, items: Sequence[MatchImport]) -> list[AppendResult | Exception]:
        """Recreate several matches in one write transaction, each all or nothing on its own.

        The result for each item is what :meth:`import_match` would return, or the exception
        it would raise (``ChainBroken``, ``MatchExists``, whatever the item's check raised);
        one refused match (rolled back to its savepoint) leaves the others imported. A storage
        failure aborts them all. A restore of many small matches then pays one durable commit,
        not one per match.
        """
        ready: list[Any] = []
        for item in items:  # every chain is checked before any lock is taken
            try:
                ready.append(ready_import(item))
            except (LedgerError, ValueError, TypeError) as error:
                ready.append(error)
        results: list[AppendResult | Exception] = []
        with self._transaction() as store:
            for entry in ready:
                if isinstance(entry, Exception):
                    results.append(entry)
                    continue
                try:
                    with store.savepoint():
                        results.append(_import_one(store, *entry))
                except store.failures:
                    raise  # the storage failed: the whole transaction goes
                except Exception as error:  # noqa: BLE001 - this match is refused, the others go on
                    results.append(error)
        return results

    def replace_token(self, match_id: str, old_hash: str, new_hash: str) -> bool:
        """Store a new write-token hash if the match still has ``old_hash``; say whether it did.

        Compare-and-set in one step, so two rotations racing with the same old token (on one
        server or two) cannot both win.

        Raises:
            MatchNotFound: no such match.
            StorageUnavailable: as for any write; nothing was written.
        """
        check_text("token_hash", new_hash)
        with self._transaction(match_id) as store:
            if not store.exists(match_id):
                raise MatchNotFound(match_id)
            return store.swap_token(match_id, old_hash, new_hash)

    def put_snapshot(self, snapshot: Snapshot) -> None:
        """Store (or replace) the snapshot of a match at its seq, in its own small transaction.

        Raises:
            MatchNotFound: no such match.
        """
        with self._transaction(snapshot.match_id) as store:
            if not store.exists(snapshot.match_id):
                raise MatchNotFound(snapshot.match_id)
            store.put_snapshot(snapshot)

    # -- reads: the checks written once, the rest the backend's -----------------------------

    def read(
        self, match_id: str, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return the match's events with ``after < seq <= upto`` (at most ``limit``), in seq order."""
        check_window(after, upto, limit)
        return self._read(match_id, after, upto, limit)

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
        """Return one page of matches, newest first, and how many match the filters in all.

        ``player`` matches one of the match's player names exactly; ``tag`` one of its
        ``meta.tags`` exactly; ``place`` its ``meta.place`` ignoring case (Python's casefold);
        ``date`` its ``meta.date``. Club logs (:data:`CLUB_LOG`) are listed only when ``game`` names them.
        """
        check_page(limit, offset)
        return self._list(MatchFilter(game, player, status, tag, place, date), limit, offset)

    # -- projections: documents derived from the logs, never part of them ------------------

    def docs(self, name: str, keys: Sequence[str]) -> dict[str, Any]:
        """Return the stored documents of projection ``name`` under ``keys`` (absent keys left out)."""
        return self._docs(name, list(keys)) if keys else {}

    def scan_docs(
        self, name: str, prefix: str, *, limit: int | None = None, reverse: bool = False
    ) -> list[tuple[str, Any]]:
        """Return ``(key, document)`` of projection ``name`` whose key starts with ``prefix``, by key
        (``reverse``: from the highest), at most ``limit``."""
        if limit is not None:
            check_count("limit", limit)
        return self._scan_docs(name, prefix, prefix + DOCS_END, limit, reverse)

    def doc_position(self, name: str) -> int:
        """Return the feed id projection ``name`` has caught up to (0: nothing yet)."""
        return self._doc_position(name)

    def write_docs(
        self, name: str, docs: Mapping[str, Any], *, position: tuple[int, int] | None = None, clear: bool = False
    ) -> bool:
        """Store a projection's documents (a None document deletes its key) in one transaction.

        ``position`` ``(expected, new)``: write only if the projection still stands at
        ``expected``, then move it to ``new``; False (nothing written) when another writer (another
        thread or server) moved it first. ``clear``: delete every document of ``name`` first (a
        rebuild). Projections are caches of the logs: they are neither chained nor append-only.
        """
        check_text("name", name)
        with self._transaction() as store:
            if position is not None and store.doc_position(name) != position[0]:
                return False
            store.put_docs(name, docs, None if position is None else position[1], clear)
        return True

    def feed(self, after_id: int = 0, limit: int = 1000) -> list[tuple[int, StoredEvent]]:
        """Return ``(id, event)`` for every match's events in the order they were stored, ids
        after ``after_id``: a consumer that remembers the last id it saw never misses an event."""
        check_count("after_id", after_id)
        check_count("limit", limit)
        return self._feed(after_id, limit)

    def feed_end(self) -> int:
        """Return the id of the last event stored in any match: where :meth:`changes` starts "from now"."""
        return self._changes(None)[0]

    def changes(self, after_id: int, timeout: float) -> tuple[int, dict[str, int]]:
        """Wait at most ``timeout`` seconds for appends past feed id ``after_id``, by any writer.

        Returns the feed id to pass next time and, for every match appended to since, its
        version (empty when the wait ran out). One caller per server process asks this for
        every match at once (the live streams' fan-out), so followers never poll one by one.
        SQLite and memory ledgers look every :data:`CHANGES_POLL_SECONDS` (one indexed query);
        PostgreSQL waits for any server's announcement of an append (LISTEN/NOTIFY).
        """
        check_count("after_id", after_id)
        deadline = time.monotonic() + timeout
        while True:
            mark = self._append_mark()
            last, versions = self._changes(after_id)
            left = deadline - time.monotonic()
            if versions or left <= 0:
                return max(last, after_id), versions
            self._await_append(mark, left)

    def _append_mark(self) -> int:
        """A count of the appends this ledger was told about (PostgreSQL's announcements); 0 elsewhere."""
        return 0

    def _await_append(self, mark: int, seconds: float) -> None:
        """Sleep until an append past ``mark`` is announced, or one poll interval (at most ``seconds``)."""
        time.sleep(min(seconds, CHANGES_POLL_SECONDS))

    @abstractmethod
    def _changes(self, after_id: int | None) -> tuple[int, dict[str, int]]:
        """The last feed id and the version of every match appended to after ``after_id``
        (``None``: only the last id)."""

    @abstractmethod
    def version(self, match_id: str) -> int:
        """Return the seq of the match's last event."""

    @abstractmethod
    def get_match(self, match_id: str) -> MatchRecord:
        """Return the match's row."""

    @abstractmethod
    def verify(self, match_id: str | None = None) -> list[VerifyReport]:
        """Recompute one match's chain (or every match's, by id) from the stored rows.

        Raises:
            MatchNotFound: ``match_id`` names neither a match row nor any event.
        """

    @abstractmethod
    def read_verified(self, match_id: str) -> tuple[VerifyReport, list[StoredEvent]]:
        """Return one match's chain report and its events (up to the first bad row), from one read of the rows."""

    def read_verified_on(
        self, match_id: str, since: Verified | None
    ) -> tuple[VerifyReport, list[StoredEvent], Verified | None]:
        """As :meth:`read_verified`, taking over the rows of an earlier read that verified (``since``)
        that are still stored byte for byte as they were; also return what a later read may take
        over (None: nothing, the chain did not verify or the backend keeps no raw rows).

        A match read after each new event (its page drawn anew) then hashes and decodes only
        the new rows, while every row is still read and compared. This backend keeps nothing:
        every read verifies the whole chain.
        """
        report, events = self.read_verified(match_id)
        return report, events, None

    @abstractmethod
    def snapshot(self, match_id: str, *, upto: int | None = None) -> Snapshot | None:
        """Return the match's newest snapshot with ``seq <= upto`` (None: there is none)."""

    @abstractmethod
    def close(self) -> None:
        """Release the backend's resources; the ledger is unusable afterwards."""

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- what a backend provides -------------------------------------------------------------

    @abstractmethod
    def _run(self, match_id: str, key: str | None, work: Callable[[Store], _R]) -> _R:
        """Run ``work`` in a write transaction and commit (an append or a new match)."""

    @abstractmethod
    def _transaction(self, match_id: str = "") -> AbstractContextManager[Store]:
        """One write transaction of its own (imports, token rotation, snapshots)."""

    @abstractmethod
    def _read(self, match_id: str, after: int, upto: int | None, limit: int | None) -> list[StoredEvent]:
        """:meth:`read`, its window checked."""

    @abstractmethod
    def _list(self, where: MatchFilter, limit: int, offset: int) -> tuple[list[MatchRecord], int]:
        """:meth:`list_matches`, its page checked."""

    @abstractmethod
    def _feed(self, after_id: int, limit: int) -> list[tuple[int, StoredEvent]]:
        """:meth:`feed`, its bounds checked."""

    @abstractmethod
    def _docs(self, name: str, keys: Sequence[str]) -> dict[str, Any]:
        """:meth:`docs`."""

    @abstractmethod
    def _scan_docs(self, name: str, low: str, high: str, limit: int | None, reverse: bool) -> list[tuple[str, Any]]:
        """:meth:`scan_docs`: keys ``low <= key < high``."""

    @abstractmethod
    def _doc_position(self, name: str) -> int:
        """:meth:`doc_position`."""


def _import_one(
    store: Store, item: MatchImport, names: tuple[str, ...], rows: list[Row], keys: list[KeyRow]
) -> AppendResult:
    """Recreate one checked import inside the transaction (its savepoint)."""
    if store.exists(item.match_id):
        raise MatchExists(item.match_id)
    built = tuple(item.events)
    changes = item.check(NEW_MATCH, built) if item.check is not None else None
    status, meta = status_update(changes), meta_update(changes)
    last = built[-1]
    row = MatchRecord(
        item.match_id,
        item.game,
        item.token_hash,
        built[0].at,
        names,
        status or DEFAULT_STATUS,
        last.seq,
        last.hash,
        meta or {},
    )
    if not store.insert_match(row):  # another server imported it meanwhile
        raise MatchExists(item.match_id)
    store.insert_events(rows)
    if keys:
        store.insert_keys(item.match_id, keys)
    return append_result(last.seq, last.hash, built, False)
