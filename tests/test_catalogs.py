"""The message catalogs (issue 28): every message id the code, the templates and the page scripts
use is in every language's catalog, translated, not fuzzy, with the same placeholders; and each
request gets the language it asked for, said in ``Content-Language``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from api import catalogs, i18n
from api.app import create_app
from engines.cards import spoken_names


def used_ids() -> dict[str, str]:
    """Every message id in the tree, with where it is first used (api/catalogs.py's extraction,
    the one the translators' tool writes the catalogs from)."""
    return {catalogs.key(m): "%s:%s" % where[0] for m, where in catalogs.used().items()}


def catalog(lang: str):  # type: ignore[no-untyped-def]
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def placeholders(text: str) -> set[str]:
    """The named parts a sentence fills: ``%(player)s`` (Python, the scripts) and ``{seat}`` (the
    served form words the pages fill)."""
    return set(i18n.PLACEHOLDER.findall(text)) | {"{%s}" % name for name in re.findall(r"\{(\w+)\}", text)}


def test_the_tree_marks_messages() -> None:
    ids = used_ids()
    assert "Skip to content" in ids and ids["Skip to content"].startswith("api/templates/base.html")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_message_is_translated_with_its_placeholders(lang: str) -> None:
    messages = {m.id[0] if isinstance(m.id, tuple) else m.id: m for m in catalog(lang) if m.id}
    problems = []
    for key, where in used_ids().items():
        message = messages.get(key)
        if message is None:
            problems.append(f"missing ({where}): {key}")
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            problems.append(f"{'fuzzy' if message.fuzzy else 'empty'} ({where}): {key}")
        for text in strings:
            if placeholders(text) != placeholders(key):
                problems.append(f"placeholders differ ({where}): {key!r} → {text!r}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("lang", ["ca", "es", "de"])
def test_a_translation_is_not_the_english(lang: str) -> None:
    """A catalog copied from English would pass the test above: most entries must differ."""
    names = set(spoken_names())  # Spanish says the Spanish deck's cards as English spells them
    same = [m.id for m in catalog(lang) if m.id and m.string == m.id and m.id not in names]
    assert len(same) <= len(catalog(lang)) // 10, same


def test_an_unknown_language_is_refused_in_words() -> None:
    with pytest.raises(ValueError, match="Tanteo speaks ca, es, de, en"):
        create_app({"TANTEO_DB": "memory:", "TANTEO_LANGUAGES": "ca,fr"})


def test_the_reader_chooses_the_language() -> None:
    app = create_app({"TANTEO_DB": "memory:", "TANTEO_LANGUAGES": "ca,es,de,en"})
    client = app.test_client(use_cookies=False)

    def read(path: str, **headers: str) -> tuple[str | None, str]:
        answer = client.get(path, headers=headers)
        html = answer.get_data(as_text=True)
        return answer.headers.get("Content-Language"), re.search(r'<html lang="(\w+)"', html).group(1)  # type: ignore[union-attr]

    assert read("/rules") == ("en", "en")
    assert read("/rules?lang=de") == ("de", "de")
    assert read("/rules", **{"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}) == ("es", "es")
    assert read("/rules", **{"Accept-Language": "fr"}) == ("en", "en")
    assert read("/rules", Cookie="lang=ca", **{"Accept-Language": "de"}) == ("ca", "ca")
    assert read("/rules?lang=es", Cookie="lang=ca") == ("es", "es")
    html = client.get("/rules?lang=ca").get_data(as_text=True)
    assert "<h1>Reglament</h1>" in html and "Salta al contingut" in html
    # an API read says its language too, and its refusals are in it; the code stays the same
    answer = client.get("/rules/no-such-game?lang=es")
    assert answer.status_code == 404 and answer.headers["Content-Language"] == "es"
    assert answer.json["code"] == "route.not_found" and answer.json["detail"].startswith("no hay reglamento")


def test_every_language_is_offered_by_default() -> None:
    client = create_app({"TANTEO_DB": "memory:"}).test_client(use_cookies=False)
    for lang in ("ca", "es", "de"):
        answer = client.get("/rules", headers={"Accept-Language": f"{lang},en;q=0.5"})
        assert answer.headers["Content-Language"] == lang
    assert 'name="lang"' in answer.get_data(as_text=True)  # the selector offers them
    assert client.get("/rules", headers={"Accept-Language": "fr"}).headers["Content-Language"] == "en"


def test_only_offered_languages_follow_the_browser() -> None:
    """A server may offer fewer languages: the browser is followed only among them."""
    client = create_app({"TANTEO_DB": "memory:", "TANTEO_LANGUAGES": "en"}).test_client(use_cookies=False)
    answer = client.get("/rules", headers={"Accept-Language": "ca"})
    assert answer.headers["Content-Language"] == "en"
    assert 'name="lang"' not in answer.get_data(as_text=True)  # no selector with one language
    assert client.get("/rules?lang=ca").headers["Content-Language"] == "ca"  # ?lang= previews any catalog


def test_a_choice_is_remembered() -> None:
    client = create_app({"TANTEO_DB": "memory:", "TANTEO_LANGUAGES": "ca,es,de,en"}).test_client()
    client.get("/rules?lang=de")
    assert client.get("/rules").headers["Content-Language"] == "de"


def test_script_words_carry_plural_categories() -> None:
    assert i18n.script_words("en") == {}
    for lang in ("ca", "es", "de"):
        for value in i18n.script_words(lang).values():
            assert isinstance(value, str) or "other" in value


def test_catalogs_compile_into_a_writable_place(tmp_path: Path) -> None:
    source = tmp_path / "translations"
    (source / "ca" / "LC_MESSAGES").mkdir(parents=True)
    po = i18n.TRANSLATIONS / "ca" / "LC_MESSAGES" / "messages.po"
    (source / "ca" / "LC_MESSAGES" / "messages.po").write_bytes(po.read_bytes())
    assert i18n.compile_catalogs(source) == source
    assert (source / "ca" / "LC_MESSAGES" / "messages.mo").stat().st_size > 0


def test_the_printed_sheet_in_german(client) -> None:  # type: ignore[no-untyped-def]
    """The sheet's words, its plural and its date come from the German catalog and Babel; the
    players' names, the numbers and the head hash are the same facts in every language."""
    created = client.post("/matches", json={"game": "cabo", "players": ["Anna", "Jonas", "Lena", "Paul"]}).get_json()
    german = client.get(f"/m/{created['id']}/sheet?lang=de").get_data(as_text=True)
    english = client.get(f"/m/{created['id']}/sheet?lang=en").get_data(as_text=True)
    assert '<html lang="de">' in german and "Punkteblatt" in german and "Nachweis der Aufzeichnung" in german
    assert "1 Eintrag, Kette geprüft" in german and "1 entry, chain verified" in english
    head = re.search(r'id="head-hash">(\w+)<', english).group(1)  # type: ignore[union-attr]
    assert f'id="head-hash">{head}<' in german
    started = re.search(r"Begonnen: ([^<\n]+)", german).group(1).strip()  # type: ignore[union-attr]
    assert re.fullmatch(r"\d\d\.\d\d\.\d{4}", started), started  # "28.11.2026", not "2026-11-28"


def test_the_rules_pages_in_the_readers_language() -> None:
    """The rules are read in the reader's language, with the same anchors, so every rule link
    of a refusal or a score line resolves in every language."""
    client = create_app({"TANTEO_DB": "memory:"}).test_client(use_cookies=False)
    anchors = {}
    for lang in ("en", "es", "ca", "de"):
        html = client.get(f"/rules/cau-robat?lang={lang}").get_data(as_text=True)
        assert f'<article class="rules-text" lang="{lang}">' in html
        anchors[lang] = re.findall(r'id="([\w-]+)"', html)
    assert anchors["es"] == anchors["en"] == anchors["ca"] == anchors["de"]
    assert "bastos" in client.get("/rules/cau-robat?lang=ca").get_data(as_text=True)
    assert "Ablagestapel" in client.get("/rules/cabo?lang=de").get_data(as_text=True)
