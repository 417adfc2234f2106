"""POST and GET /matches/{id}/events: append to the log, read it back with its hashes."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.app import current_service
from api.schemas import AppendBody, Appended, EventPage, EventsQuery
from api.web import bearer_token, etag, expected_version, page_links

blp = Blueprint("events", __name__, description="The match's append-only, hash-chained event log")


@blp.route("/matches/<match_id>/events")
class Events(MethodView):
    @blp.arguments(AppendBody, error_status_code=400)
    @blp.response(201, Appended)
    @blp.alt_response(400, schema="Problem", description="malformed JSON or a schema violation (with its path)")
    @blp.alt_response(401, schema="Problem", description="no write token")
    @blp.alt_response(403, schema="Problem", description="not this match's token")
    @blp.alt_response(404, schema="Problem")
    @blp.alt_response(409, schema="Problem", description="stale expected version (with the current one)")
    @blp.alt_response(422, schema="Problem", description="an event the rules refuse (rule code, index in the batch)")
    @blp.doc(security=[{"bearer": []}], parameters=[
        {"in": "header", "name": "If-Match", "schema": {"type": "string"}, "description": 'expected version, e.g. "3"'},
        {"in": "header", "name": "Idempotency-Key", "schema": {"type": "string"},
         "description": "a retry with the same key and body returns the first result and writes nothing"}])
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Append events, all or nothing, after checking each against the rules."""
        result = current_service().record(
            match_id, body["events"], token=bearer_token(), by=body.get("by") or request.headers.get("X-Recorder", ""),
            expected_version=expected_version(body.get("expectedVersion")),
            key=request.headers.get("Idempotency-Key") or None,
        )
        headers = etag(result.version)
        if result.replayed:
            headers["Idempotent-Replayed"] = "true"
        return {"version": result.version, "head": result.head}, 201, headers

    @blp.arguments(EventsQuery, location="query", error_status_code=400)
    @blp.response(200, EventPage)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """Read the raw log with its hashes, a page at a time."""
        after = query["from_"] - 1 if "from_" in query else query["after"]
        events, version = current_service().events(match_id, after=after, limit=query["limit"])
        last = events[-1]["seq"] if events else after
        headers = etag(version)
        following = last if last < version else None
        links = page_links(headers, **{"from": None if following is None else following + 1})
        return {"events": events, "version": version, "next": following, "links": links}, 200, headers
