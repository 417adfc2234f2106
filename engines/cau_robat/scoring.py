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
from engines.finished import FinishedHands
from engines.said import Counted, Listed, Said


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
        took: str = Counted("%(n)s card", "%(n)s cards", count)
        if hs.table_to == s:
            took = Said(
                "%(cards)s (%(pile)s in the pile and the %(table)s left on the table, as the last to capture)",
                cards=took,
                pile=hand.facts.piles[s],
                table=hand.facts.table,
            )
        elif hand.facts.table and hs.table_to is None and s in hs.winners:
            took = Counted(
                "%(cards)s (the %(n)s card left on the table count for nobody)",
                "%(cards)s (the %(n)s cards left on the table count for nobody)",
                hand.facts.table,
                cards=took,
            )
        if s in hs.winners:
            others = [w for w in hs.winners if w != s]
            why = (
                Said(
                    "%(cards)s, the most (tied with %(players)s): hand won",
                    cards=took,
                    players=Listed(state.players[w] for w in others),
                )
                if others
                else Said("%(cards)s, the most: hand won", cards=took)
            )
            lines.append({"seat": s, "points": 1, "reason": why, "rule": RULE_SCORE})
        else:
            why = Said(
                "%(cards)s; %(players)s took the most (%(best)s): no win",
                cards=took,
                players=Listed(state.players[w] for w in hs.winners),
                best=best,
            )
            lines.append({"seat": s, "points": 0, "reason": why, "rule": RULE_SCORE})
    return lines


FINISHED = FinishedHands()
"""The entries of finished hands (:mod:`engines.finished`): a long match is scored again after each event."""


def _finished_entry(state: State, hand: Hand, hs: HandScore) -> dict[str, Any]:
    """A finished hand's entry of the sheet: it reads the hand, its score and the players' names."""
    entry = {
        "hand": hand.number,
        "status": "scored",
        "result": _result(state, hand, hs),
        "lines": _lines(state, hand, hs),
        "points": list(hs.cards),
        "totals": list(hs.totals),
    }
    if hand.closed_after is not None and hand.facts is not None:
        entry["closedFromSheet"] = {"afterMove": hand.closed_after, "seq": hand.facts.seq}
    return entry


def score(state: State) -> dict[str, Any]:
    """Return the score sheet: VOCABULARY.md §6 ``{"hands", "standings", "end"}``.

    Each hand also carries ``points`` (cards per seat, after leftovers; None while in play)
    and ``totals`` (hand wins after it), which the audit compares with ``score_claimed``.
    A Cau Robat hand is never incomplete: every card that scores was played face up.
    """
    out: list[dict[str, Any]] = []
    for i, hand in enumerate(state.hands):
        if i < len(state.scores):  # made once per hand (what it reads is its key), not once per read
            hs = state.scores[i]
            out.append(FINISHED.entry((hand, hs, state.players), lambda: _finished_entry(state, hand, hs)))
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
        end = {"over": True, "winners": list(state.winners), "reason": _end_reason(state), "rule": RULE_END}
    return {"hands": out, "standings": standings, "end": end}


def _end_reason(state: State) -> Counted:
    """Why the match is over: who reached the target, after which hand, and how a tie is read."""
    assert state.end is not None
    parts = {"players": Listed(state.players[s] for s in state.winners), "hand": state.hands[state.end].number}
    several = len(state.winners) > 1
    if state.tie == "playOn" and not several:  # under playOn the match ends only with one leader
        return Counted(
            "%(players)s reaches %(n)s hand win after hand %(hand)s and leads alone",
            "%(players)s reaches %(n)s hand wins after hand %(hand)s and leads alone",
            state.target,
            **parts,
        )
    if several:
        return Counted(
            "%(players)s reach %(n)s hand win after hand %(hand)s, in the same hand: they share the game",
            "%(players)s reach %(n)s hand wins after hand %(hand)s, in the same hand: they share the game",
            state.target,
            **parts,
        )
    return Counted(
        "%(players)s reaches %(n)s hand win after hand %(hand)s",
        "%(players)s reaches %(n)s hand wins after hand %(hand)s",
        state.target,
        **parts,
    )


__all__ = ["hand_cards", "score"]
