"""The Flask app factory.

``create_app()`` works with no configuration: the ledger is a SQLite file, ``tanteo.db`` in
the working directory, or ``TANTEO_DB`` from the environment. Each worker thread keeps one
ledger (one SQLite connection) for the life of the app (:class:`ledger.PerThread`); they are
closed when the app is garbage-collected or the process exits, never after a request.
Blueprints, one per resource, are thin: they parse the request, call one
:class:`api.service.Service` method and return its result. Errors are mapped to
problem+json in ``api/errors.py`` only.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import Any, Mapping

import flask_smorest
import flask_swagger_ui
from flask import Blueprint, Flask, g, redirect, request
from werkzeug.exceptions import UnsupportedMediaType

from api import errors
from api.schemas import Problem
from api.service import Service, StateCache
from ledger import BUSY_TIMEOUT_SECONDS, PerThread

DEFAULT_DB = "tanteo.db"


class Api(flask_smorest.Api):
    """flask-smorest, with every error answered as problem+json by ``api/errors.py``."""

    ERROR_SCHEMA = Problem

    def _register_error_handlers(self) -> None:
        errors.register(self._app)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app.

    ``config`` may set ``TANTEO_DB`` (a path, ``sqlite:///path`` or ``memory:``),
    ``TANTEO_BUSY_TIMEOUT`` (seconds a write waits for another writer's lock before answering
    503 ``storage.busy``) and ``TANTEO_READ_ONLY`` (serve the file read-only: reads work,
    writes answer 503 ``storage.read_only``; a file the process cannot write is opened that
    way by itself).
    """
    app = Flask(__name__)
    app.config.update(
        TANTEO_DB=os.environ.get("TANTEO_DB", DEFAULT_DB),
        API_TITLE="Tanteo", API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs", OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no badge fetched from outside
        JSON_SORT_KEYS=False,
        TANTEO_BUSY_TIMEOUT=BUSY_TIMEOUT_SECONDS,
        TANTEO_READ_ONLY=False,
    )
    app.config.update(config or {})
    app.json.sort_keys = False  # type: ignore[attr-defined]
    db = str(app.config["TANTEO_DB"])
    if db != "memory:" and not db.startswith("sqlite:"):
        db = str(Path(db).expanduser())
    app.extensions["tanteo.cache"] = StateCache()
    ledgers = PerThread(db, busy_timeout=float(app.config["TANTEO_BUSY_TIMEOUT"]),
                        read_only=bool(app.config["TANTEO_READ_ONLY"]))
    app.extensions["tanteo.ledgers"] = ledgers
    weakref.finalize(app, ledgers.close)  # at garbage collection or at exit, whichever first

    swagger_assets = Path(flask_swagger_ui.__file__).parent / "dist"
    app.register_blueprint(Blueprint("docs_assets", __name__, static_folder=str(swagger_assets), static_url_path="/docs/assets"))

    api = Api(app, spec_kwargs={"info": {"description": "Record card games played with physical cards, replay them "
                                                        "move by move and audit every score. Errors are application/problem+json."}})
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer",
                                                   "description": "the write token returned by POST /matches"})
    from api import games, matches, events, replays

    for blueprint in (games.blp, matches.blp, events.blp, replays.blp):
        api.register_blueprint(blueprint)

    @app.get("/")
    def index() -> Any:
        return redirect("/docs")

    @app.before_request
    def json_bodies_only() -> None:
        """A write whose body is not declared JSON is a 415, not a confusing schema error."""
        if request.method in ("POST", "PUT", "PATCH") and not request.is_json:
            raise UnsupportedMediaType("send the body as JSON with 'Content-Type: application/json'")

    return app


def current_service() -> Service:
    """Return this request's service: the worker thread's ledger and the app's shared cache.

    Raises:
        StorageUnavailable: the thread's ledger could not be opened (answered 503).
    """
    from flask import current_app

    if "tanteo_service" not in g:
        ledger = current_app.extensions["tanteo.ledgers"].get()
        g.tanteo_service = Service(ledger, current_app.extensions["tanteo.cache"])
    return g.tanteo_service  # type: ignore[no-any-return]
