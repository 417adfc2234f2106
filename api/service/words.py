"""The service's words: what it says to a person, kept translatable; Flask-free.

Every sentence the service says (a refusal, an import's report, the audit's chain reason) is an
:class:`engines.said.Said`, whose value is the English sentence and which the API says again in
the reader's language. Helpers here: :func:`grouped` (from :mod:`engines.written`) writes a number the way
each language groups its thousands, and :func:`said` turns the ledger's words (:mod:`ledger.words`, of the
same shape: the ledger imports no engine) into the engines' kind, which the API knows.
"""

from __future__ import annotations

from typing import Any

from engines.said import Said
from engines.written import grouped
from ledger import words as ledger_words


def said(value: Any) -> Any:
    """Return ``value`` made the engines' :class:`~engines.said.Said` when it is the ledger's words
    (:mod:`ledger.words`; its parts too), which the API then says again in the reader's
    language: the same English. Anything else is returned as it is."""
    if isinstance(value, ledger_words.Said):
        return Said(value.msgid, **{name: said(part) for name, part in value.parts.items()})
    return value


def ordinal_suffix(n: int) -> str:
    """The English ordinal suffix of ``n``: ``st`` (1, 21), ``nd`` (2, 22), ``rd`` (3, 23), ``th``
    (4, 11, 12, 13, …); each sentence that says an ordinal has one message id per suffix, so that
    the English reads as before and each language writes its own (``2a``, ``2.ª``, ``2.``)."""
    if n % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


__all__ = ["grouped", "ordinal_suffix", "said"]
