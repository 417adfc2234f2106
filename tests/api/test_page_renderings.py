"""Pages read by hundreds (issue 32): the match page, its live part, the replay and a club night
are drawn once per version and answered 304 to their ETag; an open reader and the token holder
never get each other's drawing; a 1,000-event match's page is a few times a short one's, its
earlier hands a link away; answers are compressed when the client asks, event streams never."""

from __future__ import annotations

import gzip
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.service.reader import Reader
from tests.api.open_reads import KABU_OPEN_DEAL, KABU_OPEN_SIX, ev, leaks
from tests.api.snapshot_logs import eggs_log, recorded
from tests.conftest import Scorer

U = "??"


def night(client: FlaskClient) -> tuple[str, str, str, str]:
    """A club with a night and one table on it: the club, the night, the match and its token."""
    made = client.post("/clubs", json={"name": "Penya"}).get_json()
    club, key = made["id"], {"Authorization": f"Bearer {made['key']}"}
    events = [{"type": "player_added", "data": {"name": n}} for n in ("Anna", "Ben", "Carl", "Dora")]
    events.append({"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}})
    added = client.post(f"/clubs/{club}/events", json={"events": events}, headers=key)
    assert added.status_code == 201, added.get_json()
    night_id = client.get(f"/clubs/{club}").get_json()["nights"][-1]["id"]
    table = client.post(
        f"/clubs/{club}/matches",
        json={"match": {"game": "la-cabra", "players": added.get_json()["made"][:4]}, "night": night_id},
        headers=key,
    )
    assert table.status_code == 201, table.get_json()
    return club, night_id, table.get_json()["id"], table.get_json()["token"]


DEAL = [
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The match ids whose audit was read (each page drawing reads it once)."""
    audits: list[str] = []
    original = Reader.audit

    def audit(self: Reader) -> dict[str, Any]:
        audits.append(self.id)
        return original(self)

    monkeypatch.setattr(Reader, "audit", audit)
    return audits


@pytest.mark.parametrize("page", ["", "/live", "/replay"])
def test_a_match_page_is_drawn_once_per_version_and_answered_304(
    client: FlaskClient, counted: list[str], page: str
) -> None:
    match_id, token = recorded(client, eggs_log(20))
    path = f"/m/{match_id}{page}"
    first = client.get(path)
    assert first.status_code == 200 and first.mimetype == "text/html"
    tag = first.headers["ETag"]
    assert tag.startswith('"20-en-open') and not tag.startswith("W/")  # strong: version, language, reader
    assert "Authorization" in first.vary and first.headers["Cache-Control"] == "no-cache"
    assert counted == [match_id]

    again = client.get(path)  # another reader: the kept drawing, nothing read but the version
    assert again.status_code == 200 and again.data == first.data and counted == [match_id]
    held = client.get(path, headers={"If-None-Match": tag})
    assert held.status_code == 304 and held.data == b"" and held.headers["ETag"] == tag
    assert held.headers["Content-Security-Policy"] and held.headers["X-Frame-Options"] == "DENY"
    assert client.get(path, headers={"If-None-Match": tag[:-1] + ':gzip"'}).status_code == 304  # as compressed
    assert counted == [match_id]

    # another language is another drawing, with its own tag
    catalan = client.get(path, headers={"Accept-Language": "ca"})
    assert catalan.status_code == 200 and catalan.headers["ETag"] != tag and 'lang="ca"' in catalan.get_data(True)
    assert client.get(path, headers={"If-None-Match": tag, "Accept-Language": "ca"}).status_code == 200

    # a new event is a new version: drawn again, once, and the old tag no longer holds
    response = client.post(
        f"/matches/{match_id}/events",
        json={"events": [{"type": "note", "data": {"text": "a new entry"}}]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201
    counted.clear()
    newer = client.get(path, headers={"If-None-Match": tag})
    assert newer.status_code == 200 and newer.headers["ETag"].startswith('"21-en-open') and counted == [match_id]
    assert client.get(path, headers={"If-None-Match": newer.headers["ETag"]}).status_code == 304
    assert counted == [match_id]


def test_a_club_night_is_drawn_once_per_state_and_answered_304(client: FlaskClient) -> None:
    club, night_id, match_id, token = night(client)
    path = f"/c/{club}/n/{night_id}"
    first = client.get(path)
    assert first.status_code == 200
    tag = first.headers["ETag"]
    assert client.get(path, headers={"If-None-Match": tag}).status_code == 304
    screen = client.get(path, query_string={"screen": "1"}, headers={"If-None-Match": tag})
    assert screen.status_code == 200 and screen.headers["ETag"] != tag  # the big screen is another drawing
    response = client.post(
        f"/matches/{match_id}/events", json={"events": DEAL}, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 201
    after = client.get(path, headers={"If-None-Match": tag})
    assert after.status_code == 200 and after.headers["ETag"] != tag
    assert b"72" not in first.data or after.data != first.data
    total = client.get(f"/matches/{match_id}").get_json()["standings"][0]["total"]
    assert f'<td class="total">{total}</td>' in after.get_data(True)
    assert client.get(f"/c/{club}/n/nope").status_code == 404


KABU_DEAL = [
    KABU_OPEN_DEAL,
    ev("keep", seat=1, card=U),
    ev("keep", seat=2, card=U),
    ev("keep", seat=0, card="7C"),
]


@pytest.mark.parametrize("token_first", [True, False])
@pytest.mark.parametrize("page", ["", "/live", "/replay"])
def test_an_open_reader_never_gets_the_token_holders_drawing(
    scorer: Scorer, counted: list[str], token_first: bool, page: str
) -> None:
    """A page read with the write token is drawn for that reader, kept apart and tagged apart: the
    open reader's bytes never hold a value only the token holder may see. (The pages' words never
    name a hidden card today — the narration is said for everyone — so the two drawings may read
    alike; what is tested is that nothing is shared between them.)"""
    scorer.start(KABU_OPEN_SIX)
    scorer.record(*KABU_DEAL)
    assert leaks(scorer.client.get(f"/matches/{scorer.id}/events", headers=HOLDER(scorer)).data, ["7C"]) == ["7C"]
    path = f"/m/{scorer.id}{page}"
    reads = [(True, HOLDER(scorer)), (False, {})] if token_first else [(False, {}), (True, HOLDER(scorer))]
    got: dict[bool, Any] = {}
    for kind, headers in reads * 2:  # twice each: the second read is the kept drawing
        response = scorer.client.get(path, headers=headers)
        assert response.status_code == 200
        got.setdefault(kind, response)
        assert response.data == got[kind].data
    assert counted == [scorer.id, scorer.id]  # one drawing per kind of reader, each kept
    open_reader, token_holder = got[False], got[True]
    assert open_reader.headers["ETag"] != token_holder.headers["ETag"]
    assert "-open-" in open_reader.headers["ETag"] and "-all-" in token_holder.headers["ETag"]
    assert token_holder.headers["Cache-Control"] == "private, no-cache" and "Authorization" in open_reader.vary
    assert leaks(open_reader.data, ["7C"]) == []  # kept in play: hidden from the open reader's bytes
    # the token holder's tag held up by an open reader is no drawing of theirs: 200, the open one
    crossed = scorer.client.get(path, headers={"If-None-Match": token_holder.headers["ETag"]})
    assert crossed.status_code == 200 and crossed.data == open_reader.data
    assert leaks(crossed.data, ["7C"]) == []
    # a wrong key is refused, never answered with a drawing
    assert scorer.client.get(path, headers={"Authorization": "Bearer wrong"}).status_code in (401, 403)


def HOLDER(scorer: Scorer) -> dict[str, str]:  # noqa: N802 - reads as the constant it is per match
    return {"Authorization": f"Bearer {scorer.token}"}


def test_a_long_match_page_shows_its_latest_hands_and_pages_the_rest(client: FlaskClient) -> None:
    short, _ = recorded(client, eggs_log(20))
    long, _ = recorded(client, eggs_log(1000))
    short_page, long_page = client.get(f"/m/{short}").data, client.get(f"/m/{long}").data
    assert len(long_page) < 3 * len(short_page), (len(long_page), len(short_page))
    text = long_page.decode()
    assert text.count('<article class="hand-why"') == 12 and 'id="last-moves"' in text
    assert len(re.findall(r'<li data-seq="\d+">', text)) == 10  # the last ten moves, each linking to the replay
    assert f'href="/m/{long}/replay?at=1000"' in text

    # every hand is a link or a few away: the pages of earlier hands, each drawn and kept on its own
    hands = {h["hand"] for h in client.get(f"/matches/{long}/audit").get_json()["hands"]}
    seen: set[int] = set()
    path: str | None = f"/m/{long}"
    pages = 0
    while path:
        response = client.get(path)
        assert response.status_code == 200
        body = response.get_data(True)
        shown = {int(n) for n in re.findall(r'<article class="hand-why" id="hand-(\d+)"', body)}
        assert shown and not shown & seen
        seen |= shown
        found = re.search(r'<a class="button" href="([^"]+)">Earlier hands</a>', body)
        path = found.group(1).replace("&amp;", "&") if found else None
        pages += 1
        if path:
            assert 'data-paged="1"' in client.get(path).get_data(True)
    assert seen == hands and pages == -(-len(hands) // 12)
    # a page of earlier hands leads back to the latest
    earlier = client.get(f"/m/{long}?before=30").get_data(True)
    assert f'<a class="button" href="/m/{long}">Latest hands</a>' in earlier and "Later hands" in earlier
    assert 'id="last-moves"' not in earlier


def test_answers_are_compressed_when_asked_and_etags_still_hold(scorer: Scorer, app: Flask) -> None:
    scorer.start(KABU_OPEN_SIX)
    scorer.record(*KABU_DEAL)
    gz = {"Accept-Encoding": "gzip"}
    for path in (f"/m/{scorer.id}", f"/matches/{scorer.id}/audit", f"/matches/{scorer.id}/replay"):
        response = scorer.client.get(path, headers=gz)
        assert response.headers.get("Content-Encoding") == "gzip", path
        assert "Accept-Encoding" in response.vary
        assert response.headers["Content-Security-Policy"] and response.headers["X-Content-Type-Options"] == "nosniff"
        plain = scorer.client.get(path)
        assert "Content-Encoding" not in plain.headers and gzip.decompress(response.data) == plain.data
        tag = response.headers["ETag"]
        assert tag.endswith(':gzip"')
        if path.startswith("/m/"):
            assert scorer.client.get(path, headers={**gz, "If-None-Match": tag}).status_code == 304
    # the API's ETag is the version whatever the reader: an open reader's copy held up with the key is
    # never answered 304 (a browser revalidating it would show the token holder the open body)
    events = f"/matches/{scorer.id}/events"
    open_tag = scorer.client.get(events, headers=gz).headers["ETag"]
    keyed = scorer.client.get(events, headers={**gz, "If-None-Match": open_tag, **HOLDER(scorer)})
    assert keyed.status_code == 200 and leaks(gzip.decompress(keyed.data), ["7C"]) == ["7C"]
    # the API's ETag is the version, as compressed too: If-Match takes it back
    tag = scorer.client.get(f"/matches/{scorer.id}/audit", headers=gz).headers["ETag"]
    version = scorer.get()["version"]
    assert tag == f'"{version}:gzip"'
    kept = scorer.post(ev("stand", seat=1), headers={"If-Match": tag})
    assert kept.status_code == 201, kept.get_json()
    stale = scorer.post(ev("take", seat=2), headers={"If-Match": tag})
    assert stale.status_code == 409

    # an event stream is never compressed: each event must reach its reader as it is written
    app.config["TANTEO_STREAM_SECONDS"] = 0.5
    stream = scorer.client.get(
        f"/matches/{scorer.id}/stream", query_string={"lastEventId": 0}, headers=gz, buffered=False
    )
    try:
        assert stream.mimetype == "text/event-stream" and "Content-Encoding" not in stream.headers
        assert next(iter(stream.response)).startswith(b"retry: ")  # plain text, as written
    finally:
        stream.close()


def test_readers_arriving_together_at_a_new_version_share_one_drawing(
    app: Flask, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every spectator's page hears of the same event at once: one worker draws, the others wait for it."""
    import threading
    import time

    match_id, _ = recorded(app.test_client(), eggs_log(20))
    counted.clear()
    counting = Reader.audit

    def slow_audit(self: Reader) -> dict[str, Any]:
        time.sleep(0.3)  # a long match's audit: the other readers arrive while it is drawn
        return counting(self)

    monkeypatch.setattr(Reader, "audit", slow_audit)
    answers: list[int] = []
    readers = [
        threading.Thread(target=lambda: answers.append(app.test_client().get(f"/m/{match_id}").status_code))
        for _ in range(7)
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(30)
    assert answers == [200] * 7
    assert counted == [match_id]  # one drawing for all seven
