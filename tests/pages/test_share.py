"""The Share button of the match page and the sheet (issue 29, "Share"), in headless chromium against a
real ``tanteo serve``: with the Web Share API it sends the match's public link and its one-line result
(the page's og:description) in the reader's language; without it the link is copied and "Link copied"
said in the status line; where copying fails too, the link is shown selected in a field. The preview
image the og:image tag names answers a PNG whose pixels are not blank. Screenshots of the preview
image and the confirmation go to screenshots/ (or TANTEO_SHOTS), to be looked at."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

from PIL import Image
from playwright.sync_api import Page, expect

from tests.pages.accessibility import serious
from tests.pages.conftest import SHOTS, shoot, new_match, record
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server

DESKTOP = {"width": 1280, "height": 900}

RECORDING = "window.__shared = []; navigator.canShare = () => true; navigator.share = async (data) => { window.__shared.push(data); };"
NO_SHARE = "Object.defineProperty(Navigator.prototype, 'share', { value: undefined, configurable: true });"
NO_CLIPBOARD = (
    NO_SHARE + "navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));"
)


def shot(page: Page, name: str) -> None:
    shoot(page, f"t-share-{name}")


def cabo(live: Server) -> str:
    start, events = MATCHES["cabo"]
    match_id, token = new_match(live, start)
    record(live, match_id, token, *events)
    return match_id


def with_script(page: Page, script: str) -> Page:
    """The page again, with ``script`` run before its own (a stub of the browser's share or clipboard)."""
    page.add_init_script(script)
    page.reload()
    return page


def test_share_sends_the_public_link_and_the_result_line(open_page: Callable[..., Page], live: Server) -> None:
    match_id = cabo(live)
    for path, lang, words in (
        (f"/m/{match_id}", "en", "after 1 hand (in play)"),
        (f"/m/{match_id}/sheet", "ca", "(en joc)"),
    ):
        page = with_script(open_page(f"{path}?lang={lang}"), RECORDING)
        description = page.locator('meta[property="og:description"]').get_attribute("content") or ""
        assert words in description and "Anna 35 – Ben 93 – Carl 50 – Dora 40" in description
        page.get_by_role("button", name="Share" if lang == "en" else "Comparteix").click()
        expect(page.locator("#share-status")).to_have_text("Shared." if lang == "en" else "Compartit.")
        shared = page.evaluate("window.__shared")
        assert shared == [{"title": "Cabo", "text": description, "url": f"{live.url}/m/{match_id}"}]


def test_without_web_share_the_link_is_copied(open_page: Callable[..., Page], live: Server) -> None:
    match_id = cabo(live)
    for path, lang, said in (
        (f"/m/{match_id}", "en", "Link copied: paste it in your chat."),
        (f"/m/{match_id}/sheet", "de", "Link kopiert: Füge ihn im Chat ein."),
    ):
        page = open_page(f"{path}?lang={lang}")
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
        with_script(page, NO_SHARE)
        assert page.evaluate("typeof navigator.share") == "undefined"
        page.locator("#share-button").focus()
        page.keyboard.press("Enter")  # the keyboard reaches it
        expect(page.locator("#share-status")).to_have_text(said)
        assert page.evaluate("navigator.clipboard.readText()") == f"{live.url}/m/{match_id}"
        expect(page.locator("#share-copy")).to_be_hidden()
        if lang == "en":
            page.set_viewport_size(DESKTOP)
            shot(page, "copied-desktop")
            page.set_viewport_size({"width": 390, "height": 844})
            page.locator("#share-button").scroll_into_view_if_needed()
            shot(page, "copied-phone")
        assert serious(page) == []


def test_where_copying_fails_the_link_is_shown_selected(open_page: Callable[..., Page], live: Server) -> None:
    match_id = cabo(live)
    page = with_script(open_page(f"/m/{match_id}"), NO_CLIPBOARD)
    page.get_by_role("button", name="Share").click()
    expect(page.locator("#share-status")).to_have_text("Copy the link from the field below: it is selected.")
    field = page.get_by_label("Copy this link to share the match (it is selected):")
    expect(field).to_be_visible()
    expect(field).to_be_focused()
    expect(field).to_have_value(f"{live.url}/m/{match_id}")
    assert page.evaluate("[document.activeElement.selectionStart, document.activeElement.selectionEnd]") == [
        0,
        len(f"{live.url}/m/{match_id}"),
    ]
    shot(page, "selected-phone")
    assert serious(page) == []


def test_the_preview_image_is_the_standings(open_page: Callable[..., Page], live: Server) -> None:
    match_id = cabo(live)
    page = open_page(f"/m/{match_id}")
    image = page.locator('meta[property="og:image"]').get_attribute("content") or ""
    assert image.startswith(f"/m/{match_id}/card.png?lang=en")  # absolute once --public-url is set
    answer = page.request.get(live.url + image)
    assert answer.status == 200 and answer.headers["content-type"] == "image/png"
    picture = Image.open(io.BytesIO(answer.body())).convert("RGB")
    assert picture.size == (1200, 630)
    seen = {rgb for _, rgb in picture.getcolors(maxcolors=1 << 20) or []}
    assert len(seen) > 50
    assert {(0x1F, 0x5F, 0xA8), (0xC0, 0x39, 0x2B), (0x1D, 0x7A, 0x3A), (0x8A, 0x5A, 0x00)} <= seen  # four series
    SHOTS.mkdir(parents=True, exist_ok=True)
    picture.save(SHOTS / "t-share-preview-cabo.png")
    # the result card to download is the same picture, in the page's language
    link = page.get_by_role("link", name="Download the result card")
    assert link.get_attribute("download") == f"tanteo-{match_id}.png"
    with page.expect_download() as download:
        link.click()
    assert Path(download.value.path()).read_bytes() == answer.body()
    catalan = page.request.get(f"{live.url}/m/{match_id}/card.png?lang=ca")
    Image.open(io.BytesIO(catalan.body())).save(SHOTS / "t-share-preview-cabo-ca.png")
