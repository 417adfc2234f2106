"""The embedded scoreboard (issue 29, "Embed"), in headless chromium against a real ``tanteo serve``:
a page served from ANOTHER origin (a second HTTP server on another port) frames ``/m/{id}/embed``
and ``/m/{id}/score``: the embed shows the scoreboard, the score page is refused (frame-ancestors
'none', X-Frame-Options: DENY). The embed follows the match live through the stream when an entry
is recorded through the API, links to the whole match in a new tab, and is axe clean in every theme.
Screenshots of the embed in its frame at phone and desktop size go to screenshots/ (or TANTEO_SHOTS)."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.accessibility import serious
from tests.pages.conftest import shoot, new_match, record
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def club(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A club's website: a plain HTTP server on 127.0.0.1, another port (another origin) than Tanteo's."""
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def club_page(folder: Path, live: Server, match_id: str) -> None:
    (folder / "index.html").write_text(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Club</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Our club</h1>
<iframe id="embed" src="{live.url}/m/{match_id}/embed" title="Score" width="100%" height="360"></iframe>
<iframe id="score" src="{live.url}/m/{match_id}/score" title="Scorer" width="100%" height="200"></iframe>
</body></html>""",
        encoding="utf-8",
    )


def test_the_embed_may_be_framed_and_the_score_page_may_not(
    chromium: Browser, live: Server, club: tuple[Path, str]
) -> None:
    folder, site = club
    start, events = MATCHES["la-cabra"]
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events[:3])  # hand 1 scored, between deals
    club_page(folder, live, match_id)
    totals = [str(s["total"]) for s in live.call("GET", f"/matches/{match_id}/audit")[1]["standings"]]
    assert totals == ["0", "2"]  # the record's, not the table's claim (4)
    refused: list[str] = []
    outside: list[str] = []
    for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        context = chromium.new_context(viewport=size, locale="en-US")
        page = context.new_page()
        page.on("console", lambda m: refused.append(m.text) if "frame-ancestors" in m.text else None)
        page.on(
            "request", lambda r: None if r.url.startswith(("http://127.0.0.1:", "data:")) else outside.append(r.url)
        )
        page.goto(site + "/index.html")
        board = page.frame_locator("#embed")
        expect(board.locator("h1")).to_have_text("La Cabra")
        expect(board.locator(".board-scores tbody tr")).to_have_count(2)
        expect(board.locator(".board-scores td.total")).to_have_text(totals)
        expect(board.locator("#board-status")).to_contain_text("1 hand finished, in play")
        link = board.get_by_role("link", name="The whole match on Tanteo")
        assert link.get_attribute("target") == "_blank" and link.get_attribute("rel") == "noopener"
        assert link.get_attribute("href") == f"/m/{match_id}"
        # the score page's frame was refused: nothing of it is in the frame, and chromium said why
        page.wait_for_timeout(500)
        score = page.locator("#score").element_handle().content_frame()
        assert score is not None and score.url.startswith("chrome-error://")  # chromium's refusal, not the page
        assert score.locator("#scorer, a.brand").count() == 0
        embedded = page.locator("#embed").element_handle().content_frame()
        assert embedded is not None and embedded.url == f"{live.url}/m/{match_id}/embed"
        page.locator("#embed").scroll_into_view_if_needed()
        shoot(page, f"t-share-embed-framed-{name}")
        context.close()
    assert any("frame-ancestors 'none'" in text for text in refused), refused
    assert outside == []


def test_the_embed_follows_the_match_live(open_page: Callable[..., Page], live: Server) -> None:
    start, events = MATCHES["cabo"]
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events[:2])
    page = open_page(f"/m/{match_id}/embed")
    expect(page.locator("#board-live-mark")).to_be_visible()  # the stream is open
    expect(page.locator(".board-scores td.total")).to_have_text(["35", "93", "50", "40"])
    expect(page.locator("#board-status")).to_have_text("1 hand finished, in play")
    expect(page.locator(".board-scores thead th").first).to_have_text("Players")
    assert page.locator("header, nav").count() == 0  # minimal chrome: no header navigation
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 3}},
        {
            "type": "hand_result",
            "data": {"layouts": [["1", "2"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]], "caller": 0},
        },
    )
    expect(page.locator("#board-status")).to_have_text("2 hands finished, in play")
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    expect(page.locator(".board-scores td.total")).to_have_text([str(s["total"]) for s in audit["standings"]])


def test_the_embed_names_teams_where_partners_score_together(open_page: Callable[..., Page], live: Server) -> None:
    match_id, _ = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    page = open_page(f"/m/{match_id}/embed")
    expect(page.locator(".board-scores thead th").first).to_have_text("Teams")
    expect(page.locator(".board-scores tbody th")).to_have_text(["North + South", "East + West"])


@pytest.mark.parametrize("theme", ["light", "dark", "contrast"])
def test_the_embed_is_axe_clean_in_every_theme(
    chromium: Browser, open_page: Callable[..., Page], live: Server, theme: str
) -> None:
    # a match over (a Cau Robat to one hand won): no stream to hold, the winners said
    match_id, token = new_match(
        live, {"game": "cau-robat", "players": ["Àngel", "Núria", "Jürgen", "Weiß"], "target": {"wins": 1}}
    )
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 2}},
        {"type": "hand_result", "data": {"piles": [8, 12, 12, 6], "table": 2}},
    )
    for size in (PHONE, DESKTOP):
        page = open_page(f"/m/{match_id}/embed?lang=es", viewport=size)
        page.evaluate(f"localStorage.setItem('tanteo.theme', '{theme}')")
        page.reload()
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        expect(page.get_by_role("link", name="Toda la partida en Tanteo")).to_be_visible()
        expect(page.locator("#board-status")).to_have_text("Partida terminada tras 1 mano · Ganadores: Núria, Jürgen")
        expect(page.locator("#board-live-mark")).to_be_hidden()
        assert serious(page) == []
        if size == PHONE:
            shoot(page, f"t-share-embed-{theme}-phone")
