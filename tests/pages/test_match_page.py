"""The match page: the score sheet computed from the record beside what the table wrote, the
first divergence highlighted and said in one sentence, each hand explained with links to the
rules, and the running totals drawn as SVG by the server. Plus axe-core on the readers' pages."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.accessibility import serious
from tests.pages.viewer_screenshots import WRONG_SHEET
from tests.server.conftest import Server


def test_a_wrong_claim_is_the_first_divergence(open_page: Callable[..., Page], live: Server) -> None:
    start, events = WRONG_SHEET
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    first = audit["firstDivergence"]
    assert (first["hand"], first["field"], first["seat"], first["claimed"], first["computed"]) == (
        1,
        "points",
        0,
        10,
        15,
    )

    page = open_page(f"/m/{match_id}")
    sentence = page.locator("#divergence").inner_text()
    assert "hand 1" in sentence and "Anna" in sentence and "seat 1" in sentence
    assert "wrote 10 points" in sentence and "gives 15" in sentence
    # the sentence leads to the highlighted cell: hand 1, Anna's column, computed 15 beside the sheet's 10
    page.locator("#divergence a").click()
    cell = page.locator("#first-divergence")
    expect(cell).to_be_focused()
    assert cell.get_attribute("data-col") == "0"
    assert cell.locator("xpath=..").get_attribute("data-hand") == "1"
    expect(cell).to_have_class("disagrees first")
    expect(cell.locator(".pts")).to_have_text("15")
    expect(cell.locator(".claim.differs").first).to_contain_text("sheet: 10")
    # every other disagreement is marked too, and agreeing claims are not
    marked = page.locator("#audit-sheet td.disagrees")
    wrong = {(c["hand"], c["seat"]) for c in audit["claims"] if not c["agrees"]}
    assert {
        (int(m.locator("xpath=..").get_attribute("data-hand")), int(m.get_attribute("data-col"))) for m in marked.all()
    } == wrong

    # computed points and totals are the audit's
    for hand in audit["hands"]:
        row = page.locator(f"#audit-sheet tr[data-hand='{hand['hand']}'] .pts")
        assert row.all_inner_texts() == [str(p) for p in hand["points"]]
    assert page.locator("#audit-sheet tfoot td.total").all_inner_texts() == [
        str(s["total"]) for s in audit["standings"]
    ]

    # each explanation line links to the rule it applies
    lines = page.locator("#hand-1 .lines li")
    expect(lines).to_have_count(4)
    for index, line in enumerate(audit["hands"][0]["lines"]):
        expect(lines.nth(index)).to_contain_text(line["reason"])
        assert lines.nth(index).locator("a.rule").get_attribute("href").startswith("/rules/cabo#")

    # and the rule is there, at its anchor, on the rules page
    href = lines.first.locator("a.rule").get_attribute("href")
    rules = open_page(href)
    expect(rules.locator(f"[id='{href.split('#', 1)[1]}']")).to_have_count(1)

    # the chart: one line per player, drawn by the server, its title saying the totals
    chart = page.locator("svg.chart")
    expect(chart.locator("polyline")).to_have_count(4)
    title = chart.locator("title").text_content() or ""
    for standing in audit["standings"]:
        assert f"{standing['name']} {standing['total']}" in title

    assert serious(page) == []


def test_no_serious_accessibility_violation_on_the_replay(open_page: Callable[..., Page], live: Server) -> None:
    start, events = WRONG_SHEET
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    page = open_page(f"/m/{match_id}/replay?at=8#token={token}")
    expect(page.locator(".note-at")).to_contain_text("Ben called early")  # the note, at its move
    assert serious(page) == []
    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_label("Seen by").select_option("all")
    expect(page.locator("#move")).to_contain_text("seen by everyone")
    assert serious(page) == []


def test_the_chart_shows_long_team_names_whole(open_page: Callable[..., Page], live: Server) -> None:
    """Each line ends in its name and total ("Guillermina + Bartomeu 2"): none is cut at the chart's edge."""
    match_id, token = new_match(
        live, {"game": "la-cabra", "players": ["Guillermina", "Maximilià", "Bartomeu", "Montserrat"]}
    )
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 3}},
        {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
    )
    page = open_page(f"/m/{match_id}")
    labels = page.locator("svg.chart text.label")
    expect(labels).to_have_count(2)
    expect(labels.first).to_contain_text("Guillermina + Bartomeu")
    width = page.evaluate("document.querySelector('svg.chart').viewBox.baseVal.width")
    for right in page.evaluate(
        "[...document.querySelectorAll('svg.chart text.label')].map(t => t.getBBox().x + t.getBBox().width)"
    ):
        assert right <= width
