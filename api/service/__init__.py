"""The one place where schemas, engines and the ledger meet; Flask-free.

The HTTP views and the ``tanteo`` command line both call :class:`Service`. A write is:
validate each event's shape (JSON Schema), then, inside the ledger's write transaction,
fold the batch onto the current state with the match's engine (refusing the whole batch
at the first illegal event), and append. Corrections (``void``, ``amend``) refold the log
as corrected and are refused when they would make any later event illegal.

The package is split by job: :mod:`api.service.cache` keeps the folded states (the state
cache and its checkpoints), :mod:`api.service.tokens` the write tokens,
:mod:`api.service.disclosure` what an open read may show of a match in play (the one
redaction every read applies), and this module the orchestration. Every log is read through the one walk, :func:`engines.base.walk`.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from typing import Any, Iterator, Mapping, Sequence

from api.service import desk, snapshots
from api.service.cache import CHECKPOINT_EVERY, Folded, StateCache, folded, log_on, state_at
from api.service.desk import Clock
from api.service.snapshots import SNAPSHOT_EVERY
from api.service.disclosure import (
    OptionsOf,
    envelope,
    envelope_shown,
    event_secrets,
    foldable_public_log,
    has_shown_conditions,
    kept_in_hand,
    match_options,
    private_paths,
    public_envelopes,
    public_log,
    shown_paths,
    withheld,
    withheld_hands,
)
from api.service.tokens import AuthError, authorize, hash_token, new_token
from api.addressing import AddressError, Position, hand_number, locate, positions, seat_by_name
from engines import engine_version, get_engine
from engines.privacy import cards_unknown
from engines.base import (
    CORRECTIONS,
    DESK,
    Course,
    Engine,
    Event,
    RuleViolation,
    Step,
    check_correction,
    collector_paused,
    events_from,
    replay,
    voided_seqs,
    walk,
)
from ledger import GENESIS, AppendResult, ConcurrencyConflict, Ledger, LedgerError, MatchRecord, NewEvent, StoredEvent
from replays.audit import audit as build_audit, named, rules_report
from replays.steps import COURSES, Frame, frames, frames_json
from schemas import SchemaError, validate_event

__all__ = ["CHECKPOINT_EVERY", "AuthError", "BadRequest", "EventRefused", "Service", "StateCache", "hash_token"]


class EventRefused(Exception):
    """One event of a batch was refused; nothing of the batch was written.

    ``index`` is the event's place in the batch (0-based); ``error`` the schema or rule error;
    ``game`` the match's game (set by :meth:`Service.record`: a refusal links to its rules).
    """

    def __init__(self, index: int, error: RuleViolation | SchemaError) -> None:
        super().__init__(f"event {index}: {error}")
        self.index = index
        self.error = error
        self.game: str | None = None


class BadRequest(Exception):
    """A request that is well-formed JSON but asks for something that cannot be (a step past the end)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def new_match_id() -> str:
    """Return a random URL-safe match id that never starts with '-', so a shell or the CLI never reads it as an option."""
    while (match_id := secrets.token_urlsafe(9)).startswith("-"):
        pass
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


# --------------------------------------------------------------------------- service


class Service:
    """Matches as the API and the CLI see them: start, record, read, replay, audit."""

    def __init__(self, ledger: Ledger, cache: StateCache | None = None, clock: Clock | None = None, *,
                 snapshot_every: int = SNAPSHOT_EVERY) -> None:
        self.ledger = ledger
        self.cache = cache if cache is not None else StateCache()
        self.clock: Clock = clock or desk.utc_now
        """The service's clock: only the correction window reads it (tests pass their own)."""
        self.snapshot_every = snapshot_every
        """Store a snapshot when the head is this many events past the newest one stored."""

    # ---- writing

    def start_match(self, data: Mapping[str, Any], *, by: str = "",
                    events: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
        """Start a match from its ``match_started`` data; return its id, write token and version.

        ``events``, if given, are recorded after it in the same transaction (a match recorded
        whole: one commit), each checked as :meth:`record` checks a batch; all or nothing.

        Raises:
            SchemaError: the data does not fit the game's ``match_started`` schema.
            RuleViolation: the options or players break the game's rules.
            EventRefused: an event of ``events`` (its index in ``events``); nothing was stored.
        """
        validate_event(None, "match_started", data)
        engine = get_engine(data["game"])
        data = {**data, "rulesVersion": _rules_version(engine, data.get("rulesVersion"))}
        state = engine.start(data)
        match_id = new_match_id()
        token = new_token()
        first = NewEvent("match_started", dict(data))
        if not events:
            result = self.ledger.create_match(
                match_id, game=data["game"], players=list(data["players"]), token_hash=hash_token(token),
                first=first, by=by, meta=match_meta(data),
            )
            self.cache.put(match_id, Folded(result.version, result.head, state, {1: state}))
            return {"id": match_id, "token": token, "version": result.version, "head": result.head}
        with collector_paused():  # a whole match is checked and stored in one go
            _check_shapes(engine.GAME, events)
            options = OptionsOf(state.options)
            types = {1: "match_started", **{i: e["type"] for i, e in enumerate(events, 2)}} \
                if any(e["type"] == "amend" for e in events) else {}  # an amend's private places are its target's
            declared = engine.PRIVATE  # most types declare no private field: only the others are looked into
            more = []
            for e in events:  # the data is not copied: the ledger encodes it at once and keeps its own
                kind, payload = e["type"], e["data"]
                paths = private_paths(engine, options, kind, payload, types) if kind in declared or kind == "amend" else ()
                more.append(NewEvent(kind, payload if type(payload) is dict else dict(payload), paths))
            players = len(data["players"])
            outcome: dict[str, Folded] = {}

            def check(current: int, stored: Sequence[StoredEvent]) -> dict[str, Any]:
                try:
                    outcome["entry"] = self._fold_batch(match_id, engine, engine.GAME, Folded(0, GENESIS, None, {}),
                                                        stored, players)
                except EventRefused as refused:
                    refused.index -= 1  # stored[0] is match_started: the index is in ``events``
                    refused.game = engine.GAME
                    raise
                changes: dict[str, Any] = {"status": "over" if engine.is_over(outcome["entry"].state) else "playing"}
                if any(e.type in CORRECTIONS for e in stored):  # an amend of match_started may rename or retag it
                    log = events_from(stored)
                    read = next(walk(engine, log)).read  # match_started as the log now reads it
                    try:
                        _keep_rules_version(log[0], read)
                    except RuleViolation as error:
                        index = next(i for i, e in enumerate(events) if e["type"] == "amend" and e["data"].get("target") == 1)
                        raise EventRefused(index, error) from None
                    changes["meta"] = match_meta(read.data)
                return changes

            result = self.ledger.create_match(
                match_id, game=data["game"], players=list(data["players"]), token_hash=hash_token(token),
                first=first, by=by, meta=match_meta(data), more=more, check=check,
            )
            ended = engine.is_over(outcome["entry"].state)  # recorded whole: its final state is kept at once
            entry = self._keep_snapshot(match_id, engine, outcome["entry"], force=ended)
            if not (ended and entry.stored == entry.version):
                # A match recorded whole and over (an archive, a score sheet typed in after the
                # game) is read, if at all, from the snapshot just stored, as an import is: it is
                # not weighed into the memory cache (weighing cost more than a tenth of the write).
                self.cache.put(match_id, entry)
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
        _check_shapes(record.game, events)
        batch = self._with_private(match_id, engine, events)
        outcome: dict[str, Any] = {}
        presented = hash_token(token or "")
        corrected = any(e.type in CORRECTIONS for e in batch)  # an amend of match_started may rename or retag it

        def check(current: int, stored: Sequence[StoredEvent]) -> dict[str, Any]:
            # Runs inside the write transaction, in whichever writer's thread commits it
            # (group commit): it uses nothing of the thread, only this call's own objects.
            if not hmac.compare_digest(self.ledger.get_match(match_id).token_hash, presented):
                raise AuthError("auth.wrong", "this token no longer opens this match: it was replaced")
            entry = self.cache.at_head(self.ledger, match_id, engine, current)
            self._check_window(match_id, engine, entry, batch)
            outcome["entry"] = self._fold_batch(match_id, engine, record.game, entry, stored, len(record.players))
            over = engine.is_over(outcome["entry"].state)
            outcome["ended"] = over and not engine.is_over(entry.state)  # its state is final: keep a snapshot
            changes: dict[str, Any] = {"status": "over" if over else "playing"}
            if corrected:
                log = events_from(self.ledger.read(match_id, upto=current)) + events_from(stored)
                first = next(walk(engine, log)).read  # match_started as the log now reads it (one step only)
                try:
                    _keep_rules_version(log[0], first)
                except RuleViolation as error:
                    index = next((i for i, e in enumerate(stored) if e.type == "amend" and e.data.get("target") == 1), 0)
                    raise EventRefused(index, error) from None
                changes["meta"] = match_meta(first.data)
            return changes

        try:
            result = self.ledger.append(match_id, batch, by=by, expected_version=expected_version, key=key, check=check)
        except EventRefused as refused:
            refused.game = record.game
            raise
        if not result.replayed:
            due = outcome["ended"] or corrected
            self.cache.put(match_id, self._keep_snapshot(match_id, engine, outcome["entry"], force=due))
        return result

    def _check_window(self, match_id: str, engine: Engine, entry: Folded,
                      batch: Sequence[NewEvent | StoredEvent]) -> None:
        """Refuse disputes and corrections to a finished match once its correction window has passed.

        Raises:
            EventRefused: ``common.match_final`` at the batch's first dispute, ruling or correction.
        """
        for index, event in enumerate(batch):
            if event.type in desk.WINDOWED:
                break
        else:
            return  # the common case: no dispute, ruling or correction in the batch
        if not engine.is_over(entry.state):
            return
        stored = self.ledger.read(match_id)
        minutes = desk.correction_window(stored[0].data)
        if minutes is None:
            return
        ended = desk.end_seq(engine, events_from(stored))
        try:
            desk.check_window(minutes, None if ended is None else stored[ended - 1].at, self.clock())
        except RuleViolation as error:
            raise EventRefused(index, error) from None

    def preview(self, match_id: str, events: Sequence[Mapping[str, Any]], *, token: str | None,
                expected_version: int | None = None) -> dict[str, Any]:
        """Run every check of :meth:`record` and return the would-be result; write nothing.

        The batch is folded onto the head state exactly as an append folds it (the same
        ``_fold_batch``), but outside the ledger: the pages show a hand's points, the totals
        and who deals next, or a correction's consequences, before the scorer saves.

        Raises:
            MatchNotFound, AuthError, EventRefused, ConcurrencyConflict: as :meth:`record`.
        """
        record = self._fixed_record(match_id)
        self.authorize(record, token)
        engine = get_engine(record.game)
        version = self.ledger.version(match_id)
        if expected_version is not None and expected_version != version:
            raise ConcurrencyConflict(expected_version, version, match_id=match_id)
        entry = self.cache.at_head(self.ledger, match_id, engine, version)
        _check_shapes(record.game, events)
        stored = [StoredEvent(match_id, version + 1 + index, event["type"], dict(event["data"]), "", "", None, "", "")
                  for index, event in enumerate(events)]
        before = engine.score(entry.state)
        try:
            self._check_window(match_id, engine, entry, stored)
            after_state = self._fold_batch(match_id, engine, record.game, entry, stored, len(record.players)).state
        except EventRefused as refused:
            refused.game = record.game
            raise
        after = engine.score(after_state)
        earlier = {h["hand"]: h for h in before["hands"]}
        changed = [h for h in after["hands"] if earlier.get(h["hand"]) != h]
        return {"dryRun": True, "version": version + len(stored), "hands": changed, "standings": after["standings"],
                "end": after["end"], "next": engine.legal_moves(after_state)}

    def _keep_snapshot(self, match_id: str, engine: Engine, entry: Folded, *, force: bool = False) -> Folded:
        """Store the entry's head state as a snapshot when it is due (or ``force``: a correction, the end).

        Runs after the write committed, in its own small transaction: a snapshot is a cache,
        so failing to store one fails nothing (the next due one is tried again).
        """
        if not force and entry.version - entry.stored < self.snapshot_every:
            return entry
        try:
            snapshots.store(self.ledger, match_id, engine, entry.version, entry.head, entry.state)
        except LedgerError:
            return entry
        return dataclasses.replace(entry, stored=entry.version)

    def _with_private(self, match_id: str, engine: Engine, events: Sequence[Mapping[str, Any]]) -> list[NewEvent]:
        """Build the batch with each event's private places, which the ledger commits to (chain format 2).

        The options come from the cached state (an amend of the options applies from the next
        batch on); an amend's private places are its target's type's.
        """
        entry = self.cache.get(match_id)  # the options rarely change: a cached state, even behind, has them
        if entry is None:
            entry = self.cache.at_head(self.ledger, match_id, engine, self.ledger.version(match_id))
        state = entry.state
        options = OptionsOf(state.options)
        types: dict[int, str] = {}
        for event in events:
            target = event["data"].get("target") if event["type"] == "amend" else None
            if not isinstance(target, int) or target < 1 or target in types:
                continue
            stored = self.ledger.read(match_id, after=target - 1, upto=target)
            if stored:
                types[target] = stored[0].type
            elif 0 <= (index := target - self.ledger.version(match_id) - 1) < len(events):
                types[target] = events[index]["type"]  # an amend of an event of this very batch
        return [NewEvent(e["type"], dict(e["data"]), private_paths(engine, options, e["type"], e["data"], types))
                for e in events]

    def _fold_batch(self, match_id: str, engine: Engine, game: str, entry: Folded,
                    stored: Sequence[StoredEvent], players: int) -> Folded:
        """Fold a built batch onto the head state; return the new cache entry (not yet shared).

        Raises:
            EventRefused: the first event of the batch that a check or the rules refuse.
        """
        batch = events_from(stored)
        log = log_on(self.ledger, match_id, entry.version, batch)
        if log[0].seq != 1 and any(e.type == "ruling" for e in batch):  # a ruling looks its dispute up
            log = events_from(self.ledger.read(match_id, upto=entry.version)) + batch
        return folded(checked_steps(engine, game, log, batch, entry.version, entry.state, players),
                      stored[-1].seq, stored[-1].hash, entry)

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
        try:
            authorize(record, token)
            return
        except AuthError as error:
            if error.code != "auth.wrong":
                raise
            fresh = self.ledger.get_match(record.id)
            if fresh.token_hash == record.token_hash:
                raise
        self.cache.keep_record(fresh)
        authorize(fresh, token)

    def rotate_token(self, match_id: str, token: str | None) -> dict[str, Any]:
        """Replace a match's write token: the current one is needed, and stops working.

        Nothing can recover a lost token (only its hash is stored, by design): a scorer who
        fears it leaked rotates it while they still hold it.

        Raises:
            MatchNotFound, AuthError: no token, or not the current one.
        """
        record = self.ledger.get_match(match_id)
        authorize(record, token)
        new = new_token()
        if not self.ledger.replace_token(match_id, hash_token(token or ""), hash_token(new)):
            raise AuthError("auth.wrong", "this token no longer opens this match: it was replaced")
        self.cache.keep_record(self.ledger.get_match(match_id))
        return {"id": match_id, "token": new}

    def _state(self, match_id: str, engine: Engine, at: int | None = None) -> tuple[Any, int]:
        """Return the state after event ``at`` (default: the head) and the match's version."""
        version = self.ledger.version(match_id)
        entry = self.cache.at_head(self.ledger, match_id, engine, version)
        if entry.version - entry.stored >= self.snapshot_every:  # folded cold, far from any snapshot
            entry = self._keep_snapshot(match_id, engine, entry)
            self.cache.drop(match_id)  # weighed afresh: storing it made its histories remember their text
            self.cache.put(match_id, entry)
        if at is None or at == version:
            return entry.state, version
        if not 1 <= at <= version:
            raise BadRequest("request.bad_step", f"step {at} does not exist: this match has events 1 to {version}")
        return state_at(self.ledger, match_id, engine, entry, at), version

    # ---- reading

    def match(self, match_id: str, *, token: str | None = None) -> dict[str, Any]:
        """Summarise a match: players, status, version, standings and end (VOCABULARY §6).

        While the match is in play, a reader without the token gets the standings scored from
        the public log, as the open audit does: a hand whose score needs a card only the
        scorer saw (a La Cabra face-down discard) counts once that card is public.
        """
        record = self.ledger.get_match(match_id)
        engine = get_engine(record.game)
        if self.disclosed(record, engine, token):
            state, version = self._state(match_id, engine)
        else:
            state, version, _exact, _kept = self._public_state(match_id, engine, None)
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

    def disclosed(self, record: MatchRecord, engine: Engine, token: str | None) -> bool:
        """Tell whether this reader may see every private value: with the write token, or once the match is over.

        Raises:
            AuthError: a token that is not this match's (a reader who sends one means to use it).
        """
        stored = self.ledger.get_match(record.id)  # the stored token (it may have been rotated elsewhere) and status
        if token:
            authorize(stored, token)
            return True
        return stored.status == "over"  # kept by every append: no fold needed

    def events(self, match_id: str, *, after: int = 0, limit: int | None = None,
               token: str | None = None) -> tuple[list[dict[str, Any]], int]:
        """Return stored envelopes after ``after`` and the match's version.

        While the match is in play a reader without the token gets each private value as its
        placeholder, with the commitment the hash was computed over (format 2); with the
        token, or once the match is over, the values and their salts.
        """
        record = self.ledger.get_match(match_id)
        engine = get_engine(record.game)
        records = self.ledger.read(match_id, after=after, limit=limit)
        return self._listing(match_id, engine, records, self.disclosed(record, engine, token)), record.version

    def _listing(self, match_id: str, engine: Engine, records: Sequence[StoredEvent], full: bool) -> list[dict[str, Any]]:
        """Return envelopes as this reader may see them (the one redaction of every listing)."""
        if full:
            return [r.envelope() for r in records]
        conditional = has_shown_conditions(engine) and any(r.private for r in records)
        if all(r.format >= 2 for r in records) and not conditional:
            return [envelope(r, False) for r in records]
        log = events_from(self.ledger.read(match_id))  # format-1 rows: the declarations find their private values
        types, options = {e.seq: e.type for e in log}, match_options(log)
        out = public_envelopes(engine, records, types, options)
        if conditional:  # values the rules have made public since (Kabú's open cards after the last keep)
            for i, r in enumerate(records):
                shown = shown_paths(engine, options, log[r.seq - 1], log[r.seq:], types) if r.private else frozenset()
                if shown:
                    out[i] = envelope_shown(r, shown)
        return out

    def _public_state(self, match_id: str, engine: Engine, at: int | None) -> tuple[Any, int, bool, bool]:
        """Return the state after ``at`` folded from the public log, the version, whether it is
        exact, and whether the hand in play holds a private value the fold keeps.

        Not exact (see :func:`~api.service.disclosure.foldable_public_log`): some events were
        folded as recorded, so the caller must show the public view only. A kept value
        (``unknown="keep"``: a Cabo reveal during play) is folded because the view hides it,
        but a legal move could name it (:func:`~api.service.disclosure.kept_in_hand`). The
        head's public state is cached beside the real one and caught up with the events
        appended since.
        """
        version = self.ledger.version(match_id)
        if at is not None and not 1 <= at <= version:
            raise BadRequest("request.bad_step", f"step {at} does not exist: this match has events 1 to {version}")
        head = at is None or at == version
        key = f"{match_id}\x00public"  # the public head state, its exactness and kept values, kept like the real one
        cached = self.cache.get(key) if head else None
        if cached is not None and cached.version == version:
            return (cached.state[0], version, *cached.state[1:])
        if cached is not None and cached.version < version:
            newer = events_from(self.ledger.read(match_id, after=cached.version, upto=version))
            if not any(e.type in CORRECTIONS for e in newer):
                try:
                    state, exact, kept = cached.state
                    options = OptionsOf(state.options)
                    shown = public_log(engine, newer, options)
                    for step in walk(engine, shown, "recorded", after=cached.version, state=state):
                        state = step.state
                    kept = kept_in_hand(engine, newer, options, kept)
                    self.cache.put(key, Folded(version, "", (state, exact, kept)))
                    return state, version, exact, kept
                except RuleViolation:
                    pass  # fold from the start below
        log = events_from(self.ledger.read(match_id, upto=at or version))
        try:
            _, put_back, state = foldable_public_log(engine, log)
            exact = not put_back
        except RuleViolation:
            state, exact = replay(engine, log), False
        kept = kept_in_hand(engine, log, match_options(log))
        if head:
            self.cache.put(key, Folded(version, "", (state, exact, kept)))
        return state, version, exact, kept

    def state(self, match_id: str, *, at: int | None = None, seat: int | str | None = None,
              token: str | None = None, hand: int | None = None, move: int | None = None,
              trick: int | None = None) -> dict[str, Any]:
        """Return the state after event ``at`` (or hand/move/trick) as ``seat`` sees it (None: the public view).

        ``seat`` may be a player's name. Asked by hand, the answer says where it stands both
        ways: ``at`` (the log's seq) and ``hand``/``move``/``trick`` as players count
        (api/addressing.py).

        With ``at``, also the hash of event ``at`` and a ``proof``: the envelopes from
        ``at + 1`` to the head (as this reader may see them), so that a client holding only
        the current head recomputes the chain from event ``at`` to it.
        """
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        seat = self._seat(record, engine, seat, token)
        place: Position | None = None
        if hand is not None or move is not None or trick is not None:
            at, place = self._locate(match_id, engine, at, hand, move, trick)
        full = self.disclosed(record, engine, token)
        if full:
            state, version = self._state(match_id, engine, at)
            view = engine.view(state, seat)
        else:
            state, version, held, _kept = self._public_state(match_id, engine, at)
            view = engine.view(state, seat if held else None)
        step = at or version
        out: dict[str, Any] = {"id": match_id, "version": version, "at": step, "seat": seat, "disclosed": full,
                               "state": view}
        if place is not None:  # only when asked so: counting hands walks the whole log
            out.update(hand=place.hand, move=place.move, trick=place.trick)
        if at is not None:
            later = self.ledger.read(match_id, after=step - 1)
            out["hash"] = later[0].hash
            out["proof"] = {"from": step, "hash": later[0].hash, "head": later[-1].hash, "version": later[-1].seq,
                            "events": self._listing(match_id, engine, later[1:], full)}
        return out

    def _locate(self, match_id: str, engine: Engine, at: int | None, hand: int | None, move: int | None,
                trick: int | None) -> tuple[int, Position]:
        """Turn hand/move/trick into a seq.

        Only numbers come out of it (hands, moves, tricks are counted alike in every view).

        Raises:
            BadRequest: ``at`` given too, move or trick without a hand, or no such position.
        """
        if at is not None:
            raise BadRequest("request.bad_position", "say where either by at (the event's number in the log) "
                                                     "or by hand and move, not both")
        places = positions(engine, frames(engine, events_from(self.ledger.read(match_id))))
        seq = _place(places, hand, move, trick)
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
                authorize(self.ledger.get_match(record.id), token)  # the stored token: it may have been rotated elsewhere
            return "all"
        seat = seat_by_name(record.players, seat)
        if not (isinstance(seat, int) and 0 <= seat < len(record.players)):
            raise BadRequest("request.bad_seat", f"seat must be a seat number 0 to {len(record.players) - 1}, "
                                                 f"a player's name ({', '.join(record.players)}) or all")
        return seat

    def replay(self, match_id: str, *, seat: int | str | None = None, course: str = "corrected",
               start: int = 1, stop: int | None = None, limit: int | None = None, token: str | None = None,
               hand: int | None = None, move: int | None = None, trick: int | None = None) -> dict[str, Any]:
        """Return the frames of a match (see :meth:`_replay`), built with the cyclic garbage collector paused.

        A replay holds a state and a view per frame alive at once: every automatic
        collection would scan them all again, which made a 5,000-event replay cost 17 times
        a 500-event one instead of 10 (see :func:`engines.base.collector_paused`).
        """
        with collector_paused():
            return self._replay(match_id, seat=seat, course=course, start=start, stop=stop, limit=limit, token=token,
                                hand=hand, move=move, trick=trick)

    def _replay(self, match_id: str, *, seat: int | str | None, course: str, start: int, stop: int | None,
                limit: int | None, token: str | None, hand: int | None, move: int | None,
                trick: int | None) -> dict[str, Any]:
        """Return the frames of a match: each step's move in words, the state after it and what changed.

        Frames ``start`` to ``stop``, at most ``limit`` of them (a page); ``next`` is the
        ``start`` of the following page, or None at the end. ``hand`` alone replays that hand;
        with ``move``/``trick`` it stops there. Every frame
        says its ``hand``, ``move`` and ``trick`` as players count them.

        A reader without the token, while the match is in play, gets frames folded from the
        public log (no private fact in any state, word or seat view) and each event's data
        as the open listing shows it.
        """
        if course not in COURSES:
            raise BadRequest("request.bad_course", f"course must be one of {', '.join(COURSES)}")
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        seat = self._seat(record, engine, seat, token)
        full = self.disclosed(record, engine, token)
        if (full and hand is None and move is None and trick is None
                and not (seat == "all" and getattr(engine, "hindsight", None) is not None)):
            page = self._page(match_id, engine, course, seat, start, stop, limit)
            if page is not None:
                return page
        stored = self.ledger.read(match_id)
        log = events_from(stored)
        steps = frames(engine, log, course) if full else None
        places = positions(engine, steps if steps is not None and course == "corrected" else frames(engine, log))
        if hand is not None or move is not None or trick is not None:
            if stop is not None:
                raise BadRequest("request.bad_position", "say where to stop either by stop (the event's number) "
                                                         "or by hand and move, not both")
            stop = _place(places, hand, move, trick)
            start = max(start, min(p.seq for p in places if p.hand == hand))
        end = len(log) if stop is None else min(stop, len(log))
        if limit is not None:
            end = min(end, start + limit - 1)
        out = self._frames(match_id, engine, record, stored, log, course, seat, steps, start, end)
        out["next"] = end + 1 if end < len(log) and (stop is None or end < stop) else None
        where = {p.seq: p for p in places}
        for frame in out["frames"]:
            place = where.get(frame["seq"])
            frame.update({"hand": place.hand if place else None, "move": place.move if place else None,
                          "trick": place.trick if place else None})
        return out

    def _page(self, match_id: str, engine: Engine, course: Course, seat: int | str | None, start: int,
              stop: int | None, limit: int | None) -> dict[str, Any] | None:
        """Return the frames ``start..stop`` (at most ``limit``) for a reader who sees everything,
        folding only from the newest checkpoint or stored snapshot before the deal of ``start``'s hand.

        A page costs what it shows, not the length of the log: the walk resumes from a stored
        state (the recorded course, which is the corrected one after the last correction),
        and hands are numbered from the state at that deal (:func:`~api.addressing.hand_number`),
        moves and tricks counted from it. None when that cannot be told this way (a correction
        after the resume point changes the corrected course before it; a game whose view does
        not number its hands): the caller walks the whole log.
        """
        version = self.ledger.version(match_id)
        end = version if stop is None else min(stop, version)
        if limit is not None:
            end = min(end, start + limit - 1)
        first = max(start, 1)
        upto = min(first - 1, version)
        while True:
            base, state = self._resume_point(match_id, engine, upto)
            log = events_from(self.ledger.read(match_id, after=base, upto=version))
            if any(e.type in CORRECTIONS for e in log):
                return None
            deal = next((e.seq for e in reversed(log) if e.seq <= first and e.type == "hand_started"), None)
            if deal is not None or base == 0:
                break
            upto = base - 1  # the hand in play began before this state: resume from an earlier one
        steps = (frames(engine, log, "recorded", after=base, state=state, stop=end) if base
                 else frames(engine, log, course, stop=end))
        counted = steps
        hands_before = None
        if deal is not None:
            counted = [f for f in steps if f.seq >= deal]
            number = hand_number(engine, counted[0].state) if counted else None
            if counted and number is None:
                return None
            hands_before = None if number is None else number - 1
        views: dict[int, Any] | None = {} if seat is None else None  # the public views, shared with the numbering
        out = frames_json(engine, steps, seat, start=first, stop=end, before=state if base and base == first - 1 else None,
                          views=views)
        where = {p.seq: p for p in positions(engine, counted, hands_before=hands_before, views=views)}
        for frame in out:
            place = where.get(frame["seq"])
            frame.update({"hand": place.hand if place else None, "move": place.move if place else None,
                          "trick": place.trick if place else None})
        return {"id": match_id, "version": version, "course": course, "seat": seat, "disclosed": True, "frames": out,
                "next": end + 1 if end < version and (stop is None or end < stop) else None}

    def _resume_point(self, match_id: str, engine: Engine, upto: int) -> tuple[int, Any]:
        """Return the newest known state at or before event ``upto``: a checkpoint of the memory
        cache or a stored snapshot, as ``(seq, state)``; ``(0, None)`` when there is none."""
        base, state = 0, None
        entry = self.cache.get(match_id)
        if entry is not None:
            if entry.version <= upto:
                base, state = entry.version, entry.state
            else:
                base = max((s for s in entry.checkpoints if s <= upto), default=0)
                state = entry.checkpoints.get(base)
        if base < upto:
            stored = snapshots.load(self.ledger, match_id, engine, upto, newer_than=base)
            if stored is not None:
                base, state = stored.seq, stored.state
        return base, state

    def _frames(self, match_id: str, engine: Engine, record: MatchRecord, stored: Sequence[StoredEvent],
                log: list[Event], course: Course, seat: int | str | None, steps: list[Any] | None, start: int,
                stop: int | None) -> dict[str, Any]:
        """Render the frames ``start..stop`` as this reader may see them (``steps``: the full frames, if disclosed)."""
        if steps is not None:
            hindsight = getattr(engine, "hindsight", None)  # optional: engines whose cards keep an identity
            if seat == "all" and hindsight is not None:
                try:
                    known = frames(engine, hindsight(log, self._state(match_id, engine)[0]), course)
                    steps = [dataclasses.replace(k, data=f.data) for k, f in zip(known, steps, strict=True)]
                except RuleViolation:
                    pass  # the filled-in log does not fold: show each step as it was known then
            return {"id": match_id, "version": len(log), "course": course, "seat": seat, "disclosed": True,
                    "frames": frames_json(engine, steps, seat, start=start, stop=stop)}
        try:
            shown_log, put_back, _ = foldable_public_log(engine, log)
            steps = frames(engine, shown_log, course)
            view_seat = None if put_back else seat
            steps = [dataclasses.replace(f, text=_withheld_text(f)) if f.seq in put_back else f for f in steps]
            steps = _kept_told_unknown(engine, log, steps)
        except RuleViolation:  # the log needs a private fact to fold: public views and bare words only
            steps = [dataclasses.replace(f, text=f.type) for f in frames(engine, log, course)]
            view_seat = None
        shown = {e["seq"]: e["data"] for e in self._listing(match_id, engine, stored, False)}
        standing = {}
        voided = voided_seqs(log)
        for event in log:
            if event.type == "amend" and event.seq not in voided:
                standing[int(event.data["target"])] = event.seq
        out = frames_json(engine, steps, view_seat, start=start, stop=stop)
        for frame in out:
            amend = standing.get(frame["seq"]) if frame["status"] == "amended" else None
            frame["data"] = shown[amend]["data"] if amend is not None else shown[frame["seq"]]
        return {"id": match_id, "version": len(log), "course": course, "seat": seat, "disclosed": False, "frames": out}

    def legal_moves(self, match_id: str, *, token: str | None = None) -> dict[str, Any]:
        """Return what may be recorded next.

        The templates may carry what the record knows (a peek's value, a known slot's card),
        so a reader without the token, while the match is in play, gets the moves of the
        public log; if that log does not fold, or the hand in play holds a value the public
        fold keeps (a Cabo reveal during play), only each move's type and seat.
        """
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        if self.disclosed(record, engine, token):
            state, version = self._state(match_id, engine)
            return {"id": match_id, "version": version, "disclosed": True, "moves": engine.legal_moves(state)}
        state, version, held, kept = self._public_state(match_id, engine, None)
        moves = engine.legal_moves(state)
        if not held or kept:
            bare: list[dict[str, Any]] = []
            for move in moves:
                short = {"type": move["type"], "data": {k: v for k, v in move["data"].items() if k == "seat"}}
                if short not in bare:
                    bare.append(short)
            moves = bare
        return {"id": match_id, "version": version, "disclosed": False, "moves": moves}

    def audit(self, match_id: str, *, token: str | None = None) -> dict[str, Any]:
        """Verify the chain, rescore every hand from scratch and compare the table's claims.

        While the match is in play, a reader without the token gets the hands scored from
        the public log (a score that needs a private card is incomplete for that reader).
        """
        record = self._fixed_record(match_id)
        engine = get_engine(record.game)
        report, stored = self.ledger.read_verified(match_id)  # one read: the rows checked are the rows scored
        if not report.valid:
            stored = self.ledger.read(match_id)  # a broken chain is still scored as stored, and said so
        log = events_from(stored)
        shown, put_back = (log, frozenset()) if self.disclosed(record, engine, token) else foldable_public_log(engine, log)[:2]
        steps = list(walk(engine, shown))  # from scratch: the audit trusts no cache
        hidden = withheld_hands(steps, put_back)
        sheet = withheld(engine.score(steps[-1].state), hidden)
        chain = {"valid": report.valid, "length": report.length, "head": report.head,
                 "firstBad": report.first_bad, "reason": report.reason}
        batches = {e.seq: e.at for e in stored}
        recorded = log[0].data.get("rulesVersion") if log else None
        past = engine_version(record.game, recorded) if recorded is not None else engine
        past_sheet = sheet if past is engine else (withheld(past.score(replay(past, shown)), hidden) if past is not None else None)
        rules = rules_report(engine.GAME, recorded, engine.RULES_VERSION, sheet, past_sheet)
        return {"id": match_id, "version": len(log), **build_audit(sheet, steps, chain, record.players, batches), "rules": rules}


def _place(places: Sequence[Position], hand: int | None, move: int | None, trick: int | None) -> int:
    """Return the seq a hand/move/trick points at.

    Raises:
        BadRequest: a move or trick without a hand, or no such position (said in words).
    """
    if hand is None:
        raise BadRequest("request.bad_position", "a move or trick is counted within a hand: give hand too")
    try:
        return locate(places, hand=hand, move=move, trick=trick)
    except AddressError as error:
        raise BadRequest(error.code, error.message) from None


def _kept_told_unknown(engine: Engine, log: Sequence[Event], steps: list[Frame]) -> list[Frame]:
    """Tell each step holding a value the public fold keeps (a Cabo reveal during play) with
    that value as unknown: the words of an open replay name no private card."""
    options = match_options(log)
    types = {e.seq: e.type for e in log}
    by_seq = {e.seq: e for e in log}
    out = list(steps)
    for i, frame in enumerate(steps):
        event = by_seq[frame.seq]
        kept = [s for s in event_secrets(engine, options, event.type, event.data, types) if s.unknown == "keep"]
        if not kept or frame.status not in ("played", "amended"):
            continue
        told = Event(event.seq, event.type, cards_unknown(frame.data, kept))
        try:
            text = engine.narrate(steps[i - 1].state if i else None, told, frame.state)
        except (KeyError, ValueError, TypeError, IndexError, RuleViolation):
            text = _withheld_text(frame)
        out[i] = dataclasses.replace(frame, text=text)
    return out


def _withheld_text(frame: Frame) -> str:
    """The words of a step put back as recorded in an open replay: its type, not its private facts."""
    return f"{frame.type.replace('_', ' ')} (its hidden cards are shown when the match ends)"


def _check_shapes(game: str, events: Sequence[Mapping[str, Any]]) -> None:
    """Check each event's shape against the game's schemas, as an append and a dry run both do.

    Raises:
        EventRefused: the first event whose shape is wrong, or a second ``match_started``.
    """
    for index, event in enumerate(events):
        try:
            validate_event(game, event["type"], event["data"])
            if event["type"] == "match_started":
                raise RuleViolation("common.already_started", "match_started comes once, as the first event of a match")
        except (SchemaError, RuleViolation) as error:
            refused = EventRefused(index, error)
            refused.game = game  # the refusal links to the game's rules
            raise refused from None


def checked_steps(engine: Engine, game: str, log: Sequence[Event], batch: Sequence[Event], after: int, state: Any,
                  players: int) -> Iterator[Step]:
    """Walk ``batch`` onto ``state`` (the state after event ``after``), checking each event as an
    append does: what it refers to, the desk's rules for disputes and claims, then the rules.

    ``log`` is what the walk reads: ``batch`` alone, or the log from event 1 when a correction
    or a ruling needs what came before. Needs no ledger, so an archive import can run it in
    a worker process.

    Raises:
        EventRefused: the first event of the batch that a check or the rules refuse.
    """
    steps = walk(engine, log, "recorded", after=after, state=state)
    for index, event in enumerate(batch):
        try:
            _check_entry(game, log, event)
            if event.type in DESK:
                desk.check_desk(event, batch, log, state, engine, players)
            step = _step_or_broken(steps, event)
            state = step.state
            yield step
        except (RuleViolation, SchemaError) as error:
            raise EventRefused(index, error) from None


def _check_entry(game: str, log: Sequence[Event], event: Event) -> None:
    """Check what an event of a batch may refer to, before it is folded.

    ``log`` holds the event; it starts at event 1 when ``event`` is a correction.

    Raises:
        RuleViolation: a note on a later event, a correction of what it may not target.
        SchemaError: an amend whose new payload does not fit its target's type.
    """
    if event.type == "note" and event.data.get("target") is not None and int(event.data["target"]) >= event.seq:
        raise RuleViolation("common.bad_target", f"a note can only be attached to an earlier event, not {event.data['target']}")
    if event.type in CORRECTIONS:
        check_correction(log[: event.seq - 1], event)
        if event.type == "amend":
            _validate_amended(game, log[int(event.data["target"]) - 1].type, event.data["data"])


def _step_or_broken(steps: Iterator[Step], event: Event) -> Step:
    """Take the next step of a walk; a correction that breaks a later event is refused as such.

    Raises:
        RuleViolation: the rules refuse ``event``, or (``common.correction_breaks``) the log
            as corrected by ``event`` makes a later event illegal, named by its seq.
    """
    try:
        return next(steps)
    except RuleViolation as broken:
        if event.type not in CORRECTIONS:
            raise
        at = broken.event
        raise RuleViolation(
            "common.correction_breaks",
            f"this {event.type} of event {event.data['target']} would make event {at} illegal: {broken.message}",
            seq=at,
        ) from None
