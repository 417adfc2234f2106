"""Pages for many readers (issue 32), in a real browser against ``tanteo serve``: the match page
patches itself from the stream with its small live part (never the whole page again) and ends up
showing what a reload shows; the score page reads the latest entries, not the whole log; a
1,000-event match page at phone and desktop size; compressed answers, never a compressed stream."""

from __future__ import annotations

import http.client
import os
from pathlib import Path
from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.api.snapshot_logs import eggs_log
from tests.pages.accessibility import serious
from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

SHOTS32 = Path(os.environ.get("TANTEO_SHOTS32", "/work/tr/shots32"))
"""Where this issue's photos of the pages go, to be looked at."""

DESKTOP = {"width": 1280, "height": 900}


def long_match(live: Server, length: int) -> tuple[str, str]:
    log = eggs_log(length)
    match_id, token = new_match(live, log[0]["data"])
    for start in range(1, len(log), 200):
        record(live, match_id, token, *log[start : start + 200])
    return match_id, token


def deal(dealer: int) -> list[dict[str, Any]]:
    return [
        {"type": "hand_started", "data": {"dealer": dealer}},
        {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": dealer}},
    ]


def test_the_match_page_patches_itself_from_the_stream(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = long_match(live, 40)
    asked: list[str] = []
    page = open_page(f"/m/{match_id}", on_response=lambda r: asked.append(r.url))
    expect(page.locator("#live")).to_be_visible()
    asked.clear()
    version = 40
    for dealer in (0, 1, 2):  # three hands and a note, appended through the API as a scorer would
        record(live, match_id, token, deal(dealer)[0])
        record(live, match_id, token, deal(dealer)[1])
        version += 2
    record(live, match_id, token, {"type": "note", "data": {"text": "a last word"}})
    version += 1
    expect(page.locator("#match")).to_have_attribute("data-version", str(version), timeout=10000)
    expect(page.locator("#last-moves li").first).to_contain_text("a last word")

    fresh = open_page(f"/m/{match_id}")
    for part in ("#status", "#live-part"):
        assert page.locator(part).inner_text() == fresh.locator(part).inner_text(), part
    assert page.locator("#match").get_attribute("data-status") == fresh.locator("#match").get_attribute("data-status")
    # the page fetched its live part only, never its whole HTML again
    page_url = f"{live.url}/m/{match_id}"
    assert not [u for u in asked if u.split("?")[0] == page_url], asked
    assert any(u.split("?")[0] == f"{page_url}/live" for u in asked), asked


def test_the_score_page_reads_the_latest_entries_not_the_whole_log(
    open_page: Callable[..., Page], live: Server
) -> None:
    match_id, token = long_match(live, 130)
    asked: list[str] = []
    page = open_page(f"/m/{match_id}/score#token={token}", on_response=lambda r: asked.append(r.url))
    history = page.locator("#history > li")
    expect(history).to_have_count(50)
    assert history.first.get_attribute("data-seq") == "130"  # the latest entry first
    reads = [u for u in asked if "/events" in u]
    assert reads and not [u for u in asked if "limit=10000" in u], reads
    assert all("after=" in u for u in reads), reads

    more = page.get_by_role("button", name="Show 50 earlier entries")
    more.click()
    expect(history).to_have_count(100)
    page.get_by_role("button", name="Show 30 earlier entries").click()
    expect(history).to_have_count(130)  # every entry, the match's start too
    expect(page.locator("#earlier-entries")).to_have_count(0)
    assert [int(s) for s in history.evaluate_all("items => items.map(i => i.dataset.seq)")] == list(range(130, 0, -1))
    assert not [u for u in asked if "limit=10000" in u]

    # undo still voids the latest entry, as before
    page.get_by_role("button", name="Undo the last entry").click()
    page.get_by_role("button", name="Void it").click()
    expect(page.locator("#history > li[data-seq='131']")).to_have_count(1)
    expect(history).to_have_count(131)  # the earlier entries asked for stay listed
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert any(c["type"] == "void" and c["target"] == 130 for c in audit["corrections"])


def test_the_dispute_desk_reads_a_long_record_a_page_at_a_time(open_page: Callable[..., Page], live: Server) -> None:
    """The desk lists, as entries a ruling may correct, every entry from the disputed hand's deal to
    the end: past the first page of the log (1,000 entries), read by following ``next``."""
    match_id, token = long_match(live, 1050)
    last = live.call("GET", f"/matches/{match_id}/audit")[1]["hands"][-1]["hand"]
    asked: list[str] = []
    page = open_page(f"/m/{match_id}/dispute?hand={last}#token={token}", on_response=lambda r: asked.append(r.url))
    expect(page.locator("#hand-why")).to_contain_text(f"Hand {last}: computed from the record")
    page.get_by_label("What is contested").select_option("points")
    page.get_by_label("Whose").select_option(index=0)
    page.get_by_label("Why").fill("the last deal was written twice")
    page.get_by_role("button", name="Open the dispute").click()
    dispute = page.locator("#disputes li.dispute")
    expect(dispute).to_have_count(1)
    ruling = page.get_by_role("form", name=f"Ruling on the dispute of entry {dispute.get_attribute('data-seq')}")
    ruling.get_by_label("Upheld").check()
    entries = ruling.get_by_label("Entry to correct").locator("option").evaluate_all("o => o.map(x => +x.value)")
    assert entries and min(entries) > 1000 and max(entries) >= 1049, entries  # the last hand's, on the second page
    reads = [u for u in asked if "/events" in u]
    assert any("from=1001" in u for u in reads) and not [u for u in asked if "limit=10000" in u], reads


def test_a_long_match_page_on_a_phone_and_a_desktop(open_page: Callable[..., Page], live: Server) -> None:
    match_id, _ = long_match(live, 1000)
    SHOTS32.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("phone", None), ("desktop", DESKTOP)):
        page = open_page(f"/m/{match_id}", viewport=viewport)
        expect(page.locator("article.hand-why")).to_have_count(12)
        expect(page.locator("#last-moves li")).to_have_count(10)
        page.screenshot(path=str(SHOTS32 / f"pages-{name}.png"))
        page.locator("#moves-title").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS32 / f"pages-{name}-moves.png"))
        assert serious(page) == []
        page.get_by_role("link", name="Earlier hands").first.click()
        expect(page.locator("#hand-417")).to_be_visible()
        expect(page.get_by_role("link", name="Later hands").first).to_have_attribute("href", f"/m/{match_id}")
        if name == "phone":
            page.screenshot(path=str(SHOTS32 / "pages-phone-earlier.png"))
            assert serious(page) == []


def test_pages_and_json_are_compressed_and_streams_are_not(live: Server) -> None:
    match_id, _ = long_match(live, 40)

    def head(path: str, accept: str = "text/html") -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
        connection.request("GET", path, headers={"Accept-Encoding": "gzip", "Accept": accept})
        response = connection.getresponse()
        headers = {k.lower(): v for k, v in response.getheaders()}
        first = response.read(20) if accept == "text/event-stream" else response.read()
        connection.close()
        return response.status, headers, first

    status, headers, _ = head(f"/m/{match_id}")
    assert status == 200 and headers.get("content-encoding") == "gzip"
    assert headers["x-frame-options"] == "DENY" and "content-security-policy" in headers
    status, headers, _ = head(f"/matches/{match_id}/audit", "application/json")
    assert status == 200 and headers.get("content-encoding") == "gzip"
    status, headers, first = head(f"/matches/{match_id}/stream?lastEventId=39", "text/event-stream")
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert "content-encoding" not in headers and first.startswith(b"retry: ")
