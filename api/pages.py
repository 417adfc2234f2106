"""Pages for people: the scorer's app, server-rendered, on top of the same service and JSON API.

One template per page (``api/templates``) on a base layout; the interactive parts are small
ES modules (``api/static``) that call the public JSON API with the match's write token, as a
script would. Nothing is loaded from outside the machine. The write token never reaches a
URL the server sees: it lives in the browser's localStorage and travels between phones in
a URL fragment (``#token=…``), which browsers do not send: the hand-over QR code that carries
it is drawn in the browser (``api/static/qr.js``), never here.

Addresses meant for another phone or for paper (the hand-over code, the printed sheet's link
and code) are built on the configured public address (``tanteo serve --public-url``,
``TANTEO_PUBLIC_URL``), never on the request's ``Host`` header, which any client may forge.
"""

from __future__ import annotations

import io
from datetime import date
from typing import Any

import segno
from flask import Blueprint, abort, current_app, render_template, request
from flask_babel import format_date, gettext

from api import viewer
from api.context import current_service
from engines import ENGINES, get_engine
from ledger import MatchNotFound

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/static")

STATUSES = ("playing", "over")


def qr_svg(text: str, title: str) -> str:
    """Return a QR code for ``text`` as inline SVG (segno, drawn here, no image fetched); its size is
    the stylesheet's (a viewBox, no width or height: a fixed size cut off the edge of longer codes)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(
        out,
        kind="svg",
        xmldecl=False,
        svgns=True,
        scale=5,
        border=2,
        omitsize=True,
        title=title,
        dark="#000",
        light="#fff",
        encoding="utf-8",
    )
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
    items, total = current_service().list_matches(
        game=game, player=player, status=status, place=place, tag=tag, limit=50
    )
    rows = [
        {
            **item,
            "name": get_engine(item["game"]).describe()["name"],
            "lastChange": _last_change(item["id"], item["version"]),
        }
        for item in items
    ]
    games = [(g, get_engine(g).describe()["name"]) for g in ENGINES]
    return render_template(
        "home.html",
        rows=rows,
        total=total,
        games=games,
        statuses=STATUSES,
        chosen={
            "game": game or "",
            "player": player or "",
            "status": status or "",
            "place": place or "",
            "tag": tag or "",
        },
    )


def configured_public_url() -> str | None:
    """The address other phones reach this server at, as configured (``TANTEO_PUBLIC_URL``), or None."""
    return current_app.config.get("TANTEO_PUBLIC_URL") or None


@bp.get("/new")
def new_match() -> str:
    """Pick the game, seat the players, choose options; the page posts to POST /matches."""
    return render_template("new.html", public_url=configured_public_url())


@bp.get("/m/<match_id>/score")
def score(match_id: str) -> str:
    """The scorer: the score sheet, a hand from the sheet, move by move, corrections, offline queue."""
    summary = _summary(match_id)
    return render_template(
        "score.html",
        match=summary,
        opening=_about(summary),
        game=get_engine(summary["game"]).describe(),
        public_url=configured_public_url(),  # the seat keys' codes name it (issue 31)
    )


@bp.get("/m/<match_id>/sheet")
def sheet(match_id: str) -> str:
    """The printable score sheet, with the chain's head hash and a QR code to the match's public page.

    The match page (``/m/{id}``) is the public audit for people: every score recomputed from the
    record beside what the table wrote, with the same head hash printed here.
    """
    summary = _summary(match_id)
    audit = current_service().audit(match_id)
    public = configured_public_url()
    audit_url = f"{public or ''}/m/{match_id}"
    proof_url = f"{audit_url}?head={audit['chain']['head']}"  # the code proves the head printed beside it
    standings = audit["standings"]
    columns = [{"label": " + ".join(s["names"]) if "names" in s else s["name"]} for s in standings]
    winners = audit["end"].get("winners") or []
    confirmations = [  # who confirmed each hand from their phone, and who is still needed (issue 31)
        {"hand": h["hand"], "words": words}
        for h in audit["hands"]
        if (words := viewer.confirmation_words(h, summary["players"]))["confirmed"] or words["needs"]
    ]
    return render_template(
        "sheet.html",
        share=viewer.share_facts(summary, audit),
        match=summary,
        opening=_about(summary),
        audit=audit,
        columns=columns,
        confirmations=confirmations,
        winners=[columns[w]["label"] for w in winners if 0 <= w < len(columns)],
        game=get_engine(summary["game"]).describe(),
        audit_url=audit_url,
        proof_url=proof_url,
        public_url=public,
        started=format_date(date.fromisoformat(summary["createdAt"][:10]), "medium"),
        qr=qr_svg(proof_url, gettext("QR code: this match's public audit page and the head hash printed here")),
    )


def _summary(match_id: str) -> dict[str, Any]:
    try:
        return current_service().match(match_id)
    except MatchNotFound:
        abort(404, gettext("no match %(match)s", match=match_id))
