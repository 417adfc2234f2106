"""A spectator with only the match's link, on a phone, follows matches in play: no page and no
response a page fetches carries a card the rules hide, and the pages say things in words (from the
h7 spectator audit)."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from playwright.sync_api import Page, Response, expect

from tests.engines.test_conformance import playout
from tests.pages.conftest import new_match, record
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server

@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with room for many open streams: each reader's page of a match in play holds one, and a
    closed page's stream is let go only at its next heartbeat."""
    server = Server(Path(tmp_path_factory.mktemp("spectator")) / "spectator.db", ["--threads", "32"])
    server.start()
    yield server
    server.stop()


READER_PAGES = ("", "/replay", "/replay?seat=0", "/replay?seat=2", "/replay?course=recorded", "/replay?seat=all", "/dispute")


def as_events(events: list[Any]) -> list[dict[str, Any]]:
    return [{"type": e.type, "data": e.data} for e in events]


def bytes_seen() -> tuple[list[tuple[str, bytes]], Callable[[Response], None]]:
    """Collect the raw bytes of every response a page receives (an open stream has no end: it is read apart)."""
    seen: list[tuple[str, bytes]] = []

    def keep(response: Response) -> None:
        if "/stream" not in response.url:
            seen.append((response.url, response.body()))

    return seen, keep


def test_a_spectator_sees_no_hidden_card_of_a_la_cabra_deal_in_play(open_page: Callable[..., Page], live: Server) -> None:
    events, _ = playout("la-cabra", 1)
    # hand 1 dealt with every hand known to the scorer; North leads 6D, East beats with 8D, South and West
    # discard face down (QD, 9S): the other cards are in the players' hands
    assert [e.type for e in events[1:6]] == ["hand_started", "lead", "beat", "discard", "discard"]
    match_id, token = new_match(live, events[0].data)
    record(live, match_id, token, *as_events(events[1:6]))
    dealt = [c for hand in events[1].data["hands"] for c in hand]
    hidden = sorted(set(dealt) - {"6D", "8D"})
    assert len(hidden) == 14 and {"QD", "9S"} <= set(hidden)
    for path in READER_PAGES:
        seen, keep = bytes_seen()
        page = open_page(f"/m/{match_id}{path}", on_response=keep)
        page.wait_for_load_state("networkidle")
        if "replay" in path:
            expect(page.locator("#table")).to_have_attribute("data-seq", "6")
            page.keyboard.press("Home")
            for _ in range(5):
                page.keyboard.press("ArrowRight")
        for url, body in seen:
            assert not [c for c in hidden if f'"{c}"'.encode() in body or f">{c}<".encode() in body], (path, url)
        assert "undefined" not in page.inner_text("body") and "null" not in page.inner_text("body"), path
    # the live stream the pages follow, as the server sends it, up to the last event
    stream = b""
    with urllib.request.urlopen(f"{live.url}/matches/{match_id}/stream", timeout=10) as answer:
        while b"id: 6" not in stream:
            stream += answer.readline()
        stream += answer.readline()
    assert b"8D" in stream  # the stream did carry the plays
    assert not [c for c in hidden if f'"{c}"'.encode() in stream]


def test_the_replay_of_a_match_in_play_reads_in_words(open_page: Callable[..., Page], live: Server) -> None:
    """Found by the h7 audit: the public La Cabra table said 'undefined card points known' (the public view has
    no card points: only the scorer's does), and an open Cau Robat chain without a call yet 'Open chain of 6: null'."""
    events, _ = playout("la-cabra", 1)
    match_id, token = new_match(live, events[0].data)
    record(live, match_id, token, *as_events(events[1:6]))
    page = open_page(f"/m/{match_id}/replay?at=6")
    expect(page.locator("#table")).to_have_attribute("data-seq", "6")
    expect(page.locator("#table")).to_contain_text("North + South: 0 tricks, 0 cards")
    expect(page.locator("#table")).to_contain_text("East + West: 1 trick, 4 cards")
    page.get_by_label("Seen by").select_option("all")
    page.get_by_label("Write key").fill(token)
    page.get_by_role("button", name="Use this key").click()
    expect(page.locator("#move")).to_contain_text("seen by everyone")
    expect(page.locator("#table")).to_contain_text("card points known")

    body, cau = MATCHES["cau-robat"]
    match_id, token = new_match(live, body)
    record(live, match_id, token, *cau)
    page = open_page(f"/m/{match_id}/replay?at=6")  # B's 6 copas stays on the table: a chain nobody called yet
    expect(page.locator("#table")).to_have_attribute("data-seq", "6")
    expect(page.locator("#table")).to_contain_text("Open chain of 6")
    for text in (page.inner_text("#table"), page.inner_text("#moves")):
        assert "null" not in text and "undefined" not in text
