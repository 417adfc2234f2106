"""Pages readable in any light (issue 29, "Any light"): the colours follow the device's colour scheme
and contrast wish, the header's selector overrides them and is remembered by the browser, every page
passes axe-core (colour contrast included) in the light, dark and high-contrast themes, print stays
light, QR codes stay black on white, and every control a scorer taps on the score page is 44×44 px."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.pages.accessibility import serious
from tests.pages.club_night import CLUB_NIGHT
from tests.pages.viewer_screenshots import WRONG_SHEET, recorded
from tests.server.conftest import Server

CABRA = (
    {"game": "la-cabra", "players": ["North", "East", "South", "West"]},
    [
        {"type": "hand_started", "data": {"dealer": 3}},
        {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
    ],
)

COLOURS = """s => { const c = getComputedStyle(document.querySelector(s));
  return {bg: c.backgroundColor, ink: c.color, border: c.borderTopColor, width: c.borderTopWidth, stroke: c.stroke} }"""


def rgb(css: str) -> tuple[int, int, int]:
    """``rgb(21, 23, 26)`` as numbers."""
    inner = css[css.index("(") + 1 : css.index(")")]
    r, g, b = (int(float(part)) for part in inner.split(",")[:3])
    return r, g, b


def luminance(css: str) -> float:
    """WCAG relative luminance of a computed colour."""

    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else float(((v + 0.055) / 1.055) ** 2.4)

    r, g, b = (channel(c) for c in rgb(css))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def theme(page: Page) -> str | None:
    return page.evaluate("document.documentElement.dataset.theme")


@pytest.fixture(scope="module")
def cabo(live: Server) -> tuple[str, str]:
    """A Cabo match in play with three hands, a wrong written sheet and a note: a chart, marked cells, a replay."""
    return recorded(live, *WRONG_SHEET)


def is_light(page: Page) -> None:
    body, button = page.evaluate(COLOURS, "body"), page.evaluate(COLOURS, ".find-row button")
    assert rgb(body["bg"]) == (255, 255, 255) and luminance(body["ink"]) < 0.02, body
    assert rgb(button["bg"]) == (255, 255, 255) and button["width"] == "1px", button


def is_dark(page: Page) -> None:
    body, button = page.evaluate(COLOURS, "body"), page.evaluate(COLOURS, ".find-row button")
    assert luminance(body["bg"]) < 0.02 and luminance(body["ink"]) > 0.7, body  # light words on a dark page
    assert luminance(button["bg"]) < 0.03 and contrast(button["ink"], button["bg"]) > 7, button
    assert contrast(button["border"], body["bg"]) >= 3, button  # the button's edge is seen


def is_contrast(page: Page) -> None:
    body, button = page.evaluate(COLOURS, "body"), page.evaluate(COLOURS, ".find-row button")
    assert (rgb(body["bg"]), rgb(body["ink"])) == ((255, 255, 255), (0, 0, 0)), body  # black on white
    assert rgb(button["border"]) == (0, 0, 0) and button["width"] == "2px", button  # edges drawn black, thicker
    link = page.evaluate(COLOURS, ".match .title")  # a match in the list, in the link colour
    assert contrast(link["ink"], body["bg"]) >= 7, link


def test_the_colours_follow_the_devices_scheme_and_contrast(
    open_page: Callable[..., Page], live: Server, cabo: tuple[str, str]
) -> None:
    page = open_page("/")
    assert theme(page) == "light"
    is_light(page)
    page.emulate_media(color_scheme="dark")  # the phone turns dark in the evening: the open page follows
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    is_dark(page)
    page.emulate_media(contrast="more")  # more contrast asked for as well: high contrast wins
    expect(page.locator("html")).to_have_attribute("data-theme", "contrast")
    is_contrast(page)
    page.emulate_media(color_scheme="light", contrast="no-preference")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    is_light(page)

    page.emulate_media(color_scheme="dark")
    page.goto(live.url + f"/m/{cabo[0]}")
    assert theme(page) == "dark"  # from the first paint of a new page
    bg = page.evaluate(COLOURS, "body")["bg"]
    for tone in range(4):  # each series of the chart in the dark theme's colour, not the light PALETTE's
        line = page.evaluate(COLOURS, f"svg.chart polyline.tone-{tone}")
        label = page.evaluate(COLOURS, f"svg.chart text.tone-{tone}")
        assert contrast(line["stroke"], bg) >= 4.5, (tone, line)
        assert label["ink"] != line["stroke"] or contrast(label["ink"], bg) >= 4.5
    light_first = page.locator("svg.chart polyline.tone-0").get_attribute("stroke")
    assert rgb(page.evaluate(COLOURS, "svg.chart polyline.tone-0")["stroke"]) != tuple(
        int(light_first[i : i + 2], 16) for i in (1, 3, 5)
    )


def test_the_sheet_prints_light_and_its_code_stays_black_on_white(
    open_page: Callable[..., Page], cabo: tuple[str, str]
) -> None:
    page = open_page(f"/m/{cabo[0]}/sheet")
    page.emulate_media(color_scheme="dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert luminance(page.evaluate(COLOURS, "body")["bg"]) < 0.02
    code = page.evaluate(COLOURS, ".qr svg")
    assert rgb(code["bg"]) == (255, 255, 255)  # a scanner needs dark modules on light, whatever the theme
    light, dark = page.locator(".qr svg path").first, page.locator(".qr svg path.qrline")  # segno's drawing
    assert rgb(light.evaluate("p => getComputedStyle(p).fill")) == (255, 255, 255)
    assert rgb(dark.evaluate("p => getComputedStyle(p).stroke")) == (0, 0, 0)
    page.emulate_media(media="print")  # printed on paper: light, whatever the screen's theme
    body = page.evaluate(COLOURS, "body")
    assert rgb(body["bg"]) == (255, 255, 255) and luminance(body["ink"]) < 0.02, body


def test_the_readers_choice_overrides_the_device_and_is_remembered(
    open_page: Callable[..., Page], live: Server, cabo: tuple[str, str]
) -> None:
    page = open_page("/")
    page.emulate_media(color_scheme="dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    choice = page.get_by_label("Colours")
    expect(choice).to_have_value("auto")
    expect(choice.locator("option")).to_have_text(["Automatic", "Light", "Dark", "High contrast"])
    choice.focus()
    page.keyboard.press("ArrowDown")  # Automatic → Light, with the keyboard: applied at once
    expect(choice).to_have_value("light")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    is_light(page)
    page.reload()  # remembered, still over the device's dark
    expect(page.get_by_label("Colours")).to_have_value("light")
    assert theme(page) == "light"
    is_light(page)
    page.goto(live.url + f"/m/{cabo[0]}/score")  # and on every other page
    assert theme(page) == "light"
    expect(page.get_by_label("Colours")).to_have_value("light")
    page.get_by_label("Colours").select_option("contrast")
    expect(page.locator("html")).to_have_attribute("data-theme", "contrast")
    page.goto(live.url + "/")
    is_contrast(page)
    page.get_by_label("Colours").select_option("auto")  # back to following the device
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    is_dark(page)


def test_the_selector_speaks_the_readers_language_and_needs_a_script(open_page: Callable[..., Page]) -> None:
    page = open_page("/?lang=ca")
    choice = page.get_by_label("Colors")
    expect(choice.locator("option")).to_have_text(["Automàtic", "Clar", "Fosc", "Alt contrast"])
    blocked = page.context.new_page()  # without the theme script there is nothing to choose: the selector hides
    blocked.route("**/theme.js", lambda route: route.abort())
    blocked.goto(page.url)
    expect(blocked.locator(".theme")).to_be_hidden()
    expect(blocked.locator("#language-choice")).to_be_visible()
    blocked.close()


EMULATED = {"light": {}, "dark": {"color_scheme": "dark"}, "contrast": {"contrast": "more"}}


@pytest.mark.parametrize("name", ["light", "dark", "contrast"])
def test_every_page_passes_axe_in_each_theme(
    name: str, open_page: Callable[..., Page], live: Server, cabo: tuple[str, str], tmp_path: Path
) -> None:
    match_id, token = cabo
    page = open_page("/")
    page.emulate_media(**EMULATED[name])  # type: ignore[arg-type]
    failures: dict[str, list[str]] = {}

    def check(what: str) -> None:
        assert theme(page) == name, what
        found = serious(page)
        if found:
            failures[what] = found

    page.goto(live.url + "/")
    expect(page.locator(".match").first).to_be_visible()
    check("home")
    path = tmp_path / "club-night.tnt"
    path.write_text(CLUB_NIGHT, encoding="utf-8")
    page.get_by_label("Import a file").set_input_files(str(path))
    expect(page.locator("#import-report .problems li")).to_have_count(1)
    check("import report")
    page.goto(live.url + "/new")
    page.get_by_label("La Cabra").check()
    expect(page.locator("#option-list .option").first).to_be_visible()
    check("new match")
    page.goto(live.url + f"/m/{match_id}/score#token={token}")
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(3)
    expect(page.locator("#legal button").first).to_be_visible()
    check("score")
    page.goto(live.url + f"/m/{match_id}")
    expect(page.locator("svg.chart polyline")).to_have_count(4)
    check("match")
    page.goto(live.url + f"/m/{match_id}/replay?at=8")
    expect(page.locator(".note-at")).to_contain_text("Ben called early")
    check("replay")
    page.goto(live.url + f"/m/{match_id}/dispute#token={token}")
    expect(page.locator("#hand-why li").first).to_be_visible()
    check("desk")
    page.goto(live.url + f"/m/{match_id}/sheet")
    check("sheet")
    page.goto(live.url + "/rules/cabo")
    check("rules")
    cabra, cabra_token = recorded(live, *CABRA)
    page.goto(live.url + f"/m/{cabra}/score#token={cabra_token}")
    page.locator("#legal button").first.click()  # the deal's card picker: red and black suits
    expect(page.locator("#deal-area .picker button").first).to_be_visible()
    check("card picker")
    assert failures == {}


TARGETS = """() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
  .filter(el => el.checkVisibility() && !el.closest('[hidden]'))
  .map(el => {
    // a box or a round button inside its label is tapped through the label
    const target = (el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')) || el;
    const r = target.getBoundingClientRect();
    return {what: el.outerHTML.slice(0, 90), width: r.width, height: r.height, left: r.right};
  })
  .filter(t => t.left > 0)"""
"""Every control a scorer may tap on the page, with the size of what the finger meets."""


def small_targets(page: Page) -> list[str]:
    return [
        f"{t['width']:.0f}x{t['height']:.0f} {t['what']}"
        for t in page.evaluate(TARGETS)
        if min(t["width"], t["height"]) < 44
    ]


def test_every_control_of_the_score_page_is_a_big_touch_target(
    open_page: Callable[..., Page], live: Server, cabo: tuple[str, str]
) -> None:
    match_id, token = cabo
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(3)
    expect(page.locator("#legal button").first).to_be_visible()
    assert len(page.evaluate(TARGETS)) > 30  # the header, the match's links, the sheet's form, the moves, the history
    small = small_targets(page)
    assert small == [], "\n".join(small)
    page.locator("#sheet .claim-open").first.click()  # what the table wrote, typed under the row
    expect(page.locator("#sheet input.claim-input").first).to_be_visible()
    small = small_targets(page)
    assert small == [], "\n".join(small)
    page.get_by_role("button", name="Correct entry 9").click()  # a correction's form
    expect(page.locator("#correction")).to_be_visible()
    page.locator("#legal button").first.click()  # the next deal, card by card
    expect(page.locator("#deal-area button").first).to_be_visible()
    small = small_targets(page)
    assert small == [], "\n".join(small)
    cabra, cabra_token = recorded(live, *CABRA)
    page.goto(live.url + f"/m/{cabra}/score#token={cabra_token}")
    page.locator("#legal button").first.click()
    expect(page.locator("#deal-area .picker button").first).to_be_visible()
    small = small_targets(page)
    assert small == [], "\n".join(small)
