"""The score audit: every hand rescored from the log, set beside what the table wrote.

A ``score_claimed`` never changes the game. The audit reads each one that still stands
(not voided; amended data used) and compares every value it holds with the value the
engine computes:

* ``points`` with the hand's ``points`` (the hand column of VOCABULARY.md §4),
* ``totals`` with the hand's running ``totals`` (or the standings, for a match claim),
* ``winners`` with the match's ``end.winners``,
* any other field (la-cabra ``cardPoints``, el-roby ``money`` …) with the hand's
  ``result`` field of the same name.

Arrays are per seat or, where the standings are per team, per team. ``null`` in a claim
means "not written" and is not compared. A value the log cannot decide yet (an incomplete
hand) is reported with ``agrees: null`` and never counts as a divergence.

A claim written while a hand was open, about that hand, whose deal was later voided (a
misdeal: VOCABULARY.md §4 ``void``) has nothing to be compared with: it is listed in
``orphaned`` (one entry per claim, with the hand it was about and the void) and not in
``claims``, so it is neither dropped without a word nor set beside the next hand that took
its number. Claims about other hands or the match, written while that hand was open, are
compared as usual.

Each hand with irregular play (issue 31: a move the rules refuse, recorded as played) lists it in
``irregular`` (``seq``, the rule's ``code`` and English ``message``), and ``firstIrregularity``
points at the first one of a hand that stands; an irregular of a voided hand (a hand ruled void and
dealt again) is no longer any hand's. An irregular never changes a score.

``disputes`` lists every ``dispute`` with its state (``open``, ``upheld``, ``rejected``, or
``withdrawn`` when voided), the ruling that settled it and the correction an upheld ruling
carried (the ``void`` / ``amend`` events stored with it).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from engines.base import CORRECTIONS, IRREGULAR, Event, Step, VoidedHand, corrections, voided_hands
from engines.said import Joined, Said


TEAM_JOIN = "\u2013"
"""Team names join their players' names with an en dash: ``North–South``."""


def named(score: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """Return a copy of a score sheet whose lines and standings also carry names.

    Players say "Anna" and "North–South", not "seat 0" and "team 1": every score line gets
    ``name`` (its seat's player, or its team's players joined by an en dash) and every
    standing gets ``name`` too; seat and team numbers stay beside them.
    """
    names = _names(score, players)
    hands = [{**h, "lines": [_with_name(ln, names) for ln in h.get("lines", [])]} for h in score["hands"]]
    standings = [_with_name(s, names) for s in score["standings"]]
    return {**score, "hands": hands, "standings": standings}


def _names(score: Mapping[str, Any], players: Sequence[str]) -> dict[tuple[str, int], str]:
    out: dict[tuple[str, int], str] = {("seat", i): name for i, name in enumerate(players)}
    for standing in score["standings"]:
        if "team" in standing and standing.get("seats") is not None:
            out[("team", standing["team"])] = TEAM_JOIN.join(players[s] for s in standing["seats"] if s < len(players))
    return out


def _with_name(entry: Mapping[str, Any], names: Mapping[tuple[str, int], str]) -> dict[str, Any]:
    for unit in ("team", "seat"):
        if isinstance(entry.get(unit), int) and (unit, entry[unit]) in names:
            if unit == "seat" and "name" in entry:
                return dict(entry)
            return {**entry, "name": names[(unit, entry[unit])]}
    return dict(entry)


def audit(
    score: Mapping[str, Any],
    steps: Sequence[Step],
    chain: Mapping[str, Any],
    players: Sequence[str] = (),
    batches: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """Build the audit of a match from its score sheet, the walk of its log and its chain report.

    ``batches`` maps each seq to the ``at`` stamp of its append (see :func:`disputes`).

    The claims and corrections are read off the same walk (:func:`engines.base.walk`) the
    score sheet was folded from, so what a void covers is settled once. With ``players``
    (names in seat order) the lines, standings and claims also carry names. ``batches`` maps
    each seq to the ``at`` stamp of its append (see :func:`disputes`).
    """
    if players:
        score = named(score, players)
    names = _names(score, players)
    hands = list(score["hands"])
    by_number = {h["hand"]: h for h in hands}
    unit = "team" if score["standings"] and "team" in score["standings"][0] else "seat"
    claims: list[dict[str, Any]] = []
    orphaned: list[dict[str, Any]] = []
    misdeals = voided_hands(steps)
    reasons = {st.event.seq: str(st.event.data.get("reason", "")) for st in steps if st.event.type == "void"}
    for step in steps:
        if step.status != "claim":
            continue
        about = _voided_hand_of(step.read, misdeals)
        if about is not None:
            orphaned.append(_orphan(step.read, about, reasons.get(about.void, "")))
            continue
        claims.extend(_compare(step.read, by_number, score, unit, names))
    first = next((c for c in claims if c["agrees"] is False), None)
    irregular = _irregular(steps, misdeals)
    for number, found in irregular.items():
        if number in by_number:
            hands[hands.index(by_number[number])] = {**by_number[number], "irregular": found}
    standing = sorted((i for n, found in irregular.items() if n in by_number for i in found), key=lambda i: i["seq"])
    return {
        "hands": hands,
        "standings": score["standings"],
        "end": score["end"],
        "claims": claims,
        "orphaned": orphaned,
        "firstDivergence": first,
        "firstIrregularity": standing[0] if standing else None,
        "corrections": [
            {"seq": c.seq, "type": c.type, "target": c.target, "reason": c.reason, "inForce": c.in_force}
            for c in corrections(steps)
        ],
        "disputes": disputes(steps, batches or {}),
        "chain": dict(chain),
    }


def _irregular(steps: Sequence[Step], misdeals: Sequence[VoidedHand]) -> dict[int, list[dict[str, Any]]]:
    """The irregular moves of each hand by its number, those of voided hands left out."""
    out: dict[int, list[dict[str, Any]]] = {}
    for step in steps:
        if step.event.type != IRREGULAR or any(h.seq <= step.event.seq < h.until for h in misdeals):
            continue
        rule = step.event.data.get("rule") or {}
        message = rule.get("message")
        if not isinstance(message, str) or message == "??":  # its words name a card this reader may not see yet
            message = Said(
                "the rules refuse this move (%(code)s); its words name a card still hidden", code=rule.get("code")
            )
        entry = {"seq": step.event.seq, "code": rule.get("code"), "message": message}
        out.setdefault(int(step.event.data["hand"]), []).append(entry)
    return out


def _voided_hand_of(claim: Event, misdeals: Sequence[VoidedHand]) -> VoidedHand | None:
    """The voided hand a claim is about: written while it was open, naming its number."""
    number = claim.data.get("hand")
    if number is None:
        return None
    return next((h for h in misdeals if h.seq < claim.seq < h.until and h.number == number), None)


def _orphan(claim: Event, hand: VoidedHand, reason: str) -> dict[str, Any]:
    if reason:
        why = Said(
            "hand %(hand)s (dealt at entry %(dealt)s) was voided at entry %(void)s (%(reason)s): what the table "
            "wrote for it has no hand to be compared with",
            hand=hand.number,
            dealt=hand.seq,
            void=hand.void,
            reason=reason,
        )
    else:
        why = Said(
            "hand %(hand)s (dealt at entry %(dealt)s) was voided at entry %(void)s: what the table wrote for it "
            "has no hand to be compared with",
            hand=hand.number,
            dealt=hand.seq,
            void=hand.void,
        )
    return {
        "claimSeq": claim.seq,
        "hand": hand.number,
        "handSeq": hand.seq,
        "voidSeq": hand.void,
        "claimed": {k: v for k, v in claim.data.items() if k != "hand"},
        "why": why,
    }


def _compare(
    event: Event,
    hands: Mapping[int, Mapping[str, Any]],
    score: Mapping[str, Any],
    unit: str,
    names: Mapping[tuple[str, int], str],
) -> list[dict[str, Any]]:
    data = event.data
    number = data.get("hand")
    hand = hands.get(number) if number is not None else None
    out: list[dict[str, Any]] = []
    for field, claimed in data.items():
        if field == "hand" or claimed is None:
            continue
        computed, why = _computed(field, number, hand, score)
        if field == "winners":
            agrees = None if computed is None else sorted(claimed) == sorted(computed)
            out.append(_entry(event.seq, number, field, None, unit, claimed, computed, agrees, why))
            continue
        values = claimed if isinstance(claimed, list) else [claimed]
        for i, value in enumerate(values):
            if value is None:
                continue
            have = (
                computed[i]
                if isinstance(computed, list) and i < len(computed)
                else (computed if not isinstance(computed, list) else None)
            )
            agrees = None if have is None and why.startswith("incomplete") else (have == value)
            if have is None and not why.startswith("incomplete"):
                agrees = False
            out.append(
                _entry(
                    event.seq,
                    number,
                    field,
                    i if isinstance(claimed, list) else None,
                    unit,
                    value,
                    have,
                    agrees,
                    why if agrees is not True else "",
                )
            )
    for entry in out:
        if isinstance(entry.get(unit), int) and (unit, entry[unit]) in names:
            entry["name"] = names[(unit, entry[unit])]
        if entry["agrees"] is False and not entry["why"]:
            entry["why"] = _explain(entry, hand, unit)
    return out


def _computed(
    field: str, number: int | None, hand: Mapping[str, Any] | None, score: Mapping[str, Any]
) -> tuple[Any, str]:
    """Return the computed value for a claim field and, if it has none, why."""
    if field == "winners":
        end = score["end"]
        return (end.get("winners") if end.get("over") else []), ""
    if number is None:
        if field == "totals":
            return [s["total"] for s in score["standings"]], ""
        return None, Said("%(field)s can only be compared for a hand", field=field)
    if hand is None:
        return None, Said("hand %(hand)s does not exist in the log", hand=number)
    if hand.get("status") == "incomplete":
        missing = hand.get("missing") or []
        return None, Said(
            "incomplete: hand %(hand)s needs cards never revealed (%(missing)s missing)",
            hand=number,
            missing=len(missing),
        )
    if hand.get("status") == "playing":
        return None, Said("incomplete: hand %(hand)s is still being played", hand=number)
    if field in ("points", "totals"):
        return hand.get(field), ""
    result = hand.get("result") or {}
    if field in result:
        return result[field], ""
    return None, Said("the score sheet has no %(field)s for hand %(hand)s", field=field, hand=number)


def _entry(
    seq: int,
    hand: int | None,
    field: str,
    index: int | None,
    unit: str,
    claimed: Any,
    computed: Any,
    agrees: bool | None,
    why: str,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"claimSeq": seq, "hand": hand, "field": field}
    if index is not None:
        entry[unit] = index
    entry.update({"claimed": claimed, "computed": computed, "agrees": agrees, "why": why})
    return entry


CLAIM_FIELDS = {
    "points": Said("points"),
    "totals": Said("totals"),
    "winners": Said("winners"),
    "money": Said("money"),
    "pot": Said("pot"),
    "cardPoints": Said("cardPoints"),
}
"""A claim's field as a sentence says it: the English is the field's name (as it always read),
each other language its own word ("punts", "Punkte")."""


def _explain(entry: Mapping[str, Any], hand: Mapping[str, Any] | None, unit: str) -> str:
    """Say why a claim differs: the engine's own lines for that seat or team in that hand."""
    who = entry.get(unit)
    lines = [] if hand is None else [ln for ln in hand.get("lines", []) if who is None or ln.get(unit) == who]
    field = CLAIM_FIELDS.get(entry["field"], entry["field"])
    said = {"claimed": _value(entry["claimed"]), "field": field, "computed": _value(entry["computed"])}
    if who is not None:
        said["who"] = entry.get("name") or (
            Said("team %(team)s", team=who) if unit == "team" else Said("seat %(seat)s", seat=who)
        )
    if entry["hand"] is not None:
        said["hand"] = entry["hand"]
        head = (
            Said(
                "the table wrote %(claimed)s for %(field)s of %(who)s in hand %(hand)s; the log gives %(computed)s",
                **said,
            )
            if who is not None
            else Said("the table wrote %(claimed)s for %(field)s in hand %(hand)s; the log gives %(computed)s", **said)
        )
    else:
        head = (
            Said(
                "the table wrote %(claimed)s for %(field)s of %(who)s in the match; the log gives %(computed)s",
                **said,
            )
            if who is not None
            else Said("the table wrote %(claimed)s for %(field)s in the match; the log gives %(computed)s", **said)
        )
    if lines:
        return Said("%(head)s: %(lines)s", head=head, lines=Joined([ln.get("reason", "") for ln in lines], "; "))
    return head


def disputes(steps: Sequence[Step], batches: Mapping[int, str]) -> list[dict[str, Any]]:
    """List every dispute of a walk with its state: ``open``, ``upheld`` or ``rejected``.

    ``batches`` maps each seq to its ``at`` stamp: an upheld ruling's correction is the run of
    corrections right after it that were stored in the same append (one stamp per append).
    A voided dispute is listed as ``withdrawn``; a voided ruling settles nothing.
    """
    events = [s.event for s in steps]
    voided = {s.event.seq for s in steps if s.status == "voided"}
    out: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        if event.type != "dispute":
            continue
        entry: dict[str, Any] = {
            "seq": event.seq,
            **dict(event.data),
            **_irregular_before(events, i),
            "state": "open",
            "ruling": None,
            "correction": [],
        }
        if event.seq in voided:
            entry["state"] = "withdrawn"
        for j in range(i + 1, len(events)):
            ruling = events[j]
            if ruling.type != "ruling" or int(ruling.data["dispute"]) != event.seq or ruling.seq in voided:
                continue
            entry["state"] = ruling.data["decision"]
            entry["ruling"] = {"seq": ruling.seq, "decision": ruling.data["decision"], "reason": ruling.data["reason"]}
            for k in range(j + 1, len(events) if ruling.data["decision"] == "upheld" else j + 1):
                fix = events[k]
                if fix.type not in CORRECTIONS or batches.get(fix.seq) != batches.get(ruling.seq):
                    break
                entry["correction"].append(
                    {
                        "seq": fix.seq,
                        "type": fix.type,
                        "target": int(fix.data["target"]),
                        "reason": str(fix.data.get("reason", "")),
                        "inForce": fix.seq not in voided,
                    }
                )
            break
        out.append(entry)
    return out


def _irregular_before(events: Sequence[Event], i: int) -> dict[str, int]:
    """``{"irregular": seq}`` for the dispute the service opened about the irregular right before it."""
    before = events[i - 1] if i else None
    if before is None or before.type != IRREGULAR or before.data.get("hand") != events[i].data.get("hand"):
        return {}
    return {"irregular": before.seq}


def _value(value: Any) -> str:
    """A claimed or computed value in words: numbers as numbers, lists as ``4, 0``, none as "nothing"."""
    if value is None:
        return Said("nothing")
    if isinstance(value, list):
        return Joined(["[", Joined([_value(v) for v in value], ", "), "]"], "")
    if isinstance(value, bool):
        return Said("yes") if value else Said("no")
    return str(value)


def rules_report(
    game: str, recorded: int | None, current: int, sheet: Mapping[str, Any], past: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Say which rules version scored the match, and which hands another version scores otherwise.

    ``recorded`` is the version ``match_started`` holds (None: recorded before versions were
    kept); ``sheet`` the current engine's score sheet and ``past`` the recorded version's, or
    None when that engine is no longer shipped. ``differences`` lists each hand whose points
    (or result) differ between the two; ``notes`` say it in words.
    """
    out: dict[str, Any] = {
        "game": game,
        "recorded": recorded,
        "current": current,
        "available": past is not None,
        "differences": [],
        "notes": [],
    }
    if recorded is None:
        out["notes"].append(
            Said(
                "recorded before rules versions were kept; scored with %(game)s rules version %(current)s",
                game=game,
                current=current,
            )
        )
        return out
    if recorded == current:
        out["notes"].append(
            Said("recorded and scored with %(game)s rules version %(current)s", game=game, current=current)
        )
        return out
    if past is None:
        out["notes"].append(
            Said(
                "recorded with %(game)s rules version %(recorded)s, scored with version %(current)s; version "
                "%(recorded)s is no longer available here, so no hand could be rescored with it",
                game=game,
                recorded=recorded,
                current=current,
            )
        )
        return out
    then = {h["hand"]: h for h in past["hands"]}
    for hand in sheet["hands"]:
        old = then.get(hand["hand"])
        if old is None:
            continue
        for field in ("points", "result"):
            if old.get(field) != hand.get(field):
                out["differences"].append(
                    {"hand": hand["hand"], "field": field, "recorded": old.get(field), "current": hand.get(field)}
                )
    count = len({d["hand"] for d in out["differences"]})
    summary = (
        Said("no hand differs")
        if not count
        else Said(
            "hands %(hands)s score differently",
            hands=Joined([str(h) for h in sorted({d["hand"] for d in out["differences"]})], ", "),
        )
    )
    out["notes"].append(
        Said(
            "recorded with %(game)s rules version %(recorded)s, scored with version %(current)s: %(summary)s",
            game=game,
            recorded=recorded,
            current=current,
            summary=summary,
        )
    )
    return out
