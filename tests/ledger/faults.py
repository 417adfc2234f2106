"""Real storage faults for tests: a read-only directory, a full disk, a held write lock.

Tests run as root here, where ``chmod`` stops nothing, so each fault is made for real in the
strongest way the machine allows, in this order:

* **read-only**: a read-only bind mount of the directory (root with mount rights), else
  ``chmod`` (a normal user, where it does stop writes), else — root without mount rights —
  the caller opens the ledger read-only (``mode=ro``: SQLite itself refuses the write);
* **full**: a small ``tmpfs`` mounted on the directory and filled to the last byte, else
  ``PRAGMA max_page_count`` at the file's current size on the writer's connection (SQLite
  raises SQLITE_FULL itself as soon as a write needs one more page);
* **busy**: a second connection holding ``BEGIN IMMEDIATE`` (needs nothing special);
* **I/O error**: the process's file size limit (``RLIMIT_FSIZE``) lowered to the WAL's current
  size, so the kernel fails the next write that would grow it with ``EFBIG`` (Python ignores
  ``SIGXFSZ``), which SQLite reports as ``SQLITE_IOERR_WRITE`` (needs nothing special either).

Nothing is mocked: in every case SQLite returns the error to the code under test.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BALLAST = "ballast"


def _run(*command: str) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every raw row of the ledger's tables, read with a plain connection (to compare before/after)."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in ("matches", "events")
        } | {"idempotency": conn.execute("SELECT * FROM idempotency ORDER BY match_id, key").fetchall()}
    finally:
        conn.close()


@contextlib.contextmanager
def read_only_view(directory: Path) -> Iterator[tuple[Path, str]]:
    """Yield ``(path, how)``: ``path`` shows ``directory``'s files and cannot be written.

    ``how`` is ``"mount"`` (a read-only bind mount beside it), ``"chmod"`` (the directory and
    its files made read-only), or ``"open-read-only"``: neither stops this process, so the
    caller must open the ledger read-only.
    """
    view = directory.with_name(directory.name + "-ro")
    view.mkdir()
    if _run("mount", "--bind", str(directory), str(view)):
        if _run("mount", "-o", "remount,bind,ro", str(view)):
            try:
                yield view, "mount"
            finally:
                _run("umount", "-l", str(view))  # lazy: a connection still open does not block it
            return
        _run("umount", "-l", str(view))
    view.rmdir()
    if os.geteuid() != 0:
        modes = {path: path.stat().st_mode for path in [directory, *directory.iterdir()]}
        for path in modes:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield directory, "chmod"
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
        return
    yield directory, "open-read-only"


@contextlib.contextmanager
def small_disk(directory: Path) -> Iterator[bool]:
    """Mount a 1 MiB tmpfs on ``directory`` (created empty); yield whether it was mounted."""
    directory.mkdir(parents=True, exist_ok=True)
    mounted = _run("mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", str(directory))
    try:
        yield mounted
    finally:
        if mounted:
            _run("umount", "-l", str(directory))


def fill(directory: Path, mounted: bool, connection: Callable[[], sqlite3.Connection]) -> None:
    """Leave no room for one more database page: fill the tmpfs, or cap the file's page count."""
    if mounted:
        fd = os.open(directory / BALLAST, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass  # ENOSPC: the disk is full
        finally:
            os.close(fd)
        return
    conn = connection()
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count = {pages}")


def free(directory: Path, mounted: bool, connection: Callable[[], sqlite3.Connection]) -> None:
    """Undo :func:`fill`."""
    if mounted:
        (directory / BALLAST).unlink()
    else:
        connection().execute("PRAGMA max_page_count = 1073741823")


@contextlib.contextmanager
def lock_held(db: Path) -> Iterator[sqlite3.Connection]:
    """Hold the file's write lock from another connection (as another writer would)."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    finally:
        conn.execute("ROLLBACK")
        conn.close()


@contextlib.contextmanager
def writes_fail_past(path: Path) -> Iterator[None]:
    """Make every write of this process that would grow a file past ``path``'s size fail (EFBIG)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
