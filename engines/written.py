"""How a refusal repeats a value someone recorded: as they wrote it, never as Python does.

Its own module, importing nothing of the engines but their words (:mod:`engines.said`), so that the fold (:mod:`engines.base`), the
cards (:mod:`engines.cards`) and the shared helpers (:mod:`engines.common`) can all use it without
importing one another in a circle.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from engines.said import Joined

SHORT = 40
"""The most characters of a value a message repeats: enough to recognise it, never a whole payload."""


def as_written(value: object) -> str:
    """Write a value someone recorded for a message that refuses it: as they wrote it, never as Python does.

    A message names what it refuses (``'TH' is not a card``), and the one who reads it wrote
    JSON or the text notation, not Python: text is quoted ``'TH'`` (``“it's”`` when it holds a
    quote), ``null`` is ``null`` (the word the messages already use: "or null"), ``true`` and
    ``false`` stay lower case, numbers are as written, and lists and objects are compact JSON
    (``[3,2]``, ``{"seq":3}``) — as the schema check (:func:`schemas.show`) writes a value,
    so a value reads the same whichever check refuses it. Control characters are dropped and
    a value longer than :data:`SHORT` characters is cut there with ``…``.
    """
    if isinstance(value, str):
        text = _printable(value)
        text = text if len(text) <= SHORT and len(value) <= 4 * SHORT else text[:SHORT] + "…"
        return f"'{text}'" if "'" not in text else f"\u201c{text}\u201d"
    room = [SHORT]
    text = json.dumps(_shortened(value, room), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= SHORT and room[0] >= 0 else text[:SHORT] + "…"


def _printable(text: str) -> str:
    """``text`` without control characters, read no further than a message could show of it."""
    return "".join(c for c in text[: 4 * SHORT] if c.isprintable())


def _shortened(value: object, room: list[int]) -> object:
    """``value`` as plain JSON data with printable text, cut once ``room[0]`` values were written.

    Every value writes at least one character, so the first :data:`SHORT` of them are all a
    message shows: a huge or deeply nested payload costs no more than a small one. A cut
    leaves ``room[0]`` below zero.
    """
    room[0] -= 1
    if isinstance(value, str):
        return _printable(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, Mapping):
        out: dict[str, object] = {}
        for key, item in value.items():
            if room[0] <= 0:
                room[0] = -1
                break
            out[_printable(str(key))] = _shortened(item, room)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items: list[object] = []
        for item in value:
            if room[0] <= 0:
                room[0] = -1
                break
            items.append(_shortened(item, room))
        return items
    return _printable(str(value))


class _Grouped(Joined):
    """A number with its thousands grouped as English writes them (``1,048,576``), which the API
    says again the reader's way (``1.048.576``): a :class:`~engines.said.Joined` of the number
    alone, whose English text is grouped."""

    def __new__(cls, n: int) -> _Grouped:
        grouped = str.__new__(cls, f"{n:,}")
        grouped.items, grouped.separator, grouped.worded = (n,), "", None
        return grouped

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Grouped, (self.items[0],))


def grouped(n: int) -> str:
    """Write a number for a sentence with its thousands grouped: ``1,048,576`` in English, and in
    each language its own way once the API says the sentence again (``1.048.576`` in German)."""
    return _Grouped(n)


__all__ = ["SHORT", "grouped", "as_written"]
