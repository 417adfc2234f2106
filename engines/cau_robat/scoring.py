"""Cau Robat's score sheet: cards per pile, hand winners (docs/RULES.md §1.5), hand wins and the match end (§1.6).

The hand column the table writes (``score_claimed.points``) is each seat's card count; the
running ``totals`` are hand wins. A hand's ``lines`` give one point per hand winner, so they
add up to the change in totals; each line says how many cards the seat took and why it won
or not.
"""

from __future__ import annotations

from typing import Any

from engines.cau_robat.rules import RULE_END, RULE_SCORE, hand_cards
from engines.cau_robat.state import Hand, HandScore, State
from engines.common import seat_names


def _calls(hand: Hand) -> list[dict[str, Any]]:
    return [{"rank": int(c.rank), "seats": list(c.seats), "call": c.call, "seq": c.seq} for c in hand.calls]


def _result(state: State, hand: Hand, hs: HandScore | None) -> dict[str, Any]:
    facts = hand.facts
    if facts is None:
        return {
            "cards": None,
            "piles": [len(p) for p in hand.piles] if hand.dealt else None,
            "table": len(hand.table) if hand.dealt else None,
            "tableTo": None,
            "lastCapturer": hand.last_capturer,
            "winners": None,
            "calls": _calls(hand),
        }
    assert hs is not None
    return {
        "cards": list(hs.cards),
        "piles": list(facts.piles),
        "table": facts.table,
        "tableTo": hs.table_to,
        "lastCapturer": facts.last_capturer,
        "winners": list(hs.winners),
        "calls": _calls(hand) if hand.dealt else None,
    }


def _lines(state: State, hand: Hand, hs: HandScore) -> list[dict[str, Any]]:
    assert hand.facts is not None
    best = max(hs.cards)
    lines = []
    for s, count in enumerate(hs.cards):
        took = f"{count} card{'s' if count != 1 else ''}"
        if hs.table_to == s:
            took += f" ({hand.facts.piles[s]} in the pile and the {hand.facts.table} left on the table, as the last to capture)"
        elif hand.facts.table and hs.table_to is None and s in hs.winners:
            took += f" (the {hand.facts.table} card{'s' if hand.facts.table != 1 else ''} left on the table count for nobody)"
        if s in hs.winners:
            others = [w for w in hs.winners if w != s]
            why = (
                f"{took}, the most"
                + (f" (tied with {seat_names(state.players, others)})" if others else "")
                + ": hand won"
            )
            lines.append({"seat": s, "points": 1, "reason": why, "rule": RULE_SCORE})
        else:
            why = f"{took}; {seat_names(state.players, hs.winners)} took the most ({best}): no win"
            lines.append({"seat": s, "points": 0, "reason": why, "rule": RULE_SCORE})
    return lines


def score(state: State) -> dict[str, Any]:
    """Return the score sheet: VOCABULARY.md §6 ``{"hands", "standings", "end"}``.

    Each hand also carries ``points`` (cards per seat, after leftovers; None while in play)
    and ``totals`` (hand wins after it), which the audit compares with ``score_claimed``.
    A Cau Robat hand is never incomplete: every card that scores was played face up.
    """
    out: list[dict[str, Any]] = []
    for i, hand in enumerate(state.hands):
        if i < len(state.scores):
            hs = state.scores[i]
            out.append(
                {
                    "hand": hand.number,
                    "status": "scored",
                    "result": _result(state, hand, hs),
                    "lines": _lines(state, hand, hs),
                    "points": list(hs.cards),
                    "totals": list(hs.totals),
                }
            )
            if hand.closed_after is not None and hand.facts is not None:
                out[-1]["closedFromSheet"] = {"afterMove": hand.closed_after, "seq": hand.facts.seq}
        else:
            out.append(
                {
                    "hand": hand.number,
                    "status": "playing",
                    "result": _result(state, hand, None),
                    "lines": [],
                    "points": None,
                    "totals": list(state.totals),
                }
            )
    totals = state.totals
    standings = []
    for s, name in enumerate(state.players):
        status = "playing" if not state.over else ("winner" if s in state.winners else "out")
        standings.append({"seat": s, "name": name, "total": totals[s], "status": status})
    end: dict[str, Any] = {"over": False}
    if state.over and state.end is not None:
        number = state.hands[state.end].number
        who = seat_names(state.players, state.winners)
        verb = "reach" if len(state.winners) > 1 else "reaches"
        reason = f"{who} {verb} {state.target} hand win{'s' if state.target > 1 else ''} after hand {number}"
        if state.tie == "playOn":
            reason += " and leads alone"
        elif len(state.winners) > 1:
            reason += ", in the same hand: they share the game"
        end = {"over": True, "winners": list(state.winners), "reason": reason, "rule": RULE_END}
    return {"hands": out, "standings": standings, "end": end}


__all__ = ["hand_cards", "score"]
