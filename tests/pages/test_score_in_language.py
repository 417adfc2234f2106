"""The score page and the match page in Catalan, Spanish and German (issue 28): a hand of each game
recorded through the score page at phone size, then both pages read, with no English word of the
pages' own, the page's ``lang``, the API's answers to the page's scripts in the same language, and
axe clean.

The words the server sends (the games' served form words, the engines' narration, score lines and
refusals) are converted by the engines' own work; until it lands, what the server itself answered in
English for this very language is recognised precisely (the served strings, and the form templates
with their ``{names}`` filled) and set apart, so that only this page's words are held here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.accessibility import serious
from tests.pages.conftest import PHONE, new_match, shoot, watch_csp
from tests.languages import is_prose, strings
from tests.pages.english import english_on, english_words
from tests.server.conftest import Server

LANGS = ("ca", "es", "de")
PLAYERS = ["Anna", "Ben", "Carla", "Dora"]


def cabo(page: Page) -> None:
    for seat, total in enumerate((10, 7, 15, 7)):
        page.fill(f"#sum-{seat}", str(total))
    page.locator("#sheet-form [role=group]").nth(1).locator("button[data-value='0']").click()  # called CABO


def kabu(page: Page) -> None:
    for seat, value in enumerate((9, 7, 0, 7)):
        page.fill(f"#value-{seat}", str(value))


def el_roby(page: Page) -> None:
    page.locator("#sheet-form [role=group]").nth(1).locator("button[data-value='0']").click()  # made Roby
    for seat, points in enumerate((0, 35, 28, 2)):
        page.fill(f"#left-{seat}", str(points))


def cau_robat(page: Page) -> None:
    for seat, count in enumerate((12, 10, 10, 8)):
        page.fill(f"#pile-{seat}", str(count))


def la_cabra(page: Page) -> None:
    page.fill("#card-points-0", "50")


GAMES: dict[str, tuple[dict[str, Any], Callable[[Page], None]]] = {
    "cabo": ({"game": "cabo", "players": PLAYERS}, cabo),
    "kabu": ({"game": "kabu", "players": PLAYERS}, kabu),
    "el-roby": ({"game": "el-roby", "players": PLAYERS}, el_roby),
    "cau-robat": ({"game": "cau-robat", "players": PLAYERS}, cau_robat),
    "la-cabra": ({"game": "la-cabra", "players": PLAYERS, "teams": [[0, 2], [1, 3]]}, la_cabra),
}


def served_english(live: Server, match_id: str, game: str, lang: str) -> tuple[set[str], list[re.Pattern[str]]]:
    """What the server answered in English when asked in ``lang``: the strings of the match's reads
    and of the game's description that it said as in English, and the game's served form templates
    among them (``{seat} draws``) as patterns a filled-in template matches whole."""
    said: set[str] = set()
    for path in (
        f"/games/{game}",
        f"/matches/{match_id}",
        f"/matches/{match_id}/audit",
        f"/matches/{match_id}/legal-moves",
    ):
        english = live.call("GET", f"{path}?lang=en")[1]
        other = live.call("GET", f"{path}?lang={lang}")[1]
        said |= {text for text in set(strings(english)) & set(strings(other)) if re.search("[a-z]{3}", text)}
    templates = [
        re.compile(".+".join(re.escape(part) for part in re.split(r"\{\w+\}", text)))
        for text in said
        if "{" in text and is_prose(re.sub(r"\{\w+\}", "", text))
    ]
    return {text for text in said if "{" not in text}, templates


def catalan_word(text: str) -> bool:
    """A text taken for English only because a Catalan word with a middle dot was cut in two there
    ("Cancel·la" read as "Cancel" and "la"): ``english_words`` splits words at the "·"."""
    return "·" in text and not english_words(re.sub(r"\w+(?:·\w+)+", "", text))


def own_english(page: Page, lang: str, served: tuple[set[str], list[re.Pattern[str]]]) -> list[str]:
    """The English left on the page that the server did not send in English itself."""
    said, templates = served
    return [
        text
        for text in english_on(page, lang)
        if not catalan_word(text)
        and text not in said  # a served word ("Table", a deal's place)
        and not any(s in text for s in said if is_prose(s))  # a served sentence, also within the page's ("Anna 0: …")
        and not any(t.fullmatch(text) for t in templates)
    ]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", list(GAMES))
def test_a_hand_recorded_and_read_in_the_readers_language(
    chromium: Browser, speaking: Server, tmp_path: Path, game: str, lang: str
) -> None:
    body, fill = GAMES[game]
    match_id, token = new_match(speaking, body)
    # the browser says English: the page's ?lang= (then its cookie) chooses, for the page and its scripts' reads
    context = chromium.new_context(viewport=PHONE, locale="en-GB")
    errors: list[str] = []
    languages: dict[str, str] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(10000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        watch_csp(page, errors)

        def keep(response: Any) -> None:
            if "/matches/" in response.url or "/games/" in response.url:
                languages[response.url] = response.headers.get("content-language", "")

        page.on("response", keep)
        page.goto(f"{speaking.url}/m/{match_id}/score?lang={lang}#token={token}")
        assert page.get_attribute("html", "lang") == lang
        expect(page.locator("#sheet-form input").first).to_be_visible()
        fill(page)
        page.locator("#check-hand").click()
        expect(page.locator("#preview .box")).to_be_visible()
        page.locator("#save-hand").click()
        expect(page.locator("#sheet tbody tr[data-hand='1'].status-scored")).to_be_visible()
        expect(page.locator("#history li")).to_have_count(3)  # the match, the deal, the hand's result
        assert speaking.call("GET", f"/matches/{match_id}")[1]["version"] == 3
        page.locator("#sheet tbody tr[data-hand='1'] .claim-open").click()  # the table's row open: its words too
        row = page.locator("tr.claim-row")
        row.locator("input").first.fill("99")  # the paper sheet says otherwise: the row says where, before saving
        expect(row.locator(".claim-verdict")).not_to_be_empty()
        page.locator("#legal button[data-move-type='hand_started']").first.click()  # the deal, card by card
        place = page.locator("#deal-area .seatrow button.card").first
        place.click()  # the first player's first card: the picker offers the deck, each card named in the language
        expect(page.locator("#deal-area .picker button.card").first).to_be_visible()

        served = served_english(speaking, match_id, game, lang)
        assert own_english(page, lang, served) == [], f"{game} score page in {lang}"
        assert serious(page) == []
        assert {url: said for url, said in languages.items() if said != lang} == {}
        shoot(page, f"score-{game}-{lang}", full_page=True)
        page.locator("#deal-area .picker button.card").first.click()  # the place now holds that card, named so
        expect(place).not_to_have_attribute("data-card", "??")
        label = place.get_attribute("aria-label") or ""  # "{seat} card {n}: {card}", the game's served words around it
        assert english_words(label.rsplit(": ", 1)[-1]) == [], label

        row.locator(".claim-actions .button.primary").click()  # what the table wrote, saved: the audit compares it
        expect(page.locator("#history li")).to_have_count(4)
        head = speaking.call("GET", f"/matches/{match_id}/events")[1]["events"][1]["hash"]
        dispute = {"hand": 1, "field": "points", "seat": 1, "reason": "Ben"}
        auth = {"Authorization": f"Bearer {token}"}
        assert (
            speaking.call(
                "POST", f"/matches/{match_id}/events", {"events": [{"type": "dispute", "data": dispute}]}, auth
            )[0]
            == 201
        )
        page.goto(f"{speaking.url}/m/{match_id}?lang={lang}&head={head}")  # a sheet printed at entry 2
        assert page.get_attribute("html", "lang") == lang
        expect(page.locator("#audit-sheet")).to_be_visible()
        expect(page.locator("#divergence")).to_be_visible()
        expect(page.locator("#printed-head")).to_be_visible()
        expect(page.locator("#disputes li")).to_have_count(1)
        served = served_english(speaking, match_id, game, lang)
        assert own_english(page, lang, served) == [], f"{game} match page in {lang}"
        assert serious(page) == []
        shoot(page, f"match-{game}-{lang}", full_page=True)
    finally:
        context.close()
    assert errors == []
