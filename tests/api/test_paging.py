"""Big reads: /replay and /events in pages with next links, views computed once per state, orjson.

Real La Cabra logs (a seeded legal playout, and one with every kind of correction) are
recorded over HTTP on a real SQLite file; the pages, followed link by link, must put back
exactly the unpaged answer.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient
from tests.api.walk_logs import corrected_log
from tests.api.snapshot_logs import eggs_log, recorded

from engines import la_cabra
from engines.base import Event
from replays.steps import frames, frames_json


def follow(client: FlaskClient, url: str, key: str) -> Iterator[dict[str, Any]]:
    """Every page of a paged resource, following its next links (checked against the Link header)."""
    while url:
        r = client.get(url)
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        yield body
        url = body["links"]["next"]
        assert (r.headers.get("Link") is None) == (url is None)
        if url:
            assert r.headers["Link"] == f'<{url}>; rel="next"'


@pytest.mark.parametrize("course", ["corrected", "recorded"])
@pytest.mark.parametrize("which", ["playout", "corrections"])
def test_replay_pages_put_back_the_whole_replay(client: FlaskClient, course: str, which: str) -> None:
    from tests.engines.drivers import playout

    log = (
        [{"type": e.type, "data": dict(e.data)} for e in playout("la-cabra", 2)[0]]
        if which == "playout"
        else corrected_log(0)
    )
    match_id, _ = recorded(client, log, batch=40)
    whole = client.get(f"/matches/{match_id}/replay?course={course}&seat=1").get_json()
    assert whole["next"] is None and whole["links"] == {"next": None} and len(whole["frames"]) == len(log)
    pages = list(follow(client, f"/matches/{match_id}/replay?course={course}&seat=1&limit=7", "frames"))
    assert len(pages) == -(-len(log) // 7)
    assert [f for page in pages for f in page["frames"]] == whole["frames"]
    middle = client.get(f"/matches/{match_id}/replay?course={course}&seat=1&from=9&limit=5").get_json()
    assert middle["frames"] == whole["frames"][8:13] and middle["next"] == 14


def test_events_pages_follow_their_links(client: FlaskClient) -> None:
    match_id, _ = recorded(client, eggs_log(95), batch=40)
    whole = client.get(f"/matches/{match_id}/events").get_json()
    assert whole["next"] is None and whole["links"] == {"next": None} and len(whole["events"]) == 95
    pages = list(follow(client, f"/matches/{match_id}/events?limit=20", "events"))
    assert [len(p["events"]) for p in pages] == [20, 20, 20, 20, 15]
    assert [e for p in pages for e in p["events"]] == whole["events"]
    assert client.get(f"/matches/{match_id}/events?from=90").get_json()["events"] == whole["events"][89:]


def test_a_frame_whose_state_did_not_change_reuses_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    views = [0]
    real = la_cabra.view

    def counting(state: Any, seat: Any) -> Any:
        views[0] += 1
        return real(state, seat)

    log = [Event(seq, e["type"], e["data"]) for seq, e in enumerate(eggs_log(300), 1)]
    steps = frames(la_cabra, log)
    monkeypatch.setattr(la_cabra, "view", counting)
    shown = frames_json(la_cabra, steps, 0)
    notes = sum(1 for e in log if e.type == "note")
    assert views[0] == len(log) - notes  # one view per state, none for the notes
    assert all(
        f["changed"] == [] and f["state"] == shown[i - 1]["state"] for i, f in enumerate(shown) if f["type"] == "note"
    )
    views[0] = 0
    page = frames_json(la_cabra, steps, 0, start=200, stop=220)
    assert page == shown[199:220] and views[0] <= 22  # frames before the page get no view


def test_json_responses_are_written_by_orjson(client: FlaskClient) -> None:
    r = client.post("/matches", json={"game": "la-cabra", "players": ["José", "Ñuño", "Sara", "Wim"]})
    assert r.status_code == 201
    match_id = r.get_json()["id"]
    body = client.get(f"/matches/{match_id}").data
    assert "José".encode() in body  # the standard encoder (ensure_ascii) writes Jos\\u00e9
