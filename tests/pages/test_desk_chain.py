"""A ruling that carries the chain of corrections it needs, from the players' forms, previewed
together: El Roby, where Bea's corrected hand-1 points keep her under 100, so hand 2 (recorded
with her out of the game) must give her points too."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

SHOTS = "/tmp/shots"


def test_a_ruling_with_two_corrections_previewed_together(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(
        live, {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "initial": {"scores": [40, 90, 50, 30]}}
    )
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 1}},
        {"type": "hand_result", "data": {"out": 0, "hands": [0, 12, 5, 9]}},  # Bea 102: over 99, out
        {"type": "hand_started", "data": {"dealer": 2}},
        {"type": "hand_result", "data": {"out": 2, "hands": [7, None, 0, 4]}},  # hand 2 without her
        {"type": "dispute", "data": {"hand": 1, "seat": 1, "reason": "Bea's cards made 8, not 12"}},
    )
    page = open_page(f"/m/{match_id}/dispute?hand=1#token={token}")
    ruling = page.get_by_role("form", name="Ruling on the dispute of entry 6")
    ruling.get_by_label("Upheld").check()
    ruling.get_by_label("Reason for the ruling").fill("Bea's cards were counted again: 8")
    first = ruling.locator("fieldset[data-fix='1']")
    assert (
        first.get_by_label("Entry to correct").evaluate("s => s.options[s.selectedIndex].text")
        == "Entry 3: hand 1 result"
    )
    expect(first.get_by_label("Bea: points of the hand")).to_have_value("12")
    first.get_by_label("Bea: points of the hand").fill("8")
    ruling.get_by_role("button", name="Check the ruling").click()

    # alone, the correction breaks hand 2: the page says so in words and offers the next correction
    refusal = ruling.locator(".refusal")
    expect(refusal).to_contain_text(
        "With this correction, entry 5 (hand 2 result) no longer fits: Bea played this hand"
    )
    # the rule's code is there for the curious, folded away under "Details"
    code = refusal.locator("details.code")
    expect(code.locator("summary")).to_have_text("Details")
    expect(code).not_to_have_attribute("open", "")
    expect(code.get_by_text("common.correction_breaks")).to_be_hidden()
    code.locator("summary").click()
    expect(code).to_contain_text("rule code common.correction_breaks; concerns entry 5")
    refusal.get_by_role("button", name="Correct entry 5 too").click()
    second = ruling.locator("fieldset[data-fix='2']")
    expect(second.get_by_label("Entry to correct")).to_be_focused()
    expect(
        second.get_by_role("group", name="Made Roby (out of cards)").get_by_role("button", name="Carlos")
    ).to_have_attribute("aria-pressed", "true")
    second.get_by_label("Bea: points of the hand").fill("6")
    ruling.get_by_role("button", name="Check the ruling").click()

    preview = ruling.locator(".preview")
    expect(preview.locator("[data-preview-hand='1']")).to_have_text("Hand 1: Bea 12 → 8")
    expect(preview.locator("[data-preview-hand='2']")).to_have_text("Hand 2: Bea — → 6")
    expect(preview).to_contain_text("Totals: Ana 47, Bea 104, Carlos 55, Dani 43")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 6  # previewed, nothing written
    page.screenshot(path=f"{SHOTS}/desk-chain-phone.png", full_page=True)
    ruling.locator("fieldset[data-fix='1']").screenshot(path=f"{SHOTS}/desk-chain-phone-fix1.png")
    second.screenshot(path=f"{SHOTS}/desk-chain-phone-fix2.png")
    preview.screenshot(path=f"{SHOTS}/desk-chain-phone-preview.png")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=f"{SHOTS}/desk-chain-desktop.png", full_page=True)
    ruling.get_by_role("button", name="Record the ruling").click()

    dispute = page.locator("#disputes li.dispute")
    expect(dispute).to_contain_text("upheld")
    expect(dispute).to_be_focused()
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert [h["points"] for h in audit["hands"]] == [[0, 8, 5, 9], [7, 6, 0, 4]]
    assert [d["state"] for d in audit["disputes"]] == ["upheld"]
    fixes = audit["disputes"][0]["correction"]
    # sent as one ruling with its two corrections, judged together: no entry set aside and put back
    assert [(f["type"], f["target"]) for f in fixes] == [("amend", 3), ("amend", 5)]
    assert all(f["inForce"] for f in fixes)
    log = live.call("GET", f"/matches/{match_id}/events")[1]["events"]
    assert [e["type"] for e in log[6:]] == ["ruling", "amend", "amend"]
    # the list says what each correction did in a player's words, never the event's type
    notes = dispute.locator("p.correction")
    expect(notes.nth(0)).to_have_text("Entry 3 corrected: hand 1 result (Bea's cards were counted again: 8).")
    expect(notes.nth(1)).to_have_text("Entry 5 corrected: hand 2 result (Bea's cards were counted again: 8).")
    expect(dispute).not_to_contain_text("amend")
