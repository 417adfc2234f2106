"""The dispute desk and the correction window: the checks that need more than one event or the clock.

A ``dispute`` {hand, field?, seat?, reason} contests a hand's score; a ``ruling`` {dispute,
decision, reason} settles it. Neither changes the game (the walk treats them like notes); an
upheld ruling carries its correction, one or more ``void`` / ``amend`` events right after it
in the same batch (VOCABULARY.md §4). The checks here run inside the write transaction, on
the log as it stands plus the batch:

* a dispute names a hand the score sheet has, and a seat of the match;
* a ruling names a dispute that no standing ruling settled yet;
* an upheld ruling is followed in its batch by a correction.

``correctionWindow`` (a match option every game shares, in minutes) closes the desk: once the
match has ended, disputes, rulings and corrections are accepted only until the window has
passed since the ledger stored the event that ended the match, and are then refused with
``common.match_final``. Engines know no clock, so the service checks it with the stored
``at`` and its own clock (injectable, for tests). When the match asks its players to confirm
each hand (``confirmation`` not ``none``, :mod:`api.service.seats`), the window runs from the
last needed confirmation instead, and stays open while a hand still needs one.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping, Sequence

from api.service import seats
from engines.base import CORRECTIONS, DESK, Engine, Event, RuleViolation, replay, voided_seqs, walk
from engines.said import Counted, Said

Clock = Callable[[], datetime]
"""Returns the current time, timezone-aware (the service's clock; tests pass their own)."""

WINDOWED = CORRECTIONS | DESK
"""The event types the correction window closes on."""


def utc_now() -> datetime:
    """Return the current UTC time (the default clock)."""
    return datetime.now(timezone.utc)


def parse_at(at: str) -> datetime:
    """Read a ledger ``at`` stamp (``2026-11-21T17:03:05.123Z``) as an aware datetime."""
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


def correction_window(first: Mapping[str, Any]) -> int | None:
    """Return the match's correction window in minutes (None: no limit), from its ``match_started`` data."""
    options = first.get("options") or {}
    value = options.get("correctionWindow")
    return None if value is None else int(value)


def end_seq(engine: Engine, log: Sequence[Event]) -> int | None:
    """Return the seq of the event that ended the match (the last time it turned over), or None.

    Read on the recorded course: the match ended when the table lived it, whatever a later
    correction says about the hands before.
    """
    ended: int | None = None
    over = False
    for step in walk(engine, log, "recorded"):
        now_over = engine.is_over(step.state)
        if now_over and not over:
            ended = step.event.seq
        over = now_over
    return ended if over else None


def window_start(engine: Engine, match_id: str, log: Sequence[Event], hashes: Mapping[str, int]) -> int | None:
    """The seq the correction window runs from: the event that ended the match or, when the
    match asks for confirmations, the last needed one (None: not ended, or a hand still needs one)."""
    ended = end_seq(engine, log)
    mode = seats.confirmation_mode(log[0].data)
    if ended is None or mode == "none":
        return ended
    score = engine.score(replay(engine, log))
    per_hand = seats.hand_confirmations(
        engine.GAME,
        mode,
        score["hands"],
        score["standings"],
        seats.read_confirmations(match_id, engine, log, hashes),
        [str(p) for p in log[0].data.get("players") or ()],
        {},
    )
    last = seats.last_needed_seq(per_hand)
    return None if last is None else max(ended, last)


def check_window(minutes: int | None, ended_at: str | None, now: datetime) -> None:
    """Refuse a dispute or correction once the correction window after the match's end has passed.

    Raises:
        RuleViolation: ``common.match_final``.
    """
    if minutes is None or ended_at is None:
        return
    closes = parse_at(ended_at) + timedelta(minutes=minutes)
    if now > closes:
        stamp = closes.strftime("%Y-%m-%d %H:%M UTC")
        raise RuleViolation(
            "common.match_final",
            Counted(
                "the match is final: disputes and corrections were accepted for %(n)s minute(s) after it ended, "
                "until %(until)s",
                "the match is final: disputes and corrections were accepted for %(n)s minute(s) after it ended, "
                "until %(until)s",
                minutes,
                until=stamp,
            ),
        )


def check_desk(
    event: Event, batch: Sequence[Event], log: Sequence[Event], state: Any, engine: Engine, players: int
) -> None:
    """Check a ``dispute`` or ``ruling`` of a batch against the log before it (``state``: the state before it).

    ``batch`` is the whole batch (to find an upheld ruling's correction); ``log`` holds every
    stored event and the batch, from event 1.

    Raises:
        RuleViolation: ``common.unknown_hand``, ``common.bad_seat``, ``common.unknown_dispute``,
            ``common.already_ruled`` or ``common.ruling_needs_correction``.
    """
    data = event.data
    if event.type == "dispute":
        hands = [h["hand"] for h in engine.score(state)["hands"]]
        hand = int(data["hand"])
        if hand not in hands:
            raise RuleViolation(
                "common.unknown_hand",
                Said("hand %(hand)s cannot be disputed: this match has hands 1 to %(last)s", hand=hand, last=max(hands))
                if hands
                else Said("hand %(hand)s cannot be disputed: this match has no hand yet", hand=hand),
            )
        seat = data.get("seat")
        if seat is not None and not 0 <= int(seat) < players:
            raise RuleViolation(
                "common.bad_seat",
                Said("seat must be a seat from 0 to %(last)s, not %(seat)s", last=players - 1, seat=seat),
            )
        return
    if event.type != "ruling":
        return
    target = int(data["dispute"])
    before = [e for e in log if e.seq < event.seq]
    disputes = {e.seq for e in before if e.type == "dispute"}
    if target not in disputes:
        raise RuleViolation(
            "common.unknown_dispute", Said("entry %(entry)s is not a dispute of this match", entry=target), seq=target
        )
    voided = voided_seqs(before)  # a voided ruling no longer settles its dispute; a voided dispute is withdrawn
    if target in voided:
        raise RuleViolation(
            "common.unknown_dispute",
            Said("the dispute at entry %(entry)s was withdrawn (voided): there is nothing to rule on", entry=target),
            seq=target,
        )
    earlier = next(
        (e for e in before if e.type == "ruling" and int(e.data["dispute"]) == target and e.seq not in voided), None
    )
    if earlier is not None:
        raise RuleViolation(
            "common.already_ruled",
            Said(
                "the dispute at entry %(entry)s was already upheld at entry %(ruling)s",
                entry=target,
                ruling=earlier.seq,
            )
            if earlier.data["decision"] == "upheld"
            else Said(
                "the dispute at entry %(entry)s was already rejected at entry %(ruling)s",
                entry=target,
                ruling=earlier.seq,
            ),
            seq=earlier.seq,
        )
    if data["decision"] == "upheld":
        position = next(i for i, e in enumerate(batch) if e.seq == event.seq)
        if position + 1 >= len(batch) or batch[position + 1].type not in CORRECTIONS:
            raise RuleViolation(
                "common.ruling_needs_correction",
                Said(
                    "an upheld ruling carries its correction: send the void or amend right after it, in the same batch"
                ),
            )
