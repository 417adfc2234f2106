"""El Roby's rules: :func:`start` a match, :func:`apply` one event (docs/RULES.md §4, VOCABULARY.md §5.4).

Every handler checks the whole event first and only then builds the new state, so a
:class:`RuleViolation` leaves nothing half-changed (the old state is never touched anyway).
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Any, Mapping

from engines.el_roby.options import OPTION_VALUES
from engines.base import Event, RuleViolation
from engines.cards import UNKNOWN, Card, at_least
from engines.common import (
    check_game,
    check_options,
    dispatch,
    is_int,
    read_cards,
    read_seat,
    as_written,
    set_field,
    set_item,
)
from engines.said import Counted, Joined, Listed, Said
from engines.el_roby.scoring import settle, standings_now
from engines.el_roby.search import can_empty
from engines.el_roby.state import (
    DECK,
    DECK_SIZE,
    GAME,
    HAND_SIZE,
    LIMIT,
    Hand,
    Meld,
    Options,
    Pending,
    Record,
    Seat,
    State,
    classify,
    fits,
    missing_from,
    points,
    read_card,
    remove,
    sorted_cards,
    spell,
    value,
)

MAX_PLAYERS = 8


# --------------------------------------------------------------------------- small helpers


def located(hand: Hand) -> Counter[Card]:
    """Count the copies of each card whose place in this hand the record knows."""
    return Counter(chain(hand.pile, *hand.known, *(m.cards for m in hand.melds)))  # one counting pass


def placed_cards(hand: Hand) -> tuple[Card, ...]:
    """Every card whose place in this hand the record knows, a copy once per place (for :func:`~engines.cards.at_least`)."""
    return tuple(chain(hand.pile, *hand.known, *(m.cards for m in hand.melds)))


def _where(state: State, hand: Hand, card: Card) -> str:
    """Say where the record places the copies of ``card``: ``Ana's hand, meld 3``."""
    places: list[str] = []
    for s in hand.seats:
        k = hand.known[s].count(card)
        if k == 2:
            places.append(Said("%(player)s's hand (both)", player=state.players[s]))
        elif k:
            places.append(Said("%(player)s's hand", player=state.players[s]))
    for m in hand.melds:
        if card in m.cards:
            places.append(Said("meld %(meld)s", meld=m.id))
    k = hand.pile.count(card)
    if k == 2:
        places.append(Said("the discard pile (both)"))
    elif k:
        places.append(Said("the discard pile"))
    return Joined(places, ", ") if places else Said("nowhere")


def _held(known: tuple[Card, ...], unknown: int, *, hidden: bool = False) -> str:
    """What a hand holds, as far as the record knows: ``7♥ 8♠ and 2 unknown cards``, ``no known card``."""
    cards = spell(known) if known else Said("no known card")
    if not unknown:
        return cards
    if hidden:
        return Said(
            "%(cards)s and %(hidden)s",
            cards=cards,
            hidden=Counted("%(n)s hidden card", "%(n)s hidden cards", unknown),
        )
    return Said(
        "%(cards)s and %(hidden)s", cards=cards, hidden=Counted("%(n)s unknown card", "%(n)s unknown cards", unknown)
    )


def _bind(state: State, hand: Hand, seat: Seat, cards: list[Card], seq: int, verb: str) -> dict[str, Any]:
    """Return the hand fields changed by ``seat`` showing ``cards`` from its hand (they leave it).

    A card the record does not know in the hand binds one of its unknown cards (implicit
    binding, VOCABULARY.md §3), if a copy of it is still unplaced (two packs: two copies).

    Raises:
        RuleViolation: ``common.card_unavailable``.
    """
    name = state.players[seat]
    mine = hand.known[seat]
    new = missing_from(mine, cards)
    if new:
        if len(new) > hand.unknown[seat]:
            held = _held(mine, hand.unknown[seat])
            raise RuleViolation("common.card_unavailable", _cannot(verb, name, spell(cards), held))
        placed = placed_cards(hand)
        taken: Counter[Card] = Counter()
        for c in new:
            taken[c] += 1
            if at_least(placed, c, DECK.count(c) - taken[c] + 1):  # placed + taken > copies in the deck
                raise RuleViolation("common.card_unavailable", _both_placed(verb, name, c, _where(state, hand, c)))
    keep = remove(mine + tuple(new), cards)
    shown = hand.shown[seat]
    for c in cards:
        if c in shown:
            shown = remove(shown, [c])
    return {
        "known": set_item(hand.known, seat, sorted_cards(keep) if new else keep),  # removing keeps the order
        "unknown": set_item(hand.unknown, seat, hand.unknown[seat] - len(new)),
        "shown": set_item(hand.shown, seat, shown),
        "bound": set_item(hand.bound, seat, hand.bound[seat] + tuple((seq, c) for c in new)) if new else hand.bound,
    }


def _cannot(verb: str, name: str, cards: str, held: str) -> Said:
    """``Ana cannot meld 7♥ 8♥ 9♥: Ana holds 2♣ and 3 unknown cards`` (a sentence per move)."""
    if verb == "meld":
        return Said("%(player)s cannot meld %(cards)s: %(player)s holds %(held)s", player=name, cards=cards, held=held)
    if verb == "lay off":
        return Said(
            "%(player)s cannot lay off %(cards)s: %(player)s holds %(held)s", player=name, cards=cards, held=held
        )
    return Said("%(player)s cannot discard %(cards)s: %(player)s holds %(held)s", player=name, cards=cards, held=held)


def _both_placed(verb: str, name: str, card: Card, where: str) -> Said:
    """``Ana cannot meld 7♥: both copies are already placed (Bea's hand, meld 2)``."""
    if verb == "meld":
        return Said(
            "%(player)s cannot meld %(card)s: both copies are already placed (%(places)s)",
            player=name,
            card=card.pretty(),
            places=where,
        )
    if verb == "lay off":
        return Said(
            "%(player)s cannot lay off %(card)s: both copies are already placed (%(places)s)",
            player=name,
            card=card.pretty(),
            places=where,
        )
    return Said(
        "%(player)s cannot discard %(card)s: both copies are already placed (%(places)s)",
        player=name,
        card=card.pretty(),
        places=where,
    )


def limit_of(state: State, seat: Seat) -> int:
    """Return ``limit_p = 99 − score_p``, the most a player may keep in hand when exposing (§4.4.1)."""
    score = state.scores[seat]
    return LIMIT - (score or 0)


def restricted(hand: Hand, seat: Seat, options: Options) -> tuple[Meld, ...]:
    """Return the melds a discard of ``seat`` must not fit (others' melds, or all under ``allMelds``)."""
    if options.discardCheck == "allMelds":
        return hand.melds
    return tuple(m for m in hand.melds if m.owner != seat)


def fitting(card: Card, melds: tuple[Meld, ...], options: Options) -> Meld | None:
    """Return the first of ``melds`` that ``card`` fits, or None."""
    return next((m for m in melds if fits(card, m, options)), None)


def meld_words(state: State, meld: Meld) -> str:
    """``meld 3 (Ana's 10♦ J♦ Q♦)``."""
    return Said(
        "meld %(meld)s (%(player)s's %(cards)s)",
        meld=meld.id,
        player=state.players[meld.owner],
        cards=spell(meld.cards),
    )


def limit_applies(hand: Hand, options: Options) -> bool:
    """Tell whether this turn's exposures bring the 99-point test (``limitScope``)."""
    if options.limitScope == "firstExposure":
        return hand.first_meld
    if options.limitScope == "alsoLayoffs":
        return hand.melded or hand.laid
    return hand.melded


# --------------------------------------------------------------------------- start


def parse_options(raw: object) -> Options:
    """Read the ``options`` of ``match_started`` (omitted keys take their default).

    Raises:
        RuleViolation: ``common.bad_option`` for an unknown key or value.
    """
    return Options(**check_options(raw, OPTION_VALUES, "El Roby", checks={"entry": _amount, "stake": _amount}))


def _amount(key: str, v: object) -> str | None:
    """Check an option that is a sum of money (``entry``, ``stake``)."""
    if not is_int(v) or v < 0:
        return Said(
            "option %(option)s is a whole amount of money, 0 or more, not %(value)s", option=key, value=as_written(v)
        )
    return None


def start(data: Mapping[str, Any]) -> State:
    """Return the state right after ``match_started``.

    Raises:
        RuleViolation: ``common.wrong_game``, ``el-roby.players``, ``common.bad_target``,
            ``common.bad_option``, ``common.bad_initial``.
    """
    check_game(data, GAME, "El Roby")
    options = parse_options(data.get("options"))
    players = data.get("players")
    low = options.min_players
    if not isinstance(players, (list, tuple)) or not low <= len(players) <= MAX_PLAYERS:
        got = len(players) if isinstance(players, (list, tuple)) else 0
        if low == 2:
            raise RuleViolation(
                "el-roby.players",
                Said(
                    "El Roby is played by %(low)s to %(high)s players; got %(got)s", low=low, high=MAX_PLAYERS, got=got
                ),
            )
        raise RuleViolation(
            "el-roby.players",
            Said(
                'El Roby is played by %(low)s to %(high)s players (2 or 3 need the option players = "2-8"); got %(got)s',
                low=low,
                high=MAX_PLAYERS,
                got=got,
            ),
        )
    if not all(isinstance(p, str) and p for p in players) or len(set(players)) != len(players):
        raise RuleViolation("el-roby.players", Said("the players need different, non-empty names"))
    target = data.get("target")
    if target is not None and dict(target) != {"limit": LIMIT}:
        raise RuleViolation(
            "common.bad_target",
            Said('El Roby\'s limit is fixed: a player who reaches 100 is out; target must be {"limit": 99}'),
        )
    n = len(players)
    scores: tuple[int | None, ...] = (0,) * n
    money = (-options.entry,) * n
    pot = options.entry * n
    initial = data.get("initial")
    if initial is not None:
        if not isinstance(initial, Mapping):
            raise RuleViolation("common.bad_initial", Said("initial is an object: scores, pot, money"))
        raw_scores = initial.get("scores", list(scores))
        if (
            not isinstance(raw_scores, (list, tuple))
            or len(raw_scores) != n
            or not all(v is None or (is_int(v) and 0 <= v <= LIMIT) for v in raw_scores)
        ):
            raise RuleViolation(
                "common.bad_initial",
                Said("initial scores are %(n)s numbers from 0 to 99 (null for a player already out of the game)", n=n),
            )
        if sum(v is not None for v in raw_scores) < 2:
            raise RuleViolation(
                "common.bad_initial", Said("at least two players must still be in the game (99 or less)")
            )
        scores = tuple(raw_scores)
        raw_money = initial.get("money")
        if raw_money is not None:
            if not isinstance(raw_money, (list, tuple)) or len(raw_money) != n or not all(is_int(v) for v in raw_money):
                raise RuleViolation(
                    "common.bad_initial", Said("initial money is %(n)s whole amounts, one per player", n=n)
                )
            money = tuple(raw_money)
        raw_pot = initial.get("pot")
        if raw_pot is not None:
            if not is_int(raw_pot) or raw_pot < 0:
                raise RuleViolation("common.bad_initial", Said("the initial pot is a whole amount, 0 or more"))
            pot = int(raw_pot)
        elif raw_money is not None:
            pot = -sum(money)
        if sum(money) + pot != 0:
            raise RuleViolation(
                "common.bad_initial",
                Said(
                    "money and pot must balance (every unit in the pot came from a player): "
                    "money sums to %(money)s and the pot holds %(pot)s",
                    money=sum(money),
                    pot=pot,
                ),
            )
    return State(
        players=tuple(players),
        options=options,
        scores=scores,
        money=money,
        pot=pot,
        initial_money=money,
        initial_pot=pot,
        carried=initial is not None,
    )


# --------------------------------------------------------------------------- apply


def apply(state: State, event: Event) -> State:
    """Check ``event`` against the rules and return the next state.

    Raises:
        RuleViolation: the event is illegal; ``state`` is unchanged (it always is).
    """
    after = dispatch(_HANDLERS, state, event, "El Roby")
    if event.type in MOVES and after.current is not None:
        hand = after.current
        after = set_field(after, _CURRENT, set_field(hand, _MOVES, hand.moves + 1))
    return after


_CURRENT = State._fields.index("current")
_MOVES = Hand._fields.index("moves")


MOVES = frozenset({"draw", "meld", "lay_off", "discard"})
"""The moves of a turn, counted per hand (a hand closed from the sheet says after which one)."""


def is_over(state: State) -> bool:
    """Return whether one player is left (the match is over)."""
    return standings_now(state)[3] is not None


def _finalize(state: State) -> State:
    """Make the latest record's settlement the standings (the next hand starts)."""
    if not state.records or state.records[-1].final:
        return state
    rec = state.records[-1]
    st = settle(rec, state.options)
    scores = tuple(None if (s in st.eliminated or st.totals[s] is None) else st.totals[s] for s in range(state.n))
    return state._replace(
        scores=scores, money=st.money, pot=st.pot, records=state.records[:-1] + (rec._replace(final=True),)
    )


def _on_hand_started(state: State, event: Event) -> State:
    d = event.data
    if is_over(state):
        raise RuleViolation("common.match_over", Said("the match is over: only one player is left"))
    cur = state.current
    if cur is not None and not cur.scored:
        if cur.result_only:
            waiting = Said("hand %(hand)s is not finished (waiting for its hand_result)", hand=cur.number)
        elif not cur.over:
            waiting = Said(
                "hand %(hand)s is not finished (waiting for %(player)s's turn and the rest of the hand)",
                hand=cur.number,
                player=state.players[cur.turn],
            )
        else:
            waiting = Said("hand %(hand)s is not finished (waiting for its showdown (hidden cards))", hand=cur.number)
        raise RuleViolation("common.hand_in_progress", waiting)
    dealer = read_seat(d, state.n, "dealer")
    new = _finalize(state)
    seats = tuple(s for s in range(new.n) if new.scores[s] is not None)
    if dealer not in seats:
        raise RuleViolation(
            "el-roby.wrong_dealer", Said("%(player)s is out of the game and cannot deal", player=new.players[dealer])
        )
    if new.last_dealer is not None:
        nxt = next(s for k in range(1, new.n + 1) if (s := (new.last_dealer + k) % new.n) in seats)
        if dealer != nxt:
            raise RuleViolation(
                "el-roby.wrong_dealer",
                Said(
                    "the deal passes to the next player still in the game: %(last)s dealt last, "
                    "so %(next)s deals now, not %(player)s",
                    last=new.players[new.last_dealer],
                    next=new.players[nxt],
                    player=new.players[dealer],
                ),
            )
    number = new.hands_played + 1
    hands_data, discard_data = d.get("hands"), d.get("discard")
    if hands_data is None and discard_data is None:
        hand = Hand(number, event.seq, dealer, seats, True)
        return new._replace(current=hand, hands_played=number, last_dealer=dealer)
    if hands_data is None or discard_data is None:
        raise RuleViolation(
            "el-roby.bad_deal", Said("a dealt hand needs both hands and discard (or neither, for a result-only hand)")
        )
    n = new.n
    if not isinstance(hands_data, (list, tuple)) or len(hands_data) != n:
        raise RuleViolation(
            "el-roby.bad_deal", Said("hands lists the %(n)s seats in order (null for players out of the game)", n=n)
        )
    known: list[tuple[Card, ...]] = []
    unknown: list[int] = []
    count: Counter[Card] = Counter()
    top = read_card(discard_data)
    assert top is not None
    count[top] += 1
    for s, cards in enumerate(hands_data):
        if s not in seats:
            if cards is not None:
                raise RuleViolation(
                    "el-roby.bad_deal",
                    Said("%(player)s is out of the game: their hand must be null", player=new.players[s]),
                )
            known.append(())
            unknown.append(0)
            continue
        if not isinstance(cards, (list, tuple)) or len(cards) != HAND_SIZE:
            raise RuleViolation(
                "el-roby.bad_deal", Said("%(player)s is dealt %(n)s cards", player=new.players[s], n=HAND_SIZE)
            )
        mine = []
        for t in cards:
            c = read_card(t, hidden_ok=True)
            if c is None:
                continue
            count[c] += 1
            if count[c] > DECK.count(c):
                raise RuleViolation(
                    "common.card_duplicate",
                    Said("%(card)s is dealt three times: the two packs hold it twice", card=c.pretty()),
                )
            mine.append(c)
        known.append(sorted_cards(mine))
        unknown.append(HAND_SIZE - len(mine))
    stock = DECK_SIZE - HAND_SIZE * len(seats) - 1
    empty: tuple[tuple[Card, ...], ...] = ((),) * n
    first = next(s for k in range(1, n + 1) if (s := (dealer + k) % n) in seats)
    hand = Hand(
        number,
        event.seq,
        dealer,
        seats,
        False,
        known=tuple(known),
        unknown=tuple(unknown),
        shown=empty,
        stock=stock,
        pile=(top,),
        turn=first,
        bound=((),) * n,
    )
    return new._replace(current=hand, hands_played=number, last_dealer=dealer)


def _playing(state: State, data: Mapping[str, Any], phase: str | None = None) -> tuple[Hand, Seat]:
    """Return the hand being played and the acting seat, checked.

    Raises:
        RuleViolation: ``common.match_over``, ``common.no_hand``, ``common.no_deal``,
            ``el-roby.hand_over``, ``common.bad_seat``, ``common.not_your_turn``,
            ``el-roby.draw_first``, ``el-roby.already_drew``.
    """
    if is_over(state):
        raise RuleViolation("common.match_over", Said("the match is over: only one player is left"))
    hand = state.current
    if hand is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if hand.result_only:
        raise RuleViolation(
            "common.no_deal",
            Said("hand %(hand)s is recorded by its result only: moves cannot be recorded in it", hand=hand.number),
        )
    if hand.over:
        if hand.out is not None:
            over = Said("hand %(hand)s is over: %(player)s went out", hand=hand.number, player=state.players[hand.out])
        else:
            over = Said("hand %(hand)s is over: the stock ran out (void hand)", hand=hand.number)
        raise RuleViolation("el-roby.hand_over", over)
    seat = read_seat(data, state.n)
    if seat != hand.turn:
        raise RuleViolation(
            "common.not_your_turn",
            Said("it is %(turn)s's turn, not %(player)s's", turn=state.players[hand.turn], player=state.players[seat]),
        )
    if phase == "play" and hand.phase != "play":
        raise RuleViolation(
            "el-roby.draw_first",
            Said("%(player)s must first draw (from the stock or the discard pile)", player=state.players[seat]),
        )
    if phase == "draw" and hand.phase != "draw":
        raise RuleViolation(
            "el-roby.already_drew", Said("%(player)s has already drawn this turn", player=state.players[seat])
        )
    return hand, seat


def _on_draw(state: State, event: Event) -> State:
    d = event.data
    hand, seat = _playing(state, d, "draw")
    name = state.players[seat]
    source = d.get("from")
    fields: dict[str, Any] = {"phase": "play", "source": source}
    if source == "stock":
        if hand.stock == 0:
            raise RuleViolation(
                "el-roby.stock_empty", Said("the stock is empty: %(player)s must take the top discard", player=name)
            )
        card = read_card(d["card"]) if d.get("card") is not None else None
        if card is not None:
            if at_least(placed_cards(hand), card, DECK.count(card)):
                raise RuleViolation(
                    "common.card_unavailable",
                    Said(
                        "%(player)s cannot draw %(card)s from the stock: both copies are placed (%(places)s)",
                        player=name,
                        card=card.pretty(),
                        places=_where(state, hand, card),
                    ),
                )
            fields["known"] = set_item(hand.known, seat, sorted_cards(hand.known[seat] + (card,)))
        else:
            fields["unknown"] = set_item(hand.unknown, seat, hand.unknown[seat] + 1)
            fields["draws"] = hand.draws + ((event.seq, seat),)
        fields["stock"] = hand.stock - 1
        fields["drew_last"] = hand.stock == 1
    elif source == "discard":
        if not hand.pile:
            raise RuleViolation(
                "el-roby.pile_empty",
                Said("the discard pile is empty: %(player)s must draw from the stock", player=name),
            )
        top = hand.pile[-1]
        if d.get("card") is not None:
            card = read_card(d["card"])
            if card != top:
                raise RuleViolation(
                    "el-roby.mismatch",
                    Said(
                        "card: the top of the discard pile is %(top)s, not %(card)s",
                        top=top.pretty(),
                        card=card.pretty(),  # type: ignore[union-attr]
                    ),
                )
        fields.update(
            pile=hand.pile[:-1],
            took=top,
            known=set_item(hand.known, seat, sorted_cards(hand.known[seat] + (top,))),
            shown=set_item(hand.shown, seat, hand.shown[seat] + (top,)),
        )
    else:
        raise RuleViolation(
            "el-roby.bad_source", Said("from is 'stock' or 'discard', not %(value)s", value=as_written(source))
        )
    return state._replace(current=hand._replace(**fields))


def _check_first_round(state: State, hand: Hand, seat: Seat) -> None:
    """A meld in the first round must lead to going out this turn (checked when the hand is known)."""
    if hand.unknown[seat]:
        return
    melds = tuple(m.cards for m in hand.melds)
    if not can_empty(hand.known[seat], melds, state.options, new_melds=True, leave=1):
        raise RuleViolation(
            "el-roby.first_round",
            Said(
                "%(player)s is on the first round: melding is allowed only to go out at once, and "
                "%(cards)s cannot all be melded or laid off this turn",
                player=state.players[seat],
                cards=spell(hand.known[seat]),
            ),
        )


def _on_meld(state: State, event: Event) -> State:
    d = event.data
    hand, seat = _playing(state, d, "play")
    name = state.players[seat]
    if hand.eleven:
        raise RuleViolation(
            "el-roby.eleven_card",
            Said(
                "%(player)s laid off without a meld of their own: the 11-card Roby goes out by lay-offs alone, no meld",
                player=name,
            ),
        )
    ident = d.get("id")
    if ident is not None and ident != len(hand.melds) + 1:
        raise RuleViolation(
            "el-roby.mismatch",
            Said("id: this is meld %(meld)s of the hand, not %(id)s", meld=len(hand.melds) + 1, id=ident),
        )
    cards = read_cards(d, read_card)
    shape = classify(cards, state.options)
    if shape is None:
        raise RuleViolation(
            "el-roby.bad_meld",
            Said(
                "%(cards)s is neither a set nor a run: %(why)s",
                cards=spell(cards),
                why=_meld_hint(cards, state.options),
            ),
        )
    fields = _bind(state, hand, seat, cards, event.seq, "meld")
    meld = Meld(len(hand.melds) + 1, seat, shape[0], shape[1])
    after = hand._replace(
        **fields,
        melds=hand.melds + (meld,),
        own=hand.own | {seat},
        melded=True,
        first_meld=hand.first_meld or seat not in hand.own,
        first_round_meld=hand.first_round_meld or hand.first_round,
    )
    if after.first_round:
        _check_first_round(state, after, seat)
    return _after_exposure(state, after, seat)


def _meld_hint(cards: list[Card], options: Options) -> Said:
    """Why ``cards`` are no meld: the clause after the colon of the refusal."""
    if len(cards) < 3:
        return Said("a meld has at least 3 cards")
    ranks = {c.rank for c in cards}
    if len(ranks) == 1 and options.setsDistinctSuits:
        return Said("sets need different suits (setsDistinctSuits)")
    if len({c.suit for c in cards}) > 1 and len(ranks) > 1:
        return Said("a run is one suit, a set one rank")
    if len(ranks) < len(cards):
        return Said("a run cannot hold a rank twice")
    if options.aceWrap:
        return Said("the ranks are not in sequence")
    return Said("the ranks are not in sequence (the ace goes below the 2 or above the king, not round the corner)")


def _after_exposure(state: State, hand: Hand, seat: Seat) -> State:
    """After a meld or lay-off: going out if the hand is empty."""
    if hand.size(seat) == 0:
        return _go_out(state, hand, seat)
    return state._replace(current=hand)


def _on_lay_off(state: State, event: Event) -> State:
    d = event.data
    hand, seat = _playing(state, d, "play")
    name = state.players[seat]
    ident = d.get("meld")
    meld = next((m for m in hand.melds if m.id == ident), None)
    if meld is None:
        raise RuleViolation(
            "el-roby.unknown_meld",
            Said(
                "there is no meld %(meld)s on the table (melds 1 to %(last)s)",
                meld=as_written(ident),
                last=len(hand.melds),
            ),
        )
    cards = read_cards(d, read_card)
    shape = classify(meld.cards + tuple(cards), state.options)
    if shape is None or shape[0] != meld.kind:
        raise RuleViolation(
            "el-roby.bad_lay_off",
            _not_valid(state, meld, cards),
        )
    eleven = hand.eleven
    if seat not in hand.own:
        if state.options.elevenCardSource == "stockOnly" and hand.source != "stock":
            raise RuleViolation(
                "el-roby.eleven_card_source",
                Said(
                    "%(player)s has no meld of their own: a lay-off needs one, and the 11-card Roby exception needs a card "
                    "drawn from the stock, not from the discard pile",
                    player=name,
                ),
            )
        eleven = True
    fields = _bind(state, hand, seat, cards, event.seq, "lay off")
    grown = meld._replace(cards=shape[1])
    melds = tuple(grown if m.id == meld.id else m for m in hand.melds)
    after = hand._replace(**fields, melds=melds, laid=True, eleven=eleven)
    if (
        eleven
        and not after.unknown[seat]
        and not can_empty(after.known[seat], tuple(m.cards for m in melds), state.options, new_melds=False)
    ):
        raise RuleViolation(
            "el-roby.needs_meld",
            Said(
                "%(player)s has no meld of their own: laying off is allowed only for the 11-card Roby, every card laid off "
                "this turn, and %(cards)s cannot all be laid off",
                player=name,
                cards=spell(after.known[seat]),
            ),
        )
    if after.first_round_meld and after.size(seat):
        _check_first_round(state, after, seat)
    return _after_exposure(state, after, seat)


def _not_valid(state: State, meld: Meld, cards: list[Card]) -> Said:
    """``2♥ cannot go on meld 1 (Ana's 5♠ 6♠ 7♠): … is not a valid run: a run is one suit, a set one rank``."""
    grown = spell(meld.cards + tuple(cards))
    why = _meld_hint(list(meld.cards) + cards, state.options)
    if meld.kind == "set":
        return Said(
            "%(cards)s cannot go on %(meld)s: %(grown)s is not a valid set: %(why)s",
            cards=spell(cards),
            meld=meld_words(state, meld),
            grown=grown,
            why=why,
        )
    return Said(
        "%(cards)s cannot go on %(meld)s: %(grown)s is not a valid run: %(why)s",
        cards=spell(cards),
        meld=meld_words(state, meld),
        grown=grown,
        why=why,
    )


def _on_discard(state: State, event: Event) -> State:
    d = event.data
    hand, seat = _playing(state, d, "play")
    name = state.players[seat]
    opts = state.options
    if hand.eleven:
        raise RuleViolation(
            "el-roby.eleven_card",
            Said(
                "%(player)s laid off without a meld of their own (the 11-card Roby): every card must be laid off, no discard",
                player=name,
            ),
        )
    card = read_card(d.get("card"))
    assert card is not None
    fields = _bind(state, hand, seat, [card], event.seq, "discard")
    after_known, after_unknown = fields["known"][seat], fields["unknown"][seat]
    holding = sorted_cards(after_known + (card,))  # the known hand before discarding
    if opts.noImmediateRediscard and hand.took == card and holding.count(card) == 1 and not after_unknown:
        raise RuleViolation(
            "el-roby.rediscard",
            Said(
                "%(player)s took %(card)s from the discard pile this turn and cannot discard it again",
                player=name,
                card=card.pretty(),
            ),
        )
    scope = restricted(hand, seat, opts)
    hit = fitting(card, scope, opts)
    forced = d.get("forced") is True
    pending: tuple[Pending, ...] = ()
    if forced:
        if seat in hand.own:
            raise RuleViolation(
                "el-roby.not_forced",
                Said(
                    "%(player)s has a meld of their own and can lay off the cards that fit: the forced discard is for a "
                    "player who cannot",
                    player=name,
                ),
            )
        if hit is None:
            raise RuleViolation(
                "el-roby.not_forced",
                Said("%(card)s fits no meld: the discard needs no exception (drop forced)", card=card.pretty()),
            )
        loose = next((c for c in holding if fitting(c, scope, opts) is None), None)
        if loose is not None:
            raise RuleViolation(
                "el-roby.not_forced",
                Said(
                    "%(player)s holds %(card)s, which fits no meld: discard that instead",
                    player=name,
                    card=loose.pretty(),
                ),
            )
        if after_unknown:
            pending += (Pending(event.seq, seat, "forced", holding, after_unknown, 0, scope),)
    elif hit is not None:
        if opts.discardCheck == "othersMelds":
            fits_meld = Said(
                "%(player)s cannot discard %(card)s: it fits another player's meld, %(meld)s",
                player=name,
                card=card.pretty(),
                meld=meld_words(state, hit),
            )
        else:
            fits_meld = Said(
                "%(player)s cannot discard %(card)s: it fits a meld, %(meld)s",
                player=name,
                card=card.pretty(),
                meld=meld_words(state, hit),
            )
        raise RuleViolation("el-roby.discard_fits", fits_meld)
    after = hand._replace(**fields, pile=hand.pile + (card,))
    left = after.size(seat)
    if hand.first_round_meld and left:
        raise RuleViolation(
            "el-roby.first_round",
            Counted(
                "%(player)s melded on the first round, which is allowed only to go out at once: %(n)s card would stay "
                "in hand",
                "%(player)s melded on the first round, which is allowed only to go out at once: %(n)s cards would stay "
                "in hand",
                left,
                player=name,
            ),
        )
    if left and limit_applies(hand, opts):
        kept_known = after_known if opts.limitCheck == "afterDiscard" else holding
        kept_unknown = after_unknown
        limit = limit_of(state, seat)
        low = points(kept_known) + 2 * kept_unknown
        if low > limit:
            raise RuleViolation(
                "el-roby.limit", _over_limit(name, opts, state.scores[seat], limit, kept_known, kept_unknown, low)
            )
        if kept_unknown:
            pending += (Pending(event.seq, seat, "limit", sorted_cards(kept_known), kept_unknown, limit, ()),)
    after = after._replace(pending=after.pending + pending)
    if not left:
        return _go_out(state, after, seat)
    nxt = _next_turn(state, after)
    if nxt.void:
        return _record(state._replace(current=nxt), nxt)
    return state._replace(current=nxt)


def _over_limit(
    name: str, opts: Options, score: int | None, limit: int, known: tuple[Card, ...], unknown: int, low: int
) -> Said:
    """The 99-point test refused: what the player kept, worth more than the limit (§4.4.1)."""
    parts: dict[str, Any] = {"player": name, "score": score, "limit": limit, "points": low}
    kept = spell(sorted_cards(known))
    if unknown:
        parts["cards"] = Said(
            "%(cards)s and %(hidden)s", cards=kept, hidden=Counted("%(n)s hidden card", "%(n)s hidden cards", unknown)
        )
        if opts.limitCheck == "afterDiscard":
            return Said(
                "%(player)s exposed this turn, so the cards kept after the discard may be worth at most 99 − %(score)s "
                "= %(limit)s: %(cards)s are at least worth %(points)s",
                **parts,
            )
        return Said(
            "%(player)s exposed this turn, so the cards kept before the discard may be worth at most 99 − %(score)s "
            "= %(limit)s: %(cards)s are at least worth %(points)s",
            **parts,
        )
    parts["cards"] = kept
    if opts.limitCheck == "afterDiscard":
        return Said(
            "%(player)s exposed this turn, so the cards kept after the discard may be worth at most 99 − %(score)s "
            "= %(limit)s: %(cards)s are worth %(points)s",
            **parts,
        )
    return Said(
        "%(player)s exposed this turn, so the cards kept before the discard may be worth at most 99 − %(score)s "
        "= %(limit)s: %(cards)s are worth %(points)s",
        **parts,
    )


def _next_turn(state: State, hand: Hand) -> Hand:
    """Pass the turn on; rebuild an empty stock from the discard pile, or void the hand (§4.4)."""
    if hand.stock == 0 and hand.drew_last and state.options.stockOut == "voidHand":
        return hand._replace(over=True, void=True)
    stock, pile = hand.stock, hand.pile
    if stock == 0 and len(pile) > 1:
        stock, pile = len(pile) - 1, pile[-1:]
    fields = list(hand)  # thirteen fields written by index: every turn ends here
    fields[_NEW_TURN] = (
        hand.next_seat(hand.turn),
        "draw",
        hand.turns + 1,
        None,
        None,
        False,
        False,
        False,
        False,
        False,
        False,
    )
    fields[_STOCK] = stock
    fields[_PILE] = pile
    return tuple.__new__(Hand, fields)


_TURN_FIELDS = (
    "turn",
    "phase",
    "turns",
    "source",
    "took",
    "melded",
    "laid",
    "first_meld",
    "first_round_meld",
    "eleven",
    "drew_last",
)
_TURN_AT = Hand._fields.index("turn")
assert Hand._fields[_TURN_AT : _TURN_AT + len(_TURN_FIELDS)] == _TURN_FIELDS, (
    "_next_turn writes these fields as one slice"
)
_NEW_TURN = slice(_TURN_AT, _TURN_AT + len(_TURN_FIELDS))
"""The fields a new turn sets, next to each other in :class:`Hand` (checked above)."""
_STOCK, _PILE = Hand._fields.index("stock"), Hand._fields.index("pile")


def _go_out(state: State, hand: Hand, seat: Seat) -> State:
    """``seat`` emptied their hand: Roby. The hand is scored once every remaining card is known."""
    hand = hand._replace(over=True, out=seat)
    return _maybe_score(state, hand)


def _maybe_score(state: State, hand: Hand, seq: int | None = None) -> State:
    """Score a finished move-by-move hand when every card it needs is known."""
    counted = hand.counted or (None,) * state.n
    if hand.void:
        return _record(state._replace(current=hand), hand)
    if any(hand.unknown[s] and counted[s] is None for s in hand.seats if s != hand.out):
        return state._replace(current=hand)
    _resolve(state, hand)
    final: list[object] = []
    for s in range(state.n):
        if s not in hand.seats:
            final.append(None)
        elif hand.unknown[s] and counted[s] is not None:
            final.append(counted[s])
        else:
            final.append(hand.known[s])
    hand = hand._replace(final=tuple(final), checked=hand.checked if hand.checked is not None else seq)
    return _record(state._replace(current=hand), hand)


def _resolve(state: State, hand: Hand) -> None:
    """Run the deferred checks now that the seats' hidden cards are known (VOCABULARY.md §3).

    The hidden cards held at a check are among those identified after it; the check fails
    only if no choice among them passes (a lower bound: the record cannot say which).

    Raises:
        RuleViolation: ``el-roby.limit`` or ``el-roby.not_forced`` with the seq of the move.
    """
    for p in hand.pending:
        if hand.unknown[p.seat]:
            continue
        later = [c for q, c in hand.bound[p.seat] if q > p.seq]
        name = state.players[p.seat]
        if p.kind == "limit":
            low = points(p.known) + sum(sorted(value(c) for c in later)[: p.unknown])
            if low > p.limit:
                raise RuleViolation(
                    "el-roby.limit",
                    Said(
                        "the cards now known show that %(player)s kept at least %(points)s points at the end of the turn "
                        "of entry %(entry)s, more than the limit of %(limit)s for a turn with a new meld",
                        player=name,
                        points=low,
                        entry=p.seq,
                        limit=p.limit,
                    ),
                    seq=p.seq,
                )
        else:
            fit = sum(1 for c in later if fitting(c, p.melds, state.options) is not None)
            if fit < p.unknown:
                raise RuleViolation(
                    "el-roby.not_forced",
                    Said(
                        "the cards now known show that %(player)s held a card fitting no meld at entry %(entry)s: "
                        "the forced discard was not forced",
                        player=name,
                        entry=p.seq,
                    ),
                    seq=p.seq,
                )


def _points_of(entry: object) -> int:
    """Points of a seat's end-of-hand entry: a point total, or the cards."""
    if isinstance(entry, int):
        return entry
    assert isinstance(entry, tuple)
    return points(entry)


def _record(state: State, hand: Hand) -> State:
    """Add the scored hand's record (points, the standings and money before it)."""
    n = state.n
    if hand.void:
        pts: tuple[int | None, ...] = tuple(0 if s in hand.seats else None for s in range(n))
        cards: tuple[object, ...] = (None,) * n
    else:
        assert hand.final is not None
        pts = tuple(
            None if s not in hand.seats else 0 if s == hand.out else _points_of(hand.final[s]) for s in range(n)
        )
        cards = hand.final
    rec = Record(
        hand.number,
        hand.seq,
        hand.out,
        hand.void,
        state.scores,
        pts,
        state.money,
        state.pot,
        cards,
        closed_from_sheet=None
        if hand.closed_after is None or hand.checked is None
        else (hand.closed_after, hand.checked),
    )
    return state._replace(records=state.records + (rec,))


# --------------------------------------------------------------------------- end of hand facts


def _read_hands(state: State, hand: Hand, raw: object, *, totals_ok: bool, out: Seat | None) -> list[object]:
    """Read ``hands`` of a showdown or hand_result: per seat a card list, a point total or None.

    Raises:
        RuleViolation: ``el-roby.bad_result`` (wrong shape for a seat), ``common.card_duplicate``.
    """
    if not isinstance(raw, (list, tuple)) or len(raw) != state.n:
        raise RuleViolation("el-roby.bad_result", Said("hands lists the %(n)s seats in order", n=state.n))
    out_list: list[object] = []
    count: Counter[Card] = Counter()
    for s, entry in enumerate(raw):
        name = state.players[s]
        if s not in hand.seats:
            if entry is not None:
                raise RuleViolation(
                    "el-roby.bad_result", Said("%(player)s was not dealt in (out of the game): write null", player=name)
                )
            out_list.append(None)
            continue
        if entry is None:
            raise RuleViolation(
                "el-roby.bad_result", Said("%(player)s played this hand: write their remaining cards", player=name)
            )
        if s == out:
            if entry not in ([], 0, ()):
                raise RuleViolation(
                    "el-roby.bad_result", Said("%(player)s went out: their hand is empty ([])", player=name)
                )
            out_list.append(())
            continue
        if is_int(entry):
            if not totals_ok:
                raise RuleViolation("el-roby.bad_result", Said("a showdown shows the cards, not their total"))
            if not 2 <= entry <= 108:
                raise RuleViolation(
                    "el-roby.bad_result",
                    Said(
                        "%(player)s's 1 to 10 cards are worth 2 to 108 points, not %(points)s",
                        player=name,
                        points=entry,
                    ),
                )
            out_list.append(int(entry))
            continue
        if not isinstance(entry, (list, tuple)):
            raise RuleViolation(
                "el-roby.bad_result",
                Said("%(player)s's hand is a list of cards or a point total", player=name)
                if totals_ok
                else Said("%(player)s's hand is a list of cards", player=name),
            )
        cards = [read_card(t) for t in entry]
        if out is not None and not 1 <= len(cards) <= HAND_SIZE:
            raise RuleViolation(
                "el-roby.bad_result",
                Said("%(player)s did not go out, so they hold 1 to 10 cards, not %(n)s", player=name, n=len(cards)),
            )
        for c in cards:
            assert c is not None
            count[c] += 1
            if count[c] > DECK.count(c):
                raise RuleViolation(
                    "common.card_duplicate",
                    Said("%(card)s is listed three times: the two packs hold it twice", card=c.pretty()),
                )
        out_list.append(sorted_cards(c for c in cards if c is not None))
    return out_list


def _show(state: State, hand: Hand, facts: list[object], seq: int, *, field: str) -> Hand:
    """Bind the listed hands to the move-by-move hand: known cards must be there, the rest binds unknowns.

    Integers (point totals, hand_result only) are checked or, for hidden cards, accepted
    when possible and counted.

    Raises:
        RuleViolation: ``el-roby.mismatch``, ``common.card_duplicate``.
    """
    placed = located(hand)
    taken: Counter[Card] = Counter()
    known, unknown, bound = list(hand.known), list(hand.unknown), list(hand.bound)
    counted = list(hand.counted or (None,) * state.n)
    for s in hand.seats:
        entry = facts[s]
        name = state.players[s]
        if isinstance(entry, int):
            if unknown[s] == 0:
                if entry != points(known[s]):
                    raise RuleViolation(
                        "el-roby.mismatch",
                        Said(
                            "%(field)s: %(player)s holds %(cards)s = %(points)s points, not %(total)s",
                            field=field,
                            player=name,
                            cards=spell(known[s]),
                            points=points(known[s]),
                            total=entry,
                        ),
                    )
                continue
            pool = sorted(value(c) for c in DECK.distinct() for _ in range(DECK.count(c) - placed[c] - taken[c]))
            low = points(known[s]) + sum(pool[: unknown[s]])
            high = points(known[s]) + sum(pool[len(pool) - unknown[s] :])
            if not low <= entry <= high:
                raise RuleViolation(
                    "el-roby.mismatch",
                    Said(
                        "%(field)s: %(player)s holds %(held)s: %(low)s to %(high)s points, not %(total)s",
                        field=field,
                        player=name,
                        held=_held(known[s], unknown[s], hidden=True),
                        low=low,
                        high=high,
                        total=entry,
                    ),
                )
            counted[s] = entry
            continue
        assert isinstance(entry, tuple)
        lacking = missing_from(entry, known[s])
        if lacking:
            raise RuleViolation(
                "el-roby.mismatch",
                Said(
                    "%(field)s: %(player)s still holds %(cards)s, which the list leaves out",
                    field=field,
                    player=name,
                    cards=spell(lacking),
                ),
            )
        if len(entry) != len(known[s]) + unknown[s]:
            raise RuleViolation(
                "el-roby.mismatch",
                Counted(
                    "%(field)s: %(player)s holds %(n)s card, not %(listed)s",
                    "%(field)s: %(player)s holds %(n)s cards, not %(listed)s",
                    len(known[s]) + unknown[s],
                    field=field,
                    player=name,
                    listed=len(entry),
                ),
            )
        new = missing_from(known[s], entry)
        for c in new:
            taken[c] += 1
            if placed[c] + taken[c] > DECK.count(c):
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "%(field)s: %(player)s cannot hold %(card)s: both copies are already placed (%(places)s)",
                        field=field,
                        player=name,
                        card=c.pretty(),
                        places=_where(state, hand, c),
                    ),
                )
        if new:
            known[s] = sorted_cards(entry)
            unknown[s] = 0
            bound[s] = bound[s] + tuple((seq, c) for c in new)
    return hand._replace(known=tuple(known), unknown=tuple(unknown), bound=tuple(bound), counted=tuple(counted))


def _on_showdown(state: State, event: Event) -> State:
    hand = state.current
    if hand is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if hand.result_only:
        raise RuleViolation(
            "common.no_deal", Said("hand %(hand)s is recorded by its result only: no showdown", hand=hand.number)
        )
    if not hand.over:
        raise RuleViolation(
            "el-roby.hand_not_over",
            Said("hand %(hand)s is still being played: the showdown comes after a player goes out", hand=hand.number),
        )
    if hand.void:
        raise RuleViolation(
            "el-roby.hand_not_over",
            Said("hand %(hand)s is void (the stock ran out): nothing to show", hand=hand.number),
        )
    facts = _read_hands(state, hand, event.data.get("hands"), totals_ok=False, out=hand.out)
    shown = _show(state, hand, facts, event.seq, field="hands")
    if hand.scored:
        return state  # a cross-check of a hand already known: it agrees
    return _maybe_score(state, shown, event.seq)


def _check_reachable(state: State, hand: Hand, out: Seat | None, facts: list[object] | None) -> None:
    """Closing a hand from the sheet: the facts must be reachable from the moves recorded so far.

    A turn never adds to a hand (one card drawn, at least one card out), so a seat that did
    not go out ends with at most the cards it holds now (one fewer if it has drawn and must
    still discard) and at most 11 points a card; melds stay on the table, so a card whose two
    copies are melded is in nobody's hand.

    Raises:
        RuleViolation: ``el-roby.result_conflict`` naming the conflict.
    """
    if facts is None:
        return
    melded: Counter[Card] = Counter()
    for m in hand.melds:
        melded.update(m.cards)
    listed: Counter[Card] = Counter()
    for s in hand.seats:
        entry = facts[s]
        if s == out or entry is None:
            continue
        name = state.players[s]
        most = hand.size(s) - (1 if s == hand.turn and hand.phase == "play" else 0)
        size = Counted("%(n)s card", "%(n)s cards", hand.size(s))
        if s == hand.turn and hand.phase == "play":
            held = Said("%(player)s holds %(cards)s and must still discard", player=name, cards=size)
        else:
            held = Said("%(player)s holds %(cards)s", player=name, cards=size)
        if isinstance(entry, int):
            if entry > 11 * most:
                raise RuleViolation(
                    "el-roby.result_conflict",
                    Said(
                        "%(held)s: at most %(most)s at the end, worth at most %(points)s points; the sheet says %(total)s",
                        held=held,
                        most=Counted("%(n)s card", "%(n)s cards", most),
                        points=11 * most,
                        total=entry,
                    ),
                )
            continue
        assert isinstance(entry, tuple)
        if len(entry) > most:
            raise RuleViolation(
                "el-roby.result_conflict",
                Said(
                    "%(held)s, and no turn adds a card: at most %(most)s at the end; the sheet lists %(listed)s",
                    held=held,
                    most=most,
                    listed=len(entry),
                ),
            )
        listed.update(entry)
        for c in set(entry):
            if melded[c] + listed[c] > DECK.count(c):
                raise RuleViolation("el-roby.result_conflict", _melded_twice(hand, c, melded[c], name))


def _melded_twice(hand: Hand, card: Card, melded: int, name: str) -> Said:
    """A card the sheet puts in a hand when the table already holds its copies on melds."""
    where = sorted({m.id for m in hand.melds if card in m.cards})
    parts = {"card": card.pretty(), "melds": Listed(where), "player": name}
    if len(where) > 1:  # both copies melded, on two melds
        return Said(
            "%(card)s is melded (melds %(melds)s) and the two packs hold it twice; the sheet puts one in %(player)s's hand",
            **parts,
        )
    if melded == 1:
        return Said(
            "%(card)s is melded (meld %(melds)s) and the two packs hold it twice; the sheet puts another in "
            "%(player)s's hand",
            **parts,
        )
    return Said(
        "%(card)s is melded (meld %(melds)s) and the two packs hold it twice; the sheet puts one in %(player)s's hand",
        **parts,
    )


def _on_hand_result(state: State, event: Event) -> State:
    d = event.data
    hand = state.current
    if hand is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    out = d.get("out")
    if out is not None:
        out = read_seat(d, state.n, "out")
        if out not in hand.seats:
            raise RuleViolation(
                "el-roby.bad_result",
                Said("%(player)s is out of the game and cannot have gone out", player=state.players[out]),
            )
    elif state.options.stockOut != "voidHand":
        raise RuleViolation(
            "el-roby.bad_result",
            Said("out is the seat that made Roby (null only for a void hand under stockOut = voidHand)"),
        )
    if not hand.result_only and not hand.over:
        facts = (
            None
            if out is None and d.get("hands") is None
            else _read_hands(state, hand, d.get("hands"), totals_ok=True, out=out)
        )
        _check_reachable(state, hand, out, facts)
        done = hand._replace(
            over=True,
            out=out,
            void=out is None,
            final=None if facts is None else tuple(facts),
            checked=event.seq,
            closed_after=hand.moves,
        )
        return _record(state._replace(current=done), done)
    if not hand.result_only:
        if (out is None) != hand.void or (out is not None and out != hand.out):
            if hand.void:
                raise RuleViolation("el-roby.mismatch", Said("out: the moves say a void hand"))
            raise RuleViolation(
                "el-roby.mismatch",
                Said("out: the moves say %(player)s went out", player=state.players[hand.out]),  # type: ignore[index]
            )
    facts = (
        None
        if out is None and d.get("hands") is None
        else _read_hands(state, hand, d.get("hands"), totals_ok=True, out=out)
    )
    if not hand.result_only:
        if facts is None:
            return state
        shown = _show(state, hand, facts, event.seq, field="hands")
        if hand.scored:
            return state
        return _maybe_score(state, shown, event.seq)
    if hand.over:  # a second result for a result-only hand: a cross-check
        if out != hand.out or facts != list(hand.final or ()) and facts is not None:
            raise RuleViolation(
                "el-roby.mismatch", Said("this result differs from entry %(entry)s's", entry=hand.checked)
            )
        return state
    if out is None:
        done = hand._replace(over=True, void=True, checked=event.seq)
        return _record(state._replace(current=done), done)
    assert facts is not None
    done = hand._replace(over=True, out=out, final=tuple(facts), checked=event.seq)
    return _record(state._replace(current=done), done)


def _on_reveal(state: State, event: Event) -> State:
    bindings = event.data.get("cards")
    if not isinstance(bindings, (list, tuple)) or not bindings:
        raise RuleViolation("common.bad_reveal", Said("a reveal lists one or more cards"))
    hand = state.current
    if hand is None or hand.result_only or hand.scored:
        raise RuleViolation("common.bad_reveal", Said("no hand with hidden cards is being played"))
    for b in bindings:
        if not isinstance(b, Mapping):
            raise RuleViolation("common.bad_reveal", Said("%(value)s is not a binding", value=as_written(b)))
        if b.get("card") == UNKNOWN:
            continue  # withheld from this reader (an open read of a match in play): binds nothing
        card = read_card(b.get("card"))
        assert card is not None
        if "seq" in b:
            seq = b.get("seq")
            entry = next(((q, s) for q, s in hand.draws if q == seq), None)
            if entry is None:
                raise RuleViolation(
                    "common.bad_reveal",
                    Said("entry %(entry)s is not an unseen stock draw of this hand still to reveal", entry=seq),
                )
            seat = entry[1]
            if "seat" in b and b["seat"] != seat:
                raise RuleViolation(
                    "common.bad_reveal",
                    Said("entry %(entry)s was %(player)s's draw", entry=seq, player=state.players[seat]),
                )
            draws = tuple(x for x in hand.draws if x != entry)
        elif "seat" in b:
            seat = read_seat(b, state.n)
            draws = hand.draws
        else:
            raise RuleViolation(
                "common.bad_reveal",
                Said("a binding is {seat, card} (a hand card) or {seq, card} (an unseen stock draw)"),
            )
        name = state.players[seat]
        if seat not in hand.seats or hand.unknown[seat] == 0:
            raise RuleViolation("common.bad_reveal", Said("%(player)s holds no hidden card", player=name))
        if at_least(placed_cards(hand), card, DECK.count(card)):
            raise RuleViolation(
                "common.card_duplicate",
                Said(
                    "%(player)s cannot hold %(card)s: both copies are placed (%(places)s)",
                    player=name,
                    card=card.pretty(),
                    places=_where(state, hand, card),
                ),
            )
        hand = hand._replace(
            known=set_item(hand.known, seat, sorted_cards(hand.known[seat] + (card,))),
            unknown=set_item(hand.unknown, seat, hand.unknown[seat] - 1),
            bound=set_item(hand.bound, seat, hand.bound[seat] + ((event.seq, card),)),
            draws=draws,
        )
    if hand.over:
        return _maybe_score(state, hand, event.seq)
    return state._replace(current=hand)


def _on_rebuy(state: State, event: Event) -> State:
    seat = read_seat(event.data, state.n)
    name = state.players[seat]
    hand = state.current
    if hand is not None and not hand.scored:
        raise RuleViolation(
            "common.hand_in_progress",
            Said("hand %(hand)s is not scored yet: re-buys come after it", hand=hand.number),
        )
    if not state.records or state.records[-1].final or state.records[-1].number != (hand.number if hand else -1):
        raise RuleViolation(
            "el-roby.not_busted",
            Said("%(player)s did not reach 100 in the last hand: there is nothing to re-buy", player=name),
        )
    rec = state.records[-1]
    st = settle(rec, state.options)
    if len(st.remaining) < 2:
        alone = state.players[st.remaining[0]] if st.remaining else Said("nobody")
        raise RuleViolation(
            "el-roby.rebuy_closed",
            Said(
                "only %(player)s is left at 99 or less: a re-buy needs at least two players remaining, so %(player)s wins",
                player=alone,
            ),
        )
    if seat not in st.busted:
        raise RuleViolation(
            "el-roby.not_busted",
            Said(
                "%(player)s did not reach 100 in hand %(hand)s: only a player who just went over may re-buy",
                player=name,
                hand=rec.number,
            ),
        )
    if seat in rec.rebuys:
        raise RuleViolation(
            "el-roby.rebuy_twice",
            Said("%(player)s has already re-bought after hand %(hand)s", player=name, hand=rec.number),
        )
    return state._replace(records=state.records[:-1] + (rec._replace(rebuys=rec.rebuys + (seat,)),))


# --------------------------------------------------------------------------- positions for tests


def position(
    players: list[str],
    *,
    hands: list[list[str] | None],
    melds: list[tuple[int, list[str]]] = (),  # type: ignore[assignment]
    discard: list[str] = (),  # type: ignore[assignment]
    turn: int,
    dealer: int | None = None,
    drew: str | None = None,
    scores: list[int | None] | None = None,
    options: Mapping[str, Any] | None = None,
    first_round_over: bool = True,
    number: int = 1,
) -> State:
    """Build a mid-hand position directly (test-facing; docs/RULES.md §4.8 R2, R3 start mid-hand).

    ``hands`` per seat (None for a seat out of the game; ``"??"`` for cards the scorer did
    not see), ``melds`` as (owner, cards) in id
    order, ``discard`` the pile bottom → top, ``turn`` the seat to act; ``drew`` None (the
    seat is to draw), ``"stock"`` or ``"discard"`` (it has drawn: its hand already holds the
    card); ``first_round_over`` whether every player has had a turn. The stock holds the
    rest of the 104 cards. The match's standings are ``scores`` (default 0 each); the
    position is checked for deck composition and meld validity.

    Raises:
        RuleViolation: ``common.card_duplicate``, ``el-roby.bad_meld``, ``el-roby.bad_deal``.
    """
    data: dict[str, Any] = {"game": GAME, "players": list(players), "options": dict(options or {})}
    if scores is not None:
        data["initial"] = {"scores": list(scores)}
    state = start(data)
    n = state.n
    seats = tuple(s for s in range(n) if hands[s] is not None)
    count: Counter[Card] = Counter()
    known = []
    unknown = []
    for s in range(n):
        cs = [read_card(t, hidden_ok=True) for t in (hands[s] or [])]
        known.append(sorted_cards(c for c in cs if c is not None))
        unknown.append(sum(c is None for c in cs))
        count.update(known[-1])
    built = []
    own: set[int] = set()
    for i, (owner, texts) in enumerate(melds, start=1):
        cs = [read_card(t) for t in texts]
        shape = classify([c for c in cs if c is not None], state.options)
        if shape is None:
            raise RuleViolation("el-roby.bad_meld", Said("%(cards)s is not a meld", cards=texts))
        built.append(Meld(i, owner, shape[0], shape[1]))
        own.add(owner)
        count.update(shape[1])
    pile = tuple(c for c in (read_card(t) for t in discard) if c is not None)
    count.update(pile)
    for c, k in count.items():
        if k > DECK.count(c):
            raise RuleViolation(
                "common.card_duplicate",
                Said("%(card)s appears %(n)s times: the two packs hold it twice", card=c.pretty(), n=k),
            )
    stock = DECK_SIZE - sum(count.values()) - sum(unknown)
    if stock < 0:
        raise RuleViolation("el-roby.bad_deal", Said("more than 104 cards placed"))
    empty: tuple[tuple[Card, ...], ...] = ((),) * n
    hand = Hand(
        number,
        2,
        dealer if dealer is not None else (turn - 1) % n,
        seats,
        False,
        known=tuple(known),
        unknown=tuple(unknown),
        shown=empty,
        stock=stock,
        pile=pile,
        melds=tuple(built),
        own=frozenset(own),
        turn=turn,
        phase="draw" if drew is None else "play",
        turns=len(seats) + 1 if first_round_over else 0,
        source=drew,
        took=None,
        bound=((),) * n,
    )
    return state._replace(current=hand, hands_played=number, last_dealer=hand.dealer)


_HANDLERS = {
    "hand_started": _on_hand_started,
    "draw": _on_draw,
    "meld": _on_meld,
    "lay_off": _on_lay_off,
    "discard": _on_discard,
    "showdown": _on_showdown,
    "reveal": _on_reveal,
    "hand_result": _on_hand_result,
    "rebuy": _on_rebuy,
}
"""The handler of each event type :func:`apply` accepts."""
