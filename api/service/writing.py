"""Writing a match: start it, append a checked batch, preview one, rotate the write token; Flask-free.

A write is: validate each event's shape (JSON Schema), then, inside the ledger's write
transaction, fold the batch onto the current state with the match's engine (refusing the whole
batch at the first illegal event), and append. Corrections (``void``, ``amend``) refold the log
as corrected and are refused when they would make any later event illegal. Each event's private
places are named here (the ledger commits to them: chain format 2).

:class:`Writer` is the writing half of :class:`api.service.Service` (the reading half is
:class:`api.service.reader.Reader`); the functions below need no ledger, so an archive import
runs :func:`checked_steps` in worker processes.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from typing import Any, Iterator, Mapping, Sequence

from api.service import desk, irregular, seats, snapshots
from api.service.cache import Folded, StateCache, folded, log_on
from api.service.desk import Clock
from api.service.disclosure import OptionsOf, private_paths
from api.service.errors import BadRequest, nested
from api.service.tokens import AuthError, hash_token, new_token
from engines import get_engine
from engines.base import (
    CORRECTIONS,
    DESK,
    IRREGULAR,
    SEATS,
    Engine,
    Event,
    RuleViolation,
    Step,
    check_correction,
    collector_paused,
    ruling_chain,
    events_from,
    walk,
)
from ledger import (
    GENESIS,
    AppendResult,
    ConcurrencyConflict,
    Current,
    Ledger,
    LedgerError,
    MatchRecord,
    NewEvent,
    StoredEvent,
)
from schemas import SchemaError, validate_event, validate_sent
from engines.said import Listed, Said

__all__ = ["EventRefused", "Writer", "checked_steps", "match_meta", "new_match_id"]


class EventRefused(Exception):
    """One event of a batch was refused; nothing of the batch was written.

    ``index`` is the event's place in the batch (0-based); ``error`` the schema or rule error;
    ``game`` the match's game (set by :meth:`Service.record`: a refusal links to its rules);
    ``within`` the part of the event a schema error's paths start from: ``".data"`` (its data,
    checked by its type's schema) or ``""`` (the event itself, as sent: ``sent.v1.json``).
    """

    def __init__(self, index: int, error: RuleViolation | SchemaError, within: str = ".data") -> None:
        super().__init__(f"event {index}: {error}")
        self.index = index
        self.error = error
        self.game: str | None = None
        self.within = within


def new_match_id() -> str:
    """Return a random URL-safe match id that never starts with '-', so a shell or the CLI never reads it as an option."""
    while (match_id := secrets.token_urlsafe(9)).startswith("-"):
        pass
    return match_id


META_FIELDS = ("title", "date", "place", "tags", "series")
"""What people call a match by: kept from ``match_started`` (as amended) for listing and filtering."""


def match_meta(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return the metadata of a ``match_started`` payload (fields absent stay absent)."""
    return {name: data[name] for name in META_FIELDS if data.get(name) is not None}


def _rules_version(engine: Engine, asked: Any) -> int:
    """Return the rules version a new match is recorded with: the engine's, or an earlier one asked for.

    Raises:
        RuleViolation: ``common.rules_version`` for a version newer than this server's engine.
    """
    if asked is None:
        return int(engine.RULES_VERSION)
    if asked > engine.RULES_VERSION:
        raise RuleViolation(
            "common.rules_version",
            Said(
                "this server scores %(game)s with rules version %(version)s; version %(asked)s is newer than that",
                game=engine.GAME,
                version=engine.RULES_VERSION,
                asked=asked,
            ),
        )
    return int(asked)


def _keep_rules_version(recorded: Event, corrected: Event) -> None:
    """Refuse an amend of ``match_started`` that changes the rules version the match was recorded with."""
    before, after = recorded.data.get("rulesVersion"), corrected.data.get("rulesVersion")
    if after is not None and after != before:
        raise RuleViolation(
            "common.rules_version",
            Said(
                "a match keeps the rules version it was recorded with (%(version)s); an amend cannot change it",
                version=before,
            ),
        )


def _validate_amended(game: str, type_: str, data: Any) -> None:
    """Check an amend's new payload against its target's schema; paths point into ``data.data``.

    Raises:
        SchemaError: the new payload does not fit the target's event type.
    """
    try:
        validate_event(game, type_, data)
    except SchemaError as error:
        raise nested(
            error, "$.data", Said("the amended %(type)s: %(message)s", type=type_, message=error.message)
        ) from None


class Writer:
    """The writing half of the service: it needs the ledger, the state cache, the clock and the
    snapshot interval (:class:`api.service.Service` holds them) and the match row's fixed fields."""

    ledger: Ledger
    cache: StateCache
    clock: Clock
    snapshot_every: int

    def _fixed_record(self, match_id: str) -> MatchRecord:
        raise NotImplementedError

    def authorize(self, record: MatchRecord, token: str | None, *, seats: bool = False) -> int | None:
        raise NotImplementedError

    def start_match(
        self, data: Mapping[str, Any], *, by: str = "", events: Sequence[Mapping[str, Any]] = ()
    ) -> dict[str, Any]:
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
                match_id,
                game=data["game"],
                players=list(data["players"]),
                token_hash=hash_token(token),
                first=first,
                by=by,
                meta=match_meta(data),
            )
            self.cache.put(match_id, Folded(result.version, result.head, state, {1: state}))
            return {"id": match_id, "token": token, "version": result.version, "head": result.head}
        with collector_paused():  # a whole match is checked and stored in one go
            _check_shapes(engine.GAME, events)
            origin: list[int] | None = None
            if any(e["type"] == IRREGULAR for e in events):
                events, origin = irregular.filled(engine, events, 1, state, lambda: [Event(1, "match_started", data)])
            options = OptionsOf(state.options)
            types = (
                {1: "match_started", **{i: e["type"] for i, e in enumerate(events, 2)}}
                if any(e["type"] == "amend" for e in events)
                else {}
            )  # an amend's private places are its target's
            declared = engine.PRIVATE  # most types declare no private field: only the others are looked into
            more = []
            for e in events:  # the data is not copied: the ledger encodes it at once and keeps its own
                kind, payload = e["type"], e["data"]
                paths = (
                    private_paths(engine, options, kind, payload, types) if kind in declared or kind == "amend" else ()
                )
                more.append(NewEvent(kind, payload if type(payload) is dict else dict(payload), paths))
            players = len(data["players"])
            outcome: dict[str, Folded] = {}

            def check(current: int, stored: Sequence[StoredEvent]) -> dict[str, Any]:
                try:
                    outcome["entry"] = self._fold_batch(
                        match_id, engine, engine.GAME, Folded(0, GENESIS, None, {}), stored, players
                    )
                except EventRefused as refused:
                    refused.index -= 1  # stored[0] is match_started: the index is in ``events``
                    if origin:
                        refused.index = origin[refused.index]
                    refused.game = engine.GAME
                    raise
                changes: dict[str, Any] = {"status": "over" if engine.is_over(outcome["entry"].state) else "playing"}
                if any(e.type in CORRECTIONS for e in stored):  # an amend of match_started may rename or retag it
                    log = events_from(stored)
                    read = next(walk(engine, log)).read  # match_started as the log now reads it
                    try:
                        _keep_rules_version(log[0], read)
                    except RuleViolation as error:
                        index = next(
                            i for i, e in enumerate(events) if e["type"] == "amend" and e["data"].get("target") == 1
                        )
                        raise EventRefused(index, error) from None
                    changes["meta"] = match_meta(read.data)
                return changes

            result = self.ledger.create_match(
                match_id,
                game=data["game"],
                players=list(data["players"]),
                token_hash=hash_token(token),
                first=first,
                by=by,
                meta=match_meta(data),
                more=more,
                check=check,
            )
            ended = engine.is_over(outcome["entry"].state)  # recorded whole: its final state is kept at once
            entry = self._keep_snapshot(match_id, engine, outcome["entry"], force=ended)
            if not (ended and entry.stored == entry.version):
                # A match recorded whole and over (an archive, a score sheet typed in after the
                # game) is read, if at all, from the snapshot just stored, as an import is: it is
                # not weighed into the memory cache (weighing cost more than a tenth of the write).
                self.cache.put(match_id, entry)
        return {"id": match_id, "token": token, "version": result.version, "head": result.head}

    def record(
        self,
        match_id: str,
        events: Sequence[Mapping[str, Any]],
        *,
        token: str | None,
        by: str = "",
        expected_version: int | None = None,
        key: str | None = None,
    ) -> AppendResult:
        """Append a batch of events after checking every one; all or nothing.

        Raises:
            MatchNotFound, AuthError, EventRefused (schema or rule, with the batch index),
            ConcurrencyConflict, IdempotencyConflict.
        """
        record = self._fixed_record(match_id)
        seat = self.authorize(record, token, seats=True)
        engine = get_engine(record.game)
        _check_shapes(record.game, events)
        _check_writer(events, seat)
        events, origin = self._irregulars(match_id, engine, events)
        batch = self._with_private(match_id, engine, events)
        outcome: dict[str, Any] = {}
        presented = hash_token(token or "")
        corrected = any(e.type in CORRECTIONS for e in batch)  # an amend of match_started may rename or retag it

        def check(current: Current, stored: Sequence[StoredEvent]) -> dict[str, Any]:
            # Runs inside the write transaction, in whichever writer's thread commits it
            # (group commit): it uses nothing of the thread, only this call's own objects.
            # ``current.match`` is the match row as this transaction read it (a token replaced meanwhile shows).
            if seat is not None:  # a seat's key: still the seat's latest (the scorer may have given a new one)
                if seats.seat_of(events_from(self.ledger.read(match_id, upto=current)), token or "") != seat:
                    raise AuthError("auth.wrong", Said("this seat key no longer opens this match: it was replaced"))
            elif current.match is None or not hmac.compare_digest(current.match.token_hash, presented):
                raise AuthError("auth.wrong", Said("this token no longer opens this match: it was replaced"))
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
                    index = next(
                        (i for i, e in enumerate(stored) if e.type == "amend" and e.data.get("target") == 1), 0
                    )
                    raise EventRefused(index, error) from None
                changes["meta"] = match_meta(first.data)
            return changes

        try:
            result = self.ledger.append(match_id, batch, by=by, expected_version=expected_version, key=key, check=check)
        except EventRefused as refused:
            refused.game = record.game
            if origin:
                refused.index = origin[refused.index]
            raise
        if not result.replayed:
            due = outcome["ended"] or corrected
            self.cache.put(match_id, self._keep_snapshot(match_id, engine, outcome["entry"], force=due))
        return result

    def _check_window(
        self, match_id: str, engine: Engine, entry: Folded, batch: Sequence[NewEvent | StoredEvent]
    ) -> None:
        """Refuse disputes and corrections to a finished match once its correction window has passed.

        Raises:
            EventRefused: ``common.match_final`` at the batch's first dispute, ruling or correction.
        """
        for index, event in enumerate(batch):  # noqa: B007 (index is read after the loop)
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
        ended = desk.window_start(engine, match_id, events_from(stored), {r.hash: r.seq for r in stored})
        try:
            desk.check_window(minutes, None if ended is None else stored[ended - 1].at, self.clock())
        except RuleViolation as error:
            raise EventRefused(index, error) from None

    def preview(
        self,
        match_id: str,
        events: Sequence[Mapping[str, Any]],
        *,
        token: str | None,
        expected_version: int | None = None,
    ) -> dict[str, Any]:
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
        events, origin = self._irregulars(match_id, engine, events, entry)
        stored = [
            StoredEvent(match_id, version + 1 + index, event["type"], dict(event["data"]), "", "", None, "", "")
            for index, event in enumerate(events)
        ]
        before = engine.score(entry.state)
        try:
            self._check_window(match_id, engine, entry, stored)
            after_state = self._fold_batch(match_id, engine, record.game, entry, stored, len(record.players)).state
        except EventRefused as refused:
            refused.game = record.game
            if origin:
                refused.index = origin[refused.index]
            raise
        after = engine.score(after_state)
        earlier = {h["hand"]: h for h in before["hands"]}
        changed = [h for h in after["hands"] if earlier.get(h["hand"]) != h]
        return {
            "dryRun": True,
            "version": version + len(stored),
            "hands": changed,
            "standings": after["standings"],
            "end": after["end"],
            "next": engine.legal_moves(after_state),
        }

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
        return [
            NewEvent(e["type"], dict(e["data"]), private_paths(engine, options, e["type"], e["data"], types))
            for e in events
        ]

    def _fold_batch(
        self, match_id: str, engine: Engine, game: str, entry: Folded, stored: Sequence[StoredEvent], players: int
    ) -> Folded:
        """Fold a built batch onto the head state; return the new cache entry (not yet shared).

        Raises:
            EventRefused: the first event of the batch that a check or the rules refuse.
        """
        batch = events_from(stored)
        log = log_on(self.ledger, match_id, entry.version, batch)
        hashes: dict[str, int] = {}
        if any(e.type == "confirm" for e in batch):  # a confirmation looks up its head and the seat's signer
            before = self.ledger.read(match_id, upto=entry.version)
            log = events_from(before) + batch
            hashes = {r.hash: r.seq for r in (*before, *stored)}
        elif log[0].seq != 1 and any(e.type == "ruling" for e in batch):  # a ruling looks its dispute up
            log = events_from(self.ledger.read(match_id, upto=entry.version)) + batch
        return folded(
            checked_steps(
                engine, game, log, batch, entry.version, entry.state, players, match_id=match_id, hashes=hashes
            ),
            stored[-1].seq,
            stored[-1].hash,
            entry,
        )

    def give_seat_key(self, match_id: str, seat: int, *, token: str | None, by: str = "") -> dict[str, Any]:
        """Give seat ``seat`` a new key (the write token's): the log keeps its sha256 (``seat_key``);
        the seat's earlier key stops working. The key is shown here once, with the link a
        phone opens (the key rides in the fragment, never sent to a server in a URL).

        Raises:
            MatchNotFound, AuthError, BadRequest (``request.bad_seat``), EventRefused.
        """
        self._seat_in_range(match_id, seat)
        key = new_token()
        result = self.record(
            match_id, [{"type": "seat_key", "data": {"seat": seat, "hash": seats.key_hash(key)}}], token=token, by=by
        )
        return {"seat": seat, "key": key, "link": f"/m/{match_id}/seat/{seat}#key={key}", "version": result.version}

    def register_signer(
        self, match_id: str, seat: int, public_key: Mapping[str, Any], *, token: str | None, by: str = ""
    ) -> dict[str, Any]:
        """Register seat ``seat``'s public signing key (a P-256 JWK), sent with the seat's own key.

        Raises:
            MatchNotFound, AuthError, BadRequest (``request.bad_seat``), EventRefused (the key's shape).
        """
        self._seat_in_range(match_id, seat)
        event = {"type": "seat_signer", "data": {"seat": seat, "publicKey": dict(public_key)}}
        result = self.record(match_id, [event], token=token, by=by)
        return {"version": result.version, "head": result.head}

    def _seat_in_range(self, match_id: str, seat: int) -> None:
        players = len(self._fixed_record(match_id).players)
        if not 0 <= seat < players:
            raise BadRequest(
                "request.bad_seat",
                Said("seat must be a seat from 0 to %(last)s, not %(seat)s", last=players - 1, seat=seat),
            )

    def _irregulars(
        self, match_id: str, engine: Engine, events: Sequence[Mapping[str, Any]], entry: Folded | None = None
    ) -> tuple[Sequence[Mapping[str, Any]], list[int] | None]:
        """Fill each irregular's rule and add its dispute (:func:`api.service.irregular.filled`).

        Returns the batch to write and, when it changed, each event's index in ``events``.
        The transaction checks again what this fills, on the state it commits on.
        """
        if not any(e["type"] == IRREGULAR for e in events):  # the common case: one pass, nothing read
            return events, None
        if entry is None:
            entry = self.cache.at_head(self.ledger, match_id, engine, self.ledger.version(match_id))
        at = entry.version
        return irregular.filled(
            engine, events, at, entry.state, lambda: events_from(self.ledger.read(match_id, upto=at))
        )

    def rotate_token(self, match_id: str, token: str | None) -> dict[str, Any]:
        """Replace a match's write token: the current one is needed, and stops working.

        Nothing can recover a lost token (only its hash is stored, by design): a scorer who
        fears it leaked rotates it while they still hold it.

        Raises:
            MatchNotFound, AuthError: no token, or not the current one.
        """
        record = self.ledger.get_match(match_id)
        self.authorize(record, token)
        new = new_token()
        if not self.ledger.replace_token(match_id, hash_token(token or ""), hash_token(new)):
            raise AuthError("auth.wrong", Said("this token no longer opens this match: it was replaced"))
        self.cache.keep_record(self.ledger.get_match(match_id))
        return {"id": match_id, "token": new}


def _check_writer(events: Sequence[Mapping[str, Any]], seat: int | None) -> None:
    """Check what the key that sent a batch may write: a seat's key (``seat``) only its own seat's
    ``seat_signer``, ``confirm`` and ``dispute``; the write token anything but a ``seat_signer``
    (a seat's signing key is registered from the seat's own phone).

    Raises:
        AuthError: ``seat.not_allowed`` (403), before anything is checked further.
        EventRefused: ``seat.other_seat`` (422), at the first event for another seat.
    """
    for index, event in enumerate(events):
        kind = event["type"]
        if seat is None:
            if kind == "seat_signer":
                raise AuthError(
                    "seat.not_allowed",
                    Said("a seat's signing key is registered from the player's own phone, with the seat's key"),
                )
            continue
        if kind not in seats.SEAT_WRITES:
            raise AuthError("seat.not_allowed", seats.SEAT_KEY_LIMITS)
        if event["data"].get("seat") != seat:
            refused = EventRefused(
                index,
                RuleViolation(
                    "seat.other_seat",
                    Said("this key is seat %(seat)s's: it confirms or contests only that seat's hands", seat=seat),
                ),
            )
            raise refused


def _check_shapes(game: str, events: Sequence[Any]) -> None:
    """Check each event's shape, as an append, a dry run and a match recorded whole all do: the
    one validation of an event, by the JSON Schemas (the HTTP layer checks only the body's
    envelope): the event as sent (an object of its type and data, ``sent.v1.json``), then its
    data against its type's schema in the game.

    Raises:
        EventRefused: the first event whose shape is wrong, or a second ``match_started``.
    """
    for index, event in enumerate(events):
        try:
            validate_sent(event)
        except SchemaError as error:
            refused = EventRefused(index, error, within="")
            refused.game = game
            raise refused from None
        try:
            validate_event(game, event["type"], event["data"])
            if event["type"] == IRREGULAR and (sent := irregular.client_rule(event["data"])) is not None:
                raise sent
            if event["type"] == "match_started":
                raise RuleViolation(
                    "common.already_started", Said("match_started comes once, as the first event of a match")
                )
        except (SchemaError, RuleViolation) as error:
            refused = EventRefused(index, error)
            refused.game = game  # the refusal links to the game's rules
            raise refused from None


def checked_steps(
    engine: Engine,
    game: str,
    log: Sequence[Event],
    batch: Sequence[Event],
    after: int,
    state: Any,
    players: int,
    *,
    match_id: str = "",
    hashes: Mapping[str, int] | None = None,
) -> Iterator[Step]:
    """Walk ``batch`` onto ``state`` (the state after event ``after``), checking each event as an
    append does: what it refers to, the desk's rules for disputes and claims, then the rules.

    ``log`` is what the walk reads: ``batch`` alone, or the log from event 1 when a correction
    or a ruling or a confirmation needs what came before (a confirmation also needs the match's
    id and ``hashes``, each event hash of the match with its seq: :mod:`api.service.seats`).
    Needs no ledger, so an archive import can run it in a worker process.

    Raises:
        EventRefused: the first event of the batch that a check or the rules refuse.
    """
    steps = walk(engine, log, "recorded", after=after, state=state)
    for index, event in enumerate(batch):
        try:
            _check_entry(game, log, event)
            if event.type in DESK:
                desk.check_desk(event, batch, log, state, engine, players)
            elif event.type in SEATS:
                seats.check_seat_event(match_id, event, log, hashes or {}, state, engine, players)
            elif event.type == IRREGULAR:
                irregular.check(engine, state, event)
            step = _step_or_broken(steps, log, event)
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
        raise RuleViolation(
            "common.bad_target",
            Said("a note can only be attached to an earlier event, not %(target)s", target=event.data["target"]),
        )
    if event.type == IRREGULAR:
        irregular.check_shape(game, event)
    if event.type in CORRECTIONS:
        check_correction(log[: event.seq - 1], event)
        if event.type == "amend":
            _validate_amended(game, log[int(event.data["target"]) - 1].type, event.data["data"])


def _step_or_broken(steps: Iterator[Step], log: Sequence[Event], event: Event) -> Step:
    """Take the next step of a walk; a correction that breaks a later event is refused as such.

    A ruling's chain of corrections is judged whole (:func:`engines.base.ruling_chain`): the
    refusal comes at its last link and names every entry the chain corrects.

    Raises:
        RuleViolation: the rules refuse ``event``, or (``common.correction_breaks``) the log
            as corrected by ``event`` (with the rest of its ruling's chain) makes a later event
            illegal, named by its seq.
    """
    try:
        return next(steps)
    except RuleViolation as broken:
        if event.type not in CORRECTIONS:
            raise
        at = broken.event
        position = next((i for i, e in enumerate(log) if e.seq == event.seq), None)
        chain = ruling_chain(log, position) if position is not None else []
        parts = {"entry": at, "reason": broken.message}
        if len(chain) > 1:
            said = Said(
                "this ruling's corrections of entries %(entries)s would make entry %(entry)s illegal: %(reason)s",
                entries=Listed(c.data["target"] for c in chain),
                **parts,
            )
        elif event.type == "void":
            said = Said(
                "this voiding of entry %(target)s would make entry %(entry)s illegal: %(reason)s",
                target=event.data["target"],
                **parts,
            )
        else:
            said = Said(
                "this correction of entry %(target)s would make entry %(entry)s illegal: %(reason)s",
                target=event.data["target"],
                **parts,
            )
        raise RuleViolation("common.correction_breaks", said, seq=at) from None
