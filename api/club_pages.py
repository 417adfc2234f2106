"""Pages for clubs (issue 30): a club's roster, league tables, nights, profiles and matches.

Server-rendered from the same service the JSON API answers from (``service.clubs``); what an
organiser changes (players, nights, seasons, new tables) the page's scripts post to the JSON API
with the club's key, which lives in the browser's localStorage (``tanteo:clubkey:<id>``) and
travels between phones in a URL fragment (``#key=…``), as a match's write token does. The server
never sees a key in a page's address; the pages it draws are the public ones, and a script with
the key fills in what only the organiser sees (hidden players, the forms).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, render_template, request
from flask_babel import format_decimal, gettext

from api import rendered
from api.context import current_service
from api.i18n import say
from engines import ENGINES, LEAGUES, get_engine
from engines.base import RuleViolation
from ledger import MatchNotFound

bp = Blueprint("club_pages", __name__, template_folder="templates")

PAGE = 25
"""Matches per page of a club's match list."""


def _club(club_id: str) -> dict[str, Any]:
    """The club as anyone reads it (GET /clubs/{id}), or a 404 page."""
    try:
        return current_service().clubs.club(club_id)
    except MatchNotFound:  # ClubNotFound
        abort(404, gettext("no club %(club)s", club=club_id))


def _game_names() -> dict[str, str]:
    return {g: get_engine(g).describe()["name"] for g in ENGINES}


def _periods(club: dict[str, Any]) -> list[tuple[str, str]]:
    """The periods a league table can cover: all, each declared season, each night."""
    out = [("all", gettext("All matches"))]
    out += [(f"season:{s['id']}", gettext("Season: %(season)s", season=s["name"])) for s in club["seasons"]]
    out += [
        (f"night:{n['id']}", gettext("Night: %(night)s (%(date)s)", night=n["name"], date=n["date"]))
        for n in club["nights"]
    ]
    return out


def _chosen(club: dict[str, Any]) -> tuple[str | None, str]:
    """The game and period asked for in the query, else the club's first game and all matches."""
    games = club.get("games") or []
    game = request.args.get("game") or (games[0] if games else None)
    if game not in ENGINES:
        game = games[0] if games else None
    period = request.args.get("period") or "all"
    if period not in {p for p, _ in _periods(club)}:
        period = "all"
    return game, period


def _rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Match rows with their winners' names (``won`` holds seat numbers)."""
    return [
        {**row, "winners": [row["players"][s] for s in row.get("won") or [] if 0 <= s < len(row["players"])]}
        for row in rows
    ]


def _names(club: dict[str, Any]) -> dict[str, str]:
    return {p["id"]: p["name"] for p in club["players"]}


@bp.get("/clubs/new")
def new_club() -> str:
    """Name the club (and its place); the page posts to POST /clubs and keeps the key."""
    return render_template("club_new.html")


@bp.get("/c/<club_id>")
def club(club_id: str) -> str:
    """The club: roster, league table (game and period chosen), nights and seasons, matches."""
    found = _club(club_id)
    game, period = _chosen(found)
    table = current_service().clubs.table(club_id, game, period) if game else None
    try:
        page = max(1, int(request.args.get("page", "1")))
    except ValueError:
        page = 1
    rows, total = current_service().clubs.matches(club_id, limit=PAGE, offset=(page - 1) * PAGE)
    return render_template(
        "club.html",
        club=found,
        game=game,
        period=period,
        periods=_periods(found),
        table=table,
        figures=_figures(table),
        games=_game_names(),
        all_games=[(g, get_engine(g).describe()) for g in ENGINES],
        rows=_rows(rows),
        total=total,
        page=page,
        pages=max(1, (total + PAGE - 1) // PAGE),
    )


def _figures(table: dict[str, Any] | None) -> list[str]:
    """The columns a league table shows: the ranking rule's figures first (El Roby's money, La
    Cabra's loss-point difference among them), then played, won and net: few enough for a phone;
    the profile has every figure."""
    if not table:
        return []
    out: list[str] = []
    for item in table["rule"]["order"]:
        if item["figure"] not in out:
            out.append(item["figure"])
    for figure in ("played", "won", "net"):
        if figure not in out:
            out.append(figure)
    return out


@bp.get("/c/<club_id>/table")
def printable_table(club_id: str) -> str:
    """A league table to print (or to save as CSV through the JSON API)."""
    found = _club(club_id)
    game, period = _chosen(found)
    if not game:
        abort(404, gettext("%(club)s has no match yet", club=found["name"]))
    table = current_service().clubs.table(club_id, game, period)
    return render_template(
        "club_table.html",
        club=found,
        game=game,
        period=period,
        period_name=dict(_periods(found))[period],
        table=table,
        figures=_figures(table),
        games=_game_names(),
    )


@bp.get("/c/<club_id>/n/<night_id>")
def night(club_id: str, night_id: str) -> Response:
    """A club night: every table live, the standings across tables; ``?screen=1`` for a projector.

    Drawn once per state of the night (its count: the club's log and every table's events, which
    only grow), language and view (api/rendered.py): the projector and every phone share it."""
    try:
        count, _ = current_service().clubs.night_versions(club_id, night_id)
    except MatchNotFound:  # ClubNotFound
        abort(404, gettext("no club %(club)s", club=club_id))
    except RuleViolation:  # club.unknown_night
        abort(404, gettext("no night %(night)s in this club", night=night_id))
    screen = request.args.get("screen") == "1"

    def draw() -> tuple[str, int]:
        found = _club(club_id)
        evening = current_service().clubs.night(club_id, night_id)
        tables = [{**table, "figures": _figures(table)} for table in evening["standings"].values()]
        html = render_template(
            "club_night.html",
            club=found,
            night=evening,
            standings=tables,
            games=_game_names(),
            all_games=[(g, get_engine(g).describe()) for g in ENGINES],
            screen=screen,
        )
        return html, int(evening["count"])

    # the club's pages are the public ones (its key never reaches the server in a page's address)
    return rendered.page("night", f"{club_id}/{night_id}", count, "open", draw, view="screen" if screen else "")


@bp.get("/c/<club_id>/p/<player_id>")
def player(club_id: str, player_id: str) -> str:
    """A player's profile: per game the figures, each linked to the matches behind it, and a chart."""
    found = _club(club_id)
    try:
        profile = current_service().clubs.profile(club_id, player_id)
    except RuleViolation:  # club.unknown_player (or hidden)
        abort(404, gettext("no player %(player)s in this club", player=player_id))
    leagues = {g: LEAGUES[g] for g in profile["games"] if g in LEAGUES}
    return render_template(
        "club_player.html",
        club=found,
        profile=profile,
        games=_game_names(),
        units={g: say(league.unit) for g, league in leagues.items()},
        ranked={g: {figure for figure, _ in league.order} for g, league in leagues.items()},
    )


@bp.get("/c/<club_id>/matches")
def matches(club_id: str) -> str:
    """The club's matches, filtered by player, game, night, won or lost, and an opponent."""
    found = _club(club_id)
    names = _names(found)
    player_id = request.args.get("player") or None
    game = request.args.get("game") or None
    night_id = request.args.get("night") or None
    opponent = request.args.get("against") or None
    won_arg = request.args.get("won")
    won = True if won_arg == "true" else False if won_arg == "false" else None
    if player_id not in names:
        player_id = None
    if game not in ENGINES:
        game = None
    if opponent not in names:
        opponent = None
    try:
        page = max(1, int(request.args.get("page", "1")))
    except ValueError:
        page = 1
    if opponent:  # the API filters by one player; the pair is found among that player's matches
        every, _ = current_service().clubs.matches(
            club_id, player=player_id, game=game, night=night_id, won=won, limit=10000
        )
        paired = [row for row in every if opponent in row["seats"]]
        total = len(paired)
        rows = paired[(page - 1) * PAGE : page * PAGE]
    else:
        rows, total = current_service().clubs.matches(
            club_id, player=player_id, game=game, night=night_id, won=won, limit=PAGE, offset=(page - 1) * PAGE
        )
    query = {
        k: v
        for k, v in {"player": player_id, "game": game, "night": night_id, "against": opponent, "won": won_arg}.items()
        if v
    }
    return render_template(
        "club_matches.html",
        club=found,
        rows=_rows(rows),
        total=total,
        page=page,
        pages=max(1, (total + PAGE - 1) // PAGE),
        query=query,
        filters=_filter_words(names, player_id, game, opponent, won, night_id, found),
        games=_game_names(),
    )


def _filter_words(
    names: dict[str, str],
    player_id: str | None,
    game: str | None,
    opponent: str | None,
    won: bool | None,
    night_id: str | None,
    club: dict[str, Any],
) -> list[str]:
    """What the list is filtered by, each as a phrase of its own."""
    out = []
    if player_id:
        out.append(gettext("Player: %(player)s", player=names[player_id]))
    if game:
        out.append(gettext("Game: %(game)s", game=get_engine(game).describe()["name"]))
    if opponent:
        out.append(gettext("Against: %(player)s", player=names[opponent]))
    if won is True:
        out.append(gettext("Won only"))
    elif won is False:
        out.append(gettext("Not won only"))
    if night_id:
        nights = {n["id"]: n["name"] for n in club["nights"]}
        out.append(gettext("Night: %(night)s", night=nights.get(night_id, night_id)))
    return out


@bp.context_processor
def club_words() -> dict[str, Any]:
    """The words of a league table's figures (column heads, tie-breaks), in the reader's language."""
    heads = {
        "played": gettext("Played"),
        "won": gettext("Won"),
        "hands": gettext("Hands"),
        "handsWon": gettext("Hands won"),
        "gained": gettext("Gained"),
        "lost": gettext("Lost"),
        "net": gettext("Net"),
        "average": gettext("Average"),
        "money": gettext("Money"),
        "lossDiff": gettext("Loss-point difference"),
    }
    directions = {"desc": gettext("most first"), "asc": gettext("fewest first")}
    return {"heads": heads, "directions": directions, "num": _num}


def _num(value: Any) -> str:
    """A figure as the reader's language writes it (averages with one decimal); a dash for none."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return str(format_decimal(round(value, 1), format="#,##0.0"))
    return str(format_decimal(value))
