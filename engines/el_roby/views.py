"""What El Roby shows: legal moves, per-seat views, the move in words, the game's description.

Views are built apart from the rules: a seat sees the public table (melds, the discard pile,
hand sizes, the cards each player was seen to take from the discard pile) and its own hand,
never another seat's hidden cards.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping

from engines.el_roby import forms
from engines.el_roby.options import OPTIONS
from engines.base import COMMON_EVENTS, Event
from engines.cards import Card, texts
from engines.common import options_described, pretty_written, withheld_reveal
from engines.privacy import ACTOR, NOBODY, OWNER, Declarations, Private
from engines.said import Joined, Said
from engines.el_roby.rules import fitting, is_over, limit_applies, limit_of, restricted
from engines.el_roby.scoring import settle, standings_now
from engines.el_roby.search import can_empty, can_reach
from engines.el_roby.state import (
    GAME,
    LIMIT,
    Hand,
    Meld,
    State,
    classify,
    fits,
    points,
    read_card,
    remove,
)

EVENTS = [
    "match_started",
    "hand_started",
    "draw",
    "meld",
    "lay_off",
    "discard",
    "showdown",
    "reveal",
    "hand_result",
    "rebuy",
    *COMMON_EVENTS,
]


# --------------------------------------------------------------------------- private fields


def _from_stock(options: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    """A card drawn from the stock is seen by the drawer only; from the discard pile, by all."""
    return data.get("from") == "stock"


# Shown at the end of the hand: the players count the cards left in their hands, and a card
# drawn unseen is in a hand, on a meld or on the discard pile by then (docs/RULES.md §4).
PRIVATE: Declarations = {
    "hand_started": (Private(("hands", "*"), OWNER),),
    "draw": (Private(("card",), ACTOR, "omit", _from_stock),),
    "reveal": (Private(("cards", "*", "card"), NOBODY),),  # a card a hand or an unseen draw still hides
    **{
        t: ()
        for t in ("match_started", "meld", "lay_off", "discard", "showdown", "hand_result", "rebuy", *COMMON_EVENTS)
    },
}
"""Which fields of each event type only some seats saw (engines/privacy.py reads it)."""


def describe() -> dict[str, Any]:
    """Describe the game for ``GET /games/el-roby``: players, deck, options, events."""
    return {
        "game": GAME,
        "name": "El Roby",
        "deck": Said("French 104 (2 x 52)"),
        "players": {"min": 4, "max": 8, "minWithOption": 2},
        "direction": "ACW",
        "teams": None,
        "target": {"limit": LIMIT},
        "options": options_described(OPTIONS),
        "cards": forms.CARDS,
        "forms": forms.FORMS,
        "events": list(EVENTS),
    }


# --------------------------------------------------------------------------- legal moves


def _distinct(cards: tuple[Card, ...]) -> list[Card]:
    return list(dict.fromkeys(cards))


def _discard_ok(
    state: State,
    hand: Hand,
    seat: int,
    card: Card,
    *,
    melds: tuple[Meld, ...] | None = None,
    laid: bool | None = None,
    melded: bool | None = None,
    first_meld: bool | None = None,
    mine: tuple[Card, ...] | None = None,
    forced: bool = False,
) -> bool:
    """Tell whether discarding ``card`` would be legal (the known hand's rules of ``_on_discard``)."""
    opts = state.options
    melds = hand.melds if melds is None else melds
    mine = hand.known[seat] if mine is None else mine
    h = hand._replace(
        melds=melds,
        laid=hand.laid if laid is None else laid,
        melded=hand.melded if melded is None else melded,
        first_meld=hand.first_meld if first_meld is None else first_meld,
    )
    if opts.noImmediateRediscard and hand.took == card and mine.count(card) == 1:
        return False
    scope = restricted(h, seat, opts)
    if forced:
        if seat in h.own or any(fitting(c, scope, opts) is None for c in mine):
            return False
    elif fitting(card, scope, opts) is not None:
        return False
    rest = remove(mine, [card])
    if h.first_round_meld and rest:
        return False
    if rest and limit_applies(h, opts):
        kept = rest if opts.limitCheck == "afterDiscard" else mine
        if points(kept) > limit_of(state, seat):
            return False
    return True


def _finishable(
    state: State, hand: Hand, seat: int, rest: tuple[Card, ...], melds: tuple[Meld, ...], **flags: Any
) -> bool:
    """After an exposure leaving ``rest``: the turn can still end, at once or after more melds and lay-offs.

    Ends: an empty hand, or a legal discard (the 99-point test and the fit rule of
    ``_on_discard``; later melds only ever lower the kept points, so they are not re-flagged).
    """
    if not rest:
        return True
    if any(_discard_ok(state, hand, seat, c, melds=melds, mine=rest, **flags) for c in _distinct(rest)):
        return True
    owners = {m.cards: m.owner for m in melds}
    more = dict(flags, melded=True, first_meld=flags.get("first_meld", hand.first_meld) or seat not in hand.own)

    def goal(left: tuple[Card, ...], ms: tuple[tuple[Card, ...], ...]) -> bool:
        if not left:
            return True
        now = tuple(
            Meld(i, owners.get(m, seat), "set" if len({c.rank for c in m}) == 1 else "run", m) for i, m in enumerate(ms)
        )
        grown = len(ms) > len(melds) or any(m not in owners for m in ms)
        return any(
            _discard_ok(
                state,
                hand,
                seat,
                c,
                melds=now,
                mine=left,
                **(more if len(ms) > len(melds) else dict(flags, laid=True) if grown else flags),
            )
            for c in _distinct(left)
        )

    return can_reach(rest, tuple(m.cards for m in melds), state.options, goal)


def _play_moves(state: State, hand: Hand, seat: int) -> list[dict[str, Any]]:
    """Concrete moves for a seat whose hand the record knows completely (after its draw)."""
    opts = state.options
    mine = hand.known[seat]
    table = tuple(m.cards for m in hand.melds)
    moves: list[dict[str, Any]] = []
    eleven_ok = (
        seat not in hand.own
        and hand.melds
        and not hand.melded
        and (hand.source == "stock" or opts.elevenCardSource == "either")
    )
    if hand.eleven or eleven_ok:
        if can_empty(mine, table, opts, new_melds=False):
            for c in _distinct(mine):
                for m in hand.melds:
                    if fits(c, m, opts):
                        table_after = tuple((m.cards + (c,)) if x.id == m.id else x.cards for x in hand.melds)
                        if can_empty(remove(mine, [c]), table_after, opts, new_melds=False):
                            moves.append({"type": "lay_off", "data": {"seat": seat, "meld": m.id, "cards": [str(c)]}})
        if hand.eleven:
            return moves
    next_id = len(hand.melds) + 1
    tried: set[tuple[Card, ...]] = set()
    for combo in combinations(mine, 3):
        if combo in tried:
            continue
        tried.add(combo)
        shape = classify(combo, opts)
        if shape is None:
            continue
        rest = remove(mine, combo)
        new = hand.melds + (Meld(next_id, seat, shape[0], shape[1]),)
        if hand.first_round:
            if not can_empty(rest, table + (shape[1],), opts, new_melds=True, leave=1):
                continue
        elif not _finishable(
            state,
            hand._replace(own=hand.own | {seat}),
            seat,
            rest,
            new,
            melded=True,
            first_meld=hand.first_meld or seat not in hand.own,
        ):
            continue
        moves.append({"type": "meld", "data": {"seat": seat, "id": next_id, "cards": [str(c) for c in shape[1]]}})
    if seat in hand.own:
        for c in _distinct(mine):
            for m in hand.melds:
                if not fits(c, m, opts):
                    continue
                rest = remove(mine, [c])
                grown = tuple(m._replace(cards=m.cards + (c,)) if x.id == m.id else x for x in hand.melds)
                if hand.first_round_meld:
                    if rest and not can_empty(rest, tuple(x.cards for x in grown), opts, new_melds=True, leave=1):
                        continue
                elif not _finishable(state, hand, seat, rest, grown, laid=True):
                    continue
                moves.append({"type": "lay_off", "data": {"seat": seat, "meld": m.id, "cards": [str(c)]}})
    discards = [c for c in _distinct(mine) if _discard_ok(state, hand, seat, c)]
    for c in discards:
        moves.append({"type": "discard", "data": {"seat": seat, "card": str(c)}})
    if not discards:
        for c in _distinct(mine):
            if _discard_ok(state, hand, seat, c, forced=True):
                moves.append({"type": "discard", "data": {"seat": seat, "card": str(c), "forced": True}})
    return moves


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Return the event templates that may be recorded next (``[]`` once the match is over).

    Concrete moves when the acting seat's hand is fully known (every three-card meld that
    leaves the turn finishable, every one-card lay-off, every legal discard); one template
    per move type with the fixed fields otherwise; last, a ``hand_result`` template (closing the
    hand from the score sheet). Between hands: the next ``hand_started`` (the dealer fixed
    once derived) and each possible ``rebuy``.
    """
    if is_over(state):
        return []
    hand = state.current
    if hand is None:
        return [{"type": "hand_started", "data": {}}]
    if hand.result_only and not hand.over:
        return [{"type": "hand_result", "data": {}}]
    if hand.over and not hand.scored:
        return [{"type": "showdown", "data": {}}, {"type": "reveal", "data": {}}]
    if hand.scored:
        scores, _, _, _, _ = standings_now(state)
        st = settle(state.records[-1], state.options)
        alive = [s for s in range(state.n) if scores[s] is not None and s not in st.eliminated]
        assert state.last_dealer is not None
        dealer = next(s for k in range(1, state.n + 1) if (s := (state.last_dealer + k) % state.n) in alive)
        moves: list[dict[str, Any]] = [{"type": "hand_started", "data": {"dealer": dealer}}]
        if len(st.remaining) >= 2:
            moves += [{"type": "rebuy", "data": {"seat": s}} for s in st.busted if s not in st.rebuys]
        return moves
    return _turn_moves(state, hand) + [{"type": "hand_result", "data": {}}]


def _turn_moves(state: State, hand: Hand) -> list[dict[str, Any]]:
    """The moves of the seat whose turn it is."""
    seat = hand.turn
    if hand.phase == "draw":
        moves = []
        if hand.stock:
            moves.append({"type": "draw", "data": {"seat": seat, "from": "stock"}})
        if hand.pile:
            moves.append({"type": "draw", "data": {"seat": seat, "from": "discard", "card": str(hand.pile[-1])}})
        return moves
    if hand.unknown[seat]:
        return [
            {"type": "meld", "data": {"seat": seat, "id": len(hand.melds) + 1}},
            {"type": "lay_off", "data": {"seat": seat}},
            {"type": "discard", "data": {"seat": seat}},
        ]
    return _play_moves(state, hand, seat)


# --------------------------------------------------------------------------- views


def _meld_view(meld: Meld) -> dict[str, Any]:
    return {"id": meld.id, "owner": meld.owner, "kind": meld.kind, "cards": texts(meld.cards)}


def view(state: State, seat: int | str | None = None) -> dict[str, Any]:
    """Return the state as ``seat`` sees it: None the public view, ``"all"`` everything recorded.

    A seat sees the standings and money, the table (melds, the whole discard pile, the
    stock's size), each hand's size and the cards it was seen to take from the discard
    pile, and its own hand (``"??"`` for cards the record does not know).

    Raises:
        ValueError: ``seat`` is not None, ``"all"`` or a seat number.
    """
    if not (
        seat is None or seat == "all" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.n)
    ):
        raise ValueError(f"seat must be None, 'all' or 0-{state.n - 1}, not {seat!r}")
    scores, money, pot, win, deciding = standings_now(state)
    out: dict[str, Any] = {
        "game": GAME,
        "players": list(state.players),
        "viewer": seat,
        "hand": 0,
        "scores": list(scores),
        "money": list(money),
        "pot": pot,
        "deciding": list(deciding),
        "over": win is not None,
        "winner": win,
    }
    hand = state.current
    if hand is None:
        return out
    out.update(
        {
            "hand": hand.number,
            "dealer": hand.dealer,
            "seats": list(hand.seats),
            "resultOnly": hand.result_only,
            "handOver": hand.over,
            "out": hand.out,
            "void": hand.void,
        }
    )
    if hand.result_only:
        return out
    out.update(
        {
            "turn": None if hand.over else hand.turn,
            "phase": None if hand.over else hand.phase,
            "firstRound": hand.first_round,
            "limits": [limit_of(state, s) if s in hand.seats else None for s in range(state.n)],
            "stock": hand.stock,
            "discardPile": texts(hand.pile),
            "melds": [_meld_view(m) for m in hand.melds],
        }
    )
    everything = seat == "all" or (hand.over and hand.final is not None)
    seats = []
    for s in range(state.n):
        entry: dict[str, Any] = {
            "seat": s,
            "name": state.players[s],
            "in": s in hand.seats,
            "size": hand.size(s) if s in hand.seats else 0,
            "shown": texts(hand.shown[s]) if s in hand.seats else [],
            "hasMeld": s in hand.own,
        }
        if everything and s in hand.seats:
            entry["cards"] = texts(hand.known[s]) + ["??"] * hand.unknown[s]
        seats.append(entry)
    out["hands"] = seats
    if isinstance(seat, int):
        out["cards"] = texts(hand.known[seat]) + ["??"] * hand.unknown[seat]
    return out


# --------------------------------------------------------------------------- narration


def _hand_end(state: State) -> list[str]:
    """The clauses for a hand just scored: each player's points and new score, who went over 99,
    the last player left."""
    rec = state.records[-1]
    st = settle(rec, state.options)
    names = state.players
    if rec.void:
        return [Said("the stock ran out: the hand is void")]
    clauses: list[str] = []
    parts = [
        Joined([names[s], rec.points[s], "→", st.raw[s]], " ")
        for s in range(state.n)
        if rec.points[s] is not None and s != rec.out
    ]
    if parts:
        clauses.append(Joined(parts, ", "))
    if st.busted:
        busted = Joined([names[s] for s in st.busted], ", ")
        if st.winner is None:
            clauses.append(
                Said(
                    "over 99: %(players)s (re-buy %(price)s, re-entry at %(points)s)",
                    players=busted,
                    price=st.price,
                    points=st.reentry,
                )
            )
        else:
            clauses.append(Said("over 99: %(players)s", players=busted))
    if st.winner is not None:
        clauses.append(
            Said(
                "%(player)s is the last player left and wins the pot of %(pot)s",
                player=names[st.winner],
                pot=st.pot_won,
            )
        )
    return clauses


def narrate(before: State | None, event: Event, after: State) -> str:
    """Tell the move in words: ``Carlos melds 8♠ 8♥ 8♦ (meld 6)``, Roby, the hand's scores.

    The words hold only what the whole table saw: an unseen stock draw is not named. Every
    sentence is a message id with named parts (:mod:`engines.said`), so each language says it
    in its own order; clauses are set side by side with ``"; "``.
    """
    d = event.data
    players = after.players
    hand = after.current
    seat = d.get("seat")
    name = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"
    scored = before is not None and len(after.records) > len(before.records)
    words: str
    more: list[str] = []
    match event.type:
        case "match_started":
            opts = after.options
            return Said(
                "El Roby: %(players)s; a player who reaches 100 is out; entry %(entry)s, stake %(stake)s, pot %(pot)s",
                players=Joined(players, ", "),
                entry=opts.entry,
                stake=opts.stake,
                pot=after.pot,
            )
        case "hand_started":
            assert hand is not None
            gone: tuple[int, ...] = ()
            if before is not None and before.records and not before.records[-1].final:
                gone = settle(before.records[-1], before.options).eliminated
            if gone:
                words = Said(
                    "Hand %(hand)s: %(dealer)s deals (%(players)s out of the game)",
                    hand=hand.number,
                    dealer=players[hand.dealer],
                    players=Joined([players[s] for s in gone], ", "),
                )
            else:
                words = Said("Hand %(hand)s: %(dealer)s deals", hand=hand.number, dealer=players[hand.dealer])
            if hand.result_only:
                return Joined([words, Said("the hand is recorded by its result only")])
            return Joined(
                [
                    words,
                    Said(
                        "%(card)s turned up; %(player)s plays first",
                        card=hand.pile[-1].pretty(),
                        player=players[hand.turn],
                    ),
                ]
            )
        case "draw":
            if d.get("from") == "discard":
                words = Said(
                    "%(player)s takes %(card)s from the discard pile",
                    player=name,
                    card=pretty_written([d.get("card") or str(before.current.pile[-1])], read_card),  # type: ignore[union-attr]
                )
            else:
                words = Said("%(player)s draws from the stock", player=name)
        case "meld":
            words = Said(
                "%(player)s melds %(cards)s (meld %(meld)s)",
                player=name,
                cards=pretty_written(d.get("cards", []), read_card),
                meld=d.get("id"),
            )
        case "lay_off":
            words = Said(
                "%(player)s lays off %(cards)s on meld %(meld)s",
                player=name,
                cards=pretty_written(d.get("cards", []), read_card),
                meld=d.get("meld"),
            )
        case "discard":
            card = pretty_written([d.get("card")], read_card)
            if d.get("forced"):
                words = Said("%(player)s discards %(card)s (forced: every card fits a meld)", player=name, card=card)
            else:
                words = Said("%(player)s discards %(card)s", player=name, card=card)
            if hand is not None and not hand.over and before is not None and before.current is not None:
                if hand.stock > before.current.stock:
                    more.append(Said("the discard pile is turned over into a new stock of %(stock)s", stock=hand.stock))
        case "showdown":
            # each hand said apart first: Babel does not see a Said nested in a call inside another Said
            hands = [
                Said("%(player)s %(cards)s", player=players[s], cards=pretty_written(h, read_card))
                for s, h in enumerate(d.get("hands", []))
                if h
            ]
            words = Said("Showdown: %(hands)s", hands=Joined(hands))
        case "reveal":
            withheld = withheld_reveal(d.get("cards", []))
            if withheld:
                return withheld
            parts = [
                Said(
                    "%(player)s holds %(card)s",
                    player=players[b["seat"]],
                    card=pretty_written([b.get("card")], read_card),
                )
                if "seat" in b
                else Said(
                    "the card drawn at entry %(entry)s is %(card)s",
                    entry=b.get("seq"),
                    card=pretty_written([b.get("card")], read_card),
                )
                for b in d.get("cards", [])
            ]
            words = Said("Revealed: %(cards)s", cards=Joined(parts))
        case "hand_result":
            assert hand is not None
            closed = (
                before is not None
                and before.current is not None
                and not before.current.result_only
                and not before.current.over
            )
            if closed:
                moves = before.current.moves  # type: ignore[union-attr]
                if d.get("out") is None:
                    words = Said(
                        "Hand %(hand)s closed from the score sheet after move %(moves)s: void (the stock ran out)",
                        hand=hand.number,
                        moves=moves,
                    )
                else:
                    words = Said(
                        "Hand %(hand)s closed from the score sheet after move %(moves)s: %(player)s made Roby",
                        hand=hand.number,
                        moves=moves,
                        player=players[d["out"]],
                    )
            elif d.get("out") is None:
                words = Said("Hand %(hand)s result: void (the stock ran out)", hand=hand.number)
            else:
                words = Said("Hand %(hand)s result: %(player)s made Roby", hand=hand.number, player=players[d["out"]])
        case "rebuy":
            st = settle(after.records[-1], after.options)
            return Said(
                "%(player)s re-buys for %(price)s and re-enters at %(points)s; the pot holds %(pot)s",
                player=name,
                price=st.price,
                points=st.reentry,
                pot=st.pot,
            )
        case _:
            return event.type
    if (
        event.type != "hand_result"
        and hand is not None
        and before is not None
        and before.current is not None
        and hand.over
        and not before.current.over
    ):
        if hand.void:
            more.append(Said("the stock is exhausted: the hand is void"))
        else:
            more.append(Said("%(player)s is out of cards: Roby!", player=players[hand.out]))  # type: ignore[index]
    if scored:
        more.extend(_hand_end(after))
    return Joined([words, *more]) if more else words
