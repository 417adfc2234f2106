"""What Cau Robat's pages ask the scorer, declared once: each move's fields, its words, the sheet, the deal.

``GET /games/cau-robat`` serves it (``views.describe``); the pages build their forms from that answer
and say nothing of their own. Names are the event fields of VOCABULARY.md §5.1;
``tests/api/test_game_forms.py`` holds the fields against the JSON schemas.
"""

from __future__ import annotations

from typing import Any

from engines.cau_robat.state import DECK, HAND_SIZE, TABLE_SIZE
from engines.common import deck_described, forms_described, move_field
from engines.said import Said

CARDS = deck_described(DECK)
"""The deck a card picker offers: the Spanish 40."""

MOVES: dict[str, list[dict[str, Any]]] = {
    "play": [
        move_field("card", "card", Said("Card played")),
        move_field("call", "bool", Said("Called (Cau, Recau …) (if known)"), optional=True),
        move_field("captures", "captures", Said("Cards taken (if known)"), optional=True),
    ],
}
"""Each move's fields the scorer fills in (what legal-moves leaves open)."""

WORDS: dict[str, str] = {"play": Said("{seat} plays")}
"""How each move reads on its button and in a list of entries."""

SHEET: dict[str, dict[str, Any]] = {
    "piles": {"label": Said("{player}'s pile (cards)"), "max": 40},
    "table": {"label": Said("Cards left on the table (if written)"), "max": 10},
}
"""The score sheet of a hand: the cards in each player's pile, and those left on the table."""

DEAL: dict[str, Any] = {
    "perSeat": {"field": "hands", "count": {"players": {str(n): k for n, k in HAND_SIZE.items()}}},
    "extras": [
        {
            "field": "table",
            "count": {"players": {str(n): k for n, k in TABLE_SIZE.items()}},
            "label": Said("Table"),
            "name": Said("table cards"),
            "place": Said("table cards card {n}: {card}"),
        }
    ],
}
"""The deal as dealt: each hand and the table, their sizes by the number of players (RULES §1.3)."""

FORMS = forms_described(MOVES, WORDS, SHEET, DEAL)

__all__ = ["CARDS", "DEAL", "FORMS", "MOVES", "SHEET", "WORDS"]
