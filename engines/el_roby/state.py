"""El Roby's values: the options, the state of a match, card values and meld shapes (docs/RULES.md §4).

Everything here is immutable: tuples, frozensets, ints and frozen values; ``apply`` builds a
new state with ``_replace`` and never changes the old one. The deck is a multiset (two
52-card packs): a hand is a sorted tuple of cards that may hold the same card twice.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, NamedTuple, TypeAlias

from engines.el_roby.options import DEFAULTS
from engines.history import EMPTY, History
from engines.cards import FRENCH_104, Card, pretty
from engines.common import card_reader, cards_by_text, quick_replace
from engines.said import Joined, Said

GAME = "el-roby"
DECK = FRENCH_104
DECK_SIZE = 104
HAND_SIZE = 10
LIMIT = 99
"""A player whose score reaches 100 (LIMIT + 1) is over the limit."""

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_INDEX = {r: i + 1 for i, r in enumerate(RANKS)}
"""Rank order for runs: A 1 (or 14, above the king), 2 … 10, J 11, Q 12, K 13."""
SUITS = ("C", "D", "H", "S")

Seat: TypeAlias = int

RULE_SCORE = "/rules/el-roby#scoring-hand"
RULE_MONEY = "/rules/el-roby#scoring-money"


def value(card: Card) -> int:
    """Return a card's points: ace 11, K Q J 10, the others their face value (docs/RULES.md §4.1)."""
    if card.rank == "A":
        return 11
    if card.rank in ("J", "Q", "K"):
        return 10
    return int(card.rank)


def points(cards: Iterable[Card]) -> int:
    """Return the points of ``cards`` (every card counts, combinations included: docs/RULES.md §4.5)."""
    return sum(value(c) for c in cards)


def sort_key(card: Card) -> tuple[int, int]:
    """Sort cards by suit (♣ ♦ ♥ ♠) then rank, ace first."""
    return SUITS.index(card.suit or "C"), RANK_INDEX[card.rank]


class _SortKeys(dict[Card, tuple[int, int]]):
    """Each card's :func:`sort_key`, looked up rather than computed (hands are sorted on every move)."""

    def __missing__(self, card: Card) -> tuple[int, int]:
        return sort_key(card)


_SORT_KEYS = _SortKeys((c, sort_key(c)) for c in cards_by_text(DECK).values())
"""Keyed by the very card objects :func:`~engines.cards.parse` returns: a look-up finds its
key by identity, without calling ``Card.__eq__`` (the 104-card deck holds two equal objects
of each card, and a dict keeps the first one it was given)."""


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Return ``cards`` sorted by suit then rank (a hand's canonical form)."""
    return tuple(sorted(cards, key=_SORT_KEYS.__getitem__))


def spell(cards: Iterable[Card]) -> str:
    """Print cards for a sentence (``8♠ 8♥ 8♦``)."""
    return pretty(cards)


def spell_points(cards: Iterable[Card]) -> str:
    """Spell a hand's points: ``A♠ 11 + K♥ 10 + 7♦ 7 = 28`` (each card's words its reader's language's)."""
    cards = list(cards)
    if not cards:
        return Said("no card = 0")
    each = Joined((Said("%(card)s %(points)s", card=c.pretty(), points=value(c)) for c in cards), " + ")
    return Joined([each, points(cards)], " = ")


CARDS: dict[str, Card] = cards_by_text(DECK)
"""The deck's cards by their text, the very objects :func:`~engines.cards.parse` returns."""

read_card = card_reader(DECK, "10H, AS or ??")
"""Parse one card of the 104-card deck; ``"??"`` (None) only where ``hidden_ok`` (RuleViolation
``common.bad_card``, ``common.card_not_in_deck`` or ``common.card_hidden``)."""


def remove(hand: tuple[Card, ...], cards: Iterable[Card]) -> tuple[Card, ...]:
    """Return ``hand`` without one copy of each of ``cards`` (all must be there)."""
    left = list(hand)
    for c in cards:
        left.remove(c)
    return tuple(left)


def missing_from(hand: Iterable[Card], cards: Iterable[Card]) -> list[Card]:
    """Return the cards of ``cards`` that ``hand`` does not hold (as a multiset)."""
    have = Counter(hand)
    out = []
    for c in cards:
        if have[c]:
            have[c] -= 1
        else:
            out.append(c)
    return out


# --------------------------------------------------------------------------- options


"""The enumerated options and their values, default first; ``entry`` and ``stake`` are integers ≥ 0."""


@dataclass(frozen=True, slots=True)
class Options:
    """The match's rule variants (VOCABULARY.md §2, docs/RULES.md §4 ``roby.*``)."""

    players: str = DEFAULTS["players"]
    """``4-8`` players, or ``2-8`` (2-3 as a variant)."""
    entry: int = DEFAULTS["entry"]
    """Money each player pays into the pot before the game (E)."""
    stake: int = DEFAULTS["stake"]
    """Money each opponent pays the Roby maker per hand (s)."""
    dealerDrawOrder: str = DEFAULTS["dealerDrawOrder"]
    """How the first dealer is drawn (informational: the draw is not recorded)."""
    setsDistinctSuits: bool = DEFAULTS["setsDistinctSuits"]
    """Sets hold at most one card of each suit (so at most 4)."""
    aceWrap: bool = DEFAULTS["aceWrap"]
    """Runs may go round the corner (K-A-2)."""
    discardCheck: str = DEFAULTS["discardCheck"]
    """A discard must not fit another player's meld (``othersMelds``) or any meld (``allMelds``)."""
    elevenCardSource: str = DEFAULTS["elevenCardSource"]
    """The 11-card Roby needs a stock draw (``stockOnly``) or any draw (``either``)."""
    noImmediateRediscard: bool = DEFAULTS["noImmediateRediscard"]
    """The card taken from the discard pile may not be discarded in the same turn."""
    stockOut: str = DEFAULTS["stockOut"]
    """An empty stock is rebuilt from the discard pile (``reshuffle``) or voids the hand (``voidHand``)."""
    limitCheck: str = DEFAULTS["limitCheck"]
    """The 99-point test is on the hand kept after the discard, or before it."""
    limitScope: str = DEFAULTS["limitScope"]
    """The test applies to every turn with a new meld, to the turn of the first meld only, or also to lay-offs."""
    rebuyDenominator: str = DEFAULTS["rebuyDenominator"]
    """The re-buy price divides the pot by the players remaining, or by those plus the re-buyers."""
    rebuyRounding: str = DEFAULTS["rebuyRounding"]
    """The re-buy price is rounded up or down to whole money units."""

    @property
    def min_players(self) -> int:
        return 2 if self.players == "2-8" else 4


# --------------------------------------------------------------------------- melds


@quick_replace
class Meld(NamedTuple):
    """A set or run on the table: its id (1, 2 … per hand), owner, kind and cards in order."""

    id: int
    owner: Seat
    kind: str
    """``set`` or ``run``."""
    cards: tuple[Card, ...]


def classify(cards: Iterable[Card], options: Options) -> tuple[str, tuple[Card, ...]] | None:
    """Return ``(kind, cards in order)`` when ``cards`` form a valid set or run, else None.

    A set is three or more cards of one rank (suits may repeat unless ``setsDistinctSuits``,
    then at most one per suit). A run is three or more cards of one suit in sequence, the
    ace below the 2 or above the king, not both; under ``aceWrap`` runs go round (K-A-2).
    """
    cards = list(cards)
    if len(cards) < 3:
        return None
    ranks = {c.rank for c in cards}
    if len(ranks) == 1:
        suits = [c.suit for c in cards]
        if options.setsDistinctSuits and len(set(suits)) != len(suits):
            return None
        return "set", sorted_cards(cards)
    suits_all = {c.suit for c in cards}
    if len(suits_all) != 1 or len(ranks) != len(cards):
        return None
    idx = sorted(RANK_INDEX[c.rank] for c in cards)
    by_index = {RANK_INDEX[c.rank]: c for c in cards}
    n = len(idx)
    if idx[-1] - idx[0] == n - 1:
        return "run", tuple(by_index[i] for i in idx)
    if idx[0] == 1:  # the ace above the king
        high = sorted(i if i != 1 else 14 for i in idx)
        if high[-1] - high[0] == n - 1:
            return "run", tuple(by_index[i if i != 14 else 1] for i in high)
    if options.aceWrap:
        gaps = [k for k in range(n) if (idx[(k + 1) % n] - idx[k]) % 13 != 1]
        if len(gaps) <= 1:
            start = (gaps[0] + 1) % n if gaps else 0
            return "run", tuple(by_index[idx[(start + k) % n]] for k in range(n))
    return None


def fits(card: Card, meld: Meld, options: Options) -> bool:
    """Tell whether ``card`` could be laid off on ``meld`` (it would stay a valid meld)."""
    if meld.kind == "set":
        if card.rank != meld.cards[0].rank:
            return False
    elif card.suit != meld.cards[0].suit:
        return False
    return classify(meld.cards + (card,), options) is not None


# --------------------------------------------------------------------------- deferred checks


@quick_replace
class Pending(NamedTuple):
    """A check that waits for a seat's unknown cards (VOCABULARY.md §3, deferred checks).

    ``kind`` ``limit``: the hand kept at the end of turn ``seq`` (known cards plus
    ``unknown`` hidden ones) must be worth at most ``limit``. ``kind`` ``forced``: the
    hidden cards held when ``seq``'s forced discard was made must all fit one of ``melds``.
    """

    seq: int
    seat: Seat
    kind: str
    known: tuple[Card, ...]
    unknown: int
    limit: int
    melds: tuple[Meld, ...]


# --------------------------------------------------------------------------- a hand


@quick_replace
class Hand(NamedTuple):
    """One hand: move by move (``result_only`` False) or recorded by its result alone."""

    number: int
    seq: int
    dealer: Seat
    seats: tuple[Seat, ...]
    """The seats dealt in (still in the game), in seat order."""
    result_only: bool
    known: tuple[tuple[Card, ...], ...] = ()
    """Per seat, the cards of the hand the record knows (sorted; a card may be there twice)."""
    unknown: tuple[int, ...] = ()
    """Per seat, how many cards of the hand the record does not know."""
    shown: tuple[tuple[Card, ...], ...] = ()
    """Per seat, known hand cards the whole table saw it take (from the discard pile)."""
    stock: int = 0
    pile: tuple[Card, ...] = ()
    """The discard pile, bottom → top (every card face up)."""
    melds: tuple[Meld, ...] = ()
    own: frozenset[Seat] = frozenset()
    """Seats that exposed a meld of their own in this hand."""
    turn: Seat = 0
    phase: str = "draw"
    """``draw`` (the turn starts) or ``play`` (drawn: meld, lay off, discard)."""
    turns: int = 0
    """Turns completed in this hand (the first round lasts ``len(seats)`` turns)."""
    source: str | None = None
    """Where this turn's card came from: ``stock`` or ``discard``."""
    took: Card | None = None
    """The card taken from the discard pile this turn."""
    melded: bool = False
    """A new meld was exposed this turn."""
    laid: bool = False
    """Cards were laid off this turn."""
    first_meld: bool = False
    """This turn holds the seat's first meld of the hand (``limitScope = firstExposure``)."""
    first_round_meld: bool = False
    """A meld in the seat's first turn: the turn must end with the hand empty."""
    eleven: bool = False
    """Lay-offs without a meld of one's own this turn: the 11-card Roby, lay-offs alone to the end."""
    drew_last: bool = False
    """This turn drew the last card of the stock."""
    draws: tuple[tuple[int, Seat], ...] = ()
    """Unseen stock draws (seq, seat) not yet revealed by ``{seq, card}``."""
    bound: tuple[tuple[tuple[int, Card], ...], ...] = ()
    """Per seat, the hidden cards that moves or reveals identified, with the seq that did it."""
    pending: tuple[Pending, ...] = ()
    out: Seat | None = None
    """The seat that made Roby."""
    over: bool = False
    void: bool = False
    """Voided under ``stockOut = voidHand``."""
    final: tuple[object, ...] | None = None
    """Per seat at the end: the remaining cards (tuple), their points (int, result only), or None."""
    checked: int | None = None
    """The seq of the ``hand_result`` (result only) or ``showdown`` that gave the end facts."""
    counted: tuple[int | None, ...] | None = None
    """Points a cross-check ``hand_result`` stated for seats whose cards stayed hidden."""
    moves: int = 0
    """Moves recorded in this hand: draws, melds, lay-offs and discards."""
    closed_after: int | None = None
    """Closed from the score sheet while in play: the moves recorded before."""

    def size(self, seat: Seat) -> int:
        """How many cards ``seat`` holds."""
        return len(self.known[seat]) + self.unknown[seat]

    def next_seat(self, seat: Seat) -> Seat:
        """The next seat in play after ``seat`` (anticlockwise = seat + 1, skipping seats out)."""
        i = self.seats.index(seat)
        return self.seats[(i + 1) % len(self.seats)]

    @property
    def first_round(self) -> bool:
        """The current turn is its player's first turn of the hand."""
        return self.turns < len(self.seats)

    @property
    def scored(self) -> bool:
        """The hand's points are known (it is over and every card it needs is known)."""
        return self.over and (self.void or self.final is not None)


# --------------------------------------------------------------------------- records and the match


@quick_replace
class Record(NamedTuple):
    """A scored hand with what the table decided after it (re-buys), for the settlement.

    ``before``: each seat's score before the hand (None: out of the game); ``points``: card
    points added (None for seats not dealt in); ``money`` and ``pot`` before the hand.
    """

    number: int
    hand_seq: int
    out: Seat | None
    void: bool
    before: tuple[int | None, ...]
    points: tuple[int | None, ...]
    money: tuple[int, ...]
    pot: int
    cards: tuple[object, ...]
    """Per seat: remaining cards, a point total, or None (what the lines spell)."""
    rebuys: tuple[Seat, ...] = ()
    final: bool = False
    """The next hand started (or the match ended): the stakes and eliminations are final."""
    closed_from_sheet: tuple[int, int] | None = None
    """A move-by-move hand closed from the score sheet: (moves recorded before, the hand_result's seq)."""


@quick_replace
class State(NamedTuple):
    """An El Roby match: players, options, the standings before the last record, the hands."""

    players: tuple[str, ...]
    options: Options
    scores: tuple[int | None, ...]
    """Standings before the latest record is settled; None = out of the game."""
    money: tuple[int, ...]
    pot: int
    initial_money: tuple[int, ...]
    initial_pot: int
    carried: bool = False
    """The match carries standings in from a paper sheet (``initial``)."""
    records: History[Record] = EMPTY
    current: Hand | None = None
    hands_played: int = 0
    last_dealer: Seat | None = None

    @property
    def n(self) -> int:
        return len(self.players)
