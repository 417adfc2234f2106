"""The languages Tanteo speaks, and saying words in one of them: the Flask-free half of the
translation (the command line and the service use it; ``api/i18n.py`` adds the web's choice of a
reader's language on top).

Babel's catalogs, ``api/translations/<lang>/LC_MESSAGES/messages.po``, compiled to ``.mo`` on first
use (:func:`compile_catalogs`), so the quick start needs no extra step. Message ids are the English
sentences with named placeholders (``%(player)s``), so each language has its own word order.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from babel import Locale
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from engines.said import Counted, Joined, Listed, Said

TRANSLATIONS = Path(__file__).parent / "translations"
DEFAULT = "en"
LANGUAGES = ("ca", "es", "de", "en")  # every language Tanteo has a catalog for, in the selector's order
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")

STATUSES = {
    "scored": Said("scored"),
    "playing": Said("playing"),
    "winner": Said("winner"),
    "out": Said("out"),
    "void": Said("void"),
    "voided": Said("voided"),
    "withheld": Said("withheld"),
    "over": Said("over"),
    "open": Said("open"),
    "upheld": Said("upheld"),
    "rejected": Said("rejected"),
    "withdrawn": Said("withdrawn"),
}
"""A hand's, a standing's, a match's or a dispute's status (a JSON value, the same in every
language) as a person reads it: the audit's table on the command line, the spreadsheets."""


def offered(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """Read ``TANTEO_LANGUAGES`` (``"ca,es,de,en"``): the languages offered, in the catalogs' order;
    all four when it is unset or empty.

    Raises:
        ValueError: a code Tanteo has no catalog for.
    """
    codes = value.split(",") if isinstance(value, str) else list(value or ())
    chosen = {c.strip().lower() for c in codes if c.strip()}
    unknown = sorted(chosen - set(LANGUAGES))
    if unknown:
        raise ValueError(f"TANTEO_LANGUAGES lists {', '.join(unknown)}; Tanteo speaks {', '.join(LANGUAGES)}")
    return tuple(code for code in LANGUAGES if code in chosen) or LANGUAGES


WORDS = (Said, Counted, Listed, Joined)
"""What an engine says in words, to be said again in the reader's language."""


def say_in(value: Any, lang: str) -> Any:
    """Say an engine's words (:class:`engines.said.Said`, :class:`~engines.said.Listed`,
    :class:`~engines.said.Joined`, :class:`~engines.said.Counted`) again in ``lang``; English, and
    anything else, is returned as it is."""
    if not isinstance(value, WORDS):
        return value
    return str(value) if lang == DEFAULT else _again(value, lang)


_CATALAN_DE = re.compile(r"\b([Dd])e (?=[AEIOUÀÈÉÍÏÒÓÚaeiouàèéíïòóú]|[Hh][aeiouàèéíïòóú])(?![IiUu][aeiouàèéíòóú])")


def _elided(text: str, lang: str) -> str:
    """Catalan elides "de" before a vowel: a name or a card filled in after it reads "el torn
    d'Anna", "la pila d'Èric", never "de Anna" (a translator cannot write it: the name is not
    known when the sentence is). Before a vowel sound that is a consonant (Iuri, Uadi) it stays."""
    return _CATALAN_DE.sub(r"\1'", text) if lang == "ca" else text


def _again(value: Any, lang: str) -> str:
    if isinstance(value, Said):
        text = _translations(lang).ugettext(value.msgid)
        if not value.parts:
            return text
        try:
            return _elided(text % {name: _again(part, lang) for name, part in value.parts.items()}, lang)
        except (KeyError, ValueError, TypeError):  # a translation that names other parts: the English stands
            return str(value)
    if isinstance(value, Counted):
        text = _translations(lang).ungettext(value.one, value.other, value.n)
        try:
            parts = {"n": _again(value.n, lang), **{k: _again(v, lang) for k, v in value.parts.items()}}
            return _elided(text % parts, lang)
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
        key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
        if isinstance(message.string, tuple):
            if all(message.string):
                words[key] = dict(zip(categories, message.string))
        elif message.string:
            words[key] = message.string
    return words
