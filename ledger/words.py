"""What the ledger says to a person, kept translatable: a message id with named parts.

The ledger knows no game and imports nothing of the engines, so it cannot use
:class:`engines.said.Said`; it says its sentences (why a chain does not verify, chiefly) with
this class of the same shape and the same name, which Babel extracts with the same keyword. The
value is the English sentence, as before, so logs and every caller read it unchanged; the
service turns it into the engines' kind before it reaches a reader (``api/service/words.py:
said``), and the API says it again in the reader's language.
"""

from __future__ import annotations

from collections.abc import Mapping
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

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles (an import's workers) keep the id and the parts
        return (_said, (self.msgid, dict(self.parts)))


def _said(msgid: str, parts: Mapping[str, Any]) -> Said:
    return Said(msgid, **parts)


__all__ = ["Said"]
