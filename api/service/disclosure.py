"""What an open read may show of a match in play: the one redaction every read applies.

The engines declare which fields are private (``PRIVATE`` next to each ``view``, read by
:mod:`engines.privacy`). Here, Flask-free, the service turns those declarations into:

* the private places of each event it appends (the ledger commits to them: chain format 2);
* :func:`disclose`: what an open reader may see of a stored log *now*. A value is private
  while its hand is in play; the end of the hand shows what the table shows then (VOCABULARY
  §4 "Who may see it"), so from that moment the value, and any ``reveal`` of it recorded later,
  is public, unless its engine declares that the rules never show it. Privacy is read with the
  options in force when each event was recorded: a later amend of the options never makes an
  earlier hidden value public. The result is the log a reader may fold (each value still
  hidden in its unknown form) and, per event, which committed values the listing now shows
  with their salts, so that the chain verifies from the open listing alone;
* the envelope a reader sees (:func:`listed`).

Only :class:`api.service.reader.Reader` calls these: it decides once per read what this
reader may see, and every read (JSON, pages, stream, exports, CSV, sheet) goes through it.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
from typing import Any, Callable, Iterator, Mapping, Sequence

from engines.base import CORRECTIONS, Course, Engine, Event, RuleViolation, Step, voided_seqs, walk, walk_again
from engines.privacy import Secret, secrets_of, unknown_form
from engines.said import Said
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


def event_secrets(
    engine: Engine, options: Mapping[str, Any], event_type: str, data: Mapping[str, Any], types: Mapping[int, str]
) -> list[Secret]:
    """Return the private values of one event; ``types`` gives an amend's target type by seq."""
    target_type = None
    if event_type == "amend":
        target = data.get("target")
        target_type = types.get(target) if isinstance(target, int) else None
    return secrets_of(engine.PRIVATE, options, event_type, data, target_type=target_type)


def private_paths(
    engine: Engine, options: Mapping[str, Any], event_type: str, data: Mapping[str, Any], types: Mapping[int, str]
) -> tuple[Path, ...]:
    """Return where an event to append holds private values (what the ledger commits to)."""
    return tuple(s.path for s in event_secrets(engine, options, event_type, data, types))


def recorded_options(events: Sequence[Event]) -> list[Mapping[str, Any]]:
    """Return, for each event, the options in force when it was recorded.

    That is the options of ``match_started`` as the log before the event reads them (the
    latest amend of event 1 still standing then): a later amend applies from its own seq on.
    """
    current = match_options(events[:1])
    out: list[Mapping[str, Any]] = []
    for i, event in enumerate(events):
        out.append(current)
        if event.type in CORRECTIONS:
            current = match_options(events[: i + 1])
    return out


@dataclasses.dataclass(frozen=True)
class Disclosure:
    """What an open reader may see of a log now (see :func:`disclose`)."""

    log: list[Event]
    """The log as that reader may fold it: each value still hidden in its unknown form."""
    hidden: Mapping[int, tuple[Secret, ...]]
    """Per seq, the private values still hidden."""
    shown: Mapping[int, frozenset[Path]]
    """Per seq, the private places that are public now: the listing shows them with their salts."""


def standing_deals(events: Sequence[Event]) -> list[int]:
    """Return the seqs of the ``hand_started`` events that stand (a voided deal is a misdeal)."""
    voided = voided_seqs(events) if any(e.type == "void" for e in events) else frozenset()
    return [e.seq for e in events if e.type == "hand_started" and e.seq not in voided]


def ended_deals(events: Sequence[Event], last_in_play: bool) -> frozenset[int]:
    """Return the seqs of the deals whose hand has ended: every standing deal but a last one in play.

    A deal is refused while the hand before it is unfinished, so a standing later deal proves
    a hand ended; the last one has ended when the head state scores it (``last_in_play`` false).
    A voided deal never ends: what a misdeal hid stays hidden until the match is over.
    """
    deals = standing_deals(events)
    return frozenset(deals[:-1] if last_in_play else deals)


def hand_in_play(engine: Engine, state: Any, score: Callable[[Any], Mapping[str, Any]] | None = None) -> bool:
    """Tell whether the state has a hand in play: the rules' score still marks its last hand ``playing``
    (``score``: how the caller scores a state, when it keeps the sheet for more than this)."""
    if state is None:
        return False
    told = getattr(engine, "hand_in_play", None)  # optional: a game that tells it without scoring
    if told is not None:
        return bool(told(state))
    hands = (score or engine.score)(state)["hands"]
    return bool(hands) and hands[-1].get("status") == "playing"


def _deal_of(deals: Sequence[int], seq: int) -> int | None:
    """The deal whose hand was in play at event ``seq`` (the latest deal at or before it)."""
    i = bisect.bisect_right(deals, seq) - 1
    return deals[i] if i >= 0 else None


def _secret_deal(
    event_type: str, data: Mapping[str, Any], seq: int, path: Path, deals: Sequence[int], types: Mapping[int, str]
) -> int | None:
    """Return the deal a private value belongs to: its event's, or the event a binding or an amend names."""
    if event_type == "amend" and path and path[0] == "data":
        target = data.get("target")
        inner = data.get("data")
        if isinstance(target, int) and isinstance(inner, Mapping) and target in types:
            return _secret_deal(types[target], inner, target, path[1:], deals, types)
    if event_type == "reveal" and len(path) >= 2 and path[0] == "cards":
        bindings = data.get("cards")
        binding = (
            bindings[path[1]]
            if isinstance(bindings, list) and isinstance(path[1], int) and path[1] < len(bindings)
            else None
        )
        if isinstance(binding, Mapping) and isinstance(binding.get("seq"), int) and binding["seq"] < seq:
            return _deal_of(deals, binding["seq"])
    return _deal_of(deals, seq)


def disclose(
    engine: Engine,
    events: Sequence[Event],
    ended: frozenset[int],
    committed: Mapping[int, Sequence[Path]] | None = None,
) -> Disclosure:
    """Return what an open reader may see of a log (from event 1) now.

    ``ended`` are the deals whose hand has ended (:func:`ended_deals`); ``committed`` the
    private places each format-2 row committed to when it was stored, which decide (a value
    committed to stays private whatever the declarations say now). Each private value is
    public when its hand has ended and its engine says the end of the hand shows it, or
    when the rules showed it earlier (a declaration's ``shown``); else it stays hidden.
    """
    options = recorded_options(events)
    types = {e.seq: e.type for e in events}
    deals = [e.seq for e in events if e.type == "hand_started"]
    log: list[Event] = []
    hidden: dict[int, tuple[Secret, ...]] = {}
    shown: dict[int, frozenset[Path]] = {}
    for i, event in enumerate(events):
        stored = committed.get(event.seq) if committed is not None else None
        if stored is not None and not stored:  # committed to nothing private when stored: nothing to hide
            log.append(event)
            continue
        found = (
            event_secrets(engine, options[i], event.type, event.data, types)
            if event.type in engine.PRIVATE or event.type == "amend"
            else []
        )
        if stored is not None:
            paths = {tuple(p) for p in stored}
            found = [s for s in found if s.path in paths]
            found += [Secret(p, frozenset(), "??") for p in paths - {s.path for s in found}]
        if not found:
            log.append(event)
            continue
        still: list[Secret] = []
        public: set[Path] = set()
        for secret in found:
            deal = _secret_deal(event.type, event.data, event.seq, secret.path, deals, types)
            if (secret.hand_end and deal in ended) or (
                secret.shown is not None and secret.shown(options[i], event.data, events[i + 1 :])
            ):
                public.add(secret.path)
            else:
                still.append(secret)
        if still:
            hidden[event.seq] = tuple(still)
            log.append(Event(event.seq, event.type, unknown_form(event.data, still)))
        else:
            log.append(event)
        if public:
            shown[event.seq] = frozenset(public)
    return Disclosure(log, hidden, shown)


def kept_in_play(disclosure: Disclosure) -> bool:
    """Tell whether the hand in play holds a hidden value the open fold keeps (``unknown="keep"``).

    A ``keep`` field (a Cabo reveal during play) stays in the fold because the view hides it;
    a legal move of that fold could still name it (a claim of the revealed slot), so an open
    reader gets bare moves until the hand ends.
    """
    for event in reversed(disclosure.log):
        if any(s.unknown == "keep" for s in disclosure.hidden.get(event.seq, ())):
            return True
        if event.type == "hand_started":
            return False
    return False


def foldable(
    engine: Engine,
    events: Sequence[Event],
    public: Sequence[Event],
    course: Course = "corrected",
    before: Sequence[Step] = (),
) -> tuple[list[Event], frozenset[int], list[Step]]:
    """Return the disclosed log, the seqs of the events it cannot fold, and its one walk.

    The unknown form is weaker than what the record holds, and a few rule checks need the
    record's knowledge (La Cabra: a discard from a hand the table knows must be named, or,
    after an amend of the options, face-up discards recorded face down). Since every hand
    that has ended is shown, such a refusal can only come in the hand in play: the walk
    stops before the refused event, and it and every event after it are *withheld* (each
    gets a step of status ``withheld`` holding the last state folded) until the hand ends
    and shows its cards. Nothing this reader may not see is ever folded, so every view of
    the walk, a seat's included, is safe to show; an empty set means the log folds whole.
    ``events`` is the log from event 1 and ``public`` its disclosed form (:attr:`Disclosure.log`);
    ``before`` (corrected course) the whole walk of an earlier disclosed log, taken over as far
    as it holds (:func:`engines.base.walk_again`).

    Raises:
        RuleViolation: the log refused at its first event (never for a stored log).
    """
    steps: list[Step] = []
    try:
        walked = (
            walk_again(engine, public, before) if before and course == "corrected" else walk(engine, public, course)
        )
        for step in walked:  # one by one: at a refusal, ``steps`` ends before it
            steps.append(step)
        return list(public), frozenset(), steps
    except RuleViolation:
        if not steps:
            raise
    state = steps[-1].state  # the corrected course: corrections after the refusal already read
    rest = [Step(event, event, "withheld", state) for event in public[len(steps) :]]
    return list(public), frozenset(e.seq for e in public[len(steps) :]), steps + rest


def open_fold(
    engine: Engine, events: Sequence[Event]
) -> tuple[Disclosure, tuple[list[Event], frozenset[int], list[Step]]]:
    """Return what an open reader may see of a log held in memory, and its fold (:func:`foldable`).

    The reader (:class:`api.service.reader.Reader`) does the same from the ledger, with the
    state cache's head state and the commitments stored; this folds the log once more for the
    head (for tests and tools that hold a log, not a match).
    """
    truth = None
    for step in walk(engine, events):
        truth = step.state
    disclosure = disclose(engine, events, ended_deals(events, hand_in_play(engine, truth)))
    return disclosure, foldable(engine, events, disclosure.log)


WITHHELD = Said(
    "scored from cards not yet shown to the table: its lines are shown when the match ends, or with the write token"
)
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


def listed(event: StoredEvent, disclosure: Disclosure | None) -> dict[str, Any]:
    """Return a stored event as a reader sees it: everything (``disclosure`` None: the write key,
    or the match is over), or as an open reader may see it now.

    An open reader sees each value still hidden as its placeholder, with the commitment the
    hash was computed over (format 2), and each committed value the rules have shown since
    with its salt, so the listing verifies alone. A format-1 event has no commitment: its
    hidden values read ``{"private": true}`` and its hash can only be checked by someone who
    may see them (``tanteo verify --db``, or the listing once the match is over).
    """
    if disclosure is None:
        return event.envelope()
    if event.format >= 2:
        shown = disclosure.shown.get(event.seq)
        return envelope_shown(event, shown) if shown else envelope(event, False)
    out = event.envelope()
    data: Any = out["data"]
    for secret in disclosure.hidden.get(event.seq, ()):
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


__all__ = [
    "WITHHELD",
    "Disclosure",
    "OptionsOf",
    "disclose",
    "ended_deals",
    "envelope",
    "event_secrets",
    "foldable",
    "hand_in_play",
    "kept_in_play",
    "listed",
    "match_options",
    "open_fold",
    "private_paths",
    "recorded_options",
    "standing_deals",
    "withheld",
    "withheld_hands",
]
