"""Cau Robat's values: options, the state of a match and the rank cycle of docs/RULES.md §1.1.

Everything is immutable: tuples, frozensets and frozen records. ``apply`` builds a new
state with ``_replace`` and never changes the old one. As in La Cabra, the records rebuilt
on every move (:class:`State`, :class:`Hand`) are ``NamedTuple``s (cheap ``_replace``); the
values built once (:class:`Options`) are frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple, TypeAlias

from engines.cau_robat.options import DEFAULTS
from engines.history import EMPTY, History
from engines.cards import SPANISH_40, Card
from engines.common import card_reader, cards_by_text, quick_replace
from engines.said import Joined, Said

GAME = "cau-robat"
DECK = SPANISH_40
DECK_SIZE = 40

CYCLE = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
"""The sequence order, cyclic: 7 and 10 are adjacent, and so are 12 and 1 (docs/RULES.md §1.1)."""
POS = {rank: i for i, rank in enumerate(CYCLE)}

TABLE_SIZE = {2: 4, 3: 4, 4: 4, 5: 5, 6: 4}
"""Face-up table cards by number of players (docs/RULES.md §1.2)."""
HAND_SIZE = {n: (DECK_SIZE - t) // n for n, t in TABLE_SIZE.items()}
"""Cards per player: 18, 12, 9, 7, 6."""

CALLS = {2: "cau", 3: "recau", 4: "contracau"}
"""The name of a chain by its number of participants."""
CALL_WORDS = {"cau": "Cau", "recau": "Recau", "contracau": "Contracau"}

Seat: TypeAlias = int


def succ(rank: str) -> str:
    """Return the next rank in the cycle: ``succ("7") == "10"``, ``succ("12") == "1"``."""
    return CYCLE[(POS[rank] + 1) % len(CYCLE)]


def pred(rank: str) -> str:
    """Return the previous rank in the cycle: ``pred("10") == "7"``, ``pred("1") == "12"``."""
    return CYCLE[(POS[rank] - 1) % len(CYCLE)]


CARDS: dict[str, Card] = cards_by_text(DECK)
"""The deck's cards by their text, the very objects :func:`~engines.cards.parse` returns."""

read_card = card_reader(DECK, Said("7o, 12b or ??"))  # the example a refusal suggests, said in each language
"""Parse one card of the Spanish deck; ``"??"`` only where ``hidden_ok`` (RuleViolation ``common.bad_card``,
``common.card_not_in_deck`` or ``common.card_hidden``)."""


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    """Sort cards by rank (cycle order) then suit (o c e b), for stable output."""
    return sorted(cards, key=lambda c: (POS[c.rank], "oceb".index(c.suit or "o")))


def card_list(cards: Iterable[Card | None]) -> Joined:
    """Print cards for a sentence: ``7 de oros, 7 de copas``; ``??`` for unknown ones. Each card is
    said again in the reader's language (:meth:`~engines.cards.Card.pretty`)."""
    return Joined(("??" if c is None else c.pretty() for c in cards), ", ")


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class Options:
    """The match's rule variants (VOCABULARY.md §2, docs/RULES.md §1); every field has its default."""

    players: str = DEFAULTS["players"]
    """``3-5``, or ``2-6`` to allow 2 and 6 players (§1.2)."""
    dealerRotation: str = DEFAULTS["dealerRotation"]
    """``right``: the deal passes to dealer+1 (ACW); ``left``: to dealer-1 (§1.2)."""
    dupFix: str = DEFAULTS["dupFix"]
    """How duplicate ranks in the layout were fixed; informational, the table is the layout after the fix."""
    requireAnnouncement: bool = DEFAULTS["requireAnnouncement"]
    """A same-rank play extends a chain only when announced (``call: true``) (§1.4.1)."""
    runDirection: str = DEFAULTS["runDirection"]
    """The run is walked ``both`` ways from the matched rank, or only ``up`` or ``down`` (§1.7 #5)."""
    directPileCapture: bool = DEFAULTS["directPileCapture"]
    """A card matching another player's pile top takes that pile even with no table match (§1.7 #6)."""
    pileOrder: str = DEFAULTS["pileOrder"]
    """``deterministic`` stacking (§1.4.2), or ``recorded``: the recorder gives the order, own card on top."""
    chainMode: str = DEFAULTS["chainMode"]
    """``deferred``: the final caller resolves the chain; ``immediate``: each call captures at once (§1.4.3)."""
    anyoneMayCall: bool = DEFAULTS["anyoneMayCall"]
    """Any seat not yet in an open chain may extend it, out of turn (§1.7 #12)."""
    lastPlayClears: bool = DEFAULTS["lastPlayClears"]
    """A capture made by the hand's last play earns the table-clearing payments (§1.7 #14)."""
    leftovers: str = DEFAULTS["leftovers"]
    """Cards left on the table at the end count for ``nobody`` or for the ``lastCapturer`` (§1.5)."""


# --------------------------------------------------------------------------- what a play does


@quick_replace
class Payment(NamedTuple):
    """One card paid from the top of one pile to the top of another (docs/RULES.md §1.4.4)."""

    payer: Seat
    payee: Seat
    card: Card | None
    """None: the payer's pile was empty, nothing was paid (no debt)."""
    why: str
    """``cau``, ``recau``, ``contracau`` (chain payments) or ``clear`` (table clearing)."""


@quick_replace
class Capture(NamedTuple):
    """One capture: what landed on the capturer's pile and why."""

    seat: Seat
    rank: str
    cards: tuple[Card, ...]
    """What landed on the pile, bottom → top, payments excluded (VOCABULARY's ``captures[i].cards``)."""
    table: tuple[Card, ...]
    """The table cards taken, in stacking order (chain cards included)."""
    blocks: tuple[tuple[Seat, tuple[Card, ...]], ...]
    """Whole piles taken: (owner, the pile bottom → top), in stacking order."""
    call: str | None
    """None for an ordinary capture, else the chain it resolves: ``cau``, ``recau``, ``contracau``."""
    chain: tuple[Seat, ...]
    """The chain's participants in order (empty for an ordinary capture)."""
    taken_back: tuple[Card, ...]
    """``chainMode=immediate``: the previous caller's capture taken back off his pile."""
    payments: tuple[Payment, ...]
    cleared: bool
    """The table was empty after the capture."""


@quick_replace
class CallDone(NamedTuple):
    """A Cau, Recau or Contracau made in the hand."""

    rank: str
    seats: tuple[Seat, ...]
    call: str
    seq: int


@quick_replace
class Outcome(NamedTuple):
    """What the last play did, for the narration and the ``captures`` check."""

    seq: int
    seat: Seat
    card: Card
    extended: str | None
    """The chain the play extended (``cau``, ``recau``, ``contracau``), if any."""
    out_of_turn: bool
    closed: Seat | None
    """A chain starter whose card was not called: it simply stays on the table."""
    captures: tuple[Capture, ...]
    trailed: bool
    """The played card stayed on the table (opening a chain)."""
    ended: bool
    """The play was the hand's last."""


@quick_replace
class Chain(NamedTuple):
    """The pending Cau chain: its rank, participants and their cards (docs/RULES.md §1.3)."""

    rank: str
    seats: tuple[Seat, ...]
    cards: tuple[Card, ...]
    block: tuple[Card, ...] = ()
    """``chainMode=immediate``: what the last caller captured, taken back by the next caller."""

    @property
    def call(self) -> str | None:
        """``cau``, ``recau``, ``contracau`` for 2, 3, 4 participants; None for the starter alone."""
        return CALLS.get(len(self.seats))


@quick_replace
class Facts(NamedTuple):
    """A finished hand's end-of-hand facts (derived, or the table's ``hand_result``)."""

    piles: tuple[int, ...]
    """Each pile's card count after the last play (before leftovers)."""
    table: int
    """Cards left on the table."""
    table_cards: tuple[Card, ...] | None
    """Those cards when known."""
    last_capturer: Seat | None
    seq: int = 0
    """The seq of the ``hand_result`` that stated them (0: derived from the moves)."""


@quick_replace
class Hand(NamedTuple):
    """One hand: move by move when ``dealt``, result only otherwise."""

    number: int
    seq: int
    dealer: Seat
    dealt: bool
    known: tuple[frozenset[Card], ...] = ()
    """Per seat, the cards of the hand the record knows."""
    unknown: tuple[int, ...] = ()
    """Per seat, how many cards of the hand the record does not know."""
    table: tuple[Card, ...] = ()
    """Face-up table cards in the order they came (a pending chain's cards included)."""
    piles: tuple[tuple[Card, ...], ...] = ()
    """Per seat, the score pile bottom → top."""
    chain: Chain | None = None
    turn: Seat = 0
    located: frozenset[Card] = frozenset()
    """Every card whose place the record knows (known hand cards, table, piles)."""
    last_capturer: Seat | None = None
    calls: tuple[CallDone, ...] = ()
    plays: int = 0
    last: Outcome | None = None
    over: bool = False
    facts: Facts | None = None
    claim: Facts | None = None
    """The table's ``hand_result`` (the facts of a result-only hand, a cross-check otherwise)."""
    closed_after: int | None = None
    """A move-by-move hand closed from the score sheet: how many plays were recorded before."""

    def size(self, seat: Seat) -> int:
        """How many cards ``seat`` holds."""
        return len(self.known[seat]) + self.unknown[seat]

    @property
    def result_only(self) -> bool:
        """A hand recorded by its end-of-hand facts alone."""
        return not self.dealt


@quick_replace
class HandScore(NamedTuple):
    """A finished hand's count: cards per seat (after leftovers), hand winners, running wins."""

    cards: tuple[int, ...]
    winners: tuple[Seat, ...]
    totals: tuple[int, ...]
    table_to: Seat | None
    """Who took the leftover table cards (``leftovers=lastCapturer``), if anyone."""


@quick_replace
class State(NamedTuple):
    """A Cau Robat match: players, options, target, hands so far and hand wins."""

    players: tuple[str, ...]
    options: Options
    target: int = 3
    tie: str = "share"
    initial: tuple[int, ...] = ()
    carried: bool = False
    past: History[Hand] = EMPTY
    current: Hand | None = None
    scores: History[HandScore] = EMPTY
    end: int | None = None
    """Index of the hand after which the match ended."""
    winners: tuple[Seat, ...] = ()

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.players)

    @property
    def hands(self) -> History[Hand]:
        """Every hand of the match, the current one last."""
        return self.past if self.current is None else self.past + (self.current,)

    @property
    def over(self) -> bool:
        """The match has ended."""
        return self.end is not None

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's hand wins so far."""
        return self.scores[-1].totals if self.scores else self.initial
