"""Cabo's values: the options, the tokens that stand for physical cards, a round and a match.

A round's cards are **tokens**: one token per physical card, numbered in deal order (seat 0's
four cards are tokens 0-3, seat 1's 4-7, …, then the turned-up discard, then the draw pile
top first). A token's value may be known to the record or not (``None``); swaps and
replacements move tokens between slots, so a card keeps its identity while nobody knows
what it is, and any event that later shows it (a replacement, a showdown, a reveal) binds
that very token. Each token also remembers who has seen it (the seats that looked at it,
or everybody), which is all ``view`` needs.

Values are checked against the pile a token came from: the 52-card deck for the tokens of
the deal, and, after a reshuffle of the discard pile, the known multiset of the reshuffled
cards for the tokens drawn from the new pile (every discard is face up, so that multiset is
always known). No value may be known more often than its pile holds it.

Everything here is immutable: rounds and states are ``NamedTuple``s rebuilt with ``_replace``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeAlias

from engines.cabo.options import DEFAULTS
from engines.history import EMPTY, History
from engines.base import RuleViolation
from engines.cards import CABO, CardError, parse
from engines.common import quick_replace, as_written
from engines.said import Listed, Said

GAME = "cabo"
DECK = CABO
ROW = 4
"""Cards dealt to each seat."""
LIMIT = 100
"""The game ends when a total exceeds this (docs/RULES.md §3.5); exactly this is reset to 50 (§3.4)."""
RESET_TO = 50
KAMIKAZE = (12, 12, 13, 13)
DECK_COUNTS: tuple[int, ...] = tuple(DECK.count(parse(str(v), DECK)) for v in range(14))  # type: ignore[arg-type]
"""How many cards of each value 0-13 the deck holds (two 0s, two 13s, four of each 1-12)."""
PEEK, SPY, SWAP = (7, 8), (9, 10), (11, 12)

Seat: TypeAlias = int
Token: TypeAlias = int


@dataclass(frozen=True, slots=True)
class Options:
    """The match's rule variants (VOCABULARY.md §2, docs/RULES.md §3)."""

    edition: int = DEFAULTS["edition"]
    """1: the first edition (the seed); 2: the second-edition bundle (docs/RULES.md §3.6 #1)."""
    swapAny: bool = DEFAULTS["swapAny"]
    """A swap may exchange any two cards of two different seats, not only one of the actor's."""
    lockCaller: bool = DEFAULTS["lockCaller"]
    """The CABO caller's cards cannot be swapped during the final turns."""
    wrongMultiPenalty: str = DEFAULTS["wrongMultiPenalty"]
    """``discard``: a failed multi-card claim discards the new card; ``keep``: it joins the row."""

    @property
    def max_players(self) -> int:
        """5 in the first edition, 4 in the second."""
        return 5 if self.edition == 1 else 4

    @property
    def caller_penalty(self) -> int:
        """What a caller who is not lowest adds to the sum: 5 (edition 1) or 10 (edition 2)."""
        return 5 if self.edition == 1 else 10


@quick_replace
class Ref(NamedTuple):
    """A move whose private cards a ``reveal {seq[, index]}`` may name."""

    seq: int
    kind: str
    """``draw``, ``initial_peek``, ``peek`` or ``spy``."""
    seat: Seat
    tokens: tuple[Token, ...]


@dataclass(frozen=True, slots=True)
class RoundScore:
    """A scored round: the facts of docs/RULES.md §3.4 and the totals after it."""

    sums: tuple[int, ...]
    caller: Seat | None
    kamikaze: Seat | None
    scores: tuple[int, ...]
    """The round's score per seat, before the 100 → 50 reset (the score sheet's hand column)."""
    winners: tuple[Seat, ...]
    resets: tuple[Seat, ...]
    totals: tuple[int, ...]
    """Running totals after the round, resets applied."""
    reset_used: frozenset[Seat]
    """Seats that have had their one 100 → 50 reset (edition 2), this round included."""
    lines: tuple[tuple[Seat, int, str], ...]
    layouts: tuple[tuple[int, ...], ...] | None
    """Each seat's final row, values in slot order (None: the round was scored from the sheet's sums)."""


@quick_replace
class Sheet(NamedTuple):
    """A round's result as the table gave it in a ``hand_result`` (VOCABULARY.md §5.3).

    The full form gives every row (``layouts``); the score-sheet form gives each seat's sum
    and the kamikaze seat. Either way the round is scored from ``sums``, ``caller`` and
    ``kamikaze``: the rows, when known, only spell the sums out.
    """

    sums: tuple[int, ...]
    caller: Seat | None
    kamikaze: Seat | None
    layouts: tuple[tuple[int, ...], ...] | None


@quick_replace
class Round(NamedTuple):
    """One round: move by move (``result_only`` False) or recorded by its result alone."""

    number: int
    seq: int
    dealer: Seat
    result_only: bool
    seats: int
    # --- tokens (move by move)
    values: tuple[int | None, ...] = ()
    origin: tuple[int, ...] = ()
    """Per token, the pile it came from: 0 the deck, k the k-th reshuffled pile."""
    source: tuple[int, ...] = ()
    """Per token, the seq of the event that fixed its value (0: unknown or the deal)."""
    drawn_at: tuple[int, ...] = ()
    """Per token, the seq of the draw that took it from the draw pile (0: never drawn)."""
    seen: tuple[frozenset[Seat], ...] = ()
    """Per token, the seats that have looked at it."""
    public: frozenset[Token] = frozenset()
    """Tokens the whole table has seen."""
    face_up: frozenset[Token] = frozenset()
    """Tokens lying face up in a row (a taken discard, edition 2)."""
    pools: tuple[tuple[int, ...], ...] = ()
    """Per pile, how many cards of each value it holds: pile 0 is the deck, then each reshuffle."""
    pool_seq: tuple[int, ...] = ()
    """Per pile, the seq of the draw that reshuffled it (0 for the deck)."""
    # --- zones
    layouts: tuple[tuple[Token, ...], ...] = ()
    draw: tuple[Token, ...] = ()
    """The draw pile, top first."""
    discard: tuple[Token, ...] = ()
    """The discard pile, bottom to top."""
    pending: Token | None = None
    """The card just drawn, in the hand of the seat whose turn it is."""
    pending_seq: int = 0
    # --- turn order
    turn: Seat = 0
    started: bool = False
    """The start player has made the first turn (initial looks are over)."""
    peeked: frozenset[Seat] = frozenset()
    caller: Seat | None = None
    caller_seq: int = 0
    final_left: int = 0
    over: bool = False
    deck_out: bool = False
    """Edition 2: the round ended because the draw pile ran out."""
    refs: tuple[Ref, ...] = ()
    showdown_seq: int = 0
    moves: int = 0
    """How many moves (looks, turns, calls) the round has recorded."""
    # --- result only, or closed from the score sheet
    facts: Sheet | None = None
    """The result the round is scored from when its moves do not give it: a result-only
    round's ``hand_result``, or the one that closed a move-by-move round from the sheet."""
    closed_seq: int = 0
    """The ``hand_result`` that closed this move-by-move round from the score sheet (0: not closed)."""
    claim_seq: int = 0
    score: RoundScore | None = None

    def row_values(self, seat: Seat) -> tuple[int | None, ...]:
        """The values of ``seat``'s row as the record knows them."""
        if self.result_only:
            rows = self.facts.layouts if self.facts is not None else None
            return tuple(rows[seat]) if rows is not None else ()
        return tuple(self.values[t] for t in self.layouts[seat])

    def missing(self) -> list[tuple[Seat, int]]:
        """The (seat, slot) of every final card the record does not know (slots from 1)."""
        if self.result_only or self.closed_seq:
            return []
        return [(s, k + 1) for s in range(self.seats) for k, t in enumerate(self.layouts[s]) if self.values[t] is None]

    def live(self) -> int:
        """How many cards the round's zones hold (always 52: the conservation invariant)."""
        return sum(len(r) for r in self.layouts) + len(self.draw) + len(self.discard) + (self.pending is not None)


@quick_replace
class State(NamedTuple):
    """A Cabo match: players, options, the rounds and their scores."""

    players: tuple[str, ...]
    options: Options
    initial: tuple[int, ...]
    carried: bool = False
    past: History[Round] = EMPTY
    current: Round | None = None
    scores: History[RoundScore] = EMPTY
    """One per scored round, in order (a round is scored before the next may start)."""

    @property
    def rounds(self) -> History[Round]:
        """Every round, the current one last."""
        return self.past if self.current is None else self.past + (self.current,)

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's total so far."""
        return self.scores[-1].totals if self.scores else self.initial

    @property
    def reset_used(self) -> frozenset[Seat]:
        """Seats that have used their one edition-2 reset."""
        return self.scores[-1].reset_used if self.scores else frozenset()

    @property
    def over(self) -> bool:
        """Someone's total exceeds 100 (docs/RULES.md §3.5)."""
        return max(self.totals) > LIMIT

    @property
    def seats(self) -> int:
        return len(self.players)


# --------------------------------------------------------------------------- words


def read_value(text: object, field: str = "card") -> int | None:
    """Parse a Cabo card (``"0"``-``"13"``) to its value; ``"??"`` gives None.

    Raises:
        RuleViolation: ``common.bad_card`` or ``common.card_not_in_deck``.
    """
    if not isinstance(text, str):
        raise RuleViolation(
            "common.bad_card",
            Said(
                '%(field)s: %(value)s is not a Cabo card (write its value, "0" to "13")',
                field=field,
                value=as_written(text),
            ),
        )
    try:
        card = parse(text, DECK)
    except CardError as e:
        raise RuleViolation(e.code, Said("%(field)s: %(problem)s", field=field, problem=e.message)) from None
    return None if card is None else int(card.rank)


def read_known(text: object, field: str = "card") -> int:
    """Parse a face-up Cabo card: ``"??"`` is refused (``common.card_hidden``)."""
    v = read_value(text, field)
    if v is None:
        raise RuleViolation(
            "common.card_hidden", Said("%(field)s: this card is shown face up: write its value, not ??", field=field)
        )
    return v


def card_text(v: int | None) -> str:
    """A value as the notation writes it (``"??"`` for an unknown one)."""
    return "??" if v is None else str(v)


def slot_words(slots: list[int] | tuple[int, ...]) -> str:
    """``slot 2``, ``slots 1 and 3``."""
    if len(slots) == 1:
        return Said("slot %(slot)s", slot=slots[0])
    return Said("slots %(slots)s", slots=Listed(slots))


def plural(v: int) -> str:
    """``a 13`` / ``an 8`` / ``an 11``."""
    return Said("an %(card)s", card=v) if v in (8, 11) else Said("a %(card)s", card=v)
