"""Browser tests of the pages: one real ``tanteo serve`` and one Debian chromium for the module.

Every page opened through ``open_page`` records each request that does not go to the server
on 127.0.0.1; the fixture fails the test if there is any.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.server.conftest import CHROMIUM, Server

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
SHOTS = Path(os.environ.get("TANTEO_SHOTS", Path(__file__).resolve().parents[2] / "screenshots"))
"""Where the tests' photos of the pages go, to be looked at: ``TANTEO_SHOTS``, or the checkout's
``screenshots/`` (ignored by git)."""


def shoot(page: Page, name: str, *, full_page: bool = False) -> Path:
    """Photograph ``page`` as ``SHOTS/<name>.png`` and return the file."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(Path(tmp_path_factory.mktemp("pages")) / "pages.db")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def speaking(live: Server) -> Server:
    """A server offering all four languages: ``tanteo serve`` as it starts, ``TANTEO_LANGUAGES`` unset."""
    return live


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_page(chromium: Browser, live: Server) -> Iterator[Callable[..., Page]]:
    """Open a page in a fresh browser context (its own localStorage) at phone size by default."""
    outside: list[str] = []
    errors: list[str] = []
    contexts = []

    def opener(
        path: str, viewport: dict[str, int] | None = None, on_response: Callable[[Any], None] | None = None
    ) -> Page:
        # English pages unless a test asks (all four are offered); no service worker, so that what a
        # test routes or breaks reaches the page as it is (tests/pages/test_offline_app.py has the worker)
        context = chromium.new_context(viewport=viewport or PHONE, locale="en-US", service_workers="block")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10000)
        page.on(
            "request",
            lambda r: None if r.url.startswith(live.url) or r.url.startswith("data:") else outside.append(r.url),
        )
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
        watch_csp(page, errors)
        if on_response is not None:  # before the first request, so every response of the page is seen
            page.on("response", on_response)
        page.goto(live.url + path)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert outside == [], f"requests left 127.0.0.1: {outside}"
    assert errors == [], f"script errors or server failures: {errors}"


CSP_LISTENER = """document.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));"""
"""Said on the console by every page: a Content-Security-Policy violation (api/app.py) fails the test."""


def watch_csp(page: Page, errors: list[str]) -> None:
    """Add to ``errors`` every Content-Security-Policy violation the page raises (the event, and
    Chromium's own console report of what it refused)."""
    page.add_init_script(CSP_LISTENER)
    page.on(
        "console",
        lambda m: errors.append(m.text) if "CSP violation" in m.text or "Content Security Policy" in m.text else None,
    )


def new_match(live: Server, body: dict[str, Any]) -> tuple[str, str]:
    status, created = live.call("POST", "/matches", body)
    assert status == 201, created
    return created["id"], created["token"]


def record(live: Server, match_id: str, token: str, *events: dict[str, Any]) -> Any:
    status, body = live.call(
        "POST", f"/matches/{match_id}/events", {"events": list(events)}, headers={"Authorization": f"Bearer {token}"}
    )
    assert status == 201, body
    return body


# A La Cabra match and a hand entered from the sheet while the server cannot be reached
# (the offline tests: tests/pages/test_offline_sheet_a11y.py, test_offline_app.py).
CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
DEAL_1 = [
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
]


def offline_hand(page: Page, points: int, tricks: tuple[int, int]) -> None:
    page.get_by_label("Card points of North + South").fill(str(points))
    page.get_by_role("group", name="Tricks of North + South").get_by_role(
        "button", name=str(tricks[0]), exact=True
    ).click()
    page.get_by_role("group", name="Tricks of East + West").get_by_role(
        "button", name=str(tricks[1]), exact=True
    ).click()
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview")).to_contain_text("cannot be reached")
    page.get_by_role("button", name="Save the hand").click()
