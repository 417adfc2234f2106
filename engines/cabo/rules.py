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
        edition = "the first edition" if options.edition == 1 else "the second edition"
        raise RuleViolation("cabo.players", f"Cabo ({edition}) is played by 2 to {most} players, not {n}")
    if not all(isinstance(p, str) and p.strip() for p in players) or len(set(players)) != len(players):
        raise RuleViolation("cabo.players", "every player needs a different, non-empty name")
    target = data.get("target")
    if target is not None and dict(target) != {"over": LIMIT}:
        raise RuleViolation(
            "common.bad_target", 'Cabo always ends when a total goes over 100: target must be {"over": 100}'
        )
    n = len(players)
    totals: tuple[int, ...] = (0,) * n
    initial = data.get("initial")
    if initial is not None:
        raw = initial.get("totals") if isinstance(initial, Mapping) else None
        if not isinstance(raw, (list, tuple)) or len(raw) != n or not all(is_int(t) and 0 <= t <= LIMIT for t in raw):
            raise RuleViolation(
                "common.bad_initial", f"initial totals are {n} numbers from 0 to 100, one per player in seat order"
            )
        if options.edition == 1 and LIMIT in raw:
            raise RuleViolation(
                "common.bad_initial", "a total of exactly 100 is reduced to 50 at once (first edition): write 50"
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
                return f"{self.players[s]}'s slot {row.index(t) + 1}"
        if t in self.discard:
            return "on the discard pile"
        if t == self.pending:
            return f"the card {self.players[self.r.turn]} drew"
        if t in self.draw:
            return "in the draw pile"
        return "shuffled back into the draw pile"

    # ---- slots

    def slot(self, seat: Seat, k: object, field: str = "slot") -> Token:
        row = self.layouts[seat]
        if not is_int(k) or not 1 <= k <= len(row):
            raise RuleViolation(
                "cabo.bad_slot",
                f"{field}: {self.players[seat]} has {how_many(len(row), 'card')}, slots 1 to {len(row)}; there is no slot {as_written(k)}",
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
                        (f"{what} cannot be {plural(v)}: entry {src} recorded that card as {plural(cur)}"),
                        seq=src,
                    )
                raise RuleViolation(
                    "common.card_unavailable",
                    f"{what} cannot be {plural(v)}: the record already knows it is {plural(cur)}",
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
                        places = "; ".join(self.where(i) for i in same) or "nowhere"
                        raise RuleViolation(
                            "common.card_duplicate",
                            (
                                f"{what} cannot be {plural(v)}: the deck holds {how_many(cap, 'card')} of value {v} and the record already "
                                f"places {len(same)}: {places}"
                            ),
                        )
                    drawn = self.drawn_at[t]
                    raise RuleViolation(
                        "common.card_unavailable",
                        (
                            f"{what} cannot be {plural(v)}: it was drawn at entry {drawn} from the pile reshuffled at entry "
                            f"{self.pool_seq[o]}, which held {how_many(cap, 'card')} of value {v}"
                            + (", all of them placed elsewhere" if cap else "")
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
        raise RuleViolation("common.no_hand", "no round has been dealt yet (hand_started first)")
    if state.over and moves:
        raise RuleViolation("common.match_over", "the game is over: a total went over 100")
    if rnd.closed_seq:
        raise RuleViolation(
            "cabo.round_over",
            (
                f"round {rnd.number} was closed from the score sheet at entry {rnd.closed_seq}: "
                "nothing more can be recorded in it"
            ),
        )
    if rnd.result_only:
        raise RuleViolation(
            "common.no_deal", f"round {rnd.number} is recorded by its result only: moves cannot be recorded in it"
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
        raise RuleViolation("cabo.round_over", f"round {rnd.number} is over: record the showdown (every row, face up)")
    name = p[seat]
    if kind in AFTER_DRAW:
        if rnd.pending is None:
            if seat == rnd.turn:
                raise RuleViolation(
                    "cabo.no_draw",
                    (
                        f"{name} has not drawn a card: {kind} follows a draw (to use the discard pile, record take_discard)"
                    ),
                )
            raise RuleViolation("common.not_your_turn", f"it is {p[rnd.turn]}'s turn, not {name}'s")
        if seat != rnd.turn:
            raise RuleViolation(
                "common.not_your_turn", f"{p[rnd.turn]} drew at entry {rnd.pending_seq} and is playing, not {name}"
            )
        return rnd, seat
    if rnd.pending is not None:
        if seat == rnd.turn:
            raise RuleViolation(
                "cabo.finish_turn",
                (
                    f"{name} drew a card at entry {rnd.pending_seq}: record what he or she does with it "
                    "(replace, discard, peek, spy or swap) first"
                ),
            )
        raise RuleViolation(
            "common.not_your_turn", f"{p[rnd.turn]} drew at entry {rnd.pending_seq} and is playing, not {name}"
        )
    if seat != rnd.turn:
        extra = f"; {p[rnd.caller]} called CABO" if rnd.caller is not None else ""
        raise RuleViolation("common.not_your_turn", f"it is {p[rnd.turn]}'s turn, not {name}'s{extra}")
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
        raise RuleViolation("cabo.bad_slots", f"{field} lists one or more of {w.players[seat]}'s slots")
    for k in raw:
        w.slot(seat, k, field)
    if len(set(raw)) != len(raw):
        raise RuleViolation("cabo.bad_slots", f"{field}: each slot is named once, not {list(raw)}")
    return [int(k) for k in raw]


# --------------------------------------------------------------------------- the deal


def _on_hand_started(state: State, event: Event) -> State:
    d = event.data
    p = state.players
    n = state.seats
    if state.over:
        raise RuleViolation("common.match_over", "the game is over: a total went over 100")
    cur = state.current
    if cur is not None and cur.score is None:
        if not cur.over:
            what = "its hand_result" if cur.result_only else "its last turns"
            raise RuleViolation("common.hand_in_progress", f"round {cur.number} is not finished (waiting for {what})")
        missing = ", ".join(f"{p[s]}'s slot {k}" for s, k in cur.missing())
        raise RuleViolation(
            "common.hand_in_progress",
            (f"round {cur.number} is over but not scored: the showdown (or a reveal) must give {missing}"),
        )
    dealer = read_seat(d, n, "dealer")
    allowed = allowed_dealers(state)
    if dealer not in allowed:
        last = state.scores[-1]
        why = (
            f"{seat_names(p, list(last.winners))} won round {len(state.scores)}"
            if len(last.winners) == 1
            else f"{seat_names(p, list(last.winners))} won round {len(state.scores)} and {seat_names(p, allowed)} "
            f"{'has' if len(allowed) == 1 else 'have'} the lowest total among them"
        )
        raise RuleViolation(
            "cabo.wrong_dealer", f"{why}, so {seat_names(p, allowed)} starts and deals, not {p[dealer]}"
        )
    layouts, top = d.get("layouts"), d.get("discard")
    number = 1 if cur is None else cur.number + 1
    past = state.past if cur is None else state.past + (cur,)
    if layouts is None and top is None:
        return state._replace(past=past, current=Round(number, event.seq, dealer, True, n))
    if layouts is None or top is None:
        raise RuleViolation(
            "cabo.bad_deal", "a dealt round needs both layouts and discard (or neither, for a result-only round)"
        )
    if (
        not isinstance(layouts, (list, tuple))
        or len(layouts) != n
        or any(not isinstance(row, (list, tuple)) or len(row) != ROW for row in layouts)
    ):
        raise RuleViolation("cabo.bad_deal", f"the deal is {n} rows of 4 face-down cards, in seat order")
    values: list[int | None] = [
        read_value(c, f"layouts[{s}][{k}]") for s, row in enumerate(layouts) for k, c in enumerate(row)
    ]
    values.append(read_known(top, "discard"))
    for v in range(14):
        count = values.count(v)
        if count > DECK_COUNTS[v]:
            raise RuleViolation(
                "common.card_duplicate",
                f"the deck holds {how_many(DECK_COUNTS[v], 'card')} of value {v}, but the deal shows {count}",
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
            (
                f"the initial look comes before {state.players[rnd.dealer]}'s first turn; from then on {name} may look only through actions"
            ),
        )
    if seat in rnd.peeked:
        raise RuleViolation("cabo.look_twice", f"{name} has already had the initial look at two cards (once only)")
    slots = _slots(w, seat, d.get("slots"))
    if len(slots) != 2:
        raise RuleViolation(
            "cabo.bad_slots", f"the initial look is at exactly two of {name}'s own cards, not {len(slots)}"
        )
    cards = d.get("cards")
    if cards is not None and (not isinstance(cards, (list, tuple)) or len(cards) != 2):
        raise RuleViolation("cabo.bad_claim", "cards gives the two values seen, in the order of slots")
    tokens = tuple(w.slot(seat, k) for k in slots)
    for i, t in enumerate(tokens):
        v = read_value(cards[i], f"cards[{i}]") if cards is not None else None
        w.bind(t, v, f"{name}'s slot {slots[i]}", seats=frozenset({seat}))
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
        raise RuleViolation("cabo.no_discard", "the discard pile is empty: there is no card to take")
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
                "cabo.no_cards", "the draw pile is empty and the discard pile has no card to reshuffle under its top"
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
        f"the card {state.players[seat]} drew",
        seats=frozenset({seat}),
    )
    w.pending = t
    new = w.build(
        pending_seq=event.seq, started=True, refs=rnd.refs + (Ref(event.seq, "draw", seat, (t,)),), moves=rnd.moves + 1
    )
    return state._replace(current=new)


def _drawn_card(state: State, w: _Work, seat: Seat, d: Mapping[str, Any], public: bool = True) -> tuple[Token, int]:
    """The pending card, bound to the value written in ``card`` (it goes face up)."""
    t = w.pending
    assert t is not None
    v = read_known(d.get("card"))
    w.bind(t, v, f"the card {state.players[seat]} drew at entry {w.r.pending_seq}", public=public)
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
        has = f"{plural(v)} is a {what} card" if what else f"{plural(v)} has no action"
        raise RuleViolation(
            "cabo.wrong_action", f"{kind} needs a {allowed[0]} or {allowed[1]} drawn from the draw pile: {has}"
        )
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
        f"{state.players[seat]}'s slot {d['slot']}",
        seats=frozenset({seat}),
    )
    refs = rnd.refs + (Ref(event.seq, "peek", seat, (target,)),)
    return _with_round(state, _end_turn(state, rnd, seat, w, refs=refs))


def _slot_ref(w: _Work, raw: object, field: str) -> tuple[Seat, int, Token]:
    if not isinstance(raw, Mapping):
        raise RuleViolation("cabo.bad_slot", f"{field} is {{seat, slot}}")
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
            "cabo.spy_own", "a spy looks at another player's card; to look at one's own, a peek (7 or 8) is needed"
        )
    value = d.get("value")
    w.bind(
        target,
        read_value(value, "value") if value is not None else None,
        f"{state.players[s]}'s slot {k}",
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
        whose = "one's own two cards" if s1 == seat else f"two of {p[s1]}'s cards"
        raise RuleViolation("cabo.swap_own", f"a swap exchanges cards of two different players, not {whose}")
    if not state.options.swapAny and s1 != seat:
        raise RuleViolation(
            "cabo.swap_scope",
            (
                f"{p[seat]} swaps one of his or her own cards (first) with another player's (second); "
                "swapping two other players' cards needs the option swapAny"
            ),
        )
    if state.options.lockCaller and rnd.caller in (s1, s2):
        raise RuleViolation(
            "cabo.caller_locked", f"{p[rnd.caller]} called CABO: the caller's cards cannot be swapped (lockCaller)"
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
        raise RuleViolation("cabo.bad_slots", f"a claim names at most 4 slots, not {len(slots)}")
    cards = d.get("cards")
    if not isinstance(cards, (list, tuple)) or len(cards) != len(slots):
        raise RuleViolation(
            "cabo.bad_claim",
            f"cards gives the value shown from each of the {how_many(len(slots), 'named slot')}, in order",
        )
    shown = [read_known(c, f"cards[{i}]") for i, c in enumerate(cards)]
    tokens = [w.slot(seat, k) for k in slots]
    for k, t, v in zip(slots, tokens, shown):
        w.bind(t, v, f"{name}'s slot {k}", public=True)
    drawn = d.get("drawn")
    if drawn is not None and taken:
        raise RuleViolation(
            "cabo.bad_claim", "drawn is the value of a card drawn from the draw pile; a taken discard is known"
        )
    success = len(set(shown)) == 1
    face_up_row = state.options.edition == 2 and taken
    if success:
        if drawn is not None:
            w.bind(
                new,
                read_known(drawn, "drawn"),
                f"the card {name} drew at entry {w.r.pending_seq}",
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
                f"the card {name} drew at entry {w.r.pending_seq}",
                seats=frozenset({seat}),
            )
        w.row(seat).append(new)
        w.own("seen")[new] = w.seen[new] | {seat}
        if face_up_row:
            w.face_up.add(new)
        return {}
    if drawn is not None:
        w.bind(new, read_known(drawn, "drawn"), f"the card {name} drew at entry {w.r.pending_seq}", public=True)
    elif w.values[new] is None:
        raise RuleViolation(
            "cabo.drawn_required",
            (
                f"{name}'s claim fails ({' '.join(map(str, shown))} are not equal), so the drawn card goes face up onto the "
                "discard pile: write its value in drawn"
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
        who = state.players[seat] if is_int(seat) and 0 <= seat < rnd.seats else "nobody else"
        raise RuleViolation(
            "cabo.second_call",
            (
                f"only one player may call CABO in a round: {state.players[rnd.caller]} already called it at entry "
                f"{rnd.caller_seq}, so {who} cannot"
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
        raise RuleViolation("cabo.mismatch", f"{field}: one row per player ({rnd.seats}), in seat order")
    for s, row in enumerate(layouts):
        have = len(w.layouts[s])
        if not isinstance(row, (list, tuple)) or len(row) != have:
            n = len(row) if isinstance(row, (list, tuple)) else 0
            raise RuleViolation("cabo.mismatch", f"{field}: {p[s]}'s row has {how_many(have, 'card')}, not {n}")
        for k, text in enumerate(row):
            v = read_value(text, f"{field}[{s}][{k}]") if hidden_ok else read_known(text, f"{field}[{s}][{k}]")
            w.bind(w.layouts[s][k], v, f"{p[s]}'s slot {k + 1}", public=True)


def _on_showdown(state: State, event: Event) -> State:
    rnd = _round_of(state, moves=False)
    if not rnd.over:
        raise RuleViolation(
            "cabo.round_not_over", f"round {rnd.number} is still being played: the showdown comes after the last turn"
        )
    w = _Work(state, rnd, event.seq)
    _bind_rows(state, w, event.data.get("layouts"), "layouts", hidden_ok=True)
    return _with_round(state, w.build(showdown_seq=event.seq))


def _on_reveal(state: State, event: Event) -> State:
    bindings = event.data.get("cards")
    if not isinstance(bindings, (list, tuple)) or not bindings:
        raise RuleViolation("common.bad_reveal", "a reveal lists one or more cards")
    rnd = state.current
    if rnd is None or rnd.result_only:
        raise RuleViolation(
            "common.bad_reveal", "no round is being recorded move by move: there is no face-down card to reveal"
        )
    if rnd.closed_seq:
        raise RuleViolation(
            "common.bad_reveal",
            (
                f"round {rnd.number} was closed from the score sheet at entry {rnd.closed_seq}: it is scored from the sheet, "
                "not from its cards"
            ),
        )
    w = _Work(state, rnd, event.seq)
    p = state.players
    for b in bindings:
        if not isinstance(b, Mapping):
            raise RuleViolation("common.bad_reveal", f"{as_written(b)} is not a binding")
        v = read_known(b.get("card"))
        if "slot" in b:
            s = w.seat(b.get("seat"))
            k = b.get("slot")
            w.bind(w.slot(s, k), v, f"{p[s]}'s slot {k}", public=rnd.over)
        elif "seq" in b:
            ref = next((r for r in rnd.refs if r.seq == b["seq"]), None)
            if ref is None:
                raise RuleViolation(
                    "common.bad_reveal",
                    (
                        f"entry {b['seq']} is not a draw, look, peek or spy of round {rnd.number}: name a card by {{seat, slot}}"
                    ),
                )
            index = b.get("index")
            if ref.kind == "initial_peek":
                if not is_int(index) or not 0 <= index < len(ref.tokens):
                    raise RuleViolation(
                        "common.bad_reveal", f"entry {ref.seq} is an initial look at two cards: give index 0 or 1"
                    )
            elif index not in (None, 0):
                raise RuleViolation("common.bad_reveal", f"entry {ref.seq} concerns one card: omit index")
            t = ref.tokens[int(index or 0)]
            what = {"draw": f"the card {p[ref.seat]} drew at entry {ref.seq}"}.get(
                ref.kind, f"the card {p[ref.seat]} looked at in entry {ref.seq}"
            )
            w.bind(t, v, what, seats=frozenset({ref.seat}), public=rnd.over and any(t in row for row in w.layouts))
        else:
            raise RuleViolation(
                "common.bad_reveal",
                "a Cabo binding is {seat, slot, card} or {seq, card} (with index for an initial look)",
            )
    return _with_round(state, w.build())


def _parse_layouts(state: State, raw: object) -> tuple[tuple[int, ...], ...]:
    p = state.players
    n = state.seats
    if not isinstance(raw, (list, tuple)) or len(raw) != n:
        raise RuleViolation("cabo.bad_result", f"layouts is one row per player ({n}), in seat order")
    most = ROW if state.options.wrongMultiPenalty == "discard" else 51
    rows = []
    for s, row in enumerate(raw):
        if not isinstance(row, (list, tuple)) or not 1 <= len(row) <= most:
            size = len(row) if isinstance(row, (list, tuple)) else 0
            raise RuleViolation(
                "cabo.bad_result",
                (
                    f"{p[s]}'s row has {how_many(size, 'card')}: a row keeps 1 to {how_many(most, 'card')}"
                    + (" (more only under wrongMultiPenalty = keep)" if most == ROW else "")
                ),
            )
        rows.append(tuple(read_known(c, f"layouts[{s}][{k}]") for k, c in enumerate(row)))
    flat = [v for row in rows for v in row]
    if len(flat) > sum(DECK_COUNTS) - 1:
        raise RuleViolation(
            "cabo.bad_result", f"the rows hold {len(flat)} cards; at least one card lies on the discard pile"
        )
    for v in range(14):
        if flat.count(v) > DECK_COUNTS[v]:
            where = seat_names(p, [s for s in range(n) if v in rows[s]])
            raise RuleViolation(
                "common.card_duplicate",
                (
                    f"the deck holds {how_many(DECK_COUNTS[v], 'card')} of value {v}, but the rows show {flat.count(v)} ({where})"
                ),
            )
    return tuple(rows)


def _parse_caller(state: State, raw: object) -> Seat | None:
    if raw is None:
        if state.options.edition == 1:
            raise RuleViolation("cabo.bad_result", "a first-edition round ends only after a CABO call: give the caller")
        return None
    if not is_int(raw) or not 0 <= raw < state.seats:
        raise RuleViolation(
            "common.bad_seat", f"caller must be a seat from 0 to {state.seats - 1} or null, not {as_written(raw)}"
        )
    return int(raw)


def _parse_sheet(state: State, d: Mapping[str, Any], caller: Seat | None) -> Sheet:
    """Read a result-only ``hand_result``: its rows (full form) or its sums (score-sheet form).

    Raises:
        RuleViolation: ``cabo.bad_result``, ``common.card_duplicate``, ``common.bad_seat``.
    """
    if "layouts" in d and "sums" in d:
        raise RuleViolation("cabo.bad_result", "give the rows (layouts) or the sheet's sums (sums), not both")
    if "layouts" in d:
        if "kamikaze" in d:
            raise RuleViolation("cabo.bad_result", "kamikaze goes with sums; with layouts it is read from the rows")
        return sheet_of(_parse_layouts(state, d.get("layouts")), caller)
    if "sums" not in d:
        raise RuleViolation(
            "cabo.bad_result", "a round's result gives each row (layouts) or each player's sum as on the sheet (sums)"
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
        raise RuleViolation("cabo.bad_result", f"sums is one whole number per player ({n}), in seat order")
    sums = tuple(int(v) for v in raw)
    most = _most_cards(state)
    values = sorted((v for v in range(14) for _ in range(DECK_COUNTS[v])), reverse=True)
    top = sum(values[:most])
    for s, v in enumerate(sums):
        if not 0 <= v <= top:
            spelled = " + ".join(map(str, values[:most])) + f" = {top}" if most == ROW else str(top)
            raise RuleViolation(
                "cabo.bad_result",
                (
                    f"{p[s]}'s sum {v} is impossible: a row of 1 to {most} cards adds up to 0 at least and {spelled} at most"
                ),
            )
    kamikaze: Seat | None = None
    if kamikaze_raw is not None:
        if not is_int(kamikaze_raw) or not 0 <= kamikaze_raw < n:
            raise RuleViolation(
                "common.bad_seat", f"kamikaze must be a seat from 0 to {n - 1} or null, not {as_written(kamikaze_raw)}"
            )
        kamikaze = int(kamikaze_raw)
        if sums[kamikaze] != sum(KAMIKAZE):
            raise RuleViolation(
                "cabo.bad_result",
                (f"a kamikaze shows 12 12 13 13, which adds up to 50: {p[kamikaze]}'s sum is {sums[kamikaze]}"),
            )
    if most == ROW:
        for s, v in enumerate(sums):
            if v == sum(KAMIKAZE) and s != kamikaze:
                raise RuleViolation(
                    "cabo.bad_result",
                    (f"{p[s]}'s 50 in at most 4 cards can only be 12 12 13 13, a kamikaze: write kamikaze: {s}"),
                )
    if not _deck_gives(sums, kamikaze, most):
        raise RuleViolation(
            "cabo.bad_result",
            (
                f"no deal gives these sums together ({', '.join(f'{p[s]} {v}' for s, v in enumerate(sums))}): the deck holds "
                f"two 0s, two 13s and four of each 1-12, and each row keeps 1 to {most} cards"
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
        said = f"{p[sheet.caller]} called" if sheet.caller is not None else "nobody called"
        return f"{p[rnd.caller]} called CABO at entry {rnd.caller_seq}; the sheet says {said}"
    if rnd.over and rnd.caller is None and sheet.caller is not None:
        return f"the draw pile ran out with nobody calling CABO; the sheet says {p[sheet.caller]} called"
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
        has = f"{how_many(len(row), 'card')}" + (f", known {' + '.join(map(str, known))}" if known else "")
        if unknown:
            has += f" and {unknown} unknown"
        if sheet.kamikaze == s and len(row) != ROW:
            return f"{p[s]}'s row holds {how_many(len(row), 'card')}, so it cannot be the kamikaze 12 12 13 13"
        if not low <= sheet.sums[s] <= high:
            bound = f"exactly {low}" if low == high else f"{low} to {high}"
            return f"{p[s]}'s row holds {has}: its sum is {bound}; the sheet says {sheet.sums[s]}"
    return None


def _same_result(state: State, old: Sheet, new: Sheet, source: str) -> None:
    """A repeated result must say what the first said (rows are compared when both give them).

    Raises:
        RuleViolation: ``cabo.mismatch`` naming the field.
    """
    p = state.players
    if new.caller != old.caller:
        said = seat_names(p, [old.caller]) if old.caller is not None else "no caller"
        raise RuleViolation("cabo.mismatch", f"caller: {source} {said}")
    if old.layouts is not None and new.layouts is not None and old.layouts != new.layouts:
        raise RuleViolation("cabo.mismatch", f"layouts: {source} other rows")
    if new.sums != old.sums:
        diff = next(s for s in range(len(p)) if new.sums[s] != old.sums[s])
        raise RuleViolation(
            "cabo.mismatch", f"sums: {source} {p[diff]}'s sum as {old.sums[diff]}, not {new.sums[diff]}"
        )
    if new.kamikaze != old.kamikaze:
        said = f"{p[old.kamikaze]}'s kamikaze" if old.kamikaze is not None else "no kamikaze"
        raise RuleViolation("cabo.mismatch", f"kamikaze: {source} {said}")


def _on_hand_result(state: State, event: Event) -> State:
    d = event.data
    rnd = state.current
    if rnd is None:
        raise RuleViolation("common.no_hand", "no round has been dealt yet (hand_started first)")
    if "caller" not in d:
        raise RuleViolation(
            "cabo.bad_result", "a round's result gives the caller (null only after an edition-2 deck-out)"
        )
    caller = _parse_caller(state, d.get("caller"))
    p = state.players
    if rnd.result_only or rnd.closed_seq:
        sheet = _parse_sheet(state, d, caller)
        if rnd.facts is None:
            if state.over:
                raise RuleViolation("common.match_over", "the game is over: a total went over 100")
            return settle(state, rnd._replace(facts=sheet, caller=caller, claim_seq=event.seq, over=True))
        _same_result(state, rnd.facts, sheet, f"entry {rnd.claim_seq} recorded")
        return state
    if rnd.score is not None and "sums" in d:
        # a cross-check of a scored round in the score-sheet form
        rs = rnd.score
        _same_result(
            state, Sheet(rs.sums, rs.caller, rs.kamikaze, rs.layouts), _parse_sheet(state, d, caller), "the moves give"
        )
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
        said = p[caller] if caller is not None else "nobody"
        did = (
            f"{p[rnd.caller]} called CABO at entry {rnd.caller_seq}" if rnd.caller is not None else "nobody called CABO"
        )
        raise RuleViolation("cabo.mismatch", f"caller: {did}, not {said}")
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
