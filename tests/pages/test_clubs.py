"""The club pages (issue 30): an organiser runs a season from the pages alone (roster, a club night
of three tables, the league table after it, each player's profile) at phone size; a club night
follows two tables live in chromium, also on the big screen; "Play again" on a finished match and
the series' running total; every page axe-clean at phone size and on a desktop.

Photographs: ``TANTEO_SHOTS=/work/tr/shots30`` keeps them as ``clubpages-*.png``."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from playwright.sync_api import Page, expect

from tests.pages.accessibility import serious
from tests.pages.english import english_on
from tests.pages.conftest import record, shoot
from tests.server.conftest import Server

DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The pages' server. A night page follows all its tables with one stream (GET
    /clubs/{id}/nights/{night}/stream); these tests open a dozen night and match pages in a row,
    whose streams the fan-out holds without a worker thread each (api/fanout.py)."""
    server = Server(Path(tmp_path_factory.mktemp("clubs")) / "clubs.db")
    server.start()
    yield server
    server.stop()


def hand(dealer: int, piles: list[int], table: int) -> list[dict[str, Any]]:
    """One Cau Robat hand from the sheet: who dealt, each player's pile, the cards left on the table."""
    return [
        {"type": "hand_started", "data": {"dealer": dealer}},
        {"type": "hand_result", "data": {"piles": piles, "table": table}},
    ]


def won_by(seat: int) -> list[dict[str, Any]]:
    """Three Cau Robat hands of three players, each won by ``seat``: the match is over (3 hand wins)."""
    piles = [8, 8, 8]
    piles[seat] = 22
    return [e for n in range(3) for e in hand(n % 3, piles, 2)]


def club_call(live: Server, key: str, method: str, path: str, body: Any = None) -> Any:
    status, answer = live.call(method, path, body, headers={"Authorization": f"Bearer {key}"})
    assert status in (200, 201), answer
    return answer


def make_club(live: Server, names: list[str], night: str = "Thursday") -> tuple[str, str, list[str], str]:
    """A club made through the JSON API: its id, key, players' ids and one night's id."""
    status, created = live.call("POST", "/clubs", {"name": "Casal"})
    assert status == 201, created
    club, key = created["id"], created["key"]
    added = club_call(
        live,
        key,
        "POST",
        f"/clubs/{club}/events",
        {"events": [{"type": "player_added", "data": {"name": n}} for n in names]},
    )
    club_call(
        live,
        key,
        "POST",
        f"/clubs/{club}/events",
        {"events": [{"type": "night_opened", "data": {"name": night, "date": "2026-11-26"}}]},
    )
    nights = live.call("GET", f"/clubs/{club}")[1]["nights"]
    return club, key, added["made"][: len(names)], nights[-1]["id"]


def table_match(live: Server, club: str, key: str, players: list[str], night: str) -> tuple[str, str]:
    answer = club_call(
        live,
        key,
        "POST",
        f"/clubs/{club}/matches",
        {"match": {"game": "cau-robat", "players": players}, "night": night},
    )
    return answer["id"], answer["token"]


def summary_token(page: Page, match_id: str) -> str:
    """The write key this browser keeps for ``match_id`` (api.js keepToken)."""
    return str(page.evaluate("id => localStorage.getItem(`tanteo:token:${id}`)", match_id))


def checked(page: Page, name: str, *, full_page: bool = True) -> None:
    """Photograph the page and fail on any serious accessibility fault."""
    shoot(page, f"clubpages-{name}", full_page=full_page)
    assert serious(page) == [], name


def test_an_organiser_runs_a_season_from_the_pages(open_page: Callable[..., Page], live: Server) -> None:
    # a club, from the home page's link
    page = open_page("/")
    shoot(page, "clubpages-home-phone")
    page.get_by_role("link", name="Start a club").click()
    checked(page, "new-phone")
    page.get_by_role("button", name="Create the club").click()  # no name yet: said, nothing created
    expect(page.locator("#club-error")).to_have_text("Give the club a name.")
    expect(page.get_by_label("The club's name")).to_be_focused()
    page.get_by_label("The club's name").fill("Casal de Gràcia")
    page.get_by_label("Place (optional)").fill("Gràcia")
    page.get_by_role("button", name="Create the club").click()
    page.wait_for_url(re.compile(r"/c/[^/#]+$"))
    club = page.url.rsplit("/", 1)[1]
    expect(page.locator("#club-said")).to_contain_text("Club created")
    expect(page.locator("#organiser")).to_be_visible()

    # the roster: six players, one renamed; the form just used stays open for the next
    expect(page.locator("#roster-tools")).to_have_attribute("open", "")
    expect(page.get_by_label("Name", exact=True).first).to_be_focused()
    names = ["Núria", "Pere", "Marta", "Jordi", "Anna", "Joan"]
    for name in names:
        page.get_by_label("Name", exact=True).first.fill(name)
        page.get_by_role("button", name="Add the player").click()
        expect(page.locator("#club-said")).to_contain_text(f"{name} joins the club")
    expect(page.locator("#roster-list li")).to_have_count(6)
    page.locator("#rename-who").select_option(label="Joan")
    page.get_by_label("New name").fill("Joana")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator("#club-said")).to_contain_text("Renamed: Joana")
    # hidden from public lists: the organiser still sees the entry, marked; a reader does not
    page.locator("#hide-who").select_option(label="Marta")
    page.get_by_role("button", name="Hide", exact=True).click()
    expect(page.locator("#club-said")).to_contain_text("Marta is hidden from public lists")
    expect(page.locator("#roster-list li", has_text="Marta").locator(".badge")).to_have_text("hidden")
    reader = open_page(f"/c/{club}")
    expect(reader.locator("#roster-list li")).to_have_count(5)
    expect(reader.locator("#roster-list")).not_to_contain_text("Marta")
    reader.context.close()
    page.locator("#hide-who").select_option(label="Marta (hidden)")
    page.get_by_role("button", name="Show", exact=True).click()
    expect(page.locator("#club-said")).to_contain_text("Marta is shown in public lists again")
    expect(page.locator("#roster-list li", has_text="Marta").locator(".badge")).to_have_count(0)
    # a merge of a player into themself is refused, in the API's words, and nothing changes
    version = live.call("GET", f"/clubs/{club}")[1]["version"]
    page.locator("#merge-who").select_option(label="Pere")
    page.locator("#merge-into").select_option(label="Pere")
    page.get_by_role("button", name="Merge", exact=True).click()
    refusal = page.locator("#merge-players .refusal")
    expect(refusal).to_be_visible()
    key = page.evaluate("id => localStorage.getItem(`tanteo:clubkey:${id}`)", club)
    status, problem = live.call(
        "POST",
        f"/clubs/{club}/events",
        {"events": [{"type": "players_merged", "data": {"player": "p2", "into": "p2"}}]},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert (status, problem["code"]) == (422, "club.merge_self")
    expect(refusal).to_contain_text(problem.get("message") or problem["detail"])
    assert live.call("GET", f"/clubs/{club}")[1]["version"] == version
    checked(page, "club-organiser-phone")

    # a season and a night
    page.get_by_text("Open a night or declare a season").click()
    page.locator("#season-name").fill("Autumn 2026")
    page.locator("#season-from").fill("2026-09-01")
    page.locator("#season-to").fill("2026-12-31")
    page.get_by_role("button", name="Declare the season").click()
    expect(page.locator("#club-said")).to_contain_text("Season declared: Autumn 2026")
    page.locator("#night-name").fill("Thursday")
    page.locator("#night-date").fill("2026-11-26")
    page.get_by_role("button", name="Open the night").click()
    expect(page.locator("#club-said")).to_contain_text("Night opened: Thursday")
    page.get_by_role("link", name="Thursday").click()
    page.wait_for_url(re.compile(r"/c/[^/]+/n/[^/]+$"))

    # three tables of Cau Robat, seated from the roster
    seatings = [["Núria", "Pere", "Marta"], ["Jordi", "Anna", "Joana"], ["Núria", "Jordi", "Anna"]]
    tables: list[tuple[str, str]] = []
    for seating in seatings:
        page.locator("#table-game").select_option("cau-robat")
        expect(page.locator("#seats select")).to_have_count(4)  # four, the usual table, until told otherwise
        page.get_by_role("button", name="Remove the last seat").click()
        expect(page.locator("#seats select")).to_have_count(3)
        for seat, name in enumerate(seating):
            page.locator(f"#seat-{seat}").select_option(label=name)
        page.get_by_role("button", name="Start the table").click()
        expect(page.locator("#table-created")).to_be_visible()
        expect(page.locator("#table-created-title")).to_be_focused()
        link = page.locator("#table-score").get_attribute("href") or ""
        found = re.search(r"/m/([^/]+)/score#token=(.+)$", link)
        assert found, link
        tables.append((found.group(1), found.group(2)))
        if len(tables) == 1:
            checked(page, "night-new-table-phone")
    expect(page.locator(".night-table")).to_have_count(3)
    # each table is scored from the score page its link opens (the key handed over after #):
    # three hands from the paper sheet, each won by the same player: Núria, Joana, Jordi
    for (match_id, token), seating, winner in zip(tables, seatings, [0, 2, 1]):
        scorer = open_page(f"/m/{match_id}/score#token={token}")
        for n in range(1, 4):
            expect(scorer.locator("#entry-title")).to_have_text(f"Enter hand {n} from the sheet")
            for seat, name in enumerate(seating):
                scorer.get_by_label(f"{name}'s pile (cards)").fill("24" if seat == winner else "8")
            scorer.get_by_role("button", name="Check the result").click()
            scorer.get_by_role("button", name="Save the hand").click()
            expect(scorer.locator("#sheet tbody tr[data-hand]")).to_have_count(n)
        assert live.call("GET", f"/matches/{match_id}")[1]["status"] == "over"
        scorer.context.close()
    # the night page follows them: every table over, without a reload
    expect(page.locator(".night-table[data-status='over']")).to_have_count(3, timeout=10000)
    night = page.url.rsplit("/", 1)[1]
    across = live.call("GET", f"/clubs/{club}/table?game=cau-robat&period=night:{night}")[1]
    shown = page.locator("#night-live table.league tbody tr")
    expect(shown).to_have_count(len(across["rows"]))
    assert [r.get_attribute("data-player") for r in shown.all()] == [r["player"] for r in across["rows"]]
    checked(page, "night-phone")

    # the league table after it, on the club page: the season's, as the API ranks it
    page.goto(f"{live.url}/c/{club}")
    page.locator("#league-period").select_option(label="Season: Autumn 2026")
    page.get_by_role("button", name="Show the table").click()
    table = live.call("GET", f"/clubs/{club}/table?game=cau-robat&period=season:s1")[1]
    rows = page.locator("table.league tbody tr")
    expect(rows).to_have_count(6)
    for shown_row, row in zip(rows.all(), table["rows"]):
        assert shown_row.get_attribute("data-player") == row["player"]
        assert shown_row.locator(".who").inner_text() == row["name"]
        assert shown_row.locator("td[data-figure='won']").inner_text() == str(row["won"])
        assert shown_row.locator("td[data-figure='played']").inner_text() == str(row["played"])
    # Núria played two and won one; Jordi played two and won one; Pere played one and won none
    by_name = {r["name"]: r for r in table["rows"]}
    assert (by_name["Núria"]["played"], by_name["Núria"]["won"]) == (2, 1)
    assert (by_name["Jordi"]["played"], by_name["Jordi"]["won"]) == (2, 1)
    assert (by_name["Pere"]["played"], by_name["Pere"]["won"]) == (1, 0)
    expect(page.locator(".rule-said")).to_have_text(table["rule"]["words"])
    expect(page.locator(".tie-breaks li")).to_have_count(len(table["rule"]["order"]))
    checked(page, "club-phone")
    page.get_by_role("link", name="Print").click()
    expect(page.locator("table.league tbody tr")).to_have_count(6)
    checked(page, "table-print-phone")
    page.go_back()

    # each player's profile: Núria's figures, each linked to the matches behind them
    page.locator("table.league .who a", has_text="Núria").click()
    expect(page.locator("h1")).to_contain_text("Núria")
    profile = live.call("GET", f"/clubs/{club}/players/p1")[1]["games"]["cau-robat"]
    assert (profile["played"], profile["won"], profile["handsWon"]) == (2, 1, 3)
    figures = page.locator("#game-cau-robat ~ dl.figures")
    expect(figures.locator("div", has_text="Matches played").locator("dd a")).to_have_text("2")
    expect(figures.locator("div", has_text="Matches won").locator("dd a")).to_have_text("1")
    chart = page.locator("img.profile-chart")
    assert chart.get_attribute("alt")
    assert chart.evaluate("img => img.complete && img.naturalWidth > 0")
    checked(page, "profile-phone")
    figures.locator("div", has_text="Matches won").locator("dd a").click()
    expect(page.locator(".club-matches li")).to_have_count(1)
    expect(page.locator(".club-matches li a")).to_have_attribute("href", f"/m/{tables[0][0]}")
    checked(page, "matches-phone")
    for player in ("p2", "p3", "p4", "p5", "p6"):  # every profile opens and is sound
        page.goto(f"{live.url}/c/{club}/p/{player}")
        expect(page.locator("#game-cau-robat")).to_be_visible()


def test_a_club_night_follows_two_tables_live(open_page: Callable[..., Page], live: Server) -> None:
    club, key, players, night = make_club(live, ["Anna", "Ben", "Carl", "Dora", "Eva", "Fran"])
    first = table_match(live, club, key, players[:3], night)
    second = table_match(live, club, key, players[3:], night)
    for screen in ("", "?screen=1"):
        page = open_page(f"/c/{club}/n/{night}{screen}", DESKTOP)
        expect(page.locator("#live")).to_be_visible()
        page.evaluate("window.stillTheSamePage = true")
        totals = page.locator(f"#table-{first[0]} td.total")
        expect(totals).to_have_text(["0", "0", "0"])
        record(live, *first, *hand(0, [22, 8, 8], 2))
        expect(totals).to_have_text(["1", "0", "0"], timeout=5000)
        record(live, *second, *hand(1, [8, 8, 22], 2))
        expect(page.locator(f"#table-{second[0]} td.total")).to_have_text(["0", "0", "1"], timeout=5000)
        # the standings across the tables follow too
        expect(page.locator("table.league tbody tr").first.locator(".who")).to_have_text(re.compile("Anna|Fran"))
        assert page.evaluate("window.stillTheSamePage") is True  # no reload
        if screen:
            expect(page.locator("header.top")).to_be_hidden()
            assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 24
        checked(page, f"night-live-desktop{'-screen' if screen else ''}", full_page=False)
        page.context.close()  # let go of its two streams before the next page opens its own
        first = table_match(live, club, key, players[:3], night)
        second = table_match(live, club, key, players[3:], night)


def test_play_again_and_the_series(open_page: Callable[..., Page], live: Server) -> None:
    club, key, players, night = make_club(live, ["Anna", "Ben", "Carl"])
    match_id, token = table_match(live, club, key, players, night)
    record(live, match_id, token, *won_by(1))
    page = open_page(f"/m/{match_id}/score#token={token}")  # this phone holds the key
    page.goto(f"{live.url}/m/{match_id}")
    again = page.get_by_role("button", name="Play again")
    expect(again).to_be_visible()
    checked(page, "match-again-phone", full_page=False)
    again.click()
    page.wait_for_url(re.compile(r"/m/[^/]+/score$"))
    new_id = page.url.split("/")[-2]
    assert new_id != match_id
    status, summary = live.call("GET", f"/matches/{new_id}")
    assert status == 200 and summary["players"] == ["Anna", "Ben", "Carl"]
    page.goto(f"{live.url}/m/{new_id}")
    line = page.locator("#series-line")
    expect(line).to_contain_text("Match 2 of the series")
    expect(line).to_contain_text("Ben 1 win")
    # a reader without the key sees the series too, and is not offered the next match
    reader = open_page(f"/m/{new_id}")
    expect(reader.locator("#series-line")).to_contain_text("Match 2 of the series")
    record(live, new_id, summary_token(page, new_id), *won_by(2))
    reader.reload()
    expect(reader.locator("#series-line")).to_contain_text("Carl 1 win")
    expect(reader.get_by_role("button", name="Play again")).to_be_hidden()
    # the key's holder followed the match live to its end: the next one is offered without a reload
    expect(page.get_by_role("button", name="Play again")).to_be_visible()


def test_the_club_pages_on_a_desktop(open_page: Callable[..., Page], live: Server) -> None:
    club, key, players, night = make_club(live, ["Anna", "Ben", "Carl", "Dora"])
    match_id, token = table_match(live, club, key, players[:3], night)
    record(live, match_id, token, *won_by(0))
    table_match(live, club, key, players[1:], night)
    page = open_page(f"/c/{club}#key={key}", DESKTOP)
    expect(page.locator("#organiser")).to_be_visible()
    assert "key=" not in page.url  # the key left the address bar for this browser's storage
    checked(page, "club-organiser-desktop")
    for path, name in [
        (f"/c/{club}/n/{night}", "night-desktop"),
        (f"/c/{club}/p/{players[0]}", "profile-desktop"),
        (f"/c/{club}/matches?player={players[0]}&game=cau-robat", "matches-desktop"),
        (f"/c/{club}/table?game=cau-robat&period=all", "table-print-desktop"),
        ("/clubs/new", "new-desktop"),
    ]:
        page.goto(live.url + path)
        checked(page, name)
    # dark and high contrast: every page still reads (axe checks the contrast of every text)
    for scheme, contrast, theme in (("dark", "no-preference", "dark"), ("light", "more", "contrast")):
        page.emulate_media(color_scheme=scheme, contrast=contrast)  # type: ignore[arg-type]
        for path, name in [
            (f"/c/{club}", "club"),
            (f"/c/{club}/n/{night}?screen=1", "night-screen"),
            (f"/c/{club}/p/{players[0]}", "profile"),
        ]:
            page.goto(live.url + path)
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            checked(page, f"{name}-{theme}-desktop", full_page=False)
    page.emulate_media(color_scheme="light", contrast="no-preference")
    reader = open_page(f"/c/{club}")
    expect(reader.locator("#organiser")).to_be_hidden()
    expect(reader.locator("#roster-tools")).to_be_hidden()
    checked(reader, "club-reader-phone")
    # the CSV is the API's
    csv = reader.locator("a", has_text="CSV").get_attribute("href")
    assert csv == f"/clubs/{club}/table?game=cau-robat&period=all&format=csv"
    with urllib.request.urlopen(live.url + csv) as answer:
        assert answer.headers.get_content_type() == "text/csv"
        assert "Anna" in answer.read().decode()
    # the printable table on paper: no header, no buttons, the table and its rule
    reader.goto(f"{live.url}/c/{club}/table?game=cau-robat&period=all")
    reader.emulate_media(media="print")
    expect(reader.locator("header.top")).to_be_hidden()
    expect(reader.get_by_role("button", name="Print")).to_be_hidden()
    expect(reader.locator("table.league tbody tr")).to_have_count(4)
    shoot(reader, "clubpages-table-printed-phone", full_page=True)


def test_the_club_pages_speak_catalan_spanish_and_german(
    chromium: Any, live: Server, open_page: Callable[..., Page]
) -> None:
    club, key, players, night = make_club(live, ["Núria", "Pere", "Marta", "Jordi"], "Dijous")
    match_id, token = table_match(live, club, key, players[:3], night)
    record(live, match_id, token, *won_by(0))
    table_match(live, club, key, players[1:], night)
    for lang in ("ca", "es", "de"):
        # what the API itself says (the ranking rule's words) is the core's to translate, not these pages'
        api_said = live.call("GET", f"/clubs/{club}/table?game=cau-robat&lang={lang}")[1]["rule"]["words"]
        for path in (
            f"/c/{club}?lang={lang}#key={key}",
            f"/c/{club}/n/{night}?lang={lang}#key={key}",
            f"/c/{club}/n/{night}?lang={lang}&screen=1",
            f"/c/{club}/p/{players[0]}?lang={lang}",
            f"/c/{club}/matches?player={players[0]}&won=true&lang={lang}",
            f"/c/{club}/table?game=cau-robat&lang={lang}",
            f"/clubs/new?lang={lang}",
        ):
            page = open_page(path)
            assert page.evaluate("document.documentElement.lang") == lang
            if "#key=" in path and "/n/" not in path:
                expect(page.locator("#organiser")).to_be_visible()
            if "#key=" in path and "/n/" in path:
                expect(page.locator("#new-table")).to_be_visible()
            left = [text for text in english_on(page, lang) if text != api_said]
            assert left == [], (path, left)
            assert serious(page) == [], path
            if lang == "ca" and "screen" not in path:
                shoot(
                    page,
                    "clubpages-ca-" + path.split("?")[0].replace(club, "club").strip("/").replace("/", "-"),
                    full_page=True,
                )
            page.context.close()
