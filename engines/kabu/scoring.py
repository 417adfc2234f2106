"""Kabú's settlement (docs/RULES.md §2.4), insolvency and the end of the game (§2.5), and the score sheet.

Every pair of players in a hand settles by the difference of their values: the lower pays
the higher ``v_i − v_j`` chips, so each player's net is ``N·v − S`` (S the sum of the
values). A player who cannot pay everything he owes is *insolvent* and pays nobody; the
other transfers go through. Under ``solvency = net`` a player is insolvent when his chips,
plus what is actually paid to him, minus what he owes, fall below zero; since a debtor who
turns out insolvent pays nothing, the test is repeated until no one else fails it (the
first round is exactly docs/RULES.md's ``chips + owed to him − he owes < 0``).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Sequence

from engines.finished import FinishedHands
from engines.kabu.state import Adjust, Hand, Options, Payment, Seat, Settlement, State, value_words
from engines.said import Counted, Joined, Listed, Said

RULE_VALUES = "/rules/kabu#hand-value"
RULE_SETTLE = "/rules/kabu#scoring-settlement"
RULE_END = "/rules/kabu#scoring-match"


def settle(values: Sequence[int | None], before: Sequence[int], options: Options) -> Settlement:
    """Settle one hand: every pair pays the difference, insolvent players pay nobody (docs/RULES.md §2.4, §2.5).

    ``values`` has None for seats not in the hand.
    """
    n = len(before)
    seats = [s for s in range(n) if values[s] is not None]
    vals = {s: int(values[s]) for s in seats}  # type: ignore[arg-type]
    debts: list[tuple[Seat, Seat, int]] = []
    for a, b in combinations(seats, 2):
        d = vals[a] - vals[b]
        if d > 0:
            debts.append((b, a, d))
        elif d < 0:
            debts.append((a, b, -d))
    owes, owed = [0] * n, [0] * n
    for payer, payee, d in debts:
        owes[payer] += d
        owed[payee] += d
    insolvent: set[Seat] = set()
    if options.solvency == "gross":
        insolvent = {s for s in seats if before[s] < owes[s]}
    else:
        while True:
            receipts = [0] * n
            for payer, payee, d in debts:
                if payer not in insolvent and (options.insolventCollects or payee not in insolvent):
                    receipts[payee] += d
            fresh = {s for s in seats if s not in insolvent and before[s] + receipts[s] - owes[s] < 0}
            if not fresh:
                break
            insolvent |= fresh
    payments = tuple(
        Payment(payer, payee, d, payer not in insolvent and (options.insolventCollects or payee not in insolvent))
        for payer, payee, d in debts
    )
    net: list[int | None] = [0 if values[s] is not None else None for s in range(n)]
    for p in payments:
        if p.paid:
            net[p.payee] += p.chips  # type: ignore[operator]
            net[p.payer] -= p.chips  # type: ignore[operator]
    after = tuple(before[s] + (net[s] or 0) for s in range(n))
    return Settlement(
        tuple(values), tuple(before), tuple(owes), tuple(owed), payments, frozenset(insolvent), tuple(net), after
    )


def winners(state: State) -> list[Seat]:
    """Return the seats holding the most chips (ties share the win); seats that left do not count."""
    pool = [s for s in state.seats if state.active[s]] or list(state.seats)
    best = max(state.chips[s] for s in pool)
    return [s for s in pool if state.chips[s] == best]


# --------------------------------------------------------------------------- words


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def insolvency_words(state: State, st: Settlement, seat: Seat) -> Counted:
    """Why a seat is insolvent, as the option says: ``holds 5 chips but owes 8 in all``."""
    name = state.players[seat]
    if state.options.solvency == "gross":
        return Counted(
            "%(player)s holds %(n)s chip but owes %(owes)s in all: insolvent, pays nobody",
            "%(player)s holds %(n)s chips but owes %(owes)s in all: insolvent, pays nobody",
            st.before[seat],
            player=name,
            owes=st.owes[seat],
        )
    return Counted(
        "%(player)s holds %(n)s chip, owes %(owes)s and would be paid %(owed)s; what reaches him leaves him short: "
        "insolvent (net test), pays nobody",
        "%(player)s holds %(n)s chips, owes %(owes)s and would be paid %(owed)s; what reaches him leaves him short: "
        "insolvent (net test), pays nobody",
        st.before[seat],
        player=name,
        owes=st.owes[seat],
        owed=st.owed[seat],
    )


def hand_lines(state: State, hand: Hand, st: Settlement, adjusts: Sequence[Adjust]) -> list[dict[str, Any]]:
    """Explain a settled hand: each seat's value, every pair's payment, each seat's net, moves of chips after it."""
    lines: list[dict[str, Any]] = []
    seats = [s for s in state.seats if st.values[s] is not None]
    n = len(seats)
    total = sum((int(v) for v in st.values if v is not None), 0)
    paid = {(p.payer, p.payee): p for p in st.payments}
    for s in seats:
        name = state.players[s]
        v = int(st.values[s])  # type: ignore[arg-type]
        cards = hand.final[s] if hand.final is not None else None
        if cards is not None:
            lines.append(
                {
                    "seat": s,
                    "points": 0,
                    "rule": RULE_VALUES,
                    "reason": Said(
                        "%(player)s shows %(cards)s: value %(value)s, the last digit",
                        player=name,
                        cards=value_words(cards),
                        value=v,
                    ),
                }
            )
        else:
            lines.append(
                {
                    "seat": s,
                    "points": 0,
                    "rule": RULE_VALUES,
                    "reason": Said("%(player)s's value is %(value)s, as the table wrote it", player=name, value=v),
                }
            )
        for t in seats:
            if t == s:
                continue
            other = state.players[t]
            w = int(st.values[t])  # type: ignore[arg-type]
            if v == w:
                lines.append(
                    {
                        "seat": s,
                        "points": 0,
                        "rule": RULE_SETTLE,
                        "reason": Said(
                            "%(player)s and %(other)s both have %(value)s: no payment",
                            player=name,
                            other=other,
                            value=v,
                        ),
                    }
                )
                continue
            payer, payee = (t, s) if v > w else (s, t)
            p = paid[(payer, payee)]
            debt = {
                "payer": state.players[payer],
                "payer_value": st.values[payer],
                "payee": state.players[payee],
                "payee_value": st.values[payee],
                "chips": p.chips,
            }
            if p.paid:
                lines.append(
                    {
                        "seat": s,
                        "points": p.chips if payee == s else -p.chips,
                        "rule": RULE_SETTLE,
                        "reason": Said(
                            "%(payer)s (%(payer_value)s) owes %(payee)s (%(payee_value)s) %(chips)s = "
                            "%(payee_value)s − %(payer_value)s: paid",
                            **debt,
                        ),
                    }
                )
            elif payer in st.insolvent:
                lines.append(
                    {
                        "seat": s,
                        "points": 0,
                        "rule": RULE_END,
                        "reason": Said(
                            "%(payer)s (%(payer_value)s) owes %(payee)s (%(payee_value)s) %(chips)s = "
                            "%(payee_value)s − %(payer_value)s: not paid, %(payer)s is insolvent and pays nobody",
                            **debt,
                        ),
                    }
                )
            else:
                lines.append(
                    {
                        "seat": s,
                        "points": 0,
                        "rule": RULE_END,
                        "reason": Said(
                            "%(payer)s (%(payer_value)s) owes %(payee)s (%(payee_value)s) %(chips)s = "
                            "%(payee_value)s − %(payer_value)s: not paid, %(payee)s is insolvent and collects nothing "
                            "(insolventCollects is off)",
                            **debt,
                        ),
                    }
                )
        if s in st.insolvent:
            lines.append({"seat": s, "points": 0, "rule": RULE_END, "reason": insolvency_words(state, st, s)})
        formula = n * v - total
        net = int(st.net[s])  # type: ignore[arg-type]
        figures = {
            "player": name,
            "net": _signed(net),
            "n": n,
            "value": v,
            "total": total,
            "before": st.before[s],
            "after": st.after[s],
        }
        if net == formula:
            words = Said(
                "%(player)s's net %(net)s = N·v − S = %(n)s × %(value)s − %(total)s; chips %(before)s → %(after)s",
                **figures,
            )
        else:
            lost_in = sum(p.chips for p in st.payments if p.payee == s and not p.paid)
            kept = sum(p.chips for p in st.payments if p.payer == s and not p.paid)
            words = Said(
                "%(player)s's net %(net)s: N·v − S = %(n)s × %(value)s − %(total)s = %(formula)s had every debt been "
                "paid; %(unpaid)s; chips %(before)s → %(after)s",
                formula=_signed(formula),
                unpaid=_unpaid(name, lost_in, kept),
                **figures,
            )
        lines.append({"seat": s, "points": 0, "rule": RULE_SETTLE, "reason": words})
    for a in adjusts:
        name = state.players[a.seat]
        if a.kind == "buy" and a.source is not None:
            bought = Counted(
                "%(player)s buys %(n)s chip from %(other)s between hands (chips move, not winnings)",
                "%(player)s buys %(n)s chips from %(other)s between hands (chips move, not winnings)",
                a.chips,
                player=name,
                other=state.players[a.source],
            )
            lines.append({"seat": a.seat, "points": a.chips, "rule": RULE_END, "reason": bought})
            lines.append({"seat": a.source, "points": -a.chips, "rule": RULE_END, "reason": bought})
        else:
            lines.append(
                {
                    "seat": a.seat,
                    "points": 0,
                    "rule": RULE_END,
                    "reason": Said("%(player)s leaves the game", player=name),
                }
            )
    return lines


def _unpaid(name: str, lost_in: int, kept: int) -> Said | Joined:
    """The debts of a seat's hand that were not paid: to it (``lost_in``), by it (``kept``)."""
    if lost_in and kept:
        return Said(
            "%(lost)s owed to %(player)s not paid and %(kept)s %(player)s owed not paid",
            lost=lost_in,
            kept=kept,
            player=name,
        )
    if lost_in:
        return Said("%(lost)s owed to %(player)s not paid", lost=lost_in, player=name)
    if kept:
        return Said("%(kept)s %(player)s owed not paid", kept=kept, player=name)
    return Joined([])


def hand_result(state: State, hand: Hand, st: Settlement, adjusts: Sequence[Adjust]) -> dict[str, Any]:
    """The facts of a settled hand (VOCABULARY.md §6: ``values``, ``net``, ``insolvent``, and the settlement)."""
    return {
        "hands": None if hand.final is None else [None if c is None else [str(x) for x in c] for c in hand.final],
        "values": list(st.values),
        "owes": [st.owes[s] if st.values[s] is not None else None for s in state.seats],
        "owedTo": [st.owed[s] if st.values[s] is not None else None for s in state.seats],
        "net": list(st.net),
        "insolvent": sorted(st.insolvent),
        "payments": [{"from": p.payer, "to": p.payee, "chips": p.chips, "paid": p.paid} for p in st.payments],
        "chipsBefore": list(st.before),
        "buys": [
            {"seat": a.seat, "from": a.source, "chips": a.chips, "seq": a.seq} for a in adjusts if a.kind == "buy"
        ],
        "left": [a.seat for a in adjusts if a.kind == "leave"],
    }


def _totals_after(st: Settlement, adjusts: Sequence[Adjust]) -> list[int]:
    totals = list(st.after)
    for a in adjusts:
        if a.kind == "buy" and a.source is not None:
            totals[a.seat] += a.chips
            totals[a.source] -= a.chips
    return totals


def missing(hand: Hand) -> list[dict[str, int]]:
    """The reveal references a hand waiting for its showdown still needs: one ``{seat}`` per unknown card."""
    return [{"seat": s} for s in hand.order for _ in range(hand.unknown[s])]


def end_words(state: State) -> Said:
    """Say why and how the match ended."""
    won = winners(state)
    best = state.chips[won[0]]
    who = (
        Said("%(player)s has the most chips (%(chips)s) and wins", player=state.players[won[0]], chips=best)
        if len(won) == 1
        else Said(
            "%(players)s share the win with %(chips)s chips each",
            players=Listed(state.players[s] for s in won),
            chips=best,
        )
    )
    if state.end_kind == "insolvency":
        st = state.settled[-1]
        how = Joined([insolvency_words(state, st, s) for s in sorted(st.insolvent)], "; ")
        return Said(
            "hand %(hand)s: %(why)s; the game ends and %(winners)s", hand=len(state.settled), why=how, winners=who
        )
    if state.end_kind == "alone":
        return Said("fewer than two players are left in the game: it ends and %(winners)s", winners=who)
    return Said("the agreed time is up: the game ends and %(winners)s", winners=who)


FINISHED = FinishedHands()
"""The entries of finished hands (:mod:`engines.finished`): a long match is scored again after each event."""


def _finished_entry(state: State, hand: Hand, st: Settlement, adjusts: Sequence[Adjust]) -> dict[str, Any]:
    """A settled hand's entry of the sheet: it reads the hand, its settlement, the buys after it, the
    players' names and the options (the solvency test's words), nothing else of the state."""
    entry = {
        "hand": hand.number,
        "status": "scored",
        "result": hand_result(state, hand, st, adjusts),
        "lines": hand_lines(state, hand, st, adjusts),
        "points": list(st.net),
        "totals": _totals_after(st, adjusts),
    }
    if hand.closed_after is not None:
        entry["closedFromSheet"] = {"afterMove": hand.closed_after, "seq": hand.ended_seq}
    return entry


def score(state: State) -> dict[str, Any]:
    """Return the score sheet: VOCABULARY.md §6 ``{"hands", "standings", "end"}``.

    Each hand also carries ``points`` (each seat's net chip change in the settlement, None
    for seats not in the hand) and ``totals`` (chips held after the hand and the buys that
    followed it), for the audit.
    """
    hands_out: list[dict[str, Any]] = []
    for i, hand in enumerate(state.hands):
        if i < len(state.settled):  # made once per hand (what it reads is its key), not once per read
            st, adjusts = state.settled[i], state.adjusts[i]
            parts = (hand, st, adjusts, state.players, state.options)
            hands_out.append(FINISHED.entry(parts, lambda: _finished_entry(state, hand, st, adjusts)))
            continue
        entry: dict[str, Any] = {
            "hand": hand.number,
            "status": "playing",
            "result": {
                "hands": None,
                "values": None,
                "owes": None,
                "owedTo": None,
                "net": None,
                "insolvent": [],
                "payments": [],
                "chipsBefore": list(state.chips),
                "buys": [],
                "left": [],
            },
            "lines": [],
            "points": None,
            "totals": list(state.chips),
        }
        if not hand.result_only and hand.phase == "showdown" and any(hand.unknown):
            entry["status"] = "incomplete"
            entry["missing"] = missing(hand)
        hands_out.append(entry)
    won = set(winners(state)) if state.over else set()
    pending_out = state.pending
    standings = []
    for s in state.seats:
        if s in won:
            status = "winner"
        elif state.over or not state.active[s] or s in pending_out:
            status = "out"  # as in every game: once the match has ended, whoever did not win is out
        else:
            status = "playing"
        standings.append({"seat": s, "name": state.players[s], "total": state.chips[s], "status": status})
    end: dict[str, Any] = {"over": False}
    if state.over:
        end = {"over": True, "winners": sorted(won), "reason": end_words(state), "rule": RULE_END, "by": state.end_kind}
    return {"hands": hands_out, "standings": standings, "end": end}
