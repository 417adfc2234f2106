"""No score lost offline; the printable sheet proves the record; no serious accessibility violation."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import CABRA, DEAL_1, new_match, offline_hand, record
from tests.server.conftest import Server
from tests.pages.accessibility import serious


def test_entries_made_offline_are_recorded_once_when_back(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, CABRA)
    record(live, match_id, token, *DEAL_1)
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
    page.context.set_offline(True)
    offline_hand(page, 40, (3, 4))
    queue = page.locator("#queue")
    expect(queue).to_contain_text("1 entry is waiting")
    expect(queue).to_contain_text("hand 2 from the sheet")
    expect(page.locator("#entry-title")).to_have_text("Enter hand 3 from the sheet")
    expect(page.get_by_role("group", name="Dealer").get_by_role("button", name="East")).to_have_attribute(
        "aria-pressed", "true"
    )
    offline_hand(page, 90, (6, 2))
    expect(queue).to_contain_text("2 entries are waiting")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 3

    page.context.set_offline(False)
    expect(queue).to_be_hidden(timeout=15000)
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(3)
    events = live.call("GET", f"/matches/{match_id}/events")[1]["events"]
    assert [e["type"] for e in events] == ["match_started"] + ["hand_started", "hand_result"] * 3
    assert [e["data"].get("dealer") for e in events[3::2]] == [0, 1]
    assert events[4]["data"]["cardPoints"] == [40, 80] and events[6]["data"]["cardPoints"] == [90, 30]
    assert len({e["key"] for e in events[3:]}) == 2 and events[3]["key"] is not None
    page.reload()  # a reload sends nothing again
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(3)
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 7


def test_the_printable_sheet_carries_the_chain_head(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, CABRA)
    record(live, match_id, token, *DEAL_1)
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0}},
        {"type": "hand_result", "data": {"cardPoints": [20, 100], "tricks": [1, 6]}},
    )
    page = open_page(f"/m/{match_id}/sheet")
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert page.locator("#head-hash").inner_text() == audit["chain"]["head"]
    totals = page.locator("tfoot td.total").all_inner_texts()
    assert totals == [str(s["total"]) for s in audit["standings"]] == ["4", "2"]
    assert page.locator(".qr svg path").count() >= 1
    href = page.locator(".proof a").get_attribute("href")
    assert href == f"/m/{match_id}?head={audit['chain']['head']}"  # no public address configured: the path
    page.goto(live.url + href)  # the QR's page is the public audit, with the same head hash, and says so
    assert audit["chain"]["head"] in page.content()
    expect(page.locator("#printed-head")).to_contain_text("ends where the record ends, at entry 5")


def test_no_serious_accessibility_violation(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, CABRA)
    record(live, match_id, token, *DEAL_1)
    home = open_page("/")
    expect(home.locator(".match").first).to_be_visible()
    assert serious(home) == []
    new = open_page("/new")
    new.get_by_label("La Cabra").check()
    expect(new.locator("#option-list .option").first).to_be_visible()
    assert serious(new) == []
    score = open_page(f"/m/{match_id}/score#token={token}")
    expect(score.locator("#sheet tbody tr[data-hand]")).to_have_count(1)
    expect(score.locator("#legal button").first).to_be_visible()
    assert serious(score) == []
    score.locator("#legal button").first.click()  # the deal's card picker
    expect(score.locator("#deal-area .picker button").first).to_be_visible()
    assert serious(score) == []
    sheet = open_page(f"/m/{match_id}/sheet")
    assert serious(sheet) == []


def test_a_read_lost_after_a_save_leaves_the_sheet_whole(open_page: Callable[..., Page], live: Server) -> None:
    """The connection drops between the save and the reads that redraw the sheet (here the audit's):
    the page keeps the sheet it showed, without a script error, and the next reading shows the hand."""
    match_id, token = new_match(live, CABRA)
    record(live, match_id, token, *DEAL_1)
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
    page.route(f"**/matches/{match_id}/audit", lambda route: route.abort())
    page.get_by_label("Card points of North + South").fill("40")
    page.get_by_role("group", name="Tricks of North + South").get_by_role("button", name="3", exact=True).click()
    page.get_by_role("group", name="Tricks of East + West").get_by_role("button", name="4", exact=True).click()
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview")).to_contain_text("40")
    with page.expect_request_finished(lambda r: r.url.endswith("/legal-moves")):
        page.get_by_role("button", name="Save the hand").click()
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(
        1
    )  # as it was: nothing drawn from half the answers
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 5
    page.unroute(f"**/matches/{match_id}/audit")
    page.reload()
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(2)
