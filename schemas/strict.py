"""Strict reading of values that come from outside: whole numbers and text.

The one set of checks every entrance uses (the API's query parameters, headers and bodies,
the command line, the archive reader), so that no value a route takes can reach ``int()``
or the database in a shape that crashes them:

- a whole number is ASCII digits (``str.isdigit`` also takes ``²`` and ``٣``, which
  ``int()`` refuses or reads as another number), at most as many digits as its highest
  value has, and within its range (a seq past 2^63 does not fit SQLite's integers);
- text holds no NUL character (U+0000): PostgreSQL's text cannot store one, and an archive
  written on SQLite must restore on PostgreSQL, so it is refused everywhere, on both backends.

Pure functions, no Flask: each refusal is a :class:`NotAccepted` whose message a player can
read (no pattern, no Python repr); the API turns it into a 400 with its own code.
"""

from __future__ import annotations

from typing import Any

from engines.said import Said
from engines.written import grouped
from schemas import MAX_INTEGER

NUL = "\x00"
_DIGITS = frozenset("0123456789")


class NotAccepted(ValueError):
    """A value refused, with the reason in words (``message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_whole_number(text: str, *, signed: bool = False) -> bool:
    """Return whether ``text`` is written as a whole number: ASCII digits, with a leading ``-``
    when ``signed`` (no spaces, no ``+``, no ``_``, no other script's digits)."""
    digits = text[1:] if signed and text.startswith("-") else text
    return bool(digits) and _DIGITS.issuperset(digits)


def whole_number(text: str, *, what: str, lowest: int = 0, highest: int = MAX_INTEGER) -> int:
    """Read ``text`` as a whole number from ``lowest`` to ``highest``.

    Raises:
        NotAccepted: not ASCII digits, or out of the range (said with ``what``, e.g. "Last-Event-ID").
    """
    text = text.strip()
    if not is_whole_number(text, signed=lowest < 0):
        raise NotAccepted(
            Said(
                "%(what)s must be a whole number from %(lowest)s to %(highest)s, written with the digits 0 to 9; "
                "got %(value)s",
                what=what,
                lowest=grouped(lowest),
                highest=grouped(highest),
                value=shown(text),
            )
        )
    if len(text.lstrip("-")) > len(str(highest)) or not lowest <= int(text) <= highest:
        bounds = dict(what=what, lowest=grouped(lowest), highest=grouped(highest))
        raise NotAccepted(
            Said(
                "%(what)s must be a whole number from %(lowest)s to %(highest)s; got a number of %(digits)s digits",
                digits=grouped(len(text)),
                **bounds,
            )
            if len(text) > 20
            else Said(
                "%(what)s must be a whole number from %(lowest)s to %(highest)s; got a number %(value)s",
                value=text,
                **bounds,
            )
        )
    return int(text)


MATCH_ID_LENGTH = 12
_ID_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def is_issued_match_id(text: str) -> bool:
    """Return whether ``text`` has the shape of a match id Tanteo issues (``new_match_id`` in
    api/service: ``secrets.token_urlsafe(9)``, 12 URL-safe characters, never starting with '-')."""
    return len(text) == MATCH_ID_LENGTH and _ID_CHARACTERS.issuperset(text) and not text.startswith("-")


def refuse_nul(text: str, *, what: str) -> str:
    """Return ``text`` unchanged when it holds no NUL character.

    Raises:
        NotAccepted: it does (said with ``what``, e.g. "the player filter").
    """
    if NUL in text:
        raise NotAccepted(nul_message(what))
    return text


def nul_message(what: str) -> str:
    """The refusal of a NUL character in ``what``, in words."""
    return Said(
        "%(what)s holds a NUL character (U+0000, an invisible control character); "
        "no name, text or id Tanteo keeps may hold one: remove it and send it again",
        what=what,
    )


def first_nul(value: Any, path: str = "$") -> str | None:
    """Return the JSON path of the first string (or object key) in ``value`` that holds a NUL, or None."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if NUL in node:
                return where
        elif isinstance(node, dict):
            for key, item in node.items():
                child = f"{where}.{shown(key, quote=False)}"
                if NUL in key:
                    return child
                stack.append((item, child))
        elif isinstance(node, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(node))
    return None


def shown(text: str, *, quote: bool = True, at_most: int = 40) -> str:
    """Show a value taken from outside in a message: at most ``at_most`` characters, control
    characters dropped, in plain quotes (never as Python writes a string)."""
    clean = "".join(c for c in text if c.isprintable())
    clean = f"{clean[:at_most]}…" if len(clean) > at_most else clean
    return f"'{clean}'" if quote else clean
