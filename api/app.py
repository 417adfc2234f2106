"""The Flask app factory.

``create_app()`` works with no configuration: the ledger is a SQLite file, ``tanteo.db`` in
the working directory, or ``TANTEO_DB`` from the environment. Blueprints, one per
resource, are thin: they parse the request, call one :class:`api.service.Service` method
and return its result. Errors are mapped to problem+json in ``api/errors.py`` only.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import Any, Mapping

import flask_smorest
import flask_swagger_ui
from flask import Blueprint, Flask, g, redirect, request
from werkzeug.exceptions import RequestEntityTooLarge, RequestHeaderFieldsTooLarge, UnsupportedMediaType

from api import errors, openapi, web
from api.schemas import Problem
from api.service import Service, StateCache
from ledger import is_shared_database, open_ledger

DEFAULT_DB = "tanteo.db"
DEFAULT_MAX_BODY = 1024 * 1024
"""The largest request body, in bytes (``MAX_CONTENT_LENGTH``; env ``TANTEO_MAX_BODY``): a batch
of a whole match fits many times over."""


class Api(flask_smorest.Api):
    """flask-smorest, with every error answered as problem+json by ``api/errors.py``."""

    ERROR_SCHEMA = Problem

    def _register_error_handlers(self) -> None:
        errors.register(self._app)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app.

    ``config`` may set ``TANTEO_DB`` (a path, ``sqlite:///path``, ``postgresql://…`` or ``memory:``) and
    ``MAX_CONTENT_LENGTH`` (the largest request body in bytes, default 1 MiB; env ``TANTEO_MAX_BODY``).
    """
    app = Flask(__name__)
    app.config.update(
        TANTEO_DB=os.environ.get("TANTEO_DB", DEFAULT_DB),
        MAX_CONTENT_LENGTH=int(os.environ.get("TANTEO_MAX_BODY", DEFAULT_MAX_BODY)),
        API_TITLE="Tanteo", API_VERSION="1",
        OPENAPI_VERSION="3.1.0",  # JSON Schema 2020-12, the dialect of schemas/: embedded as they are
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs", OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no badge fetched from outside
        JSON_SORT_KEYS=False,
    )
    app.config.update(config or {})
    app.json.sort_keys = False  # type: ignore[attr-defined]
    db = str(app.config["TANTEO_DB"])
    if db != "memory:" and not db.startswith("sqlite:") and not is_shared_database(db):
        Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
    app.extensions["tanteo.cache"] = StateCache()
    if db == "memory:" or is_shared_database(db):
        # One ledger shared by every request of this app: the in-memory one, or PostgreSQL's
        # connection pool (its connections are closed when the app is collected or at exit).
        ledger = open_ledger(db)
        app.extensions["tanteo.ledger"] = ledger
        weakref.finalize(app, ledger.close)

    swagger_assets = Path(flask_swagger_ui.__file__).parent / "dist"
    app.register_blueprint(Blueprint("docs_assets", __name__, static_folder=str(swagger_assets), static_url_path="/docs/assets"))

    api = Api(app, spec_kwargs={"extra_plugins": [openapi.ProblemJson()], "info": {"description": (
        "Record card games played with physical cards, replay them move by move and audit every score. "
        "Errors are application/problem+json. To record a deal from this page: POST /matches with a game's "
        "example, copy the token into Authorize, then POST /matches/{match_id}/events with the same game's example.")}})
    openapi.register(api.spec)
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer",
                                                   "description": "the write token returned by POST /matches"})
    from api import games, matches, events, replays

    for blueprint in (games.blp, matches.blp, events.blp, replays.blp):
        api.register_blueprint(blueprint)

    @app.get("/")
    def index() -> Any:
        return redirect("/docs")

    @app.before_request
    def refuse_early() -> None:
        """Refuse, in this order, before any view reads a byte of the body.

        An unknown route or a wrong method (404/405) comes first, so ``PUT /games`` is a 405
        whatever its body; then a header too long to be anything real (431); a body over
        ``MAX_CONTENT_LENGTH`` (413, also enforced while reading a body without a length);
        and a write whose body is not declared JSON (415, not a confusing schema error).
        """
        if request.routing_exception is not None:
            raise request.routing_exception
        for name, value in request.headers.items():
            if len(value) > web.MAX_HEADER:
                raise RequestHeaderFieldsTooLarge(f"the {name} header is {len(value):,} characters long; "
                                                  f"a header may have at most {web.MAX_HEADER:,}")
        limit = app.config.get("MAX_CONTENT_LENGTH")
        if limit is not None and (request.content_length or 0) > limit:
            raise RequestEntityTooLarge(f"the body is {request.content_length:,} bytes; at most {limit:,} are accepted")
        if request.method in ("POST", "PUT", "PATCH") and not request.is_json:
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
