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
from typing import Any, Iterable, Literal, Mapping, Sequence

from engines.base import (
    CORRECTIONS,
    Engine,
    Event,
    effective_log,
    fold,
    voided_seqs,
)
from ledger.records import StoredEvent

Course = Literal["corrected", "recorded"]
COURSES: tuple[Course, ...] = ("corrected", "recorded")


def events_from(records: Iterable[StoredEvent]) -> list[Event]:
    """Turn stored envelopes into the events engines read."""
    return [Event(r.seq, r.type, r.data) for r in records]


@dataclass(frozen=True)
class Frame:
    """One step of a replay."""

    seq: int
    type: str
    data: Mapping[str, Any]
    status: str
    """``played``, ``amended`` (played with corrected data), ``voided``, ``correction``,
    ``note`` or ``claim``."""
    text: str
    state: Any
    """The engine state after this step (not JSON: :func:`frame_json` turns it into a view)."""

    def to_json(self, engine: Engine, seat: int | str | None, previous_view: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return the frame as the API shows it: the view after it and what changed."""
        view = engine.view(self.state, seat)
        changed = sorted(k for k in view if previous_view is None or previous_view.get(k) != view[k])
        return {"seq": self.seq, "type": self.type, "data": dict(self.data), "status": self.status,
                "text": self.text, "state": view, "changed": changed}


def _side_text(event: Event) -> tuple[str, str]:
    """Describe an event that does not move the game (status, words)."""
    d = event.data
    if event.type == "void":
        return "correction", f"void of event {d['target']}: {d.get('reason', '')}"
    if event.type == "amend":
        return "correction", f"amend of event {d['target']}: {d.get('reason', '')}"
    if event.type == "note":
        where = f" on event {d['target']}" if d.get("target") else ""
        return "note", f"note{where}: {d.get('text', '')}"
    if event.type == "score_claimed":
        what = ", ".join(f"{k} {v}" for k, v in d.items() if k != "hand")
        hand = f"hand {d['hand']}" if d.get("hand") else "the match"
        return "claim", f"the table wrote for {hand}: {what}"
    return "note", event.type


def frames(engine: Engine, events: Sequence[Event], course: Course = "corrected") -> list[Frame]:
    """Step through a whole log; one frame per stored event.

    Raises:
        RuleViolation: the log does not fold (it never happens to a log the ledger accepted).
    """
    if course == "recorded":
        return _recorded(engine, events)
    voided = voided_seqs(events)
    effective = {e.seq: e for e in effective_log(events)}
    out: list[Frame] = []
    state: Any = None
    for event in events:
        if event.seq in effective:
            played = effective[event.seq]
            before = state
            state = engine.start(played.data) if played.type == "match_started" else engine.apply(state, played)
            status = "amended" if played.data is not event.data else "played"
            out.append(Frame(event.seq, event.type, played.data, status, engine.narrate(before, played, state), state))
        elif event.seq in voided:
            out.append(Frame(event.seq, event.type, event.data, "voided", f"voided: {event.type}", state))
        else:
            status, text = _side_text(event)
            out.append(Frame(event.seq, event.type, event.data, status, text, state))
    return out


def _recorded(engine: Engine, events: Sequence[Event]) -> list[Frame]:
    out: list[Frame] = []
    state: Any = None
    for i, event in enumerate(events):
        if event.type in CORRECTIONS:
            state = fold(engine, effective_log(events[: i + 1]))
            status, text = _side_text(event)
            out.append(Frame(event.seq, event.type, event.data, status, text + " (the course continues corrected)", state))
        elif event.type in ("note", "score_claimed"):
            status, text = _side_text(event)
            out.append(Frame(event.seq, event.type, event.data, status, text, state))
        else:
            before = state
            state = engine.start(event.data) if event.type == "match_started" else engine.apply(state, event)
            out.append(Frame(event.seq, event.type, event.data, "played", engine.narrate(before, event, state), state))
    return out


def frames_json(engine: Engine, frames_: Sequence[Frame], seat: int | str | None, *, start: int = 1, stop: int | None = None) -> list[dict[str, Any]]:
    """Render frames ``start..stop`` (seqs, inclusive) for a seat, each with what changed."""
    out = []
    previous: Mapping[str, Any] | None = None
    for frame in frames_:
        if frame.seq > (stop if stop is not None else frame.seq):
            break
        rendered = frame.to_json(engine, seat, previous)
        previous = rendered["state"]
        if frame.seq >= start:
            out.append(rendered)
    return out
