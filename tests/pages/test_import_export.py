"""Import a file from the home page and export a match from its scoring page, as a player does.

The page sends the file to POST /matches/import and says what happened: the matches imported
(writable from this browser), those already here, every problem by line and column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import re
import urllib.request
from datetime import datetime
from zoneinfo import ZoneInfo

from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import PHONE, new_match, record
from tests.pages.accessibility import serious
from tests.server.conftest import Server
from tests.pages.club_night import CLUB_NIGHT

# a La Cabra evening written by hand: two deals, then a third dealt by the wrong player (line 9)
BAD_LINE = 9


def choose(page: Page, path: Path) -> None:
    """Pick the file with the keyboard-reachable input that the "Import a file" label names."""
    page.get_by_label("Import a file").set_input_files(str(path))


def test_a_text_file_imports_its_valid_prefix_and_names_the_error(
    open_page: Callable[..., Page], live: Server, tmp_path: Path
) -> None:
    path = tmp_path / "club-night.tnt"
    path.write_text(CLUB_NIGHT, encoding="utf-8")
    home = open_page("/")
    choose(home, path)
    report = home.locator("#import-report")
    expect(report.get_by_role("heading", level=2)).to_have_text("Imported from club-night.tnt")
    expect(report.locator(".summary")).to_have_text("1 match imported, 1 problem in the file.")
    problem = report.locator(".problems li")
    expect(problem).to_have_count(1)
    expect(problem).to_contain_text(f"Line {BAD_LINE}, column")
    link = report.locator(".imported a")
    expect(link).to_have_text("Club night, imported")
    match_id = link.get_attribute("href").split("/")[2]
    summary = live.call("GET", f"/matches/{match_id}")[1]
    assert summary["version"] == 5  # match_started and the two deals before line 9
    expect(report.locator(".imported li")).to_contain_text("5 entries recorded")
    expect(report.locator(".imported li")).to_contain_text(f"before line {BAD_LINE} were recorded")
    expect(home.locator("#match-list .match").first).to_contain_text("Club night, imported")  # the list is up to date
    assert serious(home) == []

    link.click()
    expect(home.locator("#access")).to_contain_text("You can score this match from this phone.")
    expect(home.locator("#entry")).to_be_visible()
    expect(home.locator("#sheet tbody tr[data-hand]")).to_have_count(2)


def test_a_file_with_nothing_to_import_shows_every_problem(
    open_page: Callable[..., Page], live: Server, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text('[Game "bridge"]\n[Players "A" "B"]\n', encoding="utf-8")
    before = live.call("GET", "/matches")[1]["total"]
    home = open_page("/")
    choose(home, path)
    report = home.locator("#import-report")
    expect(report.get_by_role("heading", level=2)).to_have_text("Nothing imported from notes.txt")
    expect(report.locator(".problems li")).to_contain_text("Line 1, column 7: 'bridge' is not a game Tanteo knows")
    expect(report.locator(".imported")).to_have_count(0)
    assert live.call("GET", "/matches")[1]["total"] == before


CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "title": "Exported evening"}


def test_an_exported_archive_imported_again_is_already_here(
    open_page: Callable[..., Page], live: Server, tmp_path: Path
) -> None:
    match_id, token = new_match(live, CABRA)
    record(
        live,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 3, "hands": [["??"] * 4] * 4, "trump": "QS"}},
        {"type": "lead", "data": {"seat": 0, "cards": ["9H", "KH"]}},
    )
    score = open_page(f"/m/{match_id}/score#token={token}")
    expect(score.locator("#access")).to_contain_text("You can score")
    with score.expect_download() as archive:
        score.get_by_role("link", name="archive (.jsonl)").click()
    saved = tmp_path / archive.value.suggested_filename
    archive.value.save_as(saved)
    assert saved.suffix == ".jsonl"
    assert archive.value.url.startswith("blob:")  # fetched with the key in a header, never in a URL
    with score.expect_download() as text:
        score.get_by_role("link", name="text (.tnt)").click()
    text.value.save_as(tmp_path / "evening.tnt")
    assert (tmp_path / "evening.tnt").read_text(encoding="utf-8").startswith('[Game "la-cabra"]')

    home = open_page("/")
    choose(home, saved)
    report = home.locator("#import-report")
    expect(report.get_by_role("heading", level=2)).to_have_text(f"Nothing imported from {saved.name}")
    expect(report.locator(".summary")).to_have_text("1 match was already here.")
    expect(report.locator(".unchanged li")).to_contain_text("already present, unchanged")
    expect(report.locator(".unchanged a")).to_have_attribute("href", f"/m/{match_id}/score")
    # the same archive renamed .txt is recognised by its first character
    renamed = tmp_path / "backup.txt"
    renamed.write_bytes(saved.read_bytes())
    choose(home, renamed)
    expect(report.get_by_role("heading", level=2)).to_have_text("Nothing imported from backup.txt")
    expect(report.locator(".summary")).to_have_text("1 match was already here.")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 3


def test_without_the_key_the_export_is_a_plain_link(open_page: Callable[..., Page], live: Server) -> None:
    match_id, _token = new_match(live, CABRA)
    score = open_page(f"/m/{match_id}/score")
    expect(score.locator("#export-note")).to_contain_text("left out")
    assert (
        score.get_by_role("link", name="text (.tnt)").get_attribute("href") == f"/matches/{match_id}/export?format=text"
    )


def test_the_report_closes_and_the_keyboard_reaches_the_file_input(
    open_page: Callable[..., Page], tmp_path: Path
) -> None:
    path = tmp_path / "club-night.tnt"
    path.write_text(CLUB_NIGHT, encoding="utf-8")
    home = open_page("/")
    home.get_by_role("link", name="New match").first.focus()
    for _ in range(6):  # past the language selector, now on every page
        home.keyboard.press("Tab")
        if home.evaluate("document.activeElement.id") == "import-file":
            break
    assert home.evaluate("document.activeElement.id") == "import-file"
    choose(home, path)
    report = home.locator("#import-report")
    expect(report.locator(".imported .game")).to_have_text("La Cabra")
    report.get_by_role("button", name="Close this report").click()
    expect(report).to_be_hidden()
    assert home.evaluate("document.activeElement.id") == "import-file"


def test_the_list_says_when_a_match_last_changed_in_the_readers_own_time(chromium: Browser, live: Server) -> None:
    """The server stores UTC; a club in Barcelona reads its own clock (the page without scripts says UTC)."""
    match_id, _ = new_match(live, {"game": "cabo", "players": ["Anna", "Ben"]})
    with urllib.request.urlopen(live.url + "/") as response:
        html = response.read().decode()
    stamp = re.search(r'<time datetime="([^"]+)">([^<]+)</time>', html)
    assert stamp is not None and stamp.group(2).endswith(" UTC")
    utc = datetime.fromisoformat(stamp.group(1).replace("Z", "+00:00"))
    for zone in ("Europe/Madrid", "America/Santiago"):
        context = chromium.new_context(viewport=PHONE, timezone_id=zone, locale="en-US")
        try:
            page = context.new_page()
            page.goto(live.url + "/")
            shown = page.locator("#match-list time").first
            local = utc.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
            expect(shown).to_have_text(local)
            assert shown.get_attribute("title") == stamp.group(2)
        finally:
            context.close()
    assert match_id in html
