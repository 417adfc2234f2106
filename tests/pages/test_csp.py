"""Every page runs under the Content-Security-Policy (api/app.py) without a violation: no inline
script, handler or style attribute is left in the markup. ``open_page`` fails a test on any
violation (tests/pages/conftest.py); this walks every page once, the scoring and sheet pages of a
dealt match included, and shows that a violation is seen."""

from __future__ import annotations

from typing import Callable

import pytest
from playwright.sync_api import Page

from tests.pages.conftest import new_match, record, watch_csp
from tests.server.conftest import Server

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}


@pytest.fixture(scope="module")
def dealt(live: Server) -> str:
    match_id, token = new_match(live, START)
    record(live, match_id, token, {"type": "note", "data": {"text": "first"}})
    return match_id


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/new",
        "/rules",
        "/rules/la-cabra",
        "/m/{id}",
        "/m/{id}/score",
        "/m/{id}/sheet",
        "/m/{id}/replay",
        "/m/{id}/dispute",
    ],
)
def test_page_raises_no_csp_violation(open_page: Callable[..., Page], dealt: str, path: str) -> None:
    page = open_page(path.format(id=dealt))
    page.wait_for_load_state("networkidle")
    assert "frame-ancestors 'none'" in page.request.get(page.url).headers["content-security-policy"]


def test_a_violation_is_seen(chromium: object, live: Server) -> None:
    """The watch can fail: a style attribute set from a script is refused and reported."""
    page = chromium.new_page()  # type: ignore[attr-defined]
    errors: list[str] = []
    watch_csp(page, errors)
    page.goto(live.url + "/new")
    page.evaluate("() => document.body.setAttribute('style', 'color: red')")
    page.wait_for_timeout(300)
    page.close()
    assert any("style-src" in e for e in errors), errors
