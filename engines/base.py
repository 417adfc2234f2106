"""What every engine shares: the event value, the rule error, the engine shape and the fold.

An engine is a module (see ``engines/la_cabra.py``) with these names:

``GAME``
    the stable game id (``"la-cabra"``).
``describe() -> dict``
    players, deck, direction, options with their values and defaults, event types.
``start(data) -> State``
    the state right after ``match_started`` (``data`` already passed the JSON Schema);
    raises :class:`RuleViolation` for what a schema cannot say (a bad option combination).
``apply(state, event) -> State``
    checks ``event`` against the rules and returns the next state; raises
    :class:`RuleViolation` and changes nothing when the move is illegal. Never mutates
    ``state``: every earlier state stays valid for time travel. It receives every game
    event, ``reveal`` and ``hand_result`` included, but never ``void``, ``amend``, ``note``
    or ``score_claimed``: the fold below deals with those.
``legal_moves(state) -> list[dict]``
    event templates (``{"type": ..., "data": {...}}``) that may be recorded next.
``score(state) -> dict``
    VOCABULARY.md §6: ``{"hands": [...], "standings": [...], "end": {...}}``.
``view(state, seat) -> dict``
    the state as ``seat`` sees it; ``None`` is the public view, ``"all"`` the omniscient one.
``narrate(before, event, after) -> str``
    the move in words, for replay frames ("South beats with A♥ 7♠ and takes the lead").
``is_over(state) -> bool``
    whether the match has ended (cheap: the ledger keeps it as the match's status).

The fold is written once here: :func:`effective_log` applies the corrections (``void``,
``amend``) and :func:`fold` reduces the engine's ``apply`` over what remains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, Sequence

Seat = int

CORRECTIONS = frozenset({"void", "amend"})
"""Event types that change how the log is read, never the game directly."""

STATE_NEUTRAL = frozenset({"note", "score_claimed"})
"""Event types that never change the game state (they feed the audit and the replay)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One recorded event as an engine sees it: its place in the log, its type, its payload.

    ``data`` is the decoded JSON payload; engines read it and never change it.
    """

    seq: int
    type: str
    data: Mapping[str, Any] = field(default_factory=dict)


class RuleViolation(Exception):
    """A recorded event that the rules forbid.

    ``code`` is stable (``la-cabra.cannot_beat``, ``common.not_your_turn``); ``message`` is
    a sentence a player understands; ``seq`` names an earlier event when the violation is
    about it (a reveal that makes an earlier move illegal, a correction that breaks a
    later event).
    """

    def __init__(self, code: str, message: str, *, seq: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.seq = seq
        self.event: int | None = None
        """The seq of the event being applied when the fold raised (set by :func:`fold`)."""


class UnknownGame(LookupError):
    """A game id that no engine answers to."""

    def __init__(self, game: object) -> None:
        super().__init__(f"unknown game {game!r}")
        self.game = game


class Engine(Protocol):
    """The shape every game module has (modules satisfy it structurally)."""

    GAME: str
    RULES_VERSION: int
    """Raised whenever a change to the rules could score a recorded hand differently."""

    def describe(self) -> dict[str, Any]: ...
    def start(self, data: Mapping[str, Any]) -> Any: ...
    def apply(self, state: Any, event: Event) -> Any: ...
    def legal_moves(self, state: Any) -> list[dict[str, Any]]: ...
    def score(self, state: Any) -> dict[str, Any]: ...
    def view(self, state: Any, seat: Seat | str | None) -> dict[str, Any]: ...
    def narrate(self, before: Any, event: Event, after: Any) -> str: ...
    def is_over(self, state: Any) -> bool: ...


# --------------------------------------------------------------------------- corrections


@dataclass(frozen=True, slots=True)
class Correction:
    """A ``void`` or ``amend`` as the audit lists it, with whether it is still in force."""

    seq: int
    type: str
    target: int
    reason: str
    in_force: bool


def voided_seqs(events: Sequence[Event]) -> frozenset[int]:
    """Return the seqs the fold skips: voided events, and whole hands whose deal was voided.

    A correction only ever targets an earlier event, so reading the log backwards settles
    each void before the events it targets: a voided ``void`` is simply never counted.
    Voiding a ``hand_started`` (a misdeal) also skips the hand's later events recorded
    before that void, up to the next ``hand_started``; events after the void are read as
    they come (a move there, with no deal standing, is refused by the engine).
    """
    voided: set[int] = set()
    voids: list[tuple[int, int]] = []
    for event in reversed(events):
        if event.seq in voided:
            continue
        if event.type == "void":
            target = int(event.data["target"])
            voided.add(target)
            voids.append((target, event.seq))
    kinds = {e.seq: e.type for e in events}
    for target, void_seq in voids:
        if kinds.get(target) != "hand_started":
            continue
        for event in events:
            if event.seq <= target or event.type in CORRECTIONS:
                continue
            if event.seq >= void_seq or event.type == "hand_started":
                break
            voided.add(event.seq)
    return frozenset(voided)


def effective_log(events: Sequence[Event], *, keep_neutral: bool = False) -> list[Event]:
    """Return the events the fold uses: corrections applied, corrections and notes removed.

    Each remaining event keeps its original ``seq`` (reveals and claims refer to it);
    an amended event carries the data of the latest amend still in force. With
    ``keep_neutral`` the notes and score claims that stand are kept too (the audit reads them).
    """
    voided = voided_seqs(events)
    amended: dict[int, Mapping[str, Any]] = {}
    for event in events:
        if event.type == "amend" and event.seq not in voided:
            amended[int(event.data["target"])] = event.data["data"]
    out = []
    for event in events:
        if event.seq in voided or event.type in CORRECTIONS or (event.type in STATE_NEUTRAL and not keep_neutral):
            continue
        if event.seq in amended:
            event = Event(event.seq, event.type, amended[event.seq])
        out.append(event)
    return out


def corrections(events: Sequence[Event]) -> list[Correction]:
    """List every ``void`` and ``amend`` in the log with its reason and whether it stands."""
    voided = voided_seqs(events)
    return [
        Correction(e.seq, e.type, int(e.data["target"]), str(e.data.get("reason", "")), e.seq not in voided)
        for e in events
        if e.type in CORRECTIONS
    ]


def check_correction(events: Sequence[Event], correction: Event) -> None:
    """Check what a correction may target, before its effect on later events is folded.

    Raises:
        RuleViolation: ``common.bad_target`` (no such earlier event, or a ``match_started``
            void), ``common.amend_type`` (amend of a correction or a note), or
            ``common.amend_game`` (an amend that changes the game).
    """
    target = int(correction.data["target"])
    by_seq = {e.seq: e for e in events}
    if target >= correction.seq or target not in by_seq:
        raise RuleViolation("common.bad_target", f"event {target} does not exist before event {correction.seq}")
    aimed = by_seq[target]
    if correction.type == "void" and aimed.type == "match_started":
        raise RuleViolation("common.bad_target", "match_started cannot be voided; amend it or start a new match", seq=target)
    if correction.type == "amend":
        if aimed.type in CORRECTIONS or aimed.type == "note":
            raise RuleViolation("common.amend_type", f"event {target} is a {aimed.type}; void it instead of amending it", seq=target)
        if aimed.type == "match_started" and correction.data["data"].get("game") != aimed.data.get("game"):
            raise RuleViolation("common.amend_game", "an amend of match_started cannot change the game", seq=target)


# --------------------------------------------------------------------------- the fold


def fold(engine: Engine, events: Sequence[Event], state: Any = None) -> Any:
    """Fold events (already effective: see :func:`effective_log`) into a state.

    With ``state`` None the first event must be ``match_started``. Raises the first
    :class:`RuleViolation`.
    """
    it: Iterable[Event] = events
    if state is None:
        first, *rest = events
        if first.type != "match_started":
            raise RuleViolation("common.no_match", "a match starts with match_started")
        state = engine.start(first.data)
        it = rest
    for event in it:
        if event.type in CORRECTIONS or event.type in STATE_NEUTRAL:
            continue
        try:
            if event.type == "match_started":
                raise RuleViolation("common.already_started", "match_started comes once, as the first event")
            state = engine.apply(state, event)
        except RuleViolation as violation:
            if violation.event is None:
                violation.event = event.seq
            raise
    return state


def replay(engine: Engine, events: Sequence[Event]) -> Any:
    """Fold a raw log (corrections included) into the state it describes."""
    return fold(engine, effective_log(events))
