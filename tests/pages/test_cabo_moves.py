"""A Cabo round entered move by move: unseen cards, a peek, a swap, CABO and the showdown."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server


def move(page: Page, label: str) -> None:
    page.locator("#legal").get_by_role("button", name=label, exact=True).click()


def record(page: Page, version: int, live: Server, match_id: str) -> None:
    page.locator("#move-form").get_by_role("button", name="Record", exact=True).click()
    wait_version(page, version, live, match_id)


def wait_version(page: Page, version: int, live: Server, match_id: str) -> None:
    expect(page.locator("#access")).to_contain_text(f"{version} entries recorded")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == version


def pick(page: Page, field: str, card: str) -> None:
    page.locator("#move-form").get_by_role("button", name=f"{field}: add card {card}", exact=True).click()


def test_a_cabo_round_move_by_move(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]})
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page).to_have_url(f"{live.url}/m/{match_id}/score")  # the token left the address bar

    move(page, "Deal cards: Anna deals")
    deal = page.locator("#deal-area")
    expect(deal.get_by_role("button", name="Ben card 1: unseen card")).to_be_visible()
    deal.get_by_role("button", name="put card 5 there").click()
    deal.get_by_role("button", name="Record the deal").click()
    wait_version(page, 2, live, match_id)
    assert page.locator("#table .card.unknown").count() == 16

    move(page, "Anna draws")
    record(page, 3, live, match_id)
    move(page, "Anna peeks (7/8)")
    pick(page, "Card played", "7")
    page.get_by_role("group", name="Own slot looked at").get_by_role("button", name="1").click()
    record(page, 4, live, match_id)

    move(page, "Ben draws")
    record(page, 5, live, match_id)
    move(page, "Ben swaps (11/12)")
    pick(page, "Card played", "11")
    page.get_by_role("group", name="Own card: slot").get_by_role("button", name="1").click()
    page.get_by_role("group", name="Exchanged with: player").get_by_role("button", name="Carl").click()
    page.get_by_role("group", name="Exchanged with: slot of Carl").get_by_role("button", name="2").click()
    record(page, 6, live, match_id)

    move(page, "Carl calls CABO")
    page.locator("#held").get_by_role("button", name="Save now").click()  # a one-tap move is held with Undo
    wait_version(page, 7, live, match_id)
    version = 7
    for seat, card in (("Dora", "13"), ("Anna", "12"), ("Ben", "6")):
        move(page, f"{seat} draws")
        version += 1
        record(page, version, live, match_id)
        move(page, f"{seat} discards")
        pick(page, "Card discarded", card)
        version += 1
        record(page, version, live, match_id)

    move(page, "Showdown: cards shown")
    rows = {"Anna": "1 2 3 4", "Ben": "5 6 7 8", "Carl": "0 0 1 1", "Dora": "9 9 9 2"}
    for name, cards in rows.items():
        for card in cards.split():
            pick(page, f"{name}'s cards", card)
    record(page, version + 1, live, match_id)

    summary = live.call("GET", f"/matches/{match_id}")[1]
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert audit["hands"][0]["status"] == "scored"
    assert audit["hands"][0]["points"] == [10, 26, 0, 29]
    shown = [int(page.locator(f"[data-total='{i}']").inner_text()) for i in range(4)]
    assert shown == [s["total"] for s in summary["standings"]]
    cells = page.locator("#sheet tbody tr[data-hand='1'] .pts").all_inner_texts()
    assert cells == ["10", "26", "0", "29"]
    types = [e["type"] for e in live.call("GET", f"/matches/{match_id}/events")[1]["events"]]
    assert (
        types.count("peek") == 1
        and types.count("swap") == 1
        and types.count("call_cabo") == 1
        and types[-1] == "showdown"
    )
