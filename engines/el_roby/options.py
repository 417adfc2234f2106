"""El Roby's rule variants, each declared once: name, default, rule link, meaning, values.

The rules' checks (``OPTION_VALUES``), the ``Options`` state's defaults and ``GET /games/el-roby``
are built from this table; ``tests/engines/test_options.py`` holds it against the schema.
"""

from __future__ import annotations

from typing import Any

from engines.common import Option, option_choices, option_defaults
from engines.said import Said

OPTIONS: tuple[Option, ...] = (
    Option(
        "players",
        "4-8",
        "/rules/el-roby#option-players",
        Said("4 to 8 players (4-8), or 2 to 8 (2-8: two or three as a variant)"),
        values=("4-8", "2-8"),
    ),
    Option(
        "entry",
        0,
        "/rules/el-roby#option-entry",
        Said("money each player pays into the pot before the game (E)"),
        described={"type": "integer", "minimum": 0, "maximum": 1_000_000_000},
    ),
    Option(
        "stake",
        0,
        "/rules/el-roby#option-stake",
        Said("money each opponent pays the player who makes Roby, per hand (s)"),
        described={"type": "integer", "minimum": 0, "maximum": 1_000_000_000},
    ),
    Option(
        "dealerDrawOrder",
        "value",
        "/rules/el-roby#option-dealerdraworder",
        Said(
            "first dealer: the highest card value (value) or K > Q > J > 10 among tens (rank); informational, "
            "the draw is not recorded"
        ),
        values=("value", "rank"),
    ),
    Option(
        "setsDistinctSuits",
        False,
        "/rules/el-roby#option-setsdistinctsuits",
        Said("sets hold at most one card of each suit (so 3 or 4 cards)"),
        values=(False, True),
    ),
    Option(
        "aceWrap",
        False,
        "/rules/el-roby#option-acewrap",
        Said("runs may go round the corner (K-A-2)"),
        values=(False, True),
    ),
    Option(
        "discardCheck",
        "othersMelds",
        "/rules/el-roby#option-discardcheck",
        Said("a discard must not fit another player's meld (othersMelds) or any meld (allMelds)"),
        values=("othersMelds", "allMelds"),
    ),
    Option(
        "elevenCardSource",
        "stockOnly",
        "/rules/el-roby#option-elevencardsource",
        Said("the 11-card Roby by lay-offs needs a stock draw (stockOnly) or any draw (either)"),
        values=("stockOnly", "either"),
    ),
    Option(
        "noImmediateRediscard",
        False,
        "/rules/el-roby#option-noimmediaterediscard",
        Said("the card taken from the discard pile may not be discarded in the same turn"),
        values=(False, True),
    ),
    Option(
        "stockOut",
        "reshuffle",
        "/rules/el-roby#option-stockout",
        Said(
            "an empty stock is rebuilt from the discard pile but its top card (reshuffle), or the hand is "
            "void after the turn that drew the last card (voidHand)"
        ),
        values=("reshuffle", "voidHand"),
    ),
    Option(
        "limitCheck",
        "afterDiscard",
        "/rules/el-roby#option-limitcheck",
        Said("the 99-point test is on the hand kept after the discard (afterDiscard) or before it"),
        values=("afterDiscard", "beforeDiscard"),
    ),
    Option(
        "limitScope",
        "everyMeld",
        "/rules/el-roby#option-limitscope",
        Said(
            "the test applies to every turn with a new meld (everyMeld), only to the turn of the player's "
            "first meld (firstExposure), or also to turns with lay-offs only (alsoLayoffs)"
        ),
        values=("everyMeld", "firstExposure", "alsoLayoffs"),
    ),
    Option(
        "rebuyDenominator",
        "remaining",
        "/rules/el-roby#option-rebuydenominator",
        Said(
            "the re-buy price is the pot over the players remaining (remaining) or over those plus the re-"
            "buyers of the hand (includeRebuyers)"
        ),
        values=("remaining", "includeRebuyers"),
    ),
    Option(
        "rebuyRounding",
        "up",
        "/rules/el-roby#option-rebuyrounding",
        Said("the re-buy price is rounded up or down to whole money units"),
        values=("up", "down"),
    ),
)

OPTION_VALUES: dict[str, tuple[object, ...]] = option_choices(OPTIONS)
"""The allowed values of each option that is a choice."""

DEFAULTS: dict[str, Any] = option_defaults(OPTIONS)
"""Each option's default."""

__all__ = ["DEFAULTS", "OPTIONS", "OPTION_VALUES"]
