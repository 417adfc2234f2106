"""Cau Robat's rule variants, each declared once: name, default, rule link, meaning, values.

The rules' checks (``OPTION_VALUES``), the ``Options`` state's defaults and ``GET /games/cau-robat``
are built from this table; ``tests/engines/test_options.py`` holds it against the schema.
"""

from __future__ import annotations

from typing import Any

from engines.common import Option, option_choices, option_defaults
from engines.said import Said

OPTIONS: tuple[Option, ...] = (
    Option(
        "players",
        "3-5",
        "/rules/cau-robat#option-players",
        Said("3-5 players (the usual game), or 2-6 (4 table cards and 18 or 6 cards each)"),
        values=("3-5", "2-6"),
    ),
    Option(
        "dealerRotation",
        "right",
        "/rules/cau-robat#option-dealerrotation",
        Said(
            "the deal passes to the dealer's right, dealer+1, anticlockwise (right), or to the dealer's left, "
            "dealer-1 (left, as the seed says)"
        ),
        values=("right", "left"),
    ),
    Option(
        "dupFix",
        "replace",
        "/rules/cau-robat#option-dupfix",
        Said(
            "how a layout with repeated ranks is fixed: the extra cards are replaced (replace) or the layout "
            "is dealt again (redealAll); informational: table is always the layout after the fix"
        ),
        values=("replace", "redealAll"),
    ),
    Option(
        "requireAnnouncement",
        False,
        "/rules/cau-robat#option-requireannouncement",
        Said(
            "a same-rank play extends a Cau chain only when announced (call: true); unannounced it is an "
            "ordinary play that captures the card, without payments"
        ),
        values=(False, True),
    ),
    Option(
        "runDirection",
        "both",
        "/rules/cau-robat#option-rundirection",
        Said("the run is walked down and up from the matched rank (both), or only up, or only down"),
        values=("both", "up", "down"),
    ),
    Option(
        "directPileCapture",
        False,
        "/rules/cau-robat#option-directpilecapture",
        Said("a card matching another player's pile top takes that pile (and its run) even with no table match"),
        values=(False, True),
    ),
    Option(
        "pileOrder",
        "deterministic",
        "/rules/cau-robat#option-pileorder",
        Said(
            "captured cards are stacked in the deterministic order of §1.4.2, or in the order the recorder "
            "writes in captures (recorded), the capturing card on top"
        ),
        values=("deterministic", "recorded"),
    ),
    Option(
        "chainMode",
        "deferred",
        "/rules/cau-robat#option-chainmode",
        Said(
            "the chain is resolved by its final caller (deferred), or each call captures at once and the next "
            "caller takes that capture back (immediate)"
        ),
        values=("deferred", "immediate"),
    ),
    Option(
        "anyoneMayCall",
        False,
        "/rules/cau-robat#option-anyonemaycall",
        Said("any seat not yet in an open chain may extend it out of turn (the turn does not move)"),
        values=(False, True),
    ),
    Option(
        "lastPlayClears",
        True,
        "/rules/cau-robat#option-lastplayclears",
        Said("a capture by the hand's last play that empties the table earns the table-clearing payments"),
        values=(True, False),
    ),
    Option(
        "leftovers",
        "nobody",
        "/rules/cau-robat#option-leftovers",
        Said("cards left on the table at the end count for nobody, or for the last player who captured"),
        values=("nobody", "lastCapturer"),
    ),
)

OPTION_VALUES: dict[str, tuple[object, ...]] = option_choices(OPTIONS)
"""The allowed values of each option that is a choice."""

DEFAULTS: dict[str, Any] = option_defaults(OPTIONS)
"""Each option's default."""

__all__ = ["DEFAULTS", "OPTIONS", "OPTION_VALUES"]
