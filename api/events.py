"""POST and GET /matches/{id}/events: append to the log, read it back with its hashes."""

from __future__ import annotations

from typing import Any

from flask import jsonify, request
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields
from webargs.core import missing

from api import openapi
from api.context import current_service
from api.schemas import MAX_BATCH, MAX_INTEGER, MAX_RECORDER, AppendBody, Appended, EventPage, EventsQuery
from api.service import BadRequest
from engines.said import Said
from api.errors import flatten_messages
from api.web import (
    MAX_IDEMPOTENCY_KEY,
    Blueprint,
    InvalidBody,
    called_directly,
    bearer_token,
    etag,
    expected_version,
    idempotency_key,
    json_body,
    page_links,
    read_headers,
    recorder,
)

blp = Blueprint("events", __name__, description="The match's append-only, hash-chained event log")


class DryRunOut(Schema):
    """What ``?dryRun=true`` answers: the append's would-be result (documented here, beside its only view)."""

    dryRun = fields.Boolean(metadata={"description": "always true: nothing was written"})
    version = fields.Integer(metadata={"description": "the version the match would have"})
    hands = fields.List(fields.Dict(), metadata={"description": "hands whose score would change (VOCABULARY.md §6)"})
    standings = fields.List(fields.Dict(), metadata={"description": "the standings after the batch"})
    end = fields.Dict(metadata={"description": "the match end after the batch"})
    next = fields.List(fields.Dict(), metadata={"description": "what could be recorded next (legal-moves templates)"})


@blp.route("/matches/<match_id>/events")
class Events(MethodView):
    @called_directly  # the hot path of every scorer: no wrapper per documenting decorator
    @blp.response(201, Appended)
    @blp.alt_response(400, schema="Problem", description="malformed JSON or a schema violation (with its path)")
    @blp.alt_response(401, schema="Problem", description="no write token")
    @blp.alt_response(403, schema="Problem", description="not this match's token")
    @blp.alt_response(404, schema="Problem")
    @blp.alt_response(409, schema="Problem", description="stale expected version (with the current one)")
    @blp.alt_response(422, schema="Problem", description="an event the rules refuse (rule code, index in the batch)")
    @blp.alt_response(413, schema="Problem", description="the body is over the size limit (1 MiB by default)")
    @blp.doc(requestBody=openapi.events_request())
    @blp.doc(
        security=[{"bearer": []}],
        parameters=[
            {
                "in": "header",
                "name": "If-Match",
                "schema": {"type": "string", "pattern": '^(W/)?"[1-9][0-9]{0,8}"$'},
                "description": 'expected version, e.g. "3"',
            },
            {
                "in": "header",
                "name": "Idempotency-Key",
                "schema": {"type": "string", "maxLength": MAX_IDEMPOTENCY_KEY},
                "description": "a retry with the same key and body returns the first result and writes nothing",
            },
            {
                "in": "query",
                "name": "dryRun",
                "schema": {"type": "boolean", "default": False},
                "description": "run every check and answer 200 with the would-be result (version, changed hands with "
                "their points, standings, end, next legal moves); nothing is written",
            },
        ],
    )
    @blp.alt_response(200, schema=DryRunOut, description="dryRun=true: what the append would give; nothing written")
    def post(self, match_id: str) -> Any:
        """Append events, all or nothing, after checking each against the rules (or only check them: dryRun)."""
        body = _envelope(json_body(request._get_current_object()))  # the request itself: no proxy per attribute
        if _dry_run():
            preview = current_service().preview(
                match_id,
                body["events"],
                token=bearer_token(),
                expected_version=expected_version(body.get("expectedVersion")),
            )
            return jsonify(preview)
        result = current_service().record(
            match_id,
            body["events"],
            token=bearer_token(),
            by=body.get("by") or recorder(),
            expected_version=expected_version(body.get("expectedVersion")),
            key=idempotency_key(),
        )
        headers = etag(result.version)
        if result.replayed:
            headers["Idempotent-Replayed"] = "true"
        return {"version": result.version, "head": result.head}, 201, headers

    @blp.arguments(EventsQuery(), location="query", error_status_code=400)
    @blp.response(200, EventPage)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """Read the log with its hashes, a page at a time (``from`` or ``after``, ``limit``; ``links.next``).

        While the match is in play, private values (a peek, a kept card, a stock draw…) are
        shown to a reader without the write token as `{"private": true, "commitment": …}`,
        which is what chain format 2 hashes; with the token, or once the match is over, the
        values and their salts (`private`) are listed.
        """
        after = query["from_"] - 1 if "from_" in query else query["after"]
        events, version = current_service().events(match_id, after=after, limit=query["limit"], token=bearer_token())
        last = events[-1]["seq"] if events else after
        headers = read_headers(version)
        following = last if last < version else None
        links = page_links(headers, **{"from": None if following is None else following + 1})
        return {"events": events, "version": version, "next": following, "links": links}, 200, headers


def _dry_run() -> bool:
    """Read ``?dryRun=``: true/false (or 1/0); anything else is a 400, not a silent write."""
    if not request.environ.get("QUERY_STRING"):  # the scorer's append: no query to parse
        return False
    raw = request.args.get("dryRun")
    if raw is None or raw.lower() in ("false", "0"):
        return False
    if raw.lower() in ("true", "1", ""):
        return True
    raise BadRequest("request.bad_dry_run", Said("dryRun must be true or false, not %(value)s", value=raw[:20]))


APPEND_BODY = AppendBody()

_ENVELOPE_FIELDS = frozenset(APPEND_BODY.fields)


def plain_envelope(body: dict[str, Any]) -> bool:
    """Whether ``body`` is an envelope :class:`api.schemas.AppendBody` surely loads as it is: the
    known fields only, events a list of 1 to 10,000, ``expectedVersion`` absent, null or a whole
    number in range, ``by`` absent or short text. Every scorer's append is one; anything else
    (an error to word, a boolean as a number) goes through the schema itself."""
    events = body.get("events")
    version = body.get("expectedVersion")
    by = body.get("by", "")
    return (
        _ENVELOPE_FIELDS.issuperset(body)
        and type(events) is list
        and 1 <= len(events) <= MAX_BATCH
        and (version is None or (type(version) is int and 1 <= version <= MAX_INTEGER))
        and type(by) is str
        and len(by) <= MAX_RECORDER
    )


def _envelope(body: Any) -> dict[str, Any]:
    """Check the append's envelope with :class:`api.schemas.AppendBody`, and only it.

    Raises:
        InvalidBody: every envelope error with its path (``request.invalid``).
    """
    if body is missing:  # no body at all: as an empty object, whose events are missing
        body = {}
    if type(body) is not dict:
        raise InvalidBody([{"path": "$", "message": Said("Invalid input type.")}])
    if plain_envelope(body):  # what the schema would load, as it is (tests/api/test_append_once.py)
        return body
    try:
        loaded: dict[str, Any] = APPEND_BODY.load(body)
    except ValidationError as error:
        raise InvalidBody(flatten_messages(error.messages)) from None
    return loaded
