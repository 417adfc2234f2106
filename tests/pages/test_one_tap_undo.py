"""A one-tap move (here: call CABO) is held a few seconds with Undo beside it: taken back, nothing is
written; left alone (or "Save now"), it is saved."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

SHOTS = "/tmp/shots"


def version(live: Server, match_id: str) -> int:
    return int(live.call("GET", f"/matches/{match_id}")[1]["version"])


def test_a_one_tap_move_can_be_taken_back_before_it_is_saved(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0, "layouts": [["??"] * 4] * 3, "discard": "5"}},
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    legal = page.locator("#legal")
    held = page.locator("#held")

    legal.get_by_role("button", name="Anna calls CABO", exact=True).click()
    expect(held).to_contain_text("Anna calls CABO")
    expect(held.get_by_role("button", name="Undo")).to_be_focused()
    expect(legal).to_be_hidden()
    page.screenshot(path=f"{SHOTS}/one-tap-held-phone.png", full_page=True)
    page.keyboard.press("Enter")  # Undo, from the keyboard
    expect(held).to_be_hidden()
    expect(legal.get_by_role("button", name="Anna calls CABO", exact=True)).to_be_focused()
    expect(page.locator("#next-label")).to_contain_text("Not saved: Anna calls CABO.")
    page.wait_for_timeout(6000)  # longer than the hold: the move taken back is never written
    assert version(live, match_id) == 2

    # Escape takes it back too
    page.keyboard.press("Enter")
    expect(held.get_by_role("button", name="Undo")).to_be_focused()
    page.keyboard.press("Escape")
    expect(held).to_be_hidden()
    assert version(live, match_id) == 2

    # left alone, it is saved once the time runs out
    page.set_viewport_size({"width": 1280, "height": 900})
    legal.get_by_role("button", name="Anna calls CABO", exact=True).click()
    expect(held).to_contain_text("saving in")
    page.screenshot(path=f"{SHOTS}/one-tap-held-desktop.png", full_page=True)
    expect(page.locator("#access")).to_contain_text("3 entries recorded", timeout=10000)
    events = live.call("GET", f"/matches/{match_id}/events")[1]["events"]
    assert [e["type"] for e in events] == ["match_started", "hand_started", "call_cabo"]
    expect(held).to_be_hidden()
    expect(legal.get_by_role("button", name="Ben draws", exact=True)).to_be_visible()
    assert page.evaluate("document.activeElement.closest('#legal') !== null")  # the keyboard is on the next moves
