"""The rules as the players read them: ``api/rules/<game>.md``, rendered once, with an anchor per rule.

Each game's page is its own file plus ``common.md`` (recording, corrections, disputes: the
same on every page), written in Markdown. A heading ends with its anchor, ``## Kamikaze
{#scoring-kamikaze}``; the anchors are stable (score lines, refusals and ``GET /games`` link
to them). Under a heading, a line ``Refused: `cabo.second_call`, …`` lists the rule codes
that rule refuses with: this is how a refusal finds the paragraph that explains it. Each code
is explained in exactly one place.

Markdown is rendered by markdown-it-py (CommonMark plus tables); raw HTML in the files is not
passed through. Flask-free: the error table and the pages both read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

RULES_DIR = Path(__file__).resolve().parent / "rules"
COMMON = "common"

_ANCHOR = re.compile(r"\s*\{#([a-z0-9][a-z0-9-]*)\}\s*$")
_CODE = re.compile(r"`((?:common|[a-z]+(?:-[a-z]+)*)\.[a-z_]+)`")


@dataclass(frozen=True)
class Page:
    """One rendered rules page."""

    game: str
    title: str
    html: str
    anchors: frozenset[str]
    codes: dict[str, str]
    """rule code → the anchor of the rule that refuses with it."""
    toc: tuple[tuple[int, str, str], ...]
    """(level, title, anchor) of every heading, for the contents."""
    lang: str = "en"
    """The language the page is written in (``en`` when the translation is missing)."""


def games() -> list[str]:
    """Return the games that have a rules page (every file but ``common.md``)."""
    return sorted(p.stem for p in RULES_DIR.glob("*.md") if p.stem != COMMON)


def _anchors(md: MarkdownIt) -> None:
    """Give each heading written ``Title {#anchor}`` the id ``anchor`` (and drop the braces)."""

    def rule(state: Any) -> None:
        tokens = state.tokens
        for i, token in enumerate(tokens):
            if token.type != "heading_open":
                continue
            inline = tokens[i + 1]
            found = _ANCHOR.search(inline.content)
            if not found:
                continue
            token.attrSet("id", found.group(1))
            inline.content = inline.content[: found.start()]
            last = inline.children[-1] if inline.children else None
            if last is not None and last.type == "text":
                last.content = _ANCHOR.sub("", last.content)

    md.core.ruler.push("heading_anchors", rule)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    _anchors(md)
    return md


def _source(game: str) -> str:
    text = (RULES_DIR / f"{game}.md").read_text(encoding="utf-8")
    if game == COMMON:
        return text
    return text.rstrip() + "\n\n" + (RULES_DIR / f"{COMMON}.md").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def page(game: str) -> Page:
    """Return the rendered rules page of ``game`` (``common``: the recording rules alone).

    Raises:
        KeyError: no rules page for that game.
    """
    if game != COMMON and game not in games():  # the name is only compared, never made a path:
        raise KeyError(game)  # 300 characters were a file name too long (OSError, a 500)
    source = _source(game)
    md = _markdown()
    tokens = md.parse(source)
    toc = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.attrGet("id"):
            toc.append((int(token.tag[1]), tokens[i + 1].content.strip(), str(token.attrGet("id"))))
    anchors = frozenset(a for _, _, a in toc)
    codes: dict[str, str] = {}
    current = ""
    for line in source.splitlines():
        heading = _ANCHOR.search(line) if line.startswith("#") else None
        if heading:
            current = heading.group(1)
        elif line.startswith("Refused:"):
            for code in _CODE.findall(line):
                if code in codes:
                    raise ValueError(f"{game}: {code} is explained twice, at #{codes[code]} and #{current}")
                codes[code] = current
    title = toc[0][1] if toc and toc[0][0] == 1 else "Recording a match"
    return Page(game, title, md.renderer.render(tokens, md.options, {}), anchors, codes, tuple(toc))


def rule_link(code: str, game: str | None = None) -> str | None:
    """Return the link to the rule a refusal's code names: ``/rules/<game>#<anchor>``, or None.

    A game's own code is explained on its page; a ``common.*`` or ``seat.*`` code on every page
    (and on ``/rules/common``), so it links to the match's game when that is known.
    """
    prefix = code.split(".", 1)[0]
    shared = prefix in (COMMON, "seat")  # the seats' codes are every game's, as the common ones
    where = prefix if not shared else (game if game in games() else COMMON)
    try:
        anchor = page(where).codes.get(code)
    except KeyError:
        return None
    return None if anchor is None else f"/rules/{where}#{anchor}"


# The rules in the players' languages (issue 28) ------------------------------------------
#
# A translation of ``rules/<name>.md`` is ``rules/<lang>/<name>.md``: the same headings with
# the same anchors in the same order (the anchors are stable, so every rule link resolves in
# every language), the same codes and notation in backticks. A missing translation falls back
# to the English file, file by file. ``games()`` globs ``rules/*.md`` only, so the language
# folders never count as games.

DEFAULT_LANG = "en"
_LANG = re.compile(r"[a-z]{2}")
_COMMON_TITLES = {
    "en": "Recording a match",
    "ca": "Com s'anota una partida",
    "es": "Cómo se anota una partida",
    "de": "Eine Partie notieren",
}
"""The title of ``/rules/common`` (its file starts at level 2), per language."""


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """Return the languages the rules are written in: ``en`` first, then every ``rules/<xx>/``."""
    found = sorted(p.name for p in RULES_DIR.iterdir() if p.is_dir() and _LANG.fullmatch(p.name))
    return (DEFAULT_LANG, *(lang for lang in found if lang != DEFAULT_LANG))


def rules_file(name: str, lang: str = DEFAULT_LANG) -> Path:
    """Return the file holding ``name`` (a game or ``common``) in ``lang``, or the English one.

    ``lang`` is only compared with ``languages()``, never made a path as given: an unknown
    language reads English.
    """
    if lang != DEFAULT_LANG and lang in languages():
        translated = RULES_DIR / lang / f"{name}.md"
        if translated.is_file():
            return translated
    return RULES_DIR / f"{name}.md"


def file_language(name: str, lang: str = DEFAULT_LANG) -> str:
    """Return the language ``rules_file(name, lang)`` is written in (``en`` on fallback)."""
    return DEFAULT_LANG if rules_file(name, lang).parent == RULES_DIR else lang


def source(game: str, lang: str = DEFAULT_LANG) -> str:
    """Return the Markdown of ``game``'s page in ``lang``: the game's file, then ``common.md``.

    Each of the two files falls back to English on its own when its translation is missing.
    """
    if lang == DEFAULT_LANG:
        return _source(game)
    text = rules_file(game, lang).read_text(encoding="utf-8")
    if game == COMMON:
        return text
    return text.rstrip() + "\n\n" + rules_file(COMMON, lang).read_text(encoding="utf-8")


def render(game: str, lang: str = DEFAULT_LANG) -> str:
    """Return the HTML of ``game``'s rules page in ``lang`` (English where untranslated)."""
    return page_in(game, lang).html


def page_in(game: str, lang: str = DEFAULT_LANG) -> Page:
    """Return the rendered rules page of ``game`` in ``lang``; ``page_in(game)`` is ``page(game)``.

    The anchors are the English page's (a translation keeps them), and so are the rule codes'
    anchors: a refusal links to the same rule in every language. A language without rules, or
    a page not translated, reads English (``Page.lang`` says which).

    Only a known game in a known language reaches the cache, so a ``?lang=`` made up by a
    reader never grows it: it holds at most one page per game and language.

    Raises:
        KeyError: no rules page for that game.
    """
    english = page(game)  # also refuses an unknown game without making it a path
    if lang == DEFAULT_LANG or lang not in languages():
        return english
    return _translated(game, lang)


@lru_cache(maxsize=None)
def _translated(game: str, lang: str) -> Page:
    """Render ``game``'s page in ``lang`` (both already known: see ``page_in``)."""
    english = page(game)
    text = source(game, lang)
    md = _markdown()
    tokens = md.parse(text)
    toc = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.attrGet("id"):
            toc.append((int(token.tag[1]), tokens[i + 1].content.strip(), str(token.attrGet("id"))))
    written = file_language(game, lang)
    if toc and toc[0][0] == 1:
        title = toc[0][1]
    else:
        title = _COMMON_TITLES.get(written, _COMMON_TITLES[DEFAULT_LANG])
    html = md.renderer.render(tokens, md.options, {})
    return Page(game, title, html, frozenset(a for _, _, a in toc), dict(english.codes), tuple(toc), written)
