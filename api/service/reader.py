"""The one reader: every read of a match goes through a :class:`Reader`; Flask-free.

A reader resolves the match, its engine and what this reader may see **once** — the write
token or the match over (everything), or an open reader (what the rules have shown) — and
holds the log as it may see it. Everything read from it is derived from that one decision:
the summary, the listing, the state at a step and a seat's view, the legal moves, the replay
frames, the audit, the text export. It reads the match row once and the log at most once,
and folds the disclosed log at most once (the steps are memoised), as boardgame.io applies
one ``playerView`` and one ``redactLog`` to every payload that leaves its server.

What an open reader may see is decided by :func:`api.service.disclosure.disclose`: a value
is private while its hand is in play and public from the hand's end, unless the rules never
show it (the engine's declaration), with privacy read by the options in force when each
event was recorded. No other code decides disclosure (``tests/test_layering.py`` holds it).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from replays.addressing import AddressError, Position, hand_number, locate, positions, seat_by_name
from api.service import seats, snapshots
from api.service.cache import Folded
from api.service.disclosure import (
    Disclosure,
    disclose,
    ended_deals,
    foldable,
    hand_in_play,
    kept_in_play,
    listed,
    withheld,
    withheld_hands,
)
from api.service.errors import BadRequest
from api.service.tokens import AuthError
from engines import engine_version, get_engine
from engines.base import (
    CORRECTIONS,
    SEATS,
    Course,
    Engine,
    Event,
    RuleViolation,
    Step,
    events_from,
    replay,
    voided_seqs,
    walk,
    walk_again,
)
from engines import LEAGUES
from engines.league import seat_figures
from engines.privacy import cards_unknown
from engines.said import Joined, Said
from api.service.words import said
from ledger import CLUB_LOG, MatchNotFound, MatchRecord, StoredEvent
from replays.audit import audit as build_audit, named, rules_report
from replays.steps import COURSES, WITHHELD_WORDS, Frame, frames, frames_json, frames_of

if TYPE_CHECKING:
    from api.service import Service

__all__ = ["Reader"]


def meta_fields(meta: Mapping[str, Any]) -> dict[str, Any]:
    """Every metadata field for a listing, null (tags: empty) when not given."""
    return {
        "title": meta.get("title"),
        "date": meta.get("date"),
        "place": meta.get("place"),
        "tags": list(meta.get("tags") or []),
        "series": meta.get("series"),
    }


def _dealer_first(moves: list[dict[str, Any]], dealer: int) -> list[dict[str, Any]]:
    """The first deal of a match that continues a series (Play again): the dealer the rules pass
    the deal to is offered first (filled in where the template leaves the dealer open)."""
    offered = [
        {**m, "data": {**m["data"], "dealer": dealer}}
        if m["type"] == "hand_started" and "dealer" not in m["data"]
        else m
        for m in moves
    ]
    return sorted(offered, key=lambda m: not (m["type"] == "hand_started" and m["data"].get("dealer") == dealer))


def roster_listing(events: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """Return a club's log as every reader sees it: a roster holds no private value (names and
    nicknames are public to the club), so every envelope is listed whole."""
    return [listed(event, None) for event in events]


class Reader:
    """One read of one match by one reader (see the module docstring).

    Raises (on construction):
        MatchNotFound: no such match.
        AuthError: a token that is not this match's (a reader who sends one means to use it).
    """

    def __init__(self, service: Service, match_id: str, token: str | None = None, *, owner: bool = False) -> None:
        self.service = service
        self.ledger = service.ledger
        self.id = match_id
        self.record: MatchRecord = self.ledger.get_match(
            match_id
        )  # the stored row: its token may have been rotated elsewhere
        """The match row, read once for the whole read."""
        if self.record.game == CLUB_LOG:  # a club's log is read as a club (api.service.clubs)
            raise MatchNotFound(match_id)
        self.seat_key: int | None = None
        """The seat whose key was sent (None: the write token, or no key): it reads as an open reader."""
        if token:
            self.seat_key = service.authorize(self.record, token, seats=True)
            if self.seat_key is None:
                service.cache.keep_record(self.record)
        self.token = token
        self.engine: Engine = get_engine(self.record.game)
        self.full = owner or (bool(token) and self.seat_key is None) or self.record.status == "over"
        """Whether this reader sees every private value: with the write token, once the match is
        over, or as the database's owner (``owner``: the command line's backup, which reads the file)."""

    # ---- the log, read once, and what this reader may see of it

    @functools.cached_property
    def stored(self) -> list[StoredEvent]:
        """The whole log as stored (read once per reader)."""
        return self.ledger.read(self.id)

    @functools.cached_property
    def log(self) -> list[Event]:
        """The log as engines read it; the events of rows the audit took over from its last read
        (the very stored objects) are that read's events, so a later walk knows them by identity."""
        stored = self.stored
        key = f"{self.id}\x00log"
        kept = self.service.cache.get(key)
        shared = 0
        if kept is not None:
            rows, events = kept.state
            last = min(len(rows), len(stored))
            while shared < last and rows[shared] is stored[shared]:
                shared += 1
        log = [*events[:shared], *events_from(stored[shared:])] if shared else events_from(stored)
        if shared < len(stored):
            self.service.cache.put(key, Folded(len(stored), "", (tuple(stored), log)))
        return log

    @property
    def version(self) -> int:
        return len(self.stored) if "stored" in self.__dict__ else self.record.version

    @functools.cached_property
    def head_state(self) -> Any:
        """The true state at the head of :attr:`stored` (the state cache: no fold when warm)."""
        entry = self.service.cache.at_head(self.ledger, self.id, self.engine, len(self.stored))
        return entry.state

    @functools.cached_property
    def disclosure(self) -> Disclosure | None:
        """What an open reader may see of the log now; None for a reader who sees everything."""
        if self.full:
            return None
        # scored through the reader's sheet, once, shared with the summary's (unless the game tells it unscored)
        ended = ended_deals(self.log, hand_in_play(self.engine, self.head_state, self.sheet))
        committed = {r.seq: [tuple(p) for p, _salt in r.private] for r in self.stored if r.format >= 2}
        return disclose(self.engine, self.log, ended, committed)

    @functools.cached_property
    def _folded(self) -> tuple[list[Event], frozenset[int], list[Step]]:
        """The log this reader folds, the events put back as recorded (open readers), and its one walk.

        The last whole walk of each kind of reader (everything, or open) is kept in the state
        cache and taken over as far as the log read now agrees with it, event by event
        (:func:`engines.base.walk_again`): a long match read after each new event is walked on
        from that event, or from the deal whose end showed its cards, not from event 1.
        """
        key = f"{self.id}\x00walk\x00{'all' if self.disclosure is None else 'open'}"
        kept = self.service.cache.get(key)
        before: Sequence[Step] = kept.state if kept is not None else ()
        if self.disclosure is None:
            folded: tuple[list[Event], frozenset[int], list[Step]] = (
                self.log,
                frozenset(),
                list(walk_again(self.engine, self.log, before)),
            )
        else:
            try:
                folded = foldable(self.engine, self.log, self.disclosure.log, before=before)
            except RuleViolation:  # the log needs a private fact to fold: the public views only
                return self.log, frozenset(e.seq for e in self.log), list(walk(self.engine, self.log))
        if not folded[1]:  # a whole walk (nothing withheld) is the one kept
            self.service.cache.put(key, Folded(len(folded[2]), "", tuple(folded[2])))
        return folded

    def sheet(self, state: Any) -> dict[str, Any]:
        """The rules' score sheet of ``state``, scored once per reader (a match page reads it for
        the summary, the audit and the hand in play; a long match's sheet is hundreds of lines)."""
        memo: dict[int, tuple[Any, dict[str, Any]]] = self.__dict__.setdefault("_sheets", {})
        kept = memo.get(id(state))
        if kept is None or kept[0] is not state:  # the state is held with its sheet: its id stays its own
            kept = memo[id(state)] = (state, self.engine.score(state))
        return kept[1]

    @property
    def hides_nothing(self) -> bool:
        """Whether this reader sees every value the log holds (the key, the match over, or nothing still hidden)."""
        return self.disclosure is None or not self.disclosure.hidden

    @property
    def withholds(self) -> bool:
        """Whether this reader's fold stops before the end of the log (a hand in play it cannot fold)."""
        return bool(self._folded[1])

    def steps(self) -> list[Step]:
        """The one walk (``corrected`` course) of the log as this reader may see it."""
        return self._folded[2]

    def _head(self) -> tuple[Any, bool, bool]:
        """The state at the head as this reader may fold it, whether the fold withholds the end
        of the log, and whether the hand in play holds a hidden value the fold keeps; an open
        reader's is cached per version."""
        if self.full:
            return self.service._state(self.id, self.engine)[0], False, False
        key = f"{self.id}\x00open"
        version = self.record.version
        cached = self.service.cache.get(key)
        if cached is not None and cached.version == version:
            state, exact, kept = cached.state
            return state, exact, kept
        steps = self.steps()
        assert self.disclosure is not None
        answer = (steps[-1].state if steps else None, self.withholds, kept_in_play(self.disclosure))
        if len(self.stored) == version:
            self.service.cache.put(key, Folded(version, "", answer))
        return answer

    # ---- the summary and the listing

    def match(self) -> dict[str, Any]:
        """Summarise the match: players, status, version, standings and end (VOCABULARY §6).

        An open reader of a match in play gets the standings scored from the disclosed log:
        every finished hand is scored as the table scored it.
        """
        record = self.record
        state = self._head()[0]
        scored = self.sheet(state)
        sheet = named({**scored, "hands": []}, record.players)  # the standings named; the hands only counted
        return {
            "id": record.id,
            "game": record.game,
            "players": list(record.players),
            "status": record.status,
            **meta_fields(record.meta),
            "createdAt": record.created_at,
            "version": record.version,
            "head": record.head,
            "hands": len(scored["hands"]),
            "standings": sheet["standings"],
            "end": sheet["end"],
            **self._seating(),
        }

    def figures(self) -> list[dict[str, int]]:
        """Each seat's figures in this match as this reader may see them (:func:`engines.league.seat_figures`):
        an open reader of a match in play gets those of the finished hands, as the table scored them."""
        sheet = self.sheet(self._head()[0])
        return seat_figures(LEAGUES[self.record.game], sheet, len(self.record.players))

    def listing(self, records: Sequence[StoredEvent]) -> list[dict[str, Any]]:
        """Return stored envelopes as this reader may see them (the one redaction of every listing)."""
        if self.full or not any(r.private or r.format < 2 for r in records):
            return [listed(r, None) for r in records]  # nothing this reader may not see
        return [listed(r, self.disclosure) for r in records]

    def events(self, *, after: int = 0, limit: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """Return the envelopes after ``after`` (at most ``limit``) and the match's version."""
        records = (
            self.ledger.read(self.id, after=after, limit=limit)
            if "stored" not in self.__dict__
            else self.stored[after : None if limit is None else after + limit]
        )
        return self.listing(records), self.record.version

    # ---- the state at a step

    def state(
        self,
        *,
        at: int | None = None,
        seat: int | str | None = None,
        hand: int | None = None,
        move: int | None = None,
        trick: int | None = None,
    ) -> dict[str, Any]:
        """Return the state after event ``at`` (or hand/move/trick) as ``seat`` sees it (None: the public view).

        ``seat`` may be a player's name. Asked by hand, the answer says where it stands both
        ways: ``at`` (the log's seq) and ``hand``/``move``/``trick`` as players count
        (replays/addressing.py). With ``at``, also the hash of event ``at`` and a ``proof``: the
        envelopes from ``at + 1`` to the head (as this reader may see them), so that a client
        holding only the current head recomputes the chain from event ``at`` to it.
        """
        seat = self.seat(seat)
        place: Position | None = None
        if hand is not None or move is not None or trick is not None:
            at, place = self._locate(at, hand, move, trick)
        version = self.record.version
        if at is not None and not 1 <= at <= version:
            raise BadRequest(
                "request.bad_step",
                Said("step %(step)s does not exist: this match has events 1 to %(version)s", step=at, version=version),
            )
        if self.full:
            state, version = self.service._state(self.id, self.engine, at)
            view = self.engine.view(state, seat)
        elif at is None or at == version:
            view = self.engine.view(self._head()[0], seat)
        else:  # the state the match had then, as the full reader's ``at`` reads it (the recorded course)
            assert self.disclosure is not None  # only the events up to ``at`` are folded
            steps = foldable(self.engine, self.log[:at], self.disclosure.log[:at], "recorded")[2]
            state = steps[-1].state
            view = self.engine.view(state, seat)
        step = at or version
        out: dict[str, Any] = {
            "id": self.id,
            "version": version,
            "at": step,
            "seat": seat,
            "disclosed": self.full,
            "state": view,
        }
        if place is not None:  # only when asked so: counting hands walks the whole log
            out.update(hand=place.hand, move=place.move, trick=place.trick)
        if at is not None:
            later = self.stored[step - 1 :] if "stored" in self.__dict__ else self.ledger.read(self.id, after=step - 1)
            out["hash"] = later[0].hash
            out["proof"] = {
                "from": step,
                "hash": later[0].hash,
                "head": later[-1].hash,
                "version": later[-1].seq,
                "events": self.listing(later[1:]),
            }
        return out

    def _locate(self, at: int | None, hand: int | None, move: int | None, trick: int | None) -> tuple[int, Position]:
        """Turn hand/move/trick into a seq (only numbers come out: they count alike in every view).

        Raises:
            BadRequest: ``at`` given too, move or trick without a hand, or no such position.
        """
        if at is not None:
            raise BadRequest(
                "request.bad_position",
                Said("say where either by at (the event's number in the log) or by hand and move, not both"),
            )
        places = self.positions()
        seq = _place(places, hand, move, trick)
        return seq, next(p for p in places if p.seq == seq)

    def positions(self) -> list[Position]:
        """Where each event stands as players count (hand, move, trick), read off this reader's walk."""
        return positions(self.engine, self._frames_all("corrected", told_from=len(self.log) + 1))

    def seat(self, seat: int | str | None) -> int | str | None:
        """Check a requested view: a seat number or a player's name, None (public) or ``all``.

        ``all`` shows every hidden card: it is open once the match is over, and before that
        only to the scorer holding the write token.

        Raises:
            AuthError: ``all`` of a match in play without its token.
            BadRequest: no such seat.
        """
        if seat is None:
            return None
        if seat == "all":
            if not self.full:
                raise AuthError("auth.missing", Said("the omniscient view of a match in play needs its write token"))
            return "all"
        players = self.record.players
        seat = seat_by_name(players, seat)
        if not (isinstance(seat, int) and 0 <= seat < len(players)):
            raise BadRequest(
                "request.bad_seat",
                Said(
                    "seat must be a seat number 0 to %(last)s, a player's name (%(names)s) or all",
                    last=len(players) - 1,
                    names=Joined(players, ", "),
                ),
            )
        return seat

    # ---- legal moves

    def legal_moves(self) -> dict[str, Any]:
        """Return what may be recorded next.

        The templates may carry what the record knows (a peek's value, a known slot's card),
        so an open reader of a match in play gets the moves of the disclosed log; if the hand
        in play holds a value the fold keeps (a Cabo reveal during play), only each move's type
        and seat; if the fold withholds the end of the log, none (its state is not the head's).
        """
        state, withholds, kept = self._head()
        moves = [] if withholds else self.engine.legal_moves(state)
        if not self.full and kept:
            bare: list[dict[str, Any]] = []
            for move in moves:
                short = {"type": move["type"], "data": {k: v for k, v in move["data"].items() if k == "seat"}}
                if short not in bare:
                    bare.append(short)
            moves = bare
        dealer = (self.record.meta.get("series") or {}).get("dealer")
        if dealer is not None and not any(e.type == "hand_started" for e in self.log):
            moves = _dealer_first(moves, dealer)
        return {"id": self.id, "version": self.record.version, "disclosed": self.full, "moves": moves}

    # ---- the audit

    def audit(self) -> dict[str, Any]:
        """Verify the chain, rescore every hand from scratch and compare the table's claims.

        An open reader of a match in play gets the hands scored from the disclosed log: every
        finished hand as the table scored it, the hand in play from what the table has seen.
        Every stored row is read and checked: a row hashed at an earlier read is compared with
        what it was then, byte for byte, and only a new one is hashed; the walk and the finished
        hands' lines are taken over from the last read only as far as the log read now agrees.
        """
        record, engine = self.record, self.engine
        key = f"{self.id}\x00verified"
        kept = self.service.cache.get(key)
        report, stored, verified = self.ledger.read_verified_on(  # one read: the rows checked are the rows scored
            self.id, kept.state if kept is not None else None
        )
        if verified is not None:
            self.service.cache.put(key, Folded(len(stored), report.head, verified))
        if not report.valid:
            stored = self.ledger.read(self.id)  # a broken chain is still scored as stored, and said so
        self.__dict__["stored"] = stored
        shown, put_back, steps = self._folded
        hidden = withheld_hands(steps, put_back)
        sheet = withheld(self.sheet(steps[-1].state), hidden)
        chain = {
            "valid": report.valid,
            "length": report.length,
            "head": report.head,
            "firstBad": report.first_bad,
            "reason": said(report.reason),
        }
        batches = {e.seq: e.at for e in stored}
        recorded = self.log[0].data.get("rulesVersion") if self.log else None
        past = engine_version(record.game, recorded) if recorded is not None else engine
        past_sheet = (
            sheet
            if past is engine
            else (withheld(past.score(replay(past, shown)), hidden) if past is not None else None)
        )
        rules = rules_report(engine.GAME, recorded, engine.RULES_VERSION, sheet, past_sheet)
        built = build_audit(sheet, steps, chain, record.players, batches)
        confirmed = self.confirmations(built["hands"], built["standings"])
        built["hands"] = [{**h, **confirmed[h["hand"]]} for h in built["hands"]]
        return {"id": self.id, "version": len(self.log), **built, "rules": rules}

    # ---- the seats: their keys and confirmations

    @property
    def confirmation(self) -> str:
        """The match's ``confirmation`` option (none, opponents, all), as the log now reads it."""
        return seats.confirmation_mode(self._opening().data)

    def _opening(self) -> Event:
        return next(
            walk(self.engine, self.log[:1] + [e for e in self.log if e.type == "amend" and e.data.get("target") == 1])
        ).read

    def confirmations(
        self, hands: Sequence[Mapping[str, Any]], standings: Sequence[Mapping[str, Any]]
    ) -> dict[int, dict[str, Any]]:
        """Per hand: the confirmations that stand, the seats still to confirm and whether it is settled.

        Read off the whole log: a confirmation names only a scored hand, whose result every
        reader sees, and says nothing hidden (who signed, when, whether it verifies).
        """
        signed = any(e.type == "confirm" for e in self.log)  # most matches have none: no look-ups to build
        read = (
            seats.read_confirmations(self.id, self.engine, self.log, {r.hash: r.seq for r in self.stored})
            if signed
            else []
        )
        return seats.hand_confirmations(
            self.record.game,
            self.confirmation,
            hands,
            standings,
            read,
            self.record.players,
            {r.seq: r.at for r in self.stored} if read else {},
        )

    def _seating(self) -> dict[str, Any]:
        """The summary's ``confirmation`` and ``seats``, read off the log once per version (kept in
        the state cache as the open reader's head is): a summary is read on every live redraw."""
        key = f"{self.id}\x00seats"
        version = self.record.version
        cached = self.service.cache.get(key)
        if cached is not None and cached.version == version:
            return dict(cached.state)
        answer = {"confirmation": self.confirmation, "seats": self.seats()}
        if len(self.stored) == version:
            self.service.cache.put(key, Folded(version, "", answer))
        return answer

    def seats(self) -> list[dict[str, Any]]:
        """Each seat: whether it was given a key and registered a signing key (never a key or a hash)."""
        keys, signers = seats.seat_keys(self.log), seats.signers(self.log)
        return [
            {"seat": seat, "hasKey": seat in keys, "hasSigner": seat in signers}
            for seat in range(len(self.record.players))
        ]

    # ---- the replay

    def _walk(self, course: Course) -> list[Step]:
        """This reader's walk in ``course``: the one walk, or (a log with corrections read as
        recorded) a second one."""
        if course == "corrected" or not any(e.type in CORRECTIONS for e in self.log):
            return self.steps()  # without corrections the two courses are one walk
        if "_recorded" not in self.__dict__:
            self.__dict__["_recorded"] = (
                list(walk(self.engine, self.log, course))
                if self.disclosure is None
                else foldable(self.engine, self.log, self.disclosure.log, course)[2]
            )
        return self.__dict__["_recorded"]  # type: ignore[no-any-return]

    def _frames_all(self, course: Course, *, told_from: int = 1) -> list[Frame]:
        """Every frame of the log as this reader may see it, in ``course``; words of what it may not see withheld.

        The moves before ``told_from`` are left unsaid (the last moves of a long match, or only
        the places of its moves): made once per reader and ``told_from``, unless every move is told already.
        """
        memo: dict[Any, list[Frame]] = self.__dict__.setdefault("_frames_memo", {})
        key: Any = course if told_from <= 1 else (course, told_from)
        if course in memo:
            return memo[course]
        if key not in memo:
            memo[key] = self._frames_made(course, told_from)
        return memo[key]

    def _frames_made(self, course: Course, told_from: int = 1) -> list[Frame]:
        out = frames_of(self.engine, self._walk(course), course, told_from=told_from)
        return out if self.full else self._kept_told_unknown(out, told_from)

    def _frames_from_deal(self, start: int, told_from: int) -> tuple[list[Frame], list[Position], Any]:
        """The frames of this reader's walk from the deal of the hand in play at event ``start`` on,
        their positions, and the state before the first of them.

        What the last moves of a long match need: the deals before are counted, not turned into
        frames and placed (an open reader's page, drawn anew after each event)."""
        steps = self.steps()
        first = dealt = 0
        for i, step in enumerate(steps):
            if step.event.seq > start:
                break
            if step.event.type == "hand_started" and step.status in ("played", "amended"):
                first, dealt = i, dealt + 1
        before = steps[first - 1].state if first else None
        made = frames_of(self.engine, steps[first:], "corrected", before=before, told_from=told_from)
        if not self.full:
            made = self._kept_told_unknown(made, told_from, before)
        return made, positions(self.engine, made, hands_before=dealt - 1 if dealt else None), before

    def _kept_told_unknown(self, steps: list[Frame], told_from: int = 1, before: Any = None) -> list[Frame]:
        """Tell each step holding a value the open fold keeps (a Cabo reveal during play) with that
        value as unknown: the words of an open replay name no hidden card (``before``: the state
        before the first of ``steps``)."""
        assert self.disclosure is not None
        by_seq = {e.seq: e for e in self.log}
        out = list(steps)
        for i, frame in enumerate(steps):
            kept = [s for s in self.disclosure.hidden.get(frame.seq, ()) if s.unknown == "keep"]
            if not kept or frame.status not in ("played", "amended") or frame.seq < told_from:
                continue
            event = by_seq[frame.seq]
            told = Event(event.seq, event.type, cards_unknown(frame.data, kept))
            try:
                text = self.engine.narrate(steps[i - 1].state if i else before, told, frame.state)
            except (KeyError, ValueError, TypeError, IndexError, RuleViolation):
                text = WITHHELD_WORDS
            out[i] = dataclasses.replace(frame, text=text)
        return out

    def replay(
        self,
        *,
        seat: int | str | None = None,
        course: str = "corrected",
        start: int = 1,
        stop: int | None = None,
        limit: int | None = None,
        hand: int | None = None,
        move: int | None = None,
        trick: int | None = None,
    ) -> dict[str, Any]:
        """Return the frames of the match: each step's move in words, the state after it and what changed.

        Frames ``start`` to ``stop``, at most ``limit`` of them (a page); ``next`` is the
        ``start`` of the following page, or None at the end. ``hand`` alone replays that hand;
        with ``move``/``trick`` it stops there. Every frame says its ``hand``, ``move`` and
        ``trick`` as players count them. An open reader of a match in play gets frames folded
        from the disclosed log and each event's data as its listing shows it.
        """
        if course not in COURSES:
            raise BadRequest(
                "request.bad_course", Said("course must be one of %(courses)s", courses=", ".join(COURSES))
            )
        engine = self.engine
        seat = self.seat(seat)
        hindsight = getattr(engine, "hindsight", None)  # optional: engines whose cards keep an identity
        if (
            self.full
            and hand is None
            and move is None
            and trick is None
            and not (seat == "all" and hindsight is not None)
        ):
            page = self._page(course, seat, start, stop, limit)
            if page is not None:
                return page
        # The frames shown are said in words (and the one before the first, whose view they change);
        # a position asked by hand or move may start anywhere.
        addressed = hand is not None or move is not None or trick is not None
        told_from = 1 if addressed else max(1, start - 1)
        before = None  # the state before the first frame made (None: they start at event 1)
        if not self.full and not addressed and course == "corrected":  # the last moves of a match page
            all_frames, places, before = self._frames_from_deal(start, told_from)
        else:
            all_frames = self._frames_all(course, told_from=told_from)
            corrected = (
                all_frames if course == "corrected" else self._frames_all("corrected", told_from=len(self.log) + 1)
            )
            places = positions(engine, corrected)
        if addressed:
            if stop is not None:
                raise BadRequest(
                    "request.bad_position",
                    Said("say where to stop either by stop (the event's number) or by hand and move, not both"),
                )
            stop = _place(places, hand, move, trick)
            start = max(start, min(p.seq for p in places if p.hand == hand))
        version = len(self.log)
        end = version if stop is None else min(stop, version)
        if limit is not None:
            end = min(end, start + limit - 1)
        if self.full:
            steps = all_frames
            if seat == "all" and hindsight is not None:
                try:
                    known = frames(engine, hindsight(self.log, self.head_state), course)
                    steps = [dataclasses.replace(k, data=f.data) for k, f in zip(known, steps, strict=True)]
                except RuleViolation:
                    pass  # the filled-in log does not fold: show each step as it was known then
            out = frames_json(engine, steps, seat, start=start, stop=end)
        else:
            out = frames_json(engine, all_frames, seat, start=start, stop=end, before=before)
            standing = {}
            voided = voided_seqs(self.log)
            for event in self.log:
                if event.type == "amend" and event.seq not in voided:
                    standing[int(event.data["target"])] = event.seq
            wanted = {frame["seq"] for frame in out} | {standing[f["seq"]] for f in out if f["seq"] in standing}
            shown = {e["seq"]: e["data"] for e in self.listing([r for r in self.stored if r.seq in wanted])}
            for frame in out:
                amend = standing.get(frame["seq"]) if frame["status"] == "amended" else None
                frame["data"] = shown[amend]["data"] if amend is not None else shown[frame["seq"]]
        where = {p.seq: p for p in places}
        for frame in out:
            place = where.get(frame["seq"])
            frame.update(
                {
                    "hand": place.hand if place else None,
                    "move": place.move if place else None,
                    "trick": place.trick if place else None,
                }
            )
        return {
            "id": self.id,
            "version": version,
            "course": course,
            "seat": seat,
            "disclosed": self.full,
            "frames": out,
            "next": end + 1 if end < version and (stop is None or end < stop) else None,
        }

    def _page(
        self, course: Course, seat: int | str | None, start: int, stop: int | None, limit: int | None
    ) -> dict[str, Any] | None:
        """Return the frames ``start..stop`` (at most ``limit``) for a reader who sees everything,
        folding only from the newest checkpoint or stored snapshot before the deal of ``start``'s hand.

        A page costs what it shows, not the length of the log: the walk resumes from a stored
        state (the recorded course, which is the corrected one after the last correction),
        and hands are numbered from the state at that deal (:func:`~replays.addressing.hand_number`),
        moves and tricks counted from it. None when that cannot be told this way (a correction
        after the resume point changes the corrected course before it; a game whose view does
        not number its hands): the caller walks the whole log.
        """
        engine, match_id = self.engine, self.id
        version = self.ledger.version(match_id)
        end = version if stop is None else min(stop, version)
        if limit is not None:
            end = min(end, start + limit - 1)
        first = max(start, 1)
        upto = min(first - 1, version)
        while True:
            base, state = self._resume_point(upto)
            log = events_from(self.ledger.read(match_id, after=base, upto=version))
            if any(e.type in CORRECTIONS for e in log):
                return None
            deal = next((e.seq for e in reversed(log) if e.seq <= first and e.type == "hand_started"), None)
            if deal is not None or base == 0:
                break
            upto = base - 1  # the hand in play began before this state: resume from an earlier one
        steps = (
            frames(engine, log, "recorded", after=base, state=state, stop=end)
            if base
            else frames(engine, log, course, stop=end)
        )
        counted = steps
        hands_before = None
        if deal is not None:
            counted = [f for f in steps if f.seq >= deal]
            number = hand_number(engine, counted[0].state) if counted else None
            if counted and number is None:
                return None
            hands_before = None if number is None else number - 1
        views: dict[int, Any] | None = {} if seat is None else None  # the public views, shared with the numbering
        out = frames_json(
            engine,
            steps,
            seat,
            start=first,
            stop=end,
            before=state if base and base == first - 1 else None,
            views=views,
        )
        where = {p.seq: p for p in positions(engine, counted, hands_before=hands_before, views=views)}
        for frame in out:
            place = where.get(frame["seq"])
            frame.update(
                {
                    "hand": place.hand if place else None,
                    "move": place.move if place else None,
                    "trick": place.trick if place else None,
                }
            )
        return {
            "id": match_id,
            "version": version,
            "course": course,
            "seat": seat,
            "disclosed": True,
            "frames": out,
            "next": end + 1 if end < version and (stop is None or end < stop) else None,
        }

    def _resume_point(self, upto: int) -> tuple[int, Any]:
        """Return the newest known state at or before event ``upto``: a checkpoint of the memory
        cache or a stored snapshot, as ``(seq, state)``; ``(0, None)`` when there is none."""
        base, state = 0, None
        entry = self.service.cache.get(self.id)
        if entry is not None:
            if entry.version <= upto:
                base, state = entry.version, entry.state
            else:
                base = max((s for s in entry.checkpoints if s <= upto), default=0)
                state = entry.checkpoints.get(base)
        if base < upto:
            stored = snapshots.load(self.ledger, self.id, self.engine, upto, newer_than=base)
            if stored is not None:
                base, state = stored.seq, stored.state
        return base, state

    # ---- the text export

    def exported(self) -> list[tuple[int, str, Mapping[str, Any]]]:
        """Return each event as the text notation writes it for this reader: ``(seq, type, data)``.

        An open reader's export of a match in play writes what it may see, each card still
        hidden as ``??``, as a scorer who did not see it would have recorded it, so that the
        file imports as a new match in which those cards are unknown. A ``reveal`` of cards
        still hidden says nothing the reader may see: its hidden bindings are left out, and
        one with none left is written as a note, so every later event keeps its number.
        """
        if self.disclosure is None:
            return [_seatless(e.seq, e.type, e.data) for e in self.log]
        out: list[tuple[int, str, Mapping[str, Any]]] = []
        for event in self.disclosure.log:
            if event.type in SEATS:
                out.append(_seatless(event.seq, event.type, event.data))
                continue
            hidden = self.disclosure.hidden.get(event.seq, ())
            if hidden and event.type == "reveal":
                gone = {s.path[1] for s in hidden if len(s.path) >= 2 and s.path[0] == "cards"}
                cards = [b for i, b in enumerate(event.data.get("cards") or []) if i not in gone]
                if cards:
                    out.append((event.seq, event.type, {**event.data, "cards": cards}))
                else:
                    out.append((event.seq, "note", {"text": REVEAL_NOTE}))
                continue
            kept = [s for s in hidden if s.unknown == "keep"]
            out.append((event.seq, event.type, cards_unknown(event.data, kept) if kept else event.data))
        return out


REVEAL_NOTE = "the scorer recorded cards the rules still hide here; they are shown at the end of the hand"
"""What an open text export writes in place of a reveal whose every card is still hidden."""

SEAT_NOTE = "a seat's key or signed confirmation stood here: the archive export keeps it, the text cannot"
"""What a text export writes in place of a ``seat_key``, ``seat_signer`` or ``confirm`` (docs/NOTATION.md):
a signature is over the match's id, which a text import does not keep, and a seat's entries are
written with the seat's own key, never the scorer's."""


def _seatless(seq: int, kind: str, data: Mapping[str, Any]) -> tuple[int, str, Mapping[str, Any]]:
    """An event as the text notation writes it: a seat's own entry as a note, every later event keeping its number."""
    return (seq, "note", {"text": SEAT_NOTE}) if kind in SEATS else (seq, kind, data)


def _place(places: Sequence[Position], hand: int | None, move: int | None, trick: int | None) -> int:
    """Return the seq a hand/move/trick points at.

    Raises:
        BadRequest: a move or trick without a hand, or no such position (said in words).
    """
    if hand is None:
        raise BadRequest("request.bad_position", Said("a move or trick is counted within a hand: give hand too"))
    try:
        return locate(places, hand=hand, move=move, trick=trick)
    except AddressError as error:
        raise BadRequest(error.code, error.message) from None
