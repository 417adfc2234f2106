"""Irregular play from the pages (issue 31): the scorer records a move the rules refused as it
happened, and the replay shows it in its place, in the warning colour, with the broken rule in words."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.pages.accessibility import serious
from tests.pages.conftest import new_match, record, shoot
from tests.server.conftest import Server

SHOTS = Path("/work/tr/shots31")
U = "??"


def _e(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}}
HANDS = [["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], [U] * 4]


def keep(path: Path, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / f"{name}.png")


def test_a_refused_move_is_recorded_as_it_happened_and_the_replay_shows_it(
    open_page: Callable[..., Page], live: Server
) -> None:
    match_id, token = new_match(live, START)
    record(
        live,
        match_id,
        token,
        _e("hand_started", dealer=3),
        _e("hand_result", cardPoints=[72, 48], tricks=[5, 2], lastTrick=0),
        _e("hand_started", dealer=0, trump="QS", hands=HANDS),
        _e("lead", seat=0, cards=["6C"]),
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal [data-move-type='beat'][data-seat='1']").click()
    form = page.locator("#move-form")
    form.get_by_role("button", name="Cards played: add J of hearts").click()  # a jack of hearts beats no 6 of clubs
    form.get_by_role("button", name="Record", exact=True).click()
    refusal = page.locator("#move-refusal")
    expect(refusal).to_be_visible()
    button = refusal.get_by_role("button", name="Record it as it happened")
    expect(button).to_be_visible()
    keep(shoot(page, "irregular-refused-390"), "irregular-refused-390")
    button.focus()
    page.keyboard.press("Enter")  # by keyboard
    note = page.locator("#irregular-note")
    expect(note).to_contain_text("Hand 2 is irregular")
    expect(note).to_contain_text("a dispute is open")
    expect(page.locator("#move-refusal")).to_be_hidden()
    expect(page.locator("#history")).to_contain_text("irregular: East: beat")
    expect(page.locator("#access")).to_contain_text("7 entries recorded")  # the irregular and its dispute
    assert serious(page) == []
    keep(shoot(page, "irregular-score-390", full_page=True), "irregular-score-390")
    page.set_viewport_size({"width": 1280, "height": 900})
    note.scroll_into_view_if_needed()
    keep(shoot(page, "irregular-score-1280"), "irregular-score-1280")

    status, log = live.call("GET", f"/matches/{match_id}/events")
    irregular = log["events"][5]
    assert irregular["type"] == "irregular" and irregular["data"]["rule"]["code"] == "la-cabra.cannot_beat"
    assert irregular["data"]["move"] == {"type": "beat", "data": {"seat": 1, "cards": ["JH"]}}
    assert log["events"][6]["type"] == "dispute"

    for name, viewport in (("390", {"width": 390, "height": 844}), ("1280", {"width": 1280, "height": 900})):
        replay = open_page(f"/m/{match_id}/replay", viewport)
        move = replay.locator(".moves button.status-irregular")
        expect(move).to_have_count(1)
        expect(move).to_contain_text("6. irregular: East beats with J♥")
        expect(move).to_contain_text("cannot beat")
        plain = replay.locator(".moves button.status-played").first.evaluate("b => getComputedStyle(b).backgroundColor")
        current = replay.locator(".moves button.status-played").last
        current.click()
        expect(current).to_have_attribute("aria-current", "step")
        stepped = current.evaluate("b => getComputedStyle(b).backgroundColor")
        move.click()
        expect(replay.locator("#move")).to_have_class("move-now irregular")
        expect(move).to_have_attribute("aria-current", "step")
        background = move.evaluate("b => getComputedStyle(b).backgroundColor")
        assert background not in (plain, stepped)  # the warning colour, as the current step too
        assert serious(replay) == []
        keep(shoot(replay, f"irregular-replay-{name}"), f"irregular-replay-{name}")
