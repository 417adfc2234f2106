"""The replay page: a recorded Cau Robat hand stepped through with the buttons, the arrow keys,
the slider and the jump list; the cards on the table at each step are the API's
(``/state?at=N``); the address keeps the position and the perspective."""

from __future__ import annotations

import re
from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server
from tests.pages.replay_helpers import shown


def expected(state: dict[str, Any]) -> dict[str, list[str]]:
    """The table as the API's state has it (a pile of more than six is drawn by its top three)."""
    rows = {"Table": state["table"]}
    for pile in state["piles"]:
        rows[f"{pile['name']}'s pile ({pile['count']})"] = (
            pile["cards"] if len(pile["cards"]) <= 6 else pile["cards"][-3:]
        )
    for hand in state["hands"]:
        rows[hand["name"]] = hand.get("cards", ["??"] * hand.get("size", 0))
    return rows


def check_step(page: Page, live: Server, match_id: str, token: str, seq: int) -> None:
    expect(page.locator("#table")).to_have_attribute("data-seq", str(seq))
    assert f"at={seq}" in page.url and "seat=all" in page.url
    status, body = live.call(
        "GET", f"/matches/{match_id}/state?at={seq}&seat=all", headers={"Authorization": f"Bearer {token}"}
    )
    assert status == 200, body
    assert shown(page) == expected(body["state"])


def test_stepping_through_a_cau_robat_hand(open_page: Callable[..., Page], live: Server) -> None:
    body, events = MATCHES["cau-robat"]
    match_id, token = new_match(live, body)
    record(live, match_id, token, *events)  # hand 1 from the sheet; hand 2: the deal (seq 4) and four plays (5-8)

    page = open_page(f"/m/{match_id}/replay?at=4&seat=all#token={token}")
    expect(page.locator("#seat")).to_have_value("all")
    check_step(page, live, match_id, token, 4)  # the deal: four cards on the table, nine in each hand
    assert shown(page)["Table"] == ["1o", "3c", "5e", "11b"]

    page.locator("body").press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check_step(page, live, match_id, token, 6)  # A took the 5, B's 6 stays
    expect(page.locator("#move")).to_contain_text("B plays 6 de copas")
    # the Spanish deck said as the pickers say it: "caballo de bastos", never "11 bastos"
    expect(page.locator("#moves")).to_contain_text("table as de oros, 3 de copas, 5 de espadas, caballo de bastos")
    assert not re.search(r"\b\d+ (oros|copas|espadas|bastos)", page.locator("#moves").inner_text())

    page.get_by_role("button", name="Last step").click()
    check_step(page, live, match_id, token, 8)
    expect(page.get_by_role("button", name="Next step")).to_be_disabled()

    page.get_by_label("Jump to").select_option(label="Hand 2 (D deals)")
    check_step(page, live, match_id, token, 4)
    page.get_by_role("slider", name="Step").fill("7")
    check_step(page, live, match_id, token, 7)

    # the address is the position: opened again (this browser keeps the key), the same step and perspective
    other = page.context.new_page()
    other.goto(page.url)
    expect(other.locator("#table")).to_have_attribute("data-seq", "7")
    expect(other.locator("#seat")).to_have_value("all")
    assert shown(other) == shown(page)


def test_the_public_sees_no_hand_while_the_match_is_in_play(open_page: Callable[..., Page], live: Server) -> None:
    body, events = MATCHES["cau-robat"]
    match_id, token = new_match(live, body)
    record(live, match_id, token, *events)
    page = open_page(f"/m/{match_id}/replay?at=8")
    expect(page.locator("#table")).to_have_attribute("data-seq", "8")
    state = live.call("GET", f"/matches/{match_id}/state?at=8")[1]["state"]
    assert shown(page) == expected(state)
    for name in ("A", "B", "C", "D"):
        assert set(shown(page)[name]) == {"??"}
    # everyone's cards of a match in play need the write key: without it, the page says so and stays public
    page.get_by_label("Seen by").select_option("all")
    expect(page.locator("#access")).to_contain_text("public")
    expect(page.locator("#seat")).to_have_value("")


def test_both_courses_with_corrections_and_notes_marked(open_page: Callable[..., Page], live: Server) -> None:
    body, events = MATCHES["cau-robat"]
    match_id, token = new_match(live, body)
    record(live, match_id, token, *events)
    record(
        live,
        match_id,
        token,
        {"type": "note", "data": {"text": "B hesitated", "target": 6}},
        {"type": "void", "data": {"target": 8, "reason": "D's card was played out of turn"}},
    )
    page = open_page(f"/m/{match_id}/replay?at=6")
    expect(page.locator("#notes")).to_contain_text("B hesitated")  # the note at its move
    expect(page.locator("#moves li[data-seq='6']")).to_contain_text("Note: B hesitated")
    move8 = page.locator("#moves button[data-seq='8']")
    expect(move8).to_have_class("move status-voided")
    expect(move8).to_contain_text("(voided)")
    expect(page.locator("#moves button[data-seq='10']")).to_contain_text("correction")
    # a player's words: "entry", never "event" or the correction's type name
    expect(page.locator("#moves button[data-seq='10']")).to_contain_text(
        "entry 8 struck out: D's card was played out of turn"
    )
    expect(page.locator("#moves button[data-seq='9']")).to_contain_text("note on entry 6: B hesitated")
    expect(page.locator("#moves")).not_to_contain_text("event")
    page.get_by_role("button", name="Last step").click()
    corrected = live.call("GET", f"/matches/{match_id}/state?at=10")[1]["state"]
    assert shown(page) == expected(corrected)  # D's 11 is back in his hand: the play never counted

    page.get_by_label("Course").select_option("recorded")
    expect(move8).to_have_class("move status-played")
    assert "course=recorded" in page.url
    page.locator("#moves button[data-seq='8']").click()
    expect(page.locator("#table")).to_have_attribute("data-seq", "8")
    recorded = live.call("GET", f"/matches/{match_id}/replay?course=recorded&start=8&stop=8")[1]["frames"][0]["state"]
    assert shown(page) == expected(recorded)  # as the table lived it: D's capture stood until the void


def test_stepping_to_the_end_by_keyboard_keeps_the_focus_on_the_stepper(
    open_page: Callable[..., Page], live: Server
) -> None:
    """Found by the h4 audit: Enter on ▶ at the last step disabled the focused button and the focus fell
    to the page's top; a keyboard reader lost the stepper. It moves to the way back (◀, then ▶ at the start)."""
    start, events = MATCHES["cau-robat"]
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    page = open_page(f"/m/{match_id}/replay?at={len(events)}", viewport={"width": 1280, "height": 800})
    expect(page.locator("#position")).to_have_text(f"{len(events)} of {len(events) + 1}")
    page.locator("#next").focus()
    page.keyboard.press("Enter")  # to the last step: ▶ and Last are disabled now
    expect(page.locator("#position")).to_have_text(f"{len(events) + 1} of {len(events) + 1}")
    expect(page.locator("#prev")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#position")).to_have_text(f"{len(events)} of {len(events) + 1}")
    page.locator("#first").focus()
    page.keyboard.press("Enter")  # to the first step: First and ◀ are disabled now
    expect(page.locator("#position")).to_have_text(f"1 of {len(events) + 1}")
    expect(page.locator("#next")).to_be_focused()
