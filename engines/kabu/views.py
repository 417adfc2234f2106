"""What Kabú shows: legal moves, per-seat views, the move in words, the game's description.

Views are built apart from the rules: a seat sees the public table (stacks, how many cards
each player holds, the decisions, the open cards once they are face up, every hand after
the showdown) and its own cards; never another seat's hidden cards.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from engines.base import COMMON_EVENTS, Event, voided_seqs
from engines.cards import pretty, texts
from engines.common import options_described, pretty_written, withheld_reveal
from engines.privacy import ACTOR, NOBODY, OWNER, Declarations, Private
from engines.kabu import forms
from engines.kabu.options import OPTIONS
from engines.kabu.rules import END_VALUES
from engines.kabu.scoring import end_words, winners
from engines.kabu.state import DECK_NAMES, GAME, Hand, State, sorted_cards, start_chips
from engines.said import Counted, Joined, Listed, Said

EVENTS = [
    "match_started",
    "hand_started",
    "keep",
    "take",
    "stand",
    "showdown",
    "reveal",
    "hand_result",
    "buy_chips",
    "leave",
    "time_up",
    *COMMON_EVENTS,
]


# --------------------------------------------------------------------------- private fields


def _open_cards_wait(options: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    """Under choose5/3 the open cards are shown only after the last keep."""
    return options.get("start") in ("choose5", "choose3")


def _open_cards_turned_up(options: Mapping[str, Any], data: Mapping[str, Any], later: Sequence[Event]) -> bool:
    """The open cards are face up once every seat dealt in has kept its card (docs/RULES.md §2.2).

    Read off the events after the deal, up to the next deal: a keep voided since does not count.
    """
    dealt = sum(1 for hand in data.get("hands") or () if hand is not None)
    voided = voided_seqs(later)
    keeps = 0
    for event in later:
        if event.seq in voided:
            continue
        if event.type == "hand_started":
            break
        keeps += event.type == "keep"
    return dealt > 0 and keeps >= dealt


def _dealt_all_shown(options: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    """Whether the end of the hand shows every dealt card: not under choose5/3, where each seat
    keeps one card and gives the rest back unseen (docs/RULES.md §2.2); the kept card is shown
    through its ``keep``, the returned ones never, so they stay private until the match ends."""
    return options.get("start") not in ("choose5", "choose3")


PRIVATE: Declarations = {
    # Shown at the end of the hand (the hands are shown before paying), but for the cards
    # given back under choose5/3, which the rules never show.
    "hand_started": (
        Private(("hands", "*"), OWNER, at_hand_end=_dealt_all_shown),
        Private(("table",), NOBODY, "keep", _open_cards_wait, _open_cards_turned_up),
    ),
    "keep": (Private(("card",), ACTOR),),
    # A card a hand or a kept card still hides; under choose5/3 it may name a card given back.
    "reveal": (Private(("cards", "*", "card"), NOBODY, at_hand_end=_dealt_all_shown),),
    **{
        t: ()
        for t in (
            "match_started",
            "take",
            "stand",
            "showdown",
            "hand_result",
            "buy_chips",
            "leave",
            "time_up",
            *COMMON_EVENTS,
        )
    },
}
"""Which fields of each event type only some seats saw (engines/privacy.py reads it)."""


def describe() -> dict[str, Any]:
    """Describe the game for ``GET /games/kabu``: players, deck, options, target, events."""
    return {
        "game": GAME,
        "name": "Kabú",
        "deck": DECK_NAMES["french40"],
        "decks": dict(DECK_NAMES),
        "players": {"min": 2, "max": 10, "defaultMax": 6},
        "direction": "ACW",
        "teams": None,
        "target": {
            "end": {
                "values": list(END_VALUES),
                "default": "insolvency",
                "rule": "/rules/kabu#option-end",
                "description": Said(
                    "the game ends when a player cannot pay what he owes (insolvency), or at an "
                    "agreed time, insolvent players buying chips or leaving (time)"
                ),
            }
        },
        "initial": {"chips": Said("one stack per player; default 10 + 15·N each (ten 1s, N 5s and N 10s)")},
        "options": options_described(OPTIONS),
        "cards": forms.CARDS,
        "cardsByOption": forms.CARDS_BY_OPTION,
        "forms": forms.FORMS,
        "events": list(EVENTS),
    }


# --------------------------------------------------------------------------- legal moves


def _next_dealer(state: State, hand: Hand | None) -> dict[str, Any]:
    options = state.options
    if options.dealerMode == "croupier":
        return {"dealer": None}
    if options.dealerMode == "rotate" and hand is not None and hand.dealer is not None:
        n = len(state.players)
        return {"dealer": next(s for s in ((hand.dealer + i) % n for i in range(1, n + 1)) if state.active[s])}
    return {}


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Return the event templates that may be recorded next (``[]`` once the match is over).

    Keeps name the cards when the record knows them; decisions are complete; the showdown is
    complete when every card is known; last, a ``hand_result`` template (closing the hand from
    the score sheet). Between hands: the next ``hand_started`` (dealer fixed when derived), a
    ``hand_result`` cross-check of the hand just settled, and under ``end = time`` the buys,
    departures and ``time_up``.
    """
    if state.over:
        return []
    hand = state.current
    timed = state.options.end == "time"
    if hand is None:
        moves = [{"type": "hand_started", "data": _next_dealer(state, None)}]
        return moves + ([{"type": "time_up", "data": {}}] if timed else [])
    if hand.result_only and not hand.over:
        return [{"type": "hand_result", "data": {}}]
    if hand.over:
        moves = []
        if state.pending:
            for s in sorted(state.pending):
                moves += [{"type": "buy_chips", "data": {"seat": s}}, {"type": "leave", "data": {"seat": s}}]
        else:
            moves.append({"type": "hand_started", "data": _next_dealer(state, hand)})
            check: dict[str, Any] = {"values": list(hand.values or ())}
            if hand.final is not None:
                check["hands"] = [None if c is None else texts(c) for c in hand.final]
            moves.append({"type": "hand_result", "data": check})
            if timed:
                moves.append({"type": "buy_chips", "data": {}})
                moves += [{"type": "leave", "data": {"seat": s}} for s in state.in_game()]
        if timed:
            moves.append({"type": "time_up", "data": {}})
        return moves
    return _hand_moves(state, hand) + [{"type": "hand_result", "data": {}}]


def _hand_moves(state: State, hand: Hand) -> list[dict[str, Any]]:
    """The keeps, decisions or showdown a hand in play waits for."""
    turn = hand.turn()
    if hand.phase == "keep":
        assert turn is not None
        mine = hand.dealt[turn]
        barred = set(hand.table) if state.options.openSix else set()
        moves = [
            {"type": "keep", "data": {"seat": turn, "card": str(c)}} for c in mine if c is not None and c not in barred
        ]
        if None in mine:
            moves.append({"type": "keep", "data": {"seat": turn, "card": "??"}})
        return moves
    if hand.phase in ("third", "fourth"):
        assert turn is not None
        return [{"type": "take", "data": {"seat": turn}}, {"type": "stand", "data": {"seat": turn}}]
    if any(hand.unknown):
        return [{"type": "showdown", "data": {}}]
    shown = [texts(sorted_cards(hand.known[s])) if s in hand.order else None for s in state.seats]
    return [{"type": "showdown", "data": {"hands": shown}}]


# --------------------------------------------------------------------------- views


def _own_cards(hand: Hand, seat: int) -> list[str]:
    if hand.phase == "keep" and hand.kept[seat] is None:
        return texts(hand.dealt[seat])
    return texts(sorted_cards(hand.known[seat])) + ["??"] * hand.unknown[seat]


def view(state: State, seat: int | str | None = None) -> dict[str, Any]:
    """Return the state as ``seat`` sees it: None the public view, ``"all"`` everything recorded.

    A seat sees the stacks, how many cards each player holds and every decision, the open
    cards once they lie face up (in ``choose5/3`` after the last keep), its own cards and the
    card it kept; every hand once shown. Never another seat's hidden cards.

    Raises:
        ValueError: ``seat`` is not None, ``"all"`` or a seat number.
    """
    n = len(state.players)
    if not (seat is None or seat == "all" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n)):
        raise ValueError(f"seat must be None, 'all' or 0-{n - 1}, not {seat!r}")
    out: dict[str, Any] = {
        "game": GAME,
        "players": list(state.players),
        "viewer": seat,
        "deck": state.options.deck,
        "chips": list(state.chips),
        "inGame": list(state.active),
        "mustBuyOrLeave": sorted(state.pending),
        "hand": 0,
        "over": state.over,
    }
    if state.over:
        out["winners"] = winners(state)
    hand = state.current
    if hand is None:
        return out
    everything = seat == "all"
    out.update(
        {
            "hand": hand.number,
            "dealer": hand.dealer,
            "order": list(hand.order),
            "resultOnly": hand.result_only,
            "phase": "over" if hand.over else ("result" if hand.result_only else hand.phase),
            "turn": hand.turn(),
        }
    )
    if hand.result_only:
        if hand.over:
            out["values"] = list(hand.values or ())
            out["shown"] = None if hand.final is None else [None if c is None else texts(c) for c in hand.final]
        return out
    face_up = not state.options.choose or hand.phase != "keep"
    out["table"] = texts(hand.table) if (face_up or everything) else ["??"] * len(hand.table)
    seats = []
    for s in state.seats:
        entry: dict[str, Any] = {"seat": s, "name": state.players[s], "inHand": s in hand.order}
        if s in hand.order:
            entry["cards"] = len(hand.dealt[s]) if hand.phase == "keep" and hand.kept[s] is None else hand.size(s)
            if state.options.choose:
                entry["kept"] = hand.kept[s] is not None
            entry["third"], entry["fourth"] = hand.draws[s]
            if everything and not hand.over:
                entry["hand"] = _own_cards(hand, s)
                if state.options.choose:
                    entry["dealt"] = texts(hand.dealt[s])
                    entry["keptCard"] = None if hand.kept_card[s] is None else str(hand.kept_card[s])
        seats.append(entry)
    out["seats"] = seats
    if hand.over:
        out["values"] = list(hand.values or ())
        out["shown"] = [None if c is None else texts(c) for c in (hand.final or ())]
    elif isinstance(seat, int) and seat in hand.order:
        out["cards"] = _own_cards(hand, seat)
        if state.options.choose and hand.kept[seat] is not None:
            out["kept"] = None if hand.kept_card[seat] is None else str(hand.kept_card[seat])
    return out


# --------------------------------------------------------------------------- narration


def _settlement_words(state: State) -> Joined:
    """The hand just settled, said clause by clause: each value, the nets, the stacks, who could not pay, the end."""
    st = state.settled[-1]
    hand = state.current
    assert hand is not None
    players = state.players
    seats = [s for s in state.seats if st.values[s] is not None]
    clauses: list[object] = [
        Joined(
            [
                Joined([players[s], pretty(hand.final[s] or ()), f"({st.values[s]})"], " ")
                if hand.final is not None
                else Joined([players[s], f"({st.values[s]})"], " ")
                for s in seats
            ],
            "; ",
        ),
        Said(
            "net %(nets)s",
            nets=Joined([Joined([players[s], f"{st.net[s]:+d}" if st.net[s] else "0"], " ") for s in seats], ", "),
        ),
        Said("chips %(chips)s", chips=Joined([st.after[s] for s in seats], ", ")),
    ]
    if st.insolvent:
        who = Listed(players[s] for s in sorted(st.insolvent))
        if state.options.end == "time" and not state.over:
            clauses.append(
                Counted(
                    "%(players)s cannot pay all he owes and pays nobody and must buy chips or leave before the next hand",
                    "%(players)s cannot pay all they owe and pay nobody and must buy chips or leave before the next hand",
                    len(st.insolvent),
                    players=who,
                )
            )
        else:
            clauses.append(
                Counted(
                    "%(players)s cannot pay all he owes and pays nobody",
                    "%(players)s cannot pay all they owe and pay nobody",
                    len(st.insolvent),
                    players=who,
                )
            )
    if state.over:
        clauses.append(end_words(state))
    return Joined(clauses, "; ")


def _hand_started_words(state: State, hand: Hand) -> Said:
    """A hand dealt: by whom, how many cards each, what lies on the table, who speaks first."""
    players = state.players
    options = state.options
    dealer = Said("the croupier") if hand.dealer is None else players[hand.dealer]
    if hand.result_only:
        return Said(
            "Hand %(hand)s: %(dealer)s deals; the hand is recorded by its result only", hand=hand.number, dealer=dealer
        )
    first = players[hand.order[0]]
    if not options.choose:
        if options.openSix:
            return Said(
                "Hand %(hand)s: %(dealer)s lays out six open cards (%(cards)s) and deals two cards to each player; "
                "%(first)s decides first",
                hand=hand.number,
                dealer=dealer,
                cards=pretty(hand.table),
                first=first,
            )
        return Said(
            "Hand %(hand)s: %(dealer)s deals two cards to each player; %(first)s decides first",
            hand=hand.number,
            dealer=dealer,
            first=first,
        )
    if options.start_cards == 5:
        return Said(
            "Hand %(hand)s: %(dealer)s deals five cards to each player; each keeps one and returns four; "
            "%(first)s keeps first",
            hand=hand.number,
            dealer=dealer,
            first=first,
        )
    return Said(
        "Hand %(hand)s: %(dealer)s deals three cards to each player; each keeps one and returns two; "
        "%(first)s keeps first",
        hand=hand.number,
        dealer=dealer,
        first=first,
    )


def _keep_words(state: State, hand: Hand, name: str) -> Said | Joined:
    """A keep; after the last one, the returned cards shuffled and a new card dealt to each."""
    options = state.options
    kept = Said("%(player)s keeps one card and returns %(returned)s", player=name, returned=options.start_cards - 1)
    if hand.phase == "keep":
        return kept
    returned = (options.start_cards - 1) * len(hand.order)
    stock = options.secondCardFrom == "stock"
    if options.openSix:
        dealt = (
            Said(
                "the dealer shuffles the %(returned)s returned cards into the stock, lays out six open cards "
                "(%(cards)s) and deals each player a new card",
                returned=returned,
                cards=pretty(hand.table),
            )
            if stock
            else Said(
                "the dealer shuffles the %(returned)s returned cards, lays out six open cards (%(cards)s) and deals "
                "each player a new card",
                returned=returned,
                cards=pretty(hand.table),
            )
        )
    elif stock:
        dealt = Said(
            "the dealer shuffles the %(returned)s returned cards into the stock and deals each player a new card",
            returned=returned,
        )
    else:
        dealt = Said(
            "the dealer shuffles the %(returned)s returned cards and deals each player a new card", returned=returned
        )
    return Joined([kept, dealt], "; ")


def _asks(name: str, ordinal: int) -> Said:
    """``name`` asks for the ``ordinal``-th card: a third or a fourth (a fourth is the last)."""
    if ordinal == 3:
        return Said("%(player)s asks for a third card", player=name)
    if ordinal == 4:
        return Said("%(player)s asks for a fourth card", player=name)
    return Said("%(player)s asks for a further card", player=name)


def _stands(name: str, size: int) -> Said:
    """``name`` stands with ``size`` cards: two, or three after taking a third (a fourth card ends the asking)."""
    if size == 2:
        return Said("%(player)s stands with two cards", player=name)
    if size == 3:
        return Said("%(player)s stands with three cards", player=name)
    return Said("%(player)s stands with %(cards)s cards", player=name, cards=size)


def _round_over_words(state: State, before: Hand, hand: Hand) -> list[Said]:
    """A round of decisions over: the dealer serves those who asked; the fourth-card round, or the showdown.

    After the third-card round with takers the fourth-card round follows; any other round's end
    (nobody asked, or the fourth cards served) leads to the showdown."""
    players = state.players
    third = before.phase == "third"
    takers = [s for s in hand.order if hand.draws[s][0 if third else 1] == "take"]
    if takers:
        served = Listed(players[s] for s in takers)
        if not third:
            return [Said("the dealer serves %(players)s a fourth card: showdown next", players=served)]
        said = [Said("the dealer serves %(players)s a third card", players=served)]
        nxt = hand.turn()
        if hand.phase == "fourth" and nxt is not None:
            said.append(Said("%(player)s decides on a fourth card", player=players[nxt]))
        return said
    if third:
        return [Said("nobody asked for a third card: showdown next")]
    return [Said("nobody asked for a fourth card: showdown next")]


def narrate(before: State | None, event: Event, after: State) -> str:
    """Tell the move in words: ``P2 asks for a third card``, the cards served, the showdown and its payments.

    The words hold only what the whole table saw: a keep or a card dealt face down is counted,
    never named (a ``reveal`` names what it reveals, as its event does). Every sentence is a
    message id with named parts (:mod:`engines.said`), so each language says it in its order.
    """
    d = event.data
    players = after.players
    hand = after.current
    prev = before.current if before is not None else None
    seat = d.get("seat")
    name = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"
    match event.type:
        case "match_started":
            n = len(players)
            how = (
                Said("the game ends when a player cannot pay what he owes")
                if after.options.end == "insolvency"
                else Said("play until the agreed time")
            )
            stacks = (
                Said("%(chips)s chips each (ten 1s, %(n)s 5s and %(n)s 10s)", chips=after.chips[0], n=n)
                if not after.carried and after.chips[0] == start_chips(n)
                else Said("chips %(chips)s", chips=Joined(after.chips, ", "))
            )
            return Said(
                "Kabú: %(players)s; %(stacks)s; %(deck)s; %(end)s",
                players=Listed(players),
                stacks=stacks,
                deck=DECK_NAMES[after.options.deck],
                end=how,
            )
        case "hand_started":
            assert hand is not None
            return _hand_started_words(after, hand)
        case "keep":
            assert hand is not None and prev is not None
            return _keep_words(after, hand, name)
        case "take" | "stand":
            assert hand is not None and prev is not None
            size = prev.size(seat) if isinstance(seat, int) else 2
            said = _asks(name, size + 1) if event.type == "take" else _stands(name, size)
            if prev.phase == hand.phase:
                return said
            return Joined([said, *_round_over_words(after, prev, hand)], "; ")
        case "showdown":
            return Said("Showdown: %(settlement)s", settlement=_settlement_words(after))
        case "reveal":
            withheld = withheld_reveal(d.get("cards", []))
            if withheld:
                return withheld
            parts = []
            for b in d.get("cards", []):
                text = pretty_written([b.get("card")], after.options.reader)
                if "seq" in b:
                    parts.append(Said("the card kept at entry %(entry)s is %(card)s", entry=b["seq"], card=text))
                else:
                    who = b.get("seat")
                    holder = players[who] if isinstance(who, int) and 0 <= who < len(players) else "?"
                    parts.append(Said("%(player)s holds %(card)s", player=holder, card=text))
            return Said("Revealed: %(cards)s", cards=Joined(parts, "; "))
        case "hand_result":
            assert hand is not None
            if prev is not None and not prev.over:
                if hand.closed_after is not None:
                    return Said(
                        "Hand %(hand)s closed from the score sheet after move %(moves)s: %(settlement)s",
                        hand=hand.number,
                        moves=hand.closed_after,
                        settlement=_settlement_words(after),
                    )
                return Said(
                    "Hand %(hand)s result: %(settlement)s", hand=hand.number, settlement=_settlement_words(after)
                )
            return Said("The table's result for hand %(hand)s agrees with the record", hand=hand.number)
        case "buy_chips":
            src = d.get("from")
            other = players[src] if isinstance(src, int) and 0 <= src < len(players) else "?"
            return Said(
                "%(player)s buys %(chips)s chips from %(other)s (chips move, not winnings): "
                "%(player)s %(player_chips)s, %(other)s %(other_chips)s",
                player=name,
                chips=d.get("chips"),
                other=other,
                player_chips=after.chips[seat],  # type: ignore[index]
                other_chips=after.chips[src],  # type: ignore[index]
            )
        case "leave":
            left = Said("%(player)s leaves the game with %(chips)s chips", player=name, chips=after.chips[seat])  # type: ignore[index]
            if after.over:
                return Joined([left, end_words(after)], "; ")
            return left
        case "time_up":
            return Said("Time is up: %(end)s", end=end_words(after))
        case _:
            return event.type


__all__ = ["describe", "legal_moves", "narrate", "view"]
