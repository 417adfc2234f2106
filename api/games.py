"""GET /games, /games/{game}, /schemas/{path}: what can be recorded and how."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

import schemas
from api.openapi import answer, ref
from api.web import Blueprint, quoted
from engines import ENGINES, get_engine
from engines.said import Said
from schemas import SchemaError

blp = Blueprint("games", __name__, description="Supported games, their options and event vocabulary")


def _game(game: str) -> dict[str, Any]:
    engine = get_engine(game)
    info = dict(engine.describe())
    info["rulesVersion"] = engine.RULES_VERSION  # what a new match records in match_started.rulesVersion
    # The option every game shares and no engine reads (the service applies it: it needs the clock).
    info["options"] = {
        **info.get("options", {}),
        "correctionWindow": {
            "type": "integer",
            "minimum": 0,
            "nullable": True,
            "default": None,
            "rule": f"/rules/{game}#option-correctionwindow",
            "description": "minutes after the match ends during which disputes and corrections are accepted "
            "(afterwards common.match_final); null: no limit",
        },
        "confirmation": {
            "values": ["none", "opponents", "all"],
            "default": "none",
            "rule": f"/rules/{game}#option-confirmation",
            "description": "which seats confirm each hand from their own phones before it counts as settled "
            "(opponents: every seat whose side did not win it); the correction window then runs from the last one",
        },
    }
    info["schemas"] = {
        t: url_for("games.SchemaDocument", path=schemas.schema_id(game, t), _external=False)
        for t in schemas.event_types(game)
    }
    return info


@blp.route("/games")
class Games(MethodView):
    @blp.response(200)
    @blp.doc(
        responses=answer(
            {"type": "object", "required": ["games"], "properties": {"games": {"type": "array", "items": ref("Game")}}},
            "every supported game, described as GET /games/{game} describes it",
        )
    )
    def get(self) -> Any:
        """List the supported games with their options and event types."""
        return {"games": [_game(g) for g in ENGINES]}


@blp.route("/games/<game>")
class Game(MethodView):
    @blp.response(200)
    @blp.doc(responses=answer(ref("Game"), "the game, its deck's cards and the forms the pages build from them"))
    def get(self, game: str) -> Any:
        """Describe one game: players, deck, options with defaults, events and their JSON Schemas, the forms."""
        return _game(game)


@blp.route("/schemas/<path:path>")
class SchemaDocument(MethodView):
    @blp.response(200)
    def get(self, path: str) -> Any:
        """Return one JSON Schema document (draft 2020-12)."""
        try:
            return schemas.load(path)
        except (KeyError, FileNotFoundError, ValueError, SchemaError):
            from werkzeug.exceptions import NotFound

            raise NotFound(Said("no schema %(path)s", path=quoted(path))) from None
