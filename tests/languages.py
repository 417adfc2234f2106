"""Finding English left in an answer said in another language (issue 28).

Two reads of the same thing, one in English and one in ``lang``, hold the same facts: the same
keys, numbers, names, codes, cards and event types. A string that is *prose* (words a person
reads, not a name or a code) and reads the same in both is English the other language did not
say. :func:`english_left` lists those, with where they are; a test asserts the list is empty.

:func:`untranslated` checks what an engine said (``engines/said.py``) before it reaches the API:
every message id in it, at any depth, must have a translation in ``lang``'s catalog.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from babel.messages.pofile import read_po

from api import i18n
from engines.cards import spoken_names
from engines.said import Counted, Joined, Listed, Said

WORD = re.compile(r"\b[a-z]{3,}\b")


def is_prose(text: str) -> bool:
    """Words a person reads: two or more words, one of them a lower-case word of three letters or
    more (player names are capitalised, codes and event types hold no space, cards are ``10H``)."""
    return " " in text.strip() and bool(WORD.search(text))


@functools.lru_cache(maxsize=None)
def _same_in(lang: str) -> frozenset[str]:
    """Strings that may read the same in ``lang`` as in English: the catalog's entries whose
    translation is the English (a Spanish card, "Cabo"), and the cards' spoken names."""
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    same = {m.id for m in catalog if m.id and isinstance(m.id, str) and m.string == m.id}
    return frozenset(same | set(spoken_names()))


def english_left(
    english: Any, other: Any, lang: str, where: str = "", typed: frozenset[str] = frozenset()
) -> list[str]:
    """Every prose string of ``other`` that reads as it does in ``english``, as ``"path: text"``.
    ``typed``: what people typed into the match (a note, a reason, a title), the same in every language."""
    if isinstance(english, dict) and isinstance(other, dict):
        return [
            found
            for key in english
            if key in other
            for found in english_left(english[key], other[key], lang, f"{where}.{key}", typed)
        ]
    if isinstance(english, list) and isinstance(other, list):
        return [
            found
            for i, (a, b) in enumerate(zip(english, other))
            for found in english_left(a, b, lang, f"{where}[{i}]", typed)
        ]
    if (
        isinstance(english, str)
        and english == other
        and is_prose(english)
        and english not in _same_in(lang)
        and english not in typed
    ):
        return [f"{where}: {english}"]
    return []


def same_facts(english: Any, other: Any, where: str = "") -> list[str]:
    """Where two reads of a match differ in anything but words: keys, lengths, numbers, flags.
    The match is language-free: only its strings may read differently."""
    if isinstance(english, dict) and isinstance(other, dict):
        if english.keys() != other.keys():
            return [f"{where}: keys {sorted(english)} ≠ {sorted(other)}"]
        return [found for key in english for found in same_facts(english[key], other[key], f"{where}.{key}")]
    if isinstance(english, list) and isinstance(other, list):
        if len(english) != len(other):
            return [f"{where}: {len(english)} items ≠ {len(other)}"]
        return [found for i, (a, b) in enumerate(zip(english, other)) for found in same_facts(a, b, f"{where}[{i}]")]
    if isinstance(english, str) and isinstance(other, str):
        return []
    return [] if english == other else [f"{where}: {english!r} ≠ {other!r}"]


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON answer or a log, at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def typed_in(events: Any) -> frozenset[str]:
    """Every string people typed into a log's events (notes, reasons, titles, names)."""
    return frozenset(strings(events))


@functools.lru_cache(maxsize=None)
def _catalog(lang: str) -> dict[str, Any]:
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {(m.id[0] if isinstance(m.id, tuple) else m.id): m.string for m in read_po(f, locale=lang) if m.id}


def untranslated(value: Any, lang: str) -> list[str]:
    """The message ids in ``value`` (what an engine said, at any depth, or a dict/list of such)
    that ``lang``'s catalog lacks or leaves empty; and any plain prose string said among them."""
    if isinstance(value, Said):
        found = [] if _catalog(lang).get(value.msgid) else [value.msgid]
        return found + [f for part in value.parts.values() for f in untranslated(part, lang)]
    if isinstance(value, Counted):
        strings = _catalog(lang).get(value.one)
        found = [] if strings and all(strings) else [value.one]
        return found + [f for part in value.parts.values() for f in untranslated(part, lang)]
    if isinstance(value, (Listed, Joined)):
        return [f for item in value.items for f in untranslated(item, lang)]
    if isinstance(value, dict):
        return [f for item in value.values() for f in untranslated(item, lang)]
    if isinstance(value, (list, tuple)):
        return [f for item in value for f in untranslated(item, lang)]
    if isinstance(value, str) and is_prose(value):
        return [f"(not said from a message id) {value}"]
    return []
