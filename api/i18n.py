"""The players' languages: which one a reader gets, and the catalogs that hold every word.

Flask-Babel chooses the language of each request (:func:`choose_language`) and translates with
Babel's catalogs, ``api/translations/<lang>/LC_MESSAGES/messages.po``, compiled to ``.mo`` when the
app starts (:func:`compile_catalogs`), so the quick start needs no extra step. Message ids are the
English sentences with named placeholders (``%(player)s``), so each language has its own word
order; the page scripts get their strings from the same catalogs (:func:`script_words`, embedded
in every page as a JSON data block), never from a second hand-kept table.

A language is *offered* (to the browser's ``Accept-Language`` and in the selector) once every page
says it: ``TANTEO_LANGUAGES`` lists them, English alone by default while the catalogs grow (a half
translated page in a reader's own language is worse than a whole one in English). ``?lang=xx``
reaches any language that has a catalog, so a translator can read a page before it is offered.
The match itself stays language-free: the same facts in every language.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.lists import format_list
from babel.support import NullTranslations, Translations
from flask import Flask, Response, current_app, g, has_request_context, request
from flask_babel import Babel

from engines.said import Counted, Joined, Listed, Said

TRANSLATIONS = Path(__file__).parent / "translations"
DEFAULT = "en"
LANGUAGES = ("ca", "es", "de", "en")  # every language Tanteo has a catalog for, in the selector's order
COOKIE = "lang"  # the reader's choice, remembered by the browser for a year
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def offered(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """Read ``TANTEO_LANGUAGES`` (``"ca,es,de,en"``): the languages offered, in the catalogs' order.

    Raises:
        ValueError: a code Tanteo has no catalog for.
    """
    codes = value.split(",") if isinstance(value, str) else list(value or ())
    chosen = {c.strip().lower() for c in codes if c.strip()}
    unknown = sorted(chosen - set(LANGUAGES))
    if unknown:
        raise ValueError(f"TANTEO_LANGUAGES lists {', '.join(unknown)}; Tanteo speaks {', '.join(LANGUAGES)}")
    return tuple(code for code in LANGUAGES if code in chosen) or (DEFAULT,)


def choose_language() -> str:
    """The language of this request: ``?lang=``, then the reader's remembered choice, then the
    browser's ``Accept-Language`` among the offered languages, then English."""
    asked = request.args.get("lang", "").lower()
    if asked in LANGUAGES:
        return asked
    remembered = request.cookies.get(COOKIE, "").lower()
    if remembered in LANGUAGES:
        return remembered
    return request.accept_languages.best_match(current_app.config["TANTEO_LANGUAGES"]) or DEFAULT


def current_language() -> str:
    """The language of the request being answered, chosen once per request (a replay says
    thousands of sentences); English outside a request (the command line)."""
    if not has_request_context():
        return DEFAULT
    if "tanteo_lang" not in g:
        g.tanteo_lang = choose_language()
    return str(g.tanteo_lang)


def say(value: Any, lang: str | None = None) -> Any:
    """Say an engine's words (:class:`engines.said.Said`, :class:`~engines.said.Listed`,
    :class:`~engines.said.Joined`) again in ``lang``, the request's language by default; English,
    and anything else, is returned as it is. The one translation of what the engines say: the
    JSON encoder and the templates both call it."""
    if not isinstance(value, (Said, Counted, Listed, Joined)):
        return value
    lang = lang or current_language()
    return str(value) if lang == DEFAULT else _again(value, lang)


def _again(value: Any, lang: str) -> str:
    if isinstance(value, Said):
        text = _translations(lang).ugettext(value.msgid)
        if not value.parts:
            return text
        try:
            return text % {name: _again(part, lang) for name, part in value.parts.items()}
        except (KeyError, ValueError, TypeError):  # a translation that names other parts: the English stands
            return str(value)
    if isinstance(value, Counted):
        text = _translations(lang).ungettext(value.one, value.other, value.n)
        try:
            return text % {"n": _again(value.n, lang), **{k: _again(v, lang) for k, v in value.parts.items()}}
        except (KeyError, ValueError, TypeError):
            return str(value)
    if isinstance(value, Listed):
        return (
            format_list([_again(item, lang) for item in value.items], locale=lang)
            if value.items
            else _again(Said("nobody"), lang)
        )
    if isinstance(value, Joined):
        return (value.worded or value.separator).join(_again(item, lang) for item in value.items)
    if isinstance(value, int) and not isinstance(value, bool):
        return format_decimal(value, locale=lang)
    return str(value)


@functools.lru_cache(maxsize=len(LANGUAGES))
def _translations(lang: str) -> NullTranslations:
    return Translations.load(str(compile_catalogs()), [lang])


def compile_catalogs(source: Path = TRANSLATIONS) -> Path:
    """Compile every ``messages.po`` whose ``.mo`` is missing or older; return the folder that holds
    the compiled catalogs (beside the ``.po`` files, or a temporary copy when that folder is read-only)."""
    try:
        _compile_into(source, source)
        return source
    except OSError:
        target = Path(tempfile.gettempdir()) / "tanteo-translations"
        _compile_into(source, target)
        return target


def _compile_into(source: Path, target: Path) -> None:
    for po in sorted(source.glob("*/LC_MESSAGES/messages.po")):
        mo = target / po.relative_to(source).with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        mo.parent.mkdir(parents=True, exist_ok=True)
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parent.parent.name)
        partial = mo.with_suffix(".mo.tmp")
        with partial.open("wb") as out:
            write_mo(out, catalog)
        partial.replace(mo)  # a reader never loads half a catalog


@functools.lru_cache(maxsize=len(LANGUAGES))
def script_words(lang: str) -> dict[str, Any]:
    """The page scripts' strings in ``lang``: each message whose id a script uses (the catalog's
    ``.js`` locations), as ``{id: text}``, or for a plural ``{id: {category: text}}`` keyed by the
    CLDR categories the browser's ``Intl.PluralRules`` names (``one``, ``many``, ``other``). An
    English id is its own text, so English sends nothing."""
    if lang == DEFAULT or lang not in LANGUAGES:
        return {}
    po = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"
    if not po.exists():
        return {}
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang)
    rule = Locale.parse(lang).plural_form
    # gettext's plural index i is the i-th CLDR category of the language, in CLDR's order
    categories = [tag for tag in ("zero", "one", "two", "few", "many", "other") if tag in rule.tags or tag == "other"]
    words: dict[str, Any] = {}
    for message in catalog:
        if not message.id or message.fuzzy or not any(path.endswith(".js") for path, _ in message.locations):
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        if isinstance(message.string, tuple):
            if all(message.string):
                words[key] = dict(zip(categories, message.string))
        elif message.string:
            words[key] = message.string
    return words


def language_names() -> list[tuple[str, str]]:
    """Each offered language named in itself (``Català``, ``Deutsch``), for the selector."""
    return [
        (code, Locale.parse(code).get_display_name(code).capitalize())
        for code in current_app.config["TANTEO_LANGUAGES"]
    ]


def init_app(app: Flask) -> None:
    """Install Flask-Babel with Tanteo's catalogs and language choice on ``app``."""
    app.config["TANTEO_LANGUAGES"] = offered(app.config.get("TANTEO_LANGUAGES"))
    Babel(app, locale_selector=current_language, default_translation_directories=str(compile_catalogs()))
    app.jinja_env.finalize = say  # what an engine said, shown on a page, in the page's language

    @app.context_processor
    def languages() -> dict[str, Any]:
        lang = current_language()
        return {
            "lang": lang,
            "languages": language_names(),
            "script_words": {"lang": lang, "words": script_words(lang)},
        }

    @app.after_request
    def say_language(response: Response) -> Response:
        """Name the response's language, and remember a reader's ``?lang=`` choice on a page."""
        lang = current_language()
        response.headers.setdefault("Content-Language", lang)
        response.vary.update(("Accept-Language", "Cookie"))
        if request.args.get("lang", "").lower() in LANGUAGES and response.mimetype == "text/html":
            response.set_cookie(COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
        return response
