"""The hand-over QR code is drawn in the browser: the write key it carries after '#' is sent in no
request. Codes meant for another phone or for paper name the configured public address
(``tanteo serve --public-url``), never the request's Host header; the printed sheet's code holds
the head hash printed beside it (issue 25 item 3)."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Callable, Iterator

import pytest
import segno
from playwright.sync_api import Browser, Page, expect

from api.pages import qr_svg
from tests.pages import qr_read
from tests.pages.conftest import PHONE, new_match, record, watch_csp
from tests.server.conftest import Server

PUBLIC = "http://tanteo.club.example:8080"
CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
HAND = [
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
]
SHEET_QR_TITLE = "QR code: this match's public audit page and the head hash printed here"


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server told the address other phones reach it at."""
    server = Server(Path(tmp_path_factory.mktemp("public")) / "public.db", ["--public-url", PUBLIC + "/"])
    server.start()
    yield server
    server.stop()


def drawn_text(page: Page) -> str | None:
    """The text of the hand-over code drawn on the page (api/static/qr.js: one "M{x} {y}h1v1h-1z" per
    dark module, 2 modules of quiet zone), read module by module."""
    svg = page.locator("#handover-qr svg")
    size = int((svg.get_attribute("viewBox") or "").split()[2]) - 4
    path = svg.locator("path").get_attribute("d") or ""
    return qr_read.read({(int(y) - 2, int(x) - 2) for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", path)}, size)


@pytest.mark.parametrize(
    "text", ["hello", "http://192.168.1.20:8000/m/abc/score#token=" + "k" * 32, "https://tanteo.example/" + "é" * 60]
)
def test_the_reader_reads_codes_another_encoder_drew(text: str) -> None:
    """The reader the tests below use reads segno's codes too, at every version that holds the text."""
    read = []
    for version in range(1, 11):
        try:
            code = segno.make(
                text, error="m", mode="byte", version=version, boost_error=False, micro=False, encoding="utf-8"
            )
        except segno.DataOverflowError:
            continue
        dark = {(r, c) for r, row in enumerate(code.matrix) for c, x in enumerate(row) if x}
        read.append(qr_read.read(dark, len(code.matrix)))
        corner = (len(code.matrix) - 1, len(code.matrix) - 1)  # the first bit of the data: the segment's mode
        assert qr_read.read(dark ^ {corner}, len(code.matrix)) != text
    assert read and set(read) == {text}


def create_on_the_page(page: Page) -> tuple[str, str]:
    """Create a La Cabra match on /new with every option left as it is; return (id, write key)."""
    page.get_by_label("La Cabra").check()
    with page.expect_response(lambda r: r.url.endswith("/matches") and r.request.method == "POST") as created:
        page.get_by_role("button", name="Create the match").click()
    expect(page.locator("#handover-qr svg path")).to_have_count(1)
    return created.value.json()["id"], page.locator("#token").inner_text()


def watch_requests(page: Page) -> list[str]:
    """Every request the page sends, as one text: method, URL, headers and body."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url} {r.headers} {r.post_data or ''}"))
    return sent


def get_html(server: Server, path: str, headers: dict[str, str]) -> str:
    with urllib.request.urlopen(urllib.request.Request(server.url + path, headers=headers), timeout=10) as response:
        return str(response.read().decode("utf-8"))


def test_the_hand_over_code_names_the_public_address_and_the_key_stays_in_the_browser(
    chromium: Browser, public: Server
) -> None:
    context = chromium.new_context(viewport=PHONE, locale="en-US")
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        watch_csp(page, errors)
        sent = watch_requests(page)
        page.goto(public.url + "/new")
        match_id, token = create_on_the_page(page)
        link = f"{PUBLIC}/m/{match_id}/score#token={token}"
        assert drawn_text(page) == link
        expect(page.locator("#handover-where")).to_have_text(
            f"The code opens {PUBLIC}/m/{match_id}/score on the other phone."
        )
        expect(
            page.get_by_role("img", name="QR code: open this match for scoring on another phone, with its write key")
        ).to_be_visible()
        assert token and not any(token in request for request in sent), [r[:120] for r in sent if token in r]
        assert all(request.split(" ", 2)[1].startswith(public.url) for request in sent)  # nothing from outside
        assert errors == []
    finally:
        context.close()


def test_the_hand_over_code_without_a_public_address_uses_the_browsers(
    open_page: Callable[..., Page], live: Server
) -> None:
    page = open_page("/new")
    sent = watch_requests(page)
    match_id, token = create_on_the_page(page)
    assert drawn_text(page) == f"{live.url}/m/{match_id}/score#token={token}"
    expect(page.locator("#handover-where")).to_contain_text("works only on this machine")
    assert not any(token in request for request in sent)


def sheet_qr(html: str) -> str:
    return html[html.index('<div class="qr">') + len('<div class="qr">') : html.index("</svg>") + len("</svg>")]


@pytest.mark.parametrize("configured", [True, False])
def test_a_forged_host_never_reaches_the_printed_sheet(
    configured: bool, public: Server, live: Server, open_page: Callable[..., Page]
) -> None:
    server = public if configured else live
    match_id, token = new_match(server, CABRA)
    record(server, match_id, token, *HAND)
    head = server.call("GET", f"/matches/{match_id}/audit")[1]["chain"]["head"]
    html = get_html(server, f"/m/{match_id}/sheet", {"Host": "evil.example", "X-Forwarded-Host": "evil.example"})
    assert "evil.example" not in html
    base = PUBLIC if configured else ""
    proof = f"{base}/m/{match_id}?head={head}"
    assert (
        sheet_qr(html) == qr_svg(proof, SHEET_QR_TITLE).strip()
    )  # the code holds the link and the head printed beside it
    assert f'href="{proof}"' in html
    assert ('id="no-public-url"' in html) is not configured
    assert "evil.example" not in get_html(server, "/new", {"Host": "evil.example"})
    if not configured:
        page = open_page(f"/m/{match_id}/sheet")
        expect(page.locator("#no-public-url")).to_contain_text(
            "This server was not told the address other phones reach it at"
        )
        page.locator("#proof-link a").click()
        expect(page.locator("#printed-head")).to_contain_text("ends where the record ends, at entry 3")
        record(server, match_id, token, {"type": "hand_started", "data": {"dealer": 0}}, HAND[1])
        page.reload()
        expect(page.locator("#printed-head")).to_contain_text("ended at entry 3; 2 more entries were recorded after it")
        page.goto(f"{live.url}/m/{match_id}?head={'0' * 64}")
        expect(page.locator("#printed-head")).to_contain_text("is not in this record")
