"""La Cabra's values: the options, the state of a match, and the card arithmetic of docs/RULES.md §5.

Everything here is immutable: tuples, frozensets, ints and frozen values. ``apply`` builds
a new state (``state._replace(...)``) and never changes the old one.

The records rebuilt on every move (:class:`State`, :class:`Hand`, :class:`Trick`,
:class:`Play`, :class:`TrickDone`) are ``NamedTuple``s rather than frozen dataclasses: they
are tuples just as immutable, and ``_replace`` costs a fraction of ``dataclasses.replace``
(measured: 3 µs against 18 µs on the 25-field :class:`Hand`; 1.3 µs against 4.3 µs on the
9-field :class:`State`, which every move rebuilds too). The values built once per hand or
match (:class:`Options`, :class:`Claim`, :class:`Facts`, :class:`HandScore`) stay frozen
dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, reduce
from itertools import permutations
from operator import or_
from typing import Iterable, NamedTuple, TypeAlias

from engines.history import EMPTY, History
from engines.cards import LA_CABRA, Card, pretty
from engines.common import card_reader, cards_by_text, quick_replace
from engines.la_cabra.options import DEFAULTS
from engines.said import Joined, Listed

GAME = "la-cabra"
DECK = LA_CABRA
SEATS = 4
HAND_SIZE = 4
STOCK_SIZE = 20
LOSS_LIMIT = 12
TEAMS: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))

RANKS = ("6", "7", "8", "9", "J", "Q", "K", "10", "A")
"""Rank order within a suit, low to high (docs/RULES.md §5.1: the ten sits below the ace)."""
ORDER = {rank: i for i, rank in enumerate(RANKS)}
VALUES = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
SIGNS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

Seat: TypeAlias = int
Ref: TypeAlias = tuple[int, int]
"""A face-down card as a reveal names it: (seq of the discard event, index in its cards)."""


def value(card: Card) -> int:
    """Return the card points of ``card`` (A 11, 10 10, K 4, Q 3, J 2, others 0)."""
    return VALUES.get(card.rank, 0)


class _Points(dict[Card | None, int]):
    """Each card's points, ``None`` (an unknown card) counting 0: looked up in C, where a
    generator read each card's rank in Python (scoring a hand sums its two piles)."""

    def __missing__(self, card: Card | None) -> int:
        return 0 if card is None else VALUES.get(card.rank, 0)


_POINTS = _Points({None: 0})


def points(cards: Iterable[Card | None]) -> int:
    """Return the card points of the known cards among ``cards``."""
    return sum(map(_POINTS.__getitem__, cards))


def beats(x: Card, y: Card, trump: str) -> bool:
    """Tell whether ``x`` beats ``y``: same suit and higher, or ``x`` trump and ``y`` not."""
    if x.suit == y.suit:
        return ORDER[x.rank] > ORDER[y.rank]
    return x.suit == trump


def can_beat(cards: tuple[Card, ...], winning: tuple[Card, ...], trump: str) -> bool:
    """Tell whether ``cards`` beat ``winning`` one to one (docs/RULES.md §5.3: try all pairings)."""
    if len(cards) != len(winning):
        return False
    if len(cards) == 1:  # most beats are of one card: its one pairing, without the generators
        return beats(cards[0], winning[0], trump)
    return any(all(beats(x, y, trump) for x, y in zip(order, winning)) for order in permutations(cards))


def team_of(seat: Seat) -> int:
    """Return the team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def card_list(cards: Iterable[Card | None]) -> Joined:
    """Print cards for a sentence, ``??`` for unknown ones (each language says them its way)."""
    return pretty(cards)


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    """Sort cards by suit (♣ ♦ ♥ ♠) then rank, for stable output."""
    return sorted(cards, key=lambda c: ("CDHS".index(c.suit or "C"), ORDER[c.rank]))


BY_TEXT = cards_by_text(DECK)
_POINTS.update((c, value(c)) for c in DECK.cards)
"""The deck's cards by their text: the very objects :func:`~engines.cards.parse` returns."""

read_card = card_reader(DECK, "10H, AS or ??")
"""Parse one card of the 36-card deck; ``"??"`` (None) only where ``hidden_ok``."""


# --------------------------------------------------------------------------- sums of card values


def sum_masks(values: Iterable[int], most: int) -> tuple[int, ...]:
    """Return, for each count c ≤ ``most``, a bitmask of the totals of c of the ``values``.

    Bit p of ``masks[c]`` is set when some c of the values add up to p (a subset-sum DP on
    Python ints used as bitsets). Remembered per multiset of values: a match asks about the
    same unplaced cards again at each reveal and result, and the DP is hundreds of steps.
    """
    return _sum_masks(tuple(sorted(values)), most)


@lru_cache(maxsize=4096)
def _sum_masks(values: tuple[int, ...], most: int) -> tuple[int, ...]:
    masks = [1] + [0] * most
    for i, v in enumerate(values):
        for c in range(min(i, most - 1), -1, -1):
            if masks[c]:
                masks[c + 1] |= masks[c] << v
    return tuple(masks)


@lru_cache(maxsize=1)
def deck_masks() -> tuple[int, ...]:
    """Return :func:`sum_masks` of the whole deck: bit p of entry c ⇔ c cards can be worth p."""
    return tuple(sum_masks((value(c) for c in DECK.cards), len(DECK.cards)))


@lru_cache(maxsize=1)
def deck_totals() -> int:
    """Return the bitmask of every total that some set of the deck's cards is worth."""
    return reduce(or_, deck_masks())


def bits(mask: int) -> list[int]:
    """List the set bits of ``mask``, low to high."""
    out, p = [], 0
    while mask:
        if mask & 1:
            out.append(p)
        mask >>= 1
        p += 1
    return out


# --------------------------------------------------------------------------- values in the state


@lru_cache(maxsize=4096)
def pair(a: int, b: int) -> tuple[int, int]:
    """Return the tuple ``(a, b)``, one object per value.

    Why: every hand keeps a few pairs (its card points, tricks, loss points, the running
    totals), and a replay keeps every frame's state alive at once; a long series has a few
    dozen distinct pairs, so each is kept once instead of once per hand.
    """
    return a, b


@dataclass(frozen=True, slots=True)
class Options:
    """The match's rule variants (VOCABULARY.md §2, docs/RULES.md §5)."""

    trumpCard: str = DEFAULTS["trumpCard"]
    """``returned``: the shown card goes back into the stock; ``bottomFaceUp``: it is drawn last."""
    discardFaceUp: bool = DEFAULTS["discardFaceUp"]
    """Discards are played face up (so they must be written)."""
    tiraInterruptsTira: bool = DEFAULTS["tiraInterruptsTira"]
    """A second tira may interrupt a trick that began with a tira."""
    eggs: str = DEFAULTS["eggs"]
    """``none``: a 60-60 deal has no effect; ``doubleNext``: the next deal's loss points × 2."""


@quick_replace
class Play(NamedTuple):
    """One seat's cards in a trick; ``None`` stands for a face-down card not yet revealed."""

    seq: int
    seat: Seat
    kind: str
    """``lead``, ``beat``, ``discard`` or ``tira``."""
    cards: tuple[Card | None, ...]
    face_up: bool
    """Seen by the whole table (leads, beats, tiras, discards under ``discardFaceUp``)."""


@quick_replace
class Trick(NamedTuple):
    """The trick being played."""

    leader: Seat
    """Who led it (the tira seat after a tira)."""
    origin: Seat
    """Who led it first, before any tira: tira priority counts from this seat."""
    k: int
    plays: tuple[Play, ...]
    winner: Seat
    winning: tuple[Card, ...]
    tira: int | None
    """The seq of the tira that restarted this trick, if any."""

    @property
    def turn(self) -> Seat:
        """The seat that plays next."""
        return (self.leader + len(self.plays)) % SEATS


@quick_replace
class TrickDone(NamedTuple):
    """A finished trick: its winner and the four plays, in order."""

    winner: Seat
    plays: tuple[Play, ...]


@dataclass(frozen=True, slots=True)
class Claim:
    """A ``hand_result``: the facts the table wrote for a hand."""

    seq: int
    points: tuple[int, int] | None
    cards: tuple[frozenset[Card], frozenset[Card]] | None
    tricks: tuple[int, int] | None
    """None: the sheet does not say (it is needed only when a team has 0 card points)."""
    last_trick: Seat | None
    loss: tuple[int, int] | None = None
    """The deal's loss points as the sheet wrote them (before any doubling), the ``lossPoints`` form."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What the record fixes about a finished hand's card points."""

    points: tuple[int, int] | None
    """Each team's card points, None while unrevealed cards leave them open."""
    counted: bool
    """The points come from the table's ``hand_result``, not from the cards alone."""
    sums: int
    """Bitmask of the card points team 0 can have given what is known."""
    missing: tuple[Ref, ...]
    """The face-down cards the points still need."""
    base: tuple[int, int] | None = None
    """The deal's loss points per team before the eggs multiplier (docs/RULES.md §5.4), once known:
    from the card points and tricks, or as the sheet wrote them (``lossPoints``)."""

    @property
    def eggs(self) -> bool | None:
        """60-60, not 60-60, or None while the unknown cards could still decide it."""
        if self.points is not None:
            return self.points == (60, 60)
        if self.base is not None:
            return self.base == (0, 0)
        if self.sums == 1 << 60:
            return True
        if not self.sums >> 60 & 1:
            return False
        return None


@quick_replace
class Hand(NamedTuple):
    """One hand (deal): move by move when ``trump`` is set, result only when it is None."""

    number: int
    seq: int
    dealer: Seat
    leader: Seat | None
    """Who led the first trick (None: a result-only hand that does not say)."""
    trump: Card | None
    known: tuple[frozenset[Card], ...] = ()
    """Per seat, the cards of the hand the record knows."""
    unknown: tuple[int, ...] = ()
    """Per seat, how many cards of the hand the record does not know."""
    shown: tuple[frozenset[Card], ...] = ()
    """Per seat, the known cards of the hand the whole table has seen (returned by a tira…)."""
    downs: tuple[frozenset[Card], ...] = ()
    """Per seat, its own known face-down discards of this deal (only it may see them)."""
    stock: int = 0
    trick: Trick | None = None
    to_lead: Seat = 0
    located: frozenset[Card] = frozenset()
    """Every card whose place in this deal the record knows."""
    pile_known: tuple[frozenset[Card], frozenset[Card]] = (frozenset(), frozenset())
    pile_hidden: tuple[tuple[Ref, ...], tuple[Ref, ...]] = ((), ())
    pile_count: tuple[int, int] = (0, 0)
    tricks: tuple[int, int] = (0, 0)
    played: tuple[TrickDone, ...] = ()
    last_winner: Seat | None = None
    refill_seq: int | None = None
    """The seq of the move after which the stock was first drawn from."""
    withdrawn: tuple[tuple[int, int], ...] = ()
    """(seq of a play with face-down cards taken back by a tira, seq of that tira)."""
    over: bool = False
    claim: Claim | None = None
    facts: Facts | None = None
    moves: int = 0
    """How many moves (leads, beats, discards, tiras) the hand has recorded."""
    closed_seq: int = 0
    """The seq of the ``hand_result`` that closed this dealt hand from the score sheet (0: not closed)."""

    @property
    def result_only(self) -> bool:
        """A hand recorded by its end-of-hand facts alone."""
        return self.trump is None

    @property
    def from_sheet(self) -> bool:
        """The hand is scored from the table's ``hand_result`` (result only, or closed from the sheet)."""
        return self.trump is None or self.closed_seq != 0

    def final_tricks(self) -> tuple[int, int] | None:
        """Each team's tricks at the end of the deal, None when the sheet did not say."""
        if self.from_sheet:
            return self.claim.tricks if self.claim is not None else None
        return self.tricks

    def size(self, seat: Seat) -> int:
        """How many cards ``seat`` holds."""
        return len(self.known[seat]) + self.unknown[seat]

    def turn(self) -> Seat | None:
        """The seat that moves next (leads or answers), None when the deal is over."""
        if self.over or self.trump is None:
            return None
        return self.to_lead if self.trick is None else self.trick.turn


@dataclass(frozen=True, slots=True)
class HandScore:
    """The loss points a finished hand gives, with the running totals after it."""

    points: tuple[int, int] | None
    multiplier: int | None
    totals: tuple[int, int]
    waits_for: int | None
    """The earlier hand whose unrevealed cards decide this hand's multiplier."""


@quick_replace
class State(NamedTuple):
    """A La Cabra match: players, options, the hands so far and their loss points."""

    players: tuple[str, ...]
    options: Options
    initial: tuple[int, int] = (0, 0)
    initial_double: bool = False
    carried: bool = False
    """The match carries standings in from a paper sheet (``initial``)."""
    past: History[Hand] = EMPTY
    current: Hand | None = None
    scores: History[HandScore] = EMPTY
    """One entry per finished hand, in order (the current hand included once it is over)."""
    end: int | None = None
    """Index of the hand after which a team reached 12 loss points (the series is over)."""

    @property
    def hands(self) -> History[Hand]:
        """Every hand of the match, the current one last.

        ``past`` and ``scores`` are :class:`~engines.history.History` values: adding the
        current hand, starting a hand or scoring one shares the earlier entries instead of
        copying them, so a move costs the same in the 5th hand as in the 5,000th
        (tests/engines/test_linear_folds.py counts it).
        """
        return self.past if self.current is None else self.past + (self.current,)

    def hand(self, i: int) -> Hand:
        """Return hand ``i`` (0-based) of :attr:`hands` without building that tuple."""
        past = self.past
        if 0 <= i < len(past):
            return past[i]
        if i == len(past) and self.current is not None:
            return self.current
        raise IndexError(f"the match has no hand {i}")

    @property
    def over(self) -> bool:
        """The series has ended."""
        return self.end is not None

    @property
    def totals(self) -> tuple[int, int]:
        """Each team's loss points so far."""
        return self.scores[-1].totals if self.scores else self.initial


# --------------------------------------------------------------------------- words


@lru_cache(maxsize=64)
def team_name(players: tuple[str, ...], team: int) -> Listed:
    """Name a team for a sentence as the players do, by its two players: ``Núria and Marc``
    (``Núria i Marc``, ``Núria y Marc``, ``Núria und Marc``: each language joins them its way).

    Never by initials ("NM took 72"): a table says who, not a code for who.
    """
    a, b = TEAMS[team]
    return Listed((players[a], players[b]))


def suit_sign(card: Card | None) -> str:
    """Return the suit symbol of a card (``♠``)."""
    return SIGNS.get(card.suit or "", "?") if card is not None else "?"
