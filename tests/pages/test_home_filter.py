"""The home page's match list has a filter that looks like one: a labelled, bordered search field,
shown at once at phone size, used from the keyboard alone."""

from __future__ import annotations

import re
from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server


def test_the_filter_is_a_labelled_search_field_the_keyboard_uses(open_page: Callable[..., Page], live: Server) -> None:
    cabo, _ = new_match(live, {"game": "cabo", "players": ["Núria", "Marc"]})
    roby, _ = new_match(live, {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"]})
    page = open_page("/")
    find = page.get_by_role("searchbox", name="Find matches by player")
    expect(find).to_be_visible()  # not folded away behind a line of text
    border = find.evaluate("e => parseFloat(getComputedStyle(e).borderTopWidth)")
    assert border >= 2, border
    box = find.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 200  # a field, big enough to tap
    expect(page.get_by_role("search", name="Filter matches")).to_be_visible()

    page.locator("body").focus()
    for _ in range(12):  # from the top of the page, Tab reaches the field
        page.keyboard.press("Tab")
        if find.evaluate("e => e === document.activeElement"):
            break
    expect(find).to_be_focused()
    page.keyboard.type("Núria")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?player=N%C3%BAria"))
    expect(page.locator(f"a[href='/m/{cabo}/score']")).to_be_visible()
    expect(page.locator(f"a[href='/m/{roby}/score']")).to_have_count(0)
    expect(page.get_by_role("searchbox", name="Find matches by player")).to_have_value("Núria")
