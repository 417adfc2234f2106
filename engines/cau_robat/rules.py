"""Cau Robat's rules: :func:`start` a match, :func:`apply` one event, :func:`position` (docs/RULES.md §1).

Every handler checks the whole event first and only then builds the new state, so a
:class:`RuleViolation` leaves nothing half-changed. A play is worked out on a private
scratch copy (:class:`_Table`) of the table and piles; the checks that depend on what the
play derives (the ``captures`` a recorder states) run on that copy before any state is built.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from collections import Counter
from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from engines.cau_robat.options import OPTION_VALUES
from engines.base import Event, RuleViolation
from engines.cards import UNKNOWN, Card
from engines.said import Counted, Joined, Listed, Said
from engines.common import (
    check_game,
    check_options,
    dispatch,
    is_int,
    read_all,
    read_seat,
    as_written,
    set_item,
)
from engines.cau_robat.state import (
    CALL_WORDS,
    CALLS,
    CYCLE,
    DECK,
    DECK_SIZE,
    GAME,
    HAND_SIZE,
    TABLE_SIZE,
    CallDone,
    Capture,
    Chain,
    Facts,
    Hand,
    HandScore,
    Options,
    Outcome,
    Payment,
    Seat,
    State,
    card_list,
    pred,
    read_card,
    sorted_cards,
    succ,
)

TIES = ("share", "playOn")
RULE_SCORE = "/rules/cau-robat#scoring-hand"
RULE_END = "/rules/cau-robat#scoring-match"


# --------------------------------------------------------------------------- small helpers


def _names(players: Sequence[str], seats: Iterable[Seat]) -> Listed:
    """Name seats for a sentence (``Ben``, ``Ben and Dora``), joined the reader's way."""
    return Listed(players[s] for s in seats)


def _where(state: State, hand: Hand, card: Card) -> Said:
    """Say where the record already places ``card`` in this hand."""
    for s in range(state.n):
        if card in hand.known[s]:
            return Said("in %(player)s's hand", player=state.players[s])
    if card in hand.table:
        return Said("on the table")
    for s, pile in enumerate(hand.piles):
        if card in pile:
            return Said("in %(player)s's pile", player=state.players[s])
    return Said("elsewhere")


# --------------------------------------------------------------------------- start


def parse_options(raw: object) -> Options:
    """Read the ``options`` of ``match_started`` (omitted keys take their default).

    Raises:
        RuleViolation: ``common.bad_option`` for an unknown key or value.
    """
    return Options(**check_options(raw, OPTION_VALUES, "Cau Robat"))


def _is_over(totals: Sequence[int], target: int, tie: str) -> tuple[Seat, ...] | None:
    """Return the match winners when ``totals`` end the match (docs/RULES.md §1.6), else None."""
    best = max(totals)
    if best < target:
        return None
    if tie == "share":
        return tuple(s for s, t in enumerate(totals) if t >= target)
    leaders = tuple(s for s, t in enumerate(totals) if t == best)
    return leaders if len(leaders) == 1 else None


def start(data: Mapping[str, Any]) -> State:
    """Return the state right after ``match_started``.

    Raises:
        RuleViolation: ``common.wrong_game``, ``cau-robat.players`` (a count the ``players``
            option does not allow, or names not unique), ``common.bad_target``,
            ``common.bad_option``, ``common.bad_initial``.
    """
    check_game(data, GAME, "Cau Robat")
    options = parse_options(data.get("options"))
    players = data.get("players")
    lo, hi = (3, 5) if options.players == "3-5" else (2, 6)
    if not isinstance(players, (list, tuple)) or not lo <= len(players) <= hi:
        n = len(players) if isinstance(players, (list, tuple)) else 0
        if options.players == "3-5" and n in (2, 6):
            count = Said(
                'Cau Robat is played by %(low)s to %(high)s players, not %(n)s (2 and 6 need the option players = "2-6")',
                low=lo,
                high=hi,
                n=n,
            )
        else:
            count = Said("Cau Robat is played by %(low)s to %(high)s players, not %(n)s", low=lo, high=hi, n=n)
        raise RuleViolation("cau-robat.players", count)
    if not all(isinstance(p, str) and p.strip() for p in players) or len(set(players)) != len(players):
        raise RuleViolation("cau-robat.players", Said("the players need different, non-empty names"))
    target = data.get("target") or {}
    if not isinstance(target, Mapping) or set(target) - {"wins", "tie"}:
        raise RuleViolation("common.bad_target", Said('Cau Robat\'s target is {"wins": n, "tie": "share" or "playOn"}'))
    wins = target.get("wins", 3)
    tie = target.get("tie", "share")
    if not is_int(wins) or wins < 1:
        raise RuleViolation(
            "common.bad_target",
            Said("the target is a number of hand wins, 1 or more, not %(value)s", value=as_written(wins)),
        )
    if tie not in TIES:
        raise RuleViolation(
            "common.bad_target",
            Said("target tie must be 'share' or 'playOn', not %(value)s", value=as_written(tie)),
        )
    n = len(players)
    initial: tuple[int, ...] = (0,) * n
    raw = data.get("initial")
    if raw is not None:
        got = raw.get("wins") if isinstance(raw, Mapping) else None
        if (
            set(raw) - {"wins"}
            or not isinstance(got, (list, tuple))
            or len(got) != n
            or not all(is_int(v) and v >= 0 for v in got)
        ):
            raise RuleViolation(
                "common.bad_initial", Said("initial wins are %(n)s numbers (0 or more), one per player", n=n)
            )
        initial = tuple(int(v) for v in got)
        if _is_over(initial, wins, tie) is not None:
            raise RuleViolation(
                "common.bad_initial",
                Said("with these initial wins the match is already over (target %(target)s)", target=wins),
            )
    return State(
        players=tuple(players),
        options=options,
        target=int(wins),
        tie=str(tie),
        initial=initial,
        carried=raw is not None,
    )


def position(
    players: Sequence[str],
    *,
    table: Sequence[str],
    piles: Sequence[Sequence[str]],
    hands: Sequence[Sequence[str] | int] | None = None,
    turn: Seat = 0,
    dealer: Seat | None = None,
    chain: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    target: Mapping[str, Any] | None = None,
) -> State:
    """Build a mid-hand state from a position, for fixtures such as docs/RULES.md §1.8's C1-C3.

    This is the documented, test-facing way to start from a position that a log would take
    many moves to reach (or that no log reaches: C2's). The result is an ordinary state:
    record ``play`` events on it with :func:`apply`.

    Args:
        players: names in the direction of play (seat order).
        table: the face-up table cards, not counting a pending chain's cards.
        piles: each seat's score pile, bottom → top.
        hands: each seat's hand, a list of cards (``"??"`` allowed) or a count of unknown
            cards; omitted, the cards not placed elsewhere are dealt as unknown cards, as
            evenly as possible, starting with ``turn``.
        turn: the seat to play next.
        dealer: the hand's dealer (default: the seat before ``turn``).
        chain: a pending chain ``{"seats": [...], "cards": [...]}`` (its cards lie on the table).
        options, target: as in ``match_started``.

    Raises:
        RuleViolation: ``cau-robat.bad_position`` when the cards do not make up the 40-card
            deck exactly, or the table (outside the chain) repeats a rank; card and option
            errors as in :func:`start`.
    """
    data: dict[str, Any] = {"game": GAME, "players": list(players), "options": dict(options or {})}
    if target is not None:
        data["target"] = dict(target)
    state = start(data)
    n = state.n
    placed: list[Card] = []

    def known(texts: Sequence[str]) -> tuple[Card, ...]:
        out = tuple(read_card(t) for t in texts)
        placed.extend(out)  # type: ignore[arg-type]
        return out  # type: ignore[return-value]

    table_cards = known(table)
    if len({c.rank for c in table_cards}) != len(table_cards):
        raise RuleViolation(
            "cau-robat.bad_position", Said("the table (outside a chain) never holds two cards of one rank")
        )
    chain_value: Chain | None = None
    if chain:
        seats = tuple(int(s) for s in chain["seats"])
        cards = known(chain["cards"])
        if not 1 <= len(seats) <= 4 or len(cards) != len(seats) or len({c.rank for c in cards}) != 1:
            raise RuleViolation(
                "cau-robat.bad_position", Said("a chain is 1-4 seats with one card each, all of one rank")
            )
        if any(c.rank == cards[0].rank for c in table_cards):
            raise RuleViolation(
                "cau-robat.bad_position", Said("a chain's rank cannot also lie on the table outside it")
            )
        chain_value = Chain(cards[0].rank, seats, cards)
    pile_cards = tuple(known(p) for p in piles)
    if len(pile_cards) != n:
        raise RuleViolation("cau-robat.bad_position", Said("give one pile per player (%(n)s)", n=n))
    known_hands: list[frozenset[Card]] = []
    unknown: list[int] = []
    if hands is None:
        hands = [0] * n
        counts = [0] * n
        for i in range(DECK_SIZE - len(placed)):
            counts[(turn + i) % n] += 1
        hands = counts
    if len(hands) != n:
        raise RuleViolation("cau-robat.bad_position", Said("give one hand per player (%(n)s)", n=n))
    for h in hands:
        if is_int(h):
            known_hands.append(frozenset())
            unknown.append(int(h))
        else:
            cards_h = [read_card(t, hidden_ok=True) for t in h]  # type: ignore[union-attr]
            mine = [c for c in cards_h if c is not None]
            placed.extend(mine)
            known_hands.append(frozenset(mine))
            unknown.append(len(cards_h) - len(mine))
    dup = [c for c, k in Counter(placed).items() if k > 1]
    if dup:
        raise RuleViolation(
            "cau-robat.bad_position", Said("%(cards)s placed twice", cards=card_list(sorted_cards(dup)))
        )
    if len(placed) + sum(unknown) != DECK_SIZE:
        raise RuleViolation(
            "cau-robat.bad_position",
            Said(
                "the position holds %(n)s cards; the hands, table and piles make up the 40-card deck",
                n=len(placed) + sum(unknown),
            ),
        )
    if not 0 <= turn < n:
        raise RuleViolation("common.bad_seat", Said("turn must be a seat from 0 to %(last)s", last=n - 1))
    hand = Hand(
        number=1,
        seq=0,
        dealer=(turn - 1) % n if dealer is None else dealer,
        dealt=True,
        known=tuple(known_hands),
        unknown=tuple(unknown),
        table=table_cards + (chain_value.cards if chain_value else ()),
        piles=pile_cards,
        chain=chain_value,
        turn=turn,
        located=frozenset(placed),
    )
    return state._replace(current=hand)


# --------------------------------------------------------------------------- apply


def apply(state: State, event: Event) -> State:
    """Check ``event`` against the rules and return the next state.

    Raises:
        RuleViolation: the event is illegal; ``state`` is unchanged (it always is).
    """
    return dispatch(_HANDLERS, state, event, "Cau Robat")


def next_dealer(state: State, hand: Hand) -> Seat:
    """The dealer of the hand after ``hand``, per ``dealerRotation``."""
    step = 1 if state.options.dealerRotation == "right" else -1
    return (hand.dealer + step) % state.n


def _on_hand_started(state: State, event: Event) -> State:
    d = event.data
    if state.over:
        raise RuleViolation("common.match_over", _match_over(state))
    cur = state.current
    if cur is not None and not cur.over:
        if cur.result_only:
            waiting = Said("hand %(hand)s is not finished (waiting for its hand_result)", hand=cur.number)
        else:
            waiting = Said("hand %(hand)s is not finished (waiting for its last plays)", hand=cur.number)
        raise RuleViolation("common.hand_in_progress", waiting)
    dealer = read_seat(d, state.n, "dealer")
    if cur is not None and dealer != next_dealer(state, cur):
        nxt = next_dealer(state, cur)
        names = {"dealt": state.players[cur.dealer], "next": state.players[nxt], "dealer": state.players[dealer]}
        if state.options.dealerRotation == "right":
            passes = Said(
                "the deal passes to the dealer's right (ACW): %(dealt)s dealt hand %(hand)s, "
                "so %(next)s deals now, not %(dealer)s",
                hand=cur.number,
                **names,
            )
        else:
            passes = Said(
                "the deal passes to the dealer's left: %(dealt)s dealt hand %(hand)s, "
                "so %(next)s deals now, not %(dealer)s",
                hand=cur.number,
                **names,
            )
        raise RuleViolation("cau-robat.wrong_dealer", passes)
    number = 1 if cur is None else cur.number + 1
    past = state.past if cur is None else state.past + (cur,)
    table_data, hands_data = d.get("table"), d.get("hands")
    if table_data is None and hands_data is None:
        return state._replace(past=past, current=Hand(number, event.seq, dealer, dealt=False))
    if table_data is None or hands_data is None:
        raise RuleViolation(
            "cau-robat.bad_deal",
            Said("a dealt hand needs both table and hands (or neither, for a result-only hand)"),
        )
    n = state.n
    size, per = TABLE_SIZE[n], HAND_SIZE[n]
    if not isinstance(table_data, (list, tuple)) or len(table_data) != size:
        raise RuleViolation(
            "cau-robat.bad_deal",
            Said(
                "with %(n)s players the dealer turns %(size)s cards face up, not %(got)s",
                n=n,
                size=size,
                got=len(table_data) if isinstance(table_data, (list, tuple)) else 0,
            ),
        )
    if (
        not isinstance(hands_data, (list, tuple))
        or len(hands_data) != n
        or any(not isinstance(h, (list, tuple)) or len(h) != per for h in hands_data)
    ):
        raise RuleViolation(
            "cau-robat.bad_deal",
            Said("the deal is %(n)s hands of %(per)s cards each, in seat order", n=n, per=per),
        )
    where: dict[Card, Said] = {}
    table: list[Card] = []
    for text in table_data:
        c = read_card(text)
        assert c is not None
        if c in where:
            raise RuleViolation("common.card_duplicate", Said("%(card)s is on the table twice", card=c.pretty()))
        where[c] = Said("on the table")
        table.append(c)
    ranks = Counter(c.rank for c in table)
    twice = sorted(r for r, k in ranks.items() if k > 1)
    if twice:
        raise RuleViolation(
            "cau-robat.table_ranks",
            Said(
                "the face-up cards repeat rank %(ranks)s: fix the layout first (the extra card goes back "
                "and is replaced) and record the table as it stands after the fix",
                ranks=Joined(twice, ", "),
            ),
        )
    known: list[frozenset[Card]] = []
    unknown: list[int] = []
    for s, cards in enumerate(hands_data):
        mine: set[Card] = set()
        hidden = 0
        for text in cards:
            c = read_card(text, hidden_ok=True)
            if c is None:
                hidden += 1
                continue
            if c in where:
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "%(card)s is dealt to %(player)s but is also %(where)s",
                        card=c.pretty(),
                        player=state.players[s],
                        where=where[c],
                    ),
                )
            where[c] = Said("in %(player)s's hand", player=state.players[s])
            mine.add(c)
        known.append(frozenset(mine))
        unknown.append(hidden)
    empty: tuple[tuple[Card, ...], ...] = ((),) * n
    hand = Hand(
        number,
        event.seq,
        dealer,
        dealt=True,
        known=tuple(known),
        unknown=tuple(unknown),
        table=tuple(table),
        piles=empty,
        turn=(dealer + 1) % n,
        located=frozenset(where),
    )
    return state._replace(past=past, current=hand)


def _deal(state: State) -> Hand:
    """The hand being played move by move.

    Raises:
        RuleViolation: ``common.match_over``, ``common.no_hand``, ``common.no_deal``
            (a result-only hand), ``cau-robat.hand_over``.
    """
    if state.over:
        raise RuleViolation("common.match_over", _match_over(state))
    hand = state.current
    if hand is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if hand.result_only:
        raise RuleViolation(
            "common.no_deal",
            Said("hand %(hand)s is recorded by its result only: plays cannot be recorded in it", hand=hand.number),
        )
    if hand.over:
        raise RuleViolation(
            "cau-robat.hand_over", Said("hand %(hand)s is over: every card has been played", hand=hand.number)
        )
    return hand


def _match_over(state: State) -> Said:
    return Said("the match is over: %(players)s won it", players=_names(state.players, state.winners))


def can_extend(state: State, hand: Hand, seat: Seat, card: Card) -> bool:
    """Whether ``seat`` playing ``card`` may extend the open chain (§1.4.1 step 1)."""
    chain = hand.chain
    return chain is not None and card.rank == chain.rank and seat not in chain.seats and len(chain.seats) < 4


def _take(state: State, hand: Hand, seat: Seat, card: Card) -> tuple[frozenset[Card], int]:
    """Return ``seat``'s known cards and unknown count once ``card`` has left its hand.

    A card not known in the hand binds one of its unknown cards (implicit binding,
    VOCABULARY.md §3) if the record places it nowhere else.

    Raises:
        RuleViolation: ``cau-robat.empty_hand``, ``common.card_unavailable``.
    """
    name = state.players[seat]
    mine, unknown = hand.known[seat], hand.unknown[seat]
    if not mine and not unknown:
        raise RuleViolation("cau-robat.empty_hand", Said("%(player)s has no cards left", player=name))
    if card in mine:
        return mine - {card}, unknown
    if card in hand.located:
        where = _where(state, hand, card)
        same = [c for c in DECK.distinct() if c.rank == card.rank]
        if all(c in hand.located for c in same):
            msg = Said(
                "%(player)s cannot play %(card)s: it is %(where)s (all four %(rank)ss are already accounted for)",
                player=name,
                card=card.pretty(),
                where=where,
                rank=card.rank,
            )
        else:
            msg = Said("%(player)s cannot play %(card)s: it is %(where)s", player=name, card=card.pretty(), where=where)
        raise RuleViolation("common.card_unavailable", msg)
    if unknown == 0:
        raise RuleViolation(
            "common.card_unavailable",
            Said(
                "%(player)s's hand is known (%(cards)s): it holds no %(card)s",
                player=name,
                cards=card_list(sorted_cards(mine)),
                card=card.pretty(),
            ),
        )
    return mine, unknown - 1


@lru_cache(maxsize=None)
def _others(n: int) -> tuple[tuple[Seat, ...], ...]:
    """Per seat of an ``n``-player table, the other seats in turn order starting after it (asked on every play)."""
    return tuple(tuple((x + i) % n for i in range(1, n)) for x in range(n))


class _Table:
    """A scratch copy of the table and piles on which one play is worked out.

    Private and short-lived: built from a frozen hand, changed in place while the play is
    processed, and read back into a new frozen hand. The input hand is never touched.
    """

    def __init__(self, state: State, hand: Hand, seq: int, final: bool, recorded: list[Any] | None) -> None:
        self.state = state
        self.n = state.n
        self.seats_after = _others(self.n)
        self.opts = state.options
        self.seq = seq
        self.table = list(hand.table)
        self.piles: list[Sequence[Card]] = list(hand.piles)
        """Each seat's pile: the hand's own tuple until this play changes it (:meth:`pile`), then a list."""
        self.chain = hand.chain
        self.calls = list(hand.calls)
        self.last_capturer = hand.last_capturer
        self.captures: list[Capture] = []
        self.final = final
        self.recorded = recorded

    def pile(self, y: Seat) -> list[Card]:
        """Return seat ``y``'s pile to change in place (copied from the hand's tuple the first time).

        Piles grow to dozens of cards and most plays touch one or none of them: copying
        only those keeps a play from costing the size of every pile twice.
        """
        pile = self.piles[y]
        if type(pile) is not list:
            pile = self.piles[y] = list(pile)
        return pile

    def others(self, x: Seat) -> tuple[Seat, ...]:
        """The other seats in turn order, starting after ``x``."""
        return self.seats_after[x]

    def pay(self, payer: Seat, payee: Seat, why: str) -> Payment:
        """§1.4.4: the payer's top card onto the payee's pile; nothing from an empty pile."""
        card = self.pile(payer).pop() if self.piles[payer] else None
        if card is not None:
            self.pile(payee).append(card)
        return Payment(payer, payee, card, why)

    def linked(self, x: Seat, rank: str) -> bool:
        """§1.4.2: a table card of ``rank``, or another player's pile topped with it."""
        return any(c.rank == rank for c in self.table) or any(
            self.piles[y] and self.piles[y][-1].rank == rank for y in self.others(x)
        )

    def capture(
        self,
        x: Seat,
        rank: str,
        base: Sequence[Card],
        top: Card,
        *,
        call: str | None = None,
        chain: tuple[Seat, ...] = (),
        taken_back: tuple[Card, ...] = (),
    ) -> Capture:
        """§1.4.2: ``x`` takes ``base`` and the run around ``rank``; ``top`` goes on top.

        ``base`` (the level-0 cards) and ``top`` are already off the table and the piles.
        """
        down: list[str] = []
        up: list[str] = []
        in_run = {rank}
        if self.opts.runDirection in ("both", "down"):
            r = pred(rank)
            while r not in in_run and self.linked(x, r):
                down.append(r)
                in_run.add(r)
                r = pred(r)
        if self.opts.runDirection in ("both", "up"):
            r = succ(rank)
            while r not in in_run and self.linked(x, r):
                up.append(r)
                in_run.add(r)
                r = succ(r)
        stack: list[Card] = list(base)
        table_taken: list[Card] = list(base)
        blocks: list[tuple[Seat, tuple[Card, ...]]] = []
        for r in [rank, *down, *up]:
            for c in [c for c in self.table if c.rank == r]:
                self.table.remove(c)
                stack.append(c)
                table_taken.append(c)
            for y in self.others(x):
                pile = self.piles[y]
                if pile and pile[-1].rank == r:
                    blocks.append((y, tuple(pile)))
                    stack.extend(pile)
                    self.piles[y] = []
        stack.append(top)
        table_taken.append(top)
        cards = self._recorded_order(x, tuple(stack)) if self.recorded is not None else tuple(stack)
        self.pile(x).extend(cards)
        self.last_capturer = x
        cap = Capture(x, rank, cards, tuple(table_taken), tuple(blocks), call, chain, taken_back, (), False)
        self.captures.append(cap)
        return cap

    def _recorded_order(self, x: Seat, derived: tuple[Card, ...]) -> tuple[Card, ...]:
        """``pileOrder=recorded``: the recorder's order of this capture, checked (§1.4.2)."""
        assert self.recorded is not None
        i = len(self.captures)
        name = self.state.players[x]
        if i >= len(self.recorded):
            raise RuleViolation(
                "cau-robat.captures_required",
                Said(
                    "with pileOrder = recorded every capture needs its order: capture %(n)s of this play is "
                    "%(player)s's %(cards)s; write it in captures",
                    n=i + 1,
                    player=name,
                    cards=card_list(derived),
                ),
            )
        given = self.recorded[i]
        problem = _capture_difference(self.state, i, x, derived, given)
        if problem:
            raise RuleViolation("cau-robat.mismatch", Said("captures: %(problem)s", problem=problem))
        order = tuple(read_all(given["cards"], read_card))
        if order[-1] != derived[-1]:
            raise RuleViolation(
                "cau-robat.pile_order",
                Said(
                    "the capturing card %(card)s goes on top of %(player)s's pile, not %(other)s",
                    card=derived[-1].pretty(),
                    player=name,
                    other=order[-1].pretty(),  # type: ignore[union-attr]
                ),
            )
        return order  # type: ignore[return-value]

    def settle(self, cap: Capture, payments: list[Payment]) -> None:
        """Add the table-clearing test (§1.4.2, after any chain payments) and store the payments."""
        cleared = not self.table
        if cleared and (self.opts.lastPlayClears or not self.final):
            payments += [self.pay(y, cap.seat, "clear") for y in self.others(cap.seat)]
        i = self.captures.index(cap)
        self.captures[i] = cap._replace(payments=tuple(payments), cleared=cleared)

    def record_call(self, chain: Chain) -> None:
        if len(chain.seats) >= 2:
            self.calls.append(CallDone(chain.rank, chain.seats, CALLS[len(chain.seats)], self.seq))

    def resolve(self) -> Seat | None:
        """Resolve (deferred, 2+ seats) or close the open chain; return a starter left uncalled."""
        chain = self.chain
        if chain is None:
            return None
        self.chain = None
        if len(chain.seats) == 1:
            return chain.seats[0]
        self.record_call(chain)
        if self.opts.chainMode == "immediate":
            return None  # every call already captured
        final = chain.seats[-1]
        for c in chain.cards:
            self.table.remove(c)
        cap = self.capture(final, chain.rank, chain.cards[:-1], chain.cards[-1], call=chain.call, chain=chain.seats)
        self.settle(cap, [self.pay(p, final, cap.call or "") for p in chain.seats[:-1]])
        return None

    def call_now(self, seat: Seat, card: Card) -> None:
        """``chainMode=immediate``: the call captures at once, taking back the previous caller's capture."""
        chain = self.chain
        assert chain is not None
        seats = chain.seats + (seat,)
        level = CALLS[len(seats)]
        if len(chain.seats) == 1:
            base: tuple[Card, ...] = chain.cards
            for c in base:
                self.table.remove(c)
            back: tuple[Card, ...] = ()
        else:
            prev = chain.seats[-1]
            back = chain.block
            remaining = list(back)
            kept = []
            for c in self.piles[prev]:
                if c in remaining:
                    remaining.remove(c)
                else:
                    kept.append(c)
            self.piles[prev] = kept
            base = back
        cap = self.capture(seat, chain.rank, base, card, call=level, chain=seats, taken_back=back)
        self.settle(cap, [self.pay(p, seat, level) for p in chain.seats])
        self.chain = Chain(chain.rank, seats, chain.cards + (card,), cap.cards)
        if len(seats) == 4:
            self.record_call(self.chain)
            self.chain = None

    def normal(self, seat: Seat, card: Card) -> bool:
        """§1.4.1 step 3; return whether the card stayed on the table."""
        matched = [c for c in self.table if c.rank == card.rank]
        direct = self.opts.directPileCapture and any(
            self.piles[y] and self.piles[y][-1].rank == card.rank for y in self.others(seat)
        )
        if matched or direct:
            for c in matched:
                self.table.remove(c)
            cap = self.capture(seat, card.rank, matched, card)
            self.settle(cap, [])
            return False
        self.table.append(card)
        self.chain = Chain(card.rank, (seat,), (card,))
        return True


def _capture_difference(state: State, i: int, seat: Seat, derived: tuple[Card, ...], given: Any) -> Said | None:
    """Compare a stated capture with the derived one; say what differs, or None."""
    name = state.players[seat]
    if (
        not isinstance(given, Mapping)
        or not is_int(given.get("seat"))
        or not isinstance(given.get("cards"), (list, tuple))
    ):
        return Said("capture %(n)s must be {seat, cards}", n=i + 1)
    cards = [c for c in read_all(given["cards"], read_card) if c is not None]
    if given["seat"] != seat:
        if 0 <= given["seat"] < state.n:
            return Said(
                "capture %(n)s is %(player)s's (%(cards)s), not %(other)s's",
                n=i + 1,
                player=name,
                cards=card_list(derived),
                other=state.players[given["seat"]],
            )
        return Said(
            "capture %(n)s is %(player)s's (%(cards)s), not seat %(seat)s's",
            n=i + 1,
            player=name,
            cards=card_list(derived),
            seat=given["seat"],
        )
    if len(cards) == len(derived) and all(map(operator.is_, cards, derived)):
        return None  # the order derived, card for card (the common case): no multiset needed
    want, got = Counter(derived), Counter(cards)
    if want != got:
        missing = sorted_cards((want - got).elements())
        extra = sorted_cards((got - want).elements())
        parts = []
        if missing:
            parts.append(Said("missing %(cards)s", cards=card_list(missing)))
        if extra:
            parts.append(Said("not taken: %(cards)s", cards=card_list(extra)))
        return Said(
            "%(player)s takes %(cards)s (%(n)s cards); the record differs: %(differences)s",
            player=name,
            cards=card_list(derived),
            n=len(derived),
            differences=Joined(parts, "; "),
        )
    return None


def _on_play(state: State, event: Event) -> State:
    hand = _deal(state)
    d = event.data
    seat = read_seat(d, state.n)
    name = state.players[seat]
    card = read_card(d.get("card"))
    assert card is not None
    opts = state.options
    announce = d.get("call")
    possible = can_extend(state, hand, seat, card)
    if opts.requireAnnouncement:
        if announce is True and not possible:
            raise RuleViolation("cau-robat.bad_call", _no_call_reason(state, hand, seat, card))
        extends = possible and announce is True
    else:
        extends = possible
        if announce is not None and bool(announce) != extends:
            why: str = (
                _no_call_reason(state, hand, seat, card)
                if announce
                else (
                    Said(
                        "%(player)s's %(card)s extends the open chain of %(rank)ss",
                        player=name,
                        card=card.pretty(),
                        rank=hand.chain.rank,
                    )
                    if hand.chain
                    else ""
                )
            )
            raise RuleViolation("cau-robat.mismatch", Said("call: %(why)s", why=why))
    out_of_turn = seat != hand.turn
    if out_of_turn:
        turn_name = state.players[hand.turn]
        if not (opts.anyoneMayCall and extends):
            if opts.anyoneMayCall:
                wait = Said(
                    "it is %(turn)s's turn, not %(player)s's (with anyoneMayCall only a card that extends the open "
                    "chain may be played out of turn)",
                    turn=turn_name,
                    player=name,
                )
            else:
                wait = Said("it is %(turn)s's turn, not %(player)s's", turn=turn_name, player=name)
            raise RuleViolation("common.not_your_turn", wait)
    mine, unknown = _take(state, hand, seat, card)
    known = set_item(hand.known, seat, mine)
    unknowns = set_item(hand.unknown, seat, unknown)
    final = not any(known) and not any(unknowns)  # no card left in any hand
    stated = d.get("captures")
    if opts.pileOrder == "recorded" and stated is not None and not isinstance(stated, (list, tuple)):
        raise RuleViolation("cau-robat.mismatch", Said("captures: a list of {seat, cards}"))
    work = _Table(
        state,
        hand,
        event.seq,
        final,
        list(stated)
        if opts.pileOrder == "recorded" and stated is not None
        else ([] if opts.pileOrder == "recorded" else None),
    )
    extended: str | None = None
    closed: Seat | None = None
    trailed = False
    if extends:
        chain = hand.chain
        assert chain is not None
        extended = CALLS[len(chain.seats) + 1]
        if opts.chainMode == "deferred":
            work.table.append(card)
            work.chain = Chain(chain.rank, chain.seats + (seat,), chain.cards + (card,))
            if len(work.chain.seats) == 4:
                work.resolve()
        else:
            work.call_now(seat, card)
    else:
        closed = work.resolve()
        trailed = work.normal(seat, card)
    if final:
        left = work.resolve()
        closed = closed if left is None else left
    derived = [(c.seat, c.cards) for c in work.captures]
    if stated is not None:
        if not isinstance(stated, (list, tuple)):
            raise RuleViolation("cau-robat.mismatch", Said("captures: a list of {seat, cards}"))
        if len(stated) != len(derived):
            said: str = (
                Joined(
                    (
                        Said("%(player)s takes %(cards)s", player=state.players[s], cards=card_list(cs))
                        for s, cs in derived
                    ),
                    "; ",
                )
                if derived
                else Said("nothing is captured")
            )
            raise RuleViolation(
                "cau-robat.mismatch",
                Counted(
                    "captures: this play causes %(n)s capture, not %(stated)s: %(captures)s",
                    "captures: this play causes %(n)s captures, not %(stated)s: %(captures)s",
                    len(derived),
                    stated=len(stated),
                    captures=said,
                ),
            )
        for i, (s, cs) in enumerate(derived):
            problem = _capture_difference(state, i, s, cs, stated[i])
            if problem:
                raise RuleViolation("cau-robat.mismatch", Said("captures: %(problem)s", problem=problem))
    n = state.n
    turn = hand.turn
    if not out_of_turn:
        turn = (seat + 1) % n
    if not final:
        for _ in range(n):
            if known[turn] or unknowns[turn]:  # holds a card
                break
            turn = (turn + 1) % n
    outcome = Outcome(event.seq, seat, card, extended, out_of_turn, closed, tuple(work.captures), trailed, final)
    # the hand after the play, its eleven changed fields written by index (every play ends here)
    fields = list(hand)
    fields[_KNOWN] = known
    fields[_UNKNOWN] = unknowns
    fields[_TABLE] = tuple(work.table)
    fields[_PILES] = tuple(map(tuple, work.piles))
    fields[_CHAIN] = work.chain
    fields[_TURN] = turn
    fields[_LOCATED] = hand.located | {card}
    fields[_LAST_CAPTURER] = work.last_capturer
    fields[_CALLS] = tuple(work.calls)
    fields[_PLAYS] = hand.plays + 1
    fields[_LAST] = outcome
    new = tuple.__new__(Hand, fields)
    if final:
        facts = Facts(tuple(len(p) for p in new.piles), len(new.table), new.table, new.last_capturer)
        new = new._replace(over=True, facts=facts)
        return _score_hand(state._replace(current=new))
    return state._replace(current=new)


(_KNOWN, _UNKNOWN, _TABLE, _PILES, _CHAIN, _TURN, _LOCATED, _LAST_CAPTURER, _CALLS, _PLAYS, _LAST) = (
    Hand._fields.index(name)
    for name in (
        "known",
        "unknown",
        "table",
        "piles",
        "chain",
        "turn",
        "located",
        "last_capturer",
        "calls",
        "plays",
        "last",
    )
)


def derived_captures(state: State, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the ``captures`` a legal play causes, in the deterministic order (for templates).

    Raises:
        RuleViolation: the play is illegal.
    """
    plain = state._replace(options=replace(state.options, pileOrder="deterministic"))
    after = _on_play(plain, Event(0, "play", {k: v for k, v in data.items() if k != "captures"}))
    assert after.current is not None and after.current.last is not None
    return [{"seat": c.seat, "cards": [str(x) for x in c.cards]} for c in after.current.last.captures]


def _no_call_reason(state: State, hand: Hand, seat: Seat, card: Card) -> Said:
    name = state.players[seat]
    chain = hand.chain
    if chain is None:
        return Said("no chain is open: %(player)s's %(card)s cannot be a Cau", player=name, card=card.pretty())
    if card.rank != chain.rank:
        return Said(
            "the open chain is of %(rank)ss: %(player)s's %(card)s cannot extend it",
            rank=chain.rank,
            player=name,
            card=card.pretty(),
        )
    if seat in chain.seats:
        return Said(
            "%(player)s is already in the chain of %(rank)ss and cannot call again", player=name, rank=chain.rank
        )
    return Said("the chain of %(rank)ss is complete", rank=chain.rank)


# --------------------------------------------------------------------------- the hand's end and the match


def hand_cards(state: State, facts: Facts) -> tuple[tuple[int, ...], Seat | None]:
    """Each seat's cards after leftovers (§1.5), and who took the leftovers."""
    cards = list(facts.piles)
    to: Seat | None = None
    if state.options.leftovers == "lastCapturer" and facts.last_capturer is not None and facts.table:
        to = facts.last_capturer
        cards[to] += facts.table
    return tuple(cards), to


def _score_hand(state: State) -> State:
    """Count the finished current hand: winners (most cards, ties all), wins, the match end."""
    hand = state.current
    assert hand is not None and hand.facts is not None
    cards, to = hand_cards(state, hand.facts)
    best = max(cards)
    winners = tuple(s for s, c in enumerate(cards) if c == best)
    totals = tuple(t + (1 if s in winners else 0) for s, t in enumerate(state.totals))
    scores = state.scores + (HandScore(cards, winners, totals, to),)
    won = _is_over(totals, state.target, state.tie)
    if won is None:
        return state._replace(scores=scores)
    return state._replace(scores=scores, end=len(scores) - 1, winners=won)


# --------------------------------------------------------------------------- reveal


def _on_reveal(state: State, event: Event) -> State:
    bindings = event.data.get("cards")
    if not isinstance(bindings, (list, tuple)) or not bindings:
        raise RuleViolation("common.bad_reveal", Said("a reveal lists one or more cards"))
    hand = state.current
    if hand is None or hand.result_only or hand.over:
        raise RuleViolation("common.bad_reveal", Said("no hand is being played: there are no hidden cards to reveal"))
    known, unknown, located = list(hand.known), list(hand.unknown), set(hand.located)
    for b in bindings:
        if not isinstance(b, Mapping) or "seat" not in b or "seq" in b or "slot" in b:
            raise RuleViolation(
                "common.bad_reveal",
                Said(
                    "in Cau Robat only hands are hidden: a binding is {seat, card} (every played card is written face up)"
                ),
            )
        if b.get("card") == UNKNOWN:
            continue  # withheld from this reader (an open read of a match in play): binds nothing
        seat = read_seat(b, state.n)
        card = read_card(b.get("card"))
        assert card is not None
        name = state.players[seat]
        if unknown[seat] == 0:
            raise RuleViolation("common.bad_reveal", Said("%(player)s holds no unknown card", player=name))
        if card in located:
            raise RuleViolation(
                "common.card_duplicate",
                Said(
                    "%(player)s cannot hold %(card)s: it is %(where)s",
                    player=name,
                    card=card.pretty(),
                    where=_where(state, hand, card),
                )
                if card in hand.located
                else Said("%(player)s cannot hold %(card)s: it is revealed twice", player=name, card=card.pretty()),
            )
        known[seat] = known[seat] | {card}
        unknown[seat] -= 1
        located.add(card)
    new = hand._replace(known=tuple(known), unknown=tuple(unknown), located=frozenset(located))
    return state._replace(current=new)


# --------------------------------------------------------------------------- hand_result


def _parse_result(state: State, d: Mapping[str, Any], seq: int) -> Facts:
    """Check a ``hand_result``'s facts on their own (VOCABULARY.md §5.1).

    Raises:
        RuleViolation: ``cau-robat.bad_result`` naming the inconsistency.
    """
    n = state.n
    piles = d.get("piles")
    if not isinstance(piles, (list, tuple)) or len(piles) != n or not all(is_int(p) and p >= 0 for p in piles):
        raise RuleViolation("cau-robat.bad_result", Said("piles is %(n)s card counts, one per player", n=n))
    if "table" not in d:  # the score sheet form: the cards not in a pile were left on the table
        total = sum(int(p) for p in piles)
        if not DECK_SIZE - len(CYCLE) <= total <= DECK_SIZE:
            added = " + ".join(map(str, piles))
            raise RuleViolation(
                "cau-robat.bad_result",
                Said(
                    "the piles (%(piles)s) make %(total)s: more than the 40 cards of the deck", piles=added, total=total
                )
                if total > DECK_SIZE
                else Said(
                    "the piles (%(piles)s) make %(total)s: the other %(rest)s cannot all be left on the table "
                    "(at most 10, one per rank)",
                    piles=added,
                    total=total,
                    rest=DECK_SIZE - total,
                ),
            )
    raw = d.get("table", DECK_SIZE - sum(int(p) for p in piles))
    cards: tuple[Card, ...] | None = None
    if isinstance(raw, (list, tuple)):
        cards = tuple(read_card(t) for t in raw)  # type: ignore[misc]
        if len(set(cards)) != len(cards):
            raise RuleViolation("cau-robat.bad_result", Said("a table card is listed twice"))
        if len({c.rank for c in cards}) != len(cards):
            raise RuleViolation(
                "cau-robat.bad_result",
                Said("the cards left on the table have different ranks (a match is always captured)"),
            )
        table = len(cards)
    elif is_int(raw) and raw >= 0:
        table = int(raw)
    else:
        raise RuleViolation("cau-robat.bad_result", Said("table is a count of cards or the list of cards left"))
    if table > len(CYCLE):
        raise RuleViolation(
            "cau-robat.bad_result",
            Said("at most 10 cards (one per rank) can be left on the table, not %(table)s", table=table),
        )
    total = sum(piles) + table
    if total != DECK_SIZE:
        raise RuleViolation(
            "cau-robat.bad_result",
            Counted(
                "the piles (%(piles)s) and the %(n)s table card make %(total)s, not the 40 cards of the deck",
                "the piles (%(piles)s) and the %(n)s table cards make %(total)s, not the 40 cards of the deck",
                table,
                piles=" + ".join(map(str, piles)),
                total=total,
            ),
        )
    last = d.get("lastCapturer")
    if last is not None:
        last = read_seat(d, state.n, "lastCapturer")
        if piles[last] < 2:
            raise RuleViolation(
                "cau-robat.bad_result",
                Said(
                    "lastCapturer: %(player)s captured last, so the pile holds at least 2 cards, not %(pile)s",
                    player=state.players[last],
                    pile=piles[last],
                ),
            )
    elif state.options.leftovers == "lastCapturer" and table:
        raise RuleViolation(
            "cau-robat.bad_result",
            Said("with leftovers = lastCapturer, say who captured last (lastCapturer): the table cards are theirs"),
        )
    return Facts(tuple(int(p) for p in piles), table, cards, last, seq)


def _facts_differ(state: State, have: Facts, claim: Facts, source: Said) -> Said | None:
    """Compare claimed facts with known ones; say the first difference, led by the field that differs."""
    if have.piles != claim.piles:
        diff = [
            Said("%(player)s %(have)s not %(claim)s", player=state.players[s], have=a, claim=b)
            for s, (a, b) in enumerate(zip(have.piles, claim.piles))
            if a != b
        ]
        return Said(
            "piles: %(problem)s",
            problem=Said("%(source)s gives %(differences)s", source=source, differences=Joined(diff, ", ")),
        )
    if have.table != claim.table:
        return Said(
            "table: %(problem)s",
            problem=Counted(
                "%(source)s leaves %(n)s card on the table, not %(claim)s",
                "%(source)s leaves %(n)s cards on the table, not %(claim)s",
                have.table,
                source=source,
                claim=claim.table,
            ),
        )
    if (
        have.table_cards is not None
        and claim.table_cards is not None
        and set(have.table_cards) != set(claim.table_cards)
    ):
        return Said(
            "table: %(problem)s",
            problem=Said(
                "%(source)s leaves %(cards)s on the table",
                source=source,
                cards=card_list(sorted_cards(have.table_cards)),
            ),
        )
    if have.last_capturer is not None and claim.last_capturer is not None and have.last_capturer != claim.last_capturer:
        return Said(
            "lastCapturer: %(problem)s",
            problem=Said(
                "%(source)s: %(player)s captured last, not %(other)s",
                source=source,
                player=state.players[have.last_capturer],
                other=state.players[claim.last_capturer],
            ),
        )
    return None


def _check_reachable(state: State, hand: Hand, claim: Facts) -> None:
    """Closing a hand from the sheet: the facts must be reachable from the plays recorded so far.

    Only what no rest of the hand can undo is checked: cards never leave the piles (so the
    piles hold at least what they hold now, and no card in a pile is left on the table); a
    pile loses cards only when another seat plays (robbed as a link, or paying) or when its
    owner is an earlier caller of the open chain, and grows only when its owner plays or is
    the chain's last caller; the last capturer is the one so far unless someone can still
    capture. Whether the rest of the plays can give exactly these numbers is not searched.

    Raises:
        RuleViolation: ``cau-robat.result_conflict`` naming the conflict.
    """
    names = state.players
    now = [len(p) for p in hand.piles]
    if sum(claim.piles) < sum(now):
        raise RuleViolation(
            "cau-robat.result_conflict",
            Said(
                "the piles already hold %(now)s cards and cards never leave them; the sheet gives %(sheet)s",
                now=sum(now),
                sheet=sum(claim.piles),
            ),
        )
    if claim.table_cards is not None:
        for c in claim.table_cards:
            for s, pile in enumerate(hand.piles):
                if c in pile:
                    raise RuleViolation(
                        "cau-robat.result_conflict",
                        Said(
                            "%(card)s is already in %(player)s's pile and cards never leave the piles; the sheet "
                            "leaves it on the table",
                            card=c.pretty(),
                            player=names[s],
                        ),
                    )
    chain = hand.chain.seats if hand.chain is not None else ()
    for s in range(state.n):
        others_play = any(hand.size(t) for t in range(state.n) if t != s)
        pays_chain = s in chain[:-1]
        if claim.piles[s] < now[s] and not others_play and not pays_chain:
            raise RuleViolation(
                "cau-robat.result_conflict",
                Said(
                    "%(player)s already captured %(now)s cards and nobody else has a card left to take any of them; "
                    "the sheet says %(sheet)s",
                    player=names[s],
                    now=now[s],
                    sheet=claim.piles[s],
                ),
            )
        takes = hand.size(s) > 0 or (len(chain) > 1 and chain[-1] == s)
        if claim.piles[s] > now[s] and not takes:
            raise RuleViolation(
                "cau-robat.result_conflict",
                Said(
                    "%(player)s has no card left to play and holds %(now)s cards in the pile: it cannot grow to "
                    "%(sheet)s",
                    player=names[s],
                    now=now[s],
                    sheet=claim.piles[s],
                ),
            )
    last = claim.last_capturer
    if (
        last is not None
        and last != hand.last_capturer
        and not hand.size(last)
        and not (len(chain) > 1 and chain[-1] == last)
    ):
        raise RuleViolation(
            "cau-robat.result_conflict",
            Said(
                "%(player)s has no card left to play and did not capture last so far; the sheet says %(player)s "
                "captured last",
                player=names[last],
            ),
        )


def _on_hand_result(state: State, event: Event) -> State:
    cur = state.current
    if cur is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    claim = _parse_result(state, event.data, event.seq)
    if not cur.result_only and not cur.over:
        _check_reachable(state, cur, claim)
        hand = cur._replace(over=True, facts=claim, claim=claim, closed_after=cur.plays)
        return _score_hand(state._replace(current=hand))
    if cur.result_only and cur.facts is None:
        hand = cur._replace(over=True, facts=claim, claim=claim)
        return _score_hand(state._replace(current=hand))
    assert cur.facts is not None
    source = Said("the hand result of entry %(entry)s", entry=cur.facts.seq) if cur.facts.seq else Said("the plays")
    problem = _facts_differ(state, cur.facts, claim, source)
    if problem is None and cur.claim is not None and cur.claim is not cur.facts:
        problem = _facts_differ(
            state, cur.claim, claim, Said("the hand result of entry %(entry)s", entry=cur.claim.seq)
        )
    if problem:
        raise RuleViolation("cau-robat.mismatch", problem)
    facts = cur.facts
    if facts.last_capturer is None and claim.last_capturer is not None:
        facts = facts._replace(last_capturer=claim.last_capturer)
    if facts.table_cards is None and claim.table_cards is not None:
        facts = facts._replace(table_cards=claim.table_cards)
    return state._replace(current=cur._replace(claim=claim, facts=facts))


_HANDLERS = {"hand_started": _on_hand_started, "play": _on_play, "reveal": _on_reveal, "hand_result": _on_hand_result}
"""The handler of each event type :func:`apply` accepts."""


__all__ = [
    "CALL_WORDS",
    "OPTION_VALUES",
    "apply",
    "can_extend",
    "derived_captures",
    "hand_cards",
    "next_dealer",
    "parse_options",
    "position",
    "start",
]
