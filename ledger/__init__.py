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

import os
import re
from pathlib import Path

from .base import Check, Ledger
from .errors import (
    ConcurrencyConflict,
    IdempotencyConflict,
    LedgerError,
    MatchExists,
    MatchNotFound,
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
)
from .sqlite import SqliteLedger

__all__ = [
    "CHAIN_FORMAT",
    "GENESIS",
    "AppendResult",
    "Check",
    "ConcurrencyConflict",
    "IdempotencyConflict",
    "Ledger",
    "LedgerError",
    "MatchExists",
    "MatchNotFound",
    "MatchRecord",
    "MemoryLedger",
    "NewEvent",
    "SqliteLedger",
    "StoredEvent",
    "VerifyReport",
    "canonical_json",
    "chain_hash",
    "is_shared_database",
    "open_ledger",
    "verify_file",
]

SUPPORTED_FORMS = (
    "a file path, 'sqlite:///relative/path', 'sqlite:////absolute/path', "
    "'postgresql://user@host/dbname' or 'memory:'"
)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def open_ledger(url_or_path: str | os.PathLike[str], *, synchronous: str = "FULL") -> Ledger:
    """Open the ledger a configuration string names.

    A plain path or ``sqlite:///path`` (SQLAlchemy's spelling: three slashes, then the
    path, so ``sqlite:////var/tanteo.db`` is absolute) opens a :class:`SqliteLedger`,
    creating the file if needed; ``memory:`` gives a new, empty :class:`MemoryLedger`.
    ``postgresql://…`` (or ``postgres://…``, any libpq URL) opens a
    :class:`~ledger.postgres.PostgresLedger`, creating or upgrading its tables on first use.
    ``synchronous`` applies to SQLite only.

    Raises:
        ValueError: any other URL, or an empty string.
        LedgerError: the database cannot be reached or is not a sound Tanteo ledger.
    """
    if isinstance(url_or_path, os.PathLike):
        return SqliteLedger(url_or_path, synchronous=synchronous)
    if not isinstance(url_or_path, str):
        raise TypeError(f"expected a path or URL string, got {type(url_or_path).__name__}")
    text = url_or_path.strip()
    if text == "memory:":
        return MemoryLedger()
    if text.startswith(POSTGRES_SCHEMES):
        from .postgres import PostgresLedger

        return PostgresLedger(text)
    if text.startswith("sqlite:///") and len(text) > len("sqlite:///"):
        return SqliteLedger(text[len("sqlite:///") :], synchronous=synchronous)
    if not text or text.startswith(("sqlite:", "memory:")) or _URL.match(text):
        raise ValueError(f"unsupported ledger location {url_or_path!r}; use {SUPPORTED_FORMS}")
    return SqliteLedger(text, synchronous=synchronous)


def is_shared_database(url_or_path: str | os.PathLike[str]) -> bool:
    """Return whether the location names a database server (one ledger object serves
    every thread of a process) rather than a file (one ledger per thread)."""
    return isinstance(url_or_path, str) and url_or_path.strip().startswith(POSTGRES_SCHEMES)


def verify_file(path: str | os.PathLike[str]) -> list[VerifyReport]:
    """Verify every chain in a ledger without changing it (``tanteo verify``).

    A file is opened read-only (``file:…?mode=ro``); it is never created, migrated or
    written. A ``postgresql://`` URL is verified on one read-only snapshot; the database
    must already hold a Tanteo schema (it is not created for a verify).

    Raises:
        LedgerError: there is no file at ``path``, it is not a Tanteo ledger, or its
            append-only triggers are missing or altered.
    """
    if is_shared_database(path):
        from .postgres import verify_database

        return verify_database(str(path))
    if not Path(path).is_file():
        raise LedgerError(f"no ledger database at {os.fspath(path)}")
    with SqliteLedger(path, read_only=True) as ledger:
        return ledger.verify()
