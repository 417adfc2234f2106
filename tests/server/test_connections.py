"""``tanteo serve`` keeps one SQLite connection per worker thread for its whole life.

Seen from outside, on the real files: while the server runs, the WAL holds the appends (a
connection closed after each request would have checkpointed and removed it, at the cost of
several fsyncs per append), the server holds the file open between requests, and stopping
the server closes its connections, which folds the WAL into the database file.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tests.api.la_cabra_deals import DEAL_1, START
from tests.server.conftest import Server

from api.cli import SERVER_SETTINGS


def open_handles(pid: int, db: Path) -> int:
    """How many of the process's file descriptors point at the database file itself."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(db):
                count += 1
        except OSError:
            continue
    return count


def test_connections_outlive_requests_and_close_at_shutdown(server: Server) -> None:
    assert server.process is not None
    status, created = server.call("POST", "/matches", START)
    assert status == 201
    for version, event in enumerate(DEAL_1[:6], start=1):
        status, body = server.call(
            "POST",
            f"/matches/{created['id']}/events",
            {"events": [event], "expectedVersion": version},
            {"Authorization": f"Bearer {created['token']}"},
        )
        assert status == 201, body
    for _ in range(5):
        assert server.call("GET", f"/matches/{created['id']}")[0] == 200
    wal = Path(f"{server.db}-wal")
    assert wal.exists() and wal.stat().st_size > 0  # not checkpointed by the last request
    assert 1 <= open_handles(server.process.pid, server.db.resolve()) <= SERVER_SETTINGS["threads"]
    server.stop()  # SIGTERM: the server stops, every thread's connection is closed
    assert not wal.exists() or wal.stat().st_size == 0  # the last close folded the WAL in
    conn = sqlite3.connect(server.db)
    try:
        assert conn.execute("SELECT max(seq) FROM events").fetchone() == (7,)
    finally:
        conn.close()
