"""Corrections and reveals from the scoring page: consequences shown first, then recorded."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server


def test_an_earlier_hand_corrected_from_the_history(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 3}},
        {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
        {"type": "hand_started", "data": {"dealer": 0}},
        {"type": "hand_result", "data": {"cardPoints": [50, 70], "tricks": [3, 4]}},
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_role("button", name="Correct entry 3").click()
    fix = page.locator("#correction")
    expect(fix.get_by_label("Card points of North + South")).to_have_value("72")  # the entry as recorded
    fix.get_by_label("Card points of North + South").fill("48")
    fix.get_by_role("group", name="Tricks of North + South").get_by_role("button", name="2", exact=True).click()
    fix.get_by_role("group", name="Tricks of East + West").get_by_role("button", name="5", exact=True).click()
    fix.get_by_role("group", name="Last trick won by (if written)").get_by_role("button", name="East").click()
    fix.get_by_role("button", name="Show what changes").click()
    expect(fix).to_contain_text("Hand 1: North + South 2 · East + West 0")
    expect(fix).to_contain_text("Totals: North + South 4 · East + West 0")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 5  # shown, not written
    fix.get_by_role("button", name="Save the correction").click()
    expect(page.locator("[data-total='0']")).to_have_text("4")
    summary = live.call("GET", f"/matches/{match_id}")[1]
    assert [s["total"] for s in summary["standings"]] == [4, 0]
    events = live.call("GET", f"/matches/{match_id}/events")[1]["events"]
    assert events[-1]["type"] == "amend" and events[-1]["data"]["target"] == 3
    assert events[-1]["data"]["reason"] == "entered by mistake"


def test_a_card_never_shown_is_revealed_and_the_hand_scored(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0, "layouts": [["??"] * 4] * 3, "discard": "5"}},
        {"type": "call_cabo", "data": {"seat": 0}},
        {"type": "draw", "data": {"seat": 1}},
        {"type": "discard", "data": {"seat": 1, "card": "13"}},
        {"type": "draw", "data": {"seat": 2}},
        {"type": "discard", "data": {"seat": 2, "card": "12"}},
        {"type": "showdown", "data": {"layouts": [["1", "2", "3", "??"], ["5", "6", "7", "8"], ["0", "0", "1", "1"]]}},
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#sheet tr[data-hand='1'] .status")).to_have_text("incomplete: missing Anna slot 4")
    page.get_by_role("button", name="Reveal cards seen").click()
    page.locator("#move-form").get_by_role("button", name="Anna, slot 4: add card 4", exact=True).click()
    page.locator("#move-form").get_by_role("button", name="Record", exact=True).click()
    expect(page.locator("#sheet tr[data-hand='1'] .status")).to_have_text("scored")
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert audit["hands"][0]["points"] == [15, 26, 0]
    assert page.locator("#sheet tr[data-hand='1'] .pts").all_inner_texts() == ["15", "26", "0"]


def test_a_hand_in_play_can_be_closed_from_the_sheet(open_page: Callable[..., Page], live: Server) -> None:
    """The form is offered mid-hand; what the API answers (the would-be result or the rule's refusal) is shown."""
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0, "trump": "QS", "hands": [["??"] * 4] * 4}},
        {"type": "lead", "data": {"seat": 1, "cards": ["9H"]}},
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#entry")).to_be_hidden()
    page.get_by_role("button", name="Close this hand from the sheet").click()
    expect(page.locator("#entry-title")).to_be_focused()
    expect(page.locator("#entry-title")).to_have_text("Close this hand from the sheet")
    page.get_by_label("Card points of North + South").fill("70")
    page.get_by_role("group", name="Tricks of North + South").get_by_role("button", name="5", exact=True).click()
    page.get_by_role("group", name="Tricks of East + West").get_by_role("button", name="3", exact=True).click()
    page.get_by_role("button", name="Check the result").click()
    answer = live.call(
        "POST",
        f"/matches/{match_id}/events?dryRun=true",
        {"events": [{"type": "hand_result", "data": {"cardPoints": [70, 50], "tricks": [5, 3]}}]},
        headers={"Authorization": f"Bearer {token}"},
    )
    if answer[0] == 200:
        expect(page.locator("#preview .box")).to_contain_text("Hand 1")
    else:
        expect(page.locator("#sheet-refusal")).to_contain_text(answer[1]["detail"])
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 3


def test_an_entry_made_meanwhile_elsewhere_is_not_overwritten(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_label("Card points of North + South").fill("72")
    page.get_by_role("group", name="Tricks of North + South").get_by_role("button", name="5", exact=True).click()
    page.get_by_role("group", name="Tricks of East + West").get_by_role("button", name="2", exact=True).click()
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview .box")).to_be_visible()
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 1}},  # another phone, meanwhile
        {"type": "hand_result", "data": {"cardPoints": [30, 90], "tricks": [2, 6]}},
    )
    page.get_by_role("button", name="Save the hand").click()
    refusal = page.locator("#sheet-refusal")
    expect(refusal).to_contain_text("version.conflict")
    expect(refusal).to_contain_text("Another phone recorded entries meanwhile")
    expect(refusal).not_to_contain_text("reload it")  # the page has reloaded: it does not ask the scorer to
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(1)  # the other phone's hand, now shown
    expect(page.get_by_label("Card points of North + South")).to_have_value("72")  # what was typed stays
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 3


def test_without_the_key_the_page_only_reads_until_a_key_is_given(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 3}},
        {"type": "hand_result", "data": {"lossPoints": [0, 2]}},
    )
    page = open_page(f"/m/{match_id}/score")
    expect(page.locator("#access")).to_contain_text("can only read the score")
    expect(page.locator("[data-total='1']")).to_have_text("2")
    expect(page.locator("#entry")).to_be_hidden()
    expect(page.locator("#moves")).to_be_hidden()
    expect(page.get_by_role("button", name="Undo the last entry")).to_be_disabled()
    page.get_by_label("Write key").fill("not-the-key")
    page.get_by_role("button", name="Use this key").click()
    page.get_by_label("Card points of North + South").fill("70")
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#sheet-refusal")).to_contain_text("auth.wrong")  # a wrong key is told, not ignored
    page.evaluate(f"localStorage.setItem('tanteo:token:{match_id}', '{token}')")
    page.reload()
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
