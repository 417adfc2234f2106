"""A match read after every event, taking over its last read, reads as a read made anew (issue 32).

A match page drawn anew after each event takes over what the last read of its match found
(the rows verified, the walk of each kind of reader, the finished hands' lines) as far as the
log read now agrees with it. Here a random playout of each game is recorded one event at a
time through one app, which reads the match after every event as an open reader and with the
write token; a second app on the same SQLite file keeps nothing (``TANTEO_CACHE_BYTES`` 0,
engines scoring anew) and must answer every read the same, byte for byte once decoded:
the audit, the summary, the last moves of the replay and the legal moves. Hands end, cards
are shown, corrections are made and the match ends on the way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from engines import ENGINES
from engines.finished import anew
from tests.engines.playouts import play

SEEDS = {"cabo": 2, "cau-robat": 1, "el-roby": 2, "kabu": 1, "la-cabra": 0}
"""A playout of each game with several hands, short enough to read anew after every event."""


def reads(version: int) -> list[str]:
    return ["/audit", "", f"/replay?start={max(1, version - 3)}", "/legal-moves", "/state"]


def answers(client: FlaskClient, match_id: str, token: str | None, version: int) -> list[Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out = []
    for path in reads(version):
        response = client.get(f"/matches/{match_id}{path}", headers=headers)
        assert response.status_code == 200, (path, response.get_json())
        out.append(response.get_json())
    return out


def moved(data: Any, at: int, by: int) -> Any:
    """``data`` with each reference to an event after ``at`` (a ``seq`` or ``target``) moved on by ``by``."""
    if isinstance(data, dict):
        return {
            k: v + by if k in ("seq", "target") and isinstance(v, int) and v > at else moved(v, at, by)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [moved(v, at, by) for v in data]
    return data


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_reads_after_every_event_are_the_reads_made_anew(tmp_path: Path, game: str) -> None:
    events, _ = play(game, SEEDS[game])
    db = str(tmp_path / "carried.db")
    carried = create_app({"TANTEO_DB": db, "TESTING": True}).test_client()
    made_anew = create_app({"TANTEO_DB": db, "TESTING": True, "TANTEO_CACHE_BYTES": 0}).test_client()
    created = carried.post("/matches", json=dict(events[0].data)).get_json()
    match_id, token = created["id"], created["token"]
    at = len(events) // 2  # a note and its void go in after event ``at``: later references move on by two
    log = [{"type": e.type, "data": moved(e.data, at, 2) if e.seq > at else e.data} for e in events[1:]]
    log[at - 1 : at - 1] = [
        {"type": "note", "data": {"text": "a word from the table"}},
        {"type": "void", "data": {"target": at + 1, "reason": "a note too many"}},
    ]
    scored_open = in_play = 0  # open reads with a finished hand scored whole, and reads of the match in play
    for version, event in enumerate(log, start=2):
        response = carried.post(
            f"/matches/{match_id}/events", json={"events": [event]}, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 201, (event, response.get_json())
        for key in (None, token):
            kept = answers(carried, match_id, key, version)
            with anew():
                fresh = answers(made_anew, match_id, key, version)
            assert kept == fresh, (version, key is not None)
            if key is None:
                hands = kept[0]["hands"]
                withheld = any(h.get("withheld") for h in hands)
                scored_open += not withheld and any(h["status"] == "scored" for h in hands)
                in_play += withheld or kept[1]["status"] != "over"
    assert kept[1]["status"] == "over"  # the playout ran to the end of the match
    assert scored_open and in_play
