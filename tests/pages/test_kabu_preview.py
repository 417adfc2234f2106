"""Kabú on the score page: a hand's preview says who gets what first, the working folded away; a hand
where an insolvent player pays nobody (so no chips move) says why, in the preview and on the sheet."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server

PLAYERS = ["Ana", "Bea", "Carlos", "Dani"]


def fill_values(page: Page, values: tuple[int, ...]) -> None:
    for name, value in zip(PLAYERS, values):
        page.get_by_label(f"{name}'s value (0–9)").fill(str(value))
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview .box")).to_be_visible()


def test_the_preview_says_who_gets_what_and_folds_the_working(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "kabu", "players": PLAYERS})
    page = open_page(f"/m/{match_id}/score#token={token}")
    fill_values(page, (9, 7, 0, 7))  # RULES §2.7 K1
    preview = page.locator("#preview .box")
    expect(preview.locator("p.short")).to_have_text("Hand 1: Ana +13 · Bea +5 · Carlos -23 · Dani +5")
    working = preview.locator("details.working")
    expect(working.locator("summary")).to_have_text("How hand 1 is worked out (20 lines)")
    expect(working.get_by_text("Ana's net +13", exact=False)).to_be_hidden()  # folded: a short preview
    visible = [t for t in preview.inner_text().split("\n") if t.strip()]
    assert len(visible) <= 5, visible
    working.locator("summary").click()
    expect(working.get_by_text("Ana's net +13", exact=False)).to_be_visible()
    page.keyboard.press("Shift+Tab")  # the fold is a control the keyboard reaches
    page.keyboard.press("Tab")
    expect(working.locator("summary")).to_be_focused()


def test_an_insolvent_player_who_pays_nobody_is_explained(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(
        live, {"game": "kabu", "players": PLAYERS, "target": {"end": "time"}, "initial": {"chips": [20, 70, 70, 70]}}
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    fill_values(page, (0, 9, 9, 9))  # Ana owes 27 and holds 20: insolvent, pays nobody (RULES §2.5)
    preview = page.locator("#preview .box")
    expect(preview.locator("p.short")).to_have_text("Hand 1: Ana 0 · Bea 0 · Carlos 0 · Dani 0")
    expect(preview.locator("p.why-short")).to_have_text(
        "Ana held 20 chips but owed 27: Ana is insolvent and pays nobody, as the rules say, so no chips change hands."
        " Before the next hand Ana must buy chips or leave."
    )
    page.get_by_role("button", name="Save the hand").click()
    expect(page.locator("#sheet tbody tr[data-hand='1'] .status")).to_have_text(
        "scored: Ana could not pay and pays nobody, so no chips change hands"
    )
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert audit["hands"][0]["points"] == [0, 0, 0, 0] and audit["hands"][0]["result"]["insolvent"] == [0]
