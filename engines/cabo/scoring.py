"""Cabo's scoring: a round's scores (docs/RULES.md §3.4), the totals, the game's end (§3.5), the next start player.

A round is scored once it is over and every card left in the rows is known (a showdown,
reveals, or a recording that knew them all along); until then it is ``incomplete`` and
names the slots it still needs. A round is scored before the next one may start, so the
scores of earlier rounds never change.
"""

from __future__ import annotations

from typing import Any

from engines.cabo.state import KAMIKAZE, LIMIT, RESET_TO, ROW, Round, RoundScore, Seat, Sheet, State
from engines.common import seat_names
from engines.said import Joined, Said

RULE_ROUND = "/rules/cabo#scoring-round"
RULE_END = "/rules/cabo#scoring-match"


def final_layouts(rnd: Round) -> tuple[tuple[int, ...], ...]:
    """Each seat's final row as values (the round must be complete)."""
    rows = tuple(rnd.row_values(s) for s in range(rnd.seats))
    assert all(v is not None for row in rows for v in row)
    return rows  # type: ignore[return-value]


def kamikaze_of(layouts: tuple[tuple[int, ...], ...]) -> Seat | None:
    """The seat whose row is exactly 12, 12, 13, 13 (docs/RULES.md §3.4 step 1), if any."""
    return next((s for s, row in enumerate(layouts) if len(row) == ROW and tuple(sorted(row)) == KAMIKAZE), None)


def sheet_of(layouts: tuple[tuple[int, ...], ...], caller: Seat | None) -> Sheet:
    """The facts a round is scored from, read off its final rows."""
    return Sheet(tuple(sum(row) for row in layouts), caller, kamikaze_of(layouts), layouts)


def score_round(state: State, sheet: Sheet) -> RoundScore:
    """Score one round from its sums, caller and kamikaze, after the totals so far (docs/RULES.md §3.4).

    The rows, when the sheet has them, only spell each sum out in the lines: a round given
    by its sums alone scores exactly as the same round given by its rows.
    """
    p = state.players
    sums, caller, kamikaze, layouts = sheet
    n = len(sums)
    options = state.options

    def _spell(s: Seat) -> str:
        """``1 + 2 + 3 + 4 = 10`` from the rows; the sum alone from the sheet's sums."""
        if layouts is None or len(layouts[s]) == 1:
            return str(sums[s])
        return f"{' + '.join(map(str, layouts[s]))} = {sums[s]}"

    lines: list[tuple[Seat, int, str]] = []
    if kamikaze is not None:
        scores = tuple(0 if s == kamikaze else 50 for s in range(n))
        winners: tuple[Seat, ...] = (kamikaze,)
        for s in range(n):
            if s == kamikaze:
                shown = (
                    Said("cards %(cards)s: kamikaze (12, 12, 13, 13), 0 points", cards=" ".join(map(str, layouts[s])))
                    if layouts is not None
                    else Said("sum 50: kamikaze (12, 12, 13, 13), 0 points")
                )
                lines.append((s, 0, shown))
            elif s == caller:
                lines.append(
                    (
                        s,
                        50,
                        Said(
                            "sum %(sum)s; %(player)s shows 12 12 13 13 (kamikaze): 50 (the CABO caller too, without "
                            "the + %(penalty)s)",
                            sum=_spell(s),
                            player=p[kamikaze],
                            penalty=options.caller_penalty,
                        ),
                    )
                )
            else:
                lines.append(
                    (
                        s,
                        50,
                        Said(
                            "sum %(sum)s; %(player)s shows 12 12 13 13 (kamikaze): 50",
                            sum=_spell(s),
                            player=p[kamikaze],
                        ),
                    )
                )
    else:
        m = min(sums)
        low = tuple(s for s in range(n) if sums[s] == m)
        if caller is not None and sums[caller] == m:
            winners = (caller,)
            scores = tuple(0 if s == caller else sums[s] for s in range(n))
            for s in range(n):
                if s == caller:
                    said = (
                        Said(
                            "sum %(sum)s; called CABO and is lowest, tied with %(players)s: the caller wins the tie: 0",
                            sum=_spell(s),
                            players=seat_names(p, [x for x in low if x != s]),
                        )
                        if len(low) > 1
                        else Said("sum %(sum)s; called CABO and is lowest: 0", sum=_spell(s))
                    )
                    lines.append((s, 0, said))
                elif sums[s] == m:
                    lines.append(
                        (
                            s,
                            sums[s],
                            Said(
                                "sum %(sum)s; tied lowest with the CABO caller %(caller)s, who wins the tie: scores "
                                "the sum %(own)s",
                                sum=_spell(s),
                                caller=p[caller],
                                own=sums[s],
                            ),
                        )
                    )
                else:
                    lines.append((s, sums[s], Said("sum %(sum)s", sum=_spell(s))))
        elif caller is not None:
            winners = low
            penalty = options.caller_penalty
            if options.edition == 1:
                scores = tuple(0 if s in low else sums[s] + penalty if s == caller else sums[s] for s in range(n))
            else:
                scores = tuple(sums[s] + penalty if s == caller else sums[s] for s in range(n))
            for s in range(n):
                if s == caller:
                    lines.append(
                        (
                            s,
                            scores[s],
                            Said(
                                "sum %(sum)s; called CABO but %(low)s (%(players)s) is lowest: %(own)s + %(penalty)s "
                                "= %(score)s",
                                sum=_spell(s),
                                low=m,
                                players=seat_names(p, low),
                                own=sums[s],
                                penalty=penalty,
                                score=scores[s],
                            ),
                        )
                    )
                elif s in low and options.edition == 1:
                    lines.append((s, 0, Said("sum %(sum)s, lowest: 0", sum=_spell(s))))
                elif s in low:
                    lines.append(
                        (
                            s,
                            scores[s],
                            Said(
                                "sum %(sum)s, lowest, but the caller was not: everyone but the caller scores the sum "
                                "(edition 2)",
                                sum=_spell(s),
                            ),
                        )
                    )
                else:
                    lines.append((s, scores[s], Said("sum %(sum)s", sum=_spell(s))))
        else:
            winners = low
            scores = tuple(0 if s in low else sums[s] for s in range(n))
            for s in range(n):
                if s in low:
                    lines.append(
                        (
                            s,
                            0,
                            Said("sum %(sum)s, lowest (nobody called CABO: the draw pile ran out): 0", sum=_spell(s)),
                        )
                    )
                else:
                    lines.append((s, scores[s], Said("sum %(sum)s", sum=_spell(s))))
    before = state.totals
    used = set(state.reset_used)
    totals = []
    resets = []
    for s in range(n):
        t = before[s] + scores[s]
        if t == LIMIT and (options.edition == 1 or s not in used):
            resets.append(s)
            used.add(s)
            said = (
                Said(
                    "total %(before)s + %(score)s = exactly 100: reduced to 50 (the one reset of the second edition)",
                    before=before[s],
                    score=scores[s],
                )
                if options.edition == 2
                else Said(
                    "total %(before)s + %(score)s = exactly 100: reduced to 50", before=before[s], score=scores[s]
                )
            )
            lines.append((s, RESET_TO - LIMIT, said))
            t = RESET_TO
        elif t == LIMIT:
            lines.append((s, 0, Said("total exactly 100 again: no second reset in the second edition")))
        totals.append(t)
    order = sorted(range(len(lines)), key=lambda i: lines[i][0])
    return RoundScore(
        sums,
        caller,
        kamikaze,
        scores,
        winners,
        tuple(resets),
        tuple(totals),
        frozenset(used),
        tuple(lines[i] for i in order),
        layouts,
    )


def settle(state: State, rnd: Round) -> State:
    """Score a complete round and add it to the match (the round becomes the current one).

    A round with ``facts`` (result only, or closed from the score sheet) is scored from
    them; any other from its final rows.
    """
    sheet = rnd.facts if rnd.facts is not None else sheet_of(final_layouts(rnd), rnd.caller)
    scored = score_round(state, sheet)
    return state._replace(current=rnd._replace(score=scored), scores=state.scores + (scored,))


def allowed_dealers(state: State) -> list[Seat]:
    """The seats that may start (and deal) the next round (docs/RULES.md §3.2).

    First round (or the first after a paper sheet): anyone. Then the last round's winner;
    of several winners the one(s) with the lowest total; a remaining tie is drawn by lot,
    so each of them is allowed.
    """
    if not state.scores:
        return list(range(state.seats))
    last = state.scores[-1]
    best = min(last.totals[s] for s in last.winners)
    return [s for s in last.winners if last.totals[s] == best]


# --------------------------------------------------------------------------- the score sheet


def _result(rs: RoundScore) -> dict[str, Any]:
    return {
        "sums": list(rs.sums),
        "caller": rs.caller,
        "kamikaze": rs.kamikaze,
        "scores": list(rs.scores),
        "winners": list(rs.winners),
        "resets": list(rs.resets),
        "layouts": None if rs.layouts is None else [list(map(str, r)) for r in rs.layouts],
    }


def _dealt(rnd: Round) -> list[list[str]]:
    """The deal as the record knows it now: identities found later are filled in (back-fill)."""
    return [
        ["??" if rnd.values[t] is None else str(rnd.values[t]) for t in range(ROW * s, ROW * s + ROW)]
        for s in range(rnd.seats)
    ]


def score(state: State) -> dict[str, Any]:
    """Return the score sheet: VOCABULARY.md §6 ``{"hands", "standings", "end"}``.

    Each hand also carries ``points`` (the round's scores before the 100 → 50 reset, the
    score sheet's column) and ``totals`` (running totals after it), for the audit.
    """
    p = state.players
    hands = []
    totals = state.initial
    for rnd in state.rounds:
        entry: dict[str, Any] = {"hand": rnd.number}
        if rnd.score is not None:
            rs = rnd.score
            entry["status"] = "scored"
            entry["result"] = _result(rs)
            if not rnd.result_only:
                entry["result"]["dealt"] = _dealt(rnd)
            if rnd.closed_seq:
                entry["closedFromSheet"] = {"afterMove": rnd.moves, "seq": rnd.closed_seq}
            entry["lines"] = [{"seat": s, "points": pts, "reason": why, "rule": RULE_ROUND} for s, pts, why in rs.lines]
            entry["points"] = list(rs.scores)
            entry["totals"] = list(rs.totals)
            totals = rs.totals
        else:
            missing = rnd.missing()
            entry["status"] = "incomplete" if rnd.over else "playing"
            result: dict[str, Any] = {
                "sums": None,
                "caller": rnd.caller,
                "kamikaze": None,
                "scores": None,
                "winners": None,
                "resets": None,
            }
            entry["result"] = result
            entry["lines"] = []
            if rnd.over:
                entry["missing"] = [{"seat": s, "slot": k} for s, k in missing]
                where = Joined([Said("%(player)s's slot %(slot)s", player=p[s], slot=k) for s, k in missing], "; ")
                entry["lines"] = [
                    {
                        "seat": s,
                        "points": 0,
                        "rule": RULE_ROUND,
                        "reason": Said(
                            "the round is over but its score needs cards never revealed (%(slots)s): incomplete, "
                            "nothing added",
                            slots=where,
                        ),
                    }
                    for s in sorted({s for s, _ in missing})
                ]
            entry["points"] = None
            entry["totals"] = list(totals)
        hands.append(entry)
    end: dict[str, Any] = {"over": False}
    final = state.totals
    winners: list[Seat] = []
    if state.over:
        best = min(final)
        winners = [s for s in range(state.seats) if final[s] == best]
        above = [s for s in range(state.seats) if final[s] > LIMIT]
        said = dict(
            out=seat_names(p, above),
            totals=Joined([str(final[s]) for s in above], ", "),
            winners=seat_names(p, winners),
            best=best,
        )
        end = {
            "over": True,
            "winners": winners,
            "rule": RULE_END,
            "reason": (
                Said(
                    "%(out)s went over 100 (%(totals)s): the game is over; %(winners)s wins with %(best)s, the lowest "
                    "total",
                    **said,
                )
                if len(winners) == 1
                else Said(
                    "%(out)s went over 100 (%(totals)s): the game is over; %(winners)s win with %(best)s, the lowest "
                    "total",
                    **said,
                )
            ),
        }
    standings = [
        {
            "seat": s,
            "name": p[s],
            "total": final[s],
            "status": "playing" if not state.over else ("winner" if s in winners else "out"),
        }
        for s in range(state.seats)
    ]
    return {"hands": hands, "standings": standings, "end": end}
