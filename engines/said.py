"""Words the engines say, kept translatable: a message id with named parts, English by default.

The engines are pure and know no reader: a sentence they say (a move's narration, a refusal, a
score line) is a :class:`Said`, a ``str`` whose value is the English sentence, so logs, tests and
every caller read it as before, and which also keeps its message id and its parts. The API says
it again in the reader's language at its two edges, the JSON encoder and the templates
(``api/i18n.py: say``): the id is the catalogs' msgid (Babel extracts the keyword ``Said``), the
parts are translated in turn (a :class:`Listed` of names is joined the language's own way, a
nested :class:`Said` is said again), and each language keeps its own word order.

Never build a sentence by gluing fragments: ``Said("%(player)s draws a card", player=name)``,
not ``name + " draws a card"``. Clauses that stand on their own may be put side by side with
:class:`Joined` (``"; "`` reads the same in every language).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class Said(str):
    """A sentence: its English text, the message id it was said from, and the parts it names."""

    msgid: str
    parts: Mapping[str, Any]

    def __new__(cls, msgid: str, /, **parts: Any) -> Said:
        text = msgid % {name: str(value) for name, value in parts.items()} if parts else msgid
        said = super().__new__(cls, text)
        said.msgid = msgid
        said.parts = parts
        return said

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles keep the id and the parts
        return (_said, (self.msgid, dict(self.parts)))


def _said(msgid: str, parts: Mapping[str, Any]) -> Said:
    return Said(msgid, **parts)


class Listed(str):
    """Names joined for a sentence: ``Ben``, ``Ben and Dora``, ``Anna, Ben and Dora`` in English;
    each language joins them its own way when the sentence is said again."""

    items: tuple[Any, ...]

    def __new__(cls, items: Iterable[Any]) -> Listed:
        kept = tuple(items)
        words = [str(item) for item in kept]
        text = ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else (words[0] if words else "nobody")
        listed = super().__new__(cls, text)
        listed.items = kept
        return listed

    def __reduce__(self) -> tuple[Any, ...]:
        return (Listed, (self.items,))


class Joined(str):
    """Sentences or clauses side by side, each said on its own, with a separator that reads the
    same in every language (``"; "``, ``" "``). ``worded`` is the separator once the items are
    said in words in another language: English writes French cards ``9♥ K♥``, Spanish says
    "9 de corazones, rey de corazones"."""

    items: tuple[Any, ...]
    separator: str
    worded: str | None

    def __new__(cls, items: Iterable[Any], separator: str = "; ", worded: str | None = None) -> Joined:
        kept = tuple(items)
        joined = super().__new__(cls, separator.join(str(item) for item in kept))
        joined.items = kept
        joined.separator = separator
        joined.worded = worded
        return joined

    def __reduce__(self) -> tuple[Any, ...]:
        return (Joined, (self.items, self.separator, self.worded))


class Counted(str):
    """A sentence that names a count, in the singular or the plural its language needs for it:
    ``Counted("%(n)s final turn left", "%(n)s final turns left", n)``."""

    one: str
    other: str
    n: int
    parts: Mapping[str, Any]

    def __new__(cls, one: str, other: str, n: int, /, **parts: Any) -> Counted:
        values = {"n": str(n), **{name: str(value) for name, value in parts.items()}}
        counted = super().__new__(cls, (one if n == 1 else other) % values)
        counted.one, counted.other, counted.n, counted.parts = one, other, n, parts
        return counted

    def __reduce__(self) -> tuple[Any, ...]:
        return (_counted, (self.one, self.other, self.n, dict(self.parts)))


def _counted(one: str, other: str, n: int, parts: Mapping[str, Any]) -> Counted:
    return Counted(one, other, n, **parts)
