"""The live streams' fan-out on a real ``tanteo serve`` (uvicorn, api/fanout.py): many followers of a
match cost no worker thread each, and each follower still gets exactly the public events after its
``Last-Event-ID``, in order, once, with heartbeats, a broadcast delay and a cap said in words.

Every wait is bounded (``streams.WAIT``); nothing here measures speed (the spectators bench in bench/ does).
"""

from __future__ import annotations

import http.client
import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.conftest import Server
from tests.server.streams import WAIT, Reader, record

FOLLOWERS = 120
"""Followers of one match at once: fifteen times what the old thread-per-stream server could hold."""


def note(text: str) -> dict[str, object]:
    return {"type": "note", "data": {"text": text}}


def started(server: Server, game: dict[str, object] | None = None) -> tuple[str, str]:
    status, created = server.call("POST", "/matches", game or {"game": "kabu", "players": ["A", "B", "C", "D"]})
    assert status == 201, created
    return created["id"], created["token"]


@pytest.fixture
def few_threads(tmp_path: Path) -> Iterator[Server]:
    """A server with two worker threads: any stream that held one would leave none for recording."""
    server = Server(tmp_path / "fanout.db", ["--threads", "2"])
    server.start()
    yield server
    server.stop()


def test_many_followers_each_get_every_event_once_in_order_and_no_thread_is_held(few_threads: Server) -> None:
    match_id, token = started(few_threads)
    readers = [Reader(few_threads, match_id) for _ in range(FOLLOWERS)]
    try:
        for reader in readers:
            assert reader.next()[0] == 1  # every follower is served (none refused) and caught up
        for i in range(3):
            assert record(few_threads, match_id, token, note(f"round {i}")) == 2 + i  # two threads still record
        assert few_threads.call("GET", f"/matches/{match_id}")[0] == 200  # … and read
        for reader in readers:
            got = [reader.next() for _ in range(3)]
            assert [(seq, envelope["data"]["text"]) for seq, envelope in got] == [
                (2, "round 0"),
                (3, "round 1"),
                (4, "round 2"),
            ]
            assert reader.events.empty()  # nothing twice
    finally:
        for reader in readers:
            reader.drop()


def test_a_late_follower_resumes_after_its_last_event_id_while_others_follow(server: Server) -> None:
    match_id, token = started(server)
    early = Reader(server, match_id)
    assert early.next()[0] == 1
    for i in range(4):
        record(server, match_id, token, note(f"n{i}"))
    late = Reader(server, match_id, last_event_id=3)
    assert [late.next()[0] for _ in range(2)] == [4, 5]
    record(server, match_id, token, note("both"))
    assert [early.next()[0] for _ in range(5)] == [2, 3, 4, 5, 6]
    assert late.next()[0] == 6
    early.drop()
    late.drop()


def test_the_fan_out_shows_private_values_only_as_an_open_reader_sees_them(server: Server) -> None:
    match_id, token = started(server, {"game": "cabo", "players": ["Anna", "Ben"]})
    reader = Reader(server, match_id)
    assert reader.next()[0] == 1
    record(
        server,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0, "layouts": [["??"] * 4] * 2, "discard": "5"}},
        {"type": "initial_peek", "data": {"seat": 0, "slots": [1, 2], "cards": ["9", "3"]}},
    )
    assert reader.next()[0] == 2
    seq, peek = reader.next()
    _, listing = server.call("GET", f"/matches/{match_id}/events?after=2")
    _, scorer = server.call("GET", f"/matches/{match_id}/events?after=2", headers={"Authorization": f"Bearer {token}"})
    assert scorer["events"][0]["data"]["cards"] == ["9", "3"]  # the token sees Anna's look
    assert seq == 3 and peek == listing["events"][0] and peek["data"]["cards"] != ["9", "3"]
    reader.drop()


def raw_stream(server: Server, path: str) -> tuple[http.client.HTTPResponse, http.client.HTTPConnection]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    connection.request("GET", path)
    return connection.getresponse(), connection


def test_heartbeats_when_quiet_and_the_end_of_a_long_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANTEO_STREAM_HEARTBEAT", "0.2")
    monkeypatch.setenv("TANTEO_STREAM_SECONDS", "1")
    server = Server(tmp_path / "beat.db")
    server.start()
    try:
        match_id, _ = started(server)
        response, connection = raw_stream(server, f"/matches/{match_id}/stream")
        assert response.status == 200 and response.getheader("Cache-Control") == "no-cache"
        assert response.getheader("Content-Length") is None
        text = response.read().decode()  # returns: the server ends the stream after a second
        connection.close()
        assert text.startswith("retry: 1000\n\nid: 1\n")
        assert text.count(": heartbeat\n\n") >= 2
    finally:
        server.stop()


def test_a_broadcast_delay_holds_an_event_another_follower_already_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``?delay=3600``: the event reaches the follower without a delay, while the delayed stream
    goes on with heartbeats only (an hour's delay holds it; nothing here reads a clock)."""
    monkeypatch.setenv("TANTEO_STREAM_HEARTBEAT", "0.2")
    server = Server(tmp_path / "delay.db")
    server.start()
    try:
        match_id, token = started(server)
        live = Reader(server, match_id, last_event_id=1)
        response, connection = raw_stream(server, f"/matches/{match_id}/stream?delay=3600&lastEventId=1")
        lines: queue.Queue[str] = queue.Queue()

        def read() -> None:
            try:
                while line := response.readline():
                    lines.put(line.decode())
            except (OSError, ValueError, AttributeError, http.client.HTTPException):
                return  # the connection was cut below

        threading.Thread(target=read, daemon=True).start()
        record(server, match_id, token, note("held"))
        assert live.next()[0] == 2  # the hub has the event: the undelayed follower got it
        beats = 0
        while beats < 3:  # three heartbeats after that, on the delayed stream: alive, and holding
            line = lines.get(timeout=WAIT)
            assert not line.startswith("id: "), "a delayed stream sent an event an hour early"
            beats += line.startswith(": heartbeat")
        connection.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]
        connection.close()
        live.drop()
    finally:
        server.stop()


def test_past_the_cap_a_follower_is_told_in_words_and_a_leaving_one_frees_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TANTEO_MAX_STREAMS", "2")
    server = Server(tmp_path / "cap.db")
    server.start()
    try:
        match_id, _ = started(server)
        held = [Reader(server, match_id) for _ in range(2)]
        for reader in held:
            assert reader.next()[0] == 1
        response, connection = raw_stream(server, f"/matches/{match_id}/stream")
        problem = json.loads(response.read())
        connection.close()
        assert response.status == 503 and problem["code"] == "stream.busy"
        assert response.getheader("Content-Type") == "application/problem+json"
        held[0].drop()
        for _ in range(int(WAIT / 0.1)):  # the server notices the closed connection, then frees the slot
            response, connection = raw_stream(server, f"/matches/{match_id}/stream")
            if response.status == 200:
                break
            response.read()
            connection.close()
            time.sleep(0.1)
        assert response.status == 200
        connection.close()
        held[1].drop()
    finally:
        server.stop()


def test_refusals_come_from_the_one_error_table_before_any_stream(server: Server) -> None:
    match_id, _ = started(server)
    for path, headers, status, code in [
        ("/matches/nope/stream", {}, 404, "match.not_found"),
        (f"/matches/{match_id}/stream", {"Last-Event-ID": "x1"}, 400, "request.bad_last_event_id"),
        (f"/matches/{match_id}/stream?delay=-1", {}, 400, None),
    ]:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        assert response.status == status and response.getheader("Content-Type") == "application/problem+json"
        assert code is None or body["code"] == code


def test_a_follower_behind_the_kept_frames_is_told_to_read_for_itself() -> None:
    """A hub keeps the last ``KEEP`` frames at least; a follower further behind reads the ledger itself."""
    from api.fanout import KEEP, Follow, Frame, Hub

    follow = Follow(
        hub=("match", "m"),
        read=lambda service, after: [],
        first=[],
        reached=5,
        known=5,
        delay=0.0,
        now=lambda: None,  # type: ignore[arg-type,return-value]
        heartbeat=15.0,
        max_seconds=300.0,
        release=lambda: None,
    )
    hub = Hub(follow)
    hub.add([Frame(seq, None, b"") for seq in range(3, 6 + KEEP)])  # 3..5 are already known: skipped
    assert hub.head == 5 + KEEP and len(hub.recent) == KEEP
    assert [frame.seq for frame in hub.frames_after(5 + KEEP - 2) or []] == [4 + KEEP, 5 + KEEP]
    assert hub.frames_after(5 + KEEP) == [] and hub.frames_after(4) is None
    assert [frame.seq for frame in hub.frames_after(5) or []] == list(range(6, 6 + KEEP))
    hub.add([Frame(seq, None, b"") for seq in range(6 + KEEP, 7 + 2 * KEEP)])  # past twice KEEP: trimmed to KEEP
    assert len(hub.recent) == KEEP and hub.frames_after(5 + KEEP) is None
    assert [frame.seq for frame in hub.frames_after(6 + KEEP) or []] == list(range(7 + KEEP, 7 + 2 * KEEP))
    assert hub.frames_after(hub.head - 1) == [hub.recent[-1]]


def test_a_club_night_is_followed_through_the_fan_out(server: Server) -> None:
    """One night stream, whole frames: a change at any table of the night sends the night's versions."""
    _, made = server.call("POST", "/clubs", {"name": "Casal"})
    key = {"Authorization": f"Bearer {made['key']}"}
    club = made["id"]
    events = [{"type": "player_added", "data": {"name": n}} for n in ("Ana", "Bea", "Carles")]
    status, _ = server.call(
        "POST",
        f"/clubs/{club}/events",
        {"events": [*events, {"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}}]},
        key,
    )
    assert status == 201
    tables = [
        server.call(
            "POST", f"/clubs/{club}/matches", {"match": {"game": "cabo", "players": seats}, "night": "n1"}, key
        )[1]
        for seats in (["p1", "p2"], ["p2", "p3"])
    ]
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    connection.request("GET", f"/clubs/{club}/nights/n1/stream")
    response = connection.getresponse()
    assert response.status == 200

    def frame() -> tuple[int, dict[str, object]]:
        fields: dict[str, str] = {}
        while True:
            line = response.readline().decode().rstrip("\n")
            if not line and "data" in fields:
                return int(fields["id"]), json.loads(fields["data"])
            if line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value

    count, first = frame()
    assert first["tables"] == {tables[0]["id"]: 1, tables[1]["id"]: 1}
    record(server, tables[1]["id"], tables[1]["token"], note("second table starts"))
    seq, changed = frame()
    assert seq == count + 1 and changed["tables"] == {tables[0]["id"]: 1, tables[1]["id"]: 2}
    connection.sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]
    connection.close()
