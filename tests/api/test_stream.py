"""GET /matches/{id}/stream through the Flask test client: the frames, resuming, the delay, heartbeats.

Each stream here is cut short by ``TANTEO_STREAM_SECONDS`` so that the whole body can be
read; the real server (waitress, a reader and a writer at once) is in
``tests/server/test_stream_server.py``.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from tests.conftest import Clock, Scorer

K1 = {"game": "kabu", "players": ["P1", "P2", "P3", "P4"]}


@pytest.fixture
def app(db_path: Path, clock: Clock) -> Iterator[Flask]:
    yield create_app(
        {
            "TANTEO_DB": str(db_path),
            "TESTING": True,
            "TANTEO_CLOCK": clock,
            "TANTEO_STREAM_SECONDS": 0.3,
            "TANTEO_STREAM_POLL": 0.05,
            "TANTEO_STREAM_HEARTBEAT": 0.1,
        }
    )


def parse(body: str) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Split an SSE body into (id, data) events and comment lines, as an EventSource would."""
    events, comments = [], []
    for block in body.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                comments.append(line[1:].strip())
            elif line:
                name, _, value = line.partition(": ")
                fields[name] = value
        if "data" in fields:
            events.append((int(fields["id"]), json.loads(fields["data"])))
    return events, comments


def stream(
    client: FlaskClient, match_id: str, headers: dict[str, str] | None = None, **query: Any
) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    response = client.get(f"/matches/{match_id}/stream", query_string=query, headers=headers or {})
    assert response.status_code == 200, response.data
    assert response.mimetype == "text/event-stream"
    return parse(response.get_data(as_text=True))


def started(scorer: Scorer) -> None:
    scorer.start(K1)
    scorer.record(
        {"type": "hand_started", "data": {"dealer": 3, "hands": [["??", "??"]] * 4}},
        {"type": "stand", "data": {"seat": 0}},
        {"type": "take", "data": {"seat": 1}},
    )


def test_one_event_per_stored_event_with_its_seq_and_public_envelope(client: FlaskClient, scorer: Scorer) -> None:
    started(scorer)
    events, comments = stream(client, scorer.id)
    assert [seq for seq, _ in events] == [1, 2, 3, 4]
    listed = client.get(f"/matches/{scorer.id}/events").get_json()["events"]  # what an open reader is shown
    assert [data for _, data in events] == listed
    assert "heartbeat" in comments


def test_last_event_id_resumes_without_losing_or_repeating(client: FlaskClient, scorer: Scorer) -> None:
    started(scorer)
    assert [s for s, _ in stream(client, scorer.id, headers={"Last-Event-ID": "2"})[0]] == [3, 4]
    assert [s for s, _ in stream(client, scorer.id, lastEventId=3)[0]] == [4]
    assert [s for s, _ in stream(client, scorer.id, headers={"Last-Event-ID": "3"}, lastEventId=1)[0]] == [
        4
    ]  # the header wins
    assert stream(client, scorer.id, headers={"Last-Event-ID": "4"})[0] == []


def test_a_broadcast_delay_holds_events_until_they_are_old_enough(
    client: FlaskClient, scorer: Scorer, clock: Clock
) -> None:
    started(scorer)
    assert stream(client, scorer.id, delay=60)[0] == []
    clock.offset = timedelta(seconds=61)
    assert [s for s, _ in stream(client, scorer.id, delay=60)[0]] == [1, 2, 3, 4]


def test_refused_stream_requests(client: FlaskClient, scorer: Scorer) -> None:
    started(scorer)
    assert client.get("/matches/nope/stream").status_code == 404
    bad = client.get(f"/matches/{scorer.id}/stream", headers={"Last-Event-ID": "x1"})
    assert bad.status_code == 400 and bad.get_json()["code"] == "request.bad_last_event_id"
    assert client.get(f"/matches/{scorer.id}/stream", query_string={"delay": -1}).status_code == 400
    assert client.get(f"/matches/{scorer.id}/stream", query_string={"lastEventId": "two"}).status_code == 400


def test_the_stream_shows_private_values_only_as_an_open_reader_sees_them(client: FlaskClient, scorer: Scorer) -> None:
    scorer.start({"game": "cabo", "players": ["Anna", "Ben"]})
    scorer.record(
        {"type": "hand_started", "data": {"dealer": 0, "layouts": [["??"] * 4] * 2, "discard": "5"}},
        {"type": "initial_peek", "data": {"seat": 0, "slots": [1, 2], "cards": ["9", "3"]}},
    )
    [(seq, peek)] = stream(client, scorer.id, lastEventId=2)[0]
    scorer_view = client.get(
        f"/matches/{scorer.id}/events", query_string={"after": 2}, headers={"Authorization": f"Bearer {scorer.token}"}
    ).get_json()["events"][0]
    open_view = client.get(f"/matches/{scorer.id}/events", query_string={"after": 2}).get_json()["events"][0]
    assert scorer_view["data"]["cards"] == ["9", "3"]  # the token sees Anna's look
    assert seq == 3 and peek == open_view and peek["data"]["cards"] != ["9", "3"]  # the stream never does


def test_streams_past_the_cap_are_told_to_come_back_and_a_closed_stream_frees_its_slot(
    app: Flask, client: FlaskClient, scorer: Scorer
) -> None:
    """Each open stream holds a worker thread: past ``TANTEO_MAX_STREAMS`` a follower gets 503, not a stalled server."""
    started(scorer)
    app.config["TANTEO_MAX_STREAMS"] = 2
    held = [client.get(f"/matches/{scorer.id}/stream", buffered=False) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    next(iter(held[0].response))  # both streams are open and serving
    refused = client.get(f"/matches/{scorer.id}/stream")
    assert refused.status_code == 503 and refused.get_json()["code"] == "stream.busy"
    assert refused.headers["Retry-After"] == "10"
    assert client.get(f"/matches/{scorer.id}").status_code == 200  # the rest of the API answers
    held[0].close()  # the follower left: its slot is free again
    again = client.get(f"/matches/{scorer.id}/stream", buffered=False)
    assert again.status_code == 200
    for response in (held[1], again):
        response.close()
    assert app.extensions["tanteo.streams"].open == 0


def test_a_club_night_is_followed_with_one_stream_that_resumes(client: FlaskClient) -> None:
    made = client.post("/clubs", json={"name": "Casal"}).get_json()
    key = {"Authorization": f"Bearer {made['key']}"}
    club = made["id"]
    added = client.post(
        f"/clubs/{club}/events",
        json={
            "events": [{"type": "player_added", "data": {"name": n}} for n in ("Ana", "Bea", "Carles")]
            + [{"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}}]
        },
        headers=key,
    )
    assert added.status_code == 201
    tables = [
        client.post(
            f"/clubs/{club}/matches", json={"match": {"game": "cabo", "players": seats}, "night": "n1"}, headers=key
        ).get_json()
        for seats in (["p1", "p2"], ["p2", "p3"])
    ]
    response = client.get(f"/clubs/{club}/nights/n1/stream")
    assert response.mimetype == "text/event-stream"
    events, _ = parse(response.get_data(as_text=True))
    count = client.get(f"/clubs/{club}/nights/n1").get_json()["count"]
    assert events == [(count, {"seq": count, "at": "", "tables": {tables[0]["id"]: 1, tables[1]["id"]: 1}})]
    client.post(
        f"/matches/{tables[1]['id']}/events",
        json={"events": [{"type": "note", "data": {"text": "second table starts"}}]},
        headers={"Authorization": f"Bearer {tables[1]['token']}"},
    )
    resumed, _ = parse(
        client.get(f"/clubs/{club}/nights/n1/stream", headers={"Last-Event-ID": str(count)}).get_data(as_text=True)
    )
    assert [(seq, data["tables"][tables[1]["id"]]) for seq, data in resumed] == [(count + 1, 2)]
    quiet, comments = parse(
        client.get(f"/clubs/{club}/nights/n1/stream?lastEventId={count + 1}").get_data(as_text=True)
    )
    assert quiet == [] and "heartbeat" in comments  # nothing new: nothing sent twice
    assert client.get(f"/clubs/{club}/nights/n9/stream").status_code == 422
    assert client.get("/clubs/nope/nights/n1/stream").status_code == 404
