"""What a club met on its first night with the pages (issue 25): a blank correction window that froze
every finished match, a Cau Robat score page broken by a hand from the sheet, and the links between
the score page, the match page, the replay and the dispute desk."""

from __future__ import annotations

from typing import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.screenshots import MATCHES
from tests.pages.viewer_screenshots import WRONG_SHEET
from tests.server.conftest import Server

CAU = {"game": "cau-robat", "players": ["A", "B", "C", "D"]}


def errors_of(page: Page) -> list[str]:
    """Collect the page's script errors from now on (the list fills as they happen)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def sheet_hand(page: Page, piles: tuple[int, int, int, int]) -> None:
    for seat, count in zip("ABCD", piles):
        page.get_by_label(f"{seat}'s pile (cards)").fill(str(count))
    page.get_by_role("button", name="Check the result").click()


def test_cau_robat_history_after_hands_from_the_sheet(open_page: Callable[..., Page], live: Server) -> None:
    """A Cau Robat hand entered from the sheet keeps no cards in its piles: the table drawing threw on
    every load (``p.cards.length``), leaving the history and the moves empty, and a queued hand's
    "waiting" banner stayed after it was sent."""
    match_id, token = new_match(live, CAU)
    page = open_page(f"/m/{match_id}/score")
    errors = errors_of(page)
    page.goto(page.url + f"#token={token}")
    page.reload()
    expect(page.locator("#entry-title")).to_have_text("Enter hand 1 from the sheet")
    sheet_hand(page, (12, 10, 10, 8))
    expect(page.locator("#preview")).to_contain_text("Hand 1: A 12 · B 10 · C 10 · D 8")
    page.get_by_role("button", name="Save the hand").click()
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(1)
    history = page.locator("#history li")
    expect(history).to_have_count(3)  # match started, the deal, the result
    expect(history.first).to_contain_text("hand result")
    expect(history.first.get_by_role("button", name="Void entry 3")).to_be_visible()
    expect(page.locator("#moves")).to_be_visible()
    expect(page.locator("#table")).to_contain_text("A's pile: 12 cards")
    expect(page.locator("#legal button").first).to_be_visible()
    page.reload()  # every load after a sheet hand threw
    expect(history).to_have_count(3)
    assert errors == []

    # offline: the hand waits, is sent once the connection is back, and its banner goes
    page.context.set_offline(True)
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
    sheet_hand(page, (11, 11, 9, 9))
    expect(page.locator("#preview")).to_contain_text("cannot be reached")
    page.get_by_role("button", name="Save the hand").click()
    queue = page.locator("#queue")
    expect(queue).to_contain_text("1 entry is waiting")
    page.context.set_offline(False)
    expect(queue).to_be_hidden(timeout=15000)
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(2)
    expect(history).to_have_count(5)
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 5
    assert errors == []


@pytest.mark.parametrize("game", ["la-cabra", "cabo", "cau-robat", "el-roby"])
def test_every_game_draws_its_table_after_a_hand_from_the_sheet(
    open_page: Callable[..., Page], live: Server, game: str
) -> None:
    start, events = MATCHES[game]
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events[:2])  # the first hand, from the sheet
    page = open_page(f"/m/{match_id}/score")
    errors = errors_of(page)
    page.goto(page.url + f"#token={token}")
    page.reload()
    expect(page.locator("#history li")).to_have_count(3)
    expect(page.locator("#history li").first.get_by_role("button", name="Void entry 3")).to_be_visible()
    assert errors == []


def test_a_blank_correction_window_means_no_limit(open_page: Callable[..., Page], live: Server) -> None:
    """Left blank on New match, the correction window was sent as 0: the match was frozen the moment
    its last hand was saved, and the wrong last hand could never be undone."""
    page = open_page("/new")
    page.get_by_label("Cau Robat").check()
    window = page.get_by_label("Time to correct after the end")
    expect(window).to_have_value("")
    expect(page.locator(".option", has=window)).to_contain_text("Leave it blank for no limit.")
    with page.expect_response(lambda r: r.url.endswith("/matches") and r.request.method == "POST") as created:
        page.get_by_role("button", name="Create the match").click()
    sent = created.value.request.post_data_json
    assert "correctionWindow" not in sent["options"]
    expect(page.locator("#created-title")).to_be_visible()
    match_id, token = created.value.json()["id"], page.locator("#token").inner_text()
    first = live.call("GET", f"/matches/{match_id}/events")[1]["events"][0]
    assert first["data"].get("options", {}).get("correctionWindow") is None
    for dealer in (0, 1, 2):  # A takes the most cards three times: the match is over
        record(
            live,
            match_id,
            token,
            {"type": "hand_started", "data": {"dealer": dealer}},
            {"type": "hand_result", "data": {"piles": [12, 10, 10, 8]}},
        )
    assert live.call("GET", f"/matches/{match_id}")[1]["status"] == "over"

    score = open_page(f"/m/{match_id}/score")
    score.goto(score.url + f"#token={token}")
    score.reload()
    expect(score.locator("#access")).to_contain_text("The match is over.")
    score.get_by_role("button", name="Undo the last entry").click()
    expect(score.locator("#correction .preview")).to_contain_text("If you save this")
    score.get_by_role("button", name="Void it").click()
    expect(score.locator("#correction")).to_be_hidden()
    events = live.call("GET", f"/matches/{match_id}/events")[1]["events"]
    assert events[-1]["type"] == "void" and events[-1]["data"]["target"] == 7
    assert live.call("GET", f"/matches/{match_id}")[1]["status"] == "playing"


def test_the_score_page_leads_to_the_match_replay_and_desk_which_lists_disputes(
    open_page: Callable[..., Page], live: Server
) -> None:
    """The score page linked to nothing else, and the match page did not say a score was disputed."""
    start, events = WRONG_SHEET
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    ruled = len(events) + 2
    record(
        live,
        match_id,
        token,
        {"type": "dispute", "data": {"hand": 1, "field": "points", "seat": 3, "reason": "Dora was not the lowest"}},
    )
    record(
        live,
        match_id,
        token,
        {"type": "ruling", "data": {"dispute": ruled, "decision": "rejected", "reason": "the photo shows Ben's 5"}},
    )
    record(live, match_id, token, {"type": "dispute", "data": {"hand": 2, "reason": "Anna's row was 1 3"}})

    score = open_page(f"/m/{match_id}/score")
    links = score.get_by_role("navigation", name="This match")
    for name, path, heading in (
        ("Score and audit", f"/m/{match_id}", "Cabo"),
        ("Replay", f"/m/{match_id}/replay", None),
        ("Dispute desk", f"/m/{match_id}/dispute", "Dispute desk"),
    ):
        links.get_by_role("link", name=name, exact=True).focus()
        score.keyboard.press("Enter")  # with the keyboard
        score.wait_for_url(live.url + path)
        if heading:
            expect(score.get_by_role("heading", level=1)).to_have_text(heading)
        score.go_back()

    match = open_page(f"/m/{match_id}")
    disputes = match.locator("#disputes li.dispute")
    expect(disputes).to_have_count(2)
    expect(disputes.nth(0)).to_contain_text("Hand 1, points of Dora — rejected")
    expect(disputes.nth(0)).to_contain_text("“Dora was not the lowest”")
    expect(disputes.nth(0).locator(".ruling")).to_have_text("Ruling: rejected — the photo shows Ben's 5")
    expect(disputes.nth(1)).to_contain_text("Hand 2, score — open, waiting for a ruling")
    expect(match.get_by_role("link", name="Open the dispute desk")).to_have_attribute("href", f"/m/{match_id}/dispute")

    quiet_id, _ = new_match(live, start)
    quiet = open_page(f"/m/{quiet_id}")
    expect(quiet.locator("#no-disputes")).to_have_text("No dispute has been opened on this match.")
