"""What the table wrote, typed on the score page: the paper sheet's row cell by cell under the
computed one, its divergence shown before anything is saved, and the claim in the audit."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

SHOTS = "/tmp/shots"


def test_the_sheets_row_typed_on_the_score_page_reaches_the_audit(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0}},
        {"type": "hand_result", "data": {"sums": [10, 7], "caller": 0}},
    )  # Anna called, Ben lower: 15 and 0
    assert live.call("GET", f"/matches/{match_id}/audit")[1]["claims"] == []
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#sheet tbody tr[data-hand='1'] .pts")).to_have_count(2)

    page.get_by_role("button", name="Type what the table wrote for hand 1").click()
    row = page.locator("#sheet tr.claim-row")
    anna_points = row.get_by_label("Anna, hand 1: the hand's points on the sheet")
    expect(anna_points).to_be_focused()
    anna_points.fill("15")
    page.keyboard.press("Tab")
    page.keyboard.type("15")  # Anna's running total
    ben_total = row.get_by_label("Ben, hand 1: the running total on the sheet")
    ben_total.fill("5")  # the table added Ben's 5 by mistake
    # the divergence is said at once, before anything is saved
    expect(row.locator(".claim-verdict")).to_have_text("Differs: Ben's total — the sheet says 5, the record 0.")
    expect(ben_total).to_have_class("claim-input differs")
    expect(anna_points).to_have_class("claim-input agrees")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 3  # nothing written yet
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=f"{SHOTS}/claims-typing-phone.png", full_page=True)
    ben_total.press("Enter")

    expect(page.locator("#sheet tr.claim-row")).to_have_count(0)
    expect(page.locator("#sheet tr[data-hand='1'] td.disagrees")).to_contain_text("sheet: 5 total")
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert [(c["field"], c.get("seat"), c["claimed"], c["agrees"]) for c in audit["claims"]] == [
        ("points", 0, 15, True),
        ("totals", 0, 15, True),
        ("totals", 1, 5, False),
    ]
    assert audit["firstDivergence"]["seat"] == 1 and audit["firstDivergence"]["computed"] == 0
    expect(page.get_by_role("button", name="Change what the table wrote for hand 1")).to_be_focused()

    # typed again (the sheet's 5 was a smudge): the hand's claim is replaced, not doubled
    page.get_by_role("button", name="Change what the table wrote for hand 1").press("Enter")
    expect(row.get_by_label("Ben, hand 1: the running total on the sheet")).to_have_value("5")
    row.get_by_label("Ben, hand 1: the running total on the sheet").fill("0")
    expect(row.locator(".claim-verdict")).to_have_text("✓ The sheet agrees with the record.")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=f"{SHOTS}/claims-typing-desktop.png", full_page=True)
    row.get_by_role("button", name="Save row").click()
    expect(page.locator("#sheet tr[data-hand='1'] td.disagrees")).to_have_count(0)
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert len(audit["claims"]) == 3 and all(c["agrees"] for c in audit["claims"])
    assert audit["firstDivergence"] is None
    events = live.call("GET", f"/matches/{match_id}/events")[1]["events"]
    assert [e["type"] for e in events[3:]] == ["score_claimed", "amend"]
    expect(page.locator("#history li[data-seq='4']")).to_contain_text(
        "the table wrote for hand 1: Anna 15 (total 15), Ben total 5"
    )


def test_la_cabras_sheet_row_is_per_team(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 0}},
        {"type": "hand_result", "data": {"lossPoints": [0, 2]}},
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_role("button", name="Type what the table wrote for hand 1").click()
    row = page.locator("#sheet tr.claim-row")
    row.get_by_label("East + West, hand 1: the hand's points on the sheet").fill("4")
    expect(row.locator(".claim-verdict")).to_have_text(
        "Differs: East + West's points — the sheet says 4, the record 2."
    )
    page.screenshot(path=f"{SHOTS}/claims-la-cabra-phone.png", full_page=True)
    row.get_by_role("button", name="Save row").click()
    expect(page.locator("#sheet tr.claim-row")).to_have_count(0)
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert [(c["field"], c.get("team"), c["claimed"], c["agrees"]) for c in audit["claims"]] == [
        ("points", 1, 4, False)
    ]
