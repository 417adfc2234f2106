"""Cabo's rule variants, each declared once: name, default, rule link, meaning, values.

The rules' checks (``OPTION_VALUES``), the ``Options`` state's defaults and ``GET /games/cabo``
are built from this table; ``tests/engines/test_options.py`` holds it against the schema.
"""

from __future__ import annotations

from typing import Any

from engines.common import Option, option_choices, option_defaults
from engines.said import Said

OPTIONS: tuple[Option, ...] = (
    Option(
        "edition",
        1,
        "/rules/cabo#option-edition",
        Said(
            "1: the first edition (the seed). 2: the second-edition bundle: 2-4 players, a taken discard "
            "stays face up in the row, a caller who is not lowest scores sum + 10 and everyone else their "
            "sum, the round also ends when the draw pile runs out, 100 → 50 at most once per player, "
            "wrongMultiPenalty defaults to keep"
        ),
        values=(1, 2),
    ),
    Option(
        "swapAny",
        False,
        "/rules/cabo#option-swapany",
        Said(
            "a swap (11, 12) may exchange any two cards of two different players, not only one of the actor's "
            "with another player's"
        ),
        values=(False, True),
    ),
    Option(
        "lockCaller",
        False,
        "/rules/cabo#option-lockcaller",
        Said("the CABO caller's cards cannot be swapped during the final turns"),
        values=(False, True),
    ),
    Option(
        "wrongMultiPenalty",
        "discard",
        "/rules/cabo#option-wrongmultipenalty",
        Said(
            "a failed multi-card claim: the cards go back face down and the new card is discarded (discard), "
            "or the new card joins the row as its last slot (keep)"
        ),
        values=("discard", "keep"),
        described={"defaultEdition2": "keep"},
    ),
)

OPTION_VALUES: dict[str, tuple[object, ...]] = option_choices(OPTIONS)
"""The allowed values of each option that is a choice."""

DEFAULTS: dict[str, Any] = option_defaults(OPTIONS)
"""Each option's default."""

__all__ = ["DEFAULTS", "OPTIONS", "OPTION_VALUES"]
