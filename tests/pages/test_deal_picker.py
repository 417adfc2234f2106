"""The deal entered with the card picker: placed cards greyed, unseen cards, a refusal kept in place."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server


def test_a_la_cabra_deal_with_the_picker(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_role("button", name="Deal cards").click()
    deal = page.locator("#deal-area")
    deal.get_by_role("group", name="Who dealt").get_by_role("button", name="West").click()
    expect(deal.get_by_role("button", name="trump card card 1: not chosen")).to_be_visible()
    deal.get_by_role("button", name="put Q of spades there").click()
    expect(deal.get_by_role("button", name="trump card card 1: Q of spades")).to_be_visible()

    deal.get_by_role("button", name="North card 1: unseen card").click()
    expect(deal.get_by_role("button", name="put Q of spades there")).to_have_class(
        "card placed"
    )  # greyed: already placed
    expect(deal.get_by_role("button", name="put A of hearts there")).to_have_class("card red")
    deal.get_by_role("button", name="put A of hearts there").click()
    deal.get_by_role("button", name="East card 1: unseen card").click()
    deal.get_by_role("button", name="put A of hearts there").click()  # a card in two places: the API refuses it
    deal.get_by_role("button", name="Record the deal").click()
    refusal = deal.locator(".refusal")
    expect(refusal).to_contain_text("common.card_duplicate")
    expect(deal.get_by_role("button", name="North card 1: A of hearts")).to_be_visible()  # nothing typed is lost
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 1

    deal.get_by_role("button", name="East card 1: A of hearts").click()
    deal.get_by_role("button", name="put an unseen card there").click()
    deal.get_by_role("button", name="Record the deal").click()
    expect(page.locator("#legal").get_by_role("button", name="North leads")).to_be_focused()
    dealt = live.call("GET", f"/matches/{match_id}/events", headers={"Authorization": f"Bearer {token}"})[1]["events"][
        -1
    ]["data"]
    assert dealt["dealer"] == 3 and dealt["trump"] == "QS"
    assert dealt["hands"][0] == ["AH", "??", "??", "??"] and dealt["hands"][1] == ["??"] * 4
    assert page.locator("#table .card[aria-label='A of hearts']").count() == 1
