"""La Cabra's rule variants, each declared once: name, default, rule link, meaning, values.

The rules' checks (``OPTION_VALUES``), the ``Options`` state's defaults and ``GET /games/la-cabra``
are built from this table; ``tests/engines/test_options.py`` holds it against the schema.
"""

from __future__ import annotations

from typing import Any

from engines.common import Option, option_choices, option_defaults
from engines.said import Said

OPTIONS: tuple[Option, ...] = (
    Option(
        "trumpCard",
        "returned",
        "/rules/la-cabra#option-trumpcard",
        Said(
            "the card shown for trump goes back into the stock (returned) or lies face up at the bottom of "
            "the stock and is drawn last (bottomFaceUp)"
        ),
        values=("returned", "bottomFaceUp"),
    ),
    Option(
        "discardFaceUp",
        False,
        "/rules/la-cabra#option-discardfaceup",
        Said("discards are played face up (and must be written)"),
        values=(False, True),
    ),
    Option(
        "tiraInterruptsTira",
        False,
        "/rules/la-cabra#option-tirainterruptstira",
        Said("a tira may interrupt a trick already restarted by a tira"),
        values=(False, True),
    ),
    Option(
        "eggs",
        "none",
        "/rules/la-cabra#option-eggs",
        Said("a 60-60 deal has no effect (none) or doubles the next deal's loss points, never compounded (doubleNext)"),
        values=("none", "doubleNext"),
    ),
)

OPTION_VALUES: dict[str, tuple[object, ...]] = option_choices(OPTIONS)
"""The allowed values of each option that is a choice."""

DEFAULTS: dict[str, Any] = option_defaults(OPTIONS)
"""Each option's default."""

__all__ = ["DEFAULTS", "OPTIONS", "OPTION_VALUES"]
