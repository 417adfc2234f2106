"""What every engine shares: the event value, the rule error, the engine shape and the fold.

An engine is a module (see ``engines/la_cabra/``) with these names:

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
    or ``score_claimed``: the walk below deals with those.
``legal_moves(state) -> list[dict]``
    event templates (``{"type": ..., "data": {...}}``) that may be recorded next.
``score(state) -> dict``
    VOCABULARY.md §6: ``{"hands": [...], "standings": [...], "end": {...}}``.
``view(state, seat) -> dict``
    the state as ``seat`` sees it; ``None`` is the public view, ``"all"`` the omniscient one.
``narrate(before, event, after) -> str``
    the move in words, for replay frames ("South beats with A♥ 7♠ and takes the lead"); only
    events that move the game reach it: notes, claims, disputes, rulings and corrections are
    worded once for every game by the replay (``replays/steps.py``).
``PRIVATE``
    per event type, the fields only some seats saw (``engines/privacy.py``), next to ``view``.
``is_over(state) -> bool``
    whether the match has ended (cheap: the ledger keeps it as the match's status).
``hand_in_play(state) -> bool`` (optional)
    whether ``score(state)`` marks the last hand ``playing``, told without scoring (what an open
    reader may see depends on it: :mod:`api.service.disclosure`).
``hindsight(events, final) -> list[Event]`` (optional)
    the log with each hidden card written as the whole record came to know it, for the
    omniscient replay (Cabo: a card keeps its identity from the deal to the showdown).

The log is walked once, here: :func:`walk` reads a stored log (``match_started``, the
moves, notes and claims, corrections) and yields each event with its status and the state
after it; :func:`replay` (the fold), the replay frames, the service's cache and the audit
all consume it. :func:`voided_seqs` alone decides what a ``void`` covers.
"""

from __future__ import annotations

import gc
import threading
from bisect import bisect_left
from operator import attrgetter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Literal, Mapping, NamedTuple, Protocol, Sequence

from engines.said import Said
from engines.written import as_written

Seat = int

CORRECTIONS = frozenset({"void", "amend"})
"""Event types that change how the log is read, never the game directly."""

DESK = frozenset({"dispute", "ruling"})
"""The dispute desk's event types: a player contests a hand, the ruling settles it (VOCABULARY.md §4).
Like notes they never change the game; an upheld ruling's correction is an ordinary ``void``
or ``amend`` recorded with it."""

SEATS = frozenset({"seat_key", "seat_signer", "confirm"})
"""The seats' own events (VOCABULARY.md §4): the scorer gives a seat its key (``seat_key``), the
seat's phone registers its public signing key (``seat_signer``) and signs that it agrees with a
hand's result (``confirm``). None changes the game."""

IRREGULAR = "irregular"
"""A move the rules refuse, recorded as played (issue 31): the engines never apply it, so an
irregularity can never change how a legal record is scored; the desk's dispute settles it."""

STATE_NEUTRAL = frozenset({"note", "score_claimed", IRREGULAR}) | DESK | SEATS
"""Event types that never change the game state (they feed the audit and the replay)."""

COMMON_EVENTS: tuple[str, ...] = (
    "score_claimed",
    "void",
    "amend",
    "note",
    "dispute",
    "ruling",
    "seat_key",
    "seat_signer",
    "confirm",
    IRREGULAR,
)
"""The events every game has after its own (VOCABULARY.md §4), in the order ``describe()`` lists
them; none holds a private value. Each game lists its own events and then these."""

MATCH_OPTIONS = frozenset({"correctionWindow", "confirmation"})
"""Options of ``match_started`` that every game has and no engine reads: the service applies
them (the correction window needs the clock, which engines never read)."""


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
        """The seq of the event being applied when the fold raised (set by :func:`walk`)."""


class UnknownGame(LookupError):
    """A game id that no engine answers to."""

    def __init__(self, game: object) -> None:
        super().__init__(f"unknown game {as_written(game)}")
        self.game = game


class Engine(Protocol):
    """The shape every game module has (modules satisfy it structurally)."""

    GAME: str
    RULES_VERSION: int
    """Raised whenever a change to the rules could score a recorded hand differently."""
    PRIVATE: Mapping[str, Sequence[Any]]
    """Per event type, its private fields (:class:`engines.privacy.Private`)."""

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


@dataclass(frozen=True, slots=True)
class VoidedHand:
    """A hand whose ``hand_started`` a standing ``void`` undid (a misdeal), and its span in the log."""

    seq: int
    """The seq of its ``hand_started``."""
    void: int
    """The seq of the ``void``."""
    until: int
    """The first seq after the hand: the void, or the next ``hand_started`` if that came first."""
    number: int
    """The number the hand had while it was open (voided hands before it not counted)."""


def _standing_voids(events: Sequence[Event]) -> tuple[set[int], list[tuple[int, int]]]:
    """Return the targets of the voids that stand, and each such (target, void seq).

    A correction only ever targets an earlier event, so reading the log backwards settles
    each void before the events it targets: a voided ``void`` is simply never counted.
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
    return voided, voids


def _hand_voids(events: Sequence[Event], voided: set[int], voids: list[tuple[int, int]]) -> list[VoidedHand]:
    """The voided hands, in log order, with their spans and the numbers they had."""
    starts = [e.seq for e in events if e.type == "hand_started"]
    if not starts:
        return []
    out = []
    for target, void_seq in voids:
        i = bisect_left(starts, target)
        if i == len(starts) or starts[i] != target:
            continue
        until = min(void_seq, starts[i + 1]) if i + 1 < len(starts) else void_seq
        number = 1 + sum(1 for s in starts[:i] if s not in voided)
        out.append(VoidedHand(target, void_seq, until, number))
    return sorted(out, key=lambda h: h.seq)


def _of_hand(event: Event, hand: VoidedHand) -> bool:
    """Whether an event recorded while ``hand`` was open belongs to that hand (and goes with it).

    Game events do (moves, results, reveals of its cards, between-hands decisions about its
    score); notes and score claims never do, nor corrections, nor a reveal that only binds
    cards of events outside the hand (by their seq).
    """
    if event.type in CORRECTIONS or event.type in STATE_NEUTRAL:
        return False
    if event.type == "reveal":
        bindings = event.data.get("cards") or []
        outside = [
            b for b in bindings if isinstance(b, Mapping) and "seq" in b and not hand.seq <= int(b["seq"]) < hand.until
        ]
        return len(outside) != len(bindings) or not bindings
    return True


def voided_hands(steps: Sequence[Step]) -> list[VoidedHand]:
    """Return the hands a standing void of their ``hand_started`` undid, read off a ``corrected`` walk.

    The audit reads it to report the score claims written about such a hand as orphaned; the
    voids are the ones the walk settled (:func:`voided_seqs`), not settled a second time.
    """
    voided = {s.event.seq for s in steps if s.status == "voided"}
    voids = [
        (int(s.event.data["target"]), s.event.seq) for s in steps if s.event.type == "void" and s.status == "correction"
    ]
    return _hand_voids([s.event for s in steps], voided, voids)


def voided_seqs(events: Sequence[Event]) -> frozenset[int]:
    """Return the seqs the walk skips: voided events, and the events of hands whose deal was voided.

    Voiding a ``hand_started`` (a misdeal) voids the hand with its moves and results, and
    nothing else (VOCABULARY.md §4 ``void``): of the events recorded after the deal and before
    the void (or the next ``hand_started``), the game events go with it, while notes, score
    claims, corrections and reveals of cards outside the hand keep their effect (a claim about
    the voided hand is the audit's to report as orphaned: :func:`voided_hands`). Events after
    the void are read as they come (a move there, with no deal standing, is refused by the
    engine).
    """
    voided, voids = _standing_voids(events)
    if not voids:
        return frozenset(voided)
    position = {e.seq: i for i, e in enumerate(events)}
    for hand in _hand_voids(events, voided, voids):
        for i in range(position[hand.seq] + 1, len(events)):  # from the deal on, not from event 1
            event = events[i]
            if event.seq >= hand.until:
                break
            if _of_hand(event, hand):
                voided.add(event.seq)
    return frozenset(voided)


def corrections(steps: Iterable[Step]) -> list[Correction]:
    """List every ``void`` and ``amend`` of a walk with its reason and whether it stands."""
    return [
        Correction(
            s.event.seq,
            s.event.type,
            int(s.event.data["target"]),
            str(s.event.data.get("reason", "")),
            s.status != "voided",
        )
        for s in steps
        if s.event.type in CORRECTIONS
    ]


def check_correction(events: Sequence[Event], correction: Event) -> None:
    """Check what a correction may target, before its effect on later events is folded.

    Raises:
        RuleViolation: ``common.bad_target`` (no such earlier event, or a ``match_started``
            void), ``common.amend_type`` (amend of a correction, a note, a dispute or a
            ruling), or
            ``common.amend_game`` (an amend that changes the game).
    """
    target = int(correction.data["target"])
    by_seq = {e.seq: e for e in events}
    if target >= correction.seq or target not in by_seq:
        raise RuleViolation(
            "common.bad_target",
            Said("entry %(target)s does not exist before entry %(seq)s", target=target, seq=correction.seq),
        )
    aimed = by_seq[target]
    if aimed.type in SEATS:
        raise RuleViolation(
            "seat.not_correctable",
            Said(
                "entry %(target)s is a %(type)s, a seat's own entry: it cannot be struck out or corrected "
                "(give the seat a new key instead)",
                target=target,
                type=aimed.type,
            ),
            seq=target,
        )
    if correction.type == "void" and aimed.type == "match_started":
        raise RuleViolation(
            "common.bad_target", Said("match_started cannot be voided; amend it or start a new match"), seq=target
        )
    if correction.type == "amend":
        if aimed.type in CORRECTIONS or aimed.type in ("note", IRREGULAR) or aimed.type in DESK:
            raise RuleViolation(
                "common.amend_type",
                Said("entry %(target)s is a %(type)s; void it instead of amending it", target=target, type=aimed.type),
                seq=target,
            )
        if aimed.type == "match_started" and correction.data["data"].get("game") != aimed.data.get("game"):
            raise RuleViolation(
                "common.amend_game", Said("an amend of match_started cannot change the game"), seq=target
            )


# --------------------------------------------------------------------------- the walk


Status = Literal[
    "played",
    "amended",
    "voided",
    "correction",
    "note",
    "claim",
    "dispute",
    "ruling",
    "seat",
    "confirm",
    "irregular",
    "withheld",
]
"""What a step did: ``played`` (the engine applied it), ``amended`` (applied with the data of
the latest amend in force), ``voided`` (skipped), ``correction`` (a ``void`` or ``amend`` in
force), ``note``, ``claim`` (a ``score_claimed``), ``dispute``, ``ruling``, ``seat`` (a
``seat_key`` or ``seat_signer``) or ``confirm`` (none of these changes the state). The walk never yields ``withheld``: the service's open fold gives it to the
events of a hand in play that it cannot fold without cards the rules still hide."""

_ASIDE: dict[str, Status] = {
    "void": "correction",
    "amend": "correction",
    "note": "note",
    "score_claimed": "claim",
    "dispute": "dispute",
    "ruling": "ruling",
    "seat_key": "seat",
    "seat_signer": "seat",
    "confirm": "confirm",
    IRREGULAR: "irregular",
}
"""The status of each event type the engine never sees (CORRECTIONS and STATE_NEUTRAL)."""

Course = Literal["corrected", "recorded"]
"""How a corrected log is read: as it now reads (``corrected``, the scores come from it) or as
the table lived it (``recorded``: each state is the one the match had when that event was stored)."""


class Recorded(Protocol):
    """What a stored row must have to be read as an event (the ledger's ``StoredEvent`` has it)."""

    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


def events_from(records: Iterable[Recorded]) -> list[Event]:
    """Turn stored rows into the events engines read: the one mapping from the ledger's rows."""
    return [Event(r.seq, r.type, r.data) for r in records]


class Step(NamedTuple):
    """One event of a walk: as stored, as read, what it did and the state after it.

    A ``NamedTuple`` (immutable like the frozen dataclass it was) because the walk builds one
    per event of every fold: a tuple is built in one call, a frozen dataclass sets each field
    through ``object.__setattr__``.
    """

    event: Event
    """The event as stored."""
    read: Event
    """The event as the walk read it: ``event`` with the data of the latest amend in force, if any."""
    status: Status
    state: Any
    """The engine state after this event (unchanged by a voided, neutral or correction step
    in the ``corrected`` course)."""


def walk(
    engine: Engine, events: Sequence[Event], course: Course = "corrected", *, after: int = 0, state: Any = None
) -> Iterator[Step]:
    """Walk a stored log once, yielding each event with its status and the state after it.

    This is the one walk of the log: the fold (:func:`replay`), the replay frames, the
    service's cache and checkpoints and the audit all read a log through it.

    In the ``corrected`` course every ``void`` and ``amend`` is applied from the start: the
    seqs a void covers are settled once (:func:`voided_seqs`), then each event is read once.
    In the ``recorded`` course events are applied as they were stored; at a correction the
    state becomes that of the log up to it as corrected (one ``corrected`` walk of that
    prefix: what a correction changes can reach back to the start).

    ``after`` and ``state`` (``recorded`` course only) resume a walk: ``state`` is the one
    the match had after event ``after``, and only later events are yielded. ``events`` may
    then start after ``after``, unless a correction follows: it needs the log from event 1.

    Raises:
        RuleViolation: the first event the engine refuses (its ``event`` names the seq), a
            log that does not open with ``match_started`` or has a second one.
        ValueError: a resumed ``corrected`` walk, or a correction without the log before it.
    """
    if course == "recorded":
        return _walk_recorded(engine, events, after, state)
    if after:
        raise ValueError("the corrected course is walked from the start of the log")
    return _walk_corrected(engine, events)


def walk_again(engine: Engine, events: Sequence[Event], before: Sequence[Step]) -> Iterator[Step]:
    """The corrected walk of ``events`` (as :func:`walk` gives it), taking over ``before``, the
    corrected walk of an earlier log, as far as it still holds.

    A step of ``before`` holds while the two logs agree on every event up to it and no
    correction follows it in either (a correction can reach back to the start of the log).
    A log read again after an append, or after the end of a hand showed its cards to an open
    reader, is then walked on from the first event that differs, not from event 1: a page of
    a long match drawn anew after each event does not refold its whole log.

    Raises:
        RuleViolation: as :func:`walk`.
    """
    shared, last = 0, min(len(before), len(events))
    while shared < last and (before[shared].event is events[shared] or before[shared].event == events[shared]):
        shared += 1
    corrected = CORRECTIONS.__contains__
    if shared and (
        any(map(corrected, map(_TYPE_OF, events[shared:])))
        or any(corrected(step.event.type) for step in before[shared:])
    ):
        shared = 0
    if not shared:
        yield from _walk_corrected(engine, events)
        return
    yield from before[:shared]
    yield from _walk_recorded(engine, events[shared:], events[shared - 1].seq, before[shared - 1].state)


_TYPE_OF = attrgetter("type")
_new_step = tuple.__new__
"""Builds a :class:`Step` from its four fields without the named tuple's Python-level ``__new__``
(the walk builds one per event of every fold; the same tuple, a frame less)."""


def _walk_corrected(engine: Engine, events: Sequence[Event]) -> Iterator[Step]:
    voided: frozenset[int] = frozenset()
    amended: dict[int, Mapping[str, Any]] = {}
    if any(map(CORRECTIONS.__contains__, map(_TYPE_OF, events))):  # most logs have none: one C-level pass
        voided = voided_seqs(events)
        for event in events:
            if event.type == "amend" and event.seq not in voided:
                amended[int(event.data["target"])] = event.data["data"]
    state: Any = None
    status: Status
    aside = _ASIDE
    for event in events:
        # the common step (a game event, neither voided nor amended) takes the fewest tests:
        # this loop runs once per event of every fold
        seq = event.seq
        if seq in amended:
            read = Event(seq, event.type, amended[seq])
            status = "amended"
        else:
            read = event
            status = "played"
        if seq in voided:
            status = "voided"
        elif event.type in aside:
            status = aside[event.type]
        elif state is not None and event.type != "match_started":
            try:
                state = engine.apply(state, read)
            except RuleViolation as violation:
                if violation.event is None:
                    violation.event = seq
                raise
        else:
            state = _advance(engine, state, read)
        yield _new_step(Step, (event, read, status, state))


def _walk_recorded(engine: Engine, events: Sequence[Event], after: int, state: Any) -> Iterator[Step]:
    aside = _ASIDE
    for i, event in enumerate(events):
        if event.seq <= after:
            continue
        kind = event.type
        if kind not in aside:  # a game event: the common step, applied with the fewest tests
            if state is not None and kind != "match_started":
                try:
                    state = engine.apply(state, event)
                except RuleViolation as violation:
                    if violation.event is None:
                        violation.event = event.seq
                    raise
            else:
                state = _advance(engine, state, event)
            yield Step(event, event, "played", state)
            continue
        if kind in CORRECTIONS:
            if events[0].seq != 1:
                raise ValueError(f"the {kind} at event {event.seq} is read against the whole log before it")
            if _chain_goes_on(events, i):
                try:  # a ruling's chain is judged whole, at its last correction
                    state = replay(engine, events[: i + 1])
                except RuleViolation:
                    pass  # this link alone leaves a later event illegal; the rest of the chain mends it
            else:
                state = replay(engine, events[: i + 1])
        yield Step(event, event, aside[kind], state)


def ruling_chain(events: Sequence[Event], i: int) -> list[Event]:
    """Return the corrections of the upheld ruling whose chain holds ``events[i]`` (empty: none).

    An upheld ruling carries its correction: the ``void`` and ``amend`` events right after it.
    Such a chain is judged as one: a link whose corrected log alone leaves a later event
    illegal (El Roby: hand 1 corrected brings a player back, so hand 2's result must give her
    points) is accepted when the whole chain, applied together, leaves every event legal.
    """
    if events[i].type not in CORRECTIONS:
        return []
    start = i
    while start > 0 and events[start - 1].type in CORRECTIONS:
        start -= 1
    if start == 0 or events[start - 1].type != "ruling" or events[start - 1].data.get("decision") != "upheld":
        return []
    end = i
    while end + 1 < len(events) and events[end + 1].type in CORRECTIONS:
        end += 1
    return list(events[start : end + 1])


def _chain_goes_on(events: Sequence[Event], i: int) -> bool:
    """Whether the correction ``events[i]`` is a link of a ruling's chain with more links after it."""
    return i + 1 < len(events) and events[i + 1].type in CORRECTIONS and bool(ruling_chain(events, i))


def _advance(engine: Engine, state: Any, event: Event) -> Any:
    """Apply one game event (``match_started`` starts the match); name it in the violation."""
    if state is None:
        if event.type != "match_started":
            raise RuleViolation("common.no_match", Said("a match starts with match_started"))
        return engine.start(event.data)
    try:
        if event.type == "match_started":
            raise RuleViolation("common.already_started", Said("match_started comes once, as the first event"))
        return engine.apply(state, event)
    except RuleViolation as violation:
        if violation.event is None:
            violation.event = event.seq
        raise


def refusal(engine: Engine, state: Any, move: Mapping[str, Any], seq: int) -> RuleViolation | None:
    """Return the rules' refusal of ``move`` (``{type, data}``) on ``state``; None when they accept it.

    An ``irregular`` keeps such a move as played: the service stores the refusal's code and
    words, the replay says them again in the reader's language (issue 31).
    """
    try:
        engine.apply(state, Event(seq, str(move["type"]), move["data"]))
    except RuleViolation as refused:
        return refused
    return None


def replay(engine: Engine, events: Sequence[Event]) -> Any:
    """Fold a stored log (corrections included) into the state it describes: the last state of its walk.

    The cyclic garbage collector is paused while it runs (:func:`collector_paused`).
    """
    state: Any = None
    with collector_paused():
        for step in walk(engine, events):
            state = step.state
    return state


_PAUSES = 0
"""How many folds are running with the collector paused by :func:`collector_paused`."""
_PAUSES_LOCK = threading.Lock()


class collector_paused:
    """Pause Python's cyclic garbage collector for a whole fold, and resume it after.

    Why: a fold builds acyclic immutable values (tuples, frozensets, frozen records; no value
    refers back to one that holds it), so reference counting frees every one of them and the
    cyclic collector can never find garbage among them. But each value a long match keeps (a
    finished hand and its records: 4 tracked objects per La Cabra hand) counts towards the
    next full collection, which rescans every object of the process, not just the fold's:
    measured in bench/ledger_bench.py's process, folding 20k events triggered one full
    collection of 55-75 ms that 10k did not (a 240 ms fold; the 20k/10k ratio 2.6, 1.9 with
    the collector off). Tuples of such records stay tracked (only plain tuples are ever
    untracked), so the survivors cannot be made invisible to it.

    Safe: the pause only lasts while :func:`replay` runs to its end in one call (never
    across a yield handed to a caller), it is counted so that concurrent folds in threads
    resume the collector once, when the last one ends, and a collector that was already
    disabled by someone else is left alone. Other threads' cyclic garbage waits for the
    end of the fold, as it would wait for the next threshold anyway. What the fold keeps
    still counts towards the next full collection after it: the pause moves that work out
    of the fold (where its cost is the size of the whole process), it does not remove it.

    A caller that consumes a whole :func:`walk` in one go (an import, a bulk record) may
    wrap that loop in it too (``with collector_paused(): ...``); never hold it across a
    suspended walk.
    """

    __slots__ = ("paused",)

    def __enter__(self) -> None:
        global _PAUSES
        with _PAUSES_LOCK:
            self.paused = _PAUSES > 0 or gc.isenabled()
            if self.paused:
                if _PAUSES == 0:
                    gc.disable()
                _PAUSES += 1

    def __exit__(self, *exc: object) -> None:
        global _PAUSES
        if not self.paused:
            return
        with _PAUSES_LOCK:
            _PAUSES -= 1
            if _PAUSES == 0:
                gc.enable()
