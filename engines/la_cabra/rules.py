"""La Cabra's rules: :func:`start` a match, :func:`apply` one event (docs/RULES.md §5).

Every handler checks the whole event first and only then builds the new state, so a
:class:`RuleViolation` leaves nothing half-changed (the old state is never touched anyway).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engines.base import Event, RuleViolation
from engines.common import check_options, is_int, read_cards, read_seat, as_written, set_item
from engines.cards import UNKNOWN, Card
from engines.la_cabra.scoring import (
    base_loss,
    claim_points,
    compute_facts,
    feasible_words,
    has_late_slot,
    rescore,
    returned_trump,
    took_tricks,
)
from engines.la_cabra.options import OPTION_VALUES
from engines.la_cabra.state import (
    BY_TEXT,
    DECK,
    GAME,
    HAND_SIZE,
    LOSS_LIMIT,
    SEATS,
    STOCK_SIZE,
    TEAMS,
    Claim,
    Hand,
    Options,
    Play,
    Seat,
    State,
    Trick,
    TrickDone,
    bits,
    can_beat,
    beats,
    card_list,
    deck_masks,
    deck_totals,
    pair,
    points,
    read_card,
    sorted_cards,
    suit_sign,
    sum_masks,
    team_name,
    team_of,
    value,
)
from engines.said import Counted, Joined, Said


# --------------------------------------------------------------------------- small helpers


_record = tuple.__new__
"""Build a :class:`Play`, :class:`Trick` or :class:`TrickDone` from the tuple of all its fields: ``_record(Play, (seq, seat, ...))``.

The same record as ``Play(seq, seat, ...)``, built in C: every move builds a play and a
trick, and a named tuple's own constructor is a Python call (about 2.5k of La Cabra's ~72k
machine instructions per event; tests/engines/test_fast_paths.py pins the records to their constructors).
"""


def _seat(data: Mapping[str, Any], key: str = "seat") -> Seat:
    seat = data.get(key)
    if type(seat) is int and 0 <= seat < SEATS:  # every move names a seat: one test for a good one
        return seat
    return read_seat(data, SEATS, key)


def _cards(data: Mapping[str, Any], *, hidden_ok: bool = False) -> list[Card | None]:
    texts = data.get("cards")
    if type(texts) is list and texts:
        try:
            if len(texts) == 1:  # most moves play one card: one look-up, no comprehension, and it is distinct
                return [BY_TEXT[texts[0]]]
            cards = [BY_TEXT[t] for t in texts]
        except (KeyError, TypeError):  # "??" or no card: read_cards says which
            pass
        else:
            if len(set(cards)) == len(cards):
                return cards  # type: ignore[return-value]
    return read_cards(data, read_card, hidden_ok=hidden_ok, unique=True)


def _face_up(data: Mapping[str, Any]) -> list[Card]:
    """Read the cards of a face-up move (lead, beat, tira): ``"??"`` is refused, so none is None."""
    return _cards(data)  # type: ignore[return-value]


def _known(cards: list[Card | None]) -> list[Card]:
    return [c for c in cards if c is not None]


def _where(state: State, hand: Hand, card: Card) -> Said:
    """Say where the record already places ``card`` in this deal (what follows "it is")."""
    for s in range(SEATS):
        if card in hand.known[s]:
            return Said("in %(player)s's hand", player=state.players[s])
    if hand.trick is not None:
        for p in hand.trick.plays:
            if card in p.cards:
                return Said("on the table, played by %(player)s", player=state.players[p.seat])
    for side in (0, 1):
        if card in hand.pile_known[side]:
            return Said("in %(team)s's trick pile", team=team_name(state.players, side))
    if card == hand.trump:
        return Said("the trump card, face up at the bottom of the stock")
    return Said("elsewhere")


def _trump_barred(state: State, hand: Hand, card: Card, before: int | None = None) -> bool:
    """The ``returned`` trump card cannot be in a hand (or a discard made) before the first refill."""
    if returned_trump(hand, state.options) != card:
        return False
    if hand.refill_seq is None:
        return True
    return before is not None and before <= hand.refill_seq


def _take(state: State, hand: Hand, seat: Seat, cards: list[Card], hidden: int = 0) -> dict[str, Any]:
    """Return the hand fields changed by removing ``cards`` (and ``hidden`` unknowns) from ``seat``'s hand.

    The caller merges them into its one ``hand._replace(...)`` (a hand has many fields, and
    rebuilding it is the cost that dominates ``apply``; each field named costs too, so a
    field that keeps its value may be left out: read them with :func:`_field`).

    A shown card is a known card of the hand or binds one of its unknown cards (implicit
    binding, VOCABULARY.md §3) when its place is not known elsewhere.

    Raises:
        RuleViolation: ``la-cabra.hand_size``, ``common.card_unavailable`` or
            ``la-cabra.name_discard`` (a ``??`` discard from a hand with too few unknowns).
    """
    mine = hand.known[seat]
    gone = frozenset(cards)
    if not hidden and len(gone) == len(cards) and gone <= mine:
        # the usual play: distinct cards the record already places in this hand, which no
        # check of _take_checked can refuse, and its unknown cards stay as they are: the
        # same fields without those checks (tests/engines/test_fast_paths.py pins it)
        taken = {"moves": hand.moves + 1, "known": set_item(hand.known, seat, mine - gone)}
        if hand.shown[seat]:
            taken["shown"] = set_item(hand.shown, seat, hand.shown[seat] - gone)
        if not gone <= hand.located:
            taken["located"] = hand.located | gone
        return taken
    return _take_checked(state, hand, seat, cards, hidden)


def _field(hand: Hand, changes: dict[str, Any], name: str) -> Any:
    """Return field ``name`` of ``hand`` as ``changes`` leave it."""
    return changes[name] if name in changes else getattr(hand, name)


def _take_checked(state: State, hand: Hand, seat: Seat, cards: list[Card], hidden: int = 0) -> dict[str, Any]:
    """:func:`_take` the long way: every check, and the binding of unknown cards."""
    name = state.players[seat]
    mine, unknown = hand.known[seat], hand.unknown[seat]
    if len(cards) + hidden > len(mine) + unknown:
        raise RuleViolation(
            "la-cabra.hand_size",
            Counted(
                "%(player)s holds %(n)s card and cannot play %(count)s",
                "%(player)s holds %(n)s cards and cannot play %(count)s",
                len(mine) + unknown,
                player=name,
                count=len(cards) + hidden,
            ),
        )
    bind = [c for c in cards if c not in mine]
    for c in bind:
        if c in hand.located:
            raise RuleViolation(
                "common.card_unavailable",
                Said(
                    "%(player)s cannot play %(card)s: it is %(where)s",
                    player=name,
                    card=c.pretty(),
                    where=_where(state, hand, c),
                ),
            )
        if _trump_barred(state, hand, c):
            raise RuleViolation(
                "common.card_unavailable",
                Said(
                    "%(player)s cannot play %(card)s: it was shown as trump and put back into the stock, and "
                    "nobody has drawn yet",
                    player=name,
                    card=c.pretty(),
                ),
            )
    msg: str
    if len(bind) > unknown:
        if unknown == 0:
            msg = Said(
                "%(player)s's hand is known (%(hand)s): it holds no %(cards)s",
                player=name,
                hand=card_list(sorted_cards(mine)),
                cards=card_list(bind),
            )
        else:
            msg = Counted(
                "%(player)s holds %(hand)s and %(n)s unknown card: %(cards)s cannot all be among them",
                "%(player)s holds %(hand)s and %(n)s unknown cards: %(cards)s cannot all be among them",
                unknown,
                player=name,
                hand=card_list(sorted_cards(mine)),
                cards=card_list(bind),
            )
        raise RuleViolation("common.card_unavailable", msg)
    if len(bind) + hidden > unknown:
        known_words = card_list(sorted_cards(mine - set(cards)))
        if unknown - len(bind) == 0:
            msg = Said("%(player)s's hand is known (%(hand)s); name the discarded cards", player=name, hand=known_words)
        else:
            msg = Counted(
                "%(player)s holds %(hand)s and only %(n)s unknown card; name the other discarded cards",
                "%(player)s holds %(hand)s and only %(n)s unknown cards; name the other discarded cards",
                unknown - len(bind),
                player=name,
                hand=known_words,
            )
        raise RuleViolation("la-cabra.name_discard", msg)
    gone = frozenset(cards)
    return {
        "moves": hand.moves + 1,
        "known": set_item(hand.known, seat, mine - gone),
        "unknown": set_item(hand.unknown, seat, unknown - len(bind) - hidden),
        "shown": set_item(hand.shown, seat, hand.shown[seat] - gone) if hand.shown[seat] else hand.shown,
        "located": hand.located | gone,
    }


# --------------------------------------------------------------------------- start


def parse_options(raw: object) -> Options:
    """Read the ``options`` of ``match_started`` (omitted keys take their default).

    Raises:
        RuleViolation: ``common.bad_option`` for an unknown key or value.
    """
    return Options(**check_options(raw, OPTION_VALUES, "La Cabra"))


def start(data: Mapping[str, Any]) -> State:
    """Return the state right after ``match_started``.

    Raises:
        RuleViolation: ``common.wrong_game``, ``la-cabra.players`` (not 4 unique names),
            ``la-cabra.teams``, ``common.bad_target``, ``common.bad_option``,
            ``common.bad_initial``.
    """
    game = data.get("game", GAME)
    if game != GAME:
        raise RuleViolation(
            "common.wrong_game", Said("this is the La Cabra engine, not %(game)s", game=as_written(game))
        )
    players = data.get("players")
    if not isinstance(players, (list, tuple)) or len(players) != SEATS:
        n = len(players) if isinstance(players, (list, tuple)) else 0
        raise RuleViolation(
            "la-cabra.players", Said("La Cabra is played by exactly 4 players in two teams; got %(count)s", count=n)
        )
    if not all(isinstance(p, str) and p for p in players) or len(set(players)) != SEATS:
        raise RuleViolation("la-cabra.players", Said("the 4 players need 4 different, non-empty names"))
    teams = data.get("teams")
    if teams is not None and [list(t) for t in teams] != [list(t) for t in TEAMS]:
        raise RuleViolation("la-cabra.teams", Said("partners sit opposite: teams must be [[0, 2], [1, 3]]"))
    target = data.get("target")
    if target is not None and dict(target) != {"lossPoints": LOSS_LIMIT}:
        raise RuleViolation(
            "common.bad_target",
            Said('La Cabra\'s series always ends at 12 loss points: target must be {"lossPoints": 12}'),
        )
    options = parse_options(data.get("options"))
    initial = data.get("initial")
    loss, double = (0, 0), False
    if initial is not None:
        lp = initial.get("lossPoints", [0, 0])
        if not isinstance(lp, (list, tuple)) or len(lp) != 2 or not all(is_int(v) and 0 <= v < LOSS_LIMIT for v in lp):
            raise RuleViolation(
                "common.bad_initial",
                Said("initial lossPoints must be two numbers from 0 to 11 (a team with 12 has already lost)"),
            )
        double = initial.get("doubleNext", False)
        if not isinstance(double, bool):
            raise RuleViolation("common.bad_initial", Said("initial doubleNext must be true or false"))
        if double and options.eggs != "doubleNext":
            raise RuleViolation("common.bad_initial", Said("initial doubleNext needs the option eggs = doubleNext"))
        loss = (int(lp[0]), int(lp[1]))
    return State(
        players=tuple(players), options=options, initial=loss, initial_double=double, carried=initial is not None
    )


# --------------------------------------------------------------------------- apply


def apply(state: State, event: Event) -> State:
    """Check ``event`` against the rules and return the next state.

    Raises:
        RuleViolation: the event is illegal; ``state`` is unchanged (it always is).
    """
    match event.type:
        case "hand_started":
            return _on_hand_started(state, event)
        case "lead":
            return _on_lead(state, event)
        case "beat":
            return _on_beat(state, event)
        case "discard":
            return _on_discard(state, event)
        case "tira":
            return _on_tira(state, event)
        case "reveal":
            return _on_reveal(state, event)
        case "hand_result":
            return _on_hand_result(state, event)
        case _:
            raise RuleViolation(
                "common.unknown_event", Said("La Cabra has no event %(event)s", event=as_written(event.type))
            )


def _with_hand(state: State, hand: Hand) -> State:
    """Put the current hand back; score it if it just ended."""
    if hand.over and hand.facts is None:
        hand = hand._replace(facts=compute_facts(hand, state.options))
        return rescore(state._replace(current=hand), len(state.past))
    return state._replace(current=hand)


def _on_hand_started(state: State, event: Event) -> State:
    d = event.data
    if state.over:
        raise RuleViolation("common.match_over", Said("the series is over: a team has 12 loss points"))
    cur = state.current
    if cur is not None and not cur.over:
        raise RuleViolation(
            "common.hand_in_progress",
            Said("hand %(hand)s is not finished (waiting for its hand_result)", hand=cur.number)
            if cur.result_only
            else Said("hand %(hand)s is not finished (waiting for its last trick)", hand=cur.number),
        )
    dealer = _seat(d, "dealer")
    if cur is not None and dealer != (cur.dealer + 1) % SEATS:
        nxt = (cur.dealer + 1) % SEATS
        raise RuleViolation(
            "la-cabra.wrong_dealer",
            Said(
                "the deal passes clockwise: %(dealer)s dealt hand %(hand)s, so %(next)s deals now, not %(player)s",
                dealer=state.players[cur.dealer],
                hand=cur.number,
                next=state.players[nxt],
                player=state.players[dealer],
            ),
        )
    hands_data, trump_data = d.get("hands"), d.get("trump")
    result_only = hands_data is None and trump_data is None
    if (hands_data is None) != (trump_data is None):
        raise RuleViolation(
            "la-cabra.bad_deal", Said("a dealt hand needs both hands and trump (or neither, for a result-only hand)")
        )
    if cur is None:
        derived: Seat | None = (dealer + 1) % SEATS
    else:
        derived = cur.last_winner
    leader: Seat | None
    if d.get("leader") is not None:
        leader = _seat(d, "leader")
        if cur is not None and derived is not None and leader != derived:
            raise RuleViolation(
                "la-cabra.mismatch",
                Said(
                    "leader: %(winner)s won the last trick of hand %(hand)s and leads, not %(player)s",
                    winner=state.players[derived],
                    hand=cur.number,
                    player=state.players[leader],
                ),
            )
    elif derived is not None or result_only:
        leader = derived
    else:
        raise RuleViolation(
            "la-cabra.leader_required",
            Said(
                "hand %(hand)s was recorded without lastTrick: say who leads (leader), the winner of its last trick",
                hand=cur.number if cur else 0,
            ),
        )
    number = 1 if cur is None else cur.number + 1
    past = state.past if cur is None else state.past + (cur,)
    if result_only:
        hand = Hand(number, event.seq, dealer, leader, None, to_lead=leader if leader is not None else 0)
        return state._replace(past=past, current=hand)
    trump = read_card(trump_data)
    assert trump is not None and leader is not None
    if (
        not isinstance(hands_data, (list, tuple))
        or len(hands_data) != SEATS
        or any(not isinstance(h, (list, tuple)) or len(h) != HAND_SIZE for h in hands_data)
    ):
        raise RuleViolation("la-cabra.bad_deal", Said("the deal is 4 hands of 4 cards each, in seat order"))
    known, unknown, located = _plain_deal(hands_data, trump) or _read_deal(state, hands_data, trump)
    if state.options.trumpCard == "bottomFaceUp":
        located |= {trump}
    empty: tuple[frozenset[Card], ...] = (frozenset(),) * SEATS
    hand = Hand(
        number,
        event.seq,
        dealer,
        leader,
        trump,
        known=known,
        unknown=unknown,
        shown=empty,
        downs=empty,
        stock=STOCK_SIZE,
        to_lead=leader,
        located=located,
    )
    return state._replace(past=past, current=hand)


Deal = tuple[tuple[frozenset[Card], ...], tuple[int, ...], frozenset[Card]]
"""A deal as the hand keeps it: per seat its known cards and its number of unknown ones, and every dealt known card."""


def _read_deal(state: State, hands_data: Sequence[Sequence[Any]], trump: Card) -> Deal:
    """Read the 4 dealt hands (written ``"??"`` for a card the recorder did not see), card by card.

    Raises:
        RuleViolation: ``common.card_duplicate`` (a card dealt twice, or the trump card dealt),
            or an error of a text that is no card of the deck.
    """
    where: dict[Card, Seat] = {}
    known: list[frozenset[Card]] = []
    unknown: list[int] = []
    for s, cards in enumerate(hands_data):
        mine: set[Card] = set()
        for text in cards:
            c = read_card(text, hidden_ok=True)
            if c is None:
                continue
            if c == trump:
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "%(card)s is the trump card shown from the stock; it cannot be dealt to %(player)s",
                        card=c.pretty(),
                        player=state.players[s],
                    ),
                )
            if c in where:
                raise RuleViolation(
                    "common.card_duplicate",
                    Said("%(card)s is dealt to %(player)s twice", card=c.pretty(), player=state.players[s])
                    if where[c] == s
                    else Said(
                        "%(card)s is dealt to %(player)s and to %(other)s",
                        card=c.pretty(),
                        player=state.players[where[c]],
                        other=state.players[s],
                    ),
                )
            where[c] = s
            mine.add(c)
        known.append(frozenset(mine))
        unknown.append(HAND_SIZE - len(mine))
    return tuple(known), tuple(unknown), frozenset(where)


def _plain_deal(hands_data: Sequence[Sequence[Any]], trump: Card) -> Deal | None:
    """:func:`_read_deal` of a deal it cannot refuse, in a few set operations; None for any other.

    Every text is a card of the deck or ``"??"``, no card is written twice and the trump card
    is not dealt: the usual deal, which the card-by-card reading (a call, a comparison and
    three look-ups per card) would accept unchanged. Pinned to it in tests/engines/test_fast_paths.py.
    """
    try:
        seats = [[BY_TEXT[t] for t in cards if t != UNKNOWN] for cards in hands_data]
    except (KeyError, TypeError):  # a text of no card, or no text at all
        return None
    where = dict.fromkeys([c for mine in seats for c in mine])  # as _read_deal's, so the sets iterate alike
    if len(where) != sum(map(len, seats)) or trump in where:  # a card written twice, or the trump card dealt
        return None
    return (
        tuple([frozenset(mine) for mine in seats]),
        tuple([HAND_SIZE - len(mine) for mine in seats]),
        frozenset(where),
    )


def _deal(state: State) -> Hand:
    """The hand being played move by move.

    Raises:
        RuleViolation: ``common.match_over``, ``common.no_hand``, ``common.no_deal``
            (a result-only hand), ``la-cabra.deal_over``.
    """
    hand = state.current
    if hand is not None and state.end is None and hand.trump is not None and not hand.closed_seq and not hand.over:
        return hand  # a move in a dealt hand in play: the usual case, in one test
    if state.over:
        raise RuleViolation("common.match_over", Said("the series is over: a team has 12 loss points"))
    if hand is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if hand.result_only:
        raise RuleViolation(
            "common.no_deal",
            Said("hand %(hand)s is recorded by its result only: moves cannot be recorded in it", hand=hand.number),
        )
    if hand.closed_seq:
        raise RuleViolation(
            "la-cabra.deal_over",
            Said(
                "hand %(hand)s was closed from the score sheet at entry %(entry)s: nothing more can be recorded in it",
                hand=hand.number,
                entry=hand.closed_seq,
            ),
        )
    if hand.over:
        raise RuleViolation(
            "la-cabra.deal_over", Said("hand %(hand)s is over: every card has been played", hand=hand.number)
        )
    return hand


def _check_turn(state: State, hand: Hand, seat: Seat, kind: str) -> None:
    trick = hand.trick
    turn = hand.to_lead if trick is None else (trick.leader + len(trick.plays)) % SEATS  # Trick.turn, without a call
    if seat != turn:
        raise RuleViolation(
            "common.not_your_turn",
            Said(
                "it is %(turn)s's turn to lead, not %(player)s's", turn=state.players[turn], player=state.players[seat]
            )
            if trick is None
            else Said(
                "it is %(turn)s's turn to play, not %(player)s's", turn=state.players[turn], player=state.players[seat]
            ),
        )
    if kind == "lead" and trick is not None:
        raise RuleViolation(
            "la-cabra.wrong_move",
            Counted(
                "%(player)s answers the lead with %(n)s card: beat or discard",
                "%(player)s answers the lead with %(n)s cards: beat or discard",
                trick.k,
                player=state.players[seat],
            ),
        )
    if kind != "lead" and trick is None:
        raise RuleViolation(
            "la-cabra.wrong_move",
            Said("%(player)s leads this trick: record a lead (or a tira)", player=state.players[seat]),
        )


def _on_lead(state: State, event: Event) -> State:
    hand = _deal(state)
    seat = _seat(event.data)
    _check_turn(state, hand, seat, "lead")
    cards = _face_up(event.data)
    name = state.players[seat]
    if len(cards) > HAND_SIZE:
        raise RuleViolation(
            "la-cabra.lead_size", Said("%(player)s can lead 1 to 4 cards, not %(count)s", player=name, count=len(cards))
        )
    if len(cards) > 1 and len({c.suit for c in cards}) > 1:
        raise RuleViolation(
            "la-cabra.one_suit", Said("a lead is cards of one suit: %(cards)s mixes suits", cards=card_list(cards))
        )
    changes = _take(state, hand, seat, cards)
    play = _record(Play, (event.seq, seat, "lead", tuple(cards), True))
    changes["trick"] = _record(Trick, (seat, seat, len(cards), (play,), seat, tuple(cards), None))
    return state._replace(current=hand._replace(**changes))


def _on_beat(state: State, event: Event) -> State:
    hand = _deal(state)
    seat = _seat(event.data)
    trick = hand.trick
    if trick is None or seat != (trick.leader + len(trick.plays)) % SEATS:  # the answer in turn passes _check_turn
        _check_turn(state, hand, seat, "beat")
    assert trick is not None and hand.trump is not None
    cards = _face_up(event.data)
    name = state.players[seat]
    if len(cards) != trick.k:
        raise RuleViolation(
            "la-cabra.wrong_count",
            Counted(
                "%(player)s must play exactly %(n)s card to this trick, not %(count)s",
                "%(player)s must play exactly %(n)s cards to this trick, not %(count)s",
                trick.k,
                player=name,
                count=len(cards),
            ),
        )
    changes = _take(state, hand, seat, cards)
    trump = hand.trump.suit or ""
    if not can_beat(tuple(cards), trick.winning, trump):
        useless = [c for c in cards if not any(beats(c, w, trump) for w in trick.winning)]
        why = (
            Counted("%(cards)s beats nothing", "%(cards)s beat nothing", len(useless), cards=card_list(useless))
            if useless
            else Said("each card must beat a different one of them, and no pairing does")
        )
        raise RuleViolation(
            "la-cabra.cannot_beat",
            Said(
                "%(player)s cannot beat %(winning)s with %(cards)s: %(why)s (trump is %(suit)s)",
                player=name,
                winning=card_list(trick.winning),
                cards=card_list(cards),
                why=why,
                suit=suit_sign(hand.trump),
            ),
        )
    play = _record(Play, (event.seq, seat, "beat", tuple(cards), True))
    trick = _record(Trick, (trick.leader, trick.origin, trick.k, trick.plays + (play,), seat, tuple(cards), trick.tira))
    return _after_play(state, hand, changes, trick, event.seq)


def _on_discard(state: State, event: Event) -> State:
    hand = _deal(state)
    seat = _seat(event.data)
    trick = hand.trick
    if trick is None or seat != (trick.leader + len(trick.plays)) % SEATS:  # the answer in turn passes _check_turn
        _check_turn(state, hand, seat, "discard")
    assert trick is not None
    face_up = state.options.discardFaceUp
    try:
        cards = _cards(event.data, hidden_ok=not face_up)
    except RuleViolation as e:
        if e.code == "common.card_hidden":
            raise RuleViolation(
                "common.card_hidden", Said("discards are face up in this match (discardFaceUp): write the cards")
            ) from None
        raise
    name = state.players[seat]
    if len(cards) != trick.k:
        raise RuleViolation(
            "la-cabra.wrong_count",
            Counted(
                "%(player)s must play exactly %(n)s card to this trick, not %(count)s",
                "%(player)s must play exactly %(n)s cards to this trick, not %(count)s",
                trick.k,
                player=name,
                count=len(cards),
            ),
        )
    shown: list[Card] = cards if face_up else _known(cards)  # type: ignore[assignment]  # face up, "??" was refused
    changes = _take(state, hand, seat, shown, len(cards) - len(shown))
    if not face_up and shown:
        changes["downs"] = set_item(hand.downs, seat, hand.downs[seat] | frozenset(shown))
    play = _record(Play, (event.seq, seat, "discard", tuple(cards), face_up))
    trick = _record(
        Trick, (trick.leader, trick.origin, trick.k, trick.plays + (play,), trick.winner, trick.winning, trick.tira)
    )
    return _after_play(state, hand, changes, trick, event.seq)


def _after_play(state: State, hand: Hand, changes: dict[str, Any], trick: Trick, seq: int) -> State:
    if len(trick.plays) < SEATS:
        changes["trick"] = trick
        return state._replace(current=hand._replace(**changes))
    return _with_hand(state, _end_trick(state, hand, changes, trick, seq))


def _end_trick(state: State, hand: Hand, changes: dict[str, Any], trick: Trick, seq: int) -> Hand:
    """Return ``hand`` with ``changes`` and the end of the trick: the winner's pile, the refill (docs/RULES.md §5.3 steps 3-5).

    The fields the end of a trick sets go into the same single ``_replace`` as the play's own
    ``changes`` (which they override): the hand is rebuilt once per play, and only the fields
    that change are named (each costs; a trick without face-down cards, after the stock is
    empty, leaves half of them as they were).
    """
    winner = trick.winner
    team = team_of(winner)
    cards = [c for p in trick.plays for c in p.cards]
    shown_cards = [c for c in cards if c is not None]
    (known0, known1), (count0, count1), (tricks0, tricks1) = hand.pile_known, hand.pile_count, hand.tricks
    if team == 0:  # the winners' pile and tricks grow (pairs written out: this runs at every trick)
        piles = (known0 | frozenset(shown_cards), known1), (count0 + len(cards), count1), (tricks0 + 1, tricks1)
    else:
        piles = (known0, known1 | frozenset(shown_cards)), (count0, count1 + len(cards)), (tricks0, tricks1 + 1)
    changes.update(
        trick=None,
        to_lead=winner,
        last_winner=winner,
        played=hand.played + (_record(TrickDone, (winner, trick.plays)),),
        pile_known=piles[0],
        pile_count=piles[1],
        tricks=piles[2],
    )
    if len(shown_cards) < len(cards):  # face-down cards go to the pile by reference
        refs = tuple([(p.seq, i) for p in trick.plays for i, c in enumerate(p.cards) if c is None])
        changes["pile_hidden"] = set_item(hand.pile_hidden, team, hand.pile_hidden[team] + refs)
    known, unknown = changes["known"], _field(hand, changes, "unknown")
    held = len(known[0]) + unknown[0]
    drawn = min(SEATS * (HAND_SIZE - held), hand.stock)
    if drawn:  # a refill: every seat draws back to four, the winner first
        each = drawn // SEATS
        unknown = tuple([u + each for u in unknown])
        stock = hand.stock - drawn
        if stock == 0 and state.options.trumpCard == "bottomFaceUp" and hand.trump is not None:
            last = (winner + drawn - 1) % SEATS
            shown = _field(hand, changes, "shown")
            changes["known"] = set_item(known, last, known[last] | {hand.trump})
            changes["shown"] = set_item(shown, last, shown[last] | {hand.trump})
            unknown = set_item(unknown, last, unknown[last] - 1)
        changes.update(unknown=unknown, stock=stock)
        if hand.refill_seq is None:
            changes["refill_seq"] = seq
    elif hand.stock == 0 and held == 0:
        changes["over"] = True
    return hand._replace(**changes)


def _on_tira(state: State, event: Event) -> State:
    hand = _deal(state)
    d = event.data
    seat = _seat(d)
    name = state.players[seat]
    cards = _face_up(d)
    if len(cards) != HAND_SIZE or len({c.suit for c in cards}) != 1:
        raise RuleViolation(
            "la-cabra.tira_cards", Said("a tira is four cards of one suit, not %(cards)s", cards=card_list(cards))
        )
    trick = hand.trick
    played: set[Seat] = set()
    if trick is None:
        origin = hand.to_lead
        if seat == origin:
            raise RuleViolation(
                "la-cabra.tira_leader",
                Said("%(player)s is to lead: lead the four cards instead of declaring a tira", player=name),
            )
    else:
        origin = trick.origin
        played = {p.seat for p in trick.plays}
        if seat in played:
            raise RuleViolation(
                "la-cabra.tira_played",
                Said("%(player)s has already played to this trick and cannot declare a tira in it", player=name),
            )
        if trick.tira is not None and not state.options.tiraInterruptsTira:
            raise RuleViolation(
                "la-cabra.tira_again",
                Said(
                    "%(player)s's tira (entry %(entry)s) cannot be interrupted by another tira",
                    player=state.players[trick.leader],
                    entry=trick.tira,
                ),
            )
    rivals_raw = d.get("rivals") or []
    rivals: list[Seat] = []
    for r in rivals_raw:
        if not is_int(r) or not 0 <= r < SEATS or r == seat or r in rivals:
            raise RuleViolation(
                "la-cabra.bad_rivals",
                Said("rivals must be other seats (0 to 3), each once: %(rivals)s", rivals=as_written(list(rivals_raw))),
            )
        if r in played:
            raise RuleViolation(
                "la-cabra.bad_rivals",
                Said("%(player)s has already played to this trick and cannot claim a tira", player=state.players[r]),
            )
        rivals.append(int(r))
    if rivals:
        order = [(origin + i) % SEATS for i in range(SEATS)]
        first = min([seat, *rivals], key=order.index)
        if first != seat:
            raise RuleViolation(
                "la-cabra.tira_priority",
                Said(
                    "%(first)s claimed a tira at the same moment and sits nearer clockwise to %(leader)s, who led this "
                    "trick first: the tira is %(first)s's, not %(player)s's",
                    first=state.players[first],
                    leader=state.players[origin],
                    player=name,
                ),
            )
    # the tira seat has not played to this trick, so the cards going back never touch its hand
    changes = _take(state, hand, seat, cards)
    if trick is not None:
        known, unknown, shown = (list(_field(hand, changes, name)) for name in ("known", "unknown", "shown"))
        downs, withdrawn = list(hand.downs), hand.withdrawn
        for p in trick.plays:
            back = frozenset(_known(list(p.cards)))
            known[p.seat] |= back
            unknown[p.seat] += sum(1 for c in p.cards if c is None)
            if p.face_up:
                shown[p.seat] |= back
            else:
                downs[p.seat] -= back
            if None in p.cards:
                withdrawn += ((p.seq, event.seq),)
        changes.update(
            known=tuple(known), unknown=tuple(unknown), shown=tuple(shown), downs=tuple(downs), withdrawn=withdrawn
        )
    play = Play(event.seq, seat, "tira", tuple(cards), True)
    changes["trick"] = Trick(seat, origin, HAND_SIZE, (play,), seat, tuple(cards), event.seq)
    return state._replace(current=hand._replace(**changes))


# --------------------------------------------------------------------------- reveal


def _hand_index(state: State, seq: int) -> int | None:
    """Return the index of the hand that event ``seq`` belongs to (None: before the first)."""
    for i in range(len(state.past) - (state.current is None), -1, -1):
        if state.hand(i).seq < seq:
            return i
    return None


def _hand_now(state: State, changed: dict[int, Hand], i: int) -> Hand:
    """Hand ``i`` as the reveal being applied has left it so far."""
    return changed[i] if i in changed else state.hand(i)


def _find_play(hand: Hand, seq: int) -> Play | None:
    if hand.trick is not None:
        for p in hand.trick.plays:
            if p.seq == seq:
                return p
    for done in hand.played:
        for p in done.plays:
            if p.seq == seq:
                return p
    return None


def _fill(play: Play, index: int, card: Card) -> Play:
    return play._replace(cards=set_item(play.cards, index, card))


def _bind_slot(hand: Hand, play: Play, index: int, card: Card) -> Hand:
    filled = _fill(play, index, card)
    hand = hand._replace(
        located=hand.located | {card}, downs=set_item(hand.downs, play.seat, hand.downs[play.seat] | {card})
    )
    if hand.trick is not None and play in hand.trick.plays:
        plays = tuple(filled if p == play else p for p in hand.trick.plays)
        return hand._replace(trick=hand.trick._replace(plays=plays))
    for j, done in enumerate(hand.played):
        if play in done.plays:
            team = team_of(done.winner)
            done = done._replace(plays=tuple(filled if p == play else p for p in done.plays))
            ref = (play.seq, index)
            return hand._replace(
                played=set_item(hand.played, j, done),
                pile_known=set_item(hand.pile_known, team, hand.pile_known[team] | {card}),
                pile_hidden=set_item(hand.pile_hidden, team, tuple(r for r in hand.pile_hidden[team] if r != ref)),
            )
    raise AssertionError("play not in hand")


def _reveal_slot(state: State, changed: dict[int, Hand], b: Mapping[str, Any], card: Card) -> None:
    seq, index = b.get("seq"), b.get("index")
    if not is_int(seq):
        raise RuleViolation(
            "common.bad_reveal", Said("seq must be an event number, not %(value)s", value=as_written(seq))
        )
    if index is None:
        raise RuleViolation(
            "common.bad_reveal", Said("a La Cabra face-down card is one of a discard's cards: give its index")
        )
    i = _hand_index(state, seq)
    hand = _hand_now(state, changed, i) if i is not None else None
    play = _find_play(hand, seq) if hand is not None and not hand.result_only else None
    if hand is None or play is None:
        took = [t for s, t in (hand.withdrawn if hand else ()) if s == seq]
        if took:
            raise RuleViolation(
                "common.bad_reveal",
                Said(
                    "the cards of entry %(entry)s went back to their owner's hand with the tira of entry %(tira)s: "
                    "reveal them as hand cards ({seat, card}) if needed",
                    entry=seq,
                    tira=took[-1],
                ),
            )
        raise RuleViolation(
            "common.bad_reveal", Said("entry %(entry)s is not a move with face-down cards still on record", entry=seq)
        )
    assert i is not None
    if not is_int(index) or not 0 <= index < len(play.cards):
        raise RuleViolation(
            "common.bad_reveal",
            Counted(
                "entry %(entry)s has %(n)s card: index %(index)s does not exist",
                "entry %(entry)s has %(n)s cards: index %(index)s does not exist",
                len(play.cards),
                entry=seq,
                index=as_written(index),
            ),
        )
    old = play.cards[index]
    if old is not None:
        raise RuleViolation(
            "common.bad_reveal",
            Said(
                "card %(index)s of entry %(entry)s is already known: %(card)s",
                index=index,
                entry=seq,
                card=old.pretty(),
            ),
        )
    if card in hand.located:
        raise RuleViolation(
            "common.card_duplicate",
            Said(
                "%(card)s cannot be card %(index)s of entry %(entry)s: it is %(where)s",
                card=card.pretty(),
                index=index,
                entry=seq,
                where=_where(state, hand, card),
            ),
        )
    if _trump_barred(state, hand, card, before=seq):
        raise RuleViolation(
            "common.card_unavailable",
            Said(
                "%(card)s was shown as trump and put back into the stock; nobody had drawn yet when %(player)s "
                "discarded at entry %(entry)s",
                card=card.pretty(),
                player=state.players[play.seat],
                entry=seq,
            ),
        )
    changed[i] = _bind_slot(hand, play, index, card)


class _HandCards:
    """The current hand's cards that one reveal names one by one ({seat, card}), applied at once.

    A reveal usually names several hand cards; rebuilding the 25-field hand for each was most
    of its cost. Private to :func:`_on_reveal`: changed in place, then read back as a hand.
    """

    __slots__ = ("hand", "known", "unknown", "located", "barred")

    def __init__(self, hand: Hand, options: Options) -> None:
        self.hand = hand
        self.known = list(hand.known)
        self.unknown = list(hand.unknown)
        self.located = set(hand.located)
        self.barred = returned_trump(hand, options) if hand.refill_seq is None else None
        """The card no hand can hold yet (:func:`_trump_barred` of ``hand``), read once for every card named."""

    def result(self) -> Hand:
        return self.hand._replace(known=tuple(self.known), unknown=tuple(self.unknown), located=frozenset(self.located))


def _reveal_hand_card(
    state: State, changed: dict[int, Hand], b: Mapping[str, Any], card: Card, pending: _HandCards | None
) -> _HandCards:
    """Check and add one hand card to ``pending`` (started from the current hand if None); return it."""
    seat = _seat(b)
    if pending is None:
        i = len(state.past)  # the current hand
        hand = _hand_now(state, changed, i) if state.current is not None else None
        if hand is None or hand.result_only or hand.over:
            raise RuleViolation(
                "common.bad_reveal",
                Said("no hand is being played: %(player)s holds no cards to reveal", player=state.players[seat]),
            )
        pending = _HandCards(hand, state.options)
    if pending.unknown[seat] == 0:
        raise RuleViolation(
            "common.bad_reveal",
            Said(
                "%(player)s holds no unknown card (hand: %(hand)s)",
                player=state.players[seat],
                hand=card_list(sorted_cards(pending.known[seat])),
            ),
        )
    if card in pending.located:
        raise RuleViolation(
            "common.card_duplicate",
            Said(
                "%(player)s cannot hold %(card)s: it is %(where)s",
                player=state.players[seat],
                card=card.pretty(),
                where=_where(state, pending.result(), card),
            ),
        )
    if pending.barred is not None and pending.barred == card:
        raise RuleViolation(
            "common.card_unavailable",
            Said(
                "%(player)s cannot hold %(card)s: it was shown as trump and put back into the stock, and nobody has "
                "drawn yet",
                player=state.players[seat],
                card=card.pretty(),
            ),
        )
    pending.known[seat] = pending.known[seat] | {card}
    pending.unknown[seat] -= 1
    pending.located.add(card)
    return pending


def _on_reveal(state: State, event: Event) -> State:
    bindings = event.data.get("cards")
    if not isinstance(bindings, (list, tuple)) or not bindings:
        raise RuleViolation("common.bad_reveal", Said("a reveal lists one or more cards"))
    # Only the hands the reveal touches are rebuilt (nearly always the current one): a
    # reveal costs the same however many hands the match has.
    changed: dict[int, Hand] = {}
    cards: _HandCards | None = None  # hand cards named so far, put into changed before any other binding is read
    for b in bindings:
        if type(b) is not dict and not isinstance(b, Mapping):
            raise RuleViolation("common.bad_reveal", Said("%(value)s is not a binding", value=as_written(b)))
        text = b.get("card")
        if text == UNKNOWN:
            continue  # withheld from this reader (an open read of a match in play): binds nothing
        card = BY_TEXT.get(text) if type(text) is str else None  # a card of the deck in one look-up
        if card is None:
            card = read_card(text)  # which says what is wrong with the text
        assert card is not None
        if "slot" in b:
            raise RuleViolation(
                "common.bad_reveal", Said("slots are Cabo's: La Cabra reveals {seq, index, card} or {seat, card}")
            )
        if "seq" in b and "seat" not in b:
            if cards is not None:
                changed[len(state.past)] = cards.result()
                cards = None
            _reveal_slot(state, changed, b, card)
        elif "seat" in b and "seq" not in b:
            cards = _reveal_hand_card(state, changed, b, card, cards)
        else:
            raise RuleViolation(
                "common.bad_reveal",
                Said("a binding is {seq, index, card} (a face-down card) or {seat, card} (a hand card)"),
            )
    if cards is not None:
        changed[len(state.past)] = cards.result()
    if not changed:
        return state  # every binding withheld from this reader
    for i in sorted(changed):
        hand = changed[i]
        if hand.closed_seq:
            # scored from the sheet; a face-down card of its piles must keep the sheet possible
            assert hand.claim is not None
            conflict = _close_problem(state, hand, hand.claim)
            if conflict:
                raise RuleViolation(
                    "la-cabra.mismatch",
                    Said(
                        "this reveal contradicts the score sheet that closed hand %(hand)s (entry %(entry)s): "
                        "%(conflict)s",
                        hand=hand.number,
                        entry=hand.closed_seq,
                        conflict=conflict,
                    ),
                    seq=hand.closed_seq,
                )
            continue
        if hand.over:
            if hand.claim is not None:
                problem = _claim_problem(state, hand, hand.claim)
                if problem:
                    raise RuleViolation(
                        "la-cabra.mismatch",
                        Said(
                            "this reveal contradicts the hand result of entry %(entry)s: %(field)s: %(problem)s",
                            entry=hand.claim.seq,
                            field=problem[0],
                            problem=problem[1],
                        ),
                        seq=hand.claim.seq,
                    )
            changed[i] = hand._replace(facts=compute_facts(hand, state.options))
    n_past = len(state.past)
    past = state.past
    first = min(changed)
    if first < n_past:  # a face-down card of an earlier hand: rebuild from that hand on only
        past = past[:first] + tuple(changed.get(i, past[i]) for i in range(first, n_past))
        new = state._replace(past=past, current=changed.get(n_past, state.current))
    else:  # the usual: cards of the current hand only
        new = state._replace(current=changed[n_past])
    finished = [i for i, hand in changed.items() if hand.over]
    if finished:
        new = rescore(new, min(finished))
    return new


# --------------------------------------------------------------------------- hand_result


def _pair(v: object, field: str) -> tuple[int, int]:
    if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(is_int(x) and x >= 0 for x in v):
        raise RuleViolation("la-cabra.bad_result", Said("%(field)s is two numbers, one per team (NS, EW)", field=field))
    return pair(int(v[0]), int(v[1]))


@lru_cache(maxsize=4096)
def _split_fits(pts0: int, tricks: tuple[int, int] | None) -> bool:
    """Tell whether some deal with these tricks (any, when None) gives team 0 cards worth ``pts0``.

    Team 0 holds 4k cards for some k between its trick count and four times it (and team 1
    the other 36 - 4k within the same bounds); a count-and-sum DP over the deck says which
    totals k·4 cards can make.
    """
    pairs = [tricks] if tricks is not None else [(a, b) for a in range(10) for b in range(10) if 3 <= a + b <= 9]
    for t0, t1 in pairs:
        lo, hi = max(t0, 9 - 4 * t1), min(4 * t0, 9 - t1)
        if any(deck_masks()[4 * k] >> pts0 & 1 for k in range(lo, hi + 1)):
            return True
    return False


def _tricks_words(names: Sequence[str], empty: int, blank: int) -> Said:
    """Say a trick count for a sheet whose team ``empty`` has 0 card points: ``NS 8 and EW 1``."""
    counts = [9 - blank, 9 - blank]
    counts[empty] = blank
    return Said(
        "%(team0)s %(tricks0)s and %(team1)s %(tricks1)s",
        team0=names[0],
        tricks0=counts[0],
        team1=names[1],
        tricks1=counts[1],
    )


def _parse_result(
    state: State, d: Mapping[str, Any], seq: int, took: tuple[bool | None, bool | None] = (None, None)
) -> Claim:
    """Check a ``hand_result``'s facts for consistency on their own (VOCABULARY.md §5.5).

    The full form gives ``cardPoints`` or ``cards`` with ``tricks``; the score-sheet forms
    give ``cardPoints`` alone (``tricks`` needed only for a team with 0 card points when the
    record does not already say whether it took a trick: ``took``, per team True, False or
    None, as :func:`~engines.la_cabra.scoring.took_tricks` tells it) or ``lossPoints`` alone (the
    deal's own 2, 4 or 6, or 0 and 0 for 60-60; the eggs doubling is derived).

    Raises:
        RuleViolation: ``la-cabra.bad_result`` naming the inconsistency.
    """
    names = [team_name(state.players, side) for side in (0, 1)]
    tricks: tuple[int, int] | None = None
    if d.get("tricks") is not None:
        tricks = _pair(d.get("tricks"), "tricks")
        total = sum(tricks)
        if not 3 <= total <= 9:
            raise RuleViolation(
                "la-cabra.bad_result",
                Said("a deal has 3 to 9 tricks (36 cards, 4 to 16 per trick), not %(total)s", total=total),
            )
    cards: tuple[frozenset[Card], frozenset[Card]] | None = None
    pts: tuple[int, int] | None = None
    loss: tuple[int, int] | None = None
    given = [k for k in ("cardPoints", "cards", "lossPoints") if d.get(k) is not None]
    if not given:
        raise RuleViolation("la-cabra.bad_result", Said("a hand result gives cardPoints, cards or lossPoints"))
    if "lossPoints" in given and len(given) > 1:
        raise RuleViolation(
            "la-cabra.bad_result", Said("lossPoints stands alone: give the loss points or the card points, not both")
        )
    if d.get("cards") is not None:
        raw = d["cards"]
        if not isinstance(raw, (list, tuple)) or len(raw) != 2 or not all(isinstance(x, (list, tuple)) for x in raw):
            raise RuleViolation("la-cabra.bad_result", Said("cards is two lists, each team's trick cards"))
        lists = [[read_card(side) for side in team] for team in raw]
        seen: set[Card] = set()
        for c in lists[0] + lists[1]:
            assert c is not None
            if c in seen:
                raise RuleViolation("la-cabra.bad_result", Said("%(card)s is listed twice", card=c.pretty()))
            seen.add(c)
        missing = [c for c in DECK.distinct() if c not in seen]
        if missing:
            raise RuleViolation(
                "la-cabra.bad_result",
                Said(
                    "the two lists must hold the 36 cards exactly; missing: %(cards)s",
                    cards=card_list(sorted_cards(missing)),
                ),
            )
        for side in (0, 1):
            n = len(lists[side])
            if n % 4:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said(
                        "%(team)s's list has %(count)s cards: every trick holds a multiple of 4 cards",
                        team=names[side],
                        count=n,
                    ),
                )
            if tricks is None:
                continue
            if tricks[side] == 0 and n:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said("%(team)s took no trick but lists %(count)s cards", team=names[side], count=n),
                )
            if not tricks[side] <= n // 4 <= 4 * tricks[side]:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Counted(
                        "%(team)s took %(n)s trick: %(least)s to %(most)s cards, not %(count)s",
                        "%(team)s took %(n)s tricks: %(least)s to %(most)s cards, not %(count)s",
                        tricks[side],
                        team=names[side],
                        least=4 * tricks[side],
                        most=16 * tricks[side],
                        count=n,
                    ),
                )
        cards = (frozenset(c for c in lists[0] if c), frozenset(c for c in lists[1] if c))
    if d.get("cardPoints") is not None:
        pts = _pair(d["cardPoints"], "cardPoints")
        if sum(pts) != 120:
            raise RuleViolation(
                "la-cabra.bad_result",
                Said(
                    "card points add up to 120: %(points0)s + %(points1)s = %(sum)s",
                    points0=pts[0],
                    points1=pts[1],
                    sum=sum(pts),
                ),
            )
        for side in (0, 1):
            if not deck_totals() >> pts[side] & 1:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said("no set of cards is worth %(points)s points (%(team)s)", points=pts[side], team=names[side]),
                )
            if tricks is not None and tricks[side] == 0 and pts[side]:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said(
                        "%(team)s took no trick, so they have no card points (not %(points)s)",
                        team=names[side],
                        points=pts[side],
                    ),
                )
        if cards is not None:
            counted = points(cards[0]), points(cards[1])
            if counted != pts:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said(
                        "cardPoints say %(points0)s–%(points1)s but the listed cards are worth "
                        "%(counted0)s–%(counted1)s",
                        points0=pts[0],
                        points1=pts[1],
                        counted0=counted[0],
                        counted1=counted[1],
                    ),
                )
        elif not _split_fits(pts[0], tricks):
            if tricks is None:
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said(
                        "no deal gives %(team0)s %(points0)s card points and %(team1)s %(points1)s",
                        team0=names[0],
                        points0=pts[0],
                        team1=names[1],
                        points1=pts[1],
                    ),
                )
            lo, hi = max(tricks[0], 9 - 4 * tricks[1]), min(4 * tricks[0], 9 - tricks[1])
            raise RuleViolation(
                "la-cabra.bad_result",
                Counted(
                    "with %(n)s trick to %(tricks)s, %(team)s hold %(least)s to %(most)s cards, which cannot be "
                    "worth %(points)s points",
                    "with %(n)s tricks to %(tricks)s, %(team)s hold %(least)s to %(most)s cards, which cannot be "
                    "worth %(points)s points",
                    tricks[0],
                    tricks=tricks[1],
                    team=names[0],
                    least=4 * lo,
                    most=4 * hi,
                    points=pts[0],
                ),
            )
        if tricks is None and cards is None:
            for side in (0, 1):
                if pts[side] == 0 and took[side] is None:
                    raise RuleViolation(
                        "la-cabra.bad_result",
                        Said(
                            "%(team)s have 0 card points: say whether they took only blank tricks (4 loss points) or "
                            "no trick at all (6) by giving both teams' tricks, for example %(blank)s, or %(none)s",
                            team=names[side],
                            blank=_tricks_words(names, side, 1),
                            none=_tricks_words(names, side, 0),
                        ),
                    )
    if d.get("lossPoints") is not None:
        loss = _pair(d["lossPoints"], "lossPoints")
        low, high = min(loss), max(loss)
        if low != 0 or high not in (0, 2, 4, 6):
            if low == 0 and high in (8, 12):
                raise RuleViolation(
                    "la-cabra.bad_result",
                    Said(
                        "lossPoints are the deal's own 2, 4 or 6; the doubling after eggs is counted by the engine: "
                        "write %(half)s for a doubled %(loss)s",
                        half=high // 2,
                        loss=high,
                    ),
                )
            raise RuleViolation(
                "la-cabra.bad_result",
                Said(
                    "lossPoints: the losing team gets 2, 4 or 6 and the winners 0 (0 and 0 for 60–60), not "
                    "%(loss0)s and %(loss1)s",
                    loss0=loss[0],
                    loss1=loss[1],
                ),
            )
        if tricks is not None:
            for side in (0, 1):
                if loss[side] == 6 and tricks[side]:
                    raise RuleViolation(
                        "la-cabra.bad_result",
                        Said(
                            "6 loss points mean %(team)s took no trick, but tricks gives them %(tricks)s",
                            team=names[side],
                            tricks=tricks[side],
                        ),
                    )
                if tricks[side] == 0 and loss[side] != 6:
                    raise RuleViolation(
                        "la-cabra.bad_result",
                        Said(
                            "%(team)s took no trick: that loses with 6 loss points, not %(loss)s",
                            team=names[side],
                            loss=loss[side],
                        ),
                    )
    last = d.get("lastTrick")
    if last is not None:
        last = _seat(d, "lastTrick")
        side = team_of(last)
        none = (
            (tricks is not None and tricks[side] == 0)
            or (cards is not None and not cards[side])
            or (loss is not None and loss[side] == 6)
        )
        if none:
            raise RuleViolation(
                "la-cabra.bad_result",
                Said(
                    "lastTrick: %(team)s took no trick, so %(player)s cannot have won the last one",
                    team=names[side],
                    player=state.players[last],
                ),
            )
    return Claim(seq, pts, cards, tricks, last, loss)


def _reachable(hand: Hand, claim: Claim) -> list[tuple[int, int, int]]:
    """List the ways the cards not yet won can still go, as ``(cards to team 0, cards to team 1, mask)``.

    ``mask`` has bit p set when team 0 can end the deal with p card points that way: its
    known pile points plus some ``h0 + f0`` of the cards whose pile the record does not
    know (``h0`` its face-down pile cards, ``f0`` the cards it still wins). Future tricks
    come in whole multiples of 4 cards; the sheet's ``tricks`` bound each team's share
    (4 to 16 cards a trick) and its ``lastTrick`` needs that team to win one more.
    """
    rest = 36 - sum(hand.pile_count)
    free = [value(c) for c in DECK.distinct() if c not in hand.pile_known[0] and c not in hand.pile_known[1]]
    masks = sum_masks(free, len(free))
    h0 = len(hand.pile_hidden[0])
    known0 = points(hand.pile_known[0])
    more = None if claim.tricks is None else (claim.tricks[0] - hand.tricks[0], claim.tricks[1] - hand.tricks[1])
    out = []
    for m0 in range(rest // 4 + 1):
        f = (4 * m0, rest - 4 * m0)
        if more is not None and not all(4 * more[t] <= f[t] <= 16 * more[t] for t in (0, 1)):
            continue
        if claim.last_trick is not None and f[team_of(claim.last_trick)] == 0:
            continue
        out.append((f[0], f[1], masks[h0 + f[0]] << known0))
    return out


def _close_problem(state: State, hand: Hand, claim: Claim) -> Said | Counted | None:
    """Say why a sheet cannot close a hand in play from its position (None: it can).

    What the moves fixed stays: tricks already taken, cards already in a team's pile (their
    points), the number of cards still to be won (so how many tricks remain).
    """
    names = [team_name(state.players, side) for side in (0, 1)]
    cur = hand.tricks
    known = points(hand.pile_known[0]), points(hand.pile_known[1])
    rest = 36 - sum(hand.pile_count)
    moves = hand.moves
    if claim.tricks is not None:
        for side in (0, 1):
            if claim.tricks[side] < cur[side]:
                return Counted(
                    "%(team)s already took %(n)s trick after move %(moves)s; the sheet says %(sheet)s",
                    "%(team)s already took %(n)s tricks after move %(moves)s; the sheet says %(sheet)s",
                    cur[side],
                    team=names[side],
                    moves=moves,
                    sheet=claim.tricks[side],
                )
        more = claim.tricks[0] - cur[0] + claim.tricks[1] - cur[1]
        if 4 * more > rest:
            return Counted(
                "%(rest)s cards are left to play after move %(moves)s, so at most %(n)s more trick; the sheet's "
                "tricks need %(more)s",
                "%(rest)s cards are left to play after move %(moves)s, so at most %(n)s more tricks; the sheet's "
                "tricks need %(more)s",
                rest // 4,
                rest=rest,
                moves=moves,
                more=more,
            )
        if 16 * more < rest:
            return Counted(
                "%(rest)s cards are left to play after move %(moves)s, so at least %(n)s more trick; the sheet's "
                "tricks give %(more)s",
                "%(rest)s cards are left to play after move %(moves)s, so at least %(n)s more tricks; the sheet's "
                "tricks give %(more)s",
                -(-rest // 16),
                rest=rest,
                moves=moves,
                more=more,
            )
        if claim.last_trick is not None and claim.tricks[team_of(claim.last_trick)] == cur[team_of(claim.last_trick)]:
            side = team_of(claim.last_trick)
            return Said(
                "the last trick is still to be played after move %(moves)s, but the sheet gives %(team)s no more "
                "trick, so %(player)s cannot win it",
                moves=moves,
                team=names[side],
                player=state.players[claim.last_trick],
            )
    if claim.cards is not None:
        for side in (0, 1):
            stray = hand.pile_known[side] - claim.cards[side]
            if stray:
                return Said(
                    "%(cards)s already went to %(team)s's trick pile; the sheet lists them for %(other)s",
                    cards=card_list(sorted_cards(stray)),
                    team=names[side],
                    other=names[1 - side],
                )
            if len(claim.cards[side]) < hand.pile_count[side]:
                return Said(
                    "%(team)s's trick pile already holds %(count)s cards; the sheet lists %(listed)s",
                    team=names[side],
                    count=hand.pile_count[side],
                    listed=len(claim.cards[side]),
                )
    ways = _reachable(hand, claim)
    union = 0
    for _, _, mask in ways:
        union |= mask
    pts = claim_points(claim)
    if pts is not None:
        if union >> pts[0] & 1:
            return None
        for side in (0, 1):
            if pts[side] < known[side]:
                return Said(
                    "%(team)s already hold %(known)s card points in tricks after move %(moves)s; the sheet says "
                    "%(sheet)s",
                    team=names[side],
                    known=known[side],
                    moves=moves,
                    sheet=pts[side],
                )
        return Said(
            "from the position after move %(moves)s, %(team)s can end with %(feasible)s card points; the sheet "
            "says %(sheet)s",
            moves=moves,
            team=names[0],
            feasible=feasible_words(union),
            sheet=pts[0],
        )
    assert claim.loss is not None
    if claim.loss == (0, 0):
        if union >> 60 & 1:
            return None
        return Said(
            "the sheet's 60–60 cannot be reached after move %(moves)s: %(team)s can end with %(feasible)s card points",
            moves=moves,
            team=names[0],
            feasible=feasible_words(union),
        )
    loser = 0 if claim.loss[0] else 1
    lp = claim.loss[loser]
    if lp == 6:
        if cur[loser]:
            return Counted(
                "%(team)s already took %(n)s trick after move %(moves)s; the sheet's 6 loss points say they took none",
                "%(team)s already took %(n)s tricks after move %(moves)s; the sheet's 6 loss points say they took none",
                cur[loser],
                team=names[loser],
                moves=moves,
            )
        if any(f[loser] == 0 for f in ((a, b) for a, b, _ in ways)):
            return None
        return Said(
            "%(team)s must still win a trick after move %(moves)s; the sheet's 6 loss points say they took none",
            team=names[loser],
            moves=moves,
        )
    band = range(31, 60) if lp == 2 else range(0, 31)
    reach = 0
    for f0, f1, mask in ways:
        for p0 in bits(mask):
            p = p0 if loser == 0 else 120 - p0
            if p in band and (lp == 2 or cur[loser] or (f0, f1)[loser]):
                return None
            reach |= 1 << p
    if lp == 2:
        return Said(
            "from the position after move %(moves)s, %(team)s can end with %(feasible)s card points; the sheet's "
            "%(loss)s loss points need 31 to 59 card points",
            moves=moves,
            team=names[loser],
            feasible=feasible_words(reach),
            loss=lp,
        )
    return Said(
        "from the position after move %(moves)s, %(team)s can end with %(feasible)s card points; the sheet's "
        "%(loss)s loss points need 30 or fewer card points and a trick",
        moves=moves,
        team=names[loser],
        feasible=feasible_words(reach),
        loss=lp,
    )


def _claim_problem(state: State, hand: Hand, claim: Claim) -> tuple[str, str] | None:
    """Return (field, why) when a move-by-move hand's derived facts contradict ``claim``."""
    names = [team_name(state.players, side) for side in (0, 1)]
    if claim.tricks is not None and claim.tricks != hand.tricks:
        return "tricks", Counted(
            "the moves give %(team0)s %(n)s trick and %(team1)s %(tricks1)s, not %(sheet0)s and %(sheet1)s",
            "the moves give %(team0)s %(n)s tricks and %(team1)s %(tricks1)s, not %(sheet0)s and %(sheet1)s",
            hand.tricks[0],
            team0=names[0],
            team1=names[1],
            tricks1=hand.tricks[1],
            sheet0=claim.tricks[0],
            sheet1=claim.tricks[1],
        )
    if claim.last_trick is not None and claim.last_trick != hand.last_winner:
        if hand.last_winner is None:
            return "lastTrick", Said(
                "nobody won the last trick, not %(player)s", player=state.players[claim.last_trick]
            )
        return "lastTrick", Said(
            "%(winner)s won the last trick, not %(player)s",
            winner=state.players[hand.last_winner],
            player=state.players[claim.last_trick],
        )
    if claim.cards is not None:
        for side in (0, 1):
            stray = hand.pile_known[side] - claim.cards[side]
            if stray:
                return "cards", Said(
                    "%(cards)s went to %(team)s's trick pile, not to %(other)s's",
                    cards=card_list(sorted_cards(stray)),
                    team=names[side],
                    other=names[1 - side],
                )
        for side in (0, 1):
            if len(claim.cards[side]) != hand.pile_count[side]:
                return "cards", Said(
                    "%(team)s's trick pile holds %(count)s cards, not %(listed)s",
                    team=names[side],
                    count=hand.pile_count[side],
                    listed=len(claim.cards[side]),
                )
        trump = returned_trump(hand, state.options)
        for side in (0, 1):
            if trump is not None and trump in claim.cards[side] and not has_late_slot(hand, side):
                return "cards", Said(
                    "%(card)s was put back into the stock and every face-down card of %(team)s's pile was discarded "
                    "before anyone drew: it cannot be among them",
                    card=trump.pretty(),
                    team=names[side],
                )
    pts = claim_points(claim)
    facts = compute_facts(hand._replace(claim=None), state.options)
    if pts is not None:
        if facts.points is not None and facts.points != pts:
            return "cardPoints", Said(
                "the cards give %(team0)s %(points0)s and %(team1)s %(points1)s, not %(sheet0)s and %(sheet1)s",
                team0=names[0],
                points0=facts.points[0],
                team1=names[1],
                points1=facts.points[1],
                sheet0=pts[0],
                sheet1=pts[1],
            )
        if facts.points is None and not facts.sums >> pts[0] & 1:
            return "cardPoints", Said(
                "whatever the face-down cards are, %(team)s have %(feasible)s card points, not %(sheet)s",
                team=names[0],
                feasible=feasible_words(facts.sums),
                sheet=pts[0],
            )
    if claim.loss is not None:
        took = took_tricks(hand)
        options = {p0 for p0 in bits(facts.sums) if base_loss((p0, 120 - p0), took) == claim.loss}
        if not options:
            if facts.base is not None:
                return "lossPoints", Said(
                    "the cards give %(team0)s %(loss0)s and %(team1)s %(loss1)s loss points, not %(sheet0)s and "
                    "%(sheet1)s",
                    team0=names[0],
                    loss0=facts.base[0],
                    team1=names[1],
                    loss1=facts.base[1],
                    sheet0=claim.loss[0],
                    sheet1=claim.loss[1],
                )
            return "lossPoints", Said(
                "whatever the face-down cards are, %(team)s have %(feasible)s card points, which cannot give "
                "%(sheet0)s and %(sheet1)s loss points",
                team=names[0],
                feasible=feasible_words(facts.sums),
                sheet0=claim.loss[0],
                sheet1=claim.loss[1],
            )
    return None


def _on_hand_result(state: State, event: Event) -> State:
    cur = state.current
    if cur is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if not cur.from_sheet and not cur.over:
        # closing a hand in play from the score sheet: the moves stay, the facts must follow from them;
        # a team without a trick yet may still take one, so only a trick already taken is known
        claim = _parse_result(state, event.data, event.seq, (cur.tricks[0] > 0 or None, cur.tricks[1] > 0 or None))
        conflict = _close_problem(state, cur, claim)
        if conflict:
            raise RuleViolation(
                "la-cabra.result_conflict", Said("hand %(hand)s: %(conflict)s", hand=cur.number, conflict=conflict)
            )
        return _with_hand(
            state, cur._replace(claim=claim, over=True, closed_seq=event.seq, last_winner=claim.last_trick)
        )
    claim = _parse_result(state, event.data, event.seq, took_tricks(cur))
    if cur.result_only and cur.claim is None:
        hand = cur._replace(claim=claim, over=True, tricks=claim.tricks or (0, 0), last_winner=claim.last_trick)
        return _with_hand(state, hand)
    old = cur.claim
    if cur.from_sheet:
        assert old is not None
        problem = _claims_differ(state, cur, old, claim)
    else:
        problem = _claim_problem(state, cur, claim)
        if problem is None and old is not None:
            problem = _claims_differ(state, cur, old, claim)
    if problem:
        raise RuleViolation("la-cabra.mismatch", Joined(problem, ": "))  # the field (its JSON name), then why
    merged = Claim(
        event.seq,
        claim.points if claim.points is not None else (old.points if old else None),
        claim.cards if claim.cards is not None else (old.cards if old else None),
        claim.tricks if claim.tricks is not None else (old.tricks if old else None),
        claim.last_trick if claim.last_trick is not None else (old.last_trick if old else None),
        claim.loss if claim.loss is not None else (old.loss if old else None),
    )
    hand = cur._replace(claim=merged)
    if cur.from_sheet:
        hand = hand._replace(last_winner=merged.last_trick)
        if cur.result_only:
            hand = hand._replace(tricks=merged.tricks or (0, 0))
    hand = hand._replace(facts=compute_facts(hand, state.options))
    return rescore(state._replace(current=hand), len(state.past))


def _claims_differ(state: State, hand: Hand, old: Claim, new: Claim) -> tuple[str, str] | None:
    """Compare a cross-check with the hand_result recorded before it."""
    names = [team_name(state.players, t) for t in (0, 1)]
    if old.tricks is not None and new.tricks is not None and old.tricks != new.tricks:
        return "tricks", Said(
            "entry %(entry)s gave %(old0)s and %(old1)s tricks, not %(new0)s and %(new1)s",
            entry=old.seq,
            old0=old.tricks[0],
            old1=old.tricks[1],
            new0=new.tricks[0],
            new1=new.tricks[1],
        )
    if old.last_trick is not None and new.last_trick is not None and old.last_trick != new.last_trick:
        return "lastTrick", Said(
            "entry %(entry)s said %(old)s won the last trick, not %(new)s",
            entry=old.seq,
            old=state.players[old.last_trick],
            new=state.players[new.last_trick],
        )
    a, b = claim_points(old), claim_points(new)
    if a is not None and b is not None and a != b:
        return "cardPoints", Said(
            "entry %(entry)s gave %(team0)s %(old0)s and %(team1)s %(old1)s, not %(new0)s and %(new1)s",
            entry=old.seq,
            team0=names[0],
            old0=a[0],
            team1=names[1],
            old1=a[1],
            new0=b[0],
            new1=b[1],
        )
    if old.cards is not None and new.cards is not None and old.cards != new.cards:
        moved = sorted_cards(old.cards[0] ^ new.cards[0])
        return "cards", Said(
            "entry %(entry)s put %(cards)s in the other team's pile", entry=old.seq, cards=card_list(moved)
        )
    if hand.from_sheet:
        was = compute_facts(hand._replace(claim=old), state.options).base
        now = compute_facts(hand._replace(claim=new), state.options).base
        if was is not None and now is not None and was != now:
            return "lossPoints", Said(
                "entry %(entry)s gives %(team0)s %(old0)s and %(team1)s %(old1)s loss points, not %(new0)s and "
                "%(new1)s",
                entry=old.seq,
                team0=names[0],
                old0=was[0],
                team1=names[1],
                old1=was[1],
                new0=now[0],
                new1=now[1],
            )
    return None
