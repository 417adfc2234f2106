"""Cabo's rules: :func:`start` a match, :func:`apply` one event (docs/RULES.md §3, VOCABULARY.md §5.3).

Each handler reads the event, works on a private :class:`_Work` copy of the round's token
tables (plain lists, built fresh for this event) and builds the new round only at the end;
a :class:`RuleViolation` raised on the way leaves the old state as it was (nothing of it is
ever changed anyway).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Sequence

from engines.cabo.options import OPTION_VALUES
from engines.base import Event, RuleViolation
from engines.common import (
    check_game,
    check_options,
    check_seat,
    dispatch,
    is_int,
    read_seat,
    as_written,
    seat_names,
    how_many,
)
from engines.cabo.scoring import allowed_dealers, settle, sheet_of
from engines.cabo.state import (
    DECK_COUNTS,
    KAMIKAZE,
    GAME,
    LIMIT,
    PEEK,
    ROW,
    SPY,
    SWAP,
    Options,
    Ref,
    Round,
    Seat,
    Sheet,
    State,
    Token,
    plural,
    read_known,
    read_value,
    slot_words,
)
from engines.said import Joined, Said

AFTER_DRAW = frozenset({"replace", "discard", "peek", "spy", "swap"})


# --------------------------------------------------------------------------- start


def parse_options(raw: object) -> Options:
    """Read ``match_started.options`` (omitted keys take their default; edition 2 defaults ``keep``).

    Raises:
        RuleViolation: ``common.bad_option`` for an unknown key or value.
    """
    values = check_options(raw, OPTION_VALUES, "Cabo")
    if values.get("edition") == 2:
        values.setdefault("wrongMultiPenalty", "keep")
    return Options(**values)


def start(data: Mapping[str, Any]) -> State:
    """Return the state right after ``match_started``.

    Raises:
        RuleViolation: ``common.wrong_game``, ``cabo.players``, ``common.bad_target``,
            ``common.bad_option``, ``common.bad_initial``.
    """
    check_game(data, GAME, "Cabo")
    options = parse_options(data.get("options"))
    players = data.get("players")
    most = options.max_players
    if not isinstance(players, (list, tuple)) or not 2 <= len(players) <= most:
        n = len(players) if isinstance(players, (list, tuple)) else 0
        raise RuleViolation(
            "cabo.players",
            Said("Cabo (the first edition) is played by 2 to %(most)s players, not %(n)s", most=most, n=n)
            if options.edition == 1
            else Said("Cabo (the second edition) is played by 2 to %(most)s players, not %(n)s", most=most, n=n),
        )
    if not all(isinstance(p, str) and p.strip() for p in players) or len(set(players)) != len(players):
        raise RuleViolation("cabo.players", Said("every player needs a different, non-empty name"))
    target = data.get("target")
    if target is not None and dict(target) != {"over": LIMIT}:
        raise RuleViolation(
            "common.bad_target", Said('Cabo always ends when a total goes over 100: target must be {"over": 100}')
        )
    n = len(players)
    totals: tuple[int, ...] = (0,) * n
    initial = data.get("initial")
    if initial is not None:
        raw = initial.get("totals") if isinstance(initial, Mapping) else None
        if not isinstance(raw, (list, tuple)) or len(raw) != n or not all(is_int(t) and 0 <= t <= LIMIT for t in raw):
            raise RuleViolation(
                "common.bad_initial",
                Said("initial totals are %(n)s numbers from 0 to 100, one per player in seat order", n=n),
            )
        if options.edition == 1 and LIMIT in raw:
            raise RuleViolation(
                "common.bad_initial", Said("a total of exactly 100 is reduced to 50 at once (first edition): write 50")
            )
        totals = tuple(int(t) for t in raw)
    return State(players=tuple(players), options=options, initial=totals, carried=initial is not None)


# --------------------------------------------------------------------------- apply


def apply(state: State, event: Event) -> State:
    """Check ``event`` against the rules and return the next state.

    Raises:
        RuleViolation: the event is illegal; ``state`` is unchanged (it always is).
    """
    return dispatch(_HANDLERS, state, event, "Cabo")


# --------------------------------------------------------------------------- the work copy


EMPTY_TOKENS: frozenset[Token] = frozenset()
_ROUND_INDEX = {name: i for i, name in enumerate(Round._fields)}
(
    _VALUES,
    _ORIGIN,
    _SOURCE,
    _DRAWN_AT,
    _SEEN,
    _PUBLIC,
    _FACE_UP,
    _POOLS,
    _POOL_SEQ,
    _LAYOUTS,
    _DRAW,
    _DISCARD,
    _PENDING,
) = (
    _ROUND_INDEX[name]
    for name in (
        "values",
        "origin",
        "source",
        "drawn_at",
        "seen",
        "public",
        "face_up",
        "pools",
        "pool_seq",
        "layouts",
        "draw",
        "discard",
        "pending",
    )
)


class _Work:
    """A private, mutable copy of one round's tokens and zones, for one event.

    Built from a round, changed by the handler's checks and moves, turned into a new
    :class:`Round` by :meth:`build`. The round it came from is never touched.
    """

    def __init__(self, state: State, rnd: Round, seq: int) -> None:
        self.players = state.players
        self.r = rnd
        self.seq = seq
        # one entry per token of the round (52 and more), read on every move, changed by
        # few: kept as the round's tuples until :meth:`own` copies one to change it
        self.values: Sequence[int | None] = rnd.values
        self.origin: Sequence[int] = rnd.origin
        self.source: Sequence[int] = rnd.source
        self.drawn_at: Sequence[int] = rnd.drawn_at
        self.seen: Sequence[frozenset[Seat]] = rnd.seen
        self.public = set(rnd.public)
        self.face_up = set(rnd.face_up)
        self.pools = list(rnd.pools)
        self.pool_seq = list(rnd.pool_seq)
        self.layouts: list[Sequence[Token]] = list(rnd.layouts)
        """Each seat's row: the round's tuple until :meth:`row` copies it to change it."""
        self.draw = list(rnd.draw)
        self.discard = list(rnd.discard)
        self.pending = rnd.pending

    def own(self, field: str) -> list[Any]:
        """Return the per-token list ``field`` to change in place (copied from the round's tuple the first time)."""
        items = getattr(self, field)
        if type(items) is not list:
            items = list(items)
            setattr(self, field, items)
        return items

    def row(self, seat: Seat) -> list[Token]:
        """Return ``seat``'s row to change in place (copied from the round's tuple the first time)."""
        row = self.layouts[seat]
        if type(row) is not list:
            row = self.layouts[seat] = list(row)
        return row

    def build(self, **changes: Any) -> Round:
        """Return the round with this work's zones and ``changes``: written by index, as every move ends here.

        (Thirteen keywords through ``_replace`` cost a name look-up each; ``tuple()`` of a
        tuple the move did not change is that tuple itself.)
        """
        out = list(self.r)
        out[_VALUES] = tuple(self.values)
        out[_ORIGIN] = tuple(self.origin)
        out[_SOURCE] = tuple(self.source)
        out[_DRAWN_AT] = tuple(self.drawn_at)
        out[_SEEN] = tuple(self.seen)
        out[_PUBLIC] = frozenset(self.public)
        out[_FACE_UP] = frozenset(self.face_up & self._in_rows()) if self.face_up else EMPTY_TOKENS
        out[_POOLS] = tuple(self.pools)
        out[_POOL_SEQ] = tuple(self.pool_seq)
        out[_LAYOUTS] = tuple(map(tuple, self.layouts))
        out[_DRAW] = tuple(self.draw)
        out[_DISCARD] = tuple(self.discard)
        out[_PENDING] = self.pending
        for name, value in changes.items():
            out[_ROUND_INDEX[name]] = value
        return tuple.__new__(Round, out)

    def _in_rows(self) -> set[Token]:
        return {t for row in self.layouts for t in row}

    # ---- words

    def where(self, t: Token) -> str:
        for s, row in enumerate(self.layouts):
            if t in row:
                return Said("%(player)s's slot %(slot)s", player=self.players[s], slot=row.index(t) + 1)
        if t in self.discard:
            return Said("on the discard pile")
        if t == self.pending:
            return Said("the card %(player)s drew", player=self.players[self.r.turn])
        if t in self.draw:
            return Said("in the draw pile")
        return Said("shuffled back into the draw pile")

    # ---- slots

    def slot(self, seat: Seat, k: object, field: str = "slot") -> Token:
        row = self.layouts[seat]
        if not is_int(k) or not 1 <= k <= len(row):
            raise RuleViolation(
                "cabo.bad_slot",
                Said(
                    "%(field)s: %(player)s has %(cards)s, slots 1 to %(last)s; there is no slot %(slot)s",
                    field=field,
                    player=self.players[seat],
                    cards=how_many(len(row), "card"),
                    last=len(row),
                    slot=as_written(k),
                ),
            )
        return row[int(k) - 1]

    def seat(self, v: object, field: str = "seat") -> Seat:
        return check_seat(v, len(self.players), field)

    # ---- knowledge

    def bind(
        self, t: Token, v: int | None, what: str, *, seats: frozenset[Seat] = frozenset(), public: bool = False
    ) -> None:
        """Record that token ``t`` is worth ``v`` (None: still unknown) and who saw it.

        Raises:
            RuleViolation: ``common.card_unavailable`` when the record already gives ``t``
                another value (``seq`` = the event that gave it) or its reshuffled pile held
                no such card (``seq`` = the draw); ``common.card_duplicate`` when the deck
                has no copy of ``v`` left.
        """
        if v is not None:
            cur = self.values[t]
            if cur is not None and cur != v:
                src = self.source[t]
                if src and src != self.seq:
                    raise RuleViolation(
                        "common.card_unavailable",
                        Said(
                            "%(what)s cannot be %(card)s: entry %(entry)s recorded that card as %(known)s",
                            what=what,
                            card=plural(v),
                            entry=src,
                            known=plural(cur),
                        ),
                        seq=src,
                    )
                raise RuleViolation(
                    "common.card_unavailable",
                    Said(
                        "%(what)s cannot be %(card)s: the record already knows it is %(known)s",
                        what=what,
                        card=plural(v),
                        known=plural(cur),
                    ),
                )
            if cur is None:
                o = self.origin[t]
                cap = self.pools[o][v]
                # the tokens of this value from the same pile: only listed when the value's
                # count over all piles could reach the cap (one C-level count otherwise)
                same = (
                    [i for i, x in enumerate(self.values) if x == v and self.origin[i] == o]
                    if self.values.count(v) >= cap
                    else []
                )
                if len(same) >= cap:
                    if o == 0:
                        places = Joined([self.where(i) for i in same], "; ") if same else Said("nowhere")
                        raise RuleViolation(
                            "common.card_duplicate",
                            Said(
                                "%(what)s cannot be %(card)s: the deck holds %(cards)s of value %(value)s and the record "
                                "already places %(placed)s: %(places)s",
                                what=what,
                                card=plural(v),
                                cards=how_many(cap, "card"),
                                value=v,
                                placed=len(same),
                                places=places,
                            ),
                        )
                    drawn = self.drawn_at[t]
                    raise RuleViolation(
                        "common.card_unavailable",
                        Said(
                            "%(what)s cannot be %(card)s: it was drawn at entry %(entry)s from the pile reshuffled at "
                            "entry %(pile)s, which held %(cards)s of value %(value)s, all of them placed elsewhere",
                            what=what,
                            card=plural(v),
                            entry=drawn,
                            pile=self.pool_seq[o],
                            cards=how_many(cap, "card"),
                            value=v,
                        )
                        if cap
                        else Said(
                            "%(what)s cannot be %(card)s: it was drawn at entry %(entry)s from the pile reshuffled at "
                            "entry %(pile)s, which held %(cards)s of value %(value)s",
                            what=what,
                            card=plural(v),
                            entry=drawn,
                            pile=self.pool_seq[o],
                            cards=how_many(cap, "card"),
                            value=v,
                        ),
                        seq=drawn or None,
                    )
                self.own("values")[t] = v
                self.own("source")[t] = self.seq
        if seats:
            self.own("seen")[t] = self.seen[t] | seats
        if public:
            self.public.add(t)

    def new_tokens(self, count: int, origin: int) -> list[Token]:
        first = len(self.values)
        self.own("values").extend([None] * count)
        self.own("origin").extend([origin] * count)
        self.own("source").extend([0] * count)
        self.own("drawn_at").extend([0] * count)
        self.own("seen").extend([frozenset()] * count)
        return list(range(first, first + count))


# --------------------------------------------------------------------------- helpers


def _round_of(state: State, *, moves: bool = True) -> Round:
    """The round being played move by move.

    Raises:
        RuleViolation: ``common.match_over``, ``common.no_hand``, ``common.no_deal``.
    """
    rnd = state.current
    if rnd is None:
        raise RuleViolation("common.no_hand", Said("no round has been dealt yet (hand_started first)"))
    if state.over and moves:
        raise RuleViolation("common.match_over", Said("the game is over: a total went over 100"))
    if rnd.closed_seq:
        raise RuleViolation(
            "cabo.round_over",
            Said(
                "round %(round)s was closed from the score sheet at entry %(entry)s: nothing more can be recorded in it",
                round=rnd.number,
                entry=rnd.closed_seq,
            ),
        )
    if rnd.result_only:
        raise RuleViolation(
            "common.no_deal",
            Said("round %(round)s is recorded by its result only: moves cannot be recorded in it", round=rnd.number),
        )
    return rnd


def _actor(state: State, data: Mapping[str, Any], kind: str) -> tuple[Round, Seat]:
    """The round and the acting seat of a turn move (``kind``), checked for turn order.

    Raises:
        RuleViolation: ``cabo.round_over``, ``common.not_your_turn``, ``cabo.finish_turn``,
            ``cabo.no_draw``, ``common.bad_seat``.
    """
    rnd = _round_of(state)
    n = rnd.seats
    seat = read_seat(data, n)
    p = state.players
    if rnd.over:
        raise RuleViolation(
            "cabo.round_over",
            Said("round %(round)s is over: record the showdown (every row, face up)", round=rnd.number),
        )
    name = p[seat]
    if kind in AFTER_DRAW:
        if rnd.pending is None:
            if seat == rnd.turn:
                raise RuleViolation(
                    "cabo.no_draw",
                    Said(
                        "%(player)s has not drawn a card: %(move)s follows a draw (to use the discard pile, record "
                        "take_discard)",
                        player=name,
                        move=kind,
                    ),
                )
            raise RuleViolation(
                "common.not_your_turn", Said("it is %(turn)s's turn, not %(player)s's", turn=p[rnd.turn], player=name)
            )
        if seat != rnd.turn:
            raise RuleViolation(
                "common.not_your_turn",
                Said(
                    "%(turn)s drew at entry %(entry)s and is playing, not %(player)s",
                    turn=p[rnd.turn],
                    entry=rnd.pending_seq,
                    player=name,
                ),
            )
        return rnd, seat
    if rnd.pending is not None:
        if seat == rnd.turn:
            raise RuleViolation(
                "cabo.finish_turn",
                Said(
                    "%(player)s drew a card at entry %(entry)s: record what he or she does with it "
                    "(replace, discard, peek, spy or swap) first",
                    player=name,
                    entry=rnd.pending_seq,
                ),
            )
        raise RuleViolation(
            "common.not_your_turn",
            Said(
                "%(turn)s drew at entry %(entry)s and is playing, not %(player)s",
                turn=p[rnd.turn],
                entry=rnd.pending_seq,
                player=name,
            ),
        )
    if seat != rnd.turn:
        raise RuleViolation(
            "common.not_your_turn",
            Said("it is %(turn)s's turn, not %(player)s's", turn=p[rnd.turn], player=name)
            if rnd.caller is None
            else Said(
                "it is %(turn)s's turn, not %(player)s's; %(caller)s called CABO",
                turn=p[rnd.turn],
                player=name,
                caller=p[rnd.caller],
            ),
        )
    return rnd, seat


def _end_turn(state: State, rnd: Round, seat: Seat, w: _Work, **changes: Any) -> Round:
    """Build the round after ``seat``'s turn: the next seat, the final turns, the round's end."""
    n = rnd.seats
    final_left = rnd.final_left
    over = False
    if rnd.caller is not None and seat != rnd.caller:
        final_left -= 1
        over = final_left == 0
    deck_out = state.options.edition == 2 and not w.draw
    w.pending = None
    return w.build(
        turn=(seat + 1) % n,
        started=True,
        final_left=final_left,
        over=over or deck_out,
        deck_out=deck_out and not over,
        pending_seq=0,
        moves=rnd.moves + 1,
        **changes,
    )


def _with_round(state: State, rnd: Round) -> State:
    """Put the round back and score it once it is over and every final card is known."""
    if rnd.over and rnd.score is None and not rnd.missing():
        return settle(state, rnd)
    return state._replace(current=rnd)


def _slots(w: _Work, seat: Seat, raw: object, field: str = "slots") -> list[int]:
    if not isinstance(raw, (list, tuple)) or not raw:
        raise RuleViolation(
            "cabo.bad_slots",
            Said("%(field)s lists one or more of %(player)s's slots", field=field, player=w.players[seat]),
        )
    for k in raw:
        w.slot(seat, k, field)
    if len(set(raw)) != len(raw):
        raise RuleViolation(
            "cabo.bad_slots",
            Said("%(field)s: each slot is named once, not %(slots)s", field=field, slots=str(list(raw))),
        )
    return [int(k) for k in raw]


# --------------------------------------------------------------------------- the deal


def _on_hand_started(state: State, event: Event) -> State:
    d = event.data
    p = state.players
    n = state.seats
    if state.over:
        raise RuleViolation("common.match_over", Said("the game is over: a total went over 100"))
    cur = state.current
    if cur is not None and cur.score is None:
        if not cur.over:
            raise RuleViolation(
                "common.hand_in_progress",
                Said("round %(round)s is not finished (waiting for its hand_result)", round=cur.number)
                if cur.result_only
                else Said("round %(round)s is not finished (waiting for its last turns)", round=cur.number),
            )
        missing = Joined([Said("%(player)s's slot %(slot)s", player=p[s], slot=k) for s, k in cur.missing()], ", ")
        raise RuleViolation(
            "common.hand_in_progress",
            Said(
                "round %(round)s is over but not scored: the showdown (or a reveal) must give %(missing)s",
                round=cur.number,
                missing=missing,
            ),
        )
    dealer = read_seat(d, n, "dealer")
    allowed = allowed_dealers(state)
    if dealer not in allowed:
        last = state.scores[-1]
        said = dict(
            winners=seat_names(p, list(last.winners)),
            round=len(state.scores),
            allowed=seat_names(p, allowed),
            dealer=p[dealer],
        )
        if len(last.winners) == 1:
            why = Said("%(winners)s won round %(round)s, so %(allowed)s starts and deals, not %(dealer)s", **said)
        elif len(allowed) == 1:
            why = Said(
                "%(winners)s won round %(round)s and %(allowed)s has the lowest total among them, so %(allowed)s "
                "starts and deals, not %(dealer)s",
                **said,
            )
        else:
            why = Said(
                "%(winners)s won round %(round)s and %(allowed)s have the lowest total among them, so %(allowed)s "
                "starts and deals, not %(dealer)s",
                **said,
            )
        raise RuleViolation("cabo.wrong_dealer", why)
    layouts, top = d.get("layouts"), d.get("discard")
    number = 1 if cur is None else cur.number + 1
    past = state.past if cur is None else state.past + (cur,)
    if layouts is None and top is None:
        return state._replace(past=past, current=Round(number, event.seq, dealer, True, n))
    if layouts is None or top is None:
        raise RuleViolation(
            "cabo.bad_deal", Said("a dealt round needs both layouts and discard (or neither, for a result-only round)")
        )
    if (
        not isinstance(layouts, (list, tuple))
        or len(layouts) != n
        or any(not isinstance(row, (list, tuple)) or len(row) != ROW for row in layouts)
    ):
        raise RuleViolation("cabo.bad_deal", Said("the deal is %(n)s rows of 4 face-down cards, in seat order", n=n))
    values: list[int | None] = [
        read_value(c, f"layouts[{s}][{k}]") for s, row in enumerate(layouts) for k, c in enumerate(row)
    ]
    values.append(read_known(top, "discard"))
    for v in range(14):
        count = values.count(v)
        if count > DECK_COUNTS[v]:
            raise RuleViolation(
                "common.card_duplicate",
                Said(
                    "the deck holds %(cards)s of value %(value)s, but the deal shows %(count)s",
                    cards=how_many(DECK_COUNTS[v], "card"),
                    value=v,
                    count=count,
                ),
            )
    total = sum(DECK_COUNTS)
    rest = total - len(values)
    tokens = values + [None] * rest
    discard_token = ROW * n
    rnd = Round(
        number,
        event.seq,
        dealer,
        False,
        n,
        values=tuple(tokens),
        origin=(0,) * total,
        source=tuple(event.seq if v is not None else 0 for v in tokens),
        drawn_at=(0,) * total,
        seen=(frozenset(),) * total,
        public=frozenset({discard_token}),
        pools=(DECK_COUNTS,),
        pool_seq=(0,),
        layouts=tuple(tuple(range(ROW * s, ROW * s + ROW)) for s in range(n)),
        draw=tuple(range(discard_token + 1, total)),
        discard=(discard_token,),
        turn=dealer,
    )
    return state._replace(past=past, current=rnd)


def _on_initial_peek(state: State, event: Event) -> State:
    d = event.data
    rnd = _round_of(state)
    w = _Work(state, rnd, event.seq)
    seat = w.seat(d.get("seat"))
    name = state.players[seat]
    if rnd.started or rnd.over:
        raise RuleViolation(
            "cabo.look_closed",
            Said(
                "the initial look comes before %(dealer)s's first turn; from then on %(player)s may look only through "
                "actions",
                dealer=state.players[rnd.dealer],
                player=name,
            ),
        )
    if seat in rnd.peeked:
        raise RuleViolation(
            "cabo.look_twice", Said("%(player)s has already had the initial look at two cards (once only)", player=name)
        )
    slots = _slots(w, seat, d.get("slots"))
    if len(slots) != 2:
        raise RuleViolation(
            "cabo.bad_slots",
            Said("the initial look is at exactly two of %(player)s's own cards, not %(n)s", player=name, n=len(slots)),
        )
    cards = d.get("cards")
    if cards is not None and (not isinstance(cards, (list, tuple)) or len(cards) != 2):
        raise RuleViolation("cabo.bad_claim", Said("cards gives the two values seen, in the order of slots"))
    tokens = tuple(w.slot(seat, k) for k in slots)
    for i, t in enumerate(tokens):
        v = read_value(cards[i], f"cards[{i}]") if cards is not None else None
        w.bind(t, v, Said("%(player)s's slot %(slot)s", player=name, slot=slots[i]), seats=frozenset({seat}))
    return state._replace(
        current=w.build(
            peeked=rnd.peeked | {seat},
            refs=rnd.refs + (Ref(event.seq, "initial_peek", seat, tokens),),
            moves=rnd.moves + 1,
        )
    )


# --------------------------------------------------------------------------- turns


def _on_take_discard(state: State, event: Event) -> State:
    d = event.data
    rnd, seat = _actor(state, d, "take_discard")
    if not rnd.discard:
        raise RuleViolation("cabo.no_discard", Said("the discard pile is empty: there is no card to take"))
    w = _Work(state, rnd, event.seq)
    taken = w.discard.pop()
    changes = _claim(state, w, seat, d, taken, taken=True)
    return _with_round(state, _end_turn(state, rnd, seat, w, **changes))


def _on_draw(state: State, event: Event) -> State:
    d = event.data
    rnd, seat = _actor(state, d, "draw")
    w = _Work(state, rnd, event.seq)
    if not w.draw:
        if len(w.discard) < 2:
            raise RuleViolation(
                "cabo.no_cards",
                Said("the draw pile is empty and the discard pile has no card to reshuffle under its top"),
            )
        # docs/RULES.md §3.3: the top discard stays; the rest, all face up and so all known, is shuffled
        # into a new draw pile. Its cards are new tokens: which of them comes up is unknown.
        back, top = w.discard[:-1], w.discard[-1]
        counts = [0] * 14
        for t in back:
            v = w.values[t]
            assert v is not None, "every discard is face up"
            counts[v] += 1
        w.pools.append(tuple(counts))
        w.pool_seq.append(event.seq)
        w.draw = w.new_tokens(len(back), len(w.pools) - 1)
        w.discard = [top]
    t = w.draw.pop(0)
    w.own("drawn_at")[t] = event.seq
    card = d.get("card")
    w.bind(
        t,
        read_value(card) if card is not None else None,
        Said("the card %(player)s drew", player=state.players[seat]),
        seats=frozenset({seat}),
    )
    w.pending = t
    new = w.build(
        pending_seq=event.seq, started=True, refs=rnd.refs + (Ref(event.seq, "draw", seat, (t,)),), moves=rnd.moves + 1
    )
    return state._replace(current=new)


def _drawn_at(player: str, entry: int) -> Said:
    """``the card Ben drew at entry 7``: what a binding names when it fixes a drawn card's value."""
    return Said("the card %(player)s drew at entry %(entry)s", player=player, entry=entry)


def _drawn_card(state: State, w: _Work, seat: Seat, d: Mapping[str, Any], public: bool = True) -> tuple[Token, int]:
    """The pending card, bound to the value written in ``card`` (it goes face up)."""
    t = w.pending
    assert t is not None
    v = read_known(d.get("card"))
    w.bind(t, v, _drawn_at(state.players[seat], w.r.pending_seq), public=public)
    return t, v


def _on_discard(state: State, event: Event) -> State:
    rnd, seat = _actor(state, event.data, "discard")
    w = _Work(state, rnd, event.seq)
    t, _ = _drawn_card(state, w, seat, event.data)
    w.discard.append(t)
    return _with_round(state, _end_turn(state, rnd, seat, w))


def _action_card(
    state: State, w: _Work, seat: Seat, d: Mapping[str, Any], kind: str, allowed: tuple[int, int]
) -> Token:
    t, v = _drawn_card(state, w, seat, d)
    if v not in allowed:
        what = {7: "peek", 8: "peek", 9: "spy", 10: "spy", 11: "swap", 12: "swap"}.get(v)
        if what == "peek":
            has = Said("%(card)s is a peek card", card=plural(v))
        elif what == "spy":
            has = Said("%(card)s is a spy card", card=plural(v))
        elif what == "swap":
            has = Said("%(card)s is a swap card", card=plural(v))
        else:
            has = Said("%(card)s has no action", card=plural(v))
        first, second = allowed
        if kind == "a peek":
            needs = Said(
                "a peek needs a %(first)s or %(second)s drawn from the draw pile: %(has)s",
                first=first,
                second=second,
                has=has,
            )
        elif kind == "a spy":
            needs = Said(
                "a spy needs a %(first)s or %(second)s drawn from the draw pile: %(has)s",
                first=first,
                second=second,
                has=has,
            )
        else:
            needs = Said(
                "a swap needs a %(first)s or %(second)s drawn from the draw pile: %(has)s",
                first=first,
                second=second,
                has=has,
            )
        raise RuleViolation("cabo.wrong_action", needs)
    w.discard.append(t)
    return t


def _on_peek(state: State, event: Event) -> State:
    d = event.data
    rnd, seat = _actor(state, d, "peek")
    w = _Work(state, rnd, event.seq)
    _action_card(state, w, seat, d, "a peek", PEEK)
    target = w.slot(seat, d.get("slot"))
    value = d.get("value")
    w.bind(
        target,
        read_value(value, "value") if value is not None else None,
        Said("%(player)s's slot %(slot)s", player=state.players[seat], slot=d["slot"]),
        seats=frozenset({seat}),
    )
    refs = rnd.refs + (Ref(event.seq, "peek", seat, (target,)),)
    return _with_round(state, _end_turn(state, rnd, seat, w, refs=refs))


def _slot_ref(w: _Work, raw: object, field: str) -> tuple[Seat, int, Token]:
    if not isinstance(raw, Mapping):
        raise RuleViolation("cabo.bad_slot", Said("%(field)s is {seat, slot}", field=field))
    s = w.seat(raw.get("seat"), f"{field}.seat")
    t = w.slot(s, raw.get("slot"), f"{field}.slot")
    return s, int(raw["slot"]), t


def _on_spy(state: State, event: Event) -> State:
    d = event.data
    rnd, seat = _actor(state, d, "spy")
    w = _Work(state, rnd, event.seq)
    _action_card(state, w, seat, d, "a spy", SPY)
    s, k, target = _slot_ref(w, d.get("target"), "target")
    if s == seat:
        raise RuleViolation(
            "cabo.spy_own",
            Said("a spy looks at another player's card; to look at one's own, a peek (7 or 8) is needed"),
        )
    value = d.get("value")
    w.bind(
        target,
        read_value(value, "value") if value is not None else None,
        Said("%(player)s's slot %(slot)s", player=state.players[s], slot=k),
        seats=frozenset({seat}),
    )
    refs = rnd.refs + (Ref(event.seq, "spy", seat, (target,)),)
    return _with_round(state, _end_turn(state, rnd, seat, w, refs=refs))


def _on_swap(state: State, event: Event) -> State:
    d = event.data
    rnd, seat = _actor(state, d, "swap")
    w = _Work(state, rnd, event.seq)
    _action_card(state, w, seat, d, "a swap", SWAP)
    p = state.players
    s1, k1, t1 = _slot_ref(w, d.get("first"), "first")
    s2, k2, t2 = _slot_ref(w, d.get("second"), "second")
    if s1 == s2:
        raise RuleViolation(
            "cabo.swap_own",
            Said("a swap exchanges cards of two different players, not one's own two cards")
            if s1 == seat
            else Said("a swap exchanges cards of two different players, not two of %(player)s's cards", player=p[s1]),
        )
    if not state.options.swapAny and s1 != seat:
        raise RuleViolation(
            "cabo.swap_scope",
            Said(
                "%(player)s swaps one of his or her own cards (first) with another player's (second); "
                "swapping two other players' cards needs the option swapAny",
                player=p[seat],
            ),
        )
    if state.options.lockCaller and rnd.caller in (s1, s2):
        raise RuleViolation(
            "cabo.caller_locked",
            Said("%(caller)s called CABO: the caller's cards cannot be swapped (lockCaller)", caller=p[rnd.caller]),
        )
    w.row(s1)[k1 - 1], w.row(s2)[k2 - 1] = t2, t1
    return _with_round(state, _end_turn(state, rnd, seat, w))


def _on_replace(state: State, event: Event) -> State:
    d = event.data
    rnd, seat = _actor(state, d, "replace")
    w = _Work(state, rnd, event.seq)
    new = w.pending
    assert new is not None
    changes = _claim(state, w, seat, d, new, taken=False)
    return _with_round(state, _end_turn(state, rnd, seat, w, **changes))


def _claim(state: State, w: _Work, seat: Seat, d: Mapping[str, Any], new: Token, *, taken: bool) -> dict[str, Any]:
    """Replace ``slots`` with ``new`` (docs/RULES.md §3.3 "Replace"); return extra round changes.

    One slot, or several whose shown ``cards`` are equal: those cards go face up onto the
    discard pile, ``new`` takes the lowest named slot and the others close up. Unequal
    cards: they stay where they were, known to all; ``new`` goes onto the discard pile
    (``discard``) or joins the row as its last slot (``keep``).

    Raises:
        RuleViolation: ``cabo.bad_slots``, ``cabo.bad_slot``, ``cabo.bad_claim``,
            ``cabo.drawn_required``, and the binding errors of :meth:`_Work.bind`.
    """
    p = state.players
    name = p[seat]
    slots = _slots(w, seat, d.get("slots"))
    if len(slots) > ROW:
        raise RuleViolation("cabo.bad_slots", Said("a claim names at most 4 slots, not %(n)s", n=len(slots)))
    cards = d.get("cards")
    if not isinstance(cards, (list, tuple)) or len(cards) != len(slots):
        raise RuleViolation(
            "cabo.bad_claim",
            Said(
                "cards gives the value shown from each of the %(slots)s, in order",
                slots=how_many(len(slots), "named slot"),
            ),
        )
    shown = [read_known(c, f"cards[{i}]") for i, c in enumerate(cards)]
    tokens = [w.slot(seat, k) for k in slots]
    for k, t, v in zip(slots, tokens, shown):
        w.bind(t, v, Said("%(player)s's slot %(slot)s", player=name, slot=k), public=True)
    drawn = d.get("drawn")
    if drawn is not None and taken:
        raise RuleViolation(
            "cabo.bad_claim", Said("drawn is the value of a card drawn from the draw pile; a taken discard is known")
        )
    success = len(set(shown)) == 1
    face_up_row = state.options.edition == 2 and taken
    if success:
        if drawn is not None:
            w.bind(
                new,
                read_known(drawn, "drawn"),
                _drawn_at(name, w.r.pending_seq),
                seats=frozenset({seat}),
            )
        row = w.row(seat)
        low = min(slots)
        gone = {k for k in slots if k != low}
        for k in sorted(slots):
            w.discard.append(row[k - 1])
        row[low - 1] = new
        w.layouts[seat] = [t for i, t in enumerate(row, start=1) if i not in gone]
        w.own("seen")[new] = w.seen[new] | {seat}
        if face_up_row:
            w.face_up.add(new)
        return {}
    if state.options.wrongMultiPenalty == "keep":
        if drawn is not None:
            w.bind(
                new,
                read_known(drawn, "drawn"),
                _drawn_at(name, w.r.pending_seq),
                seats=frozenset({seat}),
            )
        w.row(seat).append(new)
        w.own("seen")[new] = w.seen[new] | {seat}
        if face_up_row:
            w.face_up.add(new)
        return {}
    if drawn is not None:
        w.bind(new, read_known(drawn, "drawn"), _drawn_at(name, w.r.pending_seq), public=True)
    elif w.values[new] is None:
        raise RuleViolation(
            "cabo.drawn_required",
            Said(
                "%(player)s's claim fails (%(cards)s are not equal), so the drawn card goes face up onto the "
                "discard pile: write its value in drawn",
                player=name,
                cards=" ".join(map(str, shown)),
            ),
        )
    w.public.add(new)
    w.discard.append(new)
    return {}


def _on_call(state: State, event: Event) -> State:
    d = event.data
    rnd = _round_of(state)
    if rnd.caller is not None and not rnd.over:
        seat = d.get("seat")
        caller = state.players[rnd.caller]
        raise RuleViolation(
            "cabo.second_call",
            Said(
                "only one player may call CABO in a round: %(caller)s already called it at entry %(entry)s, so "
                "%(player)s cannot",
                caller=caller,
                entry=rnd.caller_seq,
                player=state.players[seat],
            )
            if is_int(seat) and 0 <= seat < rnd.seats
            else Said(
                "only one player may call CABO in a round: %(caller)s already called it at entry %(entry)s, so "
                "nobody else cannot",
                caller=caller,
                entry=rnd.caller_seq,
            ),
            seq=rnd.caller_seq,
        )
    rnd, seat = _actor(state, d, "call_cabo")
    w = _Work(state, rnd, event.seq)
    w.pending = None
    new = w.build(
        turn=(seat + 1) % rnd.seats,
        started=True,
        caller=seat,
        caller_seq=event.seq,
        final_left=rnd.seats - 1,
        moves=rnd.moves + 1,
    )
    return state._replace(current=new)


# --------------------------------------------------------------------------- the end of a round


def _bind_rows(state: State, w: _Work, layouts: object, field: str, *, hidden_ok: bool) -> None:
    rnd = w.r
    p = state.players
    if not isinstance(layouts, (list, tuple)) or len(layouts) != rnd.seats:
        raise RuleViolation(
            "cabo.mismatch", Said("%(field)s: one row per player (%(n)s), in seat order", field=field, n=rnd.seats)
        )
    for s, row in enumerate(layouts):
        have = len(w.layouts[s])
        if not isinstance(row, (list, tuple)) or len(row) != have:
            n = len(row) if isinstance(row, (list, tuple)) else 0
            raise RuleViolation(
                "cabo.mismatch",
                Said(
                    "%(field)s: %(player)s's row has %(cards)s, not %(n)s",
                    field=field,
                    player=p[s],
                    cards=how_many(have, "card"),
                    n=n,
                ),
            )
        for k, text in enumerate(row):
            v = read_value(text, f"{field}[{s}][{k}]") if hidden_ok else read_known(text, f"{field}[{s}][{k}]")
            w.bind(w.layouts[s][k], v, Said("%(player)s's slot %(slot)s", player=p[s], slot=k + 1), public=True)


def _on_showdown(state: State, event: Event) -> State:
    rnd = _round_of(state, moves=False)
    if not rnd.over:
        raise RuleViolation(
            "cabo.round_not_over",
            Said("round %(round)s is still being played: the showdown comes after the last turn", round=rnd.number),
        )
    w = _Work(state, rnd, event.seq)
    _bind_rows(state, w, event.data.get("layouts"), "layouts", hidden_ok=True)
    return _with_round(state, w.build(showdown_seq=event.seq))


def _on_reveal(state: State, event: Event) -> State:
    bindings = event.data.get("cards")
    if not isinstance(bindings, (list, tuple)) or not bindings:
        raise RuleViolation("common.bad_reveal", Said("a reveal lists one or more cards"))
    rnd = state.current
    if rnd is None or rnd.result_only:
        raise RuleViolation(
            "common.bad_reveal", Said("no round is being recorded move by move: there is no face-down card to reveal")
        )
    if rnd.closed_seq:
        raise RuleViolation(
            "common.bad_reveal",
            Said(
                "round %(round)s was closed from the score sheet at entry %(entry)s: it is scored from the sheet, "
                "not from its cards",
                round=rnd.number,
                entry=rnd.closed_seq,
            ),
        )
    w = _Work(state, rnd, event.seq)
    p = state.players
    for b in bindings:
        if not isinstance(b, Mapping):
            raise RuleViolation("common.bad_reveal", Said("%(value)s is not a binding", value=as_written(b)))
        v = read_known(b.get("card"))
        if "slot" in b:
            s = w.seat(b.get("seat"))
            k = b.get("slot")
            w.bind(w.slot(s, k), v, Said("%(player)s's slot %(slot)s", player=p[s], slot=k), public=rnd.over)
        elif "seq" in b:
            ref = next((r for r in rnd.refs if r.seq == b["seq"]), None)
            if ref is None:
                raise RuleViolation(
                    "common.bad_reveal",
                    Said(
                        "entry %(entry)s is not a draw, look, peek or spy of round %(round)s: name a card by {seat, slot}",
                        entry=b["seq"],
                        round=rnd.number,
                    ),
                )
            index = b.get("index")
            if ref.kind == "initial_peek":
                if not is_int(index) or not 0 <= index < len(ref.tokens):
                    raise RuleViolation(
                        "common.bad_reveal",
                        Said("entry %(entry)s is an initial look at two cards: give index 0 or 1", entry=ref.seq),
                    )
            elif index not in (None, 0):
                raise RuleViolation(
                    "common.bad_reveal", Said("entry %(entry)s concerns one card: omit index", entry=ref.seq)
                )
            t = ref.tokens[int(index or 0)]
            what = (
                _drawn_at(p[ref.seat], ref.seq)
                if ref.kind == "draw"
                else Said("the card %(player)s looked at in entry %(entry)s", player=p[ref.seat], entry=ref.seq)
            )
            w.bind(t, v, what, seats=frozenset({ref.seat}), public=rnd.over and any(t in row for row in w.layouts))
        else:
            raise RuleViolation(
                "common.bad_reveal",
                Said("a Cabo binding is {seat, slot, card} or {seq, card} (with index for an initial look)"),
            )
    return _with_round(state, w.build())


def _parse_layouts(state: State, raw: object) -> tuple[tuple[int, ...], ...]:
    p = state.players
    n = state.seats
    if not isinstance(raw, (list, tuple)) or len(raw) != n:
        raise RuleViolation("cabo.bad_result", Said("layouts is one row per player (%(n)s), in seat order", n=n))
    most = ROW if state.options.wrongMultiPenalty == "discard" else 51
    rows = []
    for s, row in enumerate(raw):
        if not isinstance(row, (list, tuple)) or not 1 <= len(row) <= most:
            size = len(row) if isinstance(row, (list, tuple)) else 0
            raise RuleViolation(
                "cabo.bad_result",
                Said(
                    "%(player)s's row has %(cards)s: a row keeps 1 to %(most)s (more only under wrongMultiPenalty = keep)",
                    player=p[s],
                    cards=how_many(size, "card"),
                    most=how_many(most, "card"),
                )
                if most == ROW
                else Said(
                    "%(player)s's row has %(cards)s: a row keeps 1 to %(most)s",
                    player=p[s],
                    cards=how_many(size, "card"),
                    most=how_many(most, "card"),
                ),
            )
        rows.append(tuple(read_known(c, f"layouts[{s}][{k}]") for k, c in enumerate(row)))
    flat = [v for row in rows for v in row]
    if len(flat) > sum(DECK_COUNTS) - 1:
        raise RuleViolation(
            "cabo.bad_result",
            Said("the rows hold %(n)s cards; at least one card lies on the discard pile", n=len(flat)),
        )
    for v in range(14):
        if flat.count(v) > DECK_COUNTS[v]:
            where = seat_names(p, [s for s in range(n) if v in rows[s]])
            raise RuleViolation(
                "common.card_duplicate",
                Said(
                    "the deck holds %(cards)s of value %(value)s, but the rows show %(count)s (%(players)s)",
                    cards=how_many(DECK_COUNTS[v], "card"),
                    value=v,
                    count=flat.count(v),
                    players=where,
                ),
            )
    return tuple(rows)


def _parse_caller(state: State, raw: object) -> Seat | None:
    if raw is None:
        if state.options.edition == 1:
            raise RuleViolation(
                "cabo.bad_result", Said("a first-edition round ends only after a CABO call: give the caller")
            )
        return None
    if not is_int(raw) or not 0 <= raw < state.seats:
        raise RuleViolation(
            "common.bad_seat",
            Said(
                "caller must be a seat from 0 to %(last)s or null, not %(value)s",
                last=state.seats - 1,
                value=as_written(raw),
            ),
        )
    return int(raw)


def _parse_sheet(state: State, d: Mapping[str, Any], caller: Seat | None) -> Sheet:
    """Read a result-only ``hand_result``: its rows (full form) or its sums (score-sheet form).

    Raises:
        RuleViolation: ``cabo.bad_result``, ``common.card_duplicate``, ``common.bad_seat``.
    """
    if "layouts" in d and "sums" in d:
        raise RuleViolation("cabo.bad_result", Said("give the rows (layouts) or the sheet's sums (sums), not both"))
    if "layouts" in d:
        if "kamikaze" in d:
            raise RuleViolation(
                "cabo.bad_result", Said("kamikaze goes with sums; with layouts it is read from the rows")
            )
        return sheet_of(_parse_layouts(state, d.get("layouts")), caller)
    if "sums" not in d:
        raise RuleViolation(
            "cabo.bad_result",
            Said("a round's result gives each row (layouts) or each player's sum as on the sheet (sums)"),
        )
    return _parse_sums(state, d.get("sums"), d.get("kamikaze"), caller)


def _most_cards(state: State) -> int:
    """How many cards a final row can hold: 4, or (``keep``) all but the discard pile's top."""
    return ROW if state.options.wrongMultiPenalty == "discard" else sum(DECK_COUNTS) - 1 - (state.seats - 1)


def _parse_sums(state: State, raw: object, kamikaze_raw: object, caller: Seat | None) -> Sheet:
    """Check the score-sheet form: one sum per seat a row can hold, the kamikaze's 50, one deck for all.

    Raises:
        RuleViolation: ``cabo.bad_result`` naming the sum no deal can give, ``common.bad_seat``.
    """
    p = state.players
    n = state.seats
    if not isinstance(raw, (list, tuple)) or len(raw) != n or not all(is_int(v) for v in raw):
        raise RuleViolation("cabo.bad_result", Said("sums is one whole number per player (%(n)s), in seat order", n=n))
    sums = tuple(int(v) for v in raw)
    most = _most_cards(state)
    values = sorted((v for v in range(14) for _ in range(DECK_COUNTS[v])), reverse=True)
    top = sum(values[:most])
    for s, v in enumerate(sums):
        if not 0 <= v <= top:
            spelled = " + ".join(map(str, values[:most])) + f" = {top}" if most == ROW else str(top)
            raise RuleViolation(
                "cabo.bad_result",
                Said(
                    "%(player)s's sum %(sum)s is impossible: a row of 1 to %(most)s cards adds up to 0 at least and "
                    "%(top)s at most",
                    player=p[s],
                    sum=v,
                    most=most,
                    top=spelled,
                ),
            )
    kamikaze: Seat | None = None
    if kamikaze_raw is not None:
        if not is_int(kamikaze_raw) or not 0 <= kamikaze_raw < n:
            raise RuleViolation(
                "common.bad_seat",
                Said(
                    "kamikaze must be a seat from 0 to %(last)s or null, not %(value)s",
                    last=n - 1,
                    value=as_written(kamikaze_raw),
                ),
            )
        kamikaze = int(kamikaze_raw)
        if sums[kamikaze] != sum(KAMIKAZE):
            raise RuleViolation(
                "cabo.bad_result",
                Said(
                    "a kamikaze shows 12 12 13 13, which adds up to 50: %(player)s's sum is %(sum)s",
                    player=p[kamikaze],
                    sum=sums[kamikaze],
                ),
            )
    if most == ROW:
        for s, v in enumerate(sums):
            if v == sum(KAMIKAZE) and s != kamikaze:
                raise RuleViolation(
                    "cabo.bad_result",
                    Said(
                        "%(player)s's 50 in at most 4 cards can only be 12 12 13 13, a kamikaze: write kamikaze: %(seat)s",
                        player=p[s],
                        seat=s,
                    ),
                )
    if not _deck_gives(sums, kamikaze, most):
        raise RuleViolation(
            "cabo.bad_result",
            Said(
                "no deal gives these sums together (%(sums)s): the deck holds two 0s, two 13s and four of each 1-12, "
                "and each row keeps 1 to %(most)s cards",
                sums=Joined((Joined([p[s], str(v)], " ") for s, v in enumerate(sums)), ", "),
                most=most,
            ),
        )
    return Sheet(sums, caller, kamikaze, None)


@lru_cache(maxsize=4096)
def _rows_adding_to(total: int, most: int, below: int = 13) -> tuple[tuple[int, ...], ...]:
    """Every row of 1 to ``most`` values (each ≤ ``below``, in falling order) that adds up to ``total``."""
    out: list[tuple[int, ...]] = []
    for v in range(min(below, total), -1, -1):
        rest = total - v
        if rest == 0:
            out.append((v,))
        if most > 1 and rest <= v * (most - 1):
            out += [(v, *r) for r in _rows_adding_to(rest, most - 1, v)]
    return tuple(out)


def _deck_gives(sums: tuple[int, ...], kamikaze: Seat | None, most: int) -> bool:
    """Tell whether one 52-card deck can give every seat a row with its sum (and the kamikaze its 12 12 13 13).

    An exact search over rows of at most 4 cards; with longer rows (``keep``) only what
    every row needs: a card each, so at most two seats (the two 0s) can add up to 0.
    """
    if most > ROW:
        return sum(1 for v in sums if v == 0) <= DECK_COUNTS[0] and sum(sums) <= sum(
            v * c for v, c in enumerate(DECK_COUNTS)
        )

    # the largest sums first: they need the scarce high cards, so dead ends show up early
    order = sorted(range(len(sums)), key=lambda s: (s != kamikaze, -sums[s]))

    @lru_cache(maxsize=None)
    def fits(i: int, counts: tuple[int, ...]) -> bool:
        if i == len(order):
            return True
        s = order[i]
        rows = (KAMIKAZE,) if s == kamikaze else _rows_adding_to(sums[s], most)
        for row in rows:
            left = list(counts)
            for v in row:
                left[v] -= 1
            if min(left) >= 0 and fits(i + 1, tuple(left)):
                return True
        return False

    return fits(0, DECK_COUNTS)


def _sheet_problem(state: State, rnd: Round, sheet: Sheet) -> str | None:
    """Say why a sheet cannot close a move-by-move round from its position, or None when it can.

    The caller is the one recorded, if any. Once every turn is taken the rows no longer
    change: each sum must be one that the row's known cards and the cards still unknown can
    make (``sum`` of the row's known values plus the fewest / most the unknown ones can add,
    from the cards the record does not place elsewhere), and a kamikaze row holds 4 cards.
    While turns remain any row can still change, so only the caller is checked.
    """
    p = state.players
    if rnd.caller is not None and sheet.caller != rnd.caller:
        if sheet.caller is None:
            return Said(
                "%(caller)s called CABO at entry %(entry)s; the sheet says nobody called",
                caller=p[rnd.caller],
                entry=rnd.caller_seq,
            )
        return Said(
            "%(caller)s called CABO at entry %(entry)s; the sheet says %(player)s called",
            caller=p[rnd.caller],
            entry=rnd.caller_seq,
            player=p[sheet.caller],
        )
    if rnd.over and rnd.caller is None and sheet.caller is not None:
        return Said(
            "the draw pile ran out with nobody calling CABO; the sheet says %(player)s called", player=p[sheet.caller]
        )
    if not rnd.over:
        return None
    live = [t for row in rnd.layouts for t in row] + list(rnd.draw) + list(rnd.discard)
    left = list(DECK_COUNTS)
    for t in live:
        v = rnd.values[t]
        if v is not None:
            left[v] -= 1
    pool = sorted(v for v in range(14) for _ in range(max(left[v], 0)))
    for s in range(rnd.seats):
        row = rnd.row_values(s)
        known = [v for v in row if v is not None]
        unknown = len(row) - len(known)
        low, high = sum(known) + sum(pool[:unknown]), sum(known) + sum(pool[len(pool) - unknown :])
        cards = how_many(len(row), "card")
        added = " + ".join(map(str, known))
        has: str
        if known and unknown:
            has = Said("%(cards)s, known %(known)s and %(unknown)s unknown", cards=cards, known=added, unknown=unknown)
        elif known:
            has = Said("%(cards)s, known %(known)s", cards=cards, known=added)
        elif unknown:
            has = Said("%(cards)s and %(unknown)s unknown", cards=cards, unknown=unknown)
        else:
            has = cards
        if sheet.kamikaze == s and len(row) != ROW:
            return Said(
                "%(player)s's row holds %(cards)s, so it cannot be the kamikaze 12 12 13 13", player=p[s], cards=cards
            )
        if not low <= sheet.sums[s] <= high:
            bound = Said("exactly %(low)s", low=low) if low == high else Said("%(low)s to %(high)s", low=low, high=high)
            return Said(
                "%(player)s's row holds %(has)s: its sum is %(bound)s; the sheet says %(sum)s",
                player=p[s],
                has=has,
                bound=bound,
                sum=sheet.sums[s],
            )
    return None


def _same_result(state: State, old: Sheet, new: Sheet, entry: int | None) -> None:
    """A repeated result must say what the first said (rows are compared when both give them):
    the one ``entry`` recorded, or (None) the one the moves give.

    Raises:
        RuleViolation: ``cabo.mismatch`` naming the field.
    """
    p = state.players
    if new.caller != old.caller:
        if old.caller is None:
            said = (
                Said("caller: the moves give no caller")
                if entry is None
                else Said("caller: entry %(entry)s recorded no caller", entry=entry)
            )
        elif entry is None:
            said = Said("caller: the moves give %(caller)s", caller=p[old.caller])
        else:
            said = Said("caller: entry %(entry)s recorded %(caller)s", entry=entry, caller=p[old.caller])
        raise RuleViolation("cabo.mismatch", said)
    if old.layouts is not None and new.layouts is not None and old.layouts != new.layouts:
        raise RuleViolation(
            "cabo.mismatch",
            Said("layouts: the moves give other rows")
            if entry is None
            else Said("layouts: entry %(entry)s recorded other rows", entry=entry),
        )
    if new.sums != old.sums:
        diff = next(s for s in range(len(p)) if new.sums[s] != old.sums[s])
        sums = dict(player=p[diff], old=old.sums[diff], new=new.sums[diff])
        raise RuleViolation(
            "cabo.mismatch",
            Said("sums: the moves give %(player)s's sum as %(old)s, not %(new)s", **sums)
            if entry is None
            else Said("sums: entry %(entry)s recorded %(player)s's sum as %(old)s, not %(new)s", entry=entry, **sums),
        )
    if new.kamikaze != old.kamikaze:
        if old.kamikaze is None:
            said = (
                Said("kamikaze: the moves give no kamikaze")
                if entry is None
                else Said("kamikaze: entry %(entry)s recorded no kamikaze", entry=entry)
            )
        elif entry is None:
            said = Said("kamikaze: the moves give %(player)s's kamikaze", player=p[old.kamikaze])
        else:
            said = Said("kamikaze: entry %(entry)s recorded %(player)s's kamikaze", entry=entry, player=p[old.kamikaze])
        raise RuleViolation("cabo.mismatch", said)


def _on_hand_result(state: State, event: Event) -> State:
    d = event.data
    rnd = state.current
    if rnd is None:
        raise RuleViolation("common.no_hand", Said("no round has been dealt yet (hand_started first)"))
    if "caller" not in d:
        raise RuleViolation(
            "cabo.bad_result", Said("a round's result gives the caller (null only after an edition-2 deck-out)")
        )
    caller = _parse_caller(state, d.get("caller"))
    p = state.players
    if rnd.result_only or rnd.closed_seq:
        sheet = _parse_sheet(state, d, caller)
        if rnd.facts is None:
            if state.over:
                raise RuleViolation("common.match_over", Said("the game is over: a total went over 100"))
            return settle(state, rnd._replace(facts=sheet, caller=caller, claim_seq=event.seq, over=True))
        _same_result(state, rnd.facts, sheet, rnd.claim_seq)
        return state
    if rnd.score is not None and "sums" in d:
        # a cross-check of a scored round in the score-sheet form
        rs = rnd.score
        _same_result(state, Sheet(rs.sums, rs.caller, rs.kamikaze, rs.layouts), _parse_sheet(state, d, caller), None)
        return state
    if rnd.score is None and ("sums" in d or not rnd.over):
        # closing from the sheet: the moves stay, the facts must be reachable from where they stop
        sheet = _parse_sheet(state, d, caller)
        problem = _sheet_problem(state, rnd, sheet)
        if problem:
            raise RuleViolation("cabo.result_conflict", problem)
        closed = rnd._replace(
            facts=sheet, caller=caller, claim_seq=event.seq, closed_seq=event.seq, over=True, final_left=0
        )
        return settle(state, closed)
    if caller != rnd.caller:
        if rnd.caller is None:
            said = Said("caller: nobody called CABO, not %(player)s", player=p[caller] if caller is not None else "?")
        elif caller is None:
            said = Said(
                "caller: %(caller)s called CABO at entry %(entry)s, not nobody",
                caller=p[rnd.caller],
                entry=rnd.caller_seq,
            )
        else:
            said = Said(
                "caller: %(caller)s called CABO at entry %(entry)s, not %(player)s",
                caller=p[rnd.caller],
                entry=rnd.caller_seq,
                player=p[caller],
            )
        raise RuleViolation("cabo.mismatch", said)
    w = _Work(state, rnd, event.seq)
    _bind_rows(state, w, d.get("layouts"), "layouts", hidden_ok=False)
    if state.over and rnd.score is not None:
        return state
    return _with_round(state, w.build(claim_seq=event.seq))


_HANDLERS = {
    "hand_started": _on_hand_started,
    "initial_peek": _on_initial_peek,
    "take_discard": _on_take_discard,
    "draw": _on_draw,
    "replace": _on_replace,
    "discard": _on_discard,
    "peek": _on_peek,
    "spy": _on_spy,
    "swap": _on_swap,
    "call_cabo": _on_call,
    "showdown": _on_showdown,
    "reveal": _on_reveal,
    "hand_result": _on_hand_result,
}
"""The handler of each event type :func:`apply` accepts."""


__all__ = ["OPTION_VALUES", "apply", "parse_options", "slot_words", "start"]
