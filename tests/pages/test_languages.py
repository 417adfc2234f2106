"""Choosing the language from a page (issue 28): the selector on every page, worked with the keyboard,
remembered by the browser, the page's ``lang`` set and its words in the chosen language."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from tests.pages.accessibility import serious
from tests.pages.conftest import PHONE
from tests.server.conftest import Server


def test_a_reader_switches_language_with_the_keyboard(chromium: Browser, speaking: Server, tmp_path: Path) -> None:
    context = chromium.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    page.set_default_timeout(10000)
    page.goto(speaking.url + "/rules")
    assert page.get_attribute("html", "lang") == "en"
    assert page.locator("h1").inner_text() == "Rules"
    page.get_by_label("Language").focus()
    page.keyboard.press("ArrowDown")  # the options are named in their own language: Català, Español, Deutsch
    page.get_by_label("Language").select_option(label="Deutsch")
    page.get_by_role("button", name="Change").press("Enter")
    page.wait_for_url("**lang=de")
    assert page.get_attribute("html", "lang") == "de"
    assert page.locator("h1").inner_text() == "Spielregeln"
    assert page.get_by_role("link", name="Neue Partie").is_visible()
    assert serious(page) == []
    page.screenshot(path=str(tmp_path / "rules-de-phone.png"), full_page=True)
    # remembered: the next page opened without ?lang= is German too, whatever the browser says
    page.goto(speaking.url + "/rules")
    assert page.get_attribute("html", "lang") == "de"
    context.close()


def test_the_browser_language_is_the_default(chromium: Browser, speaking: Server) -> None:
    context = chromium.new_context(viewport=PHONE, locale="ca-ES")
    page = context.new_page()
    page.goto(speaking.url + "/rules")
    assert page.get_attribute("html", "lang") == "ca"
    assert page.locator("h1").inner_text() == "Reglament"
    assert page.get_by_label("Idioma").input_value() == "ca"
    context.close()
