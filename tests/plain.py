"""What a message for players must never contain: a regular expression or a Python repr."""

from __future__ import annotations

import re
from typing import Any

MACHINE_TEXT = re.compile(
    r"\^\(|\^\[|\$\)|\)\$|\]\$|\\d|\\S|\\s|\\\?|\[A-Z\]|\[0-9\]|\[a-z\]|\{\d+\}|does not match|is not one of"
    r"|is a required property|is not of type|is too (?:short|long)|non-unique|is not valid under"
    r"|\bTrue\b|\bFalse\b|\bNone\b|\['|\{'|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[nrt]"
)
"""Regex fragments, jsonschema's stock phrases and Python reprs (``True``, ``None``, ``['…``, ``{'…``,
escapes such as ``\\x01`` or the ``\\n`` of a string's repr)."""


def machine_text(value: Any) -> list[str]:
    """Return every string inside ``value`` that reads like code rather than words."""
    found: list[str] = []
    if isinstance(value, str):
        if MACHINE_TEXT.search(value):
            found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            found += machine_text(item)
    elif isinstance(value, list):
        for item in value:
            found += machine_text(item)
    return found
