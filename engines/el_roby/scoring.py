"""El Roby's scoring: hand points (docs/RULES.md §4.5), busts, re-buys, stakes and the pot (§4.6).

A scored hand is a :class:`~engines.el_roby.state.Record`; :func:`settle` turns it, with
the re-buys decided after it, into the standings and money after the hand. The match's
money ledger always balances: the players' money plus the pot is zero (each player starts
at minus the entry, the pot at the entries).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from engines.cards import Card
from engines.common import quick_replace
from engines.finished import FinishedHands
from engines.el_roby.state import (
    LIMIT,
    RULE_MONEY,
    RULE_SCORE,
    Options,
    Record,
    Seat,
    State,
    spell_points,
)
from engines.said import Counted, Joined, Said


@quick_replace
class Settlement(NamedTuple):
    """What a scored hand and its re-buys give (all per seat, in seat order)."""

    raw: tuple[int | None, ...]
    """Scores after adding the hand's points (before re-buys)."""
    busted: tuple[Seat, ...]
    """Seats that reached 100 or more with this hand."""
    remaining: tuple[Seat, ...]
    """Seats still at 99 or less after the hand (R = their number)."""
    price: int | None
    """The re-buy price, None when no re-buy is possible (one player left, or nobody busted)."""
    reentry: int | None
    rebuys: tuple[Seat, ...]
    stakes: tuple[int, ...]
    """Money each seat gains (+) or pays (−) in stakes for this hand."""
    totals: tuple[int | None, ...]
    """Scores after re-buys; None for seats out of the game before the hand."""
    money: tuple[int, ...]
    """Net money per seat after the hand (cumulative)."""
    pot: int
    winner: Seat | None
    """The last player left, who takes the pot (the match is over)."""
    eliminated: tuple[Seat, ...]
    """Busted seats without a re-buy: out once the next hand starts."""
    pot_won: int


def price_of(pot: int, denominator: int, options: Options) -> int:
    """Return the re-buy price: the pot over the denominator, rounded to whole money units."""
    if options.rebuyRounding == "down":
        return pot // denominator
    return math.ceil(pot / denominator) if pot % denominator else pot // denominator


def settle(rec: Record, options: Options) -> Settlement:
    """Settle a scored hand with the re-buys recorded after it (docs/RULES.md §4.5, §4.6)."""
    n = len(rec.before)
    money = list(rec.money)
    if rec.void:
        return Settlement(
            rec.before,
            (),
            tuple(s for s in range(n) if rec.before[s] is not None),
            None,
            None,
            (),
            (0,) * n,
            rec.before,
            rec.money,
            rec.pot,
            None,
            (),
            0,
        )
    raw = tuple(None if b is None else b + (rec.points[s] or 0) for s, b in enumerate(rec.before))
    busted = tuple(s for s in range(n) if rec.points[s] is not None and raw[s] is not None and raw[s] > LIMIT)  # type: ignore[operator]
    remaining = tuple(s for s in range(n) if raw[s] is not None and raw[s] <= LIMIT)  # type: ignore[operator]
    over = len(remaining) <= 1
    price = reentry = None
    rebuys: tuple[Seat, ...] = ()
    if not over and busted:
        reentry = max(raw[s] for s in remaining)  # type: ignore[type-var]
        rebuys = tuple(s for s in rec.rebuys if s in busted)
        denominator = len(remaining) + (len(rebuys) if options.rebuyDenominator == "includeRebuyers" else 0)
        price = price_of(rec.pot, denominator, options)
    totals = list(raw)
    pot = rec.pot
    for s in rebuys:
        totals[s] = reentry
        money[s] -= price or 0
        pot += price or 0
    stakes = [0] * n
    maker = rec.out
    if maker is not None and options.stake:
        for s in range(n):
            if s == maker or rec.points[s] is None:
                continue
            if s in busted and s not in rebuys:
                continue
            stakes[s] -= options.stake
            stakes[maker] += options.stake
    for s in range(n):
        money[s] += stakes[s]
    winner = remaining[0] if over and remaining else None
    pot_won = 0
    if winner is not None:
        pot_won = pot
        money[winner] += pot
        pot = 0
    eliminated = tuple(s for s in busted if s not in rebuys)
    return Settlement(
        raw,
        busted,
        remaining,
        price,
        reentry,
        rebuys,
        tuple(stakes),
        tuple(totals),
        tuple(money),
        pot,
        winner,
        eliminated,
        pot_won,
    )


def standings_now(state: State) -> tuple[tuple[int | None, ...], tuple[int, ...], int, Seat | None, tuple[Seat, ...]]:
    """Return the current scores, money, pot, the winner (if the match is over) and busted seats still deciding.

    Scores are None for seats out of the game; a busted seat without a re-buy keeps its
    score until the next hand starts (it may still re-buy).
    """
    if state.records and not state.records[-1].final:
        st = settle(state.records[-1], state.options)
        return st.totals, st.money, st.pot, st.winner, (() if st.winner is not None else st.eliminated)
    return state.scores, state.money, state.pot, None, ()


def winner(state: State) -> Seat | None:
    """Return the last player left once the match is over, else None."""
    return standings_now(state)[3]


# --------------------------------------------------------------------------- the score sheet


def _cards_words(cards: object) -> str:
    if isinstance(cards, int):
        return Said("cards worth %(points)s (only the total was written)", points=cards)
    assert isinstance(cards, tuple)
    return spell_points(c for c in cards if isinstance(c, Card))


def hand_entry(state: State, rec: Record) -> dict[str, Any]:
    """Return one scored hand of the score sheet: result, lines, points and totals."""
    names = state.players
    st = settle(rec, state.options)
    n = len(rec.before)
    lines: list[dict[str, Any]] = []

    def line(seat: int, pts: int, money: int, reason: str, rule: str) -> None:
        lines.append({"seat": seat, "points": pts, "money": money, "reason": reason, "rule": rule})

    if rec.void:
        for s in range(n):
            if rec.before[s] is not None:
                line(
                    s,
                    0,
                    0,
                    Said("the stock ran out: the hand is void, nobody scores (stockOut = voidHand)"),
                    "/rules/el-roby#stock-out",
                )
    else:
        assert rec.out is not None
        for s in range(n):
            if rec.points[s] is None:
                continue
            if s == rec.out:
                line(
                    s,
                    0,
                    0,
                    Said(
                        "%(player)s made Roby (went out): 0 points, stays at %(points)s",
                        player=names[s],
                        points=rec.before[s],
                    ),
                    RULE_SCORE,
                )
                continue
            got = rec.points[s] or 0
            after = st.raw[s]
            kept = {"player": names[s], "cards": _cards_words(rec.cards[s]), "before": rec.before[s], "points": got}
            if s in st.busted:
                words = Said(
                    "%(player)s keeps %(cards)s: %(before)s + %(points)s = %(total)s (100 or more: over the limit)",
                    total=after,
                    **kept,
                )
            else:
                words = Said("%(player)s keeps %(cards)s: %(before)s + %(points)s = %(total)s", total=after, **kept)
            line(s, got, 0, words, RULE_SCORE)
        for s in st.rebuys:
            raw_s = st.raw[s]
            assert st.reentry is not None and st.price is not None and raw_s is not None
            rebuy = {
                "player": names[s],
                "price": st.price,
                "pot": rec.pot,
                "players": len(st.remaining)
                + (len(st.rebuys) if state.options.rebuyDenominator == "includeRebuyers" else 0),
                "points": st.reentry,
            }
            if state.options.rebuyRounding == "down":
                words = Said(
                    "%(player)s re-buys: pays %(price)s into the pot (%(pot)s ÷ %(players)s, rounded down) and re-enters "
                    "at %(points)s, the highest score still in",
                    **rebuy,
                )
            else:
                words = Said(
                    "%(player)s re-buys: pays %(price)s into the pot (%(pot)s ÷ %(players)s, rounded up) and re-enters "
                    "at %(points)s, the highest score still in",
                    **rebuy,
                )
            line(s, st.reentry - raw_s, -st.price, words, RULE_MONEY)
        for s in st.eliminated:
            if st.winner is not None:
                why = Said(
                    "%(player)s is out of the game: only %(winner)s is left at 99 or less, so no re-buy is possible",
                    player=names[s],
                    winner=names[st.winner],
                )
            elif rec.final:
                why = Said("%(player)s did not re-buy: out of the game", player=names[s])
            else:
                why = Said(
                    "%(player)s did not re-buy: out of the game unless a re-buy is recorded before the next hand",
                    player=names[s],
                )
            line(s, 0, 0, why, RULE_MONEY)
        maker = rec.out
        if state.options.stake:
            payers = [s for s in range(n) if st.stakes[s] < 0]
            for s in payers:
                line(
                    s,
                    0,
                    st.stakes[s],
                    Said(
                        "%(player)s pays %(maker)s the stake of %(stake)s for the Roby",
                        player=names[s],
                        maker=names[maker],
                        stake=state.options.stake,
                    ),
                    RULE_MONEY,
                )
            skipped = [s for s in st.eliminated]
            if payers or skipped:
                collects: str
                if skipped:
                    collects = Counted(
                        "%(player)s collects %(money)s in stakes (%(players)s went over 99 without a re-buy and pays "
                        "nothing)",
                        "%(player)s collects %(money)s in stakes (%(players)s went over 99 without a re-buy and pay "
                        "nothing)",
                        len(skipped),
                        player=names[maker],
                        money=st.stakes[maker],
                        players=Joined([names[s] for s in skipped], ", "),
                    )
                else:
                    collects = Said(
                        "%(player)s collects %(money)s in stakes", player=names[maker], money=st.stakes[maker]
                    )
                line(maker, 0, st.stakes[maker], collects, RULE_MONEY)
        if st.winner is not None:
            line(
                st.winner,
                0,
                st.pot_won,
                Said(
                    "%(player)s is the last player at 99 or less and wins the match: takes the pot of %(pot)s",
                    player=names[st.winner],
                    pot=st.pot_won,
                ),
                RULE_MONEY,
            )
    result = {
        "out": rec.out,
        "void": rec.void,
        "points": list(rec.points),
        "busted": list(st.busted),
        "rebuys": list(st.rebuys),
        "price": st.price,
        "reentry": st.reentry,
        "stakes": list(st.stakes),
        "eliminated": list(st.eliminated),
        "money": list(st.money),
        "pot": st.pot,
    }
    totals = [None if rec.before[s] is None else st.totals[s] for s in range(n)]
    entry = {
        "hand": rec.number,
        "status": "scored",
        "result": result,
        "lines": lines,
        "points": list(rec.points),
        "totals": totals,
    }
    if rec.closed_from_sheet is not None:
        entry["closedFromSheet"] = {"afterMove": rec.closed_from_sheet[0], "seq": rec.closed_from_sheet[1]}
    return entry


FINISHED = FinishedHands()
"""The entries of finished hands (:mod:`engines.finished`): a long match is scored again after each event;
a hand's entry (:func:`hand_entry`) reads its record, the players' names and the options."""


def score(state: State) -> dict[str, Any]:
    """Return the score sheet: VOCABULARY.md §6 ``{"hands", "standings", "end"}``.

    Each hand carries ``points`` (card points added, 0 for the Roby maker, None for seats
    not dealt in) and ``totals`` (scores after re-buys); its ``result`` holds ``money``
    (net per seat after the hand) and ``pot``. Standings add ``money``, ``pot`` and the
    seat's money ``ledger`` (entry, re-buys, stakes, the pot), which with the pot sums to zero.
    """
    out: list[dict[str, Any]] = []
    by_number = {r.number: r for r in state.records}
    numbers = sorted(set(by_number) | ({state.current.number} if state.current is not None else set()))
    for number in numbers:
        if number in by_number:  # made once per hand (what it reads is its key), not once per read
            record = by_number[number]
            out.append(FINISHED.entry((record, state.players, state.options), lambda: hand_entry(state, record)))
            continue
        hand = state.current
        assert hand is not None
        scores, money, pot, _, _ = standings_now(state)
        entry: dict[str, Any] = {
            "hand": number,
            "status": "playing",
            "lines": [],
            "points": None,
            "totals": list(scores),
            "result": {
                "out": hand.out,
                "void": False,
                "points": None,
                "busted": [],
                "rebuys": [],
                "price": None,
                "reentry": None,
                "stakes": [0] * state.n,
                "eliminated": [],
                "money": list(money),
                "pot": pot,
            },
        }
        if hand.over and not hand.result_only:
            missing = [{"seat": s} for s in hand.seats if s != hand.out for _ in range(hand.unknown[s])]
            entry["status"] = "incomplete"
            entry["missing"] = missing
            entry["lines"] = [
                {
                    "seat": s,
                    "points": 0,
                    "money": 0,
                    "rule": RULE_SCORE,
                    "reason": Counted(
                        "%(player)s holds %(n)s card never shown: the hand needs its showdown",
                        "%(player)s holds %(n)s cards never shown: the hand needs its showdown",
                        hand.unknown[s],
                        player=state.players[s],
                    ),
                }
                for s in hand.seats
                if hand.unknown[s] and s != hand.out
            ]
        out.append(entry)
    scores, money, pot, win, deciding = standings_now(state)
    standings = []
    ledgers = money_ledger(state)
    for s in range(state.n):
        status = "playing"
        if scores[s] is None:
            status = "out"
        elif win is not None:
            status = "winner" if s == win else "out"
        last = scores[s]
        if last is None:
            last = next(
                (b + (r.points[s] or 0) for r in reversed(state.records) if (b := r.before[s]) is not None), None
            )
        standings.append(
            {
                "seat": s,
                "name": state.players[s],
                "total": last,
                "status": status,
                "money": money[s],
                "pot": pot,
                "deciding": s in deciding,
                "ledger": ledgers[s],
            }
        )
    end: dict[str, Any] = {"over": False}
    if win is not None:
        end = {
            "over": True,
            "winners": [win],
            "rule": RULE_MONEY,
            "reason": Said(
                "%(player)s is the last player at 99 or less after hand %(hand)s and wins the match and the pot",
                player=state.players[win],
                hand=state.records[-1].number,
            ),
        }
    return {"hands": out, "standings": standings, "end": end}


def money_ledger(state: State) -> list[list[dict[str, Any]]]:
    """Return each seat's money movements over the match: entry, re-buys, stakes, the pot."""
    out: list[list[dict[str, Any]]] = [[] for _ in range(state.n)]
    for s in range(state.n):
        start = state.initial_money[s]
        why = (
            Said("carried in from the paper sheet")
            if state.carried
            else Said("entry paid into the pot (%(entry)s)", entry=state.options.entry)
        )
        out[s].append({"hand": None, "money": start, "reason": why})
    for rec in state.records:
        st = settle(rec, state.options)
        for s in st.rebuys:
            out[s].append({"hand": rec.number, "money": -(st.price or 0), "reason": Said("re-buy into the pot")})
        for s in range(state.n):
            if st.stakes[s]:
                out[s].append({"hand": rec.number, "money": st.stakes[s], "reason": Said("stakes for the Roby")})
        if st.winner is not None:
            out[st.winner].append({"hand": rec.number, "money": st.pot_won, "reason": Said("takes the pot")})
    return out
