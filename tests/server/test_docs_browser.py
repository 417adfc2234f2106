"""The /docs page renders in a real headless Chromium and loads nothing from outside the machine."""

from __future__ import annotations


from tests.pages.conftest import watch_csp
from tests.server.conftest import Server


def test_docs_render_offline(browser: object, server: Server) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    outside: list[str] = []
    page.on(
        "request",
        lambda r: None if r.url.startswith(server.url) or r.url.startswith("data:") else outside.append(r.url),
    )
    violations: list[str] = []
    watch_csp(page, violations)  # Swagger UI starts from /static/docs.js, not an inline script
    page.goto(server.url + "/docs")
    page.wait_for_selector(".opblock", timeout=15000)
    assert violations == []
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/matches/{match_id}/events" in p.replace("\u200b", "") for p in paths)
    assert outside == []
    page.close()
