"""The append-only, hash-chained store of match logs.

The ledger stores and chains events and knows no game: the service hands it a ``check`` to
run inside each write transaction (see :data:`ledger.base.Check`). Two backends share one
interface (:class:`Ledger`) and one contract test suite: :class:`SqliteLedger` (one file,
WAL, append-only enforced by triggers), :class:`~ledger.postgres.PostgresLedger` (one
database shared by several app servers; imported on first use, so SQLite users never load
psycopg) and :class:`MemoryLedger` (tests and tools).

>>> from ledger import MemoryLedger, NewEvent
>>> with MemoryLedger() as book:
...     first = book.create_match("m1", game="cabo", players=["Anna", "Ben"], token_hash="t",
...                               first=NewEvent("match_started", {"game": "cabo"}), by="anna")
...     book.append("m1", [NewEvent("note", {"text": "hi"})], by="anna", expected_version=1).version
2
"""

from __future__ import annotations

import functools
import os
import re
import threading
from pathlib import Path
from typing import Any

from .base import CLUB_LOG, Check, Current, Ledger, MatchImport, Snapshot
from .errors import (
    ChainBroken,
    ConcurrencyConflict,
    IdempotencyConflict,
    LedgerError,
    MatchExists,
    MatchNotFound,
    StorageUnavailable,
)
from .memory import MemoryLedger
from .records import (
    CHAIN_FORMAT,
    GENESIS,
    AppendResult,
    MatchRecord,
    NewEvent,
    StoredEvent,
    VerifyReport,
    canonical_json,
    chain_hash,
    chain_hash_v2,
    commitment,
)
from ._core import verify_listing
from .sqlite import BUSY_TIMEOUT_SECONDS, SqliteLedger
from .words import Said

__all__ = [
    "CLUB_LOG",
    "chain_hash_v2",
    "commitment",
    "verify_listing",
    "CHAIN_FORMAT",
    "GENESIS",
    "AppendResult",
    "ChainBroken",
    "Check",
    "Current",
    "ConcurrencyConflict",
    "IdempotencyConflict",
    "Ledger",
    "LedgerError",
    "MatchExists",
    "MatchImport",
    "MatchNotFound",
    "MatchRecord",
    "MemoryLedger",
    "NewEvent",
    "Snapshot",
    "PerThread",
    "SqliteLedger",
    "StorageUnavailable",
    "StoredEvent",
    "VerifyReport",
    "canonical_json",
    "chain_hash",
    "is_shared_database",
    "sqlite_file",
    "open_ledger",
    "verify_file",
]

SUPPORTED_FORMS = (
    "a file path, 'sqlite:///relative/path', 'sqlite:////absolute/path', 'postgresql://user@host/dbname' or 'memory:'"
)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def open_ledger(
    url_or_path: str | os.PathLike[str],
    *,
    synchronous: str = "FULL",
    busy_timeout: float = BUSY_TIMEOUT_SECONDS,
    read_only: bool = False,
) -> Ledger:
    """Open the ledger a configuration string names.

    A plain path or ``sqlite:///path`` (SQLAlchemy's spelling: three slashes, then the
    path, so ``sqlite:////var/tanteo.db`` is absolute) opens a :class:`SqliteLedger`,
    creating the file if needed; ``memory:`` gives a new, empty :class:`MemoryLedger`.
    ``postgresql://…`` (or ``postgres://…``, any libpq URL) opens a
    :class:`~ledger.postgres.PostgresLedger`, creating or upgrading its tables on first use
    (unless ``read_only``). ``synchronous`` applies to SQLite only; ``busy_timeout``
    (seconds a write waits for another writer) and ``read_only`` to both.

    An existing file that cannot be written (a read-only file, directory or file system)
    is opened read-only: reads work, and every write raises
    ``StorageUnavailable("read_only")``.

    Raises:
        ValueError: any other URL, or an empty string.
        StorageUnavailable: the file does not exist and cannot be created, or the storage
            failed while opening it.
    """
    if isinstance(url_or_path, str):
        text = url_or_path.strip()
        if text == "memory:":
            return MemoryLedger()
        if text.startswith(POSTGRES_SCHEMES):
            from .postgres import PostgresLedger

            return PostgresLedger(text, busy_timeout=busy_timeout, read_only=read_only)
    path = sqlite_file(url_or_path)
    if path is None:  # pragma: no cover - memory: and servers returned above
        raise ValueError(f"unsupported ledger location {url_or_path!r}; use {SUPPORTED_FORMS}")
    if not read_only:
        try:
            return SqliteLedger(path, synchronous=synchronous, busy_timeout=busy_timeout)
        except StorageUnavailable as error:
            if error.reason != "read_only" or not Path(path).is_file():
                raise
    return SqliteLedger(path, synchronous=synchronous, busy_timeout=busy_timeout, read_only=True)


class PerThread:
    """One ledger per thread, opened on the thread's first use and kept until :meth:`close`.

    The API's worker threads each keep one connection for the life of the process: opening
    a SQLite connection per request cost a third of the request, and the last close of the
    file checkpointed the WAL (about five fsync-class calls per append instead of one).
    Checkpoints are left to SQLite's automatic checkpoint on commit. ``memory:`` is one
    :class:`MemoryLedger` shared by every thread (it has its own lock), and a
    ``postgresql://`` URL one :class:`~ledger.postgres.PostgresLedger` (its connection pool
    lends each thread a connection per call). A thread whose open failed (say the storage
    was unavailable) tries again on its next use.
    """

    def __init__(self, url_or_path: str | os.PathLike[str], **options: Any) -> None:
        """Keep where the ledger is and how to open it: ``options`` are :func:`open_ledger`'s."""
        self.url = url_or_path
        self._open = functools.partial(open_ledger, url_or_path, **options)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[Ledger] = []
        self._shared: Ledger | None = None
        if isinstance(url_or_path, str) and url_or_path.strip() == "memory:":
            self._shared = MemoryLedger()

    def get(self) -> Ledger:
        """Return this thread's ledger, opening it on first use.

        Raises:
            LedgerError: the ledger cannot be opened (``StorageUnavailable`` for a storage fault).
        """
        if self._shared is not None:
            return self._shared
        if is_shared_database(self.url):
            with self._lock:
                if self._shared is None:
                    self._shared = self._open()
                return self._shared
        ledger: Ledger | None = getattr(self._local, "ledger", None)
        if ledger is None:
            ledger = self._open()
            with self._lock:
                self._opened.append(ledger)
            self._local.ledger = ledger
        return ledger

    def close(self) -> None:
        """Close every thread's ledger (at shutdown, when no request is running)."""
        with self._lock:
            opened, self._opened = self._opened, []
            if self._shared is not None:
                opened.append(self._shared)
        for ledger in opened:
            ledger.close()
        self._local = threading.local()


def sqlite_file(url_or_path: str | os.PathLike[str]) -> str | os.PathLike[str] | None:
    """Return the SQLite file a ledger location names (a plain path or ``sqlite:///path``), or
    None for ``memory:`` and a database server.

    Raises:
        TypeError: not a path or a string.
        ValueError: any other URL, or an empty string.
    """
    if isinstance(url_or_path, os.PathLike):
        return url_or_path
    if not isinstance(url_or_path, str):
        raise TypeError(f"expected a path or URL string, got {type(url_or_path).__name__}")
    text = url_or_path.strip()
    if text == "memory:" or text.startswith(POSTGRES_SCHEMES):
        return None
    if text.startswith("sqlite:///") and len(text) > len("sqlite:///"):
        return text[len("sqlite:///") :]
    if not text or text.startswith(("sqlite:", "memory:")) or _URL.match(text):
        raise ValueError(f"unsupported ledger location {url_or_path!r}; use {SUPPORTED_FORMS}")
    return text


def is_shared_database(url_or_path: str | os.PathLike[str]) -> bool:
    """Return whether the location names a database server (one ledger object serves
    every thread of a process) rather than a file (one ledger per thread)."""
    return isinstance(url_or_path, str) and url_or_path.strip().startswith(POSTGRES_SCHEMES)


def verify_file(path: str | os.PathLike[str]) -> list[VerifyReport]:
    """Verify every chain in a ledger without changing it (``tanteo verify``).

    A file is opened read-only (``file:…?mode=ro``); it is never created, migrated or
    written. A ``postgresql://`` URL is verified on one read-only snapshot; the database
    must already hold a current Tanteo schema (verify never creates or upgrades one).

    Raises:
        LedgerError: there is no file at ``path``, it is not a Tanteo ledger, or its
            append-only triggers are missing or altered.
    """
    if is_shared_database(path):
        from .postgres import verify_database

        return verify_database(str(path))
    if not Path(path).is_file():
        raise LedgerError(Said("no ledger database at %(path)s", path=os.fspath(path)))
    with SqliteLedger(path, read_only=True) as ledger:
        return ledger.verify()
