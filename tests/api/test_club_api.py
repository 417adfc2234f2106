"""The clubs' JSON API on SQLite and PostgreSQL: each bad request gets its own 4xx in words and
leaves the club's log as it was; hidden players stay out of open reads; every club resource is in
/openapi.json with an example."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from tests.engines.drivers import playout


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def club(client: FlaskClient) -> dict[str, Any]:
    made = client.post("/clubs", json={"name": "Bar Roby", "place": "Sants"})
    assert made.status_code == 201 and made.headers["Location"].endswith(f"/clubs/{made.json['id']}")
    added = client.post(
        f"/clubs/{made.json['id']}/events",
        json={"events": [{"type": "player_added", "data": {"name": n}} for n in ("Ana", "Bea", "Carles", "Dolors")]},
        headers=bearer(made.json["key"]),
    )
    assert added.status_code == 201 and added.json["made"] == ["p1", "p2", "p3", "p4"]
    return made.json


def log_of(client: FlaskClient, club: dict[str, Any]) -> list[str]:
    return [e["hash"] for e in client.get(f"/clubs/{club['id']}/events").json["events"]]


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        ('{"events": [', "key", 400, "request.malformed_json"),
        ({"events": [{"type": "player_added", "data": {"name": ""}}]}, "key", 400, "schema.invalid"),
        ({"events": [{"type": "player_added", "data": {"name": "x" * 10_000_000}}]}, "key", 413, None),
        ({"events": [{"type": "player_added", "data": {"name": "Eva"}}]}, None, 401, "auth.missing"),
        ({"events": [{"type": "player_added", "data": {"name": "Eva"}}]}, "wrong", 403, "auth.wrong"),
        (
            {"events": [{"type": "players_merged", "data": {"player": "p1", "into": "p1"}}]},
            "key",
            422,
            "club.merge_self",
        ),
        (
            {"events": [{"type": "player_renamed", "data": {"player": "p2", "name": "ANA"}}]},
            "key",
            422,
            "club.name_taken",
        ),
        ({"events": [{"type": "player_hidden", "data": {"player": "p9"}}]}, "key", 422, "club.unknown_player"),
        (
            {"events": [{"type": "player_added", "data": {"name": "Eva"}}], "expectedVersion": 2},
            "key",
            409,
            "version.conflict",
        ),
        ({"events": [{"type": "nonsense", "data": {}}]}, "key", 400, "schema.unknown_type"),
    ],
)
def test_a_bad_roster_write_gets_its_own_error_in_words_and_writes_nothing(
    client: FlaskClient, club: dict[str, Any], body: Any, headers: str | None, status: int, code: str | None
) -> None:
    before = log_of(client, club)
    sent = {"key": bearer(club["key"]), "wrong": bearer("not-the-key"), None: {}}[headers]
    if isinstance(body, str):
        answer = client.post(
            f"/clubs/{club['id']}/events", data=body, headers={**sent, "Content-Type": "application/json"}
        )
    else:
        answer = client.post(f"/clubs/{club['id']}/events", json=body, headers=sent)
    assert answer.status_code == status, answer.json
    assert answer.mimetype == "application/problem+json"
    if code is not None:
        assert answer.json["code"] == code
    detail = answer.json["detail"]
    assert "Traceback" not in detail and "{'" not in detail and "\\S" not in detail
    assert log_of(client, club) == before


def test_an_unknown_club_is_a_404_and_a_match_is_not_a_club(client: FlaskClient, club: dict[str, Any]) -> None:
    assert client.get("/clubs/nope").json["code"] == "club.not_found"
    match = client.post("/matches", json={"game": "cabo", "players": ["A", "B"]}).json
    assert client.get(f"/clubs/{match['id']}").status_code == 404
    assert client.get(f"/matches/{club['id']}").status_code == 404  # nor is a club a match
    assert (
        client.post(
            f"/matches/{club['id']}/events",
            json={"events": [{"type": "note", "data": {"text": "x"}}]},
            headers=bearer(club["key"]),
        ).status_code
        == 404
    )
    assert club["id"] not in [m["id"] for m in client.get("/matches").json["items"]]


def test_a_hidden_player_is_not_in_any_open_read(client: FlaskClient, club: dict[str, Any]) -> None:
    events, _ = playout("cabo", 3)
    n = len(events[0].data["players"])
    seats = [f"p{k}" for k in range(1, n + 1)]
    made = client.post(
        f"/clubs/{club['id']}/matches",
        json={"match": {**events[0].data, "players": seats}},
        headers=bearer(club["key"]),
    )
    assert made.status_code == 201, made.json
    recorded = client.post(
        f"/matches/{made.json['id']}/events",
        json={"events": [{"type": e.type, "data": e.data} for e in events[1:]]},
        headers=bearer(made.json["token"]),
    )
    assert recorded.status_code == 201
    hidden = client.post(
        f"/clubs/{club['id']}/events",
        json={"events": [{"type": "player_hidden", "data": {"player": "p1"}}]},
        headers=bearer(club["key"]),
    )
    assert hidden.status_code == 201
    for path in (f"/clubs/{club['id']}", f"/clubs/{club['id']}/table?game=cabo"):
        assert b'"p1"' not in client.get(path).data
        assert b'"p1"' in client.get(path, headers=bearer(club["key"])).data  # the organiser still sees them
    assert client.get(f"/clubs/{club['id']}/players/p1").status_code == 422
    assert client.get(f"/clubs/{club['id']}/players/p2").status_code == 200
    chart = client.get(f"/clubs/{club['id']}/players/p2/chart.svg?game=cabo")
    assert chart.status_code == 200 and chart.mimetype == "image/svg+xml" and b"<polyline" in chart.data
    sheet = client.get(f"/clubs/{club['id']}/table?game=cabo&format=csv", headers={"Accept-Language": "de"})
    assert sheet.mimetype == "text/csv" and sheet.data.decode().splitlines()[0].startswith("Rang")
    assert client.get(f"/clubs/{club['id']}/table?game=cabo&period=night:n7").json["code"] == "club.unknown_period"
    assert client.get(f"/clubs/{club['id']}/table?game=chess").status_code == 404


def test_every_club_resource_is_documented_with_an_example(client: FlaskClient) -> None:
    spec = client.get("/openapi.json").json
    paths = spec["paths"]
    for path, verb in (
        ("/clubs", "post"),
        ("/clubs/{club_id}", "get"),
        ("/clubs/{club_id}/events", "post"),
        ("/clubs/{club_id}/matches", "post"),
        ("/clubs/{club_id}/matches", "get"),
        ("/clubs/{club_id}/attach", "post"),
        ("/clubs/{club_id}/table", "get"),
        ("/matches/{match_id}/again", "post"),
    ):
        operation = paths[path][verb]
        text = json.dumps(operation)
        assert '"example"' in text or '"examples"' in text, (path, verb)
        assert operation.get("summary") or operation.get("description")
    for path in (
        "/clubs/{club_id}/players/{player_id}",
        "/clubs/{club_id}/nights/{night_id}",
        "/series/{series_id}",
        "/clubs/{club_id}/export",
    ):
        assert "get" in paths[path]
