"""Kabú's rule variants, each declared once: name, default, rule link, meaning, values.

The rules' checks (``OPTION_VALUES``), the ``Options`` state's defaults and ``GET /games/kabu``
are built from this table; ``tests/engines/test_options.py`` holds it against the schema.
"""

from __future__ import annotations

from typing import Any

from engines.common import Option, option_choices, option_defaults
from engines.said import Said

OPTIONS: tuple[Option, ...] = (
    Option(
        "deck",
        "french40",
        "/rules/kabu#option-deck",
        Said(
            "A-10 of a French pack (french40), the whole pack with J, Q, K worth 0 (full52), or the Spanish "
            "40 with sota 10, caballo 8, rey 9 (spanish40)"
        ),
        values=("french40", "full52", "spanish40"),
    ),
    Option(
        "maxPlayers",
        6,
        "/rules/kabu#option-maxplayers",
        Said("the most players a match admits (2-6 recommended, up to 10)"),
        values=tuple(range(2, 11)),
        described={"type": "integer", "minimum": 2, "maximum": 10},
    ),
    Option(
        "dealerMode",
        "keep",
        "/rules/kabu#option-dealermode",
        Said(
            "one player deals as long as he likes (keep), the deal passes to the next seat (rotate), or a "
            "croupier who does not play deals and never pays or collects (croupier)"
        ),
        values=("keep", "rotate", "croupier"),
    ),
    Option(
        "start",
        "direct",
        "/rules/kabu#option-start",
        Said(
            "two cards each (direct), or five (choose5) or three (choose3) of which each keeps one and receives a new card"
        ),
        values=("direct", "choose5", "choose3"),
    ),
    Option(
        "secondCardFrom",
        "returned",
        "/rules/kabu#option-secondcardfrom",
        Said(
            "choose5/3: the new card comes from the shuffled returned cards (returned) or from the stock "
            "after they are shuffled into it (stock)"
        ),
        values=("returned", "stock"),
    ),
    Option(
        "openSix",
        False,
        "/rules/kabu#option-opensix",
        Said("six cards lie face up in the middle, belonging to nobody (Kabú con descartes)"),
        values=(False, True),
    ),
    Option(
        "solvency",
        "gross",
        "/rules/kabu#option-solvency",
        Said(
            "insolvent when the chips held are fewer than the gross amount owed (gross), or when chips plus "
            "what is paid to him minus what he owes fall below zero (net)"
        ),
        values=("gross", "net"),
    ),
    Option(
        "insolventCollects",
        True,
        "/rules/kabu#option-insolventcollects",
        Said("the insolvent player still collects what the others owe him"),
        values=(True, False),
    ),
)

OPTION_VALUES: dict[str, tuple[object, ...]] = option_choices(OPTIONS)
"""The allowed values of each option that is a choice."""

DEFAULTS: dict[str, Any] = option_defaults(OPTIONS)
"""Each option's default."""

__all__ = ["DEFAULTS", "OPTIONS", "OPTION_VALUES"]
