"""La Cabra's scoring: card points of a deal, loss points (docs/RULES.md §5.4), the series (§5.5).

A finished hand's card points are *facts* (:class:`Facts`): exact when every card of the
piles is known, or when all the unknown ones sit in one team's pile (the other team's count
is then exact and this one's is 120 minus it); otherwise the set of totals some assignment
of the still-unlocated cards allows, and exact again once the table's ``hand_result`` picks
one of them. Loss points follow from the facts, with the eggs multiplier of the hand before.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engines.base import RuleViolation
from engines.cards import Card
from engines.finished import FinishedHands
from engines.la_cabra.state import (
    DECK,
    LOSS_LIMIT,
    TEAMS,
    Claim,
    Facts,
    Hand,
    HandScore,
    Options,
    Ref,
    State,
    bits,
    pair,
    points,
    sorted_cards,
    sum_masks,
    team_name,
    value,
)
from engines.said import Counted, Joined, Said

RULE_POINTS = "/rules/la-cabra#scoring-deal"
RULE_SERIES = "/rules/la-cabra#scoring-series"


def claim_points(claim: Claim | None) -> tuple[int, int] | None:
    """Return the card points a ``hand_result`` states (from ``cardPoints`` or ``cards``)."""
    if claim is None:
        return None
    if claim.points is not None:
        return claim.points
    if claim.cards is not None:
        return points(claim.cards[0]), points(claim.cards[1])
    return None


def returned_trump(hand: Hand, options: Options) -> Card | None:
    """The ``returned`` trump card while nobody is known to hold it, else None."""
    if options.trumpCard == "returned" and hand.trump is not None and hand.trump not in hand.located:
        return hand.trump
    return None


def has_late_slot(hand: Hand, team: int) -> bool:
    """Tell whether a face-down card of ``team``'s pile was discarded after the first refill."""
    return hand.refill_seq is not None and any(seq > hand.refill_seq for seq, _ in hand.pile_hidden[team])


def hidden_sums(hand: Hand, options: Options) -> int:
    """Return the bitmask of the card points team 0's face-down cards can be worth.

    The unknown cards of both piles are exactly the cards whose place is not known; team 0
    holds ``len(pile_hidden[0])`` of them. The ``returned`` trump card can only be among
    cards discarded after the first refill (before it, it was in the stock).
    """
    free = [c for c in DECK.distinct() if c not in hand.located]
    n0 = len(hand.pile_hidden[0])
    trump = returned_trump(hand, options)
    if trump is None or trump not in free:
        return sum_masks((value(c) for c in free), n0)[n0]
    others = [value(c) for c in free if c != trump]
    mask = 0
    if has_late_slot(hand, 1):
        mask |= sum_masks(others, n0)[n0]
    if n0 and has_late_slot(hand, 0):
        mask |= sum_masks(others, n0 - 1)[n0 - 1] << value(trump)
    return mask


def base_loss(pts: tuple[int, int], took_trick: tuple[bool | None, bool | None]) -> tuple[int, int] | None:
    """The deal's loss points before any doubling (docs/RULES.md §5.4): 6 with no trick, 4 at 30 or fewer, 2 at 31-59.

    ``took_trick`` says per team whether it took a trick (None: unknown); it matters only
    for a loser with 0 card points, and None is returned when it is unknown there.
    """
    a, b = pts
    if a == b:
        return pair(0, 0)
    loser = 0 if a < b else 1
    if pts[loser] == 0 and took_trick[loser] is None:
        return None
    lp = 6 if pts[loser] == 0 and not took_trick[loser] else 4 if pts[loser] <= 30 else 2
    return pair(lp, 0) if loser == 0 else pair(0, lp)


def took_tricks(hand: Hand) -> tuple[bool | None, bool | None]:
    """Per team, whether it took a trick in the deal, None when nothing recorded says.

    A sheet's ``cards`` lists say it for both teams: every trick puts cards in its winner's
    pile, and the lists name all 36 cards (no ``"??"``), so a list's length is that pile's
    size and an empty list is a team that took no trick.
    """
    if not hand.from_sheet:
        return hand.tricks[0] > 0, hand.tricks[1] > 0
    claim = hand.claim
    out: list[bool | None] = []
    for t in (0, 1):
        if claim is not None and claim.tricks is not None:
            out.append(claim.tricks[t] > 0)
        elif hand.tricks[t] > 0:
            out.append(True)
        elif claim is not None and claim.cards is not None:
            out.append(bool(claim.cards[t]))
        elif claim is not None and claim.loss is not None:
            out.append(claim.loss[t] != 6)
        else:
            pts = claim_points(claim)
            out.append(True if pts is not None and pts[t] > 0 else None)
    return out[0], out[1]


@lru_cache(maxsize=1024)
def sheet_facts(pts: tuple[int, int] | None, base: tuple[int, int] | None) -> Facts:
    """The facts of a hand scored from the sheet: one frozen value per result, shared by the
    hands with the same result (a replay keeps every frame's state alive at once)."""
    return Facts(pts, False, 0 if pts is None else 1 << pts[0], (), base)


@lru_cache(maxsize=4096)
def hand_score(got: tuple[int, int] | None, mult: int | None, totals: tuple[int, int], waits: int | None) -> HandScore:
    """A hand's :class:`HandScore`, one frozen value per distinct score (shared as :func:`sheet_facts` is)."""
    return HandScore(got, mult, totals, waits)


def compute_facts(hand: Hand, options: Options) -> Facts:
    """Return what the record fixes about a finished hand's card points and loss points."""
    took = took_tricks(hand)
    if hand.from_sheet:
        claim = hand.claim
        pts = claim_points(claim)
        if pts is None:  # the lossPoints form
            assert claim is not None and claim.loss is not None
            return sheet_facts(None, claim.loss)
        return sheet_facts(pts, base_loss(pts, took))
    known = points(hand.pile_known[0]), points(hand.pile_known[1])
    h0, h1 = hand.pile_hidden
    if not h0:
        exact = (known[0], 120 - known[0])
        return Facts(exact, False, 1 << known[0], (), base_loss(exact, took))
    if not h1:
        exact = (120 - known[1], known[1])
        return Facts(exact, False, 1 << exact[0], (), base_loss(exact, took))
    sums = hidden_sums(hand, options) << known[0]
    missing = tuple(sorted(h0 + h1))
    counted = claim_points(hand.claim)
    if counted is not None:
        return Facts(counted, True, sums, missing, base_loss(counted, took))
    if hand.claim is not None and hand.claim.loss is not None:
        return Facts(None, True, sums, missing, hand.claim.loss)
    return Facts(None, False, sums, missing)


def loss(hand: Hand, facts: Facts, multiplier: int | None) -> tuple[int, int] | None:
    """Return the deal's loss points per team (docs/RULES.md §5.4), None when not yet known."""
    if facts.base is None or multiplier is None:
        return None
    return pair(facts.base[0] * multiplier, facts.base[1] * multiplier)


def multiplier(state: State, i: int) -> tuple[int | None, int | None]:
    """Return hand ``i``'s multiplier (1 or 2) and, when unknown, the hand it waits for."""
    if state.options.eggs != "doubleNext":
        return 1, None
    if i == 0:
        return (2 if state.initial_double else 1), None
    prev = state.hand(i - 1)
    eggs = prev.facts.eggs if prev.facts is not None else None
    if eggs is None:
        return None, prev.number
    return (2 if eggs else 1), None


def rescore(state: State, start: int) -> State:
    """Recompute loss points and totals of the finished hands from index ``start`` on.

    Only hands ``start`` … are read and the scores before ``start`` are kept as they are,
    so scoring the hand that just ended does not walk the whole match.

    Raises:
        RuleViolation: ``common.match_over`` when a team now reaches 12 loss points at a
            hand after which more hands were dealt (a reveal or result deciding an earlier
            hand late); ``seq`` names the hand that could not have been dealt.
    """
    kept = (
        state.scores if start >= len(state.scores) else state.scores[:start]
    )  # the usual: a hand ends after every scored one
    totals = kept[-1].totals if kept else state.initial
    count = len(state.past) + (state.current is not None)
    rescored: list[HandScore] = []
    for i in range(start, count):
        hand = state.hand(i)
        if not hand.over or hand.facts is None:
            break
        mult, waits = multiplier(state, i)
        got = loss(hand, hand.facts, mult)
        if got is not None:
            totals = pair(totals[0] + got[0], totals[1] + got[1])
        rescored.append(hand_score(got, mult, totals, waits if got is None else None))
    # loss points never go down, so the series cannot have ended before ``start`` unless
    # it already had: only the rescored hands need looking at (no scan of the whole match)
    if state.end is not None and state.end < start:
        end: int | None = state.end
    else:
        end = None
        for j, hs in enumerate(rescored):
            if max(hs.totals) >= LOSS_LIMIT:
                end = start + j
                break
    scores = kept + tuple(rescored)
    if end is not None and end < count - 1:
        goat = 0 if scores[end].totals[0] >= LOSS_LIMIT else 1
        later = state.hand(end + 1)
        raise RuleViolation(
            "common.match_over",
            Said(
                "%(team)s now reaches %(total)s loss points after hand %(hand)s, so the series ended there; hand "
                "%(later)s (entry %(entry)s) could not have been dealt",
                team=team_name(state.players, goat),
                total=scores[end].totals[goat],
                hand=state.hand(end).number,
                later=later.number,
                entry=later.seq,
            ),
            seq=later.seq,
        )
    return state._replace(scores=scores, end=end)


# --------------------------------------------------------------------------- the score sheet


def _refs(refs: tuple[Ref, ...]) -> list[dict[str, int]]:
    return [{"seq": s, "index": i} for s, i in refs]


def _refs_words(refs: tuple[Ref, ...]) -> Joined:
    """Name face-down cards by their entries: ``entry 12 card 0; entry 15 cards 0, 1``."""
    by_seq: dict[int, list[int]] = {}
    for s, i in refs:
        by_seq.setdefault(s, []).append(i)
    return Joined(
        Counted(
            "entry %(entry)s card %(cards)s",
            "entry %(entry)s cards %(cards)s",
            len(ix),
            entry=s,
            cards=Joined(ix, ", "),
        )
        for s, ix in by_seq.items()
    )


def _pile_words(cards: frozenset[Card], hidden: int) -> str:
    """Spell a pile's points: ``A♠ 11 + 10♥ 10 + K♣ 4 = 25 (and 5 cards worth 0)``."""
    scoring = sorted(sorted_cards(c for c in cards if value(c)), key=value, reverse=True)
    zero = len(cards) - len(scoring)
    words: str = (
        Joined([Joined((Joined([c.pretty(), value(c)], " ") for c in scoring), " + "), points(cards)], " = ")
        if scoring
        else Said("no counting card")
    )
    if zero:
        words = Joined([words, Counted("(and %(n)s card worth 0)", "(and %(n)s cards worth 0)", zero)], " ")
    if hidden:
        words = Joined(
            [
                words,
                Counted("plus %(n)s face-down card not revealed", "plus %(n)s face-down cards not revealed", hidden),
            ],
            ", ",
        )
    return words


def _how(hand: Hand, facts: Facts) -> Said | Counted | None:
    """Where a finished hand's points come from, when not from its cards alone: the table's count, the sheet."""
    if hand.closed_seq:
        return Said(
            "as the score sheet says (the hand was closed from the sheet after move %(moves)s)", moves=hand.moves
        )
    if facts.counted:
        return Counted(
            "as the table counted (%(n)s face-down card never revealed: %(refs)s)",
            "as the table counted (%(n)s face-down cards never revealed: %(refs)s)",
            len(facts.missing),
            refs=_refs_words(facts.missing),
        )
    return None


def hand_lines(state: State, i: int) -> tuple[str, dict[str, Any], list[dict[str, Any]], list[dict[str, int]]]:
    """Return a finished hand's status, result, lines and missing references."""
    hand = state.hands[i]
    hs = state.scores[i]
    facts = hand.facts
    assert facts is not None
    names = [team_name(state.players, side) for side in (0, 1)]
    lines: list[dict[str, Any]] = []
    tricks = hand.final_tricks()
    result = {
        "cardPoints": list(facts.points) if facts.points else None,
        "tricks": list(tricks) if tricks is not None else None,
        "lossPoints": list(hs.points) if hs.points else None,
        "eggs": facts.eggs,
        "multiplier": hs.multiplier,
    }
    detail_cards = None
    if hand.closed_seq:
        detail_cards = hand.claim.cards if hand.claim is not None else None
    elif not hand.result_only:
        detail_cards = hand.pile_known
    elif hand.claim is not None and hand.claim.cards is not None:
        detail_cards = hand.claim.cards
    if detail_cards is not None:
        for side in (0, 1):
            hidden = 0 if hand.from_sheet else len(hand.pile_hidden[side])
            lines.append(
                {
                    "team": side,
                    "points": 0,
                    "reason": Said(
                        "%(team)s's tricks: %(cards)s", team=names[side], cards=_pile_words(detail_cards[side], hidden)
                    ),
                    "rule": "/rules/la-cabra#card-points",
                }
            )
    if facts.base is None:
        known = [points(hand.pile_known[side]) for side in (0, 1)]
        for side in (0, 1):
            lines.append(
                {
                    "team": side,
                    "points": 0,
                    "rule": RULE_POINTS,
                    "reason": Counted(
                        "%(team)s have %(points)s known card points in %(n)s trick; the deal needs the face-down "
                        "cards never revealed (%(refs)s): incomplete, nothing added until they are revealed",
                        "%(team)s have %(points)s known card points in %(n)s tricks; the deal needs the face-down "
                        "cards never revealed (%(refs)s): incomplete, nothing added until they are revealed",
                        hand.tricks[side],
                        team=names[side],
                        points=known[side],
                        refs=_refs_words(facts.missing),
                    ),
                }
            )
        return "incomplete", result, lines, _refs(facts.missing)
    how = _how(hand, facts)
    sheet = how or Said("as the score sheet says")  # without the cards' points, they come from the sheet
    if facts.eggs:
        for side in (0, 1):
            why: str
            if facts.points is not None:
                why = (
                    Said("%(team)s took 60 card points %(how)s: 60–60, eggs, no loss points", team=names[side], how=how)
                    if how
                    else Said("%(team)s took 60 card points: 60–60, eggs, no loss points", team=names[side])
                )
            else:
                why = Said(
                    "%(team)s: 60–60 %(how)s (no loss points written for either team), eggs",
                    team=names[side],
                    how=sheet,
                )
            if state.options.eggs == "doubleNext":
                why = Joined([why, Said("the next deal's loss points are doubled")])
            lines.append({"team": side, "points": 0, "rule": RULE_POINTS, "reason": why})
        return "scored", result, lines, []
    base = facts.base
    loser = 0 if base[0] else 1
    winner = 1 - loser
    won: str
    if facts.points is not None:
        won = (
            Said(
                "%(team)s took %(points)s card points %(how)s (61 or more): the deal is won, no loss points",
                team=names[winner],
                points=facts.points[winner],
                how=how,
            )
            if how
            else Said(
                "%(team)s took %(points)s card points (61 or more): the deal is won, no loss points",
                team=names[winner],
                points=facts.points[winner],
            )
        )
    else:
        won = Said("%(team)s won the deal %(how)s: no loss points", team=names[winner], how=sheet)
    lines.append({"team": winner, "points": 0, "rule": RULE_POINTS, "reason": won})
    band = {
        6: Said("no trick"),
        4: Said("30 or fewer, with a trick"),
        2: Said("31–59"),
    }[base[loser]]
    lost: str
    if facts.points is not None:
        if base[loser] == 6:
            lost = Said("%(team)s took no trick: 6 loss points", team=names[loser])
        elif how:
            lost = Said(
                "%(team)s took %(points)s card points %(how)s (%(band)s): %(loss)s loss points",
                team=names[loser],
                points=facts.points[loser],
                how=how,
                band=band,
                loss=base[loser],
            )
        else:
            lost = Said(
                "%(team)s took %(points)s card points (%(band)s): %(loss)s loss points",
                team=names[loser],
                points=facts.points[loser],
                band=band,
                loss=base[loser],
            )
    else:
        lost = Said(
            "%(team)s lost the deal (%(band)s): %(loss)s loss points %(how)s",
            team=names[loser],
            band=band,
            loss=base[loser],
            how=sheet,
        )
    if hs.points is None:
        prev = state.hands[i - 1]
        missing = prev.facts.missing if prev.facts is not None else ()
        lines.append(
            {
                "team": loser,
                "points": 0,
                "rule": RULE_POINTS,
                "reason": Joined(
                    [
                        lost,
                        Said(
                            "doubled if hand %(hand)s was 60–60, which needs its face-down cards (%(refs)s): "
                            "incomplete, nothing added until they are revealed",
                            hand=prev.number,
                            refs=_refs_words(missing),
                        ),
                    ],
                    ", ",
                ),
            }
        )
        return "incomplete", result, lines, _refs(missing)
    got = hs.points[loser]
    if hs.multiplier == 2:
        doubled = (
            Said("doubled after the eggs of hand %(hand)s: %(points)s", hand=state.hands[i - 1].number, points=got)
            if i
            else Said("doubled after the eggs of the paper sheet: %(points)s", points=got)
        )
        lost = Joined([lost, doubled], ", ")
    lines.append({"team": loser, "points": got, "rule": RULE_POINTS, "reason": lost})
    return "scored", result, lines, []


FINISHED = FinishedHands()
"""The entries of finished hands (:mod:`engines.finished`): a long series is scored again after each event."""


def _finished_entry(state: State, i: int) -> dict[str, Any]:
    """A finished hand's entry of the sheet: it reads hand ``i``, its score, the hand before it,
    the options and the players (:func:`hand_lines`), nothing else of the state."""
    hand = state.hand(i)
    status, result, lines, missing = hand_lines(state, i)
    entry: dict[str, Any] = {"hand": hand.number, "status": status, "result": result, "lines": lines}
    if hand.closed_seq:
        entry["closedFromSheet"] = {"afterMove": hand.moves, "seq": hand.closed_seq}
    if status == "incomplete":
        entry["missing"] = missing
    got = state.scores[i].points
    entry["points"] = list(got) if got is not None else None
    entry["totals"] = list(state.scores[i].totals)
    return entry


def score(state: State) -> dict[str, Any]:
    """Return the score sheet: VOCABULARY.md §6 ``{"hands", "standings", "end"}``.

    Each hand also carries ``points`` (the deal's loss points per team, None while
    incomplete) and ``totals`` (running loss points after it), for the audit.
    """
    hands_out: list[dict[str, Any]] = []
    hands = state.hands
    for i, hand in enumerate(hands):
        if i < len(state.scores):  # made once per hand (what it reads is its key), not once per read
            parts = (hand, state.scores[i], hands[i - 1] if i else None, state.players, state.options)
            entry = FINISHED.entry(parts, lambda: _finished_entry(state, i))
        else:
            mult, _ = multiplier(state, i)
            entry = {
                "hand": hand.number,
                "status": "playing",
                "result": {
                    "cardPoints": None,
                    "tricks": list(hand.tricks),
                    "lossPoints": None,
                    "eggs": None,
                    "multiplier": mult,
                },
                "lines": [],
                "points": None,
                "totals": list(state.totals),
            }
            pending = hand.pile_hidden[0] + hand.pile_hidden[1]
            if pending:
                entry["missing"] = _refs(tuple(sorted(pending)))
        hands_out.append(entry)
    totals = state.totals
    goat = None
    if state.end is not None:
        goat = 0 if state.scores[state.end].totals[0] >= LOSS_LIMIT else 1
    standings = []
    for t, seats in enumerate(TEAMS):
        status = "playing" if goat is None else ("out" if t == goat else "winner")
        standings.append(
            {
                "team": t,
                "seats": list(seats),
                "names": [state.players[s] for s in seats],
                "total": totals[t],
                "status": status,
            }
        )
    end: dict[str, Any] = {"over": False}
    if goat is not None and state.end is not None:
        name = team_name(state.players, goat)
        end = {
            "over": True,
            "winners": [1 - goat],
            "goat": goat,
            "reason": Said(
                "%(team)s reached %(total)s loss points (12 or more) after hand %(hand)s: %(team)s are the goats and "
                "lose the series, %(winners)s win",
                team=name,
                total=totals[goat],
                hand=hands[state.end].number,
                winners=team_name(state.players, 1 - goat),
            ),
            "rule": RULE_SERIES,
        }
    return {"hands": hands_out, "standings": standings, "end": end}


def feasible_words(sums: int) -> Said:
    """Describe a set of possible card points: ``one of 20, 24`` or ``between 12 and 70``."""
    vals = bits(sums)
    if not vals:
        return Said("no total at all")
    if len(vals) <= 6:
        return Said("one of %(totals)s", totals=Joined(vals, ", "))
    return Said("between %(low)s and %(high)s", low=vals[0], high=vals[-1])
