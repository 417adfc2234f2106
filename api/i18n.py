"""The players' languages: which one a reader gets, and the catalogs that hold every word.

Flask-Babel chooses the language of each request (:func:`choose_language`) and translates with
Babel's catalogs, ``api/translations/<lang>/LC_MESSAGES/messages.po``, compiled to ``.mo`` when the
app starts (:func:`compile_catalogs`), so the quick start needs no extra step. Message ids are the
English sentences with named placeholders (``%(player)s``), so each language has its own word
order; the page scripts get their strings from the same catalogs (:func:`script_words`, embedded
in every page as a JSON data block), never from a second hand-kept table.

The languages *offered* (to the browser's ``Accept-Language`` and in the selector) are all four
by default; ``TANTEO_LANGUAGES`` narrows them (a club that wants one language, or a language whose
catalog is being reviewed). ``?lang=xx`` reaches any language that has a catalog.
The match itself stays language-free: the same facts in every language.
"""

from __future__ import annotations

import functools

from typing import Any

from babel import Locale
from flask import Flask, Response, current_app, g, has_request_context, request
from flask_babel import Babel
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from api.languages import (  # noqa: F401 - the names the app, the pages and the tests read here
    DEFAULT,
    LANGUAGES,
    PLACEHOLDER,
    TRANSLATIONS,
    WORDS,
    compile_catalogs,
    offered,
    say_in,
    script_words,
)

COOKIE = "lang"  # the reader's choice, remembered by the browser for a year


def choose_language() -> str:
    """The language of this request: ``?lang=``, then the reader's remembered choice, then the
    browser's ``Accept-Language`` among the offered languages, then English."""
    environ = request.environ  # a request without a query or cookies (every API call) parses neither
    asked = request.args.get("lang", "").lower() if environ.get("QUERY_STRING") else ""
    if asked in LANGUAGES:
        return asked
    remembered = request.cookies.get(COOKIE, "").lower() if environ.get("HTTP_COOKIE") else ""
    if remembered in LANGUAGES:
        return remembered
    return _best_match(environ.get("HTTP_ACCEPT_LANGUAGE", ""), tuple(current_app.config["TANTEO_LANGUAGES"]))


@functools.lru_cache(maxsize=256)
def _best_match(header: str, offered: tuple[str, ...]) -> str:
    """The offered language a browser's ``Accept-Language`` prefers, or English: parsed once per
    header text (a club's phones send a handful of them, on every request)."""
    return parse_accept_header(header, LanguageAccept).best_match(offered) or DEFAULT


def current_language() -> str:
    """The language of the request being answered, chosen once per request (a replay says
    thousands of sentences); English outside a request (the command line)."""
    if not has_request_context():
        return DEFAULT
    if "tanteo_lang" not in g:
        g.tanteo_lang = choose_language()
    return str(g.tanteo_lang)


def say(value: Any, lang: str | None = None) -> Any:
    """Say an engine's words again in ``lang``, the request's language by default (English
    outside a request). The one translation of what the engines say: the JSON encoder and the
    templates both call it (a page's every expression: what holds no words is returned at once)."""
    if not isinstance(value, WORDS):
        return value
    return say_in(value, lang or current_language())


def language_names() -> list[tuple[str, str]]:
    """Each offered language named in itself (``Català``, ``Deutsch``), for the selector."""
    return [
        (code, Locale.parse(code).get_display_name(code).capitalize())
        for code in current_app.config["TANTEO_LANGUAGES"]
    ]


def day(iso: str | None) -> str:
    """A date of the record (``2026-11-28``, or a timestamp's first ten characters) as the reader's
    language writes it: "28 nov 2026", "28.11.2026"; anything that is not a date, as it is."""
    from datetime import date

    from flask_babel import format_date

    try:
        return str(format_date(date.fromisoformat(str(iso)[:10]), "medium"))
    except ValueError:
        return str(iso or "")


def init_app(app: Flask) -> None:
    """Install Flask-Babel with Tanteo's catalogs and language choice on ``app``."""
    app.config["TANTEO_LANGUAGES"] = offered(app.config.get("TANTEO_LANGUAGES"))
    Babel(app, locale_selector=current_language, default_translation_directories=str(compile_catalogs()))
    app.jinja_env.finalize = say  # what an engine said, shown on a page, in the page's language
    app.jinja_env.filters["day"] = day

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
        headers = response.headers
        present = {name.lower(): value for name, value in headers.items()}  # one pass over a few headers
        if "content-language" not in present:
            headers.add("Content-Language", lang)
        vary = present.get("vary")
        if vary is None:
            headers.add("Vary", "Accept-Language, Cookie")
        else:  # merged as text: werkzeug's parse and rewrite of the set costs more than the rest of this hook
            have = {part.strip().lower() for part in vary.split(",")}
            more = [name for name in ("Accept-Language", "Cookie") if name.lower() not in have]
            if more and "*" not in have:
                headers["Vary"] = ", ".join([vary, *more])
        if (
            request.environ.get("QUERY_STRING")
            and request.args.get("lang", "").lower() in LANGUAGES
            and response.mimetype == "text/html"
        ):
            response.set_cookie(COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
        return response
