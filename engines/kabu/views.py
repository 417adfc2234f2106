"""What Kabú shows: legal moves, per-seat views, the move in words, the game's description.

Views are built apart from the rules: a seat sees the public table (stacks, how many cards
each player holds, the decisions, the open cards once they are face up, every hand after
the showdown) and its own cards; never another seat's hidden cards.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from engines.base import COMMON_EVENTS, Event, voided_seqs
from engines.cards import pretty, texts
from engines.common import options_described, pretty_written, seat_names, withheld_reveal
from engines.privacy import ACTOR, NOBODY, OWNER, Declarations, Private
from engines.kabu import forms
from engines.kabu.options import OPTIONS
from engines.kabu.rules import END_VALUES
from engines.kabu.scoring import end_words, winners
from engines.kabu.state import DECK_NAMES, GAME, Hand, State, sorted_cards, start_chips

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
ORDINAL = {2: "second", 3: "third", 4: "fourth"}
NUMBER = {2: "two", 3: "three", 4: "four", 5: "five"}


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
                "description": "the game ends when a player cannot pay what he owes (insolvency), or at an "
                "agreed time, insolvent players buying chips or leaving (time)",
            }
        },
        "initial": {"chips": "one stack per player; default 10 + 15·N each (ten 1s, N 5s and N 10s)"},
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


def _settlement_words(state: State) -> str:
    st = state.settled[-1]
    hand = state.current
    assert hand is not None
    seats = [s for s in state.seats if st.values[s] is not None]
    words = "; ".join(
        f"{state.players[s]} {pretty(hand.final[s] or ()) + ' ' if hand.final is not None else ''}({st.values[s]})"
        for s in seats
    )
    words += "; net " + ", ".join(
        f"{state.players[s]} {st.net[s]:+d}" if st.net[s] else f"{state.players[s]} 0" for s in seats
    )
    words += "; chips " + ", ".join(str(st.after[s]) for s in seats)
    if st.insolvent:
        who = seat_names(state.players, sorted(st.insolvent))
        words += f"; {who} cannot pay all {'they owe' if len(st.insolvent) > 1 else 'he owes'} and pay{'' if len(st.insolvent) > 1 else 's'} nobody"
        if state.options.end == "time" and not state.over:
            words += " and must buy chips or leave before the next hand"
    if state.over:
        words += "; " + end_words(state)
    return words


def narrate(before: State | None, event: Event, after: State) -> str:
    """Tell the move in words: ``P2 asks for a third card``, the cards served, the showdown and its payments.

    The words hold only what the whole table saw: a keep or a card dealt face down is counted,
    never named (a ``reveal`` names what it reveals, as its event does).
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
                "the game ends when a player cannot pay what he owes"
                if after.options.end == "insolvency"
                else "play until the agreed time"
            )
            stacks = (
                f"{after.chips[0]} chips each (ten 1s, {n} 5s and {n} 10s)"
                if not after.carried and after.chips[0] == start_chips(n)
                else "chips " + ", ".join(map(str, after.chips))
            )
            return f"Kabú: {seat_names(players, range(n))}; {stacks}; {DECK_NAMES[after.options.deck]}; {how}"
        case "hand_started":
            assert hand is not None
            dealer = "the croupier" if hand.dealer is None else players[hand.dealer]
            if hand.result_only:
                return f"Hand {hand.number}: {dealer} deals; the hand is recorded by its result only"
            k = after.options.start_cards
            words = f"Hand {hand.number}: {dealer} deals {NUMBER[k]} cards to each player"
            if after.options.openSix and not after.options.choose:
                words = f"Hand {hand.number}: {dealer} lays out six open cards ({pretty(hand.table)}) and deals two cards to each player"
            if after.options.choose:
                words += f"; each keeps one and returns {NUMBER.get(k - 1, str(k - 1))}"
            return words + f"; {players[hand.order[0]]} {'keeps' if after.options.choose else 'decides'} first"
        case "keep":
            assert hand is not None and prev is not None
            words = f"{name} keeps one card and returns {after.options.start_cards - 1}"
            if hand.phase != "keep":
                returned = (after.options.start_cards - 1) * len(hand.order)
                words += f"; the dealer shuffles the {returned} returned cards"
                if after.options.secondCardFrom == "stock":
                    words += " into the stock"
                if after.options.openSix:
                    words += f", lays out six open cards ({pretty(hand.table)})"
                words += " and deals each player a new card"
            return words
        case "take" | "stand":
            assert hand is not None and prev is not None
            size = prev.size(seat) if isinstance(seat, int) else 2
            if event.type == "take":
                words = f"{name} asks for a {ORDINAL.get(size + 1, 'further')} card"
            else:
                words = f"{name} stands with {NUMBER.get(size, str(size))} cards"
            if prev.phase != hand.phase:
                i = 0 if prev.phase == "third" else 1
                takers = [s for s in hand.order if hand.draws[s][i] == "take"]
                which = "third" if i == 0 else "fourth"
                if takers:
                    words += f"; the dealer serves {seat_names(players, takers)} a {which} card"
                    nxt = hand.turn()
                    if hand.phase == "fourth" and nxt is not None:
                        words += f"; {players[nxt]} decides on a fourth card"
                else:
                    words += f"; nobody asked for a {which} card"
                if hand.phase == "showdown":
                    words += ": showdown next"
            return words
        case "showdown":
            return "Showdown: " + _settlement_words(after)
        case "reveal":
            withheld = withheld_reveal(d.get("cards", []))
            if withheld:
                return withheld
            parts = []
            for b in d.get("cards", []):
                text = pretty_written([b.get("card")], after.options.reader)
                if "seq" in b:
                    parts.append(f"the card kept at entry {b['seq']} is {text}")
                else:
                    who = b.get("seat")
                    parts.append(
                        f"{players[who] if isinstance(who, int) and 0 <= who < len(players) else '?'} holds {text}"
                    )
            return "Revealed: " + "; ".join(parts)
        case "hand_result":
            assert hand is not None
            if prev is not None and not prev.over:
                if hand.closed_after is not None:
                    return (
                        f"Hand {hand.number} closed from the score sheet after move {hand.closed_after}: "
                        + _settlement_words(after)
                    )
                return f"Hand {hand.number} result: " + _settlement_words(after)
            return f"The table's result for hand {hand.number} agrees with the record"
        case "buy_chips":
            src = d.get("from")
            other = players[src] if isinstance(src, int) and 0 <= src < len(players) else "?"
            return (
                f"{name} buys {d.get('chips')} chips from {other} (chips move, not winnings): "
                f"{name} {after.chips[seat]}, {other} {after.chips[src]}"  # type: ignore[index]
            )
        case "leave":
            words = f"{name} leaves the game with {after.chips[seat]} chips"  # type: ignore[index]
            if after.over:
                words += "; " + end_words(after)
            return words
        case "time_up":
            return "Time is up: " + end_words(after)
        case _:
            return event.type


__all__ = ["describe", "legal_moves", "narrate", "view"]
