"""What an open read may show of a match in play: the one redaction every read path applies.

The engines declare which fields are private (``PRIVATE`` next to each ``view``, read by
:mod:`engines.privacy`). Here, Flask-free, the service turns those declarations into:

* the private places of each event it appends (the ledger commits to them: chain format 2);
* the envelope a reader sees (:func:`envelope`): everything, with each value's salt, for the
  scorer holding the write token or once the match is over; otherwise the data with each
  private value replaced by its marked placeholder ``{"private": true, "commitment": …}``,
  which is also what the chain hashes, so the public listing still verifies;
* the log as a record without the private facts would hold it (:func:`public_log`): a
  reader without the token gets states, seat views, words, legal moves and scores folded
  from that log, so none of them can echo a private value, whatever the engine's view does.

Every open read goes through :func:`envelope` (listings, exports, streams) or
:func:`public_log` (anything folded); nothing else decides what is private.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Iterator, Mapping, Sequence

from engines.base import CORRECTIONS, Course, Engine, Event, RuleViolation, Step, voided_seqs, walk
from engines.privacy import Secret, secrets_of, unknown_form
from ledger.records import Path, StoredEvent, committed_data, public_data


class OptionsOf(Mapping[str, Any]):
    """An engine state's options (a frozen dataclass) read as a mapping, without copying it.

    ``dataclasses.asdict`` deep-copies and cost ~190 µs per append; this is a lookup.
    """

    def __init__(self, options: Any) -> None:
        self._options = options
        self._names = _field_names(options.__class__)

    def __getitem__(self, key: str) -> Any:
        if key not in self._names:
            raise KeyError(key)
        return getattr(self._options, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else frozenset()


def match_options(events: Sequence[Event]) -> Mapping[str, Any]:
    """Return the options in force: those of ``match_started`` or of its latest amend still standing."""
    options: Any = events[0].data.get("options") if events else None
    voided = voided_seqs(events) if any(e.type == "void" for e in events) else frozenset()
    for event in events:
        if event.type == "amend" and event.seq not in voided and int(event.data.get("target", 0)) == 1:
            inner = event.data.get("data")
            if isinstance(inner, Mapping):
                options = inner.get("options")
    return options if isinstance(options, Mapping) else {}


def event_secrets(engine: Engine, options: Mapping[str, Any], event_type: str, data: Mapping[str, Any],
                  types: Mapping[int, str]) -> list[Secret]:
    """Return the private values of one event; ``types`` gives an amend's target type by seq."""
    target_type = None
    if event_type == "amend":
        target = data.get("target")
        target_type = types.get(target) if isinstance(target, int) else None
    return secrets_of(engine.PRIVATE, options, event_type, data, target_type=target_type)


def private_paths(engine: Engine, options: Mapping[str, Any], event_type: str, data: Mapping[str, Any],
                  types: Mapping[int, str]) -> tuple[Path, ...]:
    """Return where an event to append holds private values (what the ledger commits to)."""
    return tuple(s.path for s in event_secrets(engine, options, event_type, data, types))


def public_log(engine: Engine, events: Sequence[Event], options: Mapping[str, Any] | None = None) -> list[Event]:
    """Return the log as a record that never learnt a private value would hold it.

    Each private field takes its unknown form (``"??"`` cards, or left out), per the
    engine's declaration; an amend's new payload likewise. ``events`` is the log from event
    1, or (with the match's ``options``) a stretch of it without corrections.
    """
    options = match_options(events) if options is None else options
    types = {e.seq: e.type for e in events}
    out = []
    for event in events:
        found = event_secrets(engine, options, event.type, event.data, types)
        out.append(Event(event.seq, event.type, unknown_form(event.data, found)) if found else event)
    return out


def kept_in_hand(engine: Engine, events: Sequence[Event], options: Mapping[str, Any], kept: bool = False) -> bool:
    """Tell whether the hand in play after ``events`` holds a private value the public log keeps.

    A ``keep`` field (a Cabo reveal during play) stays in the public fold because the view
    hides it; a legal move of that fold could still name it (a claim of the revealed slot),
    so an open reader gets bare moves until the next deal. A kept value the rules turn up
    during the hand (``shown``: Kabú's open cards) does not count: its engine's moves never
    name it (Kabú's keeps offer the seat's dealt cards, never an open card), and the next
    dealer and the showdown check stay concrete. ``kept`` is the answer before
    ``events`` (they may be the newest stretch of the log); a deal starts the answer afresh.
    """
    types = {e.seq: e.type for e in events}
    for event in events:
        if event.type == "hand_started":
            kept = False
        found = event_secrets(engine, options, event.type, event.data, types)
        if any(s.unknown == "keep" and s.shown is None for s in found):
            kept = True
    return kept


def foldable_public_log(engine: Engine, events: Sequence[Event]) -> tuple[list[Event], frozenset[int], Any]:
    """Return a public log the rules accept, the seqs of the events put back as recorded, and its last state.

    The unknown form is weaker than what the record holds, and a few rule checks need the
    record's knowledge (La Cabra: a discard from a hand the table knows must be named; El
    Roby: a hand whose cards were all written needs no showdown, but its unknown form does).
    When the walk refuses the public log at an event, that event is put back as recorded if
    it carried private values; if it did not (or that was not enough), the private events of
    the hand that just closed are (its cards were shown at its end), and the refused event
    takes its public form again. A reader then gets the public view only (no seat view), and
    the hands holding a put-back event are withheld from the audit (:func:`withheld`).
    ``events`` is the log from event 1; an empty set means the public log folds as it is.

    One walk: a refusal re-walks from the start of the hand that just closed, never from
    event 1 (a log with corrections is re-walked whole: a correction reads the log before it).

    Raises:
        RuleViolation: the log does not fold even as recorded (never for a stored log).
    """
    public = public_log(engine, events)
    shown = list(public)
    back: set[int] = set()
    whole = any(e.type in CORRECTIONS for e in events)
    states: list[Any] = []  # the state after each event of ``shown`` walked so far
    for _ in range(2 * len(events) + 2):
        try:
            if whole:
                states = []
            start = len(states)
            after = shown[start - 1].seq if start else 0
            course: Course = "corrected" if whole else "recorded"
            steps = walk(engine, shown, course) if whole else walk(engine, shown[start:], course, after=after,
                                                                   state=states[-1] if states else None)
            for step in steps:
                states.append(step.state)
            return shown, frozenset(events[i].seq for i in back), states[-1] if states else None
        except RuleViolation as error:
            index = next((i for i, e in enumerate(events) if e.seq == error.event), -1) if whole else len(states)
            if not 0 <= index < len(events) or events[index].seq != error.event:
                raise
            if shown[index] is not events[index] and index not in back:
                shown[index] = events[index]
                back.add(index)
                continue
            begin = max((i for i in range(index) if events[i].type == "hand_started"), default=0)
            changed = [i for i in range(begin, index) if shown[i] is not events[i]]
            if not changed:
                raise
            for i in changed:
                shown[i] = events[i]
                back.add(i)
            if index in back and public[index] is not events[index]:
                shown[index] = public[index]  # the hand's facts may be enough for its public form
                back.discard(index)
            del states[begin:]
    return list(events), frozenset(e.seq for e in events), _last_state(engine, events)


def _last_state(engine: Engine, events: Sequence[Event]) -> Any:
    state = None
    for step in walk(engine, events):
        state = step.state
    return state


WITHHELD = "scored from cards not yet shown to the table: its lines are shown when the match ends, or with the write token"
"""Why an open read gives a hand without its lines (see :func:`withheld`)."""


def withheld_hands(steps: Sequence[Step], put_back: frozenset[int]) -> frozenset[int]:
    """Return the numbers of the hands that hold an event put back as recorded, read off a walk.

    A hand's number counts the deals the walk played (a voided deal, a misdeal, takes none),
    as the score sheet numbers them.
    """
    out: set[int] = set()
    number = 0
    for step in steps:
        if step.event.type == "hand_started" and step.status in ("played", "amended"):
            number += 1
        if step.event.seq in put_back:
            out.add(number)
    return frozenset(out)


def withheld(sheet: Mapping[str, Any], hands: frozenset[int]) -> dict[str, Any]:
    """Return a score sheet with the given hands withheld: what the table writes, not why.

    A hand scored from a log that holds events put back as recorded would explain its points
    with cards no reader without the token has seen. It keeps its numbers (the points and
    totals the table writes on its sheet, the result's numeric fields, so claims still
    compare, and a hand in play its list of missing cards by seq and index) and its status
    (VOCABULARY §6's words), loses its lines and every other field, and says why in ``withheld``.
    """
    if not hands:
        return dict(sheet)
    out = []
    for hand in sheet["hands"]:
        if hand.get("hand") not in hands:
            out.append(hand)
            continue
        kept = {k: v for k, v in hand.items() if k in ("hand", "points", "totals") or (k != "result" and _numbers(v))}
        result = {k: v for k, v in (hand.get("result") or {}).items() if _numbers(v)}
        out.append({**kept, "status": hand.get("status"), "result": result, "lines": [], "withheld": WITHHELD})
    return {**sheet, "hands": out}


def _numbers(value: Any) -> bool:
    """Whether a value holds numbers only (a count, per-seat totals, seqs and indexes), no card."""
    if value is None or isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, Mapping):
        return all(_numbers(v) for v in value.values())
    return isinstance(value, list) and all(_numbers(v) for v in value)


def has_shown_conditions(engine: Engine) -> bool:
    """Tell whether the engine declares a value the rules make public before the match ends."""
    return any(d.shown is not None for declared in engine.PRIVATE.values() for d in declared)


def shown_paths(engine: Engine, options: Mapping[str, Any], event: Event, later: Sequence[Event],
                types: Mapping[int, str]) -> frozenset[Path]:
    """Return where an event holds private values the rules have made public since (``later``
    are the events recorded after it): an open listing shows those with their salts."""
    return frozenset(s.path for s in event_secrets(engine, options, event.type, event.data, types)
                     if s.shown is not None and s.shown(options, event.data, later))


def envelope_shown(event: StoredEvent, shown: frozenset[Path]) -> dict[str, Any]:
    """Return the open envelope of a format-2 event some of whose private values are public now.

    Those values are listed as the scorer's listing lists them (value in ``data``, salt and
    commitment under ``private``); the others keep their placeholders. A verifier checks each
    listed value against its commitment and hashes the placeholders as shown, as after the match.
    """
    out = event.envelope()
    out["data"] = committed_data(event.data, [(path, salt) for path, salt in event.private if tuple(path) not in shown])
    listed = [item for item in out.get("private", []) if tuple(item["path"]) in shown]
    if listed:
        out["private"] = listed
    else:
        out.pop("private", None)
    return out


def envelope(event: StoredEvent, full: bool) -> dict[str, Any]:
    """Return a stored event as a reader sees it: everything (``full``), or its public form.

    The public form shows each private value as its placeholder (with the commitment the
    hash was computed over, for format 2). A format-1 event has no commitment: its private
    values are shown as ``{"private": true}`` and its hash can only be checked by someone
    who may see them (``tanteo verify --db``, or the listing once the match is over).
    """
    out = event.envelope()
    if full:
        return out
    out.pop("private", None)
    out["data"] = public_data(event)
    return out


def hide_unsalted(event: StoredEvent, engine: Engine, options: Mapping[str, Any], types: Mapping[int, str]) -> dict[str, Any]:
    """Return the public envelope of an event stored before commitments (format 1)."""
    out = envelope(event, False)
    data: Any = out["data"]
    for secret in event_secrets(engine, options, event.type, event.data, types):
        data = _put(data, secret.path, {"private": True})
    out["data"] = data
    return out


def _put(data: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    step, rest = path[0], path[1:]
    if isinstance(data, list):
        copy = list(data)
        copy[int(step)] = _put(data[int(step)], rest, value)
        return copy
    copy_map = dict(data)
    copy_map[step] = _put(data[step], rest, value)
    return copy_map


def public_envelopes(engine: Engine, records: Sequence[StoredEvent], all_types: Mapping[int, str],
                     options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the open listing of stored events (format 2: commitments; format 1: bare placeholders)."""
    return [envelope(r, False) if r.format >= 2 else hide_unsalted(r, engine, options, all_types) for r in records]


__all__ = ["WITHHELD", "OptionsOf", "envelope", "envelope_shown", "foldable_public_log", "has_shown_conditions", "kept_in_hand", "shown_paths", "withheld", "withheld_hands", "event_secrets", "match_options", "private_paths", "public_envelopes", "public_log"]
