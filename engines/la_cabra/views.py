"""What La Cabra shows: legal moves, per-seat views, the move in words, the game's description.

Views are built apart from the rules (OpenSpiel's observers): a seat sees the public table,
its own hand and its own face-down discards, never another seat's hidden cards.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping

from engines.base import COMMON_EVENTS, Event
from engines.cards import Card, texts
from engines.common import options_described, pretty_written, withheld_reveal
from engines.privacy import ACTOR, NOBODY, OWNER, Declarations, Private
from engines.la_cabra import forms
from engines.la_cabra.options import OPTIONS
from engines.la_cabra.scoring import returned_trump
from engines.said import Counted, Joined, Listed, Said
from engines.la_cabra.state import (
    DECK,
    GAME,
    HAND_SIZE,
    SEATS,
    TEAMS,
    Hand,
    Play,
    State,
    can_beat,
    card_list,
    points,
    read_card,
    sorted_cards,
    suit_sign,
    team_name,
    team_of,
)

EVENTS = ["match_started", "hand_started", "lead", "beat", "discard", "tira", "reveal", "hand_result", *COMMON_EVENTS]


# --------------------------------------------------------------------------- private fields


def _discarded_face_down(options: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    """Discards are face down unless the match plays discardFaceUp."""
    return not options.get("discardFaceUp", False)


# Shown at the end of the deal: the trick piles, face-down discards included, are counted (docs/RULES.md §5).
PRIVATE: Declarations = {
    "hand_started": (Private(("hands", "*"), OWNER),),
    "discard": (Private(("cards",), ACTOR, "??", _discarded_face_down),),
    "reveal": (Private(("cards", "*", "card"), NOBODY),),  # a card a hand or a face-down discard still hides
    **{t: () for t in ("match_started", "lead", "beat", "tira", "hand_result", *COMMON_EVENTS)},
}
"""Which fields of each event type only some seats saw (engines/privacy.py reads it)."""


def describe() -> dict[str, Any]:
    """Describe the game for ``GET /games/la-cabra``: players, deck, options, events."""
    return {
        "game": GAME,
        "name": "La Cabra",
        "deck": Said("French 36 (6-A)"),
        "players": {"min": SEATS, "max": SEATS},
        "direction": "CW",
        "teams": [list(t) for t in TEAMS],
        "target": {"lossPoints": 12},
        "options": options_described(OPTIONS),
        "cards": forms.CARDS,
        "forms": forms.FORMS,
        "events": list(EVENTS),
    }


# --------------------------------------------------------------------------- legal moves


def _hand_cards(hand: Hand, seat: int) -> list[Card]:
    return sorted_cards(hand.known[seat])


def _tira_possible(state: State, hand: Hand, seat: int) -> bool:
    """Could ``seat`` hold four cards of one suit, given what the record knows?"""
    if hand.size(seat) != HAND_SIZE:
        return False
    suits = {c.suit for c in hand.known[seat]}
    if len(suits) > 1:
        return False
    need = hand.unknown[seat]
    barred = returned_trump(hand, state.options) if hand.refill_seq is None else None
    free = [c for c in DECK.distinct() if c not in hand.located and c != barred]
    return any(sum(1 for c in free if c.suit == s) >= need for s in (suits or {"C", "D", "H", "S"}))


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Return the event templates that may be recorded next (``[]`` once the series is over).

    Concrete moves when the acting seat's hand is fully known (every one-suit lead, every
    beat, every discard, written with the real cards); one template per move type with the
    fixed fields otherwise. Between hands the next ``hand_started`` (dealer and leader
    fixed when they are derived) and a ``hand_result`` cross-check with the derived facts.
    """
    if state.over:
        return []
    hand = state.current
    if hand is None:
        return [{"type": "hand_started", "data": {}}]
    if hand.result_only and not hand.over:
        return [{"type": "hand_result", "data": {}}]
    if hand.over:
        nxt: dict[str, Any] = {"dealer": (hand.dealer + 1) % SEATS}
        if hand.last_winner is not None:
            nxt["leader"] = hand.last_winner
        tricks = hand.final_tricks()
        check: dict[str, Any] = {} if tricks is None else {"tricks": list(tricks)}
        if hand.last_winner is not None:
            check["lastTrick"] = hand.last_winner
        if hand.facts is not None and hand.facts.points is not None:
            check["cardPoints"] = list(hand.facts.points)
        elif hand.facts is not None and hand.facts.base is not None and hand.from_sheet:
            check["lossPoints"] = list(hand.facts.base)
        return [{"type": "hand_started", "data": nxt}, {"type": "hand_result", "data": check}]
    moves: list[dict[str, Any]] = []
    turn = hand.turn()
    assert turn is not None and hand.trump is not None
    trick = hand.trick
    full = hand.unknown[turn] == 0
    mine = _hand_cards(hand, turn)
    if trick is None:
        if full:
            for n in range(1, len(mine) + 1):
                for combo in combinations(mine, n):
                    if len({c.suit for c in combo}) == 1:
                        moves.append({"type": "lead", "data": {"seat": turn, "cards": texts(combo)}})
        else:
            moves.append({"type": "lead", "data": {"seat": turn}})
    else:
        trump = hand.trump.suit or ""
        if full:
            for combo in combinations(mine, trick.k):
                if can_beat(combo, trick.winning, trump):
                    moves.append({"type": "beat", "data": {"seat": turn, "cards": texts(combo)}})
            for combo in combinations(mine, trick.k):
                moves.append({"type": "discard", "data": {"seat": turn, "cards": texts(combo)}})
        else:
            moves.append({"type": "beat", "data": {"seat": turn}})
            moves.append({"type": "discard", "data": {"seat": turn}})
    moves.append({"type": "hand_result", "data": {}})  # closing the deal from the score sheet
    if trick is not None and trick.tira is not None and not state.options.tiraInterruptsTira:
        return moves
    played = {p.seat for p in trick.plays} if trick is not None else {hand.to_lead}
    for s in range(SEATS):
        if s in played or not _tira_possible(state, hand, s):
            continue
        if hand.unknown[s] == 0:
            moves.append({"type": "tira", "data": {"seat": s, "cards": texts(_hand_cards(hand, s))}})
        else:
            moves.append({"type": "tira", "data": {"seat": s}})
    return moves


# --------------------------------------------------------------------------- views


def _play_view(play: Play, viewer: int | str | None) -> dict[str, Any]:
    visible = play.face_up or viewer == "all" or viewer == play.seat
    cards = texts(play.cards) if visible else ["??"] * len(play.cards)
    return {"seq": play.seq, "seat": play.seat, "type": play.kind, "cards": cards}


def view(state: State, seat: int | str | None = None) -> dict[str, Any]:
    """Return the state as ``seat`` sees it: None the public view, ``"all"`` everything recorded.

    A seat sees the public table (trump card, face-up plays, cards everyone saw return to a
    hand, counts), its own hand (``"??"`` for cards the record does not know) and its own
    face-down discards; never another seat's hidden cards or face-down discards.

    Raises:
        ValueError: ``seat`` is not None, ``"all"`` or a seat number.
    """
    if not (
        seat is None or seat == "all" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS)
    ):
        raise ValueError(f"seat must be None, 'all' or 0-3, not {seat!r}")
    out: dict[str, Any] = {
        "game": GAME,
        "players": list(state.players),
        "viewer": seat,
        "hand": 0,
        "lossPoints": list(state.totals),
        "over": state.over,
    }
    hand = state.current
    if hand is None:
        return out
    out.update(
        {
            "hand": hand.number,
            "dealer": hand.dealer,
            "leader": hand.leader,
            "resultOnly": hand.result_only,
            "dealOver": hand.over,
            "turn": hand.turn(),
        }
    )
    if hand.closed_seq:
        out["closedFromSheet"] = {"afterMove": hand.moves, "seq": hand.closed_seq}
    if hand.result_only or hand.trump is None:
        return out
    everything = seat == "all"
    out["trump"] = str(hand.trump)
    out["trumpSuit"] = hand.trump.suit
    out["stock"] = hand.stock
    hands = []
    for s in range(SEATS):
        entry: dict[str, Any] = {
            "seat": s,
            "name": state.players[s],
            "size": hand.size(s),
            "shown": texts(sorted_cards(hand.shown[s])),
        }
        if everything:
            entry["cards"] = texts(sorted_cards(hand.known[s])) + ["??"] * hand.unknown[s]
        hands.append(entry)
    out["hands"] = hands
    trick = hand.trick
    out["trick"] = (
        None
        if trick is None
        else {
            "leader": trick.leader,
            "originalLeader": trick.origin,
            "k": trick.k,
            "tira": trick.tira is not None,
            "winner": trick.winner,
            "winning": texts(trick.winning),
            "plays": [_play_view(p, seat) for p in trick.plays],
        }
    )
    last = hand.played[-1] if hand.played else None
    if last is None:
        out["lastTrick"] = None
    else:
        cards = [c for p in last.plays for c in p.cards]
        up = [c for p in last.plays if p.face_up for c in p.cards]
        entry = {"winner": last.winner, "plays": [_play_view(p, seat) for p in last.plays], "faceUpPoints": points(up)}
        if everything:
            refs = [{"seq": p.seq, "index": i} for p in last.plays for i, c in enumerate(p.cards) if c is None]
            entry.update({"points": None if refs else points(cards), "knownPoints": points(cards), "missing": refs})
        out["lastTrick"] = entry
    piles = []
    for t in (0, 1):
        up = [c for done in hand.played if team_of(done.winner) == t for p in done.plays if p.face_up for c in p.cards]
        pile: dict[str, Any] = {
            "team": t,
            "seats": list(TEAMS[t]),
            "cards": hand.pile_count[t],
            "tricks": hand.tricks[t],
            "faceUp": texts(sorted_cards(c for c in up if c is not None)),
        }
        if everything:
            pile.update(
                {
                    "known": texts(sorted_cards(hand.pile_known[t])),
                    "knownPoints": points(hand.pile_known[t]),
                    "missing": [{"seq": s, "index": i} for s, i in hand.pile_hidden[t]],
                }
            )
        piles.append(pile)
    out["piles"] = piles
    if isinstance(seat, int):
        out["cards"] = texts(sorted_cards(hand.known[seat])) + ["??"] * hand.unknown[seat]
        out["faceDown"] = texts(sorted_cards(hand.downs[seat]))
    elif everything:
        out["faceDown"] = [texts(sorted_cards(hand.downs[s])) for s in range(SEATS)]
    return out


# --------------------------------------------------------------------------- narration


def _face_down(n: int) -> Said:
    """Face-down cards counted, never named: ``face-down card``, ``2 face-down cards``."""
    return Said("face-down card") if n == 1 else Said("%(n)s face-down cards", n=n)


def _trick_end(state: State, before: Hand, after: Hand) -> list[str]:
    """The clauses that follow the move that ends a trick: who takes it, the refill, who leads."""
    done = after.played[-1]
    up = [c for p in done.plays if p.face_up for c in p.cards]
    down = sum(len(p.cards) for p in done.plays if not p.face_up)
    winner = state.players[done.winner]
    clauses: list[str] = [
        Said(
            "%(player)s takes the trick (%(points)s points face up and %(down)s)",
            player=winner,
            points=points(up),
            down=_face_down(down),
        )
        if down
        else Said("%(player)s takes the trick (%(points)s points)", player=winner, points=points(up))
    ]
    drawn = before.stock - after.stock
    if drawn:
        each = drawn // SEATS
        order = Listed(state.players[(done.winner + i) % SEATS] for i in range(SEATS))
        if after.stock == 0 and state.options.trumpCard == "bottomFaceUp" and after.trump is not None:
            clauses.append(
                Counted(
                    "%(players)s draw %(n)s card each (stock %(before)s → %(after)s), "
                    "%(player)s taking the face-up %(card)s last",
                    "%(players)s draw %(n)s cards each (stock %(before)s → %(after)s), "
                    "%(player)s taking the face-up %(card)s last",
                    each,
                    players=order,
                    before=before.stock,
                    after=after.stock,
                    player=state.players[(done.winner + drawn - 1) % SEATS],
                    card=after.trump.pretty(),
                )
            )
        else:
            clauses.append(
                Counted(
                    "%(players)s draw %(n)s card each (stock %(before)s → %(after)s)",
                    "%(players)s draw %(n)s cards each (stock %(before)s → %(after)s)",
                    each,
                    players=order,
                    before=before.stock,
                    after=after.stock,
                )
            )
    if not after.over:
        clauses.append(Said("%(player)s leads next", player=winner))
    return clauses


def _card_points(names: list[Listed], pts: tuple[int, int]) -> Said:
    return Said(
        "%(team0)s %(points0)s, %(team1)s %(points1)s card points",
        team0=names[0],
        points0=pts[0],
        team1=names[1],
        points1=pts[1],
    )


def _deal_end(state: State, *, intro: bool = True) -> tuple[list[str], list[str]]:
    """Words for a hand that just ended: card points, loss points, the series end.

    Returns what follows the sentence before it after a colon (the deal's outcome; with
    ``intro``, "the deal is over" and its card points first), and the clauses that follow
    it after a semicolon (what the outcome waits for, the end of the series).
    """
    hand = state.current
    assert hand is not None and hand.facts is not None
    i = len(state.hands) - 1
    names = [team_name(state.players, t) for t in (0, 1)]
    facts, hs = hand.facts, state.scores[i]
    outcome: list[str] = [Said("the deal is over")] if intro else []
    rest: list[str] = []
    if facts.base is None:
        rest.append(
            Counted(
                "its card points wait for %(n)s face-down card to be revealed",
                "its card points wait for %(n)s face-down cards to be revealed",
                len(facts.missing),
            )
        )
    else:
        if intro and facts.points is not None:
            outcome.append(_card_points(names, facts.points))
        if hs.points is None:
            rest.append(Said("its loss points wait for the previous hand's face-down cards"))
        elif facts.eggs:
            outcome.append(Said("eggs, no loss points"))
        else:
            loser = 0 if hs.points[0] else 1
            outcome.append(
                Said(
                    "%(team)s %(points)s loss points (totals %(total0)s–%(total1)s)",
                    team=names[loser],
                    points=hs.points[loser],
                    total0=hs.totals[0],
                    total1=hs.totals[1],
                )
            )
    if state.over and state.end == i:
        goat = 0 if hs.totals[0] >= 12 else 1
        rest.append(Said("%(team)s reach 12 loss points: the series is over, %(team)s are the goats", team=names[goat]))
    return outcome, rest


def _colon(first: str, then: list[str]) -> str:
    """A sentence and what it leads to, after a colon: ``Hand 2 result: …: eggs, no loss points``."""
    return Joined([first, *then], ": ") if then else first


def _clauses(first: str, then: list[str]) -> str:
    """Clauses side by side, after semicolons."""
    return Joined([first, *then]) if then else first


def narrate(before: State | None, event: Event, after: State) -> str:
    """Tell the move in words: ``North leads 9♥ K♥``, ``East beats with 10♥ 6♠``, trick ends, refills.

    The words hold only what the whole table saw, so a replay may show them beside any
    seat's view: face-down cards are counted, never named or valued (a ``reveal`` names
    what it reveals, as its event does). Card points are told at the deal's end. Every
    sentence is a message id with named parts (:mod:`engines.said`), so each language says
    it in its own order.
    """
    d = event.data
    players = after.players
    prev = before.current if before is not None else None
    hand = after.current
    seat = d.get("seat")
    name = players[seat] if isinstance(seat, int) and 0 <= seat < SEATS else "?"

    def shown() -> str:
        return pretty_written(d.get("cards", []), read_card)

    words: str
    match event.type:
        case "match_started":
            return Said(
                "La Cabra: %(team0)s against %(team1)s; the team that reaches 12 loss points loses the series",
                team0=team_name(players, 0),
                team1=team_name(players, 1),
            )
        case "hand_started":
            assert hand is not None
            if hand.result_only or hand.trump is None:
                return Said(
                    "Hand %(hand)s: %(dealer)s deals; the hand is recorded by its result only",
                    hand=hand.number,
                    dealer=players[hand.dealer],
                )
            assert hand.leader is not None
            if after.options.trumpCard == "bottomFaceUp":
                return Said(
                    "Hand %(hand)s: %(dealer)s deals; trump %(suit)s (%(card)s shown, face up at the bottom of the "
                    "stock); %(leader)s leads",
                    hand=hand.number,
                    dealer=players[hand.dealer],
                    suit=suit_sign(hand.trump),
                    card=hand.trump.pretty(),
                    leader=players[hand.leader],
                )
            return Said(
                "Hand %(hand)s: %(dealer)s deals; trump %(suit)s (%(card)s shown, put back into the stock); "
                "%(leader)s leads",
                hand=hand.number,
                dealer=players[hand.dealer],
                suit=suit_sign(hand.trump),
                card=hand.trump.pretty(),
                leader=players[hand.leader],
            )
        case "lead":
            words = Said("%(player)s leads %(cards)s", player=name, cards=shown())
        case "beat":
            words = Said("%(player)s beats with %(cards)s", player=name, cards=shown())
        case "discard":
            n = len(d.get("cards", []))
            words = (
                Said("%(player)s discards %(cards)s face up", player=name, cards=shown())
                if after.options.discardFaceUp
                else Counted(
                    "%(player)s discards %(n)s card face down",
                    "%(player)s discards %(n)s cards face down",
                    n,
                    player=name,
                )
            )
        case "tira":
            words = Said("%(player)s declares a tira: %(cards)s", player=name, cards=shown())
            if prev is not None and prev.trick is not None:
                back = [
                    Said(
                        "%(player)s's %(cards)s",
                        player=players[p.seat],
                        cards=card_list(p.cards) if p.face_up else _face_down(len(p.cards)),
                    )
                    for p in prev.trick.plays
                ]
                words = Joined(
                    [words, Counted("%(returned)s goes back", "%(returned)s go back", len(back), returned=Listed(back))]
                )
        case "reveal":
            withheld = withheld_reveal(d.get("cards", []))
            if withheld:
                return withheld
            parts: list[str] = []
            for b in d.get("cards", []):
                text = pretty_written([b.get("card")], read_card)
                if "seq" in b:
                    parts.append(
                        Said(
                            "card %(index)s of entry %(entry)s is %(card)s",
                            index=b.get("index"),
                            entry=b["seq"],
                            card=text,
                        )
                    )
                else:
                    parts.append(Said("%(player)s holds %(card)s", player=players[b["seat"]], card=text))
            revealed = Said("Revealed: %(cards)s", cards=Joined(parts))
            more: list[str] = []
            if before is not None and after.scores != before.scores:
                more.append(
                    Said("loss points now %(total0)s–%(total1)s", total0=after.totals[0], total1=after.totals[1])
                )
                if after.over and not before.over:
                    more.append(Said("the series is over"))
            return _clauses(revealed, more)
        case "hand_result":
            assert hand is not None
            first = prev is not None and prev.result_only and prev.claim is None
            closing = hand.closed_seq == event.seq
            if (first or closing) and hand.facts is not None:
                names = [team_name(players, t) for t in (0, 1)]
                pts, tricks = hand.facts.points, hand.final_tricks()
                result: str
                if pts is not None:
                    result = _card_points(names, pts)
                else:
                    loss = d.get("lossPoints", [0, 0])
                    result = Said(
                        "loss points %(team0)s %(loss0)s, %(team1)s %(loss1)s as written",
                        team0=names[0],
                        loss0=loss[0],
                        team1=names[1],
                        loss1=loss[1],
                    )
                if tricks is not None:
                    result = Joined(
                        [result, Said("tricks %(tricks0)s–%(tricks1)s", tricks0=tricks[0], tricks1=tricks[1])], ", "
                    )
                if closing and hand.moves:
                    head = Said(
                        "Hand %(hand)s closed from the score sheet after move %(moves)s: %(result)s",
                        hand=hand.number,
                        moves=hand.moves,
                        result=result,
                    )
                elif closing:
                    head = Said(
                        "Hand %(hand)s closed from the score sheet before any move: %(result)s",
                        hand=hand.number,
                        result=result,
                    )
                else:
                    head = Said("Hand %(hand)s result: %(result)s", hand=hand.number, result=result)
                outcome, rest = _deal_end(after, intro=False)
                return _clauses(_colon(head, outcome), rest)
            if before is not None and before.scores != after.scores:
                outcome, rest = _deal_end(after)
                return _clauses(
                    Said("The table's result for hand %(hand)s agrees with the record and scores it", hand=hand.number),
                    [_colon(outcome[0], outcome[1:]), *rest],
                )
            return Said("The table's result for hand %(hand)s agrees with the record", hand=hand.number)
        case _:
            return event.type
    if prev is not None and hand is not None and len(hand.played) > len(prev.played) and hand.number == prev.number:
        then = _trick_end(after, prev, hand)
        if hand.over:
            outcome, rest = _deal_end(after)
            then += [_colon(outcome[0], outcome[1:]), *rest]
        return _clauses(words, then)
    return words
