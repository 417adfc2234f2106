"""The service: the one place where schemas, engines and the ledger meet; Flask-free.

The HTTP views and the ``tanteo`` command line both call :class:`Service`. The package is split
by job, so that its face is small:

* :mod:`api.service.writing` — starting a match and appending checked batches (:class:`Writer`);
* :mod:`api.service.reader` — every read, through one :class:`~api.service.reader.Reader` that
  decides once what a reader may see (:mod:`api.service.disclosure` says how) and folds it once;
* :mod:`api.service.cache` the folded states, :mod:`api.service.snapshots` the stored ones,
  :mod:`api.service.tokens` the write tokens, :mod:`api.service.desk` disputes and the correction
  window, :mod:`api.service.transfer` export and import.

Every log is read through the one walk, :func:`engines.base.walk`.
"""

from __future__ import annotations

import functools
from typing import Any

from api.service.clubs import Clubs
from api.service.league import club_of, series_matches
from api.service.cache import CHECKPOINT_EVERY, StateCache, state_at
from api.service.desk import Clock, utc_now
from api.service.errors import BadRequest
from api.service.reader import Reader, meta_fields
from api.service.snapshots import SNAPSHOT_EVERY
from api.service.seats import SEAT_KEY_LIMITS, seat_of
from api.service.tokens import AuthError, authorize, hash_token
from api.service.writing import EventRefused, Writer, checked_steps, match_meta, new_match_id
from engines import LEAGUES
from engines.base import Engine, RuleViolation, collector_paused, events_from, walk
from engines.said import Said
from ledger import CLUB_LOG, Ledger, MatchNotFound, MatchRecord

__all__ = [
    "CHECKPOINT_EVERY",
    "AuthError",
    "BadRequest",
    "EventRefused",
    "Reader",
    "Service",
    "StateCache",
    "checked_steps",
    "hash_token",
    "match_meta",
    "new_match_id",
]


class Service(Writer):
    """Matches as the API and the CLI see them: start, record, read, replay, audit."""

    def __init__(
        self,
        ledger: Ledger,
        cache: StateCache | None = None,
        clock: Clock | None = None,
        *,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.ledger = ledger
        self.cache = cache if cache is not None else StateCache()
        self.clock: Clock = clock or utc_now
        """The service's clock: only the correction window reads it (tests pass their own)."""
        self.snapshot_every = snapshot_every
        """Store a snapshot when the head is this many events past the newest one stored."""

    # ---- the match row, the write token and the head state (both halves use them)

    def _fixed_record(self, match_id: str) -> MatchRecord:
        """Return the match row for its fields that never change (game, players, token hash).

        Raises:
            MatchNotFound: no such match.
        """
        record = self.cache.record(match_id)
        if record is None:
            record = self.ledger.get_match(match_id)
            self.cache.keep_record(record)
        if record.game == CLUB_LOG:  # a club's log is written as a club (api.service.clubs)
            raise MatchNotFound(match_id)
        return record

    def authorize(self, record: MatchRecord, token: str | None, *, seats: bool = False) -> int | None:
        """Check a key against the match's: the write token (None), or with ``seats`` a seat's key
        (that seat's number: :mod:`api.service.seats` says what it may write).

        A token that does not fit the cached row is checked once more against the stored
        one: another process may have rotated it. A key that is no write token is looked up
        among the seats' keys (the latest ``seat_key`` of each seat).

        Raises:
            AuthError: no token, or not this match's (``auth.wrong``); a seat's key where only the
                write token will do (``seat.not_allowed``).
        """
        try:
            authorize(record, token)
            return None
        except AuthError as error:
            if error.code != "auth.wrong":
                raise
            fresh = self.ledger.get_match(record.id)
            wrong = error
        if fresh.token_hash != record.token_hash:
            self.cache.keep_record(fresh)
            try:
                authorize(fresh, token)
                return None
            except AuthError as error:
                wrong = error
        seat = seat_of(events_from(self.ledger.read(record.id)), token or "")
        if seat is None:
            raise wrong
        if not seats:
            raise AuthError("seat.not_allowed", SEAT_KEY_LIMITS)
        return seat

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
            raise BadRequest(
                "request.bad_step",
                Said("step %(step)s does not exist: this match has events 1 to %(version)s", step=at, version=version),
            )
        return state_at(self.ledger, match_id, engine, entry, at), version

    @functools.cached_property
    def clubs(self) -> Clubs:
        """The clubs: roster logs, league tables, profiles and nights (:mod:`api.service.clubs`)."""
        return Clubs(self)

    # ---- series: "Play again"

    def play_again(self, match_id: str, *, token: str | None, by: str = "") -> dict[str, Any]:
        """Start the next match of a finished one: the same players, options and club, the deal
        going on where the rules pass it (``series.dealer``), numbered in its series.

        The rules leave the first dealer of a match free, so the dealer is the one the table is
        told to start with (the score page offers it), not a check.

        Raises:
            MatchNotFound, AuthError, RuleViolation (``series.not_over``).
        """
        reader = self.reader(match_id, token)
        if reader.seat_key is not None:
            raise AuthError("seat.not_allowed", SEAT_KEY_LIMITS)
        if not token:
            raise AuthError(
                "auth.missing",
                Said("starting the next match needs this one's token: send 'Authorization: Bearer <token>'"),
            )
        if reader.record.status != "over":
            raise RuleViolation("series.not_over", Said("this match is not over yet: finish it before playing again"))
        first = next(walk(reader.engine, reader.log)).read.data  # match_started as the log now reads it
        series = dict(first.get("series") or {"id": match_id, "number": 1})
        data = {
            k: v
            for k, v in first.items()
            if k in ("game", "players", "teams", "target", "options", "title", "place", "tags")
        }
        data["series"] = {
            "id": series["id"],
            "number": int(series["number"]) + 1,
            "previous": match_id,
            "dealer": LEAGUES[reader.record.game].next_dealer(reader.head_state),
        }
        if data["series"]["dealer"] is None:
            del data["series"]["dealer"]
        club = club_of(self.ledger, match_id)
        if club is None:
            self.clubs.projector.catch_up()
            club = club_of(self.ledger, match_id)
        seating = self.clubs.roster(club).matches[match_id] if club is not None else None
        if club is not None and seating is not None:  # a player hidden meanwhile: refused before anything is written
            self.clubs.seatable(club, seating["players"], seating.get("night"))
        started = self.start_match(data, by=by)
        if club is not None and seating is not None:  # the same seats: the previous match's token vouches for them
            self.clubs.add_again(club, started["id"], seating["players"], seating.get("night"), by=by)
        return {**started, "series": data["series"], "club": club}

    def series(self, series_id: str) -> dict[str, Any]:
        """A series: its matches in order and each seat's running total of matches won.

        Raises:
            MatchNotFound: no match starts or continues this series.
        """
        self.clubs.projector.catch_up()
        ids = series_matches(self.ledger, series_id)
        first = self.match(series_id)  # the first match's id names the series
        ids = [series_id, *[m for m in ids if m != series_id]]
        seats = len(first["players"])
        matches: list[dict[str, Any]] = []
        totals = [{"seat": i, "name": name, "won": 0, "net": 0, "money": 0} for i, name in enumerate(first["players"])]
        for number, mid in enumerate(ids, 1):
            reader = self.reader(mid)
            summary = first if mid == series_id else reader.match()
            figures = reader.figures()
            for seat in range(seats):
                for figure in ("won", "net", "money"):
                    totals[seat][figure] += figures[seat][figure]
            winners = [seat for seat in range(seats) if figures[seat]["won"]]
            matches.append({"id": mid, "number": number, "status": summary["status"], "winners": winners})
        return {
            "id": series_id,
            "game": first["game"],
            "unit": LEAGUES[first["game"]].unit,
            "players": first["players"],
            "matches": matches,
            "totals": totals,
        }

    # ---- reading: every read goes through one Reader (api/service/reader.py)

    def reader(self, match_id: str, token: str | None = None, *, owner: bool = False) -> Reader:
        """Open one read of a match: it decides once what this reader may see (``owner``: the
        database's owner, who reads the file itself: everything).

        Raises:
            MatchNotFound: no such match.
            AuthError: a token that is not this match's.
        """
        return Reader(self, match_id, token, owner=owner)

    def match(self, match_id: str, *, token: str | None = None) -> dict[str, Any]:
        """Summarise a match: players, status, version, standings and end (VOCABULARY §6)."""
        return self.reader(match_id, token).match()

    def list_matches(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
        tag: str | None = None,
        place: str | None = None,
        date: str | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """List matches, newest first, with the total count for pagination; filter by tag, place or date too."""
        rows, total = self.ledger.list_matches(
            game=game, player=player, status=status, limit=limit, offset=offset, tag=tag, place=place, date=date
        )
        return [
            {
                "id": r.id,
                "game": r.game,
                "players": list(r.players),
                "status": r.status,
                **meta_fields(r.meta),
                "version": r.version,
                "createdAt": r.created_at,
            }
            for r in rows
        ], total

    def events(
        self, match_id: str, *, after: int = 0, limit: int | None = None, token: str | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """Return stored envelopes after ``after`` as this reader may see them, and the match's version."""
        return self.reader(match_id, token).events(after=after, limit=limit)

    def state(
        self,
        match_id: str,
        *,
        at: int | None = None,
        seat: int | str | None = None,
        token: str | None = None,
        hand: int | None = None,
        move: int | None = None,
        trick: int | None = None,
    ) -> dict[str, Any]:
        """Return the state after event ``at`` (or hand/move/trick) as ``seat`` sees it (:meth:`Reader.state`)."""
        return self.reader(match_id, token).state(at=at, seat=seat, hand=hand, move=move, trick=trick)

    def replay(
        self,
        match_id: str,
        *,
        seat: int | str | None = None,
        course: str = "corrected",
        start: int = 1,
        stop: int | None = None,
        limit: int | None = None,
        token: str | None = None,
        hand: int | None = None,
        move: int | None = None,
        trick: int | None = None,
    ) -> dict[str, Any]:
        """Return the frames of a match (:meth:`Reader.replay`), built with the cyclic garbage collector paused.

        A replay holds a state and a view per frame alive at once: every automatic
        collection would scan them all again, which made a 5,000-event replay cost 17 times
        a 500-event one instead of 10 (see :func:`engines.base.collector_paused`).
        """
        with collector_paused():
            return self.reader(match_id, token).replay(
                seat=seat, course=course, start=start, stop=stop, limit=limit, hand=hand, move=move, trick=trick
            )

    def legal_moves(self, match_id: str, *, token: str | None = None) -> dict[str, Any]:
        """Return what may be recorded next (:meth:`Reader.legal_moves`)."""
        return self.reader(match_id, token).legal_moves()

    def audit(self, match_id: str, *, token: str | None = None) -> dict[str, Any]:
        """Verify the chain, rescore every hand from scratch and compare the table's claims (:meth:`Reader.audit`)."""
        return self.reader(match_id, token).audit()
