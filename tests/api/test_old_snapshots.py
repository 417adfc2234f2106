"""Snapshots stored before issue 27 renamed the engines' state fields still give the true state.

Issue 27 gave one name to each idea in the engines' states (``result_only``; ``closed_after``
for the moves recorded before a close from the sheet, ``closed_seq`` for the event that closed
it, ``closed_from_sheet`` for both in El Roby's record of a hand, ``ended_seq`` for the event
that ended a Kabú hand). ``data/closed_from_sheet_snapshots.json`` holds, per game, a log with a
hand closed from the score sheet and its folded state exactly as the codec stored it before the
renames, with the rules version it was stored under. Such a row must never give another state:
the codec writes fields by position, so the old data decodes to the state the log folds to
today; and the service does not even trust it (the rules version differs), it refolds the log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from api.service import Service, StateCache
from api.service.snapshots import _digest, load, rules_version
from engines import ENGINES
from engines.base import Event, events_from, replay
from engines.codec import load_state
from ledger import Snapshot, SqliteLedger

OLD = json.loads((Path(__file__).parent / "data" / "closed_from_sheet_snapshots.json").read_text())


def folded(game: str) -> Any:
    log = OLD[game]["log"]
    return replay(ENGINES[game], [Event(i + 1, e["type"], e["data"]) for i, e in enumerate(log)])


@pytest.mark.parametrize("game", sorted(OLD))
def test_an_old_snapshot_decodes_to_the_state_the_log_folds_to(game: str) -> None:
    engine = ENGINES[game]
    old = load_state(engine, OLD[game]["state"])
    now = folded(game)
    assert old == now
    assert engine.score(old) == engine.score(now) and engine.view(old, None) == engine.view(now, None)
    assert "closedFromSheet" in json.dumps(engine.score(now)), "the fixture closes a hand from the sheet"


@pytest.mark.parametrize("game", sorted(OLD))
def test_an_old_snapshot_row_is_not_trusted_and_the_log_is_refolded(tmp_path: Path, game: str) -> None:
    engine = ENGINES[game]
    log = OLD[game]["log"]
    with SqliteLedger(tmp_path / "old.db") as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        match_id, token = created["id"], created["token"]
        service.record(match_id, log[1:], token=token)
        seq = len(log)
        head = ledger.read(match_id, after=seq - 1, upto=seq)[0].hash
        text = orjson.dumps(OLD[game]["state"]).decode()
        rules = OLD[game]["rules"]
        digest = _digest(match_id, seq, head, rules, text)
        ledger.put_snapshot(Snapshot(match_id, seq, head, rules, text, digest))
        assert ledger.snapshot(match_id, upto=seq) is not None
        truth = replay(engine, events_from(ledger.read(match_id)))
        found = load(ledger, match_id, engine, seq)
        if rules == rules_version(engine):  # Cabo's package kept its names: the row is still its rules'
            assert found is not None and found.state == truth
        else:  # stored under other rules: ignored, and the cold reader folds the log
            assert found is None
        cold = Service(ledger, StateCache()).state(match_id, token=token)
        assert cold["state"] == engine.view(truth, None)
