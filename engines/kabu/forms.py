"""What Kabú's pages ask the scorer, declared once: each move's fields, its words, the sheet, the deal.

``GET /games/kabu`` serves it (``views.describe``); the pages build their forms from that answer and
say nothing of their own. Names are the event fields of VOCABULARY.md §5.2;
``tests/api/test_game_forms.py`` holds the fields against the JSON schemas.
"""

from __future__ import annotations

from typing import Any

from engines.common import deck_described, forms_described, move_field
from engines.kabu.options import DEFAULTS
from engines.kabu.state import DECKS, START_CARDS
from engines.said import Said

CARDS = deck_described(DECKS[DEFAULTS["deck"]])
"""The deck a card picker offers when the ``deck`` option is left at its default."""

CARDS_BY_OPTION: dict[str, Any] = {
    "option": "deck",
    "values": {name: deck_described(deck) for name, deck in DECKS.items()},
}
"""The deck under each value of the ``deck`` option."""

MOVES: dict[str, list[dict[str, Any]]] = {
    "keep": [move_field("card", "card", Said("Card kept"), unknown=True)],
    "buy_chips": [
        move_field("seat", "seat", Said("Who buys")),
        move_field("from", "seat", Said("Buys from"), other=True),
        move_field("chips", "int", Said("Chips"), min=1),
    ],
    "showdown": [move_field("hands", "rows", Said("Cards shown"), max=4)],
}
"""Each move's fields the scorer fills in (what legal-moves leaves open)."""

WORDS: dict[str, Said] = {
    "keep": Said("{seat} keeps a card"),
    "take": Said("{seat} takes a card"),
    "stand": Said("{seat} stands"),
    "showdown": Said("Showdown: cards shown"),
    "buy_chips": Said("{seat} buys chips"),
    "buy_chips.anyone": Said("A player buys chips"),
    "leave": Said("{seat} leaves the game"),
    "time_up": Said("Time is up: the match ends"),
}
"""How each move reads on its button and in a list of entries (``.anyone``: no seat named yet)."""

SHEET: dict[str, dict[str, Any]] = {"values": {"label": Said("{player}'s value (0–9)"), "max": 9}}
"""The score sheet of a hand: each player's value."""

DEAL: dict[str, Any] = {
    "perSeat": {
        "field": "hands",
        "count": {"option": "start", "values": dict(START_CARDS), "default": START_CARDS[DEFAULTS["start"]]},
    },
    "extras": [],
}
"""The deal as dealt: two cards each, or five or three to choose from (the ``start`` option)."""

FORMS = forms_described(MOVES, WORDS, SHEET, DEAL)

__all__ = ["CARDS", "CARDS_BY_OPTION", "DEAL", "FORMS", "MOVES", "SHEET", "WORDS"]
