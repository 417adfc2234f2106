"""The home page, the import report, the new-match page, the dispute desk and the replay in Catalan,
Spanish and German (issue 28), at phone size: each page and what its script builds (the import
report, the game list and its options, the seating sentences, the desk's claims, rulings,
corrections and previews, the replay's controls, jump list and position) read with no English word
of the page's own, ``<html lang>`` the language, the scripts' reads answered in it, axe clean.

What another part of Tanteo says on these pages is converted there, and until it lands it may still
be English in this branch: the words the server sends (the engines' narration, score lines and
refusals, the games' decks and option sentences) are recognised as what the server itself answered in
English for this very language, and the words other page modules draw (the move forms, the table,
the option names of ``words.js``) by their own literals. Both are set apart precisely, so that only
these pages' words are held here.
"""

from __future__ import annotations

import functools
import re
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Browser, Page, expect

from api import i18n
from engines.cards import spoken_names
from tests.pages.accessibility import serious
from tests.pages.club_night import CLUB_NIGHT
from tests.pages.conftest import PHONE, new_match, record, shoot, watch_csp
from tests.languages import strings
from tests.pages.english import english_on, english_words
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server

LANGS = ("ca", "es", "de")
STATIC = Path(i18n.__file__).parent / "static"
MINE = {"home.js", "new.js", "desk.js", "replay.js", "docs.js", "print.js", "say.js"}
"""The scripts of these pages: every other module's words are another part's work."""


@functools.lru_cache(maxsize=None)
def catalog(lang: str) -> dict[str, Any]:
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {(m.id[0] if isinstance(m.id, tuple) else m.id): m.string for m in read_po(f, locale=lang) if m.id}


def say(lang: str, msgid: str, **parts: Any) -> str:
    """A page's sentence as the catalog says it in ``lang`` (what a reader of that language sees)."""
    text = catalog(lang)[msgid]
    text = text[0] if isinstance(text, tuple) else text
    return str(text % parts) if parts else str(text)


def say_n(lang: str, one: str, n: int, **parts: Any) -> str:
    """A page's sentence that names a count, in the plural form ``lang`` needs for ``n`` (Catalan and
    Spanish write "many" only for millions; German has two forms)."""
    forms = catalog(lang)[one]
    return str((forms[0] if n == 1 else forms[-1]) % {"n": n, "num": n, **parts})


def served_english(live: Server, paths: list[str], lang: str, token: str | None = None) -> set[str]:
    """What the server answered in English when asked in ``lang``: the strings of these reads that
    read the same in both (the engines' narration and score lines, game descriptions; the players'
    own words, notes and reasons, are the same in every language too)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    said: set[str] = set()
    for path in paths:
        join = "&" if "?" in path else "?"
        english = live.call("GET", f"{path}{join}lang=en", headers=headers)[1]
        other = live.call("GET", f"{path}{join}lang={lang}", headers=headers)[1]
        said |= {text for text in set(strings(english)) & set(strings(other)) if re.search("[A-Za-z]{3}", text)}
    return said


LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`((?:[^`\\]|\\.)*)`')


def whole(pieces: list[str]) -> re.Pattern[str]:
    """A text made of ``pieces`` with anything between them, never starting or ending inside a word."""
    body = ".+?".join(re.escape(piece) for piece in pieces)
    start = r"(?<!\w)" if re.match(r"\w", pieces[0]) else ""
    end = r"(?!\w)" if re.search(r"\w$", pieces[-1]) else ""
    return re.compile(start + body + end)


def template_pieces(text: str) -> list[str]:
    """The literal pieces of a template literal's text, around its ``${…}`` parts (which may hold braces)."""
    pieces, piece, depth, i = [], "", 0, 0
    while i < len(text):
        if depth == 0 and text.startswith("${", i):
            pieces.append(piece)
            piece, depth, i = "", 1, i + 2
            continue
        if depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
        else:
            piece += text[i]
        i += 1
    return [*pieces, piece]


CARDS = re.compile(r"(?<!\w)(?:[2-9]|10|[AJQK]) of (?:clubs|diamonds|hearts|spades)(?!\w)")
"""A French card as cards.js names it in English (its spoken names are the catalog's, ``Q♠``)."""


@functools.lru_cache(maxsize=1)
def other_scripts() -> tuple[tuple[int, re.Pattern[str]], ...]:
    """The words other page modules draw on these pages (the move forms, the table, the option
    names), as patterns: each string or template literal of a script that is not these pages',
    its ``${…}`` parts matching anything. Those modules are translated by their own work."""
    patterns = []
    for path in sorted(STATIC.rglob("*.js")):
        if path.name in MINE or path.name == "qrcode-generator.js":
            continue
        for match in LITERAL.finditer(path.read_text(encoding="utf-8")):
            text = next(group for group in match.groups() if group is not None)
            pieces = template_pieces(text)
            joined = "".join(pieces)
            if re.search("[A-Za-z]{3}", joined) or (" " in joined.strip() and re.search("[A-Za-z]", joined)):
                patterns.append((len(joined), whole(pieces)))
    patterns += [(len(name), whole([name])) for name in spoken_names()]  # a card's face, as cards.js draws it
    patterns.append((len("10 of diamonds"), CARDS))
    return tuple(patterns)


def as_shown(said: str) -> list[tuple[int, re.Pattern[str]]]:
    """How a string the server sent may appear on a page: as it is, as a sentence (a capital first,
    as the new-match page shows an option's description), a served template with its ``{names}``
    filled in (``{player}: points of the hand``)."""
    if len(said) <= 2:
        return []
    if re.search(r"\{\w+\}", said):
        pieces = [piece for piece in re.split(r"\{\w+\}", said)]
        return [(len("".join(pieces)), whole(pieces))] if re.search("[A-Za-z]{3}", "".join(pieces)) else []
    kept = said.removesuffix("; null: no limit")  # the new-match page says the blank field its own way
    return [(len(text), whole([text])) for text in {said, kept, kept[:1].upper() + kept[1:]}]


def own_english(page: Page, lang: str, served: set[str]) -> list[str]:
    """The English left on the page that neither the server nor another page module put there: each
    text ``english_on`` finds, with what the server sent in English and what other modules drew cut
    out of it (the longest first), must still hold an English word to count."""
    cuts = sorted([cut for said in served for cut in as_shown(said)] + list(other_scripts()), key=lambda cut: -cut[0])
    left = []
    for text in english_on(page, lang):
        rest = text
        for _, pattern in cuts:
            rest = pattern.sub(" ", rest)
        rest = re.sub(r"\w+(?:·\w+)+", " ", rest)  # a Catalan word with a middle dot, which english_words cuts in two
        if english_words(rest) or rest.strip() == text:
            left.append(text)
    return left


def no_english(page: Page, lang: str, served: set[str], where: str) -> None:
    left = own_english(page, lang, served)
    assert left == [], f"English left on the {where}:\n" + "\n".join(left)


def no_sideways_scroll(page: Page) -> None:
    """Nothing is wider than the phone: a long word or sentence wraps, it does not push the page."""
    wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wide <= 1, f"the page scrolls sideways by {wide}px"


@pytest.fixture
def reader(chromium: Browser, speaking: Server) -> Iterator[Callable[..., Page]]:
    """Open a page at phone size in a browser that says English (the page's ?lang= chooses, then its
    cookie, for the page and its scripts' reads); the reads' ``Content-Language`` is kept on the page."""
    contexts = []
    errors: list[str] = []

    def opener(path: str) -> Page:
        context = chromium.new_context(viewport=PHONE, locale="en-GB")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
        watch_csp(page, errors)
        # a match in play is followed through its stream; not what is read here, and the server's few
        # stream slots are freed only when it next writes to a closed page's stream
        page.route("**/stream?*", lambda route: route.abort())
        said = READS.setdefault(id(page), {})
        page.on(
            "response",
            lambda r: said.__setitem__(r.url, r.headers.get("content-language", "")) if "/matches" in r.url else None,
        )
        page.goto(speaking.url + path)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert errors == [], f"script errors or server failures: {errors}"


READS: dict[int, dict[str, str]] = {}
"""Each open page's reads of the API, with the language each was answered in."""


def reads_in(page: Page, lang: str) -> dict[str, str]:
    """The scripts' reads of the API not answered in ``lang``."""
    return {url: said for url, said in READS.get(id(page), {}).items() if said and said != lang}


@pytest.mark.parametrize("lang", LANGS)
def test_the_home_page_and_an_import(reader: Callable[..., Page], speaking: Server, tmp_path: Path, lang: str) -> None:
    title = {"ca": "Nit de botifarra", "es": "Noche de cartas", "de": "Kartenabend"}[lang]
    match_id, token = new_match(
        speaking,
        {
            "game": "la-cabra",
            "players": ["Marta", "Pere", "Núria", "Jordi"],
            "title": title,
            "date": "2026-11-21",
            "place": "Gràcia",
            "tags": ["club"],
        },
    )
    record(speaking, match_id, token, {"type": "hand_started", "data": {"dealer": 3}})
    page = reader(f"/?lang={lang}")
    assert page.get_attribute("html", "lang") == lang
    expect(page.get_by_role("searchbox", name=say(lang, "Find matches by player"))).to_be_visible()
    item = page.locator("#match-list .match", has_text=title)
    expect(item).to_contain_text(say_n(lang, "%(num)s entry", 2))
    # the match's day and its last change as the language writes dates, not the server's ISO figures
    day = item.locator("time.day")
    expect(day).not_to_have_text("2026-11-21")
    assert "2026" in day.inner_text()
    if lang == "de":
        assert day.inner_text() == "21.11.2026"
    assert not re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", item.locator("time:not(.day)").inner_text())
    page.locator("details.filter-box summary").click()
    no_english(page, lang, set(), f"home page in {lang}")
    assert serious(page) == []
    no_sideways_scroll(page)
    shoot(page, f"home-{lang}", full_page=True)

    # a text file with a mistake: the valid part imported, the problem by line and column
    path = tmp_path / "club-night.tnt"
    path.write_text(CLUB_NIGHT.replace("Club night, imported", f"{title} 2"), encoding="utf-8")
    answers: list[Any] = []
    page.on("response", lambda r: answers.append(r) if r.url.endswith("/matches/import") else None)
    page.locator("#import-file").set_input_files(str(path))
    report = page.locator("#import-report")
    expect(report.get_by_role("heading", level=2)).to_have_text(say(lang, "Imported from %(file)s", file=path.name))
    expect(report.locator(".summary")).to_contain_text(say_n(lang, "%(n)s match imported", 1))
    expect(report.locator(".problems li")).to_have_count(1)
    expect(report.locator(".imported li")).to_contain_text(say_n(lang, "%(n)s entry recorded", 5))
    # and an archive of a match already here: nothing new, said so
    archive = tmp_path / "backup.jsonl"
    request = urllib.request.Request(
        f"{speaking.url}/matches/{match_id}/export?format=jsonl", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        archive.write_bytes(response.read())
    page.locator("#import-file").set_input_files(str(archive))
    expect(report.get_by_role("heading", level=2)).to_have_text(
        say(lang, "Nothing imported from %(file)s", file=archive.name)
    )
    expect(report.locator(".unchanged li")).to_contain_text(say(lang, "already present, unchanged"))
    expect(report.locator(".unchanged .players")).to_have_text("Marta, Pere, Núria, Jordi")
    # one more, to read the problems' report and the imported list together
    page.locator("#import-file").set_input_files(str(path))
    expect(report.locator(".problems li")).to_have_count(1)
    served = {text for answer in answers for text in strings(answer.json())}
    no_english(page, lang, served, f"import report in {lang}")
    assert serious(page) == []
    no_sideways_scroll(page)
    shoot(page, f"import-{lang}", full_page=True)


NEW: dict[str, tuple[str, str]] = {
    "ca": ("cau-robat", "Nit al casal"),
    "es": ("kabu", "Kabú del jueves"),
    "de": ("la-cabra", "Ziegenabend"),
}
"""The game each language starts through the form: targets (Cau Robat), chips (Kabú), teams (La Cabra)."""


@pytest.mark.parametrize("lang", LANGS)
def test_a_match_started_through_the_new_match_form(
    reader: Callable[..., Page], speaking: Server, tmp_path: Path, lang: str
) -> None:
    game, title = NEW[lang]
    page = reader(f"/new?lang={lang}")
    assert page.get_attribute("html", "lang") == lang
    page.locator(f"#game-{game}").check()
    expect(page.locator("#seating")).to_be_visible()
    expect(page.locator("#diagram-caption")).to_contain_text(say(lang, "%(player)s deals first.", player="Anna"))
    page.locator("#player-1").fill("Montse")
    page.locator("#title").fill(title)
    page.locator("#place").fill("Sants")
    if game == "la-cabra":
        expect(page.locator("#seating-help")).to_contain_text(
            say(lang, "Partners sit opposite: seats 1 and 3 against seats 2 and 4.")
        )
    else:
        page.locator("#add-player").click()
        expect(page.locator("#players li")).to_have_count(5)
    if game == "kabu":  # ten 1s and five 5s and 10s each with five players
        expect(page.locator("#chips-help")).to_contain_text(
            say(
                lang,
                "Each player's chips when the game starts. Usually %(usual)s each with %(n)s players (ten 1s and %(n)s 5s and 10s); change them for a game carried on from paper.",
                usual=85,
                n=5,
            )
        )
    served = served_english(speaking, ["/games", f"/games/{game}"], lang)
    no_english(page, lang, served, f"new {game} match in {lang}")
    assert serious(page) == []
    no_sideways_scroll(page)
    shoot(page, f"new-{lang}", full_page=True)

    page.locator("#create").click()
    expect(page.locator("#created")).to_be_visible()
    expect(page.locator("#created-title")).to_have_text(say(lang, "Match created"))
    expect(page.locator("#handover-where")).to_contain_text("tanteo serve --public-url")
    created = speaking.call("GET", "/matches?perPage=50")[1]["items"]
    mine = next(m for m in created if m.get("title") == title)
    assert mine["game"] == game and "Montse" in mine["players"]
    no_english(page, lang, served, f"new {game} match created, in {lang}")
    assert serious(page) == []
    no_sideways_scroll(page)
    shoot(page, f"created-{lang}", full_page=True)


@pytest.mark.parametrize("lang", LANGS)
def test_a_dispute_ruled_with_a_chain_of_corrections(
    reader: Callable[..., Page], speaking: Server, tmp_path: Path, lang: str
) -> None:
    """El Roby: Bea's hand-1 points corrected keep her under 100, so hand 2, recorded with her out,
    needs a correction too; the desk says so, offers it, previews both and records the ruling."""
    match_id, token = new_match(
        speaking,
        {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "initial": {"scores": [40, 90, 50, 30]}},
    )
    reason = {
        "ca": "Les cartes de la Bea sumaven 8",
        "es": "Las cartas de Bea sumaban 8",
        "de": "Beas Karten ergaben 8",
    }[lang]
    record(
        speaking,
        match_id,
        token,
        {"type": "hand_started", "data": {"dealer": 1}},
        {"type": "hand_result", "data": {"out": 0, "hands": [0, 12, 5, 9]}},
        {"type": "hand_started", "data": {"dealer": 2}},
        {"type": "hand_result", "data": {"out": 2, "hands": [7, None, 0, 4]}},
        {"type": "score_claimed", "data": {"hand": 2, "points": [7, None, 0, 5]}},
        {"type": "dispute", "data": {"hand": 1, "seat": 1, "reason": reason}},
    )
    page = reader(f"/m/{match_id}/dispute?hand=2&lang={lang}#token={token}")
    assert page.get_attribute("html", "lang") == lang
    why = page.locator("#hand-why")
    expect(why).to_contain_text(say(lang, "Hand %(hand)s: computed from the record", hand=2))
    expect(why.locator(".claim.differs")).to_have_count(1)
    # a dispute opened without a reason is refused in words; then opened
    page.locator("#dispute-form button[type=submit]").click()
    expect(page.locator("#dispute-refusal")).to_have_text(say(lang, "Say why the score is contested."))
    page.locator("#d-field").select_option("points")
    page.locator("#d-seat").select_option("3")
    page.locator("#d-reason").fill({"ca": "En Dani en tenia 4", "es": "Dani tenía 4", "de": "Dani hatte 4"}[lang])
    page.locator("#dispute-form button[type=submit]").click()
    expect(page.locator("#disputes li.dispute")).to_have_count(2)

    ruling = page.get_by_role("form", name=say(lang, "Ruling on the dispute of entry %(entry)s", entry=7))
    ruling.locator("input[value=upheld]").check()
    ruled = {"ca": "Ho hem tornat a comptar", "es": "Lo hemos vuelto a contar", "de": "Neu gezählt"}[lang]
    ruling.locator("textarea").fill(ruled)
    first = ruling.locator("fieldset[data-fix='1']")
    expect(first.locator("select").first).to_have_value("3")
    bea = first.locator("input[type=number]").nth(1)
    expect(bea).to_have_value("12")
    bea.fill("8")
    answers: list[Any] = []
    page.on("response", lambda r: answers.append(r) if r.request.method == "POST" else None)
    check = ruling.get_by_role("button", name=say(lang, "Check the ruling"))
    check.click()
    refusal = ruling.locator(".refusal")
    said = say(
        lang,
        "With this correction, entry %(entry)s (%(what)s) no longer fits: %(why)s.",
        entry=5,
        what=say(lang, "hand %(hand)s result", hand=2),
        why="",
    )
    expect(refusal).to_contain_text(said.rstrip(" ."))
    refusal.locator("details.code summary").click()
    expect(refusal.locator("details.code")).to_contain_text(say(lang, "concerns entry %(entry)s", entry=5))
    served = served_english(
        speaking,
        [
            "/games/el-roby",
            f"/matches/{match_id}",
            f"/matches/{match_id}/audit",
            f"/matches/{match_id}/events?limit=100",
        ],
        lang,
        token,
    )
    # the refusal's detail, and the engine's reason the desk quotes from it (what follows its first colon)
    details = {text for answer in answers for text in strings(answer.json())}
    served |= details | {text.split(": ", 1)[1] for text in details if ": " in text}
    no_english(page, lang, served, f"dispute desk in {lang}, a correction refused")
    refusal.get_by_role("button", name=say(lang, "Correct entry %(entry)s too", entry=5)).click()
    second = ruling.locator("fieldset[data-fix='2']")
    expect(second.locator("legend")).to_have_text(say(lang, "Correction %(n)s", n=2))
    second.locator("input[type=number]").nth(1).fill("6")
    check.click()
    preview = ruling.locator(".preview")
    expect(preview.locator("[data-preview-hand='1']")).to_have_text(say(lang, "Hand %(hand)s:", hand=1) + " Bea 12 → 8")
    expect(preview).to_contain_text(say(lang, "Totals:"))
    no_english(page, lang, served, f"dispute desk in {lang}, a ruling previewed")
    assert serious(page) == []
    no_sideways_scroll(page)
    shoot(page, f"desk-{lang}", full_page=True)

    ruling.locator("button[type=submit]").click()
    dispute = page.locator("#disputes li.dispute").first
    expect(dispute).to_contain_text(say(lang, "upheld"))
    expect(dispute.locator(".correction").first).to_have_text(
        say(
            lang,
            "Entry %(entry)s corrected: %(what)s (%(reason)s).",
            entry=3,
            what=say(lang, "hand %(hand)s result", hand=1),
            reason=ruled,
        )
    )
    audit = speaking.call("GET", f"/matches/{match_id}/audit")[1]
    assert [h["points"] for h in audit["hands"]] == [[0, 8, 5, 9], [7, 6, 0, 4]]
    served |= served_english(
        speaking, [f"/matches/{match_id}/audit", f"/matches/{match_id}/events?limit=100"], lang, token
    )
    no_english(page, lang, served, f"dispute desk in {lang}, a ruling recorded")
    assert reads_in(page, lang) == {}
    assert serious(page) == []
    shoot(page, f"desk-ruled-{lang}", full_page=True)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", list(MATCHES))
def test_a_match_replayed(reader: Callable[..., Page], speaking: Server, tmp_path: Path, game: str, lang: str) -> None:
    body, events = MATCHES[game]
    match_id, token = new_match(speaking, body)
    record(speaking, match_id, token, *events)
    replay = f"/matches/{match_id}/replay"
    served = served_english(
        speaking,
        [
            f"{replay}?seat=all",
            f"{replay}?seat=all&course=recorded",
            f"{replay}",
            f"/games/{game}",
            f"/matches/{match_id}",
        ],
        lang,
        token,
    )
    served |= served_english(speaking, [f"{replay}?seat=0"], lang)  # the seat's view refused without the key
    # a seat's view of a match in play, asked without the key: the key asked for
    page = reader(f"/m/{match_id}/replay?seat=0&lang={lang}")
    expect(page.locator("#access")).to_contain_text(
        say(
            lang,
            "The match is in play: a seat's cards are shown only with the match's write key (the scorer's phone keeps it); without it you see what the public sees.",
        )
    )
    expect(page.locator("#token-input")).to_be_visible()
    no_english(page, lang, served, f"{game} replay in {lang}, without the key")

    page = reader(f"/m/{match_id}/replay?at=1&seat=all&lang={lang}#token={token}")
    assert page.get_attribute("html", "lang") == lang
    total = len(events) + 1
    expect(page.locator("#position")).to_have_text(say(lang, "%(n)s of %(total)s", n=1, total=total))
    expect(page.locator("#first")).to_be_disabled()
    for step in range(2, 6):
        page.locator("#next").click()
        expect(page.locator("#position")).to_have_text(say(lang, "%(n)s of %(total)s", n=step, total=total))
    expect(page.locator("#step")).to_have_attribute(
        "aria-valuetext",
        re.compile(re.escape(say(lang, "step %(n)s of %(total)s: %(text)s", n=5, total=total, text=""))),
    )
    page.keyboard.press("End")
    expect(page.locator("#position")).to_have_text(say(lang, "%(n)s of %(total)s", n=total, total=total))
    hands = page.locator("#jump option").all_inner_texts()
    assert hands[0] == say(lang, "A hand or a trick…") and len(hands) > 1
    word = say(lang, "Round %(n)s", n=1) if game == "cabo" else say(lang, "Hand %(n)s", n=1)
    assert any(h.startswith(word) for h in hands), hands
    page.locator("#jump").select_option(index=1)
    page.locator("#course").select_option("recorded")
    expect(page.locator("#moves button.move").first).to_be_visible()
    expect(page.locator("#move .note")).to_contain_text(say(lang, "seen by everyone"))
    no_english(page, lang, served, f"{game} replay in {lang}")
    assert reads_in(page, lang) == {}
    assert serious(page) == []
    no_sideways_scroll(page)
    shoot(page, f"replay-{game}-{lang}", full_page=True)
