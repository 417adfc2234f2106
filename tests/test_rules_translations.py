"""Checks the translated rules pages against the English originals (issue 28).

Pure file checks, no server: every translation under api/rules/<lang>/ must have an
English counterpart, keep the same heading anchors in the same order, and keep every
backticked code (card codes, event types, option names) of the English page.
"""

import re
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "api" / "rules"
ANCHOR = re.compile(r"\{#([^}]+)\}")
CODE = re.compile(r"`([^`\n]+)`")

ENGLISH = sorted(p.name for p in RULES.glob("*.md"))
TRANSLATIONS = sorted(
    p.relative_to(RULES).as_posix() for p in RULES.glob("*/*.md") if p.parent.name.isalpha() and len(p.parent.name) == 2
)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_english_pages_exist():
    assert {"cabo.md", "cau-robat.md", "el-roby.md", "kabu.md", "la-cabra.md", "common.md"} <= set(ENGLISH)


def test_spanish_set_complete():
    spanish = {p.name for p in (RULES / "es").glob("*.md")}
    assert spanish == set(ENGLISH)


@pytest.mark.parametrize("rel", TRANSLATIONS)
def test_translation_has_english_original(rel):
    assert (RULES / Path(rel).name).is_file(), rel


@pytest.mark.parametrize("rel", TRANSLATIONS)
def test_translation_keeps_anchors_in_order(rel):
    english = ANCHOR.findall(_read(RULES / Path(rel).name))
    translated = ANCHOR.findall(_read(RULES / rel))
    assert translated == english


@pytest.mark.parametrize("rel", TRANSLATIONS)
def test_translation_keeps_backticked_codes(rel):
    english = set(CODE.findall(_read(RULES / Path(rel).name)))
    translated = set(CODE.findall(_read(RULES / rel)))
    missing = sorted(english - translated)
    assert not missing, f"{rel} lacks {missing}"


# Every language, every page; the numbers of the tables; the rulebook renders each translation
# with the English anchors; the glossaries (issue 28) ---------------------------------------

from api import rulebook  # noqa: E402

LANGUAGES = ("ca", "es", "de")
"""The players' languages: Catalan (Cau Robat), Spanish (Kabú, El Roby, La Cabra), German (Cabo)."""
PAGES = [p.stem for p in sorted(RULES.glob("*.md"))]
NUMBER = re.compile(r"\d+")
GLOSSARY = RULES.parent.parent / "docs" / "glossary"
GLOSSARY_COLUMNS = ("English", "Català", "Español", "Deutsch")


def _table_numbers(text: str) -> list[str]:
    """The numbers in the Markdown tables of a page, in order (headers and cells)."""
    rows = [line for line in text.splitlines() if line.lstrip().startswith("|")]
    return [n for row in rows for n in NUMBER.findall(row)]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_every_page_is_translated(lang, name):
    assert (RULES / lang / f"{name}.md").is_file(), f"api/rules/{lang}/{name}.md is missing"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_translation_keeps_table_numbers(lang, name):
    english = _table_numbers(_read(RULES / f"{name}.md"))
    assert _table_numbers(_read(RULES / lang / f"{name}.md")) == english


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_translation_keeps_every_code_line(lang, name):
    """Each ``Refused:`` line keeps its codes, in order, under the same anchor."""

    def lines(text: str) -> list[tuple[str, list[str]]]:
        out, anchor = [], ""
        for line in text.splitlines():
            found = ANCHOR.search(line) if line.startswith("#") else None
            if found:
                anchor = found.group(1)
            codes = re.findall(r"`((?:common|[a-z]+(?:-[a-z]+)*)\.[a-z_]+)`", line)
            if codes and line.count("`") == 2 * len(codes) and ":" in line.split("`", 1)[0]:
                out.append((anchor, codes))
        return out

    assert lines(_read(RULES / lang / f"{name}.md")) == lines(_read(RULES / f"{name}.md"))


def test_languages():
    assert rulebook.languages()[0] == "en"
    assert set(LANGUAGES) <= set(rulebook.languages())


def test_games_are_still_only_the_games():
    assert rulebook.games() == ["cabo", "cau-robat", "el-roby", "kabu", "la-cabra"]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", [*rulebook.games(), rulebook.COMMON])
def test_rulebook_renders_translation(lang, game):
    english = rulebook.page(game)
    translated = rulebook.page_in(game, lang)
    assert translated.lang == lang
    assert [a for _, _, a in translated.toc] == [a for _, _, a in english.toc]
    assert translated.anchors == english.anchors
    assert translated.codes == english.codes  # a refusal links to the same rule in every language
    assert translated.html != english.html
    for anchor in english.anchors:
        assert f'id="{anchor}"' in translated.html
    assert "{#" not in translated.html
    assert rulebook.render(game, lang) == translated.html
    assert rulebook.source(game, lang).startswith(_read(RULES / lang / f"{game}.md").rstrip())
    if game == rulebook.COMMON:
        assert translated.title != english.title  # the common page's title is written, not a heading
    else:
        assert translated.title == translated.toc[0][1]


def test_rulebook_english_is_unchanged():
    for game in [*rulebook.games(), rulebook.COMMON]:
        assert rulebook.page_in(game) is rulebook.page(game)
        assert rulebook.page_in(game, "en") is rulebook.page(game)
        assert rulebook.source(game) == rulebook._source(game)
        assert rulebook.page(game).lang == "en"


@pytest.mark.parametrize("lang", ["xx", "", "../rules", "EN", "es/../.."])
def test_rulebook_unknown_language_reads_english(lang):
    assert rulebook.page_in("kabu", lang) is rulebook.page("kabu")
    assert rulebook.rules_file("kabu", lang) == RULES / "kabu.md"


def test_rulebook_unknown_game():
    with pytest.raises(KeyError):
        rulebook.page_in("poker", "es")
    with pytest.raises(KeyError):
        rulebook.page_in("../es/kabu", "es")


def test_rulebook_falls_back_file_by_file(tmp_path, monkeypatch):
    for path in RULES.glob("*.md"):
        (tmp_path / path.name).write_text(_read(path), encoding="utf-8")
    (tmp_path / "xx").mkdir()
    (tmp_path / "xx" / "common.md").write_text(_read(RULES / "es" / "common.md"), encoding="utf-8")
    monkeypatch.setattr(rulebook, "RULES_DIR", tmp_path)
    for cached in (rulebook.languages, rulebook.page, rulebook._translated):
        cached.cache_clear()
    try:
        assert rulebook.languages() == ("en", "xx")
        kabu = rulebook.page_in("kabu", "xx")
        assert kabu.lang == "en" and kabu.title == "Kabú"  # the game's file falls back …
        assert "Cómo se anota una partida" in kabu.html  # … its common part does not
        assert kabu.anchors == rulebook.page("kabu").anchors
        common = rulebook.page_in("common", "xx")
        assert common.lang == "xx" and common.title == rulebook.page("common").title
    finally:
        monkeypatch.undo()
        for cached in (rulebook.languages, rulebook.page, rulebook._translated):
            cached.cache_clear()


def _glossary_rows(game: str) -> tuple[list[str], list[list[str]]]:
    text = _read(GLOSSARY / f"{game}.md")
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.lstrip().startswith("|")
    ]
    header, body = rows[0], [r for r in rows[2:] if not set("".join(r)) <= set("-: ")]
    return header, body


@pytest.mark.parametrize("game", rulebook.games())
def test_glossary_has_four_languages(game):
    header, body = _glossary_rows(game)
    assert [h for h in header if h in GLOSSARY_COLUMNS] == list(GLOSSARY_COLUMNS)
    columns = [header.index(c) for c in GLOSSARY_COLUMNS]
    for row in body:
        assert len(row) == len(header), row
        assert all(row[i] for i in columns), row


@pytest.mark.parametrize("game", rulebook.games())
def test_glossary_names_every_option(game):
    from engines import ENGINES  # noqa: F401  (the games' option tables)
    import importlib

    options = importlib.import_module(f"engines.{game.replace('-', '_')}.options").OPTIONS
    _, body = _glossary_rows(game)
    first = {row[0] for row in body}
    for option in options:
        assert any(f"`{option.name}`" in cell for cell in first), f"{game}: no row for {option.name}"


def test_players_guide_links_the_glossaries():
    assert "glossary/" in _read(RULES.parent.parent / "docs" / "PLAYERS.md")


REFUSED = {"ca": "No s'admet: ", "es": "No se admite: ", "de": "Nicht erlaubt: "}
"""How each language says the English ``Refused: `` before a rule's codes (one wording per language)."""
TERMS = (
    "deal",
    "dealer",
    "hand",
    "round",
    "trick",
    "meld",
    "stand",
    "take",
    "re-buy",
    "pot",
    "chips",
    "score sheet",
    "entry",
    "correction",
    "dispute",
    "ruling",
)
"""The words every glossary gives in the four languages (the pages' and the rules' words)."""


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_translation_says_refused_one_way(lang, name):
    english = [line for line in _read(RULES / f"{name}.md").splitlines() if line.startswith("Refused: ")]
    lines = _read(RULES / lang / f"{name}.md").splitlines()
    assert not [line for line in lines if line.startswith("Refused")], "an English 'Refused:' line is left"
    assert len([line for line in lines if line.startswith(REFUSED[lang])]) == len(english)


@pytest.mark.parametrize("game", rulebook.games())
def test_glossary_gives_the_common_terms(game):
    _, body = _glossary_rows(game)
    first = [row[0].lower() for row in body]
    for term in TERMS:
        assert any(cell == term or cell.startswith((f"{term} ", f"{term} (")) for cell in first), (
            f"{game}: no row for {term!r}"
        )


def test_rulebook_cache_holds_only_known_languages():
    for n in range(200):
        rulebook.page_in("kabu", f"x{n}")
        rulebook.page_in("kabu", f"{n:02d}"[:2])
    bound = (len(rulebook.games()) + 1) * len(rulebook.languages())
    assert rulebook._translated.cache_info().currsize <= bound
    assert rulebook.page_in("kabu", "es") is rulebook.page_in("kabu", "es")
