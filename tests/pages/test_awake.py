"""The scorer's phone stays awake (issue 29, "Awake"): the score page holds a real Screen Wake Lock
in Debian's chromium while the match is in play, shows it on a toggle the keyboard reaches, lets it go
when the scorer turns it off (remembered by the browser), and says in a sentence, without a script
error, when the browser has no wake lock at all."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

HELD = "() => document.getElementById('awake').dataset.held"


def cabo_in_play(live: Server) -> tuple[str, str]:
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl"]})
    record(live, match_id, token, {"type": "hand_started", "data": {"dealer": 0}})
    return match_id, token


def test_the_screen_stays_on_while_scoring_and_the_scorer_may_turn_it_off(
    open_page: Callable[..., Page], live: Server
) -> None:
    match_id, token = cabo_in_play(live)
    page = open_page(f"/m/{match_id}/score#token={token}")
    toggle = page.get_by_role("button", name="Keep the screen on")
    expect(toggle).to_have_attribute("aria-pressed", "true")  # taken at once: the match is in play
    assert page.evaluate(HELD) == "true"
    expect(page.locator("#awake-note")).to_have_text("The screen stays on while this page is open.")
    toggle.focus()
    page.keyboard.press("Enter")  # off, with the keyboard
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert page.evaluate(HELD) == "false"
    page.reload()  # remembered: the page does not take it again
    expect(page.get_by_role("button", name="Keep the screen on")).to_have_attribute("aria-pressed", "false")
    page.get_by_role("button", name="Keep the screen on").click()
    expect(page.get_by_role("button", name="Keep the screen on")).to_have_attribute("aria-pressed", "true")


def test_a_browser_without_a_wake_lock_is_told_so_in_words(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = cabo_in_play(live)
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.context.add_init_script("delete Navigator.prototype.wakeLock")  # a browser that has none (older Safari)
    page.reload()
    toggle = page.get_by_role("button", name="Keep the screen on")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#awake-note")).to_have_text("")  # nothing said until the scorer asks
    toggle.click()
    expect(page.locator("#awake-note")).to_contain_text("This browser cannot keep the screen on")
    expect(toggle).to_have_attribute("aria-pressed", "false")


def test_the_toggle_speaks_the_readers_language(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = cabo_in_play(live)
    page = open_page(f"/m/{match_id}/score?lang=de#token={token}")
    expect(page.get_by_role("button", name="Bildschirm anlassen")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#awake-note")).to_have_text("Der Bildschirm bleibt an, solange diese Seite offen ist.")
