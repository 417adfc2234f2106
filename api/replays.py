"""State at a step, replay frames, legal moves and the audit of a match."""

from __future__ import annotations

import functools
from typing import Any, Callable

from flask import current_app
from flask.views import MethodView

from api.context import current_service
from api.schemas import AuditOut, LegalMovesOut, ReplayOut, ReplayQuery, StateOut, StateQuery
from api.web import Blueprint, bearer_token, page_links, read_headers
from engines.base import collector_paused

blp = Blueprint("replays", __name__, description="Folded state, replay, legal moves and score audit")

REPLAY_FIELDS = tuple(ReplayOut().fields)
"""The fields of a replay's body, in the order the schema declares them."""


@blp.route("/matches/<match_id>/state")
class State(MethodView):
    @blp.arguments(StateQuery(), location="query", error_status_code=400)
    @blp.response(200, StateOut)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The state after event `at`, or at `hand`/`move`/`trick`, as `seat` (a number or a name) sees it."""
        out = current_service().state(
            match_id,
            at=query.get("at"),
            seat=query.get("seat"),
            token=bearer_token(),
            hand=query.get("hand"),
            move=query.get("move"),
            trick=query.get("trick"),
        )
        return out, 200, read_headers(out["version"])


def gc_paused(view: Callable[..., Any]) -> Callable[..., Any]:
    """Run a big read, its serialization included, with the cyclic GC paused (see
    :func:`engines.base.collector_paused`): the response is built while every frame is still alive."""

    @functools.wraps(view)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with collector_paused():
            return view(*args, **kwargs)

    return paused


@blp.route("/matches/<match_id>/replay")
class Replay(MethodView):
    @gc_paused
    @blp.arguments(ReplayQuery(), location="query", error_status_code=400)
    @blp.response(200, ReplayOut)
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """Every step: the move in words, the state after it and what changed."""
        stop = query.get("stop") if query.get("at") is None else query["at"]
        out = current_service().replay(
            match_id,
            seat=query.get("seat"),
            course=query["course"],
            start=query.get("from_", query["start"]),
            stop=stop,
            limit=query.get("limit"),
            token=bearer_token(),
            hand=query.get("hand"),
            move=query.get("move"),
            trick=query.get("trick"),
        )
        headers = read_headers(out["version"])
        out["links"] = page_links(headers, **{"from": out["next"]})
        # The frames are JSON-ready dicts: answered as they are, not through ReplayOut's dump,
        # which copies every frame (a pass over megabytes for a long match). The schema still
        # documents the body, and only its fields are sent.
        body = {name: out[name] for name in REPLAY_FIELDS if name in out}
        return current_app.json.response(body), 200, headers


@blp.route("/matches/<match_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, LegalMovesOut)
    def get(self, match_id: str) -> Any:
        """What may be recorded next (event templates)."""
        out = current_service().legal_moves(match_id, token=bearer_token())
        return out, 200, read_headers(out["version"])


@blp.route("/matches/<match_id>/audit")
class Audit(MethodView):
    @blp.response(200, AuditOut)
    def get(self, match_id: str) -> Any:
        """Chain check, every hand rescored with its reasons, claims compared, corrections listed."""
        out = current_service().audit(match_id, token=bearer_token())
        return out, 200, read_headers(out["version"])
