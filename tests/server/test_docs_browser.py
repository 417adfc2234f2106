"""The /docs page renders in a real headless Chromium and loads nothing from outside the machine."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from tests.pages.conftest import watch_csp
from tests.server.conftest import CHROMIUM, Server

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not os.path.exists(CHROMIUM):
        pytest.fail("needs Debian's chromium: apt-get install -y --no-install-recommends chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


def test_docs_render_offline(browser: object, server: Server) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(server.url) or r.url.startswith("data:") else outside.append(r.url))
    violations: list[str] = []
    watch_csp(page, violations)  # Swagger UI starts from /static/docs.js, not an inline script
    page.goto(server.url + "/docs")
    page.wait_for_selector(".opblock", timeout=15000)
    assert violations == []
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/matches/{match_id}/events" in p.replace("\u200b", "") for p in paths)
    assert outside == []
    page.close()
