"""The audit reads the log once (``read_verified``): the rows it checks are the rows it scores.

A La Cabra series is recorded through the service on a real SQLite file, then one stored
note is edited the way a careful forger would (guards dropped, row edited, guards back).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.api.snapshot_logs import eggs_log

from api.service import Service, StateCache
from ledger import SqliteLedger
from ledger.sqlite import TRIGGERS


def forge(path: Path, note: int) -> None:
    """Edit the stored note ``note`` as a careful forger would: guards dropped, row edited, guards back."""
    conn = sqlite3.connect(path, isolation_level=None)
    saved = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE events SET data = ? WHERE seq = ?", ('{"text":"nothing happened"}', note))
    for (sql,) in saved:
        conn.execute(sql)
    conn.close()


@pytest.mark.parametrize("running", [False, True])
def test_the_audit_of_an_altered_log_names_the_event_and_still_scores_it(tmp_path: Path, running: bool) -> None:
    """``running``: the service that audited the sound log audits the altered one. It takes over
    the rows it verified, comparing each with what it was, so the forger's edit of an old row
    between two audits is named as a new process names it."""
    path = tmp_path / "a.db"
    log = eggs_log(40)
    note = next(seq for seq, e in enumerate(log, 1) if e["type"] == "note")
    with SqliteLedger(path) as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        service.record(created["id"], log[1:30], token=created["token"])
        assert service.audit(created["id"])["chain"]["valid"]  # the rows kept, verified
        service.record(created["id"], log[30:], token=created["token"])
        sound = service.audit(created["id"])  # taken over: the ten new rows hashed
        assert sound["chain"]["valid"] and sound["chain"]["length"] == 40
        forge(path, note)
        if running:
            altered = service.audit(created["id"])
    if not running:
        with SqliteLedger(path) as ledger:
            altered = Service(ledger, StateCache()).audit(created["id"])
    assert not altered["chain"]["valid"] and altered["chain"]["firstBad"] == note
    assert altered["version"] == 40 and altered["hands"] == sound["hands"]  # every stored row is still scored
