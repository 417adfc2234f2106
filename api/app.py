"""The Flask app factory.

``create_app()`` works with no configuration: the ledger is a SQLite file, ``tanteo.db`` in
the working directory, or ``TANTEO_DB`` from the environment. Blueprints, one per
resource, are thin: they parse the request, call one :class:`api.service.Service` method
and return its result. Errors are mapped to problem+json in ``api/errors.py`` only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import flask_smorest
import flask_swagger_ui
from flask import Blueprint, Flask, g, redirect, request
from werkzeug.exceptions import UnsupportedMediaType

from api import errors
from api.schemas import Problem
from api.service import Service, StateCache
from ledger import open_ledger

DEFAULT_DB = "tanteo.db"

RAW_BODIES = frozenset({"/matches/import"})
"""Paths whose body is a file (an archive or text notation), not JSON: they check the media type themselves."""


class Api(flask_smorest.Api):
    """flask-smorest, with every error answered as problem+json by ``api/errors.py``."""

    ERROR_SCHEMA = Problem

    def _register_error_handlers(self) -> None:
        errors.register(self._app)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. ``config`` may set ``TANTEO_DB`` (a path, ``sqlite:///path`` or ``memory:``)."""
    app = Flask(__name__)
    app.config.update(
        TANTEO_DB=os.environ.get("TANTEO_DB", DEFAULT_DB),
        API_TITLE="Tanteo", API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs", OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no badge fetched from outside
        JSON_SORT_KEYS=False,
    )
    app.config.update(config or {})
    app.json.sort_keys = False  # type: ignore[attr-defined]
    db = str(app.config["TANTEO_DB"])
    if db != "memory:" and not db.startswith("sqlite:"):
        Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
    app.extensions["tanteo.cache"] = StateCache()
    if db == "memory:":  # one in-memory ledger shared by every request of this app
        app.extensions["tanteo.ledger"] = open_ledger(db)

    swagger_assets = Path(flask_swagger_ui.__file__).parent / "dist"
    app.register_blueprint(Blueprint("docs_assets", __name__, static_folder=str(swagger_assets), static_url_path="/docs/assets"))

    api = Api(app, spec_kwargs={"info": {"description": "Record card games played with physical cards, replay them "
                                                        "move by move and audit every score. Errors are application/problem+json."}})
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer",
                                                   "description": "the write token returned by POST /matches"})
    from api import events, exports, games, matches, replays

    for blueprint in (games.blp, matches.blp, events.blp, replays.blp, exports.blp):
        api.register_blueprint(blueprint)

    @app.get("/")
    def index() -> Any:
        return redirect("/docs")

    @app.before_request
    def json_bodies_only() -> None:
        """A write whose body is not declared JSON is a 415, not a confusing schema error."""
        if request.method in ("POST", "PUT", "PATCH") and not request.is_json and request.path not in RAW_BODIES:
            raise UnsupportedMediaType("send the body as JSON with 'Content-Type: application/json'")

    @app.teardown_appcontext
    def close_ledger(_error: BaseException | None) -> None:
        service = g.pop("tanteo_service", None)
        if service is not None and "tanteo.ledger" not in app.extensions:
            service.ledger.close()

    return app


def current_service() -> Service:
    """Return this request's service (its own ledger connection, the app's shared cache)."""
    from flask import current_app

    if "tanteo_service" not in g:
        ledger = current_app.extensions.get("tanteo.ledger") or open_ledger(current_app.config["TANTEO_DB"])
        g.tanteo_service = Service(ledger, current_app.extensions["tanteo.cache"])
    return g.tanteo_service  # type: ignore[no-any-return]
