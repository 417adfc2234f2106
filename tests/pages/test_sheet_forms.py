"""Each game's score-sheet form: a hand typed from the paper sheet, checked, saved, totals as the API's."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server

PLAYERS = {
    "kabu": ["P1", "P2", "P3", "P4"],
    "el-roby": ["Ana", "Bea", "Carlos", "Dani"],
    "cabo": ["Anna", "Ben", "Carl", "Dora"],
}


def kabu(page: Page) -> None:
    for name, value in zip(PLAYERS["kabu"], (9, 7, 0, 7)):
        page.get_by_label(f"{name}'s value (0–9)").fill(str(value))


def el_roby(page: Page) -> None:
    page.get_by_role("group", name="Made Roby (out of cards)").get_by_role("button", name="Ana").click()
    for name, points in zip(PLAYERS["el-roby"], (0, 35, 28, 2)):
        page.get_by_label(f"{name}: points of the hand").fill(str(points))


def cabo(page: Page) -> None:
    for name, total in zip(PLAYERS["cabo"], (10, 7, 15, 7)):
        page.get_by_label(f"{name}'s card total").fill(str(total))
    page.get_by_role("group", name="Called CABO").get_by_role("button", name="Anna").click()


CASES: list[tuple[str, Callable[[Page], None], dict[str, Any], list[int]]] = [
    ("kabu", kabu, {"points": [13, 5, -23, 5]}, [83, 75, 47, 75]),
    ("el-roby", el_roby, {"points": [0, 35, 28, 2]}, [0, 35, 28, 2]),
    ("cabo", cabo, {"points": [15, 0, 15, 0]}, [15, 0, 15, 0]),
]


@pytest.mark.parametrize("game, fill, hand, totals", CASES, ids=[c[0] for c in CASES])
def test_a_hand_from_the_paper_sheet(
    open_page: Callable[..., Page],
    live: Server,
    game: str,
    fill: Callable[[Page], None],
    hand: dict[str, Any],
    totals: list[int],
) -> None:
    match_id, token = new_match(live, {"game": game, "players": PLAYERS[game]})
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#entry-title")).to_have_text("Enter hand 1 from the sheet")
    fill(page)
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview .box")).to_be_visible()
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 1
    page.get_by_role("button", name="Save the hand").click()
    expect(page.locator("#sheet tbody tr[data-hand='1'] .status")).to_have_text("scored")
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert audit["hands"][0]["points"] == hand["points"]
    shown = [int(t) for t in page.locator("tfoot td.total").all_inner_texts()]
    assert shown == [s["total"] for s in audit["standings"]] == totals
