"""Folding a log into frames: what happened at each step, in words, and the state after it.

Two courses can be stepped through, because a corrected log tells two stories:

* ``corrected`` (the default): the log as it now reads, every ``void`` and ``amend``
  applied from the start: voided moves are shown but skipped, amended moves show their
  corrected data. This is the course the scores come from.
* ``recorded``: the log as the table lived it: each frame is the state the match had right
  after that event was stored, so a move later voided still counts until its ``void``
  arrives, and a correction's frame shows the state it produced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from engines.base import IRREGULAR, Course, Engine, Event, Step, refusal, walk
from engines.said import Joined, Said
from replays.audit import CLAIM_FIELDS

COURSES: tuple[Course, ...] = ("corrected", "recorded")


@dataclass(frozen=True, slots=True)
class Frame:
    """One step of a replay."""

    seq: int
    type: str
    data: Mapping[str, Any]
    status: str
    """``played``, ``amended`` (played with corrected data), ``voided``, ``correction``,
    ``note``, ``claim``, ``dispute``, ``ruling`` or ``irregular`` (a move the rules refuse,
    recorded as played: never applied)."""
    text: str
    state: Any
    """The engine state after this step (not JSON: :meth:`to_json` turns it into a view)."""

    def to_json(
        self, engine: Engine, seat: int | str | None, previous_view: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Return the frame as the API shows it: the view after it and what changed.

        A flat list of the view equal to the previous frame's (the players, the totals
        between deals…) is replaced by that very list: a long replay keeps one copy of what did
        not change instead of one per frame, as it already shares the whole view of a frame
        whose state did not change. Views are read-only, so sharing is safe. Only flat lists
        of texts or of whole numbers are shared: for them equal means written alike (``True
        == 1`` and dicts equal in another key order would not be).
        """
        view = engine.view(self.state, seat)
        if previous_view is None:
            changed = sorted(view)
        else:
            changed = []
            for k, v in view.items():
                old = previous_view.get(k)
                if old != v:
                    changed.append(k)
                elif old is not v and _flat(v) and _flat(old):
                    view[k] = old  # same key, new value object: no resize, the iteration stays valid
            changed.sort()
        return {
            "seq": self.seq,
            "type": self.type,
            "data": _data(self.data),
            "status": self.status,
            "text": self.text,
            "state": view,
            "changed": changed,
        }


def _flat(value: Any) -> bool:
    """Tell whether ``value`` is a list of texts only or of whole numbers only (no bools)."""
    return type(value) is list and (all(type(x) is str for x in value) or all(type(x) is int for x in value))


def _data(data: Mapping[str, Any]) -> dict[str, Any]:
    """An event's data as a frame shows it: the stored dict itself (frames are read-only), a copy of another mapping."""
    return data if type(data) is dict else dict(data)


def _listed(value: Any) -> str:
    """Say a claimed value as the sheet shows it: ``0, 4`` (— where nothing was written), never ``[0, 4]``."""
    if isinstance(value, (list, tuple)):
        return ", ".join("—" if v is None else _listed(v) for v in value)
    return str(value)


_DECISIONS = {"upheld": Said("upheld"), "rejected": Said("rejected")}
"""A ruling's decision in words (the event writes the code, ``upheld`` or ``rejected``)."""


def _side_text(event: Event) -> str:
    """Describe an event that does not move the game, in words.

    What the table wrote (a reason, a note's text) is quoted as written, in whatever language it
    was written; everything around it is said from message ids."""
    d = event.data
    if event.type == "void":
        return Said("entry %(entry)s struck out: %(reason)s", entry=d["target"], reason=d.get("reason", ""))
    if event.type == "amend":
        return Said("entry %(entry)s corrected: %(reason)s", entry=d["target"], reason=d.get("reason", ""))
    if event.type == "note":
        if d.get("target"):
            return Said("note on entry %(entry)s: %(text)s", entry=d["target"], text=d.get("text", ""))
        return Said("note: %(text)s", text=d.get("text", ""))
    if event.type == "dispute":
        field, seat, reason = d.get("field"), d.get("seat"), d.get("reason", "")
        if field and seat is not None:
            return Said(
                "dispute about hand %(hand)s (%(field)s of seat %(seat)s): %(reason)s",
                hand=d["hand"],
                field=CLAIM_FIELDS.get(str(field), str(field)),
                seat=seat,
                reason=reason,
            )
        if field:
            return Said(
                "dispute about hand %(hand)s (%(field)s): %(reason)s",
                hand=d["hand"],
                field=CLAIM_FIELDS.get(str(field), str(field)),
                reason=reason,
            )
        if seat is not None:
            return Said(
                "dispute about hand %(hand)s (seat %(seat)s): %(reason)s", hand=d["hand"], seat=seat, reason=reason
            )
        return Said("dispute about hand %(hand)s: %(reason)s", hand=d["hand"], reason=reason)
    if event.type == "ruling":
        decision = d.get("decision")
        return Said(
            "ruling on the dispute at entry %(entry)s: %(decision)s, %(reason)s",
            entry=d["dispute"],
            decision=_DECISIONS.get(decision, str(decision)) if isinstance(decision, str) else str(decision),
            reason=d.get("reason", ""),
        )
    if event.type == "score_claimed":
        what = Joined(
            [
                Said("%(field)s %(values)s", field=CLAIM_FIELDS.get(k, k), values=_listed(v))  # the field in words
                for k, v in d.items()
                if k != "hand"
            ],
            "; ",
        )
        if d.get("hand"):
            return Said("the table wrote for hand %(hand)s: %(claims)s", hand=d["hand"], claims=what)
        return Said("the table wrote for the match: %(claims)s", claims=what)
    return event.type


def irregular_text(engine: Engine, before: Any, event: Event) -> Said:
    """Say an irregular: the move in words and the rule it breaks, from the engine's own check.

    The check runs again on the state before it, so the rule is said from its message id in the
    reader's language; the English message stored with the event is the fallback (a state that
    no longer refuses it: the log was corrected before it).
    """
    sent = event.data["move"]
    move = Event(event.seq, str(sent["type"]), sent["data"])
    refused = refusal(engine, before, sent, event.seq) if before is not None else None
    rule = refused.message if refused is not None else str((event.data.get("rule") or {}).get("message", ""))
    try:
        words = engine.narrate(before, move, before)  # the move was never applied: no state after it
    except Exception:  # noqa: BLE001 (a narration that needs the state after an illegal move)
        words = move.type
    return Said("irregular: %(move)s — %(rule)s", move=words, rule=rule)


def _auto_dispute(event: Event, previous: Event | None) -> Said | None:
    """The words of the dispute the service opened for the irregular right before it, or None."""
    if previous is None or previous.type != IRREGULAR or previous.data.get("hand") != event.data.get("hand"):
        return None
    return Said(
        "dispute about hand %(hand)s: the irregular move at entry %(entry)s",
        hand=event.data["hand"],
        entry=previous.seq,
    )


WITHHELD_WORDS = Said("a move of the hand in play that needs cards the rules still hide: shown when the hand ends")
"""The words of a step an open reader's fold withholds (see :func:`api.service.disclosure.foldable`)."""


def frames(
    engine: Engine,
    events: Sequence[Event],
    course: Course = "corrected",
    *,
    stop: int | None = None,
    after: int = 0,
    state: Any = None,
) -> list[Frame]:
    """Step through a log; one frame per stored event up to seq ``stop``, read from one walk of it.

    ``after`` and ``state`` (``recorded`` course) resume from the state after event ``after``
    (a checkpoint or a stored snapshot): frames start at ``after + 1``, as in
    :func:`engines.base.walk`.

    Raises:
        RuleViolation: the log does not fold (it never happens to a log the ledger accepted).
    """
    steps = walk(engine, events, course, after=after, state=state) if after else walk(engine, events, course)
    return frames_of(engine, steps, course, stop=stop, before=state)


def frames_of(
    engine: Engine,
    steps: Iterable[Step],
    course: Course = "corrected",
    *,
    stop: int | None = None,
    before: Any = None,
    told_from: int = 1,
) -> list[Frame]:
    """Turn a walk already made into frames (the reader folds a log once and reads it many ways).

    Moves before ``told_from`` are not said in words (their ``text`` is empty): a reader that
    shows the last moves of a long match narrates those, not the thousand before them.
    """
    out: list[Frame] = []
    previous: Event | None = None
    for step in steps:
        event = step.event
        if stop is not None and event.seq > stop:
            break
        if step.status in ("played", "amended"):
            frame = Frame(
                event.seq,
                event.type,
                step.read.data,
                step.status,
                engine.narrate(before, step.read, step.state) if event.seq >= told_from else "",
                step.state,
            )
        elif step.status == "voided":
            frame = Frame(
                event.seq, event.type, event.data, "voided", Said("voided: %(type)s", type=event.type), step.state
            )
        elif step.status == "withheld":
            frame = Frame(event.seq, event.type, event.data, "withheld", WITHHELD_WORDS, step.state)
        elif step.status == "irregular":
            text = irregular_text(engine, before, event) if event.seq >= told_from else ""
            frame = Frame(event.seq, event.type, event.data, "irregular", text, step.state)
        elif event.seq < told_from:  # a note, a claim, a correction: unsaid before the moves told
            frame = Frame(event.seq, event.type, event.data, step.status, "", step.state)
        else:
            text = (event.type == "dispute" and _auto_dispute(event, previous)) or _side_text(event)
            if step.status == "correction" and course == "recorded":
                text = Said("%(text)s (the course continues corrected)", text=text)
            frame = Frame(event.seq, event.type, event.data, step.status, text, step.state)
        out.append(frame)
        before, previous = step.state, event
    return out


def frames_json(
    engine: Engine,
    frames_: Sequence[Frame],
    seat: int | str | None,
    *,
    start: int = 1,
    stop: int | None = None,
    before: Any = None,
    views: dict[int, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Render frames ``start..stop`` (seqs, inclusive) for a seat, each with what changed.

    ``before`` is the state before the first of ``frames_`` when they do not start at event 1
    (None: the first frame shows everything as changed). A view is computed once per state:
    a frame whose state is the very object of the frame before it (a note, a claim, a voided
    move) reuses that view and changed nothing. Frames before ``start - 1`` get no view.
    ``views``, if given, receives each view computed, by ``id`` of its state (read-only, for
    a caller that needs the same views again while the frames are alive). Equal ``changed``
    lists are one list (a long match repeats a handful of them: a deal, a result, a move).
    """
    out = []
    rendered: dict[str, Any]
    changes: dict[tuple[str, ...], list[str]] = {}
    nothing: list[str] = []
    previous_state: Any = before
    previous: Mapping[str, Any] | None = None if before is None else engine.view(before, seat)
    for frame in frames_:
        if stop is not None and frame.seq > stop:
            break
        if frame.seq < start - 1:
            previous_state, previous = frame.state, None
            continue
        if frame.state is previous_state and previous is not None:
            rendered = {
                "seq": frame.seq,
                "type": frame.type,
                "data": _data(frame.data),
                "status": frame.status,
                "text": frame.text,
                "state": previous,
                "changed": nothing,
            }
        else:
            rendered = frame.to_json(engine, seat, previous)
            rendered["changed"] = changes.setdefault(tuple(rendered["changed"]), rendered["changed"])
        if frame.status == "irregular":
            rendered["irregular"] = True
        previous, previous_state = rendered["state"], frame.state
        if views is not None:
            views[id(frame.state)] = previous
        if frame.seq >= start:
            out.append(rendered)
    return out
