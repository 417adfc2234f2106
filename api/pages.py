"""Pages for people: the scorer's app, server-rendered, on top of the same service and JSON API.

One template per page (``api/templates``) on a base layout; the interactive parts are small
ES modules (``api/static``) that call the public JSON API with the match's write token, as a
script would. Nothing is loaded from outside the machine. The write token never reaches a
URL the server sees: it lives in the browser's localStorage and travels between phones in
a URL fragment (``#token=…``), which browsers do not send.
"""

from __future__ import annotations

import io
from typing import Any

import segno
from flask import Blueprint, Response, abort, render_template, request

from api.context import current_service
from api.web import load_json
from engines import ENGINES, get_engine
from ledger import MatchNotFound

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/static")

STATUSES = ("playing", "over")


def qr_svg(text: str, title: str) -> str:
    """Return a QR code for ``text`` as inline SVG (segno, drawn here, no image fetched)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", xmldecl=False, svgns=True, scale=5, border=2,
                                     title=title, dark="#000", light="#fff", encoding="utf-8")
    return out.getvalue().decode("utf-8").replace("<svg ", '<svg role="img" ', 1)


def _about(summary: dict[str, Any]) -> dict[str, Any]:
    """What the match is called: title, date, place and tags (match_started, as amended)."""
    return {k: summary.get(k) for k in ("title", "date", "place", "tags")}


def _last_change(match_id: str, version: int) -> str:
    last = current_service().events(match_id, after=version - 1, limit=1)[0]
    return str(last[0]["at"]) if last else ""


@bp.get("/")
def home() -> str:
    """Recent matches with filters, and the way to start a new one."""
    game = request.args.get("game") or None
    player = (request.args.get("player") or "").strip() or None
    place = (request.args.get("place") or "").strip() or None
    tag = (request.args.get("tag") or "").strip() or None
    status = request.args.get("status") or None
    if game not in ENGINES:
        game = None
    if status not in STATUSES:
        status = None
    items, total = current_service().list_matches(game=game, player=player, status=status, place=place, tag=tag, limit=50)
    rows = [{**item, "name": get_engine(item["game"]).describe()["name"], "lastChange": _last_change(item["id"], item["version"])}
            for item in items]
    games = [(g, get_engine(g).describe()["name"]) for g in ENGINES]
    return render_template("home.html", rows=rows, total=total, games=games, statuses=STATUSES,
                           chosen={"game": game or "", "player": player or "", "status": status or "",
                                   "place": place or "", "tag": tag or ""})


@bp.get("/new")
def new_match() -> str:
    """Pick the game, seat the players, choose options; the page posts to POST /matches."""
    return render_template("new.html")


@bp.get("/m/<match_id>/score")
def score(match_id: str) -> str:
    """The scorer: the score sheet, a hand from the sheet, move by move, corrections, offline queue."""
    summary = _summary(match_id)
    return render_template("score.html", match=summary, opening=_about(summary),
                           game=get_engine(summary["game"]).describe())


@bp.get("/m/<match_id>/sheet")
def sheet(match_id: str) -> str:
    """The printable score sheet, with the chain's head hash and a QR code to the match's public page.

    The match page (``/m/{id}``) is the public audit for people: every score recomputed from the
    record beside what the table wrote, with the same head hash printed here.
    """
    summary = _summary(match_id)
    audit = current_service().audit(match_id)
    audit_url = request.host_url.rstrip("/") + f"/m/{match_id}"
    standings = audit["standings"]
    columns = [{"label": " + ".join(s["names"]) if "names" in s else s["name"]} for s in standings]
    winners = audit["end"].get("winners") or []
    return render_template("sheet.html", match=summary, opening=_about(summary), audit=audit, columns=columns,
                           winners=[columns[w]["label"] for w in winners if 0 <= w < len(columns)],
                           game=get_engine(summary["game"]).describe(), audit_url=audit_url,
                           qr=qr_svg(audit_url, "QR code: this match's public audit page"))


@bp.post("/qr")
def qr() -> Response:
    """Draw a QR code for a text sent in the body (never in the URL, so a token stays out of logs)."""
    body = load_json(request.get_data()) if request.is_json else None  # the one strict loader: depth, size, NUL
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str) or not 0 < len(text) <= 600:
        abort(400, "send {\"text\": …} with 1 to 600 characters")
    response = Response(qr_svg(text, "QR code: open this match for scoring on another phone"), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


def _summary(match_id: str) -> dict[str, Any]:
    try:
        return current_service().match(match_id)
    except MatchNotFound:
        abort(404, f"no match {match_id}")
