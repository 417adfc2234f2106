"""Clubs: their roster logs, the matches they hold, league tables, profiles and nights; Flask-free.

A club is created like a match and gets its own key (shown once, stored hashed). Its log is a
stream in the ledger (game :data:`ledger.base.CLUB_LOG`): every roster change is an event,
validated by its schema (``schemas/club/``) and checked by the roster's rules
(:mod:`api.service.roster`) inside the ledger's write transaction, chained, exported and
verified like a match's. No personal data is asked for: a display name, a nickname if wanted.

Figures are never typed: :mod:`api.service.league` projects them from the match logs.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from api.service import roster as rules
from api.service.cache import Folded
from api.service.reader import roster_listing
from api.service.errors import BadRequest
from api.service.league import NAME, Projector, club_of, repair
from api.service.roster import Roster
from api.service.tokens import AuthError, hash_token, new_token
from api.service.writing import EventRefused, new_match_id
from engines import LEAGUES, get_engine
from engines.base import RuleViolation
from engines.league import average, order_rows
from engines.said import Said
from ledger import CLUB_LOG, Current, MatchNotFound, NewEvent, StoredEvent
from schemas import SchemaError, validate_club_event

if TYPE_CHECKING:
    from api.service import Service

ORGANISER_TYPES = frozenset(rules.ROSTER_TYPES - {"club_started", "match_added"})
"""What an organiser writes to a club's log directly; ``match_added`` is written by
:meth:`Clubs.start_match` and :meth:`Clubs.attach`, which check the match too."""


class ClubNotFound(MatchNotFound):
    """No club has that id (a 404, as for a match)."""


def _roster_of(events: Sequence[StoredEvent], roster: Roster | None = None) -> Roster:
    return rules.folded(roster, ((e.seq, e.type, e.data, e.at) for e in events))


class Clubs:
    """The clubs of one service (``service.clubs``)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.ledger = service.ledger
        self.projector = Projector(service)

    # ---- the log and the key

    def create(self, name: str, *, place: str | None = None, by: str = "") -> dict[str, Any]:
        """Start a club's log (``club_started``); return its id and key (the key is shown only now).

        Raises:
            SchemaError: the name or place does not fit.
        """
        data: dict[str, Any] = {"name": name}
        if place is not None:
            data["place"] = place
        validate_club_event("club_started", data)  # a refusal names the field ($.name), not a batch
        club_id, key = new_match_id(), new_token()
        result = self.ledger.create_match(
            club_id, game=CLUB_LOG, players=[], token_hash=hash_token(key), first=NewEvent("club_started", data), by=by
        )
        return {"id": club_id, "key": key, "version": result.version, "head": result.head}

    def _record_row(self, club_id: str) -> Any:
        try:
            record = self.ledger.get_match(club_id)
        except MatchNotFound:
            raise ClubNotFound(club_id) from None
        if record.game != CLUB_LOG:
            raise ClubNotFound(club_id)
        return record

    def authorize(self, club_id: str, key: str | None) -> None:
        """Check a club's key.

        Raises:
            ClubNotFound: no such club.
            AuthError: no key, or not this club's.
        """
        record = self._record_row(club_id)
        if not key:
            raise AuthError("auth.missing", Said("changing a club needs its key: send 'Authorization: Bearer <key>'"))
        if not hmac.compare_digest(hash_token(key), record.token_hash):
            raise AuthError("auth.wrong", Said("this key does not open this club"))

    def roster(self, club_id: str) -> Roster:
        """The club's roster at the head of its log (kept per version; only new events are folded).

        Raises:
            ClubNotFound: no such club.
        """
        cache_key = f"{club_id}\x00roster"
        try:
            version = self.ledger.version(club_id)
        except MatchNotFound:
            raise ClubNotFound(club_id) from None
        entry = self.service.cache.get(cache_key)
        known: Roster | None = entry.state if entry is not None else None
        if known is not None and known.version == version:
            return known
        if known is None:
            self._record_row(club_id)  # a match id is not a club
        after = known.version if known is not None and known.version < version else 0
        events = self.ledger.read(club_id, after=after)
        roster = _roster_of(events, known if after else None)
        self.service.cache.put(cache_key, Folded(roster.version, "", roster))
        return roster

    def record(
        self,
        club_id: str,
        events: Sequence[Mapping[str, Any]],
        *,
        key: str | None,
        by: str = "",
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Append roster events, each checked; all or nothing. Returns the version, head and
        the ids the batch gave (new players, seasons, nights).

        Raises:
            ClubNotFound, AuthError, EventRefused (schema or roster rule, with the batch index),
            ConcurrencyConflict.
        """
        self.authorize(club_id, key)
        for index, event in enumerate(events):
            if event.get("type") not in rules.ROSTER_TYPES:
                _check_shape(index, event.get("type", ""), event.get("data"))  # no such event: said by the schemas
            if event.get("type") not in ORGANISER_TYPES:
                error = RuleViolation(
                    "club.not_writable",
                    Said(
                        "%(type)s is not written by hand: write one of %(known)s",
                        type=str(event.get("type")),
                        known=", ".join(sorted(ORGANISER_TYPES)),
                    ),
                )
                raise EventRefused(index, error)
            _check_shape(index, event["type"], event.get("data"))
        return self._append(
            club_id, [NewEvent(e["type"], dict(e["data"])) for e in events], by, expected_version, idempotency_key, key
        )

    def _append(
        self,
        club_id: str,
        batch: Sequence[NewEvent],
        by: str,
        expected_version: int | None,
        idempotency_key: str | None,
        key: str | None,
    ) -> dict[str, Any]:
        outcome: dict[str, Roster] = {}
        presented = hash_token(key or "")

        def check(current: Current, stored: Sequence[StoredEvent]) -> None:
            if current.match is None or not hmac.compare_digest(current.match.token_hash, presented):
                raise AuthError("auth.wrong", Said("this key no longer opens this club: it was replaced"))
            before = self.roster(club_id)
            if before.version != int(current):
                before = _roster_of(self.ledger.read(club_id, upto=int(current)))
            new = rules.folded(before, ())
            for index, event in enumerate(stored):
                try:
                    rules.apply(new, event.type, event.data, event.seq, event.at)
                except RuleViolation as error:
                    raise EventRefused(index, error) from None
            outcome["roster"] = new
            outcome["before"] = before

        result = self.ledger.append(
            club_id, batch, by=by, expected_version=expected_version, key=idempotency_key, check=check
        )
        made: list[str] = []
        if "roster" in outcome:
            after, before = outcome["roster"], outcome["before"]
            self.service.cache.put(f"{club_id}\x00roster", Folded(after.version, "", after))
            made = (
                [p for p in after.players if p not in before.players]
                + [s for s in after.seasons if s not in before.seasons]
                + [n for n in after.nights if n not in before.nights]
            )
        return {"version": result.version, "head": result.head, "made": made}

    # ---- matches in a club

    def start_match(
        self,
        club_id: str,
        data: Mapping[str, Any],
        *,
        key: str | None,
        night: str | None = None,
        by: str = "",
        events: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """Start a match whose seats are the club's players (``data["players"]``: player ids).

        The match is recorded with the players' names as they are now; the club's log records
        which player holds each seat (``match_added``). Both are checked before either is written.
        ``events``, if given, are recorded after ``match_started`` in the same transaction, each
        checked as :meth:`Service.record` checks a batch (a match recorded whole, as
        :meth:`Service.start_match` takes it).

        Raises:
            ClubNotFound, AuthError, SchemaError, RuleViolation (the roster's or the game's).
        """
        self.authorize(club_id, key)
        roster = self.roster(club_id)
        seats = data.get("players")
        if not isinstance(seats, list) or not all(isinstance(p, str) for p in seats):
            raise BadRequest("club.seats", Said("players: one club player id per seat, in seat order (p1, p2, …)"))
        probe = rules.folded(roster, [(roster.version + 1, "match_added", _added("?", seats, night), "")])
        names = [probe.players[pid].name for pid in seats]
        started = self.service.start_match({**data, "players": names}, by=by, events=events)
        self._append(club_id, [NewEvent("match_added", _added(started["id"], seats, night))], by, None, None, key)
        return started

    def attach(
        self, club_id: str, match_id: str, players: Sequence[str], *, key: str | None, token: str | None, by: str = ""
    ) -> dict[str, Any]:
        """Add a casual match to the club: its write token and the club's key, one player id per seat.

        Raises:
            ClubNotFound, MatchNotFound, AuthError, RuleViolation (``club.seats``, the roster's).
        """
        self.authorize(club_id, key)
        record = self.service._fixed_record(match_id)
        if record.game == CLUB_LOG:
            raise MatchNotFound(match_id)
        self.service.authorize(record, token)
        if len(players) != len(record.players):
            raise RuleViolation(
                "club.seats",
                Said(
                    "the match has %(seats)s seats: name one club player for each, in seat order",
                    seats=len(record.players),
                ),
            )
        self.projector.catch_up()  # the club a match belongs to, as of now
        if club_of(self.ledger, match_id) not in (None, club_id):
            raise RuleViolation(
                "club.match_taken", Said("match %(match)s already belongs to another club", match=match_id)
            )
        data = _added(match_id, list(players), None)
        _check_shape(0, "match_added", data)
        try:
            return self._append(club_id, [NewEvent("match_added", data)], by, None, None, key)
        except EventRefused as refused:
            raise refused.error from None

    def seatable(self, club_id: str, seats: Sequence[str], night: str | None) -> None:
        """Check that these players may sit at a new match of the club (at ``night``).

        Raises:
            RuleViolation: the roster's refusal (a hidden or unknown player, a seat twice, no such night).
        """
        roster = self.roster(club_id)
        rules.folded(roster, [(roster.version + 1, "match_added", _added("?", seats, night), "")])

    def add_again(self, club_id: str, match_id: str, seats: Sequence[str], night: str | None, *, by: str = "") -> None:
        """Seat "Play again"'s new match as the last one was (the service vouches: it checked that
        match's token); a player hidden meanwhile is refused as in any new match."""
        self._record_row(club_id)
        batch = [NewEvent("match_added", _added(match_id, seats, night))]

        def check(current: Current, stored: Sequence[StoredEvent]) -> None:
            before = self.roster(club_id)
            if before.version != int(current):
                before = _roster_of(self.ledger.read(club_id, upto=int(current)))
            rules.folded(before, ((e.seq, e.type, e.data, e.at) for e in stored))

        self.ledger.append(club_id, batch, by=by, check=check)

    # ---- reads (the projection, caught up first)

    def club(self, club_id: str, *, key: str | None = None) -> dict[str, Any]:
        """The club: its roster (hidden players only for the key's holder), seasons, nights, games."""
        if key:
            self.authorize(club_id, key)
        roster = self.roster(club_id)
        record = self._record_row(club_id)
        self.projector.catch_up()  # the games come from its tables: asking each match's row cost O(matches)
        games = sorted({key.split("/")[2] for key, _ in self.ledger.scan_docs(NAME, f"t/{club_id}/")})
        return {
            "id": club_id,
            "name": roster.name,
            "place": roster.place,
            "version": record.version,
            "head": record.head,
            "createdAt": record.created_at,
            "players": [_player(p) for p in roster.listed(hidden=bool(key))],
            "seasons": [{"id": sid, **season} for sid, season in roster.seasons.items()],
            "nights": [
                {"id": nid, "name": n["name"], "date": n["date"], "matches": list(n["matches"])}
                for nid, n in roster.nights.items()
            ],
            "games": games,
            "matches": len(roster.matches),
        }

    def _game(self, match_id: str) -> str:
        record = self.service._fixed_record(match_id)
        return record.game

    def log(self, club_id: str) -> list[dict[str, Any]]:
        """The club's log as stored (envelopes with their hashes)."""
        self._record_row(club_id)
        return roster_listing(self.ledger.read(club_id))

    def table(self, club_id: str, game: str, period: str = "all", *, key: str | None = None) -> dict[str, Any]:
        """A league table of the club for one game over a period, ranked by the game's rule."""
        league = LEAGUES.get(game)
        if league is None:
            get_engine(game)  # raises UnknownGame in words
            raise AssertionError
        if key:  # hidden players only for the key's holder: the key is checked, not just present
            self.authorize(club_id, key)
        roster = self.roster(club_id)
        _check_period(roster, period)
        self.projector.catch_up()
        sums = self.ledger.docs(NAME, [f"t/{club_id}/{game}/{period}"]).get(f"t/{club_id}/{game}/{period}") or {}
        shown = {p.id for p in roster.listed(hidden=bool(key))}
        rows = [
            {"player": pid, "name": roster.players[pid].name, **_row(figures)}
            for pid, figures in sums.items()
            if pid in shown and figures.get("matches", 0) > 0
        ]
        return {
            "club": club_id,
            "game": game,
            "period": period,
            "rule": {
                "order": [{"figure": f, "direction": d} for f, d in league.order],
                "words": league.words,
                "unit": league.unit,
            },
            "rows": order_rows(league, rows),
        }

    def profile(self, club_id: str, player: str, *, key: str | None = None) -> dict[str, Any]:
        """A player's figures per game, with their best and worst matches, form and head-to-head."""
        if key:  # a hidden player only for the key's holder: the key is checked, not just present
            self.authorize(club_id, key)
        roster = self.roster(club_id)
        found = roster.players.get(player)
        if found is None or (found.hidden and not key):
            raise RuleViolation("club.unknown_player", Said("the club has no player %(player)s", player=player))
        person = roster.person(player)
        self.projector.catch_up()
        doc = self.ledger.docs(NAME, [f"p/{club_id}/{person}"]).get(f"p/{club_id}/{person}") or {}
        names = roster.names()
        games: dict[str, Any] = {}
        for game, mine in sorted(doc.items()):
            mine = repair(self.ledger, club_id, person, game, dict(mine), LEAGUES[game].better)
            sums = mine["sums"]
            if sums.get("matches", 0) <= 0:
                continue
            games[game] = {
                **_row(sums),
                "best": _extreme(mine.get("best")),
                "worst": _extreme(mine.get("worst")),
                "form": [{"date": d, "match": m, "won": w} for d, m, w in mine.get("form") or ()],
                "headToHead": [
                    {
                        "opponent": other,
                        "name": names.get(other, other),
                        "played": row[0],
                        "won": row[1],
                        "lost": row[2],
                    }
                    for other, row in sorted((mine.get("headToHead") or {}).items(), key=lambda item: -item[1][0])
                    if row[0] > 0
                ],
            }
        person_row = roster.players[person]
        return {
            "club": club_id,
            "player": person,
            "name": person_row.name,
            "nickname": person_row.nickname,
            "games": games,
        }

    def chart(self, club_id: str, player: str, game: str) -> list[tuple[str, str, int, bool]]:
        """The player's finished matches of one game, oldest first: (date, match, total, won)."""
        roster = self.roster(club_id)
        if player not in roster.players:
            raise RuleViolation("club.unknown_player", Said("the club has no player %(player)s", player=player))
        self.projector.catch_up()
        person = roster.person(player)
        links = self.ledger.scan_docs(NAME, f"pm/{club_id}/{person}/{game}/")
        points = []
        for link, doc in links:
            _, date, match_id = link.rsplit("/", 2)
            if doc.get("over"):
                points.append((date, match_id, int(doc["total"]), bool(doc["won"])))
        return points

    def matches(
        self,
        club_id: str,
        *,
        player: str | None = None,
        game: str | None = None,
        night: str | None = None,
        won: bool | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[list[dict[str, Any]], int]:
        """The club's matches, newest first, filtered by player (and game, won), or by night."""
        roster = self.roster(club_id)
        self.projector.catch_up()
        if player is not None:
            if player not in roster.players:
                raise RuleViolation("club.unknown_player", Said("the club has no player %(player)s", player=player))
            prefix = f"pm/{club_id}/{roster.person(player)}/" + (f"{game}/" if game else "")
            links = self.ledger.scan_docs(NAME, prefix)
            picked = [
                (key.rsplit("/", 2)[1], key.rsplit("/", 1)[1])
                for key, doc in links
                if won is None or (doc.get("over") and bool(doc["won"]) == won)
            ]
            ids = [m for _, m in sorted(picked, reverse=True)]
        else:
            ids = [m for m, seat in sorted(roster.matches.items(), key=lambda item: -item[1]["seq"])]
            if night is not None:
                ids = [m for m in ids if roster.matches[m].get("night") == night]
            if game is not None:
                ids = [m for m in ids if self._game(m) == game]
        page = ids[offset : offset + limit]
        docs = self.ledger.docs(NAME, [f"m/{m}" for m in page])
        names = roster.names()
        rows = []
        for match_id in page:
            record = self.service._fixed_record(match_id)
            doc = docs.get(f"m/{match_id}") or {}
            seats = roster.matches[match_id]["players"]
            rows.append(
                {
                    "id": match_id,
                    "game": record.game,
                    "players": [names.get(p, p) for p in seats],
                    "seats": list(seats),
                    "status": "over" if doc.get("over") else "playing",
                    "date": doc.get("date") or record.created_at[:10],
                    "night": roster.matches[match_id].get("night"),
                    "won": [i for i, f in enumerate(doc.get("figures") or ()) if f.get("won")],
                }
            )
        return rows, len(ids)

    def night(self, club_id: str, night_id: str) -> dict[str, Any]:
        """A club night: every table (match) with its standings, and the standings across tables."""
        roster = self.roster(club_id)
        found = roster.nights.get(night_id)
        if found is None:
            raise RuleViolation("club.unknown_night", Said("the club has no night %(night)s", night=night_id))
        names = roster.names()
        tables = []
        games: list[str] = []
        for match_id in found["matches"]:
            summary = self.service.match(match_id)
            seats = roster.matches[match_id]["players"]
            tables.append(
                {
                    "match": match_id,
                    "game": summary["game"],
                    "players": [names.get(p, p) for p in seats],
                    "seats": list(seats),
                    "status": summary["status"],
                    "version": summary["version"],
                    "standings": summary["standings"],
                    "end": summary["end"],
                }
            )
            if summary["game"] not in games:
                games.append(summary["game"])
        return {
            "club": club_id,
            "id": night_id,
            "count": roster.version + sum(table["version"] for table in tables),
            "name": found["name"],
            "date": found["date"],
            "tables": tables,
            "standings": {game: self.table(club_id, game, f"night:{night_id}") for game in games},
        }

    def night_versions(self, club_id: str, night_id: str) -> tuple[int, dict[str, int]]:
        """How far a night has come: the events stored across its tables and the club's log (it
        only grows: a live page's stream id), and each table's version.

        Raises:
            ClubNotFound, RuleViolation (``club.unknown_night``).
        """
        roster = self.roster(club_id)
        found = roster.nights.get(night_id)
        if found is None:
            raise RuleViolation("club.unknown_night", Said("the club has no night %(night)s", night=night_id))
        tables = {match_id: self.ledger.version(match_id) for match_id in found["matches"]}
        return roster.version + sum(tables.values()), tables

    def rebuild(self) -> dict[str, int]:
        """Rebuild every projection from the logs (after an upgrade that changes a figure)."""
        return self.projector.rebuild()


def _added(match_id: str, seats: Sequence[str], night: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {"match": match_id, "players": list(seats)}
    if night is not None:
        data["night"] = night
    return data


def _check_shape(index: int, type_: str, data: Any) -> None:
    try:
        validate_club_event(type_, data)
    except SchemaError as error:
        raise EventRefused(index, error) from None


def _check_period(roster: Roster, period: str) -> None:
    kind, _, name = period.partition(":")
    known = (
        period == "all"
        or (kind == "season" and name in roster.seasons)
        or (kind == "night" and name in roster.nights)
        or (kind == "tag" and bool(name))
    )
    if not known:
        raise BadRequest(
            "club.unknown_period",
            Said(
                "period %(period)s: write all, season:<id>, night:<id> or tag:<tag> with one the club has",
                period=period,
            ),
        )


def _player(player: rules.Player) -> dict[str, Any]:
    return {
        "id": player.id,
        "name": player.name,
        "nickname": player.nickname,
        "hidden": player.hidden,
        "matches": player.matches,
    }


def _row(sums: Mapping[str, int]) -> dict[str, Any]:
    """A table row's or a profile's figures (the average per finished match added)."""
    return {
        "matches": sums.get("matches", 0),
        "inPlay": sums.get("inPlay", 0),
        "played": sums.get("played", 0),
        "won": sums.get("won", 0),
        "hands": sums.get("hands", 0),
        "handsWon": sums.get("handsWon", 0),
        "gained": sums.get("gained", 0),
        "lost": sums.get("lost", 0),
        "net": sums.get("net", 0),
        "average": average(sums),
        "money": sums.get("money", 0),
        "lossDiff": sums.get("lossDiff", 0),
        "totalOver": sums.get("totalOver", 0),
    }


def _extreme(pair: Sequence[Any] | None) -> dict[str, Any] | None:
    return None if not pair else {"match": pair[0], "total": pair[1]}
