"""POST /matches, GET /matches, GET /matches/{id}."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

from api import openapi
from api.context import current_service
from api.schemas import (
    MatchCreated,
    MatchList,
    MatchListQuery,
    MatchStartBody,
    MatchSummary,
    TokenRotated,
    match_filters,
)
from api.web import Blueprint, bearer_token, etag, read_headers, recorder

blp = Blueprint("matches", __name__, description="Start, list and summarise matches")


@blp.route("/matches")
class Matches(MethodView):
    @blp.arguments(
        MatchStartBody(),
        error_status_code=400,
        description="the match_started data (VOCABULARY.md §2), checked by the game's JSON Schema",
    )
    @blp.response(201, MatchCreated)
    @blp.alt_response(400, schema="Problem", description="malformed JSON or schema violation")
    @blp.alt_response(422, schema="Problem", description="options or players break the game's rules")
    @blp.alt_response(413, schema="Problem", description="the body is over the size limit (1 MiB by default)")
    @blp.doc(requestBody=openapi.match_request())
    def post(self, body: dict[str, Any]) -> Any:
        """Start a match; returns its id and the write token."""
        created = current_service().start_match(body, by=recorder())
        return created, 201, {"Location": url_for("matches.Match", match_id=created["id"]), **etag(created["version"])}

    @blp.arguments(MatchListQuery(), location="query", error_status_code=400)
    @blp.response(200, MatchList)
    def get(self, query: dict[str, Any]) -> Any:
        """List matches, newest first, filtered by game, player, status, tag, place and date."""
        page, per_page = query.pop("page"), query.pop("perPage")
        items, total = current_service().list_matches(
            limit=per_page, offset=(page - 1) * per_page, **match_filters(query)
        )
        return {"items": items, "total": total, "page": page, "perPage": per_page}


@blp.route("/matches/<match_id>")
class Match(MethodView):
    @blp.response(200, MatchSummary)
    @blp.alt_response(403, schema="Problem", description="a token that is not this match's")
    @blp.alt_response(404, schema="Problem")
    def get(self, match_id: str) -> Any:
        """Summarise a match: players, status, version, standings and the end.

        Without the write token, while the match is in play, the standings are scored from the
        public log (private facts left out), as in the open audit.
        """
        summary = current_service().match(match_id, token=bearer_token())
        return summary, 200, read_headers(summary["version"])


@blp.route("/matches/<match_id>/token")
class Token(MethodView):
    @blp.response(200, TokenRotated)
    @blp.alt_response(401, schema="Problem", description="no write token")
    @blp.alt_response(403, schema="Problem", description="not this match's current token")
    @blp.alt_response(404, schema="Problem")
    @blp.doc(security=[{"bearer": []}])
    def post(self, match_id: str) -> Any:
        """Replace the write token: send the current one, get a new one; the old one stops working.

        A lost token cannot be recovered (only its hash is stored): rotate while you hold it.
        """
        return current_service().rotate_token(match_id, bearer_token())
