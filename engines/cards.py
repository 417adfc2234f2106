"""Cards and their text forms: the one place where card notation is parsed and printed.

VOCABULARY.md §3 fixes one text form per deck, case-sensitive, always a JSON string:

* Spanish 40: rank ``1``-``7``, ``10``, ``11``, ``12`` + suit ``o c e b`` (``7o``, ``12b``);
* French: rank ``A``, ``2``-``10``, ``J``, ``Q``, ``K`` + suit ``C D H S`` (``10H``, ``AS``);
* Cabo: the value ``0``-``13``, no suit;
* ``??``: a card the rules hide from the recorder (any deck).

A :class:`Card` is a small frozen value; a :class:`Deck` is the multiset a game is played
with. Engines never build card strings by hand: they call :func:`parse` and ``str(card)``.

>>> deck = LA_CABRA
>>> parse("10H", deck)
Card(rank='10', suit='H')
>>> str(parse("AS", deck)), deck.count(parse("AS", deck)), len(deck.cards)
('AS', 1, 36)
>>> parse("??", deck) is None
True
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

from engines.said import Joined, Said
from engines.written import as_written

UNKNOWN = "??"
"""The text of a card the rules hide from the recorder."""

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SPANISH_SUIT_NAMES = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}
SPANISH_FIGURES = {"1": "as", "10": "sota", "11": "caballo", "12": "rey"}
"""What players call the Spanish deck's figures (the cards print 10, 11, 12; api/static/cards.js says the same)."""


class CardError(ValueError):
    """A card text that is not a card of the match's deck.

    ``code`` is ``common.card_not_in_deck`` for a well-formed card of another deck and
    ``common.bad_card`` for text that is no card at all.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_CARDS: dict[tuple[str, str | None], Card] = {}
"""Every card built so far, by ``(rank, suit)``: :class:`Card` returns the one object of its value."""


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One playing card: a rank and, except in Cabo, a suit.

    Equal and ordered by ``(rank, suit)``, like any frozen dataclass, and there is one object
    per value: ``Card(rank, suit)`` returns the card built first with that rank and suit
    (copy, pickle and ``dataclasses.replace`` all go through it), so equal cards are the
    same object and equality and hashing are the object's own, done in C. Why: engines keep
    hands and piles as frozensets of cards and hash and compare them on every move; a hash
    or ``==`` written in Python was a call each, the largest single cost of a rule fold
    (La Cabra's fold called ``__hash__`` ~9 times per event).
    """

    rank: str
    suit: str | None = None

    def __new__(cls, rank: str, suit: str | None = None) -> Card:
        card = _CARDS.get((rank, suit))
        if card is None:
            card = object.__new__(cls)
            object.__setattr__(card, "rank", rank)
            object.__setattr__(card, "suit", suit)
            card = _CARDS.setdefault((rank, suit), card)  # another thread may have built it first
        return card

    def __reduce__(self) -> tuple[type[Card], tuple[str, str | None]]:
        return Card, (self.rank, self.suit)  # to the one card of that value, in this process or another

    def __lt__(self, other: object) -> bool:
        if other.__class__ is not Card:
            return NotImplemented
        return (self.rank, self.suit) < (other.rank, other.suit)

    def __le__(self, other: object) -> bool:
        if other.__class__ is not Card:
            return NotImplemented
        return (self.rank, self.suit) <= (other.rank, other.suit)

    def __gt__(self, other: object) -> bool:
        if other.__class__ is not Card:
            return NotImplemented
        return (self.rank, self.suit) > (other.rank, other.suit)

    def __ge__(self, other: object) -> bool:
        if other.__class__ is not Card:
            return NotImplemented
        return (self.rank, self.suit) >= (other.rank, other.suit)

    def __str__(self) -> str:
        return self.rank + (self.suit or "")

    def pretty(self) -> Said:
        """Return the card for people: ``10♥``, ``7 de oros``, ``caballo de bastos``, ``13``.

        A Spanish card is said as players say it and as the pages' pickers name it (sota,
        caballo, rey for 10, 11, 12; as for the 1), never ``11 bastos``. The name is a message id
        of its own (:func:`spoken_names`), so each language says the card its players' way:
        "dama de picas", "Pik-Dame", "cavall de bastos".
        """
        said = _SPOKEN.get(self)
        if said is None:
            said = _SPOKEN.setdefault(self, Said(_english(self)))
        return said


_SPOKEN: dict[Card, Said] = {}


def _english(card: Card) -> str:
    if card.suit in SPANISH_SUIT_NAMES:
        return f"{SPANISH_FIGURES.get(card.rank, card.rank)} de {SPANISH_SUIT_NAMES[card.suit]}"
    return card.rank + (SUIT_SYMBOLS.get(card.suit, "") if card.suit else "")


def spanish_rank_name(rank: str) -> str:
    """Say a Spanish deck's rank as players do: ``sota``, ``caballo``, ``rey``, ``as``; ``7`` stays ``7``.

    A figure is a message id of its own (:func:`spoken_names`): Catalan says "cavall", "rei"."""
    return Said(SPANISH_FIGURES[rank]) if rank in SPANISH_FIGURES else rank


def spoken_names() -> list[str]:
    """Every card's spoken name (its English message id), and the Spanish deck's figures: the ids
    the catalogs must hold for a language to say each card its own way. Built from the decks, so
    the extraction cannot see them written out; ``api/catalogs.py`` adds them."""
    cards = dict.fromkeys(c for deck in (LA_CABRA, FRENCH_52, SPANISH_40) for c in deck.distinct())
    return [_english(c) for c in cards] + list(SPANISH_FIGURES.values())


def at_least(cards: Iterable[Card], card: Card, n: int) -> bool:
    """Tell whether ``n`` or more of ``cards`` equal ``card``.

    Rules ask "are all copies of this card already placed?" over every card of a deal. Equal
    cards are one object, so their identities are counted: integers compared in C, where
    ``cards.count(card)`` would go through the comparison a card's ordering defines.
    """
    return list(map(id, cards)).count(id(card)) >= n


@dataclass(frozen=True)
class Deck:
    """A game's pack: its name, its text pattern and every card with its multiplicity."""

    name: str
    pattern: str
    cards: tuple[Card, ...]

    @cached_property
    def _counts(self) -> Counter[Card]:
        return Counter(self.cards)

    @cached_property
    def _by_text(self) -> dict[str, Card]:
        return {str(c): c for c in self.cards}

    @cached_property
    def _distinct(self) -> tuple[Card, ...]:
        return tuple(dict.fromkeys(self.cards))

    def count(self, card: Card) -> int:
        """Return how many copies of ``card`` the deck holds (0 if none)."""
        return self._counts.get(card, 0)

    def distinct(self) -> tuple[Card, ...]:
        """Return each card of the deck once, in deck order."""
        return self._distinct

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and card in self._counts


def parse(text: str, deck: Deck) -> Card | None:
    """Parse one card of ``deck``; return None for ``"??"``.

    Raises:
        CardError: the text is not a card (``common.bad_card``) or is a card of another deck
            (``common.card_not_in_deck``).
    """
    card = deck._by_text.get(text)
    if card is not None:
        return card
    if text == UNKNOWN:
        return None
    if isinstance(text, str) and any(re.fullmatch(p, text) for p in _ALL_PATTERNS):
        raise CardError("common.card_not_in_deck", not_in_deck(text, deck))

    raise CardError(
        "common.bad_card", Said("%(value)s is not a card (write e.g. 10H, AS, 7o or ??)", value=as_written(text))
    )


def parse_known(text: str, deck: Deck) -> Card:
    """Parse a card that must be written (face up): ``"??"`` is refused.

    Raises:
        CardError: as :func:`parse`, and ``common.card_hidden`` for ``"??"``.
    """
    card = parse(text, deck)
    if card is None:
        raise CardError("common.card_hidden", Said("this card is face up: write it, not ??"))
    return card


def text(card: Card | None) -> str:
    """Print a card, ``"??"`` for an unknown one."""
    return UNKNOWN if card is None else str(card)


def texts(cards: Iterable[Card | None]) -> list[str]:
    """Print several cards."""
    return [text(c) for c in cards]


def pretty(cards: Iterable[Card | None]) -> Joined:
    """Print cards for a sentence: ``9♥ K♥ ??``; Spanish ones apart by commas (``as de oros, 7 de copas``),
    and so are French ones in a language that names them ("dama de picas, 10 de corazones")."""
    listed = list(cards)
    spanish = any(c is not None and c.suit in SPANISH_SUIT_NAMES for c in listed)
    return Joined(("??" if c is None else c.pretty() for c in listed), ", " if spanish else " ", worded=", ")


FRENCH_PATTERN = r"^(A|[2-9]|10|J|Q|K)[CDHS]$"
SPANISH_PATTERN = r"^([1-7]|1[0-2])[ocbe]$"
CABO_PATTERN = r"^([0-9]|1[0-3])$"
_ALL_PATTERNS = (FRENCH_PATTERN, SPANISH_PATTERN, CABO_PATTERN)

FRENCH_SUITS = ("C", "D", "H", "S")
SPANISH_SUITS = ("o", "c", "e", "b")


def _suited(name: str, pattern: str, ranks: Iterable[str], suits: Iterable[str], copies: int = 1) -> Deck:
    ranks = tuple(ranks)
    return Deck(name, pattern, tuple(Card(r, s) for s in suits for r in ranks for _ in range(copies)))


LA_CABRA = _suited("French 36 (6-A)", FRENCH_PATTERN, ("6", "7", "8", "9", "10", "J", "Q", "K", "A"), FRENCH_SUITS)
FRENCH_40 = _suited(
    "French 40 (A-10)", FRENCH_PATTERN, ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10"), FRENCH_SUITS
)
FRENCH_52 = _suited(
    "French 52", FRENCH_PATTERN, ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"), FRENCH_SUITS
)
FRENCH_104 = _suited(
    "French 104 (2 x 52)",
    FRENCH_PATTERN,
    ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
    FRENCH_SUITS,
    copies=2,
)
SPANISH_40 = _suited(
    "Spanish 40", SPANISH_PATTERN, ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12"), SPANISH_SUITS
)
CABO = Deck(
    "Cabo 52 (0-13)", CABO_PATTERN, tuple(Card(str(v)) for v in range(14) for _ in range(2 if v in (0, 13) else 4))
)


def not_in_deck(card: str, deck: Deck) -> Said:
    """``QS is not a card of the Spanish 40 deck``: one whole sentence per deck, as each language
    names a deck its own way (Spanish "baraja española", German "Blatt")."""
    name = deck.name
    if name == LA_CABRA.name:
        return Said("%(card)s is not a card of the French 36 (6-A) deck", card=card)
    if name == FRENCH_40.name:
        return Said("%(card)s is not a card of the French 40 (A-10) deck", card=card)
    if name == FRENCH_52.name:
        return Said("%(card)s is not a card of the French 52 deck", card=card)
    if name == FRENCH_104.name:
        return Said("%(card)s is not a card of the French 104 (2 x 52) deck", card=card)
    if name == SPANISH_40.name:
        return Said("%(card)s is not a card of the Spanish 40 deck", card=card)
    if name == CABO.name:
        return Said("%(card)s is not a card of the Cabo 52 (0-13) deck", card=card)
    return Said("%(card)s is not a card of the %(deck)s deck", card=card, deck=name)
