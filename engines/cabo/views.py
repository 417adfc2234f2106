"""What Cabo shows: legal moves, per-seat views, the move in words, the game's description.

Views are built apart from the rules: a seat sees the cards it has looked at (its initial
look, its peeks, the cards it drew, its spies on other rows), the cards the whole table saw
(the discard pile, shown claims, taken discards, the showdown), and the position and count
of every other card, never a value it has not seen. The record may know more (a scorer who
saw the deal, a peek's value): only ``"all"`` shows that.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping, Sequence

from engines.base import COMMON_EVENTS, Event
from engines.cabo import forms
from engines.cabo.options import OPTIONS
from engines.cabo.rules import AFTER_DRAW
from engines.cabo.scoring import allowed_dealers
from engines.cabo.state import (
    GAME,
    LIMIT,
    PEEK,
    SPY,
    SWAP,
    Round,
    State,
    Token,
    card_text,
)
from engines.common import options_described
from engines.privacy import ACTOR, NOBODY, Declarations, Private
from engines.said import Counted, Joined, Listed, Said

EVENTS = [
    "match_started",
    "hand_started",
    "initial_peek",
    "take_discard",
    "draw",
    "replace",
    "discard",
    "peek",
    "spy",
    "swap",
    "call_cabo",
    "showdown",
    "reveal",
    "hand_result",
    *COMMON_EVENTS,
]


# --------------------------------------------------------------------------- private fields


def _drawn_card_turned_up(options: Mapping[str, Any], data: Mapping[str, Any], later: Sequence[Event]) -> bool:
    """Whether the drawn card went face up onto the discard pile at once (VOCABULARY §5.3).

    It does unless the move that follows the draw keeps it face down: a successful replace
    (one slot, or slots whose shown cards are equal), or a failed one under the ``keep``
    penalty (appended as the last slot). A discard, a peek, a spy or a swap lays it face up.
    """
    penalty = options.get("wrongMultiPenalty") or ("keep" if options.get("edition") == 2 else "discard")
    for event in later:
        if event.type not in AFTER_DRAW:
            continue
        if event.type != "replace":
            return True
        cards = event.data.get("cards") or []
        return len(set(cards)) > 1 and penalty != "keep"
    return False


# Every value below is shown at the end of its round: the rows are turned face up and every
# other card lies face up on the discard pile (docs/RULES.md §3.4).
PRIVATE: Declarations = {
    # Dealt face down: nobody at the table has seen them (the scorer may have).
    "hand_started": (Private(("layouts", "*"), NOBODY),),
    "initial_peek": (Private(("cards",), ACTOR, "omit"),),
    "draw": (Private(("card",), ACTOR, "omit", shown=_drawn_card_turned_up),),
    "peek": (Private(("value",), ACTOR, "omit"),),
    "spy": (Private(("value",), ACTOR, "omit"),),
    # A reveal during play tells the record only; the view already shows a revealed card to
    # nobody, so the fold keeps it and only the listing hides it until the match is over.
    "reveal": (Private(("cards", "*", "card"), NOBODY, "keep"),),
    **{
        t: ()
        for t in (
            "match_started",
            "take_discard",
            "replace",
            "discard",
            "swap",
            "call_cabo",
            "showdown",
            "hand_result",
            *COMMON_EVENTS,
        )
    },
}
"""Which fields of each event type only some seats saw (engines/privacy.py reads it)."""


def describe() -> dict[str, Any]:
    """Describe the game for ``GET /games/cabo``: players, deck, options, events."""
    return {
        "game": GAME,
        "name": "Cabo",
        "deck": Said("Cabo 52 (0-13): two 0s, two 13s, four of each 1-12"),
        "players": {"min": 2, "max": 5, "edition2Max": 4},
        "direction": "CW",
        "teams": None,
        "target": {"over": LIMIT},
        "options": options_described(OPTIONS),
        "cards": forms.CARDS,
        "forms": forms.FORMS,
        "events": list(EVENTS),
    }


# --------------------------------------------------------------------------- legal moves


def _known_slots(rnd: Round, seat: int) -> list[tuple[int, int]]:
    return [(k, v) for k, v in enumerate(rnd.row_values(seat), start=1) if v is not None]


def _claims(rnd: Round, seat: int, fail_ok: bool) -> list[dict[str, Any]]:
    """Complete claims the record can write: every known slot alone, every pair of known slots."""
    known = _known_slots(rnd, seat)
    out = [{"seat": seat, "slots": [k], "cards": [str(v)]} for k, v in known]
    for (a, va), (b, vb) in combinations(known, 2):
        if va == vb or fail_ok:
            out.append({"seat": seat, "slots": [a, b], "cards": [str(va), str(vb)]})
    return out


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Return the event templates that may be recorded next (``[]`` once the game is over).

    Concrete moves where the record knows the cards (a claim of known slots, the action of a
    known drawn card with every target), one template per move type otherwise. Between
    rounds: ``hand_started`` for each seat allowed to start, and a showdown cross-check.
    """
    if state.over:
        return []
    rnd = state.current
    deal = [{"type": "hand_started", "data": {"dealer": d}} for d in allowed_dealers(state)]
    if rnd is None:
        return deal
    if rnd.result_only:
        return [{"type": "hand_result", "data": {}}] if rnd.facts is None else deal
    if rnd.closed_seq:
        return deal
    if rnd.over:
        rows = [[card_text(v) for v in rnd.row_values(s)] for s in range(rnd.seats)]
        show = {"type": "showdown", "data": {"layouts": rows}}
        if rnd.score is None:
            return [show, {"type": "reveal", "data": {}}]
        return deal + [show]
    moves: list[dict[str, Any]] = []
    seat = rnd.turn
    if not rnd.started:
        moves += [{"type": "initial_peek", "data": {"seat": s}} for s in range(rnd.seats) if s not in rnd.peeked]
    if rnd.pending is not None:
        v = rnd.values[rnd.pending]
        keep = state.options.wrongMultiPenalty == "keep"
        claims = _claims(rnd, seat, fail_ok=keep or v is not None)
        moves += [{"type": "replace", "data": c} for c in claims] or [{"type": "replace", "data": {"seat": seat}}]
        if v is None:
            moves += [{"type": t, "data": {"seat": seat}} for t in ("discard", "peek", "spy", "swap")]
            return moves + [_close(rnd)]
        card = str(v)
        moves.append({"type": "discard", "data": {"seat": seat, "card": card}})
        if v in PEEK:
            for k, t in enumerate(rnd.layouts[seat], start=1):
                moves.append({"type": "peek", "data": _with_value({"seat": seat, "card": card, "slot": k}, rnd, t)})
        if v in SPY:
            for s in range(rnd.seats):
                if s != seat:
                    for k, t in enumerate(rnd.layouts[s], start=1):
                        moves.append(
                            {
                                "type": "spy",
                                "data": _with_value(
                                    {"seat": seat, "card": card, "target": {"seat": s, "slot": k}}, rnd, t
                                ),
                            }
                        )
        if v in SWAP:
            locked = {rnd.caller} if state.options.lockCaller and rnd.caller is not None else set()
            firsts = [seat] if not state.options.swapAny else [s for s in range(rnd.seats)]
            for s1 in firsts:
                for s2 in range(rnd.seats):
                    if s2 == s1 or s1 in locked or s2 in locked or (state.options.swapAny and s2 < s1):
                        continue
                    for k1 in range(1, len(rnd.layouts[s1]) + 1):
                        for k2 in range(1, len(rnd.layouts[s2]) + 1):
                            moves.append(
                                {
                                    "type": "swap",
                                    "data": {
                                        "seat": seat,
                                        "card": card,
                                        "first": {"seat": s1, "slot": k1},
                                        "second": {"seat": s2, "slot": k2},
                                    },
                                }
                            )
        return moves + [_close(rnd)]
    if rnd.discard:
        claims = _claims(rnd, seat, fail_ok=True)
        moves += [{"type": "take_discard", "data": c} for c in claims] or [
            {"type": "take_discard", "data": {"seat": seat}}
        ]
    if rnd.draw or len(rnd.discard) > 1:
        moves.append({"type": "draw", "data": {"seat": seat}})
    if rnd.caller is None:
        moves.append({"type": "call_cabo", "data": {"seat": seat}})
    return moves + [_close(rnd)]


def _close(rnd: Round) -> dict[str, Any]:
    """The template of a close from the score sheet (the caller fixed once someone called)."""
    return {"type": "hand_result", "data": {} if rnd.caller is None else {"caller": rnd.caller}}


def _with_value(data: dict[str, Any], rnd: Round, t: Token) -> dict[str, Any]:
    v = rnd.values[t]
    if v is not None:
        data["value"] = str(v)
    return data


# --------------------------------------------------------------------------- views


def _sees(rnd: Round, t: Token, viewer: int | str | None) -> bool:
    if viewer == "all":
        return True
    return t in rnd.public or (isinstance(viewer, int) and viewer in rnd.seen[t])


def _card(rnd: Round, t: Token, viewer: int | str | None) -> str:
    return card_text(rnd.values[t]) if _sees(rnd, t, viewer) else "??"


def view(state: State, seat: int | str | None = None) -> dict[str, Any]:
    """Return the state as ``seat`` sees it: None the public view, ``"all"`` everything recorded.

    A seat sees exactly the cards it has seen (its initial look, its draws, its peeks and
    spies, and what the whole table saw); every other card is ``"??"`` at its position.

    Raises:
        ValueError: ``seat`` is not None, ``"all"`` or a seat number.
    """
    n = state.seats
    if not (seat is None or seat == "all" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n)):
        raise ValueError(f"seat must be None, 'all' or 0-{n - 1}, not {seat!r}")
    out: dict[str, Any] = {
        "game": GAME,
        "players": list(state.players),
        "viewer": seat,
        "round": 0,
        "totals": list(state.totals),
        "over": state.over,
    }
    rnd = state.current
    if rnd is None:
        out["nextStart"] = allowed_dealers(state)
        return out
    out.update(
        {
            "round": rnd.number,
            "dealer": rnd.dealer,
            "resultOnly": rnd.result_only,
            "roundOver": rnd.over,
            "scored": rnd.score is not None,
            "caller": rnd.caller,
        }
    )
    if rnd.score is not None and not state.over:
        out["nextStart"] = allowed_dealers(state)
    if rnd.result_only:
        if rnd.facts is not None:
            out["sums"] = list(rnd.facts.sums)
            if rnd.facts.layouts is not None:
                out["rows"] = [
                    {"seat": s, "name": state.players[s], "cards": [str(v) for v in rnd.facts.layouts[s]]}
                    for s in range(n)
                ]
        return out
    if rnd.closed_seq:
        out["closedFromSheet"] = {"afterMove": rnd.moves, "seq": rnd.closed_seq}
    out.update(
        {
            "turn": None if rnd.over else rnd.turn,
            "finalTurnsLeft": rnd.final_left if rnd.caller is not None and not rnd.over else None,
            "initialLooks": sorted(rnd.peeked),
            "drawPile": len(rnd.draw),
            "discardPile": [card_text(rnd.values[t]) for t in rnd.discard],
            "deckOut": rnd.deck_out,
        }
    )
    out["rows"] = [
        {
            "seat": s,
            "name": state.players[s],
            "cards": [_card(rnd, t, seat) for t in rnd.layouts[s]],
            "faceUp": [k for k, t in enumerate(rnd.layouts[s], start=1) if t in rnd.face_up],
        }
        for s in range(n)
    ]
    if rnd.pending is not None:
        out["drawn"] = {"seat": rnd.turn, "seq": rnd.pending_seq, "card": _card(rnd, rnd.pending, seat)}
    else:
        out["drawn"] = None
    if seat == "all":
        out["dealt"] = [[card_text(rnd.values[t]) for t in range(4 * s, 4 * s + 4)] for s in range(n)]
        out["missing"] = [{"seat": s, "slot": k} for s, k in rnd.missing()]
    return out


def hindsight(events: Sequence[Event], final: State) -> list[Event]:
    """Return the log with each face-down card written as the whole record came to know it.

    For the omniscient replay: a card revealed at the showdown (or by a claim, a reveal)
    was the same physical card from the deal on, so the deal's layouts and each unseen draw
    are filled in from the round's final values and every frame shows it where it lay.
    Cards never known stay ``"??"``; the recorded events themselves are not changed.
    """
    rounds = {r.seq: r for r in (*final.past, final.current) if r is not None and not r.result_only}
    out: list[Event] = []
    current: Round | None = None
    for event in events:
        data = event.data
        if event.type == "hand_started":
            current = rounds.get(event.seq)
            layouts = data.get("layouts")
            if current is not None and isinstance(layouts, list) and current.values:
                filled = [
                    [c if c != "??" else card_text(current.values[4 * s + k]) for k, c in enumerate(row)]
                    for s, row in enumerate(layouts)
                ]
                data = {**data, "layouts": filled}
        elif event.type == "draw" and current is not None and "card" not in data:
            token = next((t for t, at in enumerate(current.drawn_at) if at == event.seq), None)
            if token is not None and current.values[token] is not None:
                data = {**data, "card": card_text(current.values[token])}
        out.append(event if data is event.data else Event(event.seq, event.type, data))
    return out


# --------------------------------------------------------------------------- narration


def narrate(before: State | None, event: Event, after: State) -> str:
    """Tell the move as the table saw it: ``Ben draws a card``, ``Ben replaces slots 1 and 3 (9 9): they match``.

    The words hold only what the whole table saw: a drawn card, a peek or a spy are told
    without their values (a ``reveal`` names what it reveals, as its event does). Every sentence
    is a message id with named parts (:mod:`engines.said`), so each language says it in its order.
    """
    d = event.data
    p = after.players
    seat = d.get("seat")
    name = p[seat] if isinstance(seat, int) and 0 <= seat < len(p) else "?"
    rnd = after.current
    prev = before.current if before is not None else None
    words: str
    match event.type:
        case "match_started":
            return Said(
                "Cabo (edition %(edition)s): %(players)s; lowest total wins, the game ends when a total goes over 100",
                edition=after.options.edition,
                players=Listed(p),
            )
        case "hand_started":
            assert rnd is not None
            if rnd.result_only:
                return Said(
                    "Round %(round)s: %(dealer)s starts; the round is recorded by its result only",
                    round=rnd.number,
                    dealer=p[rnd.dealer],
                )
            return Said(
                "Round %(round)s: %(dealer)s deals four face-down cards to each player and turns up %(card)s; "
                "%(dealer)s starts",
                round=rnd.number,
                dealer=p[rnd.dealer],
                card=card_text(rnd.values[rnd.discard[0]]),
            )
        case "initial_peek":
            return Said("%(player)s looks at %(slots)s", player=name, slots=_slots(d.get("slots", [])))
        case "take_discard":
            top = card_text(prev.values[prev.discard[-1]]) if prev is not None and prev.discard else "?"
            words = _claim_words(
                d,
                after,
                Said(
                    "%(player)s takes the %(card)s from the discard pile into %(slots)s",
                    player=name,
                    card=top,
                    slots=_slots(d.get("slots", [])),
                ),
            )
        case "draw":
            if prev is not None and not prev.draw and rnd is not None:
                return Said(
                    "The draw pile is empty: the discard pile is reshuffled under its top card; %(player)s draws a card",
                    player=name,
                )
            return Said("%(player)s draws a card", player=name)
        case "replace":
            words = _claim_words(
                d,
                after,
                Said("%(player)s puts the drawn card in %(slots)s", player=name, slots=_slots(d.get("slots", []))),
            )
        case "discard":
            words = Said("%(player)s discards the drawn %(card)s", player=name, card=d.get("card"))
        case "peek":
            words = Said(
                "%(player)s discards %(card)s and peeks at own slot %(slot)s",
                player=name,
                card=d.get("card"),
                slot=d.get("slot"),
            )
        case "spy":
            target = d.get("target", {})
            who = p[target["seat"]] if isinstance(target.get("seat"), int) and target["seat"] < len(p) else "?"
            words = Said(
                "%(player)s discards %(card)s and spies on %(other)s's slot %(slot)s",
                player=name,
                card=d.get("card"),
                other=who,
                slot=target.get("slot"),
            )
        case "swap":
            a, b = d.get("first", {}), d.get("second", {})
            words = Said(
                "%(player)s discards %(card)s and swaps %(first)s's slot %(first_slot)s with %(second)s's slot "
                "%(second_slot)s",
                player=name,
                card=d.get("card"),
                first=p[a["seat"]],
                first_slot=a.get("slot"),
                second=p[b["seat"]],
                second_slot=b.get("slot"),
            )
        case "call_cabo":
            return Said("%(player)s calls CABO: every other player has one more turn", player=name)
        case "showdown":
            words = Said("Showdown: %(rows)s", rows=_rows(p, d.get("layouts", [])))
        case "reveal":
            parts = []
            for b in d.get("cards", []):
                if "slot" in b:
                    parts.append(
                        Said(
                            "%(player)s's slot %(slot)s is %(card)s",
                            player=p[b["seat"]],
                            slot=b["slot"],
                            card=b.get("card"),
                        )
                    )
                elif "index" in b:
                    parts.append(
                        Said(
                            "the card of entry %(entry)s #%(index)s is %(card)s",
                            entry=b.get("seq"),
                            index=b["index"],
                            card=b.get("card"),
                        )
                    )
                else:
                    parts.append(
                        Said("the card of entry %(entry)s is %(card)s", entry=b.get("seq"), card=b.get("card"))
                    )
            words = Said("Revealed: %(cards)s", cards=Joined(parts))
        case "hand_result":
            number = rnd.number if rnd else "?"
            if "layouts" in d:
                shown: str = _rows(p, d.get("layouts", []))
            else:
                shown = Said("sums %(sums)s", sums=_each(p, d.get("sums", [])))
                if d.get("kamikaze") is not None:
                    shown = Joined([shown, Said("%(player)s shows 12 12 13 13 (kamikaze)", player=p[d["kamikaze"]])])
            if d.get("caller") is not None:
                shown = Joined([shown, Said("%(player)s called CABO", player=p[d["caller"]])])
            if rnd is not None and rnd.closed_seq == event.seq:
                if rnd.moves:
                    words = Said(
                        "Round %(round)s closed from the score sheet after move %(moves)s: %(result)s",
                        round=number,
                        moves=rnd.moves,
                        result=shown,
                    )
                else:
                    words = Said(
                        "Round %(round)s closed from the score sheet before any move: %(result)s",
                        round=number,
                        result=shown,
                    )
            else:
                words = Said("Round %(round)s result: %(result)s", round=number, result=shown)
        case _:
            return event.type
    more: list[str] = [words]
    if rnd is not None and prev is not None and rnd.number == prev.number:
        if rnd.over and not prev.over and not rnd.closed_seq:
            more.append(
                Said("the round is over (the draw pile ran out)") if rnd.deck_out else Said("the round is over")
            )
        elif (
            rnd.caller is not None
            and prev.caller is not None
            and event.type in ("take_discard", "replace", "discard", "peek", "spy", "swap")
        ):
            more.append(Counted("%(n)s final turn left", "%(n)s final turns left", rnd.final_left))
        if rnd.score is not None and prev.score is None:
            rs = rnd.score
            more.append(Said("scores %(scores)s", scores=_each(p, rs.scores)))
            more.append(Said("totals %(totals)s", totals=_each(p, rs.totals)))
            if after.over:
                more.append(Said("the game is over"))
    elif (
        rnd is not None and rnd.score is not None and (prev is None or prev.number != rnd.number or prev.score is None)
    ):
        more.append(Said("scores %(scores)s", scores=_each(p, rnd.score.scores)))
    return Joined(more)


def _slots(slots: Sequence[int]) -> str:
    """``slot 2``, ``slots 1 and 3``."""
    if len(slots) == 1:
        return Said("slot %(slot)s", slot=slots[0])
    return Said("slots %(slots)s", slots=Listed(slots))


def _rows(players: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Each player's row as shown: ``Ana 3 9; Ben 12 0``."""
    return Joined(Joined([players[s], " ".join(row)], " ") for s, row in enumerate(rows))


def _each(players: Sequence[str], values: Sequence[Any]) -> str:
    """A number per player: ``Ana 3, Ben 12``."""
    return Joined((Joined([players[s], str(v)], " ") for s, v in enumerate(values)), ", ")


def _claim_words(d: Mapping[str, Any], after: State, who: Said) -> str:
    """What a take or a replace puts where, and what the slots it names showed."""
    slots = d.get("slots", [])
    cards = " ".join(map(str, d.get("cards", [])))
    # the cards named are the ones shown from the slots (thrown away when the claim holds), never the new card
    if len(slots) == 1:
        return Said("%(move)s and throws away the %(cards)s that was there", move=who, cards=cards)
    shows = dict(move=who, cards=cards)
    if len(set(d.get("cards", []))) == 1:
        return Said(
            "%(move)s and shows %(cards)s: they match, %(n)s cards to the discard pile and the row closes up",
            n=len(slots),
            **shows,
        )
    if after.options.wrongMultiPenalty == "keep":
        return Said(
            "%(move)s and shows %(cards)s: they do not match and stay, known to all; the new card joins "
            "the row as its last slot",
            **shows,
        )
    return Said(
        "%(move)s and shows %(cards)s: they do not match and stay, known to all; the new card goes face "
        "up onto the discard pile",
        **shows,
    )
