"""Clubs over HTTP: the roster log, matches in a club, league tables, profiles, nights, series.

Every view is a thin call into :class:`api.service.clubs.Clubs` (or :class:`api.service.Service`
for "Play again" and series); the errors map in :mod:`api.errors` like a match's.
"""

from __future__ import annotations

from typing import Any

from flask import Response, render_template, url_for
from flask.views import MethodView
from marshmallow import RAISE, Schema, fields, validate

from api.context import current_service
from api.i18n import current_language
from api.schemas import EventIn, WholeNumber
from api.service import transfer
from api.viewer import totals_chart
from engines import get_engine
from flask_babel import gettext
from api.web import Blueprint, bearer_token, etag, expected_version, idempotency_key, recorder
from schemas import MAX_INTEGER

blp = Blueprint("clubs", __name__, description="Clubs: roster, matches, league tables, profiles, nights and series")

CSV = "text/csv"

EXAMPLE_CLUB = {
    "id": "q3Xc0aBfT1sW",
    "name": "Casal de Gràcia",
    "place": "Gràcia",
    "version": 7,
    "head": "4f96ed18…",
    "createdAt": "2026-11-26T19:02:11.200Z",
    "players": [
        {"id": "p1", "name": "Núria", "nickname": None, "hidden": False, "matches": 3},
        {"id": "p2", "name": "Jordi", "nickname": "el Gran", "hidden": False, "matches": 3},
    ],
    "seasons": [{"id": "s1", "name": "Tardor 2026", "from": "2026-09-01", "to": "2026-12-31"}],
    "nights": [{"id": "n1", "name": "Dijous", "date": "2026-11-26", "matches": ["Dy8vJXhjJiBy"]}],
    "games": ["cau-robat"],
    "matches": 3,
}
EXAMPLE_TABLE = {
    "club": "q3Xc0aBfT1sW",
    "game": "cau-robat",
    "period": "all",
    "rule": {
        "order": [{"figure": "won", "direction": "desc"}, {"figure": "handsWon", "direction": "desc"}],
        "words": "matches won, then hands won",
        "unit": "hand wins",
    },
    "rows": [
        {
            "rank": 1,
            "player": "p1",
            "name": "Núria",
            "matches": 3,
            "inPlay": 0,
            "played": 3,
            "won": 2,
            "hands": 11,
            "handsWon": 6,
            "gained": 6,
            "lost": 0,
            "net": 6,
            "average": 2.0,
            "money": 0,
            "lossDiff": 0,
            "totalOver": 6,
            "tied": False,
        },
    ],
}


class ClubIn(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(required=True, metadata={"description": "what the club is called"})
    place = fields.String(metadata={"description": "where it meets (optional)"})


class ClubCreated(Schema):
    id = fields.String(required=True)
    key = fields.String(
        required=True, metadata={"description": "the club's key: send it as 'Authorization: Bearer <key>'"}
    )
    version = fields.Integer(required=True)
    head = fields.String()


class RosterBody(Schema):
    class Meta:
        unknown = RAISE

    events = fields.List(fields.Nested(EventIn), required=True, validate=validate.Length(min=1, max=1000))
    expectedVersion = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=MAX_INTEGER))


class RosterAppended(Schema):
    version = fields.Integer(required=True)
    head = fields.String(required=True)
    made = fields.List(fields.String(), metadata={"description": "the ids the batch gave: players, seasons, nights"})


class ClubMatchBody(Schema):
    class Meta:
        unknown = RAISE

    match = fields.Dict(
        required=True, metadata={"description": "the match_started data, its players given as club player ids"}
    )
    night = fields.String(validate=validate.Length(max=12), metadata={"description": "the club night (n1, …)"})


class AttachBody(Schema):
    class Meta:
        unknown = RAISE

    match = fields.String(required=True, validate=validate.Length(min=1, max=64))
    token = fields.String(
        required=True, validate=validate.Length(min=1, max=200), metadata={"description": "the match's write token"}
    )
    players = fields.List(
        fields.String(validate=validate.Length(max=12)), required=True, validate=validate.Length(min=2, max=10)
    )


class TableQuery(Schema):
    game = fields.String(required=True, validate=validate.Length(max=40))
    period = fields.String(load_default="all", validate=validate.Length(max=60))
    format = fields.String(load_default="json", validate=validate.OneOf(["json", "csv"]))


class ClubMatchesQuery(Schema):
    player = fields.String(validate=validate.Length(max=12))
    game = fields.String(validate=validate.Length(max=40))
    night = fields.String(validate=validate.Length(max=12))
    won = fields.Boolean()
    limit = WholeNumber(load_default=50, validate=validate.Range(min=1, max=500))
    offset = WholeNumber(load_default=0, validate=validate.Range(min=0, max=MAX_INTEGER))


class ChartQuery(Schema):
    game = fields.String(required=True, validate=validate.Length(max=40))


def _key() -> str | None:
    return bearer_token()


@blp.route("/clubs")
class Clubs(MethodView):
    @blp.arguments(ClubIn(), error_status_code=400, example={"name": "Casal de Gràcia", "place": "Gràcia"})
    @blp.response(201, ClubCreated, example={"id": "q3Xc0aBfT1sW", "key": "Jb1…", "version": 1, "head": "…"})
    @blp.alt_response(400, schema="Problem", description="malformed JSON or a name that does not fit")
    def post(self, body: dict[str, Any]) -> Any:
        """Start a club; returns its id and key (shown only now: keep it)."""
        created = current_service().clubs.create(body["name"], place=body.get("place"), by=recorder())
        return created, 201, {"Location": url_for("clubs.Club", club_id=created["id"]), **etag(created["version"])}


@blp.route("/clubs/<club_id>")
class Club(MethodView):
    @blp.response(200, example=EXAMPLE_CLUB)
    @blp.alt_response(404, schema="Problem")
    def get(self, club_id: str) -> Any:
        """The club: players (hidden ones only with the key), seasons, nights and the games it plays."""
        return current_service().clubs.club(club_id, key=_key())


@blp.route("/clubs/<club_id>/events")
class ClubEvents(MethodView):
    @blp.arguments(
        RosterBody(),
        error_status_code=400,
        example={
            "events": [
                {"type": "player_added", "data": {"name": "Núria"}},
                {"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}},
            ]
        },
    )
    @blp.response(201, RosterAppended, example={"version": 9, "head": "…", "made": ["p3", "n2"]})
    @blp.alt_response(400, schema="Problem", description="malformed JSON or a schema violation (with its path)")
    @blp.alt_response(401, schema="Problem", description="no club key")
    @blp.alt_response(403, schema="Problem", description="not this club's key")
    @blp.alt_response(404, schema="Problem")
    @blp.alt_response(409, schema="Problem", description="stale expected version")
    @blp.alt_response(
        422, schema="Problem", description="a change the roster refuses (club.merge_self, club.name_taken …)"
    )
    @blp.doc(security=[{"bearer": []}])
    def post(self, body: dict[str, Any], club_id: str) -> Any:
        """Change the roster (add, rename, merge, hide or show players; declare a season; open a night), all or nothing."""
        result = current_service().clubs.record(
            club_id,
            body["events"],
            key=_key(),
            by=recorder(),
            expected_version=expected_version(body.get("expectedVersion")),
            idempotency_key=idempotency_key(),
        )
        return result, 201, etag(result["version"])

    @blp.response(200)
    @blp.alt_response(404, schema="Problem")
    def get(self, club_id: str) -> Any:
        """The club's log with its hashes (it verifies as a match's does)."""
        events = current_service().clubs.log(club_id)
        return {"events": events, "version": len(events)}


@blp.route("/clubs/<club_id>/matches")
class ClubMatches(MethodView):
    @blp.arguments(
        ClubMatchBody(),
        error_status_code=400,
        example={"match": {"game": "cau-robat", "players": ["p1", "p2", "p3"]}, "night": "n1"},
    )
    @blp.response(201, example={"id": "Dy8vJXhjJiBy", "token": "…", "version": 1, "head": "…"})
    @blp.alt_response(401, schema="Problem", description="no club key")
    @blp.alt_response(422, schema="Problem", description="a hidden or unknown player, or the game's rules")
    @blp.doc(security=[{"bearer": []}])
    def post(self, body: dict[str, Any], club_id: str) -> Any:
        """Start a match of the club: its seats are club players; returns the match's id and write token."""
        created = current_service().clubs.start_match(
            club_id, body["match"], key=_key(), night=body.get("night"), by=recorder()
        )
        return created, 201, {"Location": url_for("matches.Match", match_id=created["id"]), **etag(created["version"])}

    @blp.arguments(ClubMatchesQuery(), location="query", error_status_code=400)
    @blp.response(
        200,
        example={
            "matches": [
                {
                    "id": "Dy8vJXhjJiBy",
                    "game": "cau-robat",
                    "players": ["Núria", "Jordi", "Pau"],
                    "seats": ["p1", "p2", "p3"],
                    "status": "over",
                    "date": "2026-11-26",
                    "night": "n1",
                    "won": [0],
                }
            ],
            "total": 1,
        },
    )
    def get(self, query: dict[str, Any], club_id: str) -> Any:
        """The club's matches, newest first: a player's (and of one game, won or lost), or a night's."""
        rows, total = current_service().clubs.matches(club_id, **query)
        return {"matches": rows, "total": total}


@blp.route("/clubs/<club_id>/attach")
class Attach(MethodView):
    @blp.arguments(
        AttachBody(),
        error_status_code=400,
        example={"match": "Dy8vJXhjJiBy", "token": "…", "players": ["p1", "p2", "p3"]},
    )
    @blp.response(201, RosterAppended)
    @blp.alt_response(403, schema="Problem", description="not this club's key, or not the match's token")
    @blp.alt_response(422, schema="Problem", description="a seat count that does not fit, or a match of another club")
    @blp.doc(security=[{"bearer": []}])
    def post(self, body: dict[str, Any], club_id: str) -> Any:
        """Add a casual match to the club (the club's key, and the match's token in the body), one player per seat."""
        result = current_service().clubs.attach(
            club_id, body["match"], body["players"], key=_key(), token=body["token"], by=recorder()
        )
        return result, 201


@blp.route("/clubs/<club_id>/table")
class Table(MethodView):
    @blp.arguments(TableQuery(), location="query", error_status_code=400)
    @blp.response(200, example=EXAMPLE_TABLE)
    @blp.alt_response(400, schema="Problem", description="an unknown period")
    def get(self, query: dict[str, Any], club_id: str) -> Any:
        """A league table: one game, over all time, a season, a night or a tag, ranked by the game's rule (format=csv: a spreadsheet)."""
        service = current_service()
        if query["format"] == "csv":
            text = transfer.table_csv(service, club_id, query["game"], query["period"], current_language())
            return Response(
                text.encode("utf-8"),
                mimetype=CSV,
                headers={"Content-Disposition": f'attachment; filename="{club_id}-{query["game"]}.csv"'},
            )
        return service.clubs.table(club_id, query["game"], query["period"], key=_key())


@blp.route("/clubs/<club_id>/players/<player_id>")
class Profile(MethodView):
    @blp.response(200)
    @blp.alt_response(422, schema="Problem", description="no such player")
    def get(self, club_id: str, player_id: str) -> Any:
        """A player's profile per game: matches, wins, hands, points won and lost, averages, best and worst, form, head-to-head."""
        return current_service().clubs.profile(club_id, player_id, key=_key())


@blp.route("/clubs/<club_id>/players/<player_id>/chart.svg")
class Chart(MethodView):
    @blp.arguments(ChartQuery(), location="query", error_status_code=400)
    @blp.doc(
        responses={
            "200": {"description": "the player's final totals, match by match", "content": {"image/svg+xml": {}}}
        }
    )
    def get(self, query: dict[str, Any], club_id: str, player_id: str) -> Response:
        """The profile's chart, drawn by the server: the final total of each finished match, oldest first."""
        service = current_service()
        clubs = service.clubs
        points = clubs.chart(club_id, player_id, query["game"])
        name = clubs.roster(club_id).names()[player_id]
        return Response(
            profile_chart(points, name, query["game"]), mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"}
        )


def profile_chart(points: list[tuple[str, str, int, bool]], name: str, game: str) -> str:
    """Draw a profile's chart: the final total of each finished match, a filled dot where it was won."""
    rows = [{"hand": i, "totals": [total]} for i, (_date, _match, total, _won) in enumerate(points, 1)]
    chart = totals_chart(rows, [{"label": name}]) or totals_chart([{"hand": 0, "totals": [0]}], [{"label": name}])
    assert chart is not None
    span = chart["bottom"] - chart["top"]
    values = [p[2] for p in points] or [0]
    low, high = min(0, *values), max(0, *values)
    high = high if high != low else low + 1
    dots = [
        {
            "x": chart["hands"][i]["x"],
            "y": chart["top"] + span * (1 - (total - low) / (high - low)),
            "won": won,
            "words": gettext("%(date)s: %(total)s, won", date=date, total=total)
            if won
            else gettext("%(date)s: %(total)s, not won", date=date, total=total),
        }
        for i, (date, _match, total, won) in enumerate(points)
    ]
    totals = ", ".join(str(p[2]) for p in points) or gettext("none yet")
    return render_template(
        "profile_chart.svg",
        chart=chart,
        dots=dots,
        player=name,
        game=get_engine(game).describe()["name"],
        totals=totals,
    )


@blp.route("/clubs/<club_id>/nights/<night_id>")
class Night(MethodView):
    @blp.response(200)
    @blp.alt_response(422, schema="Problem", description="no such night")
    def get(self, club_id: str, night_id: str) -> Any:
        """A club night: each table's standings and the standings across tables, per game."""
        return current_service().clubs.night(club_id, night_id)


@blp.route("/clubs/<club_id>/export")
class ClubExport(MethodView):
    @blp.doc(
        responses={
            "200": {
                "description": "JSON Lines: the club's log, then each of its matches' logs",
                "content": {"application/x-ndjson": {}},
            }
        }
    )
    def get(self, club_id: str) -> Response:
        """The club's archive: its log and its matches', as JSON Lines (POST /matches/import takes it back)."""
        service = current_service()
        text = transfer.club_archive(service, club_id)
        return Response(
            text.encode("utf-8"),
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="club-{club_id}.jsonl"'},
        )


@blp.route("/matches/<match_id>/again")
class Again(MethodView):
    @blp.response(
        201,
        example={
            "id": "XeeS1iAUeoA3",
            "token": "…",
            "version": 1,
            "head": "…",
            "series": {"id": "A_OoH13CdcQg", "number": 2, "previous": "A_OoH13CdcQg", "dealer": 3},
            "club": None,
        },
    )
    @blp.alt_response(401, schema="Problem", description="no write token")
    @blp.alt_response(422, schema="Problem", description="the match is not over (series.not_over)")
    @blp.doc(security=[{"bearer": []}])
    def post(self, match_id: str) -> Any:
        """Play again: start the next match with the same players, options and club; the deal goes on where the rules say."""
        created = current_service().play_again(match_id, token=bearer_token(), by=recorder())
        return created, 201, {"Location": url_for("matches.Match", match_id=created["id"])}


@blp.route("/series/<series_id>")
class Series(MethodView):
    @blp.response(200)
    @blp.alt_response(404, schema="Problem")
    def get(self, series_id: str) -> Any:
        """A series (its id is its first match's): its matches in order and each seat's matches won."""
        return current_service().series(series_id)
