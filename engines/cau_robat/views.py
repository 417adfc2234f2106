"""What Cau Robat shows: legal moves, per-seat views, the move in words, the game's description.

Hands are the only hidden cards: every played card, the table and every score pile are face
up. A seat's view adds its own hand; the public view shows only hand sizes.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from engines.base import COMMON_EVENTS, Event, RuleViolation
from engines.cards import Card, spanish_rank_name as _rank, texts
from engines.cau_robat import forms
from engines.cau_robat.options import OPTIONS
from engines.cau_robat.rules import can_extend, derived_captures, hand_cards, next_dealer
from engines.cau_robat.state import (
    CALL_WORDS,
    CYCLE,
    DECK,
    GAME,
    HAND_SIZE,
    TABLE_SIZE,
    Capture,
    Hand,
    card_list,
    State,
    read_card,
    sorted_cards,
)
from engines.common import options_described, withheld_reveal
from engines.privacy import NOBODY, OWNER, Declarations, Private
from engines.said import Counted, Joined, Listed, Said

EVENTS = ["match_started", "hand_started", "play", "reveal", "hand_result", *COMMON_EVENTS]


# --------------------------------------------------------------------------- private fields

# The hands are shown at the end of the hand: every card is played and the piles counted (docs/RULES.md §1).
PRIVATE: Declarations = {
    "hand_started": (Private(("hands", "*"), OWNER),),
    "reveal": (Private(("cards", "*", "card"), NOBODY),),  # a card a hand still hides
    **{t: () for t in ("match_started", "play", "hand_result", *COMMON_EVENTS)},
}
"""Which fields of each event type only some seats saw: hands are the only hidden cards."""


def describe() -> dict[str, Any]:
    """Describe the game for ``GET /games/cau-robat``: players, deck, deal, options, events."""
    return {
        "game": GAME,
        "name": "Cau Robat",
        "deck": Said("Spanish 40"),
        "players": {"min": 3, "max": 5, "withOption": {"players": "2-6", "min": 2, "max": 6}},
        "direction": "ACW",
        "teams": None,
        "target": {"wins": 3, "tie": "share"},
        "targetOptions": {
            "wins": {
                "type": "integer",
                "minimum": 1,
                "default": 3,
                "rule": "/rules/cau-robat#option-wins",
                "description": Said("the number of hand wins that ends the game"),
            },
            "tie": {
                "values": ["share", "playOn"],
                "default": "share",
                "rule": "/rules/cau-robat#option-tie",
                "description": Said(
                    "several players reaching it in the same hand share the game (share), or hands go on "
                    "until one leads alone (playOn)"
                ),
            },
        },
        "ranks": [int(r) for r in CYCLE],
        "deal": {
            str(n): {
                "table": TABLE_SIZE[n],
                "hand": HAND_SIZE[n],
                "batches": "3, 3, 1" if n == 5 else f"3 x {HAND_SIZE[n] // 3}",
            }
            for n in sorted(TABLE_SIZE)
        },
        "options": options_described(OPTIONS),
        "cards": forms.CARDS,
        "forms": forms.FORMS,
        "events": list(EVENTS),
    }


# --------------------------------------------------------------------------- legal moves


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Return the event templates that may be recorded next (``[]`` once the match is over).

    In a hand: one ``play`` per known card of the seat to play (under ``requireAnnouncement``
    a card that could extend the chain also with ``call: true``), and a ``{seat}`` template
    when the seat has unknown cards; under ``anyoneMayCall`` the out-of-turn calls of the
    other seats; last, a ``hand_result`` template (closing the hand from the score sheet).
    Between hands: the next ``hand_started`` (dealer fixed) and a ``hand_result`` cross-check
    with the derived facts.
    """
    if state.over:
        return []
    hand = state.current
    if hand is None:
        return [{"type": "hand_started", "data": {}}]
    if hand.result_only and not hand.over:
        return [{"type": "hand_result", "data": {}}]
    if hand.over:
        assert hand.facts is not None
        facts: dict[str, Any] = {"piles": list(hand.facts.piles), "table": hand.facts.table}
        if hand.facts.last_capturer is not None:
            facts["lastCapturer"] = hand.facts.last_capturer
        return [
            {"type": "hand_started", "data": {"dealer": next_dealer(state, hand)}},
            {"type": "hand_result", "data": facts},
        ]
    moves: list[dict[str, Any]] = []
    opts = state.options
    turn = hand.turn
    moves += _plays(state, hand, turn, sorted_cards(hand.known[turn]))
    if hand.unknown[turn]:
        moves.append({"type": "play", "data": {"seat": turn}})
    chain = hand.chain
    if opts.anyoneMayCall and chain is not None and len(chain.seats) < 4:
        free = any(c.rank == chain.rank and c not in hand.located for c in DECK.distinct())
        for s in range(state.n):
            if s == turn or s in chain.seats or not hand.size(s):
                continue
            mine = [c for c in sorted_cards(hand.known[s]) if c.rank == chain.rank]
            for c in mine:
                data: dict[str, Any] = {"seat": s, "card": str(c)}
                if opts.requireAnnouncement:
                    data["call"] = True
                moves.append({"type": "play", "data": data})
            if hand.unknown[s] and free:
                moves.append(
                    {"type": "play", "data": {"seat": s, "call": True} if opts.requireAnnouncement else {"seat": s}}
                )
    if opts.pileOrder == "recorded":  # every capture must be written: give the derived order
        for move in moves:
            if "card" in move["data"]:
                captures = derived_captures(state, move["data"])
                if captures:
                    move["data"]["captures"] = captures
    return moves + [{"type": "hand_result", "data": {}}]


def _plays(state: State, hand: Hand, seat: int, cards: list[Card]) -> list[dict[str, Any]]:
    out = []
    for c in cards:
        out.append({"type": "play", "data": {"seat": seat, "card": str(c)}})
        if state.options.requireAnnouncement and can_extend(state, hand, seat, c):
            out.append({"type": "play", "data": {"seat": seat, "card": str(c), "call": True}})
    return out


# --------------------------------------------------------------------------- views


def _chain_view(hand: Hand) -> dict[str, Any] | None:
    chain = hand.chain
    if chain is None:
        return None
    return {"rank": int(chain.rank), "seats": list(chain.seats), "call": chain.call, "cards": texts(chain.cards)}


def view(state: State, seat: int | str | None = None) -> dict[str, Any]:
    """Return the state as ``seat`` sees it: None the public view, ``"all"`` everything recorded.

    Everyone sees the table, the pending chain, every pile (bottom → top) and each hand's
    size; a seat also sees its own hand (``"??"`` for cards the record does not know); the
    omniscient view shows every hand.

    Raises:
        ValueError: ``seat`` is not None, ``"all"`` or a seat number.
    """
    if not (
        seat is None or seat == "all" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.n)
    ):
        raise ValueError(f"seat must be None, 'all' or 0-{state.n - 1}, not {seat!r}")
    out: dict[str, Any] = {
        "game": GAME,
        "players": list(state.players),
        "viewer": seat,
        "hand": 0,
        "wins": list(state.totals),
        "target": state.target,
        "over": state.over,
    }
    hand = state.current
    if hand is None:
        return out
    out.update(
        {
            "hand": hand.number,
            "dealer": hand.dealer,
            "resultOnly": hand.result_only,
            "handOver": hand.over,
            "turn": None if hand.over or hand.result_only else hand.turn,
        }
    )
    if hand.result_only:
        if hand.facts is not None:
            out["piles"] = [{"seat": s, "name": state.players[s], "count": c} for s, c in enumerate(hand.facts.piles)]
            out["tableCount"] = hand.facts.table
        return out
    out["table"] = texts(hand.table)
    out["chain"] = _chain_view(hand)
    out["piles"] = [
        {"seat": s, "name": state.players[s], "cards": texts(p), "count": len(p), "top": str(p[-1]) if p else None}
        for s, p in enumerate(hand.piles)
    ]
    hands = []
    for s in range(state.n):
        entry: dict[str, Any] = {"seat": s, "name": state.players[s], "size": hand.size(s)}
        if seat == "all":
            entry["cards"] = texts(sorted_cards(hand.known[s])) + ["??"] * hand.unknown[s]
        hands.append(entry)
    out["hands"] = hands
    out["lastCapturer"] = hand.last_capturer
    out["calls"] = [{"rank": int(c.rank), "seats": list(c.seats), "call": c.call} for c in hand.calls]
    if isinstance(seat, int):
        out["cards"] = texts(sorted_cards(hand.known[seat])) + ["??"] * hand.unknown[seat]
    if hand.over and hand.facts is not None:
        cards, to = hand_cards(state, hand.facts)
        out["result"] = {"cards": list(cards), "tableTo": to}
    return out


# --------------------------------------------------------------------------- narration


def _names(players: Sequence[str], seats: Iterable[int]) -> Listed:
    """Name seats for a sentence (``Ben``, ``Ben and Dora``), joined the reader's way."""
    return Listed(players[s] for s in seats)


def _and(items: Sequence[str]) -> str:
    """``a and b and c``: each pair joined by the language's own "and" (a capture's list of takings)."""
    words = items[0]
    for item in items[1:]:
        words = Said("%(first)s and %(second)s", first=words, second=item)
    return words


def _the_rank(rank: str) -> Said:
    """A rank with its article, as the subject of a sentence: ``the 4``, ``the sota`` (each language
    gives each figure its own article: "la sota", "el cavall", "l'as")."""
    if rank == "1":
        return Said("the as")
    if rank == "10":
        return Said("the sota")
    if rank == "11":
        return Said("the caballo")
    if rank == "12":
        return Said("the rey")
    return Said("the %(rank)s", rank=rank)


def _who_pays(state: State, payments: list[Any]) -> Joined:
    paid: list[str] = [
        Said("%(player)s pays %(rank)s", player=state.players[p.payer], rank=p.card.rank)
        for p in payments
        if p.card is not None
    ]
    empty = [p.payer for p in payments if p.card is None]
    if len(empty) == 1:
        paid.append(Said("%(players)s has nothing to pay", players=_names(state.players, empty)))
    elif empty:
        paid.append(Said("%(players)s have nothing to pay", players=_names(state.players, empty)))
    return Joined(paid, ", ")


def capture_words(state: State, cap: Capture, final: bool = False) -> Joined:
    """Say a capture as a player would: ``takes caballo-sota-7-6 and B's pile on 5; clears the table; C pays 1``.

    Ranks are said as the players and the pages' pickers say them (sota, caballo, rey), never 10, 11, 12.
    """
    players = state.players
    own = cap.cards[-1]
    table = [c for c in cap.table if c is not own]
    parts: list[str] = []
    if cap.taken_back:
        parts.append(Said("back %(n)s cards from %(player)s", n=len(cap.taken_back), player=players[cap.chain[-2]]))
    if table:
        # a card or two by name ("as de oros"), a run by its ranks ("caballo-sota-7-6")
        parts.append(
            _and([c.pretty() for c in table]) if len(table) <= 2 else Joined((_rank(c.rank) for c in table), "-")
        )
    parts += [
        Said("%(player)s's pile on %(rank)s", player=players[owner], rank=_rank(pile[-1].rank))
        for owner, pile in cap.blocks
    ]
    taken = _and(parts)
    if cap.call:
        head = Said(
            "%(player)s's %(call)s on the %(rank)ss takes %(cards)s",
            player=players[cap.seat],
            call=CALL_WORDS[cap.call],
            rank=_rank(cap.rank),
            cards=taken,
        )
    else:
        head = Said("takes %(cards)s", cards=taken)  # the narration has just named the card played
    words: list[str] = [head]
    chain_pay = [p for p in cap.payments if p.why != "clear"]
    if chain_pay:
        words.append(_who_pays(state, chain_pay))
    if cap.cleared:
        clear_pay = [p for p in cap.payments if p.why == "clear"]
        if clear_pay:
            words += [Said("clears the table"), _who_pays(state, clear_pay)]
        elif final and not state.options.lastPlayClears:
            words.append(Said("clears the table with the last play: nobody pays"))
        else:
            words.append(Said("clears the table"))
    return Joined(words, "; ")


def _hand_end(state: State) -> Joined:
    """The hand's end: each pile's cards, the leftovers, who wins the hand (and the game)."""
    hand = state.current
    assert hand is not None and hand.facts is not None
    hs = state.scores[-1]
    counts = _each(state.players, hs.cards)
    if not hand.facts.table:
        head = Said("the hand is over: %(counts)s cards", counts=counts)
    elif hs.table_to is not None:
        head = Said(
            "the hand is over: %(counts)s cards (%(table)s left on the table, %(player)s's as the last to capture)",
            counts=counts,
            table=hand.facts.table,
            player=state.players[hs.table_to],
        )
    else:
        head = Said(
            "the hand is over: %(counts)s cards (%(table)s left on the table, for nobody)",
            counts=counts,
            table=hand.facts.table,
        )
    wins = "-".join(map(str, hs.totals))
    won = _names(state.players, hs.winners)
    words: list[str] = [
        head,
        Said("%(players)s wins the hand (wins %(wins)s)", players=won, wins=wins)
        if len(hs.winners) == 1
        else Said("%(players)s win the hand (wins %(wins)s)", players=won, wins=wins),
    ]
    if state.over and state.end == len(state.hands) - 1:
        champions = _names(state.players, state.winners)
        words.append(
            Said("%(players)s wins the game", players=champions)
            if len(state.winners) == 1
            else Said("%(players)s win the game", players=champions)
        )
    return Joined(words, "; ")


def _each(players: Sequence[str], values: Sequence[int]) -> Joined:
    """A number per player: ``A 13, B 9``."""
    return Joined((Joined([players[s], str(v)], " ") for s, v in enumerate(values)), ", ")


def narrate(before: State | None, event: Event, after: State) -> str:
    """Tell the move in words, as the table would say it.

    ``A plays caballo de oros: takes caballo-sota-7-6-4-3 and B's pile on 5; clears the table; C pays 1``.
    Only face-up facts are told (hand cards are never named except by a ``reveal``). Every sentence
    is a message id with named parts (:mod:`engines.said`), so each language says it in its order.
    """
    d = event.data
    players = after.players
    hand = after.current
    match event.type:
        case "match_started":
            return Counted(
                "Cau Robat: %(players)s, anticlockwise; first to %(n)s hand win",
                "Cau Robat: %(players)s, anticlockwise; first to %(n)s hand wins",
                after.target,
                players=Listed(players),
            )
        case "hand_started":
            assert hand is not None
            if hand.result_only:
                return Said(
                    "Hand %(hand)s: %(dealer)s deals; the hand is recorded by its result only",
                    hand=hand.number,
                    dealer=players[hand.dealer],
                )
            return Said(
                "Hand %(hand)s: %(dealer)s deals; table %(table)s; %(player)s plays first",
                hand=hand.number,
                dealer=players[hand.dealer],
                table=card_list(hand.table),
                player=players[hand.turn],
            )
        case "play":
            assert hand is not None and hand.last is not None
            out = hand.last
            name, card = players[out.seat], out.card.pretty()
            words: str = (
                Said("%(player)s plays %(card)s out of turn", player=name, card=card)
                if out.out_of_turn
                else Said("%(player)s plays %(card)s", player=name, card=card)
            )
            if out.extended:
                words = Joined([words, CALL_WORDS[out.extended]], ": ")
            bits: list[str] = [capture_words(after, cap, out.ended) for cap in out.captures]
            if out.trailed:
                bits.append(Said("%(rank)s stays on the table", rank=_the_rank(out.card.rank)))
            if bits:
                words = Joined([words, Joined(bits, "; ")], ", " if out.extended else ": ")
            if out.ended:
                words = Joined([words, _hand_end(after)], "; ")
            return words
        case "reveal":
            withheld = withheld_reveal(d.get("cards", []))
            if withheld:
                return withheld
            parts = []
            for b in d.get("cards", []):
                seat = b.get("seat")
                parts.append(
                    Said(
                        "%(player)s holds %(card)s",
                        player=players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?",
                        card=_pretty(b.get("card")),
                    )
                )
            return Said("Revealed: %(cards)s", cards=Joined(parts))
        case "hand_result":
            assert hand is not None
            if before is not None and before.current is not None and before.current.facts is None:
                facts = hand.facts
                assert facts is not None
                counts = _each(players, facts.piles)
                head = (
                    Said(
                        "Hand %(hand)s closed from the score sheet after move %(move)s: %(counts)s cards, "
                        "%(table)s left on the table",
                        hand=hand.number,
                        move=hand.closed_after,
                        counts=counts,
                        table=facts.table,
                    )
                    if hand.closed_after is not None
                    else Said(
                        "Hand %(hand)s result: %(counts)s cards, %(table)s left on the table",
                        hand=hand.number,
                        counts=counts,
                        table=facts.table,
                    )
                )
                return Joined([head, *_hand_end(after).items[1:]], "; ")
            return Said("The table's result for hand %(hand)s agrees with the record", hand=hand.number)
        case _:
            return event.type


def _pretty(text: object) -> str:
    try:
        card = read_card(text)
    except RuleViolation:
        return str(text)
    return card.pretty() if card is not None else "??"
