"""A Cau Robat hand followed move by move, then closed from the paper sheet on the scoring page."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server


def test_a_cau_robat_hand_closed_from_the_sheet(open_page: Callable[..., Page], live: Server) -> None:
    start, events = MATCHES["cau-robat"]
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)  # hand 1 from the sheet, hand 2 dealt and four cards played
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#entry")).to_be_hidden()  # following the moves comes first; closing is on request
    page.get_by_role("button", name="Close this hand from the sheet").click()
    expect(page.locator("#entry-title")).to_have_text("Close this hand from the sheet")
    expect(page.locator("#legal").get_by_role("button", name="A plays (5 de oros)")).to_have_count(0)  # already played
    for seat, count in zip("ABCD", (2, 2, 2, 2)):
        page.get_by_label(f"{seat}'s pile (cards)").fill(str(count))
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#sheet-refusal")).to_contain_text("cau-robat.bad_result")  # 32 cards cannot be left over
    for seat, count in zip("ABCD", (12, 8, 12, 8)):
        page.get_by_label(f"{seat}'s pile (cards)").fill(str(count))
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview")).to_contain_text("Hand 2: A 12 · B 8 · C 12 · D 8")  # the hand column: cards
    expect(page.locator("#preview")).to_contain_text("Totals: A 1 · B 1 · C 2 · D 0")  # hand wins
    page.get_by_role("button", name="Save the hand").click()
    status = page.locator("#sheet tr[data-hand='2'] .status")
    expect(status).to_have_text("scored, closed from the sheet after move 4")
    summary = live.call("GET", f"/matches/{match_id}")[1]
    assert (
        [int(t) for t in page.locator("tfoot td.total").all_inner_texts()]
        == [s["total"] for s in summary["standings"]]
        == [1, 1, 2, 0]
    )
    last = live.call("GET", f"/matches/{match_id}/events")[1]["events"][-1]
    assert last["type"] == "hand_result" and last["data"] == {"piles": [12, 8, 12, 8]}
