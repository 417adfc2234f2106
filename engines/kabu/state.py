"""Kabú's values: the options, the decks and card values, a hand, a settlement, a match (docs/RULES.md §2).

Everything here is immutable: tuples, frozensets, ints and frozen values. ``apply`` builds a
new state with ``_replace`` and never changes the old one. As in La Cabra, the records
rebuilt on every move (:class:`Hand`, :class:`State`) are ``NamedTuple``s; the values built
once per match or per hand (:class:`Options`, :class:`Settlement`) are frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, NamedTuple, TypeAlias

from engines.kabu.options import DEFAULTS
from engines.history import EMPTY, History
from engines.cards import FRENCH_40, FRENCH_52, SPANISH_40, Card, Deck, pretty
from engines.common import CardReader, card_reader, quick_replace
from engines.said import Joined, Said

GAME = "kabu"
Seat: TypeAlias = int
Phase: TypeAlias = Literal["keep", "third", "fourth", "showdown", "over"]
"""Where a move-by-move hand stands (docs/RULES.md §2.3): keeps (choose5/3), the third- and
fourth-card decisions, waiting for the showdown, settled."""

DECKS: dict[str, Deck] = {"french40": FRENCH_40, "full52": FRENCH_52, "spanish40": SPANISH_40}
DECK_NAMES: dict[str, Said] = {
    "french40": Said("French A-10 (40 cards)"),
    "full52": Said("French 52 (J, Q, K worth 0)"),
    "spanish40": Said("Spanish 40 (sota 10, caballo 8, rey 9)"),
}
"""Each deck's name as a person reads it (a message id: each language names the deck its own way)."""

FRENCH_VALUES = {"A": 1, "J": 0, "Q": 0, "K": 0}
SPANISH_VALUES = {"10": 10, "11": 8, "12": 9}
"""Spanish ranks: ``10`` sota, ``11`` caballo, ``12`` rey (docs/RULES.md §2.1)."""

START_CARDS = {"direct": 2, "choose5": 5, "choose3": 3}
MAX_CARDS = 4
OPEN_SIX = 6


def card_value(card: Card) -> int:
    """Return a card's point value (docs/RULES.md §2.1): A 1, 2-10 face value, J Q K 0; Spanish sota 10, caballo 8, rey 9."""
    if card.suit in ("o", "c", "e", "b"):
        return SPANISH_VALUES.get(card.rank) or int(card.rank)
    v = FRENCH_VALUES.get(card.rank)
    return int(card.rank) if v is None else v


def hand_value(cards: Iterable[Card]) -> int:
    """Return a hand's value: the last digit of the sum of its card values (0 worst … 9 best)."""
    return sum(card_value(c) for c in cards) % 10


def value_words(cards: Iterable[Card]) -> Joined:
    """Spell a hand's sum: ``5♥ 4♠ (5 + 4 = 9)``, ``10♠ 3♦ 9♣ 8♥ (10 + 3 + 9 + 8 = 30)``.

    The cards are said in the reader's language (each card's spoken name); the sum is figures."""
    cards = list(cards)
    total = sum(card_value(c) for c in cards)
    return Joined([pretty(cards), f"({' + '.join(str(card_value(c)) for c in cards)} = {total})"], " ")


def start_chips(n: int) -> int:
    """Return the starting stack: ten 1-chips, N 5-chips and N 10-chips (10 + 15·N)."""
    return 10 + 15 * n


READERS: dict[str, CardReader] = {deck.name: card_reader(deck, Said("10H, AS, 7o or ??")) for deck in DECKS.values()}
"""The card reader of each deck, by the deck's name."""


def read_card(text: object, deck: Deck, *, hidden_ok: bool = False) -> Card | None:
    """Parse one card of the match's deck; ``"??"`` only where ``hidden_ok``.

    Raises:
        RuleViolation: ``common.bad_card``, ``common.card_not_in_deck`` or ``common.card_hidden``.
    """
    return READERS[deck.name](text, hidden_ok=hidden_ok)


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    """Sort cards by value then text, for stable output."""
    return sorted(cards, key=lambda c: (card_value(c), str(c)))


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class Options:
    """The match's rule variants (VOCABULARY.md §2, docs/RULES.md §2; ``end`` comes from ``target``)."""

    deck: str = DEFAULTS["deck"]
    """``french40`` (A-10), ``full52`` (J, Q, K worth 0) or ``spanish40``."""
    maxPlayers: int = DEFAULTS["maxPlayers"]
    dealerMode: str = DEFAULTS["dealerMode"]
    """``keep`` (any seat deals), ``rotate`` (the deal passes to the next seat), ``croupier`` (a non-player deals)."""
    start: str = DEFAULTS["start"]
    """``direct`` (two cards), ``choose5`` / ``choose3`` (keep one, receive a new one)."""
    secondCardFrom: str = DEFAULTS["secondCardFrom"]
    """Where the new card of ``choose5/3`` comes from: the returned cards, or the stock."""
    openSix: bool = DEFAULTS["openSix"]
    """Six cards lie face up in the middle (*Kabú con descartes*)."""
    solvency: str = DEFAULTS["solvency"]
    """``gross``: insolvent when chips < what he owes; ``net``: when chips + what he is owed − what he owes < 0."""
    insolventCollects: bool = DEFAULTS["insolventCollects"]
    """The insolvent player still collects what the others owe him."""
    end: str = "insolvency"
    """``insolvency`` (the game ends when a player cannot pay) or ``time`` (an agreed time; buy chips or leave)."""

    @property
    def cards(self) -> Deck:
        """The match's deck."""
        return DECKS[self.deck]

    @property
    def reader(self) -> CardReader:
        """The match's card reader (see :func:`read_card`)."""
        return READERS[self.cards.name]

    @property
    def start_cards(self) -> int:
        """Cards each player receives first: 2, 5 or 3."""
        return START_CARDS[self.start]

    @property
    def choose(self) -> bool:
        """Players keep one of five (or three) cards and receive a new one."""
        return self.start != "direct"


# --------------------------------------------------------------------------- a hand


@quick_replace
class Hand(NamedTuple):
    """One hand: move by move (``result_only`` False) or by its result only.

    Per-seat tuples have one entry per seat of the match; seats not in the hand (they left
    the game, ``end = time``) have empty or ``None`` entries.
    """

    number: int
    seq: int
    dealer: Seat | None
    """The dealing seat; None under ``croupier``."""
    order: tuple[Seat, ...]
    """The seats in the hand, in deal order (dealer+1 first, the dealer last)."""
    result_only: bool
    phase: Phase = "keep"
    dealt: tuple[tuple[Card | None, ...], ...] = ()
    """Per seat, the first cards as recorded (2, 5 or 3; None = ``??``), bound later by reveals."""
    known: tuple[frozenset[Card], ...] = ()
    """Per seat, the cards the seat holds that the record knows."""
    unknown: tuple[int, ...] = ()
    """Per seat, how many cards it holds that the record does not know."""
    kept: tuple[int | None, ...] = ()
    """Per seat, the seq of its ``keep`` (choose5/3), None before it."""
    kept_card: tuple[Card | None, ...] = ()
    """Per seat, the card kept, when known."""
    draws: tuple[tuple[str | None, str | None], ...] = ()
    """Per seat, its third- and fourth-card decisions: ``take``, ``stand`` or None (not yet / not asked)."""
    table: tuple[Card, ...] = ()
    """The six open cards (``openSix``)."""
    dealt_known: frozenset[Card] = frozenset()
    """Every card of the first deal the record knows (any seat)."""
    located: frozenset[Card] = frozenset()
    """Every card whose place the record knows now: known hand cards and the open cards."""
    final: tuple[tuple[Card, ...] | None, ...] | None = None
    """Per seat, the cards shown at the end (showdown or result), None for seats not in the hand."""
    values: tuple[int | None, ...] | None = None
    """Per seat, the hand's value 0-9 (None for seats not in the hand); set once the hand is over."""
    ended_seq: int | None = None
    """The seq of the showdown or hand_result that settled the hand."""
    closed_after: int | None = None
    """A move-by-move hand closed from the score sheet: how many moves were recorded before."""

    @property
    def over(self) -> bool:
        """The hand is settled."""
        return self.values is not None

    def size(self, seat: Seat) -> int:
        """How many cards ``seat`` holds."""
        return len(self.known[seat]) + self.unknown[seat]

    @property
    def moves(self) -> int:
        """The moves recorded in this hand so far: keeps and third- and fourth-card decisions."""
        return sum(1 for k in self.kept if k is not None) + sum(1 for pair in self.draws for d in pair if d is not None)

    def takes(self, seat: Seat) -> int:
        """How many extra cards ``seat`` asked for (0, 1 or 2)."""
        return sum(1 for d in self.draws[seat] if d == "take")

    def turn(self) -> Seat | None:
        """The seat whose keep or decision is awaited, None when none is."""
        if self.result_only:
            return None
        if self.phase == "keep":
            return next((s for s in self.order if self.kept[s] is None), None)
        if self.phase == "third":
            return next((s for s in self.order if self.draws[s][0] is None), None)
        if self.phase == "fourth":
            return next((s for s in self.order if self.draws[s][0] == "take" and self.draws[s][1] is None), None)
        return None


# --------------------------------------------------------------------------- settlement


@quick_replace
class Payment(NamedTuple):
    """What one pair of players settles: ``payer`` owes ``payee`` ``chips`` (values differ by that much)."""

    payer: Seat
    payee: Seat
    chips: int
    paid: bool
    """False when the payer is insolvent, or (``insolventCollects = false``) the payee is."""


@quick_replace
class Settlement(NamedTuple):
    """A settled hand: values, every pair's payment, insolvency and the stacks after it."""

    values: tuple[int | None, ...]
    before: tuple[int, ...]
    owes: tuple[int, ...]
    """Per seat, the gross amount it owes this hand."""
    owed: tuple[int, ...]
    """Per seat, the gross amount owed to it this hand."""
    payments: tuple[Payment, ...]
    insolvent: frozenset[Seat]
    net: tuple[int | None, ...]
    """Per seat, the chips actually won (+) or paid (−); None for seats not in the hand."""
    after: tuple[int, ...]


@quick_replace
class Adjust(NamedTuple):
    """A chip movement or departure between hands (``end = time``): ``buy_chips`` or ``leave``."""

    seq: int
    kind: str
    """``buy`` or ``leave``."""
    seat: Seat
    source: Seat | None = None
    chips: int = 0


@quick_replace
class State(NamedTuple):
    """A Kabú match: players, options, stacks, the hands so far and how the match stands."""

    players: tuple[str, ...]
    options: Options
    initial: tuple[int, ...]
    carried: bool
    """The match carries stacks in from a paper sheet (``initial``)."""
    chips: tuple[int, ...]
    """Every player's stack now."""
    active: tuple[bool, ...]
    """Per seat, still in the game (``end = time``: False after ``leave``)."""
    past: History[Hand] = EMPTY
    current: Hand | None = None
    settled: History[Settlement] = EMPTY
    """One per settled hand, in order."""
    adjusts: History[tuple[Adjust, ...]] = EMPTY
    """One per settled hand: the buys and departures recorded after it, before the next hand."""
    pending: frozenset[Seat] = frozenset()
    """``end = time``: insolvent seats that must buy chips or leave before the next hand."""
    over: bool = False
    end_seq: int | None = None
    """The seq of the event that ended the match."""
    end_kind: str | None = None
    """``insolvency``, ``time`` or ``alone`` (fewer than two players left)."""

    @property
    def hands(self) -> History[Hand]:
        """Every hand, the current one last."""
        return self.past if self.current is None else self.past + (self.current,)

    @property
    def seats(self) -> range:
        """Every seat of the match."""
        return range(len(self.players))

    def in_game(self) -> list[Seat]:
        """The seats still in the game, in seat order."""
        return [s for s in self.seats if self.active[s]]

    def name(self, seat: Seat) -> str:
        """The player's name."""
        return self.players[seat]
