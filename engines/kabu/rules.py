"""Kabú's rules: :func:`start` a match, :func:`apply` one event (docs/RULES.md §2, VOCABULARY.md §5.2).

Every handler checks the whole event first and only then builds the new state, so a
:class:`RuleViolation` leaves nothing half-changed (the old state is never touched anyway).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from engines.kabu.options import OPTION_VALUES
from engines.base import Event, RuleViolation
from engines.cards import UNKNOWN, Card, pretty
from engines.common import check_game, check_options, dispatch, is_int, read_seat, as_written, set_item
from engines.history import History
from engines.said import Counted, Joined, Said
from engines.kabu.scoring import settle
from engines.kabu.state import (
    DECK_NAMES,
    GAME,
    MAX_CARDS,
    OPEN_SIX,
    Adjust,
    Hand,
    Options,
    Phase,
    Seat,
    State,
    card_value,
    hand_value,
    read_card,
    sorted_cards,
    start_chips,
    value_words,
)

END_VALUES = ("insolvency", "time")


# --------------------------------------------------------------------------- small helpers


def _where(state: State, hand: Hand, card: Card) -> Said:
    """Say where the record already places ``card`` in this hand: words that follow "it is"."""
    if card in hand.table:
        return Said("face up on the table")
    for s in hand.order:
        if card in hand.known[s]:
            return Said("in %(player)s's hand", player=state.players[s])
    for s in hand.order:
        if card in hand.dealt[s]:
            return Said("dealt to %(player)s", player=state.players[s])
    return Said("elsewhere")


def possible_keep(hand: Hand, options: Options, seat: Seat, card: Card) -> bool:
    """Tell whether ``card`` can be the card ``seat`` kept: one of its first cards, never an open card."""
    if options.openSix and card in hand.table:
        return False
    if card in hand.dealt[seat]:
        return True
    return None in hand.dealt[seat] and card not in hand.dealt_known


def _check_keep(state: State, hand: Hand, seat: Seat) -> None:
    """A ``??`` keep: some card the seat may still hold must be able to be the kept one.

    Raises:
        RuleViolation: ``common.card_unavailable`` naming the keep's seq.
    """
    seq = hand.kept[seat]
    if seq is None or hand.kept_card[seat] is not None or hand.unknown[seat]:
        return
    if any(possible_keep(hand, state.options, seat, c) for c in hand.known[seat]):
        return
    raise RuleViolation(
        "common.card_unavailable",
        Said(
            "%(player)s kept one of the cards first dealt to %(player)s (%(dealt)s) at entry %(seq)s, "
            "but none of %(held)s can be that card",
            player=state.players[seat],
            dealt=pretty(hand.dealt[seat]),
            seq=seq,
            held=pretty(sorted_cards(hand.known[seat])),
        ),
        seq=seq,
    )


# --------------------------------------------------------------------------- start


def parse_options(raw: object) -> Options:
    """Read the ``options`` of ``match_started`` (omitted keys take their default).

    Raises:
        RuleViolation: ``common.bad_option`` for an unknown key or value.
    """
    return Options(**check_options(raw, OPTION_VALUES, "Kabú", checks={"maxPlayers": _max_players}))


def _max_players(key: str, v: object) -> str | None:
    """Check the ``maxPlayers`` option: a whole number of players, 2 to 10."""
    if not (is_int(v) and v in OPTION_VALUES[key]):
        return Said("option %(option)s must be an integer from 2 to 10, not %(value)s", option=key, value=as_written(v))
    return None


def deck_problem(options: Options, n: int) -> Said | None:
    """Return why ``n`` players cannot play with this deck and these options (docs/RULES.md §2.2), or None."""
    size = len(options.cards.cards)
    deck = DECK_NAMES[options.deck]
    six = OPEN_SIX if options.openSix else 0
    k = options.start_cards
    if MAX_CARDS * n + six > size:
        if six:
            return Said(
                "%(players)s players holding four cards each need %(held)s plus the six open cards = %(need)s cards; "
                "the %(deck)s deck has %(size)s",
                players=n,
                held=MAX_CARDS * n,
                need=MAX_CARDS * n + six,
                deck=deck,
                size=size,
            )
        return Said(
            "%(players)s players holding four cards each need %(held)s = %(need)s cards; the %(deck)s deck has %(size)s",
            players=n,
            held=MAX_CARDS * n,
            need=MAX_CARDS * n,
            deck=deck,
            size=size,
        )
    if options.choose and k * n > size:
        return Said(
            "%(players)s players receiving %(cards)s cards each need %(need)s cards; the %(deck)s deck has %(size)s",
            players=n,
            cards=k,
            need=k * n,
            deck=deck,
            size=size,
        )
    if options.choose and six and options.secondCardFrom == "returned" and k * n + six > size:
        return Said(
            "%(players)s players receiving %(cards)s cards each, then six open cards from the rest, need %(need)s "
            "cards; the %(deck)s deck has %(size)s",
            players=n,
            cards=k,
            need=k * n + six,
            deck=deck,
            size=size,
        )
    return None


def start(data: Mapping[str, Any]) -> State:
    """Return the state right after ``match_started``.

    Raises:
        RuleViolation: ``common.wrong_game``, ``kabu.players``, ``common.bad_target``,
            ``common.bad_option``, ``kabu.deck_too_small``, ``common.bad_initial``.
    """
    check_game(data, GAME, "Kabú")
    target = data.get("target")
    end = "insolvency"
    if target is not None:
        if (
            not isinstance(target, Mapping)
            or set(target) - {"end"}
            or target.get("end", "insolvency") not in END_VALUES
        ):
            raise RuleViolation("common.bad_target", Said('Kabú\'s target is {"end": "insolvency"} or {"end": "time"}'))
        end = str(target.get("end", "insolvency"))
    raw = data.get("options")
    options = parse_options(raw)
    options = replace(options, end=end)
    players = data.get("players")
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in players):
        raise RuleViolation("kabu.players", Said("players must be a list of non-empty names"))
    n = len(players)
    if not 2 <= n <= options.maxPlayers:
        raise RuleViolation(
            "kabu.players",
            Said(
                "Kabú is played by 2 to %(most)s players (option maxPlayers, at most 10); got %(players)s",
                most=options.maxPlayers,
                players=n,
            ),
        )
    if len(set(players)) != n:
        raise RuleViolation("kabu.players", Said("every player needs a different name"))
    problem = deck_problem(options, n)
    if problem:
        raise RuleViolation("kabu.deck_too_small", Said("impossible set-up: %(problem)s", problem=problem))
    chips = (start_chips(n),) * n
    initial = data.get("initial")
    if initial is not None:
        got = initial.get("chips") if isinstance(initial, Mapping) else None
        if not isinstance(got, (list, tuple)) or len(got) != n or not all(is_int(v) and v >= 0 for v in got):
            raise RuleViolation(
                "common.bad_initial",
                Said("initial chips must be %(players)s whole numbers of chips (0 or more), one per player", players=n),
            )
        chips = tuple(int(v) for v in got)
    return State(
        players=tuple(players),
        options=options,
        initial=chips,
        carried=initial is not None,
        chips=chips,
        active=(True,) * n,
    )


# --------------------------------------------------------------------------- apply


def apply(state: State, event: Event) -> State:
    """Check ``event`` against the rules and return the next state.

    Raises:
        RuleViolation: the event is illegal; ``state`` is unchanged (it always is).
    """
    return dispatch(_HANDLERS, state, event, "Kabú")


def _over_words(state: State) -> Said:
    if state.end_kind == "insolvency":
        return Said("the game is over: a player could not pay what he owed")
    if state.end_kind == "alone":
        return Said("the game is over: fewer than two players are left")
    return Said("the game is over: the agreed time is up")


def _order(state: State, dealer: Seat | None) -> tuple[Seat, ...]:
    n = len(state.players)
    if dealer is None:
        return tuple(s for s in range(n) if state.active[s])
    return tuple(s for s in ((dealer + i) % n for i in range(1, n + 1)) if state.active[s])


def _blank(n: int) -> dict[str, Any]:
    return {
        "dealt": ((),) * n,
        "known": (frozenset(),) * n,
        "unknown": (0,) * n,
        "kept": (None,) * n,
        "kept_card": (None,) * n,
        "draws": ((None, None),) * n,
    }


def _archived(hand: Hand) -> Hand:
    """A settled hand as the match keeps it: what the score sheet needs (the deal's bookkeeping dropped).

    Every later state carries every earlier hand, so a long match stays cheap to keep, copy and compare.
    """
    return hand._replace(
        dealt=(), known=(), unknown=(), kept=(), kept_card=(), draws=(), dealt_known=frozenset(), located=frozenset()
    )


def _on_hand_started(state: State, event: Event) -> State:
    d = event.data
    if state.over:
        raise RuleViolation("common.match_over", _over_words(state))
    cur = state.current
    if cur is not None and not cur.over:
        if cur.result_only:
            waiting = Said("hand %(hand)s is not finished (waiting for its hand_result)", hand=cur.number)
        elif cur.phase == "showdown":
            waiting = Said("hand %(hand)s is not finished (waiting for its showdown)", hand=cur.number)
        else:
            waiting = Said("hand %(hand)s is not finished (waiting for its decisions and showdown)", hand=cur.number)
        raise RuleViolation("common.hand_in_progress", waiting)
    if state.pending:
        # the same English for one or several players; other languages make the verbs agree
        raise RuleViolation(
            "kabu.insolvent",
            Counted(
                "%(players)s could not pay at hand %(hand)s: buy chips from another player (buy_chips) "
                "or leave the game before the next hand",
                "%(players)s could not pay at hand %(hand)s: buy chips from another player (buy_chips) "
                "or leave the game before the next hand",
                len(state.pending),
                players=Joined([state.players[s] for s in sorted(state.pending)], ", "),
                hand=cur.number if cur else 0,
            ),
        )
    options = state.options
    n = len(state.players)
    dealer_raw = d.get("dealer")
    dealer: Seat | None
    if options.dealerMode == "croupier":
        if dealer_raw is not None:
            raise RuleViolation(
                "kabu.wrong_dealer", Said("a croupier who does not play deals every hand: dealer must be null")
            )
        dealer = None
    else:
        if dealer_raw is None:
            raise RuleViolation(
                "kabu.wrong_dealer", Said("a player deals (dealerMode is not croupier): name the dealer's seat")
            )
        dealer = read_seat(d, len(state.players), "dealer")
        if not state.active[dealer]:
            raise RuleViolation(
                "kabu.wrong_dealer",
                Said("%(player)s has left the game and cannot deal", player=state.players[dealer]),
            )
        if options.dealerMode == "rotate" and cur is not None and cur.dealer is not None:
            nxt = next(s for s in ((cur.dealer + i) % n for i in range(1, n + 1)) if state.active[s])
            if dealer != nxt:
                raise RuleViolation(
                    "kabu.wrong_dealer",
                    Said(
                        "the deal rotates: %(last)s dealt hand %(hand)s, so %(next)s deals now, not %(player)s",
                        last=state.players[cur.dealer],
                        hand=cur.number,
                        next=state.players[nxt],
                        player=state.players[dealer],
                    ),
                )
    order = _order(state, dealer)
    number = 1 if cur is None else cur.number + 1
    past = state.past if cur is None else state.past + (_archived(cur),)
    hands_data, table_data = d.get("hands"), d.get("table")
    if hands_data is None:
        if table_data is not None:
            raise RuleViolation(
                "kabu.bad_deal",
                Said("a hand recorded by its result only has no deal: give hands with the open cards, or neither"),
            )
        hand = Hand(number, event.seq, dealer, order, True, phase="showdown", **_blank(n))
        return state._replace(past=past, current=hand)
    deck = options.cards
    k = options.start_cards
    if not isinstance(hands_data, (list, tuple)) or len(hands_data) != n:
        raise RuleViolation(
            "kabu.bad_deal", Said("hands lists every seat's cards in seat order: %(seats)s entries", seats=n)
        )
    where: dict[Card, Seat] = {}
    dealt: list[tuple[Card | None, ...]] = []
    for s in range(n):
        cards = hands_data[s]
        if not state.active[s]:
            if cards is not None:
                raise RuleViolation(
                    "kabu.bad_deal",
                    Said("%(player)s has left the game: write null for that seat", player=state.players[s]),
                )
            dealt.append(())
            continue
        if not isinstance(cards, (list, tuple)):
            raise RuleViolation(
                "kabu.bad_deal",
                Said(
                    "each player receives %(cards)s cards (start = %(start)s); %(player)s has none",
                    cards=k,
                    start=options.start,
                    player=state.players[s],
                ),
            )
        if len(cards) != k:
            raise RuleViolation(
                "kabu.bad_deal",
                Said(
                    "each player receives %(cards)s cards (start = %(start)s); %(player)s has %(has)s",
                    cards=k,
                    start=options.start,
                    player=state.players[s],
                    has=len(cards),
                ),
            )
        mine: list[Card | None] = []
        for text in cards:
            c = read_card(text, deck, hidden_ok=True)
            if c is not None:
                if c in where:
                    other = where[c]
                    raise RuleViolation(
                        "common.card_duplicate",
                        Said("%(card)s is dealt to %(player)s twice", card=c.pretty(), player=state.players[s])
                        if other == s
                        else Said(
                            "%(card)s is dealt to %(player)s and to %(other)s",
                            card=c.pretty(),
                            player=state.players[other],
                            other=state.players[s],
                        ),
                    )
                where[c] = s
            mine.append(c)
        dealt.append(tuple(mine))
    table: tuple[Card, ...] = ()
    if options.openSix:
        if not isinstance(table_data, (list, tuple)) or len(table_data) != OPEN_SIX:
            raise RuleViolation(
                "kabu.bad_deal", Said("with openSix the six open cards are written in table (they are face up)")
            )
        seen: set[Card] = set()
        for text in table_data:
            c = read_card(text, deck)
            assert c is not None
            if c in seen:
                raise RuleViolation(
                    "common.card_duplicate", Said("%(card)s is written twice among the open cards", card=c.pretty())
                )
            seen.add(c)
            if c in where and not (options.choose and options.secondCardFrom == "stock"):
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "%(card)s is dealt to %(player)s and lies face up on the table",
                        card=c.pretty(),
                        player=state.players[where[c]],
                    ),
                )
        table = tuple(read_card(t, deck) for t in table_data)  # type: ignore[misc]
        for s in range(n):
            if dealt[s] and None not in dealt[s] and all(c in seen for c in dealt[s]):
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "every card dealt to %(player)s lies face up on the table, but the card kept never goes back",
                        player=state.players[s],
                    ),
                )
    elif table_data is not None:
        raise RuleViolation("kabu.bad_deal", Said("this match has no open cards (openSix is off): leave table out"))
    known = tuple(frozenset(c for c in dealt[s] if c is not None) for s in range(n))
    unknown = tuple(sum(1 for c in dealt[s] if c is None) for s in range(n))
    located = frozenset(where)
    if not (options.choose and options.secondCardFrom == "stock"):
        located |= frozenset(table)
    hand = Hand(
        number,
        event.seq,
        dealer,
        order,
        False,
        phase="keep" if options.choose else "third",
        dealt=tuple(dealt),
        known=known,
        unknown=unknown,
        kept=(None,) * n,
        kept_card=(None,) * n,
        draws=((None, None),) * n,
        table=table,
        dealt_known=frozenset(where),
        located=located,
    )
    return state._replace(past=past, current=hand)


def _deal(state: State) -> Hand:
    """The hand being played move by move.

    Raises:
        RuleViolation: ``common.match_over``, ``common.no_hand``, ``common.no_deal`` (a result-only
            hand), ``kabu.hand_over``.
    """
    if state.over:
        raise RuleViolation("common.match_over", _over_words(state))
    hand = state.current
    if hand is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if hand.result_only:
        raise RuleViolation(
            "common.no_deal",
            Said("hand %(hand)s is recorded by its result only: moves cannot be recorded in it", hand=hand.number),
        )
    if hand.over:
        raise RuleViolation(
            "kabu.hand_over",
            Said("hand %(hand)s is settled; the next hand starts with hand_started", hand=hand.number),
        )
    return hand


def _not_in_hand(state: State, hand: Hand, seat: Seat) -> Said:
    return Said(
        "%(player)s is not in hand %(hand)s: write null for that seat", player=state.players[seat], hand=hand.number
    )


def _hand_seat(state: State, hand: Hand, data: Mapping[str, Any]) -> Seat:
    seat = read_seat(data, len(state.players))
    if seat not in hand.order:
        raise RuleViolation(
            "common.bad_seat",
            Said("%(player)s is not in hand %(hand)s (left the game)", player=state.players[seat], hand=hand.number),
        )
    return seat


def _on_keep(state: State, event: Event) -> State:
    hand = _deal(state)
    options = state.options
    if not options.choose:
        raise RuleViolation(
            "kabu.no_keep", Said("this match deals two cards directly (start = direct): nobody keeps a card")
        )
    seat = _hand_seat(state, hand, event.data)
    name = state.players[seat]
    if hand.kept[seat] is not None:
        raise RuleViolation(
            "kabu.kept_already",
            Said("%(player)s already kept a card (entry %(entry)s)", player=name, entry=hand.kept[seat]),
        )
    if hand.phase != "keep":
        raise RuleViolation("kabu.kept_already", Said("every player has kept a card already"))
    turn = hand.turn()
    if seat != turn:
        assert turn is not None
        raise RuleViolation(
            "common.not_your_turn",
            Said(
                "the keeps go in deal order: %(turn)s keeps first, not %(player)s",
                turn=state.players[turn],
                player=name,
            ),
        )
    card = read_card(event.data.get("card"), options.cards, hidden_ok=True)
    mine = hand.dealt[seat]
    dealt, dealt_known = hand.dealt, hand.dealt_known
    if card is None:
        if None not in mine:
            raise RuleViolation(
                "kabu.name_keep",
                Said(
                    "the record knows %(player)s's %(count)s cards (%(cards)s): name the card kept, not ??",
                    player=name,
                    count=len(mine),
                    cards=pretty(mine),
                ),
            )
        known: frozenset[Card] = frozenset()
        unknown = 1
    else:
        if options.openSix and card in hand.table:
            raise RuleViolation(
                "common.card_unavailable",
                Said("%(player)s cannot keep %(card)s: it lies face up on the table", player=name, card=card.pretty()),
            )
        if card not in mine:
            if None not in mine:
                raise RuleViolation(
                    "common.card_unavailable",
                    Said(
                        "%(player)s was dealt %(cards)s: %(card)s is not among them",
                        player=name,
                        cards=pretty(mine),
                        card=card.pretty(),
                    ),
                )
            if card in dealt_known:
                raise RuleViolation(
                    "common.card_unavailable",
                    Said(
                        "%(player)s cannot keep %(card)s: it is %(where)s",
                        player=name,
                        card=card.pretty(),
                        where=_where(state, hand, card),
                    ),
                )
            i = mine.index(None)
            dealt = set_item(dealt, seat, mine[:i] + (card,) + mine[i + 1 :])
            dealt_known = dealt_known | {card}
        known, unknown = frozenset({card}), 0
    returned = frozenset(c for c in mine if c is not None) - known
    new = hand._replace(
        dealt=dealt,
        dealt_known=dealt_known,
        known=set_item(hand.known, seat, known),
        unknown=set_item(hand.unknown, seat, unknown),
        kept=set_item(hand.kept, seat, event.seq),
        kept_card=set_item(hand.kept_card, seat, card),
        located=(hand.located - returned) | known,
    )
    if new.turn() is None:  # the last keep: everyone receives a second, unknown card
        located = frozenset(c for s in new.order for c in new.known[s]) | frozenset(new.table)
        unknowns = list(new.unknown)
        for s in new.order:
            unknowns[s] += 1
        new = new._replace(phase="third", unknown=tuple(unknowns), located=located)
    return state._replace(current=new)


def _on_decision(state: State, event: Event) -> State:
    hand = _deal(state)
    kind = event.type
    seat = _hand_seat(state, hand, event.data)
    name = state.players[seat]
    if hand.phase == "keep":
        turn = hand.turn()
        assert turn is not None
        raise RuleViolation(
            "kabu.keep_first",
            Said("the keeps come first: %(player)s has not kept a card yet", player=state.players[turn]),
        )
    third, fourth = hand.draws[seat]
    if "stand" in (third, fourth):
        if kind == "take":
            raise RuleViolation(
                "kabu.stood",
                Said(
                    "%(player)s stood with %(cards)s cards and can never draw again", player=name, cards=hand.size(seat)
                ),
            )
        raise RuleViolation("kabu.stood", Said("%(player)s stood already and is not asked again", player=name))
    if kind == "take" and hand.size(seat) >= MAX_CARDS:
        raise RuleViolation(
            "kabu.max_cards",
            Said(
                "%(player)s holds %(cards)s cards: the fourth card is the last, there is no fifth",
                player=name,
                cards=hand.size(seat),
            ),
        )
    if hand.phase == "showdown":
        raise RuleViolation("kabu.decisions_over", Said("every player has decided: the showdown comes next"))
    turn = hand.turn()
    assert turn is not None
    if seat != turn:
        raise RuleViolation(
            "common.not_your_turn",
            Said("%(turn)s decides on a third card now, not %(player)s", turn=state.players[turn], player=name)
            if hand.phase == "third"
            else Said("%(turn)s decides on a fourth card now, not %(player)s", turn=state.players[turn], player=name),
        )
    i = 0 if hand.phase == "third" else 1
    draws = set_item(hand.draws, seat, (kind, fourth) if i == 0 else (third, kind))
    new = hand._replace(draws=draws)
    if new.turn() is None:  # the round is over: the dealer serves every player who asked, in deal order
        takers = [s for s in new.order if new.draws[s][i] == "take"]
        unknowns = list(new.unknown)
        for s in takers:
            unknowns[s] += 1
        phase: Phase = "fourth" if i == 0 and takers else "showdown"
        new = new._replace(unknown=tuple(unknowns), phase=phase)
    return state._replace(current=new)


def _final_cards(state: State, raw: object, field: str, *, counts: Hand | None) -> tuple[tuple[Card, ...] | None, ...]:
    """Read per-seat final cards (showdown or result): 2-4 known cards a seat in the hand, null for others.

    Raises:
        RuleViolation: ``kabu.hand_size``, ``kabu.bad_result``, card codes, ``common.card_duplicate``.
    """
    n = len(state.players)
    hand = state.current
    assert hand is not None
    if not isinstance(raw, (list, tuple)) or len(raw) != n:
        raise RuleViolation(
            "kabu.bad_result",
            Said("%(field)s lists every seat's cards in seat order: %(seats)s entries", field=field, seats=n),
        )
    out: list[tuple[Card, ...] | None] = []
    where: dict[Card, Seat] = {}
    for s in range(n):
        cards = raw[s]
        if s not in hand.order:
            if cards is not None:
                raise RuleViolation("kabu.bad_result", _not_in_hand(state, hand, s))
            out.append(None)
            continue
        if not isinstance(cards, (list, tuple)):
            raise RuleViolation(
                "kabu.bad_result", Said("%(player)s is in the hand: write the cards shown", player=state.players[s])
            )
        want = counts.size(s) if counts is not None else None
        if want is not None and len(cards) != want:
            takes = counts.takes(s) if counts is not None else 0
            parts = {"player": state.players[s], "cards": want, "shown": len(cards)}
            if takes == 0:
                held = Said("%(player)s holds %(cards)s cards (two cards, no draw), not %(shown)s", **parts)
            elif takes == 1:
                held = Said("%(player)s holds %(cards)s cards (two cards and a third), not %(shown)s", **parts)
            else:
                held = Said(
                    "%(player)s holds %(cards)s cards (two cards, a third and a fourth), not %(shown)s", **parts
                )
            raise RuleViolation("kabu.hand_size", held)
        if not 2 <= len(cards) <= MAX_CARDS:
            raise RuleViolation(
                "kabu.hand_size",
                Said(
                    "a hand ends with 2 to 4 cards; %(player)s has %(shown)s", player=state.players[s], shown=len(cards)
                ),
            )
        mine = []
        for text in cards:
            c = read_card(text, state.options.cards)
            assert c is not None
            if c in where:
                other = where[c]
                raise RuleViolation(
                    "common.card_duplicate",
                    Said("%(card)s is shown by %(player)s twice", card=c.pretty(), player=state.players[s])
                    if other == s
                    else Said(
                        "%(card)s is shown by %(player)s and by %(other)s",
                        card=c.pretty(),
                        player=state.players[other],
                        other=state.players[s],
                    ),
                )
            where[c] = s
            mine.append(c)
        out.append(tuple(mine))
    return tuple(out)


def _settle(state: State, hand: Hand, values: tuple[int | None, ...], seq: int) -> State:
    """Settle a hand that just ended and decide whether the match ends."""
    st = settle(values, state.chips, state.options)
    hand = hand._replace(values=values, phase="over", ended_seq=seq)
    new = state._replace(current=hand, chips=st.after, settled=state.settled + (st,), adjusts=state.adjusts + ((),))
    if st.insolvent:
        if state.options.end == "insolvency":
            return new._replace(over=True, end_seq=seq, end_kind="insolvency")
        return new._replace(pending=frozenset(st.insolvent))
    return new


def _on_showdown(state: State, event: Event) -> State:
    hand = _deal(state)
    if hand.phase != "showdown":
        turn = hand.turn()
        assert turn is not None
        if hand.phase == "keep":
            pending = Said(
                "%(player)s has not kept a card yet: the showdown comes after every decision",
                player=state.players[turn],
            )
        elif hand.phase == "third":
            pending = Said(
                "%(player)s has not decided on a third card yet: the showdown comes after every decision",
                player=state.players[turn],
            )
        else:
            pending = Said(
                "%(player)s has not decided on a fourth card yet: the showdown comes after every decision",
                player=state.players[turn],
            )
        raise RuleViolation("kabu.decisions_pending", pending)
    final = _final_cards(state, event.data.get("hands"), "hands", counts=hand)
    for s in hand.order:
        cards = final[s]
        assert cards is not None
        for c in cards:
            if c in hand.table:
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "%(card)s lies face up on the table: %(player)s cannot hold it",
                        card=c.pretty(),
                        player=state.players[s],
                    ),
                )
            if c not in hand.known[s] and c in hand.located:
                raise RuleViolation(
                    "common.card_duplicate",
                    Said(
                        "%(card)s is %(where)s, not in %(player)s's",
                        card=c.pretty(),
                        where=_where(state, hand, c),
                        player=state.players[s],
                    ),
                )
        lost = hand.known[s] - set(cards)
        if lost:
            raise RuleViolation(
                "kabu.mismatch",
                Said(
                    "hands: the record puts %(cards)s in %(player)s's hand, but %(player)s shows %(shown)s",
                    cards=pretty(sorted_cards(lost)),
                    player=state.players[s],
                    shown=pretty(cards),
                ),
            )
    bound = hand._replace(
        known=tuple(frozenset(final[s]) if s in hand.order else hand.known[s] for s in range(len(state.players))),  # type: ignore[arg-type]
        unknown=(0,) * len(state.players),
    )
    for s in hand.order:
        _check_keep(state, bound, s)
    values = tuple(hand_value(final[s]) if final[s] is not None else None for s in range(len(state.players)))  # type: ignore[arg-type]
    bound = bound._replace(
        final=final, located=frozenset(c for cards in final if cards for c in cards) | frozenset(hand.table)
    )
    return _settle(state, bound, values, event.seq)


# --------------------------------------------------------------------------- reveal


def _bind(state: State, hand: Hand, seat: Seat, card: Card) -> Hand:
    """Bind one of ``seat``'s unknown cards to ``card`` (a reveal {seat, card}).

    Raises:
        RuleViolation: ``common.bad_reveal``, ``common.card_duplicate``, ``common.card_unavailable``.
    """
    name = state.players[seat]
    options = state.options
    if hand.phase == "keep" and hand.kept[seat] is None:  # one of the first cards, not yet kept
        mine = hand.dealt[seat]
        if None not in mine:
            raise RuleViolation(
                "common.bad_reveal",
                Said("the record knows all of %(player)s's cards already (%(cards)s)", player=name, cards=pretty(mine)),
            )
        if card in hand.dealt_known:
            raise RuleViolation("common.card_duplicate", _cannot_hold(state, hand, name, card))
        if card in hand.table and options.secondCardFrom == "returned":
            raise RuleViolation(
                "common.card_duplicate",
                Said("%(player)s cannot hold %(card)s: it lies face up on the table", player=name, card=card.pretty()),
            )
        i = mine.index(None)
        return hand._replace(
            dealt=set_item(hand.dealt, seat, mine[:i] + (card,) + mine[i + 1 :]),
            dealt_known=hand.dealt_known | {card},
            known=set_item(hand.known, seat, hand.known[seat] | {card}),
            unknown=set_item(hand.unknown, seat, hand.unknown[seat] - 1),
            located=hand.located | {card},
        )
    if hand.unknown[seat] == 0:
        raise RuleViolation(
            "common.bad_reveal",
            Said(
                "%(player)s holds no unknown card (hand: %(cards)s)",
                player=name,
                cards=pretty(sorted_cards(hand.known[seat])),
            ),
        )
    if card in hand.known[seat]:
        raise RuleViolation(
            "common.bad_reveal",
            Said("the record already knows %(player)s holds %(card)s", player=name, card=card.pretty()),
        )
    if card in hand.located:
        raise RuleViolation("common.card_duplicate", _cannot_hold(state, hand, name, card))
    new = hand._replace(
        known=set_item(hand.known, seat, hand.known[seat] | {card}),
        unknown=set_item(hand.unknown, seat, hand.unknown[seat] - 1),
        located=hand.located | {card},
    )
    _check_keep(state, new, seat)
    return new


def _cannot_hold(state: State, hand: Hand, name: str, card: Card) -> Said:
    return Said(
        "%(player)s cannot hold %(card)s: it is %(where)s",
        player=name,
        card=card.pretty(),
        where=_where(state, hand, card),
    )


def _reveal_keep(state: State, hand: Hand, binding: Mapping[str, Any], card: Card) -> Hand:
    seq = binding.get("seq")
    if binding.get("index") is not None:
        raise RuleViolation("common.bad_reveal", Said("a keep holds a single card: omit index"))
    seat = next((s for s in hand.order if hand.kept[s] == seq), None)
    if seat is None:
        raise RuleViolation(
            "common.bad_reveal", Said("entry %(entry)s is not a keep of hand %(hand)s", entry=seq, hand=hand.number)
        )
    name = state.players[seat]
    kept = hand.kept_card[seat]
    if kept is not None:
        raise RuleViolation(
            "common.bad_reveal",
            Said(
                "the card %(player)s kept at entry %(entry)s is known already: %(card)s",
                player=name,
                entry=seq,
                card=kept.pretty(),
            ),
        )
    if not possible_keep(hand, state.options, seat, card):
        raise RuleViolation(
            "common.card_unavailable",
            Said(
                "%(player)s kept one of the cards first dealt to %(player)s (%(dealt)s): %(card)s cannot be it "
                "(%(where)s)",
                player=name,
                dealt=pretty(hand.dealt[seat]),
                card=card.pretty(),
                where=_where(state, hand, card),
            ),
        )
    if card not in hand.known[seat]:
        if card in hand.located:
            raise RuleViolation("common.card_duplicate", _cannot_hold(state, hand, name, card))
        if hand.unknown[seat] == 0:
            raise RuleViolation(
                "common.card_unavailable",
                Said(
                    "%(player)s's hand is known (%(cards)s): it holds no %(card)s",
                    player=name,
                    cards=pretty(sorted_cards(hand.known[seat])),
                    card=card.pretty(),
                ),
            )
        hand = hand._replace(
            known=set_item(hand.known, seat, hand.known[seat] | {card}),
            unknown=set_item(hand.unknown, seat, hand.unknown[seat] - 1),
            located=hand.located | {card},
        )
    mine = hand.dealt[seat]
    if card not in mine:
        i = mine.index(None)
        hand = hand._replace(
            dealt=set_item(hand.dealt, seat, mine[:i] + (card,) + mine[i + 1 :]), dealt_known=hand.dealt_known | {card}
        )
    return hand._replace(kept_card=set_item(hand.kept_card, seat, card))


def _on_reveal(state: State, event: Event) -> State:
    bindings = event.data.get("cards")
    if not isinstance(bindings, (list, tuple)) or not bindings:
        raise RuleViolation("common.bad_reveal", Said("a reveal lists one or more cards"))
    if state.current is None or state.current.result_only or state.current.over:
        raise RuleViolation(
            "common.bad_reveal",
            Said("no hand is being played: every card of a settled hand was shown at its showdown"),
        )
    hand = state.current
    for b in bindings:
        if not isinstance(b, Mapping):
            raise RuleViolation("common.bad_reveal", Said("%(value)s is not a binding", value=as_written(b)))
        if b.get("card") == UNKNOWN:
            continue  # withheld from this reader (an open read of a match in play): binds nothing
        card = read_card(b.get("card"), state.options.cards)
        assert card is not None
        if "slot" in b:
            raise RuleViolation(
                "common.bad_reveal", Said("slots are Cabo's: Kabú reveals {seat, card} or {seq, card} (a keep)")
            )
        if "seq" in b and "seat" not in b:
            hand = _reveal_keep(state, hand, b, card)
        elif "seat" in b and "seq" not in b:
            seat = _hand_seat(state, hand, b)
            hand = _bind(state, hand, seat, card)
        else:
            raise RuleViolation(
                "common.bad_reveal", Said("a binding is {seat, card} (a hand card) or {seq, card} (a kept card)")
            )
    return state._replace(current=hand)


# --------------------------------------------------------------------------- hand_result


def _parse_result(
    state: State, d: Mapping[str, Any]
) -> tuple[tuple[tuple[Card, ...] | None, ...] | None, tuple[int | None, ...]]:
    """Check a ``hand_result``'s facts on their own: counts, the deck, values 0-9.

    Raises:
        RuleViolation: ``kabu.bad_result``, ``kabu.hand_size``, card codes, ``kabu.mismatch``.
    """
    hand = state.current
    assert hand is not None
    n = len(state.players)
    if d.get("hands") is None and d.get("values") is None:
        raise RuleViolation("kabu.bad_result", Said("a hand result gives hands (each seat's final cards) or values"))
    final = None
    if d.get("hands") is not None:
        final = _final_cards(state, d["hands"], "hands", counts=None)
    values: tuple[int | None, ...]
    if final is not None:
        values = tuple(hand_value(c) if c is not None else None for c in final)
    if d.get("values") is not None:
        raw = d["values"]
        if not isinstance(raw, (list, tuple)) or len(raw) != n:
            raise RuleViolation(
                "kabu.bad_result", Said("values lists every seat's value in seat order: %(seats)s entries", seats=n)
            )
        vals: list[int | None] = []
        for s in range(n):
            v = raw[s]
            if s not in hand.order:
                if v is not None:
                    raise RuleViolation("kabu.bad_result", _not_in_hand(state, hand, s))
                vals.append(None)
                continue
            if not is_int(v) or not 0 <= v <= 9:
                raise RuleViolation(
                    "kabu.bad_result",
                    Said(
                        "a hand's value is a digit from 0 to 9; %(player)s's is %(value)s",
                        player=state.players[s],
                        value=as_written(v),
                    ),
                )
            vals.append(int(v))
        if final is not None:
            for s in hand.order:
                if vals[s] != values[s]:
                    raise RuleViolation(
                        "kabu.mismatch",
                        Said(
                            "values: %(player)s's cards %(cards)s are worth %(value)s, not %(written)s",
                            player=state.players[s],
                            cards=pretty(final[s] or ()),
                            value=values[s],
                            written=vals[s],
                        ),
                    )
        values = tuple(vals)
    return final, values


def _size_bounds(hand: Hand, seat: Seat) -> tuple[int, int]:
    """How many cards ``seat`` can end the hand with, given the decisions recorded so far."""
    low = 2 + hand.takes(seat)
    third, fourth = hand.draws[seat]
    done = hand.phase == "showdown" or "stand" in (third, fourth) or fourth == "take"
    return low, (low if done else MAX_CARDS)


def _fixed(hand: Hand, seat: Seat) -> frozenset[Card]:
    """The cards ``seat`` certainly ends with: what the record knows it holds (before its keep: none)."""
    if hand.phase == "keep" and hand.kept[seat] is None:
        return frozenset()
    return hand.known[seat]


def _reachable_values(pool: list[int], fixed_sum: int, counts: range) -> set[int]:
    """The values (sum mod 10) ``fixed_sum`` plus ``k`` cards of ``pool`` can make, for ``k`` in ``counts``."""
    most = max(counts, default=0)
    sums: list[set[int]] = [{0}] + [set() for _ in range(most)]
    for v in pool:
        for k in range(most, 0, -1):
            sums[k] |= {(x + v) % 10 for x in sums[k - 1]}
    return {(fixed_sum + x) % 10 for k in counts for x in sums[k]}


def _check_reachable(
    state: State, hand: Hand, final: tuple[tuple[Card, ...] | None, ...] | None, values: tuple[int | None, ...]
) -> None:
    """Closing a hand from the sheet: the facts must be reachable from the moves recorded so far.

    Each seat ends with 2 cards plus the ones it asked for (a seat still to decide may end with
    up to four), holding every card the record puts in its hand and no open card or card the
    record places in another seat's hand; a seat that kept a card it did not name still holds
    a card it can have kept. A value alone must be a value such cards can make.

    Raises:
        RuleViolation: ``kabu.result_conflict`` naming the conflict.
    """
    options = state.options
    fixed = {s: _fixed(hand, s) for s in hand.order}
    placed = {c: s for s, cards in fixed.items() for c in cards}
    for s in hand.order:
        name = state.players[s]
        low, high = _size_bounds(hand, s)
        mine = fixed[s]
        if final is not None:
            shown = final[s]
            assert shown is not None
            if not low <= len(shown) <= high:
                raise RuleViolation("kabu.result_conflict", _ends_with(name, hand.takes(s), low, high, len(shown)))
            lacking = mine - set(shown)
            if lacking:
                raise RuleViolation(
                    "kabu.result_conflict",
                    Said(
                        "the record puts %(cards)s in %(player)s's hand; the sheet shows %(shown)s",
                        cards=pretty(sorted_cards(lacking)),
                        player=name,
                        shown=pretty(shown),
                    ),
                )
            for c in shown:
                if c in hand.table:
                    raise RuleViolation(
                        "kabu.result_conflict",
                        Said(
                            "%(card)s lies face up on the table: the sheet cannot put it in %(player)s's hand",
                            card=c.pretty(),
                            player=name,
                        ),
                    )
                if placed.get(c, s) != s:
                    raise RuleViolation(
                        "kabu.result_conflict",
                        Said(
                            "the record puts %(card)s in %(other)s's hand; the sheet puts it in %(player)s's",
                            card=c.pretty(),
                            other=state.players[placed[c]],
                            player=name,
                        ),
                    )
            keeping = options.choose and (hand.kept[s] is None or hand.kept_card[s] is None)
            if keeping and not any(possible_keep(hand, options, s, c) for c in shown):
                raise RuleViolation(
                    "kabu.result_conflict",
                    Said(
                        "%(player)s keeps one of the cards first dealt (%(dealt)s); none of %(shown)s can be it",
                        player=name,
                        dealt=pretty(hand.dealt[s]),
                        shown=pretty(shown),
                    ),
                )
            continue
        pool = [card_value(c) for c in options.cards.cards if c not in placed and c not in hand.table]
        can = _reachable_values(
            pool, sum(card_value(c) for c in mine), range(max(low - len(mine), 0), high - len(mine) + 1)
        )
        if values[s] not in can:
            if low == high == len(mine):
                raise RuleViolation(
                    "kabu.result_conflict",
                    Said(
                        "%(player)s holds %(cards)s, value %(value)s; the sheet says %(written)s",
                        player=name,
                        cards=value_words(sorted_cards(mine)),
                        value=hand_value(mine),
                        written=values[s],
                    ),
                )
            parts = {"player": name, "low": low, "high": high, "value": values[s]}
            if mine:
                parts["cards"] = pretty(sorted_cards(mine))
                unmade = (
                    Said(
                        "%(player)s holds %(cards)s and ends with %(low)s cards: no cards left make the value %(value)s",
                        **parts,
                    )
                    if low == high
                    else Said(
                        "%(player)s holds %(cards)s and ends with %(low)s to %(high)s cards: no cards left make the "
                        "value %(value)s",
                        **parts,
                    )
                )
            else:
                unmade = (
                    Said(
                        "%(player)s holds no known card and ends with %(low)s cards: no cards left make the value "
                        "%(value)s",
                        **parts,
                    )
                    if low == high
                    else Said(
                        "%(player)s holds no known card and ends with %(low)s to %(high)s cards: no cards left make "
                        "the value %(value)s",
                        **parts,
                    )
                )
            raise RuleViolation("kabu.result_conflict", unmade)


def _ends_with(name: str, took: int, low: int, high: int, shown: int) -> Said:
    """``name`` ends the hand with ``low`` (to ``high``) cards, having asked for ``took``; the sheet shows ``shown``."""
    parts = {"player": name, "low": low, "high": high, "shown": shown}
    if low == high:
        if took == 0:
            return Said("%(player)s ends the hand with %(low)s cards; the sheet shows %(shown)s", **parts)
        if took == 1:
            return Said(
                "%(player)s ends the hand with %(low)s cards (asked for a third card); the sheet shows %(shown)s",
                **parts,
            )
        return Said(
            "%(player)s ends the hand with %(low)s cards (asked for a third and a fourth card); the sheet shows "
            "%(shown)s",
            **parts,
        )
    if took == 0:
        return Said("%(player)s ends the hand with %(low)s to %(high)s cards; the sheet shows %(shown)s", **parts)
    if took == 1:
        return Said(
            "%(player)s ends the hand with %(low)s to %(high)s cards (asked for a third card); the sheet shows "
            "%(shown)s",
            **parts,
        )
    return Said(
        "%(player)s ends the hand with %(low)s to %(high)s cards (asked for a third and a fourth card); the sheet "
        "shows %(shown)s",
        **parts,
    )


def _on_hand_result(state: State, event: Event) -> State:
    cur = state.current
    if cur is None:
        raise RuleViolation("common.no_hand", Said("no hand has been dealt yet (hand_started first)"))
    if state.over and not cur.over:
        raise RuleViolation("common.match_over", _over_words(state))
    final, values = _parse_result(state, event.data)
    if not cur.result_only and not cur.over:
        _check_reachable(state, cur, final, values)
        return _settle(state, cur._replace(final=final, closed_after=cur.moves), values, event.seq)
    if not cur.over:
        hand = cur._replace(final=final)
        return _settle(state, hand, values, event.seq)
    # a cross-check of the hand just settled: every fact it states must agree
    for s in cur.order:
        if values[s] != cur.values[s]:  # type: ignore[index]
            raise RuleViolation(
                "kabu.mismatch",
                Said(
                    "values: hand %(hand)s gave %(player)s %(value)s, not %(written)s",
                    hand=cur.number,
                    player=state.players[s],
                    value=cur.values[s],  # type: ignore[index]
                    written=values[s],
                ),
            )
        if final is not None and cur.final is not None and set(final[s] or ()) != set(cur.final[s] or ()):
            raise RuleViolation(
                "kabu.mismatch",
                Said(
                    "hands: %(player)s showed %(cards)s at entry %(entry)s, not %(written)s",
                    player=state.players[s],
                    cards=pretty(cur.final[s] or ()),
                    entry=cur.ended_seq,
                    written=pretty(final[s] or ()),
                ),
            )
    if final is not None and cur.final is None:
        return state._replace(current=cur._replace(final=final))
    return state


# --------------------------------------------------------------------------- end = time


BETWEEN_HANDS = ("buy_chips", "leave", "time_up")
"""The moves of the timed game, made between hands."""


def _between_hands(state: State, move: str, *, need_hand: bool = True) -> None:
    """Check that ``move`` (one of :data:`BETWEEN_HANDS`) may be made now: the timed game, between hands.

    Each refusal is a whole sentence per move, so each language words the move its own way.
    """
    buying, leaving = move == "buy_chips", move == "leave"
    if state.options.end != "time":
        raise RuleViolation(
            "kabu.time_only",
            Said("buying chips belongs to the timed game (target end = time); this game ends by insolvency")
            if buying
            else Said("leaving the game belongs to the timed game (target end = time); this game ends by insolvency")
            if leaving
            else Said("time_up belongs to the timed game (target end = time); this game ends by insolvency"),
        )
    if state.over:
        raise RuleViolation("common.match_over", _over_words(state))
    cur = state.current
    if cur is None:
        if need_hand:
            raise RuleViolation(
                "common.no_hand",
                Said("buying chips comes between hands, after a hand is settled")
                if buying
                else Said("leaving the game comes between hands, after a hand is settled"),
            )
        return
    if not cur.over:
        raise RuleViolation(
            "common.hand_in_progress",
            Said("hand %(hand)s is not settled yet: buying chips comes between hands", hand=cur.number)
            if buying
            else Said("hand %(hand)s is not settled yet: leaving the game comes between hands", hand=cur.number)
            if leaving
            else Said("hand %(hand)s is not settled yet: time_up comes between hands", hand=cur.number),
        )


def _add_adjust(state: State, adjust: Adjust) -> History[tuple[Adjust, ...]]:
    return state.adjusts[:-1] + (state.adjusts[-1] + (adjust,),)


def _on_buy_chips(state: State, event: Event) -> State:
    _between_hands(state, "buy_chips")
    d = event.data
    seat, source = read_seat(d, len(state.players)), read_seat(d, len(state.players), "from")
    chips = d.get("chips")
    if seat == source:
        raise RuleViolation(
            "kabu.bad_buy", Said("%(player)s cannot buy chips from himself", player=state.players[seat])
        )
    for s in (seat, source):
        if not state.active[s]:
            raise RuleViolation("kabu.bad_buy", Said("%(player)s has left the game", player=state.players[s]))
    if source in state.pending:
        raise RuleViolation(
            "kabu.bad_buy",
            Said("%(player)s could not pay at the last hand and has no chips to sell", player=state.players[source]),
        )
    if not is_int(chips) or chips < 1:
        raise RuleViolation(
            "kabu.bad_buy",
            Said("chips is a whole number of chips, 1 or more, not %(value)s", value=as_written(chips)),
        )
    if chips > state.chips[source]:
        raise RuleViolation(
            "kabu.not_enough_chips",
            Said(
                "%(player)s holds %(held)s chips and cannot sell %(chips)s",
                player=state.players[source],
                held=state.chips[source],
                chips=chips,
            ),
        )
    stacks = list(state.chips)
    stacks[seat] += chips
    stacks[source] -= chips
    return state._replace(
        chips=tuple(stacks),
        pending=state.pending - {seat},
        adjusts=_add_adjust(state, Adjust(event.seq, "buy", seat, source, int(chips))),
    )


def _on_leave(state: State, event: Event) -> State:
    _between_hands(state, "leave")
    seat = read_seat(event.data, len(state.players))
    if not state.active[seat]:
        raise RuleViolation("kabu.bad_leave", Said("%(player)s has left the game already", player=state.players[seat]))
    active = set_item(state.active, seat, False)
    new = state._replace(
        active=active, pending=state.pending - {seat}, adjusts=_add_adjust(state, Adjust(event.seq, "leave", seat))
    )
    if sum(active) < 2:
        new = new._replace(over=True, end_seq=event.seq, end_kind="alone")
    return new


def _on_time_up(state: State, event: Event) -> State:
    _between_hands(state, "time_up", need_hand=False)
    return state._replace(over=True, end_seq=event.seq, end_kind="time")


_HANDLERS = {
    "hand_started": _on_hand_started,
    "keep": _on_keep,
    "take": _on_decision,
    "stand": _on_decision,
    "showdown": _on_showdown,
    "reveal": _on_reveal,
    "hand_result": _on_hand_result,
    "buy_chips": _on_buy_chips,
    "leave": _on_leave,
    "time_up": _on_time_up,
}
"""The handler of each event type :func:`apply` accepts."""
