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

import functools
import os
import threading
import weakref
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

import flask_smorest
import limits
import orjson
import flask_swagger_ui
from flask_compress import Compress
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask import Blueprint, Flask, Response, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge, RequestHeaderFieldsTooLarge, UnsupportedMediaType
from werkzeug.middleware.proxy_fix import ProxyFix

from api import errors, i18n, openapi, rendered, web
from api.schemas import Problem
from api.web import RAW_BODIES, SECURITY_HEADERS
from api.service import StateCache
from api.service.cache import DEFAULT_BUDGET
from api.service.words import grouped, said
from engines.said import Said
from ledger import BUSY_TIMEOUT_SECONDS, PerThread, is_shared_database

DEFAULT_DB = "tanteo.db"
DEFAULT_MAX_BODY = 1024 * 1024
"""The largest request body, in bytes (``MAX_CONTENT_LENGTH``; env ``TANTEO_MAX_BODY``): a batch
of a whole match fits many times over."""

DEFAULT_MAX_IMPORT = 256 * 1024 * 1024
"""The largest file ``POST /matches/import`` takes (``TANTEO_MAX_IMPORT``): a club's archive, not a batch.
It is read a line at a time (``api/exports.py``): what an import holds is its matches, not its bytes."""

DEFAULT_IMPORT_SECONDS = 60.0
"""How long one ``POST /matches/import`` may run (``TANTEO_IMPORT_SECONDS``, config key or
environment): past it the import stops between two lines or two matches and says so (422
``import.time_limit``, with the matches stored before it). A club's evening imports in a
second or two; a restore larger than this belongs to ``tanteo import`` on the server."""

DEFAULT_CREATE_LIMIT = "120 per minute"
"""How many anonymous writes (``POST /matches`` and ``POST /matches/import`` together) one client
address may send (``TANTEO_CREATE_LIMIT``, config key or environment; ``off`` for none): a club
starting twenty matches a minute is far inside it, a script starting thousands is not."""

DEFAULT_TRUSTED_PROXIES = 0
"""How many reverse proxies stand in front of the server (``TANTEO_TRUSTED_PROXIES``, config key or
environment). With 0 no forwarding header is believed: a client that writes ``X-Forwarded-For``
itself must not pick the address the rate limit counts it under."""

LIMITED = frozenset({("POST", "/matches"), ("POST", "/matches/import")})
"""The requests no token guards, so the rate limit is all that slows a flood of them down."""


COMPRESSED = [
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/json",
    "application/problem+json",
    "application/manifest+json",
    "image/svg+xml",
]
"""What is compressed when the client asks (``Accept-Encoding``): pages, scripts, styles, JSON.
Never ``text/event-stream``: a live stream must reach its reader event by event."""


def compress(app: Flask) -> None:
    """Compress answers the client accepts compressed (flask-compress: zstd, br, gzip, deflate).

    Only whole answers: a streamed one (a live stream, an export) is left as it is, so every event
    is flushed when it is written. A compressed answer's strong ETag gets the encoding's suffix
    (``"5:gzip"``), which ``If-None-Match`` on the pages (api/rendered.py) and ``If-Match`` on the API
    (:func:`api.web.expected_version`) both read. The 304s are the views' own (api/rendered.py), never
    flask-compress's: the API's ETag is the match's version whatever the reader (``Vary: Authorization``),
    so a 304 there would let a browser that revalidates its open copy show it to the token holder."""
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED)
    app.config.setdefault("COMPRESS_EVALUATE_CONDITIONAL_REQUEST", False)
    app.config.setdefault("COMPRESS_STREAMS", False)
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    Compress(app)


class Api(flask_smorest.Api):
    """flask-smorest, with every error answered as problem+json by ``api/errors.py``."""

    ERROR_SCHEMA = Problem

    def _register_error_handlers(self) -> None:
        errors.register(self._app)


class OrjsonProvider(DefaultJSONProvider):
    """JSON responses encoded by orjson: a long replay is megabytes of nested views, and the
    standard library's encoder was most of its time. Key order is kept (``sort_keys`` off);
    anything orjson cannot write (an int wider than 64 bits) goes through the standard encoder."""

    sort_keys = False
    OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        try:
            return orjson.dumps(obj, default=self.passed, option=self.OPTIONS).decode()
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        try:
            body = orjson.dumps(obj, default=self.passed, option=self.OPTIONS)
        except TypeError:
            return super().response(obj)
        return self._app.response_class(body, mimetype=self.mimetype)

    def passed(self, obj: Any) -> Any:
        """Write what orjson leaves to us: the engines' words (a ``str`` subclass; the ledger's
        made the engines' first, :func:`api.service.words.said`) said in the reader's language
        (:func:`api.i18n.say`), other subclasses as their base type, the rest as Flask writes it."""
        if isinstance(obj, str):
            return str(i18n.say(said(obj)))
        for base in (bool, int, float, dict, list, tuple):
            if isinstance(obj, base):
                return base(obj)
        return self.default(obj)


def cache_bytes(value: Any) -> int:
    """Return the state cache's budget from a config or environment value (bytes, 0 or more).

    Raises:
        ValueError: not a whole number of bytes, 0 or more (said in words, for whoever set it).
    """
    try:
        budget = int(str(value).strip())
    except ValueError:
        raise ValueError(
            f"TANTEO_CACHE_BYTES is a number of bytes (for example 134217728 for 128 MiB), not '{value}'"
        ) from None
    if budget < 0:
        raise ValueError(f"TANTEO_CACHE_BYTES is a number of bytes, 0 or more, not {budget}")
    return budget


def create_limit(value: Any) -> str | None:
    """Return the rate limit of anonymous creations as Flask-Limiter writes it, or None for ``off``.

    Raises:
        ValueError: not a rate such as "120 per minute" or "off" (said in words, for whoever set it).
    """
    text = str(value).strip()
    if text.lower() in ("off", "0", "none", ""):
        return None
    try:
        limits.parse(text)
    except ValueError:
        raise ValueError(
            f"TANTEO_CREATE_LIMIT is a rate such as '120 per minute' or '5/second', or 'off'; not '{text}'"
        ) from None
    return text


def trusted_proxies(value: Any) -> int:
    """Return how many reverse proxies stand in front of the server (``TANTEO_TRUSTED_PROXIES``).

    Each one appends the address it was reached from to ``X-Forwarded-For``; with N proxies the
    client's address is the N-th from the end, and whatever a client wrote before that is ignored.

    Raises:
        ValueError: not a whole number, 0 or more (said in words, for whoever set it).
    """
    text = "" if value is None else str(value).strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 3):  # ASCII digits only: not "-1", "²" or "1e9"
        raise ValueError(
            "TANTEO_TRUSTED_PROXIES is how many reverse proxies stand in front of this server: 0 when "
            f"clients reach it directly, 1 behind one nginx or Caddy; not '{text[:40]}'"
        )
    return int(text)


def public_url(value: Any) -> str | None:
    """Return the address other phones reach this server at (``TANTEO_PUBLIC_URL``), without its
    final ``/``, or None when it is not set.

    The hand-over QR code and the printed sheet's code and link are built on it, never on the
    request's ``Host`` header: a forged header must not put another site on a printed sheet, and
    the address a phone used (``127.0.0.1``) is no use to another phone.

    Raises:
        ValueError: not an ``http://`` or ``https://`` address of a host (said in words).
    """
    text = "" if value is None else str(value).strip()
    if not text:
        return None
    parts = urlsplit(text)
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.query
        or parts.fragment
        or parts.username is not None
        or parts.password is not None
        or any(c.isspace() for c in text)
    ):
        raise ValueError(
            f"TANTEO_PUBLIC_URL is the address other phones open this server at, such as "
            f"http://192.168.1.20:8000 or https://tanteo.example.org; not '{text[:80]}'"
        )
    try:
        parts.port  # noqa: B018 (a port out of range raises here)
    except ValueError:
        raise ValueError(f"TANTEO_PUBLIC_URL has a port out of range: '{text[:80]}'") from None
    return text.rstrip("/")


def import_seconds(value: Any) -> float:
    """Read ``TANTEO_IMPORT_SECONDS``: a number of seconds above 0.

    Raises:
        ValueError: anything else, said in words.
    """
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"TANTEO_IMPORT_SECONDS is how many seconds one import may run (for example 60), not '{str(value)[:40]}'"
        ) from None
    if not 0 < seconds < float("inf"):
        raise ValueError(f"TANTEO_IMPORT_SECONDS is a number of seconds above 0, not '{str(value)[:40]}'")
    return seconds


def _limited_only(app: Flask, limiter: Limiter) -> None:
    """Run Flask-Limiter's three hooks (its check, its headers, its clean-up) for the limited
    writes (:data:`LIMITED`) only.

    The extension hooks itself into every request; for any other request it resolved the
    limits of the route only to find it exempt, and its hooks were a tenth of an append's time
    (issue 32, bench/http_bench.py). Skipped, they change nothing there: no limit is counted,
    no header written, nothing kept to clean up.
    """

    def limited() -> bool:
        return (request.method, request.path) in LIMITED

    def guarded_before(hook: Callable[[], Any]) -> Callable[[], Any]:
        return lambda: hook() if limited() else None

    def guarded_after(hook: Callable[[Response], Response]) -> Callable[[Response], Response]:
        return lambda response: hook(response) if limited() else response

    def guarded_teardown(hook: Callable[[BaseException | None], Any]) -> Callable[[BaseException | None], Any]:
        return lambda error=None: hook(error) if limited() else None

    def its(hook: Any) -> bool:
        return getattr(hook, "__self__", None) is limiter or (
            isinstance(hook, functools.partial) and limiter in hook.args
        )

    for hooks, guard in (
        (app.before_request_funcs, guarded_before),
        (app.after_request_funcs, guarded_after),
        (app.teardown_request_funcs, guarded_teardown),
    ):
        funcs = hooks.get(None, [])
        hooks[None] = [guard(f) if its(f) else f for f in funcs]  # type: ignore[arg-type]
        assert sum(1 for f in funcs if its(f)) == 1, "Flask-Limiter registers one hook of each kind"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app.

    ``config`` may set ``TANTEO_DB`` (a path, ``sqlite:///path``, ``postgresql://…`` or ``memory:``),
    ``MAX_CONTENT_LENGTH`` (the largest request body in bytes, default 1 MiB; env ``TANTEO_MAX_BODY``),
    ``TANTEO_BUSY_TIMEOUT`` (seconds a write waits for another writer's lock before answering
    503 ``storage.busy``) and ``TANTEO_READ_ONLY`` (serve the file read-only: reads work,
    writes answer 503 ``storage.read_only``; a file the process cannot write is opened that
    way by itself), ``TANTEO_CACHE_BYTES`` (how many bytes of folded states the process keeps
    in memory, default 128 MiB, env ``TANTEO_CACHE_BYTES``; 0 keeps none) and ``TANTEO_CLOCK``
    (a function returning the current aware datetime: the service's clock, read by the
    correction window and the stream's delay; for tests) and ``TANTEO_CREATE_LIMIT`` (how many
    ``POST /matches`` and ``POST /matches/import`` one client address may send, default
    "120 per minute", env ``TANTEO_CREATE_LIMIT``; ``off`` for no limit: 429 with Retry-After past it),
    ``TANTEO_PUBLIC_URL`` (the address other phones reach this server at, env ``TANTEO_PUBLIC_URL``:
    the origin of the hand-over QR code and of the printed sheet's link, :func:`public_url`),
    ``TANTEO_IMPORT_KEY`` (when set, ``POST /matches/import`` needs ``Authorization: Bearer <that
    key>``; env ``TANTEO_IMPORT_KEY``; unset, imports are open, bounded) and ``TANTEO_IMPORT_SECONDS``
    (how long one import may run, default 60; env ``TANTEO_IMPORT_SECONDS``), ``TANTEO_LANGUAGES``
    (the languages offered to a browser's ``Accept-Language`` and in the pages' selector, ``"ca,es,de,en"``;
    env ``TANTEO_LANGUAGES``; all four by default, :mod:`api.i18n`) and
    ``TANTEO_TRUSTED_PROXIES`` (how many reverse proxies stand in front, default 0; env
    ``TANTEO_TRUSTED_PROXIES``: the client address the rate limit counts, and the scheme, are
    then read from their ``X-Forwarded-For`` and ``X-Forwarded-Proto``, :func:`trusted_proxies`).

    Raises:
        ValueError: ``TANTEO_CACHE_BYTES`` is not a whole number of bytes, 0 or more,
            ``TANTEO_CREATE_LIMIT`` is not a rate, ``TANTEO_PUBLIC_URL`` is not an http(s) address,
            ``TANTEO_IMPORT_SECONDS`` is not a number of seconds above 0, ``TANTEO_LANGUAGES``
            names a language Tanteo has no catalog for, or ``TANTEO_TRUSTED_PROXIES`` is not a
            whole number, 0 or more.
    """
    app = Flask(__name__)
    app.config.update(
        TANTEO_DB=os.environ.get("TANTEO_DB", DEFAULT_DB),
        MAX_CONTENT_LENGTH=int(os.environ.get("TANTEO_MAX_BODY", DEFAULT_MAX_BODY)),
        TANTEO_MAX_IMPORT=DEFAULT_MAX_IMPORT,
        API_TITLE="Tanteo",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",  # JSON Schema 2020-12, the dialect of schemas/: embedded as they are
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None},  # no badge fetched from outside
        JSON_SORT_KEYS=False,
        TANTEO_BUSY_TIMEOUT=BUSY_TIMEOUT_SECONDS,
        TANTEO_READ_ONLY=False,
        TANTEO_CACHE_BYTES=os.environ.get("TANTEO_CACHE_BYTES", DEFAULT_BUDGET),
        TANTEO_CREATE_LIMIT=os.environ.get("TANTEO_CREATE_LIMIT", DEFAULT_CREATE_LIMIT),
        TANTEO_PUBLIC_URL=os.environ.get("TANTEO_PUBLIC_URL"),
        TANTEO_IMPORT_KEY=os.environ.get("TANTEO_IMPORT_KEY") or None,
        TANTEO_IMPORT_SECONDS=os.environ.get("TANTEO_IMPORT_SECONDS", DEFAULT_IMPORT_SECONDS),
        TANTEO_LANGUAGES=os.environ.get("TANTEO_LANGUAGES", ",".join(i18n.LANGUAGES)),
        TANTEO_TRUSTED_PROXIES=os.environ.get("TANTEO_TRUSTED_PROXIES", DEFAULT_TRUSTED_PROXIES),
    )
    app.config.update(config or {})
    app.config["TANTEO_PUBLIC_URL"] = public_url(app.config["TANTEO_PUBLIC_URL"])
    app.config["TANTEO_IMPORT_SECONDS"] = import_seconds(app.config["TANTEO_IMPORT_SECONDS"])
    i18n.init_app(app)  # Flask-Babel: the reader's language, the catalogs compiled at start
    proxies = app.config["TANTEO_TRUSTED_PROXIES"] = trusted_proxies(app.config["TANTEO_TRUSTED_PROXIES"])
    if proxies:
        # werkzeug's ProxyFix: the client's address and scheme from the last N forwarding hops, the
        # rest of the header ignored. Never the host (x_host=0): links on a printed sheet come
        # from TANTEO_PUBLIC_URL, and a forged X-Forwarded-Host must not matter either.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=0)  # type: ignore[method-assign]
    app.extensions["tanteo.import"] = threading.Lock()  # one import at a time in this process (api/exports.py)
    app.json = OrjsonProvider(app)
    db = str(app.config["TANTEO_DB"])
    if db != "memory:" and not db.startswith("sqlite:") and not is_shared_database(db):
        db = str(Path(db).expanduser())
    app.extensions["tanteo.cache"] = StateCache(cache_bytes(app.config["TANTEO_CACHE_BYTES"]))
    rendered.init_app(app)  # the pages' renderings, by version (api/rendered.py)
    ledgers = PerThread(
        db, busy_timeout=float(app.config["TANTEO_BUSY_TIMEOUT"]), read_only=bool(app.config["TANTEO_READ_ONLY"])
    )
    app.extensions["tanteo.ledgers"] = ledgers
    weakref.finalize(app, ledgers.close)  # at garbage collection or at exit, whichever first

    swagger_assets = Path(flask_swagger_ui.__file__).parent / "dist"
    app.register_blueprint(
        Blueprint("docs_assets", __name__, static_folder=str(swagger_assets), static_url_path="/docs/assets")
    )

    api = Api(
        app,
        spec_kwargs={
            "extra_plugins": [openapi.ProblemJson()],
            "info": {
                "description": (
                    "Record card games played with physical cards, replay them move by move and audit every score. "
                    "Errors are application/problem+json. To record a deal from this page: POST /matches with a game's "
                    "example, copy the token into Authorize, then POST /matches/{match_id}/events with the same game's example."
                )
            },
        },
    )
    openapi.register(api.spec)
    api.spec.components.security_scheme(
        "bearer", {"type": "http", "scheme": "bearer", "description": "the write token returned by POST /matches"}
    )
    from api import clubs, events, exports, games, matches, replays, seats, stream

    for blueprint in (games.blp, matches.blp, events.blp, seats.blp, replays.blp, exports.blp, stream.blp, clubs.blp):
        api.register_blueprint(blueprint)

    from api import club_pages, pages, viewer

    app.register_blueprint(pages.bp)  # the pages for people: /, /new, /m/<id>/score, /m/<id>/sheet
    app.register_blueprint(viewer.bp)  # the pages for readers: /m/<id>, /m/<id>/replay
    app.register_blueprint(club_pages.bp)  # the club pages: /clubs/new, /c/<id>, its nights, profiles, tables
    from api import app_shell

    app.register_blueprint(app_shell.bp)  # /manifest.webmanifest and /sw.js: installable, opens offline
    from api import rule_pages

    app.register_blueprint(rule_pages.blp)  # /rules and /rules/<game>

    @app.after_request
    def protect(response: Response) -> Response:
        """Add :data:`SECURITY_HEADERS` to every response, in this one place (a view may set its own).

        A view whose own policy lets other sites frame it (the embedded scoreboard, ``/m/{id}/embed``:
        ``frame-ancestors *``) gets no ``X-Frame-Options: DENY``, which would refuse the frame anyway."""
        headers = response.headers
        present = {name.lower() for name in headers.keys()}  # one pass over the few headers set
        framed = "frame-ancestors 'none'" not in headers.get("Content-Security-Policy", "frame-ancestors 'none'")
        headers.extend(
            [
                (name, value)
                for name, value in SECURITY_HEADERS.items()
                if name.lower() not in present and not (framed and name == "X-Frame-Options")
            ]
        )
        return response

    @app.before_request
    def refuse_early() -> None:
        """Refuse, in this order, before any view reads a byte of the body.

        An unknown route or a wrong method (404/405) comes first, so ``PUT /games`` is a 405
        whatever its body; then a header too long to be anything real (431); a body over
        ``MAX_CONTENT_LENGTH`` (413, also enforced while reading a body without a length);
        a NUL character anywhere in the address, the query or a header (400: no text Tanteo keeps
        may hold one, :func:`api.web.refuse_nul_in_request`);
        and a write whose body is not declared JSON (415, not a confusing schema error) — a
        write with no body at all (``POST /matches/{id}/token``) has no media type to refuse.
        """
        req = request._get_current_object()  # one look-up of the request, not one per property (every request pays)
        if req.routing_exception is not None:
            raise req.routing_exception
        environ = req.environ
        odd = web.odd_headers(environ)  # one quick pass; the named refusals below only when it finds one
        for name, value in req.headers.items() if odd else ():
            if len(value) > web.MAX_HEADER:
                raise RequestHeaderFieldsTooLarge(
                    Said(
                        "the %(name)s header is %(length)s characters long; a header may have at most %(most)s",
                        name=name,
                        length=grouped(len(value)),
                        most=grouped(web.MAX_HEADER),
                    )
                )
        web.refuse_nul_in_request(headers=odd)
        limit = app.config.get("MAX_CONTENT_LENGTH")
        raw = req.path in RAW_BODIES
        if raw:  # a whole club's archive: its own, larger limit
            limit = req.max_content_length = app.config["TANTEO_MAX_IMPORT"]
        length = req.content_length or 0
        if limit is not None and length > limit:
            if environ.get(web.BODY_CUT):  # a chunked body read only to past the limit: no length to name
                raise RequestEntityTooLarge()
            raise RequestEntityTooLarge(
                Said(
                    "the body is %(length)s bytes; at most %(most)s are accepted",
                    length=grouped(length),
                    most=grouped(limit),
                )
            )
        has_body = bool(length) or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if req.method in ("POST", "PUT", "PATCH") and has_body and not raw and not req.is_json:
            raise UnsupportedMediaType(Said("send the body as JSON with 'Content-Type: application/json'"))

    compress(app)

    rate = create_limit(app.config["TANTEO_CREATE_LIMIT"])
    if rate is not None:
        # Flask-Limiter, in memory: one count per client address shared by the two anonymous writes
        # (an application limit, exempt for every other request); checked after refuse_early, so
        # a request refused there costs nothing. Each server process counts on its own.
        limiter = app.extensions["tanteo.limiter"] = Limiter(
            get_remote_address,
            app=app,
            storage_uri="memory://",
            strategy="fixed-window",
            application_limits=[rate],
            application_limits_exempt_when=lambda: (request.method, request.path) not in LIMITED,
        )
        _limited_only(app, limiter)

    return app
