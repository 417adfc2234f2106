"""The scorer's phone at a table with no signal (issue 29): installable, opens offline, sends once.

A real ``tanteo serve`` that this module stops and starts again on the same port and the same
database file, and Debian's chromium with its service worker: after one visit the score page,
its replay and the home page open with the server gone, say so, take entries, and on the
server's return send each once, in order; an entry another phone overtook meanwhile is put to
the scorer, never dropped; a changed script is what the next load runs.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.accessibility import serious
from tests.pages.conftest import CABRA, DEAL_1, PHONE, new_match, offline_hand, record, shoot, watch_csp
from tests.server.conftest import Server

REPO = Path(__file__).resolve().parents[2]
NOTE = {"type": "note", "data": {"text": "written on the other phone"}}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("offline") / "offline.db")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def phone(chromium: Browser) -> Iterator[Callable[[Server], Page]]:
    """A phone's browser for a server: nothing from outside, no script error, no CSP refusal."""
    contexts: list[Any] = []
    outside: list[str] = []
    errors: list[str] = []

    def opener(server: Server) -> Page:
        context = chromium.new_context(viewport=PHONE, locale="en-US", service_workers="allow")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15000)
        page.on("request", lambda r: None if r.url.startswith(server.url) else outside.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        watch_csp(page, errors)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert not outside, f"requests outside the machine: {outside}"
    assert not errors, errors


def controlled(page: Page) -> None:
    """Wait until the service worker is active and answers this page's requests."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def kept(page: Page, *paths: str) -> None:
    """Wait until the service worker holds a copy of each path (what the page asked it to keep)."""
    page.wait_for_function(
        "async (paths) => (await Promise.all(paths.map((p) => caches.match(p, { ignoreVary: true })))).every(Boolean)",
        arg=list(paths),
        polling=200,
    )


def scoring(page: Page, server: Server, after: str | None = None) -> tuple[Page, str]:
    """A La Cabra match with one hand recorded, open on the scorer's page (after ``after``), served by the worker."""
    match_id, token = new_match(server, CABRA)
    record(server, match_id, token, *DEAL_1)
    if after:
        page.goto(server.url + after)
    page.goto(f"{server.url}/m/{match_id}/score#token={token}")
    controlled(page)
    return page, match_id


def events_of(server: Server, match_id: str) -> list[dict[str, Any]]:
    status, body = server.call("GET", f"/matches/{match_id}/events")
    assert status == 200
    return list(body["events"])


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_installable_manifest_icons_and_an_active_worker(phone: Callable[[Server], Page], table: Server) -> None:
    page = phone(table)
    page.goto(table.url + "/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    assert href
    with urllib.request.urlopen(table.url + href) as answer:
        assert answer.headers["Content-Type"].startswith("application/manifest+json")
        manifest = json.loads(answer.read())
    assert manifest["name"] == "Tanteo" and manifest["short_name"]
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == ("/", "/", "standalone")
    sizes = set()
    for icon in manifest["icons"]:
        with urllib.request.urlopen(table.url + icon["src"]) as answer:
            assert answer.headers["Content-Type"] == "image/png"
            width, height = png_size(answer.read())
        assert icon["sizes"] == f"{width}x{height}" and icon["type"] == "image/png"
        sizes.add((width, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes
    page.wait_for_function("async () => (await navigator.serviceWorker.ready).active.state === 'activated'")
    controlled(page)  # clients.claim(): the page that installed it is served by it already
    page.reload()
    controlled(page)
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == table.url + "/sw.js"


def test_flight_mode_three_hands_scored_offline_are_stored_once_in_order_on_landing(
    phone: Callable[[Server], Page], table: Server
) -> None:
    page, match_id = scoring(phone(table), table, after="/")
    page.reload()  # now every read of the page went through the worker, which kept a copy
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
    kept(page, f"/m/{match_id}/replay", f"/matches/{match_id}/replay?course=corrected", "/rules/la-cabra", "/")

    table.stop()  # the signal is gone
    page.reload()
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator("#offline")).to_contain_text("No connection to the server")
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(1)  # the match as last known
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
    queue = page.locator("#queue")
    offline_hand(page, 40, (3, 4))
    expect(queue).to_contain_text("1 entry is waiting")  # the form is drawn anew for the next hand
    offline_hand(page, 90, (6, 2))
    expect(queue).to_contain_text("2 entries are waiting")
    offline_hand(page, 70, (4, 3))
    expect(queue).to_contain_text("3 entries are waiting")
    page.evaluate("() => window.scrollTo(0, 0)")
    shoot(page, "offline-banner-phone")
    in_every_light(page, "offline-banner")

    # the replay and the list of matches open too, from what the phone kept
    other = page.context.new_page()
    other.goto(f"{table.url}/m/{match_id}/replay")
    expect(other.locator("#offline")).to_be_visible()
    expect(other.locator("h1")).to_be_visible()
    expect(other.locator("#moves li").first).to_be_visible()
    other.goto(f"{table.url}/")
    expect(other.locator("#offline")).to_contain_text("this page is shown as this phone last knew it")

    table.start()  # landed: the server is back, though the browser never saw the network go
    expect(queue).to_be_hidden(timeout=20000)
    expect(page.locator("#offline")).to_be_hidden()
    back = other.locator("#offline")  # a reader's page offers the latest rather than reload under their fingers
    expect(back).to_contain_text("The connection is back.", timeout=20000)
    back.get_by_role("button", name="Show the latest").click()
    expect(back).to_be_hidden()
    other.close()
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(4)
    events = events_of(table, match_id)
    assert [e["type"] for e in events] == ["match_started"] + ["hand_started", "hand_result"] * 4
    assert [e["data"]["cardPoints"] for e in events[4::2]] == [[40, 80], [90, 30], [70, 50]]
    assert len({e["key"] for e in events[3:]}) == 3 and None not in {e["key"] for e in events[3:]}
    page.reload()  # nothing is sent twice
    expect(page.locator("#sheet tbody tr[data-hand]")).to_have_count(4)
    assert len(events_of(table, match_id)) == 9


def test_an_entry_overtaken_by_another_phone_is_put_to_the_scorer(
    phone: Callable[[Server], Page], table: Server
) -> None:
    page, match_id = scoring(phone(table), table)
    token = page.evaluate(f"() => localStorage.getItem('tanteo:token:{match_id}')")
    expect(page.locator("#entry-title")).to_have_text("Enter hand 2 from the sheet")
    table.stop()  # this phone loses the server...
    queue = page.locator("#queue")
    offline_hand(page, 40, (3, 4))
    expect(queue).to_contain_text("1 entry is waiting")  # the form is drawn anew for the next hand
    offline_hand(page, 90, (6, 2))
    expect(queue).to_contain_text("2 entries are waiting")
    elsewhere = Server(table.db)  # ...while the other phone reaches it through another server on the same database
    elsewhere.start()
    record(elsewhere, match_id, token, NOTE)
    elsewhere.stop()

    table.start()
    expect(queue).to_contain_text("While this phone was offline, another phone recorded 1 entry.")
    expect(queue).to_contain_text("Your 2 waiting entries were not sent.")
    expect(queue).to_contain_text("Waiting: hand 2 from the sheet")
    expect(queue).to_contain_text("After it, 1 more entry waits for the same choice.")
    queue.scroll_into_view_if_needed()
    shoot(page, "offline-conflict-phone")
    in_every_light(page, "offline-conflict")
    assert [e["type"] for e in events_of(table, match_id)][-1] == "note"  # nothing sent behind the scorer's back
    page.wait_for_timeout(4000)  # the queue's timers run: still nothing is sent
    assert len(events_of(table, match_id)) == 4

    queue.get_by_role("button", name="Review the sheet").click()
    expect(page.locator("#sheet-title")).to_be_focused()
    queue.get_by_role("button", name="Send it anyway").click()
    expect(queue).to_contain_text("Your 1 waiting entry was not sent.")
    queue.get_by_role("button", name="Discard it").click()
    expect(queue).to_be_hidden()
    events = events_of(table, match_id)
    assert [e["type"] for e in events] == ["match_started", "hand_started", "hand_result", "note"] + [
        "hand_started",
        "hand_result",
    ]
    assert events[-1]["data"]["cardPoints"] == [40, 80]
    page.reload()
    expect(queue).to_be_hidden()
    assert len(events_of(table, match_id)) == 6


def test_a_changed_script_is_what_the_next_load_runs(phone: Callable[[Server], Page], tmp_path: Path) -> None:
    root = tmp_path / "code"
    root.mkdir()
    shutil.copytree(REPO / "api", root / "api", ignore=shutil.ignore_patterns("__pycache__"))
    for package in ("engines", "ledger", "schemas", "replays"):
        (root / package).symlink_to(REPO / package)
    server = Server(tmp_path / "version.db", root=root)
    server.start()
    try:
        page = phone(server)
        page.goto(server.url + "/")
        controlled(page)
        before = version_of(server)
        page.wait_for_function("async (v) => (await caches.keys()).includes(`tanteo-shell-${v}`)", arg=before)
        assert page.evaluate("window.tanteoBuild") is None

        script = root / "api" / "static" / "offline.js"
        script.write_text(script.read_text() + '\nwindow.tanteoBuild = "second";\n')
        after = version_of(server)
        assert after != before
        page.reload()
        assert page.evaluate("window.tanteoBuild") == "second"
        page.wait_for_function(
            "async ([old, now]) => { const names = await caches.keys(); return names.includes(`tanteo-shell-${now}`) && !names.includes(`tanteo-shell-${old}`); }",
            arg=[before, after],
        )
        server.stop()  # and the new script is the one kept for the next time without network
        page.reload()
        expect(page.locator("#offline")).to_be_visible()
        assert page.evaluate("window.tanteoBuild") == "second"
    finally:
        server.stop()


def in_every_light(page: Page, name: str) -> None:
    """No serious accessibility violation in the light, dark and high-contrast themes (a photo of each)."""
    for scheme, more in (("light", "no-preference"), ("dark", "no-preference"), ("light", "more")):
        page.emulate_media(color_scheme=scheme, contrast=more)
        assert serious(page) == [], (scheme, more)
        shoot(page, f"{name}-{scheme}-{more}")
    page.emulate_media(color_scheme="light", contrast="no-preference")


def version_of(server: Server) -> str:
    with urllib.request.urlopen(server.url + "/sw.js") as answer:
        found = re.search(r'const VERSION = "([0-9a-f]+)"', answer.read().decode())
    assert found
    return found.group(1)
