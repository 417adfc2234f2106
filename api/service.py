"""The one place where schemas, engines and the ledger meet; Flask-free.

The HTTP views and the ``tanteo`` command line both call :class:`Service`. A write is:
validate each event's shape (JSON Schema), then, inside the ledger's write transaction,
fold the batch onto the current state with the match's engine (refusing the whole batch
at the first illegal event), and append. Corrections (``void``, ``amend``) refold the log
as corrected and are refused when they would make any later event illegal.

Folding a long match must not cost O(events) per append, so the process keeps a
:class:`StateCache`: per match, the state at the head plus checkpoints (every
``CHECKPOINT_EVERY`` events and at every correction) for ``state at step N`` and cold
starts. The cache is only a cache: inside the write transaction the ledger tells the
current version, and a cache that is behind (another process appended) catches up from
the log before the batch is checked.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from engines import engine_version, get_engine
from engines.base import (
    CORRECTIONS,
    STATE_NEUTRAL,
    Engine,
    Event,
    RuleViolation,
    check_correction,
    effective_log,
    fold,
)
from ledger import AppendResult, Ledger, MatchRecord, NewEvent, StoredEvent
from api.addressing import AddressError, Position, locate, positions, seat_by_name
from replays.audit import audit as build_audit, named, rules_report
from replays.steps import COURSES, events_from, frames, frames_json
from schemas import SchemaError, validate_event

CHECKPOINT_EVERY = 256


class AuthError(Exception):
    """A write without the match's token (``auth.missing``) or with another one (``auth.wrong``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class EventRefused(Exception):
    """One event of a batch was refused; nothing of the batch was written.

    ``index`` is the event's place in the batch (0-based); ``error`` the schema or rule error.
    """

    def __init__(self, index: int, error: RuleViolation | SchemaError) -> None:
        super().__init__(f"event {index}: {error}")
        self.index = index
        self.error = error


class BadRequest(Exception):
    """A request that is well-formed JSON but asks for something that cannot be (a step past the end)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def new_match_id() -> str:
    """Return a random URL-safe match id that does not start with ``-``.

    An id starting with a dash reads as an option on a command line (``tanteo audit -x3…``).
    """
    while True:
        match_id = secrets.token_urlsafe(9)
        if not match_id.startswith("-"):
            return match_id


META_FIELDS = ("title", "date", "place", "tags")
"""What people call a match by: kept from ``match_started`` (as amended) for listing and filtering."""


def match_meta(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return the metadata of a ``match_started`` payload (fields absent stay absent)."""
    return {name: data[name] for name in META_FIELDS if data.get(name) is not None}


def _meta_fields(meta: Mapping[str, Any]) -> dict[str, Any]:
    """Every metadata field for a listing, null (tags: empty) when not given."""
    return {"title": meta.get("title"), "date": meta.get("date"), "place": meta.get("place"),
            "tags": list(meta.get("tags") or [])}


def _rules_version(engine: Engine, asked: Any) -> int:
    """Return the rules version a new match is recorded with: the engine's, or an earlier one asked for.

    Raises:
        RuleViolation: ``common.rules_version`` for a version newer than this server's engine.
    """
    if asked is None:
        return int(engine.RULES_VERSION)
    if asked > engine.RULES_VERSION:
        raise RuleViolation("common.rules_version",
                            f"this server scores {engine.GAME} with rules version {engine.RULES_VERSION}; "
                            f"version {asked} is newer than that")
    return int(asked)


def _keep_rules_version(recorded: Event, corrected: Event) -> None:
    """Refuse an amend of ``match_started`` that changes the rules version the match was recorded with."""
    before, after = recorded.data.get("rulesVersion"), corrected.data.get("rulesVersion")
    if after is not None and after != before:
        raise RuleViolation("common.rules_version",
                            f"a match keeps the rules version it was recorded with ({before}); an amend cannot change it")


def hash_token(token: str) -> str:
    """Return how a write token is stored: its sha256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def _validate_amended(game: str, type_: str, data: Any) -> None:
    """Check an amend's new payload against its target's schema; paths point into ``data.data``.

    Raises:
        SchemaError: the new payload does not fit the target's event type.
    """
    try:
        validate_event(game, type_, data)
    except SchemaError as error:
        def inner(path: str) -> str:
            return "$.data" + path[1:]
        raise SchemaError(error.code, f"the amended {type_}: {error.message}", inner(error.path),
                          [{**e, "path": inner(e["path"])} for e in error.errors]) from None


# --------------------------------------------------------------------------- cache


@dataclass(frozen=True)
class _Folded:
    """What the cache knows of one match: the head state and checkpoints."""

    version: int
    head: str
    state: Any
    checkpoints: Mapping[int, Any] = field(default_factory=dict)
    """States after a few seqs: 1, every ``CHECKPOINT_EVERY``-th, and every correction."""


class StateCache:
    """States of recently used matches, shared by the requests of one process.

    Keyed by match id; at most ``size`` matches (least recently used dropped). Each entry
    holds the head state and checkpoints; all states are immutable engine values, so
    handing them out needs no copy.
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._entries: OrderedDict[str, _Folded] = OrderedDict()
        self._records: OrderedDict[str, MatchRecord] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, match_id: str) -> MatchRecord | None:
        """Return the match row as first read: its id, game, players and token never change."""
        with self._lock:
            return self._records.get(match_id)

    def keep_record(self, record: MatchRecord) -> None:
        with self._lock:
            self._records[record.id] = record
            while len(self._records) > self._size:
                self._records.popitem(last=False)

    def get(self, match_id: str) -> _Folded | None:
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is not None:
                self._entries.move_to_end(match_id)
            return entry

    def put(self, match_id: str, entry: _Folded) -> None:
        """Keep an entry, unless a newer one for the match is already there (a racing writer)."""
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current.version > entry.version:
                return
            self._entries[match_id] = entry
            self._entries.move_to_end(match_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def drop(self, match_id: str) -> None:
        with self._lock:
            self._entries.pop(match_id, None)


def _keeps_checkpoint(seq: int, event_type: str) -> bool:
    return seq == 1 or seq % CHECKPOINT_EVERY == 0 or event_type in CORRECTIONS


# --------------------------------------------------------------------------- service


class Service:
    """Matches as the API and the CLI see them: start, record, read, replay, audit."""

    def __init__(self, ledger: Ledger, cache: StateCache | None = None) -> None:
        self.ledger = ledger
        self.cache = cache if cache is not None else StateCache()

    # ---- writing

    def start_match(self, data: Mapping[str, Any], *, by: str = "") -> dict[str, Any]:
        """Start a match from its ``match_started`` data; return its id, write token and version.

        Raises:
            SchemaError: the data does not fit the game's ``match_started`` schema.
            RuleViolation: the options or players break the game's rules.
        """
        validate_event(None, "match_started", data)
        engine = get_engine(data["game"])
        data = {**data, "rulesVersion": _rules_version(engine, data.get("rulesVersion"))}
        state = engine.start(data)
        match_id = new_match_id()
        token = secrets.token_urlsafe(24)
        result = self.ledger.create_match(
            match_id, game=data["game"], players=list(data["players"]), token_hash=hash_token(token),
            first=NewEvent("match_started", dict(data)), by=by, meta=match_meta(data),
        )
        self.cache.put(match_id, _Folded(result.version, result.head, state, {1: state}))
        return {"id": match_id, "token": token, "version": result.version, "head": result.head}

    def record(self, match_id: str, events: Sequence[Mapping[str, Any]], *, token: str | None, by: str = "",
               expected_version: int | None = None, key: str | None = None) -> AppendResult:
        """Append a batch of events after checking every one; all or nothing.

        Raises:
            MatchNotFound, AuthError, EventRefused (schema or rule, with the batch index),
            ConcurrencyConflict, IdempotencyConflict.
        """
        record = self._fixed_record(match_id)
        self.authorize(record, token)
        engine = get_engine(record.game)
        batch = []
        for index, event in enumerate(events):
            try:
                validate_event(record.game, event["type"], event["data"])
                if event["type"] == "match_started":
                    raise RuleViolation("common.already_started", "match_started comes once, as the first event of a match")
            except (SchemaError, RuleViolation) as error:
                raise EventRefused(index, error) from None
            batch.append(NewEvent(event["type"], dict(event["data"])))
        outcome: dict[str, Any] = {}

        def check(current: int, stored: Sequence[StoredEvent]) -> dict[str, Any]:
            if not hmac.compare_digest(self.ledger.get_match(match_id).token_hash, hash_token(token or "")):  # rotated meanwhile
                raise AuthError("auth.wrong", "this token no longer opens this match: it was replaced")
            entry = self._entry_at_head(match_id, engine, current)
            outcome.update(self._fold_batch(match_id, engine, record.game, entry, stored))
            changes: dict[str, Any] = {"status": "over" if engine.is_over(outcome["entry"].state) else "playing"}
            if any(e.type in CORRECTIONS for e in stored):  # an amend of match_started may rename or retag it
                log = events_from(self.ledger.read(match_id, upto=current)) + events_from(stored)
                first = effective_log(log)[0]
                try:
                    _keep_rules_version(log[0], first)
                except RuleViolation as error:
                    index = next((i for i, e in enumerate(stored) if e.type == "amend" and e.data.get("target") == 1), 0)
                    raise EventRefused(index, error) from None
                changes["meta"] = match_meta(first.data)
            return changes

        result = self.ledger.append(match_id, batch, by=by, expected_version=expected_version, key=key, check=check)
        if not result.replayed:
            self.cache.put(match_id, outcome["entry"])
        return result

    def _fold_batch(self, match_id: str, engine: Engine, game: str, entry: _Folded,
                    stored: Sequence[StoredEvent]) -> dict[str, Any]:
        """Fold a built batch onto the head state; return the new cache entry (not yet shared)."""
        state = entry.state
        checkpoints = dict(entry.checkpoints)
        log: list[Event] | None = None  # the whole log, read only when a correction needs it
        for index, record in enumerate(stored):
            event = Event(record.seq, record.type, record.data)
            try:
                if event.type in CORRECTIONS:
                    if log is None:
                        log = events_from(self.ledger.read(match_id, upto=entry.version))
                        log += [Event(r.seq, r.type, r.data) for r in stored[:index]]
                    check_correction(log, event)
                    if event.type == "amend":
                        target = next(e for e in log if e.seq == int(event.data["target"]))
                        _validate_amended(game, target.type, event.data["data"])
                    log.append(event)
                    state = self._refold_correction(engine, log, event)
                else:
                    if log is not None:
                        log.append(event)
                    if event.type == "note" and event.data.get("target") is not None and int(event.data["target"]) >= event.seq:
                        raise RuleViolation("common.bad_target", f"a note can only be attached to an earlier event, not {event.data['target']}")
                    if event.type not in STATE_NEUTRAL:
                        state = engine.apply(state, event)
            except (RuleViolation, SchemaError) as error:
                raise EventRefused(index, error) from None
            if _keeps_checkpoint(event.seq, event.type):
                checkpoints[event.seq] = state
        return {"entry": _Folded(stored[-1].seq, stored[-1].hash, state, checkpoints)}

    @staticmethod
    def _refold_correction(engine: Engine, log: list[Event], correction: Event) -> Any:
        try:
            return fold(engine, effective_log(log))
        except RuleViolation as broken:
            at = broken.event
            raise RuleViolation(
                "common.correction_breaks",
                f"this {correction.type} of event {correction.data['target']} would make event {at} illegal: {broken.message}",
                seq=at,
            ) from None

    def _fixed_record(self, match_id: str) -> MatchRecord:
        """Return the match row for its fields that never change (game, players, token hash).

        Raises:
            MatchNotFound: no such match.
        """
        record = self.cache.record(match_id)
        if record is None:
            record = self.ledger.get_match(match_id)
            self.cache.keep_record(record)
        return record

    def authorize(self, record: MatchRecord, token: str | None) -> None:
        """Check a write token against the match's.

        A token that does not fit the cached row is checked once more against the stored
        one: another process may have rotated it.

        Raises:
            AuthError: no token, or not this match's.
        """
        if not token:
            raise AuthError("auth.missing", "writing to a match needs its token: send 'Authorization: Bearer <token>'")
        if hmac.compare_digest(hash_token(token), record.token_hash):
            return
        fresh = self.ledger.get_match(record.id)
        if fresh.token_hash != record.token_hash:
            self.cache.keep_record(fresh)
            if hmac.compare_digest(hash_token(token), fresh.token_hash):
                return
        raise AuthError("auth.wrong", "this token does not open this match for writing")

    def rotate_token(self, match_id: str, token: str | None) -> dict[str, Any]:
        """Replace a match's write token: the current one is needed, and stops working.

        Nothing can recover a lost token (only its hash is stored, by design): a scorer who
        fears it leaked rotates it while they still hold it.

        Raises:
            MatchNotFound, AuthError: no token, or not the current one.
        """
        record = self.ledger.get_match(match_id)
        self.authorize(record, token)
        new = secrets.token_urlsafe(24)
        if not self.ledger.replace_token(match_id, hash_token(token or ""), hash_token(new)):
            raise AuthError("auth.wrong", "this token no longer opens this match: it was replaced")
        self.cache.keep_record(self.ledger.get_match(match_id))
        return {"id": match_id, "token": new}

    # ---- folding with the cache

    def _entry_at_head(self, match_id: str, engine: Engine, version: int) -> _Folded:
        """Return the cache entry for the match at ``version``, catching up or folding cold."""
        entry = self.cache.get(match_id)
        if entry is not None and entry.version == version:
            return entry
        if entry is not None and entry.version < version:
            newer = events_from(self.ledger.read(match_id, after=entry.version, upto=version))
            if not any(e.type in CORRECTIONS for e in newer):
                state = entry.state
                checkpoints = dict(entry.checkpoints)
                for event in newer:
                    if event.type not in STATE_NEUTRAL:
                        state = engine.apply(state, event)
                    if _keeps_checkpoint(event.seq, event.type):
                        checkpoints[event.seq] = state
                head = self.ledger.read(match_id, after=version - 1, upto=version)[0].hash
                fresh = _Folded(version, head, state, checkpoints)
                self.cache.put(match_id, fresh)
                return fresh
        return self._fold_cold(match_id, engine, version)

    def _fold_cold(self, match_id: str, engine: Engine, version: int) -> _Folded:
        records = self.ledger.read(match_id, upto=version)
        log = events_from(records)
        checkpoints: dict[int, Any] = {}
        state: Any = None
        for i, event in enumerate(log):
            if event.type == "match_started":
                state = engine.start(event.data)
            elif event.type in CORRECTIONS:
                state = fold(engine, effective_log(log[: i + 1]))
            elif event.type not in STATE_NEUTRAL:
                state = engine.apply(state, event)
            if _keeps_checkpoint(event.seq, event.type):
                checkpoints[event.seq] = state
        entry = _Folded(version, records[-1].hash, state, checkpoints)
        self.cache.put(match_id, entry)
        return entry

    def _state(self, match_id: str, engine: Engine, at: int | None = None) -> tuple[Any, int]:
        """Return the state after event ``at`` (default: the head) and the match's version."""
        version = self.ledger.version(match_id)
        entry = self._entry_at_head(match_id, engine, version)
        if at is None or at == version:
            return entry.state, version
        if not 1 <= at <= version:
            raise BadRequest("request.bad_step", f"step {at} does not exist: this match has events 1 to {version}")
        base = max(s for s in entry.checkpoints if s <= at)
        state = entry.checkpoints[base]
        newer = events_from(self.ledger.read(match_id, after=base, upto=at))
        if any(e.type in CORRECTIONS for e in newer):
            return fold(engine, effective_log(events_from(self.ledger.read(match_id, upto=at)))), version
        for event in newer:
            if event.type not in STATE_NEUTRAL:
                state = engine.apply(state, event)
        return state, version

    # ---- reading

    def match(self, match_id: str) -> dict[str, Any]:
        """Summarise a match: players, status, version, standings and end (VOCABULARY §6)."""
        record = self.ledger.get_match(match_id)
        engine = get_engine(record.game)
        state, version = self._state(match_id, engine)
        sheet = named(engine.score(state), record.players)
        hands = sheet["hands"]
        return {
            "id": record.id, "game": record.game, "players": list(record.players), "status": record.status,
            **_meta_fields(record.meta), "createdAt": record.created_at, "version": version, "head": record.head,
            "hands": len(hands), "standings": sheet["standings"], "end": sheet["end"],
        }

    def list_matches(self, *, game: str | None = None, player: str | None = None, status: str | None = None,
                     limit: int = 50, offset: int = 0, tag: str | None = None, place: str | None = None,
                     date: str | None = None) -> tuple[list[dict[str, Any]], int]:
        """List matches, newest first, with the total count for pagination; filter by tag, place or date too."""
        rows, total = self.ledger.list_matches(game=game, player=player, status=status, limit=limit, offset=offset,
                                               tag=tag, place=place, date=date)
        return [{"id": r.id, "game": r.game, "players": list(r.players), "status": r.status, **_meta_fields(r.meta),
                 "version": r.version, "createdAt": r.created_at} for r in rows], total

    def events(self, match_id: str, *, after: int = 0, limit: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """Return stored envelopes after ``after`` and the match's version."""
        record = self.ledger.get_match(match_id)
        return [e.envelope() for e in self.ledger.read(match_id, after=after, limit=limit)], record.version

    def state(self, match_id: str, *, at: int | None = None, seat: int | str | None = None,
              token: str | None = None, hand: int | None = None, move: int | None = None,
              trick: int | None = None) -> dict[str, Any]:
        """Return the state after event ``at`` (or hand/move/trick) as ``seat`` sees it (None: the public view).

        ``seat`` may be a player's name. The answer says where it stands both ways: ``at``
        (the log's seq) and ``hand``/``move``/``trick`` as players count (api/addressing.py).
        """
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        seat = self._seat(record, engine, seat, token)
        place: Position | None = None
        if hand is not None or move is not None or trick is not None:
            at, place = self._locate(match_id, engine, at, hand, move, trick)
        state, version = self._state(match_id, engine, at)
        out = {"id": match_id, "version": version, "at": at or version, "seat": seat, "state": engine.view(state, seat)}
        if place is not None:  # only when asked so: counting hands walks the whole log
            out.update(hand=place.hand, move=place.move, trick=place.trick)
        return out

    def _positions(self, match_id: str, engine: Engine) -> list[Position]:
        return positions(engine, frames(engine, events_from(self.ledger.read(match_id))))

    def _locate(self, match_id: str, engine: Engine, at: int | None, hand: int | None, move: int | None,
                trick: int | None) -> tuple[int, Position]:
        """Turn hand/move/trick into a seq.

        Raises:
            BadRequest: ``at`` given too, move or trick without a hand, or no such position.
        """
        if at is not None:
            raise BadRequest("request.bad_position", "say where either by at (the event's number in the log) "
                                                     "or by hand and move, not both")
        if hand is None:
            raise BadRequest("request.bad_position", "a move or trick is counted within a hand: give hand too")
        places = self._positions(match_id, engine)
        try:
            seq = locate(places, hand=hand, move=move, trick=trick)
        except AddressError as error:
            raise BadRequest(error.code, error.message) from None
        return seq, next(p for p in places if p.seq == seq)

    def _seat(self, record: MatchRecord, engine: Engine, seat: int | str | None, token: str | None) -> int | str | None:
        """Check a requested view: a seat number, None (public) or ``all``.

        ``all`` shows every hidden card: it is open once the match is over, and before that
        only to the scorer holding the write token.
        """
        if seat is None:
            return None
        if seat == "all":
            if not engine.is_over(self._state(record.id, engine)[0]):
                if not token:
                    raise AuthError("auth.missing", "the omniscient view of a match in play needs its write token")
                self.authorize(record, token)
            return "all"
        seat = seat_by_name(record.players, seat)
        if not (isinstance(seat, int) and 0 <= seat < len(record.players)):
            raise BadRequest("request.bad_seat", f"seat must be a seat number 0 to {len(record.players) - 1}, "
                                                 f"a player's name ({', '.join(record.players)}) or all")
        return seat

    def replay(self, match_id: str, *, seat: int | str | None = None, course: str = "corrected",
               start: int = 1, stop: int | None = None, token: str | None = None, hand: int | None = None,
               move: int | None = None, trick: int | None = None) -> dict[str, Any]:
        """Return the frames of a match: each step's move in words, the state after it and what changed.

        ``hand`` alone replays that hand; with ``move``/``trick`` it stops there. Every frame
        says its ``hand``, ``move`` and ``trick`` as players count them.
        """
        if course not in COURSES:
            raise BadRequest("request.bad_course", f"course must be one of {', '.join(COURSES)}")
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        log = events_from(self.ledger.read(match_id))
        seat = self._seat(record, engine, seat, token)
        steps = frames(engine, log, course)
        places = positions(engine, steps if course == "corrected" else frames(engine, log))
        if hand is not None or move is not None or trick is not None:
            if stop is not None:
                raise BadRequest("request.bad_position", "say where to stop either by stop (the event's number) "
                                                         "or by hand and move, not both")
            if hand is None:
                raise BadRequest("request.bad_position", "a move or trick is counted within a hand: give hand too")
            try:
                stop = locate(places, hand=hand, move=move, trick=trick)
            except AddressError as error:
                raise BadRequest(error.code, error.message) from None
            start = max(start, min(p.seq for p in places if p.hand == hand))
        rendered = frames_json(engine, steps, seat, start=start, stop=stop)
        where = {p.seq: p for p in places}
        for frame in rendered:
            place = where.get(frame["seq"])
            frame.update({"hand": place.hand if place else None, "move": place.move if place else None,
                          "trick": place.trick if place else None})
        return {"id": match_id, "version": len(log), "course": course, "seat": seat, "frames": rendered}

    def legal_moves(self, match_id: str) -> dict[str, Any]:
        """Return what may be recorded next."""
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        state, version = self._state(match_id, engine)
        return {"id": match_id, "version": version, "moves": engine.legal_moves(state)}

    def audit(self, match_id: str) -> dict[str, Any]:
        """Verify the chain, rescore every hand from scratch and compare the table's claims."""
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        log = events_from(self.ledger.read(match_id))
        state = fold(engine, effective_log(log))  # from scratch: the audit trusts no cache
        report = self.ledger.verify(match_id)[0]
        chain = {"valid": report.valid, "length": report.length, "head": report.head,
                 "firstBad": report.first_bad, "reason": report.reason}
        sheet = engine.score(state)
        recorded = log[0].data.get("rulesVersion") if log else None
        past = engine_version(record.game, recorded) if recorded is not None else engine
        past_sheet = sheet if past is engine else (past.score(fold(past, effective_log(log))) if past is not None else None)
        rules = rules_report(engine.GAME, recorded, engine.RULES_VERSION, sheet, past_sheet)
        return {"id": match_id, "version": len(log), **build_audit(sheet, log, chain, record.players), "rules": rules}
