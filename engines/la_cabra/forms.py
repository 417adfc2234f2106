"""What La Cabra's pages ask the scorer, declared once: each move's fields, its words, the sheet, the deal.

``GET /games/la-cabra`` serves it (``views.describe``); the pages build their forms from that answer
and say nothing of their own. Names are the event fields of VOCABULARY.md §5.5;
``tests/api/test_game_forms.py`` holds the fields against the JSON schemas.
"""

from __future__ import annotations

from typing import Any

from engines.common import deck_described, forms_described, move_field
from engines.la_cabra.state import DECK
from engines.said import Said

CARDS = deck_described(DECK)
"""The deck a card picker offers: 6 to A of four suits, one of each."""

MOVES: dict[str, list[dict[str, Any]]] = {
    "lead": [move_field("cards", "cards", Said("Cards led"), max=4)],
    "beat": [move_field("cards", "cards", Said("Cards played"), max=4)],
    "discard": [move_field("cards", "cards", Said("Cards discarded face down"), max=4, unknown=True)],
    "tira": [
        move_field("cards", "cards", Said("The four cards"), max=4),
        move_field("rivals", "seats", Said("Also claiming (if known)"), optional=True),
    ],
}
"""Each move's fields the scorer fills in (what legal-moves leaves open)."""

WORDS: dict[str, str] = {  # {seat} is filled in by the page
    "lead": Said("{seat} leads"),
    "beat": Said("{seat} beats"),
    "discard": Said("{seat} discards"),
    "tira": Said("{seat} leads a tira (four of a suit, out of turn)"),
}
"""How each move reads on its button and in a list of entries."""

SHEET: dict[str, dict[str, Any]] = {
    "mode": {
        "label": Said("The sheet holds"),
        "cardPoints": Said("card points"),
        "lossPoints": Said("loss points only"),
    },
    "cardPoints": {
        "label": Said("Card points of {team}"),
        "max": 120,
        "other": Said("{team}: {points} card points"),
        "missing": Said("Write the card points first."),
    },
    "tricks": {
        "label": Said("Tricks of {team} (if written)"),
        "note": Said("Tricks are needed only when a team took no card points (blank tricks or none)."),
    },
    "lastTrick": {"label": Said("Last trick won by (if written)")},
    "lossPoints": {
        "label": Said("Loss points of {team}"),
        "values": [0, 2, 4, 6],
        "note": Said(
            "The deal's own 2, 4 or 6 for the losers (0 and 0 for 60–60); a doubling after eggs is the engine's."
        ),
        "missing": Said("Pick both teams' loss points first."),
    },
}
"""The score sheet of a deal: each team's card points (tricks only when a team has none), or the
loss points alone."""

DEAL: dict[str, Any] = {
    "perSeat": {"field": "hands", "count": 4},
    "extras": [
        {
            "field": "trump",
            "count": 1,
            "single": True,
            "label": Said("Trump card shown"),
            "name": Said("trump card"),
            "place": Said("trump card card {n}: {card}"),
        }
    ],
}
"""The deal as dealt: four cards each, the trump card shown."""

FORMS = forms_described(MOVES, WORDS, SHEET, DEAL)

__all__ = ["CARDS", "DEAL", "FORMS", "MOVES", "SHEET", "WORDS"]
