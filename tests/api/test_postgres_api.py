"""What only a shared PostgreSQL database does to the API: a writer held up by another
server's lock answers 503 and writes nothing; a dropped database connection is a 503 and the
next request works; two apps (two servers) on one database see each other's writes, and a
live stream on one is woken by an append through the other."""

from __future__ import annotations

import queue
import threading
from typing import Any

import psycopg

from api.app import create_app

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
NOTE = {"events": [{"type": "note", "data": {"text": "hola"}}]}


def started(client: Any) -> tuple[str, dict[str, str]]:
    body = client.post("/matches", json=START).get_json()
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def test_a_match_locked_past_the_busy_timeout_is_503_busy_and_nothing_is_written(postgres_url: str) -> None:
    app = create_app({"TANTEO_DB": postgres_url, "TANTEO_BUSY_TIMEOUT": 0.3, "TESTING": True})
    client = app.test_client()
    match_id, auth = started(client)
    with psycopg.connect(postgres_url) as other_server:
        other_server.execute("SELECT 1 FROM matches WHERE id = %s FOR UPDATE", (match_id,))
        response = client.post(f"/matches/{match_id}/events", json=NOTE, headers=auth)
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        assert response.get_json()["code"] == "storage.busy"
    assert client.get(f"/matches/{match_id}").get_json()["version"] == 1
    assert client.post(f"/matches/{match_id}/events", json=NOTE, headers=auth).status_code == 201
    app.extensions["tanteo.ledgers"].close()


def test_a_database_going_away_mid_write_is_503_io_and_the_next_request_works(postgres_url: str) -> None:
    app = create_app({"TANTEO_DB": postgres_url, "TESTING": True})
    client = app.test_client()
    match_id, auth = started(client)
    blocker = psycopg.connect(postgres_url)  # a lock makes the write wait inside its transaction
    blocker.execute("SELECT 1 FROM matches WHERE id = %s FOR UPDATE", (match_id,))

    def drop_the_waiting_writer() -> None:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            while not admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks "
                "WHERE NOT granted AND locktype IN ('tuple', 'transactionid')"
            ).fetchall():
                threading.Event().wait(0.01)

    dropper = threading.Thread(target=drop_the_waiting_writer)
    dropper.start()
    response = client.post(f"/matches/{match_id}/events", json=NOTE, headers=auth)
    dropper.join()
    blocker.close()
    assert response.status_code == 503 and response.get_json()["code"] == "storage.io"
    assert response.headers["Retry-After"] == "30"
    assert client.get(f"/matches/{match_id}").get_json()["version"] == 1
    assert client.post(f"/matches/{match_id}/events", json=NOTE, headers=auth).get_json()["version"] == 2
    app.extensions["tanteo.ledgers"].close()


def test_two_apps_on_one_database_see_each_others_writes(postgres_url: str) -> None:
    apps = [create_app({"TANTEO_DB": postgres_url, "TESTING": True}) for _ in range(2)]
    first, second = (app.test_client() for app in apps)
    match_id, auth = started(first)
    assert second.get(f"/matches/{match_id}/legal-moves").status_code == 200  # cached in the second app
    assert first.post(f"/matches/{match_id}/events", json=NOTE, headers=auth).status_code == 201
    stale = second.post(f"/matches/{match_id}/events", json={**NOTE, "expectedVersion": 1}, headers=auth)
    assert stale.status_code == 409
    deal = {"events": [{"type": "hand_started", "data": {"dealer": 3}}], "expectedVersion": 2}
    assert second.post(f"/matches/{match_id}/events", json=deal, headers=auth).get_json()["version"] == 3
    assert first.get(f"/matches/{match_id}").get_json() == second.get(f"/matches/{match_id}").get_json()
    for app in apps:
        app.extensions["tanteo.ledgers"].close()


def test_a_stream_on_one_server_is_woken_by_an_append_through_another(postgres_url: str) -> None:
    """The reading server would sleep 20 s between reads (poll, wait and heartbeat all 20 s):
    only the announcement of the append made through the other server can bring the event
    within the 15 s the test waits."""
    writer = create_app({"TANTEO_DB": postgres_url, "TESTING": True}).test_client()
    slow = {
        "TANTEO_STREAM_POLL": 20,
        "TANTEO_STREAM_WAIT": 20,
        "TANTEO_STREAM_HEARTBEAT": 20,
        "TANTEO_STREAM_SECONDS": 20,
    }
    reader = create_app({"TANTEO_DB": postgres_url, "TESTING": True, **slow}).test_client()
    match_id, auth = started(writer)
    response = reader.get(f"/matches/{match_id}/stream", buffered=False)
    assert response.status_code == 200
    frames: queue.Queue[str] = queue.Queue()

    def follow() -> None:
        try:
            for chunk in response.response:
                frames.put(chunk.decode() if isinstance(chunk, bytes) else chunk)
        except Exception as error:  # noqa: BLE001 - reported through the queue
            frames.put(f"error: {error}")

    threading.Thread(target=follow, daemon=True).start()
    seen = ""
    while "id: 1\n" not in seen:
        seen += frames.get(timeout=15)
    assert writer.post(f"/matches/{match_id}/events", json=NOTE, headers=auth).status_code == 201
    while "id: 2\n" not in seen:
        seen += frames.get(timeout=15)  # woken by the other server's announcement, not a poll
    assert '"text":"hola"' in seen.split("id: 2\n", 1)[1]
