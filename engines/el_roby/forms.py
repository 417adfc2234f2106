"""What El Roby's pages ask the scorer, declared once: each move's fields, its words, the sheet, the deal.

``GET /games/el-roby`` serves it (``views.describe``); the pages build their forms from that answer
and say nothing of their own. Names are the event fields of VOCABULARY.md §5.4;
``tests/api/test_game_forms.py`` holds the fields against the JSON schemas.
"""

from __future__ import annotations

from typing import Any

from engines.common import deck_described, forms_described, move_field, turned_up_discard
from engines.el_roby.state import DECK
from engines.said import Said

CARDS = deck_described(DECK)
"""The deck a card picker offers: two French packs, each card twice."""

MOVES: dict[str, list[dict[str, Any]]] = {
    "draw": [
        move_field("from", "choice", Said("From"), values=["stock", "discard"]),
        move_field("card", "card", Said("Card drawn (if known)"), optional=True),
    ],
    "meld": [move_field("id", "int", Said("Meld number")), move_field("cards", "cards", Said("Cards"), max=13)],
    "lay_off": [move_field("meld", "int", Said("On meld number")), move_field("cards", "cards", Said("Cards"), max=13)],
    "discard": [
        move_field("card", "card", Said("Card discarded")),
        move_field("forced", "bool", Said("Forced (every card fits) (if known)"), optional=True),
    ],
    "showdown": [move_field("hands", "rows", Said("Cards left"), max=13)],
}
"""Each move's fields the scorer fills in (what legal-moves leaves open)."""

WORDS: dict[str, str] = {
    "draw": Said("{seat} draws"),
    "draw.stock": Said("{seat} draws from the stock"),
    "draw.discard": Said("{seat} takes the discard"),
    "draw.discardCard": Said("{seat} takes the discard ({card})"),
    "discard": Said("{seat} discards"),
    "meld": Said("{seat} melds"),
    "lay_off": Said("{seat} lays off"),
    "rebuy": Said("{seat} re-buys"),
    "showdown": Said("Showdown: cards shown"),
}
"""How each move reads on its button and in a list of entries (``draw.*``: from the stock or the discard)."""

SHEET: dict[str, dict[str, Any]] = {
    "out": {"label": Said("Made Roby (out of cards)")},
    "hands": {
        "label": Said("{player}: points of the hand"),
        "max": 999,
        "gone": Said("{player} is out of the game."),
    },
}
"""The score sheet of a hand: who made Roby, and each other player's points."""

DEAL: dict[str, Any] = {
    "perSeat": {"field": "hands", "count": 10},
    "extras": [turned_up_discard()],
}
"""The deal as dealt: ten cards each, the discard turned up."""

FORMS = forms_described(MOVES, WORDS, SHEET, DEAL)

__all__ = ["CARDS", "DEAL", "FORMS", "MOVES", "SHEET", "WORDS"]
