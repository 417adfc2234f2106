"""The dispute desk: a dispute opened on a hand with its explanation beside the claim, upheld
with an amend that re-scores the hand on the page; after the correction window, refused."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.viewer_screenshots import WRONG_SHEET
from tests.server.conftest import Server


def test_a_dispute_upheld_with_an_amend_rescores_the_hand(open_page: Callable[..., Page], live: Server) -> None:
    start, events = WRONG_SHEET
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    page = open_page(f"/m/{match_id}/dispute?hand=1#token={token}")

    why = page.locator("#hand-why")
    expect(why).to_contain_text("Hand 1: computed from the record")
    expect(why.locator(".claim.differs").first).to_contain_text("Anna, points: 10 ✗ the record gives 15")
    expect(why.locator(".points")).to_have_text("Anna 15, Ben 0, Carl 15, Dora 0")

    page.get_by_label("What is contested").select_option("points")
    page.get_by_label("Whose").select_option(label="Dora")
    page.get_by_label("Why").fill("Ben's last card was a 4, not a 5: Dora was not the lowest")
    page.get_by_role("button", name="Open the dispute").click()
    dispute = page.locator("#disputes li.dispute")
    expect(dispute).to_have_count(1)
    expect(dispute).to_contain_text("Hand 1, points of Dora — open")
    seq = int(dispute.get_attribute("data-seq"))

    ruling = page.get_by_role("form", name=f"Ruling on the dispute of entry {seq}")
    ruling.get_by_label("Upheld").check()
    ruling.get_by_label("Reason for the ruling").fill("the players agree Ben's third card was a 4")
    ruling.get_by_label("Entry to correct").select_option(label="Entry 3: hand 1 result")
    # the score page's own form for a hand from the sheet: no JSON, players by name
    for name, total in (("Anna", "10"), ("Ben", "6"), ("Carl", "15"), ("Dora", "7")):  # Ben 6, alone the lowest
        ruling.get_by_label(f"{name}'s card total").fill(total)
    expect(ruling.get_by_role("group", name="Called CABO").get_by_role("button", name="Anna")).to_have_attribute(
        "aria-pressed", "true"
    )
    ruling.get_by_role("button", name="Check the ruling").click()
    expect(ruling.locator(".preview [data-preview-hand='1']")).to_have_text("Hand 1: Dora 0 → 7")
    expect(ruling.locator(".preview")).to_contain_text("Totals: Anna 33, Ben 7, Carl 55, Dora 21")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == len(events) + 2  # the check wrote nothing
    ruling.get_by_role("button", name="Record the ruling").click()

    expect(dispute).to_contain_text("upheld")
    expect(dispute).to_contain_text("Entry 3 corrected: hand 1 result")
    expect(why.locator(".points")).to_have_text("Anna 15, Ben 0, Carl 15, Dora 7")
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert audit["hands"][0]["points"] == [15, 0, 15, 7]
    assert [d["state"] for d in audit["disputes"]] == ["upheld"]

    # the match page shows the hand re-scored
    match = open_page(f"/m/{match_id}")
    assert match.locator("#audit-sheet tr[data-hand='1'] .pts").all_inner_texts() == ["15", "0", "15", "7"]


def test_a_dispute_after_the_correction_window_is_refused(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(
        live,
        {
            "game": "cabo",
            "players": ["Anna", "Ben"],
            "options": {"correctionWindow": 0},
            "initial": {"totals": [20, 95]},
        },
    )
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0}},
        {"type": "hand_result", "data": {"layouts": [["1", "2", "3", "4"], ["9", "9", "5", "6"]], "caller": 0}},
    )
    assert live.call("GET", f"/matches/{match_id}")[1]["end"]["over"] is True
    page = open_page(f"/m/{match_id}/dispute#token={token}")
    page.get_by_label("Why").fill("Ben's 6 was a 5")
    page.get_by_role("button", name="Open the dispute").click()
    refusal = page.locator("#dispute-refusal")
    expect(refusal).to_contain_text("the match is final")
    assert "common." not in refusal.inner_text()  # the sentence first; the code folded under "Details"
    refusal.get_by_text("Details").click()
    expect(refusal.locator("details.code")).to_contain_text("rule code common.match_final")
    expect(page.locator("#no-disputes")).to_be_visible()


def test_a_correction_after_the_correction_window_is_refused_on_the_scoring_page(
    open_page: Callable[..., Page], live: Server
) -> None:
    match_id, token = new_match(
        live,
        {
            "game": "cabo",
            "players": ["Anna", "Ben"],
            "options": {"correctionWindow": 0},
            "initial": {"totals": [20, 95]},
        },
    )
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0}},
        {"type": "hand_result", "data": {"layouts": [["1", "2", "3", "4"], ["9", "9", "5", "6"]], "caller": 0}},
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_role("button", name="Undo the last entry").click()
    refusal = page.locator("#correction .refusal")
    expect(refusal).to_contain_text("the match is final")
    assert "common." not in refusal.inner_text() and "rule:" not in refusal.inner_text()
    refusal.get_by_text("Details").click()
    expect(refusal.locator("details.code")).to_contain_text("rule code common.match_final")
    expect(page.get_by_role("button", name="Void it")).to_be_disabled()
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 3  # nothing written


def test_a_double_tap_opens_one_dispute_and_the_ruling_form_reads_on_a_phone(
    open_page: Callable[..., Page], live: Server
) -> None:
    """Found by the h4 audit: a double tap opened the dispute twice (a new Idempotency-Key per tap), the
    ruling form's 'How' was cut at 390 px ('Amend it (write what it shoul') and its entries read 'hand_result'."""
    start, events = WRONG_SHEET
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    page = open_page(f"/m/{match_id}/dispute?hand=1#token={token}")  # phone size
    page.get_by_label("Why").fill("Dora was not the lowest")
    page.get_by_role("button", name="Open the dispute").dblclick()
    dispute = page.locator("#disputes li.dispute")
    expect(dispute).to_have_count(1)
    page.wait_for_load_state("networkidle")
    expect(dispute).to_have_count(1)
    assert len(live.call("GET", f"/matches/{match_id}/audit")[1]["disputes"]) == 1

    ruling = page.get_by_role("form", name=f"Ruling on the dispute of entry {dispute.get_attribute('data-seq')}")
    ruling.get_by_label("Upheld").check()
    # the entry offered first is the hand's result line, the one a scoring dispute is about
    assert (
        ruling.get_by_label("Entry to correct").evaluate("s => s.options[s.selectedIndex].text")
        == "Entry 3: hand 1 result"
    )
    expect(ruling.get_by_label("Ben's card total")).to_be_visible()  # the entry's own form, not its JSON
    dispute_form = page.locator("#dispute-form")
    for form, name in (
        (ruling, "Entry to correct"),
        (ruling, "What to do with it"),
        (dispute_form, "What is contested"),
        (dispute_form, "Whose"),
    ):
        select = form.get_by_label(name)
        texts = select.locator("option").all_inner_texts()
        assert not [t for t in texts if "_" in t], texts
        # the widest option, measured in the select's own font, fits inside the select (arrow and padding aside)
        room = select.evaluate("""s => { const c = document.createElement('canvas').getContext('2d');
            const st = getComputedStyle(s); c.font = `${st.fontSize} ${st.fontFamily}`;
            const widest = Math.max(...[...s.options].map(o => c.measureText(o.text).width));
            return s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 24 - widest; }""")
        assert room >= 0, f"{name}: {texts} is {-room:.0f} px too wide for the select"
