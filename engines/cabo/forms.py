"""What Cabo's pages ask the scorer, declared once: each move's fields, its words, the sheet, the deal.

``GET /games/cabo`` serves it (``views.describe``); the pages build their forms from that answer and
say nothing of their own. Names are the event fields of VOCABULARY.md §5.3;
``tests/api/test_game_forms.py`` holds the fields against the JSON schemas.
"""

from __future__ import annotations

from typing import Any

from engines.cabo.state import DECK
from engines.common import deck_described, forms_described, move_field, turned_up_discard
from engines.said import Said

CARDS = deck_described(DECK)
"""The deck a card picker offers: codes and copies (two 0s, two 13s, four of each other value)."""

MOVES: dict[str, list[dict[str, Any]]] = {
    "initial_peek": [
        move_field("slots", "slots", Said("Slots looked at")),
        move_field("cards", "cards", Said("Cards seen (if known)"), optional=True, max=2),
    ],
    "take_discard": [
        move_field("slots", "slots", Said("Slots replaced")),
        move_field("cards", "cards", Said("Cards shown from them"), max=4),
    ],
    "draw": [move_field("card", "card", Said("Card drawn (if known)"), optional=True)],
    "replace": [
        move_field("slots", "slots", Said("Slots replaced")),
        move_field("cards", "cards", Said("Cards shown from them"), max=4),
        move_field("drawn", "card", Said("The drawn card (if known)"), optional=True),
    ],
    "discard": [move_field("card", "card", Said("Card discarded"))],
    "peek": [
        move_field("card", "card", Said("Card played"), only=["7", "8"]),
        move_field("slot", "slot", Said("Own slot looked at")),
        move_field("value", "card", Said("Value seen (if known)"), optional=True),
    ],
    "spy": [
        move_field("card", "card", Said("Card played"), only=["9", "10"]),
        move_field("target", "pos", Said("Card looked at"), other=True),
        move_field("value", "card", Said("Value seen (if known)"), optional=True),
    ],
    "swap": [
        move_field("card", "card", Said("Card played"), only=["11", "12"]),
        move_field("first", "pos", Said("Own card"), own=True),
        move_field("second", "pos", Said("Exchanged with"), other=True),
    ],
    "showdown": [move_field("layouts", "rows", Said("Rows shown"), max=8)],
}
"""Each move's fields the scorer fills in (what legal-moves leaves open); a move not named is one tap."""

WORDS: dict[str, str] = {
    "draw": Said("{seat} draws"),
    "discard": Said("{seat} discards"),
    "replace": Said("{seat} replaces"),
    "peek": Said("{seat} peeks (7/8)"),
    "spy": Said("{seat} spies (9/10)"),
    "swap": Said("{seat} swaps (11/12)"),
    "call_cabo": Said("{seat} calls CABO"),
    "take_discard": Said("{seat} takes the discard"),
    "initial_peek": Said("{seat} looks at two cards"),
    "showdown": Said("Showdown: cards shown"),
}
"""How each move reads on its button and in a list of entries."""

SHEET: dict[str, dict[str, Any]] = {
    "sums": {"label": Said("{player}'s card total"), "max": 663},
    "caller": {"label": Said("Called CABO")},
    "kamikaze": {"label": Said("Kamikaze: showed 12 12 13 13 (if any)")},
}
"""The score sheet of a round: each player's card total, who called CABO, a kamikaze."""

DEAL: dict[str, Any] = {
    "perSeat": {"field": "layouts", "count": 4},
    "extras": [turned_up_discard()],
}
"""The deal as dealt (VOCABULARY.md §4 ``hand_started``): four face-down cards each, the discard turned up."""

FORMS = forms_described(MOVES, WORDS, SHEET, DEAL)

__all__ = ["CARDS", "DEAL", "FORMS", "MOVES", "SHEET", "WORDS"]
