"""Errors to HTTP, in one table: every failure becomes ``application/problem+json`` (RFC 9457).

Each body has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``; some add
``path`` (where in the request body), ``index`` (which event of the batch) with ``message``
(the refusal in the rules' or the schema's own words, without the batch position the
``detail`` starts with: what a page shows beside its own words for the entry), ``seq`` (the
earlier event a rule names), ``currentVersion`` (on a conflict) or ``errors`` (all schema
errors). Nothing is written on any error: the service raises before the ledger commits.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from flask import Flask, Response, current_app, json
from flask_limiter.errors import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from api import rulebook
from api.service import AuthError, BadRequest, EventRefused
from api.service.transfer import ImportBusy, ImportStopped, NothingImported, OutOfTime, TooLarge
from engines.base import RuleViolation, UnknownGame
from api.web import StreamsBusy, quoted
from ledger import ConcurrencyConflict, IdempotencyConflict, MatchExists, MatchNotFound, StorageUnavailable
from schemas import SchemaError, ordinal

PROBLEM = "application/problem+json"
log = logging.getLogger(__name__)


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """Build one problem+json response."""
    body = {
        "type": f"tag:tanteo,2026:problem/{code}",
        "title": title or _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def event_in_batch(index: int) -> str:
    """Say an event's place in a batch as people count: index 1 is "the 2nd event of the batch"."""
    return f"the {ordinal(index + 1)} event of the batch"


_TITLES = {
    400: "Bad request",
    401: "Token required",
    403: "Wrong token",
    404: "Not found",
    405: "Method not allowed",
    409: "Version conflict",
    413: "Body too large",
    415: "Unsupported media type",
    422: "Refused by the rules",
    429: "Too many requests",
    431: "Header too large",
    500: "Internal error",
    503: "Storage unavailable",
}

STORAGE: dict[str, tuple[int, str]] = {
    # reason: (Retry-After seconds, what a person is told)
    "busy": (
        1,
        "the match database was busy with other writes for too long, so nothing was recorded; "
        "send the same request again in a moment",
    ),
    "full": (60, "the server's disk is full, so nothing was recorded; try again once its operator has freed space"),
    "read_only": (
        300,
        "the match database is read-only at the moment, so nothing can be recorded; "
        "reading matches still works, try recording again later",
    ),
    "io": (
        30,
        "the server could not read or write its storage; if you were recording, reload the match to see "
        "whether your events arrived before sending them again (an Idempotency-Key makes a retry safe)",
    ),
}
"""The 503 answers to :class:`StorageUnavailable`, by reason: the ``Retry-After`` hint and the
message. Only an I/O error during a commit can leave a client unsure whether its write
landed; the others roll back, so their messages say nothing was recorded."""


IMPORT_RETRY_AFTER = 10
"""Seconds to wait before sending an import again while another one runs (503 ``import.busy``)."""


def _rule(code: str, game: str | None) -> dict[str, str]:
    """The ``rule`` member of a rule violation's problem: the link to the rule that explains it."""
    link = rulebook.rule_link(code, game)
    return {"rule": link} if link else {}


def _schema_path(prefix: str, path: str) -> str:
    return prefix + path[1:] if path.startswith("$") else prefix + "." + path


def from_exception(error: Exception) -> Response:
    """Map one exception to its problem response (the only place that knows these statuses)."""
    match error:
        case EventRefused(error=SchemaError() as schema, index=index):
            return problem(
                400,
                schema.code,
                f"{event_in_batch(index)}: {schema.message}",
                title="Schema violation",
                index=index,
                message=schema.message,
                path=_schema_path(f"$.events[{index}].data", schema.path),
                errors=[{**e, "path": _schema_path(f"$.events[{index}].data", e["path"])} for e in schema.errors],
            )
        case EventRefused(error=RuleViolation() as rule, index=index):
            extra: dict[str, Any] = {"seq": rule.seq} if rule.seq is not None else {}
            return problem(
                422,
                rule.code,
                f"{event_in_batch(index)}: {rule.message}",
                index=index,
                message=rule.message,
                **extra,
                **_rule(rule.code, error.game),
            )
        case SchemaError():
            return problem(
                400, error.code, error.message, title="Schema violation", path=error.path, errors=error.errors
            )
        case RuleViolation():
            seq: dict[str, Any] = {"seq": error.seq} if error.seq is not None else {}
            return problem(422, error.code, error.message, **seq, **_rule(error.code, None))
        case AuthError(code="auth.missing"):
            return problem(401, error.code, error.message, headers={"WWW-Authenticate": 'Bearer realm="tanteo"'})
        case AuthError():
            return problem(403, error.code, error.message)
        case MatchNotFound():
            return problem(404, "match.not_found", f"match {quoted(error.match_id)} not found")
        case UnknownGame():
            return problem(404, "game.unknown", f"there is no game {quoted(str(error.game))}; GET /games lists them")
        case ConcurrencyConflict():
            return problem(
                409,
                "version.conflict",
                f"you expected version {error.expected} but the match is at version {error.current}: "
                "reload it and record your events again",
                currentVersion=error.current,
                headers={"ETag": f'"{error.current}"'},
            )
        case IdempotencyConflict():
            # draft-ietf-httpapi-idempotency-key-header: a key reused with another body is 422
            return problem(422, "idempotency.key_reused", str(error), title="Idempotency key reused")
        case MatchExists():
            return problem(409, "match.exists", str(error))
        case NothingImported():
            return problem(422, "import.nothing_imported", error.message, title="Nothing imported", **error.report)
        case ImportStopped(cause=OutOfTime()):
            # the matches stored before it are said with their new tokens: nowhere else to find them
            return problem(422, "import.time_limit", error.message, title="Import stopped", **error.report)
        case ImportStopped(cause=TooLarge()):
            return problem(413, "import.too_large", error.message, title="Import stopped", **error.report)
        case ImportBusy():
            return problem(
                503,
                "import.busy",
                error.message,
                title="Another import is running",
                headers={"Retry-After": str(IMPORT_RETRY_AFTER)},
            )
        case ImportStopped(cause=StorageUnavailable() as cause):
            # the matches stored before the fault are said with their new tokens: nowhere else to find them
            log.warning("import stopped, storage unavailable (%s): %s", cause.reason, cause.detail)
            return problem(
                503,
                f"storage.{cause.reason}",
                error.message,
                headers={"Retry-After": str(STORAGE[cause.reason][0])},
                **error.report,
            )
        case BadRequest():
            where = getattr(error, "path", None)  # the body parser's errors say where (api/web.py)
            return problem(400, error.code, error.message, **({"path": where} if where else {}))
        case StreamsBusy():
            return problem(503, "stream.busy", error.message, headers={"Retry-After": "10"})
        case StorageUnavailable():
            log.warning("storage unavailable (%s): %s", error.reason, error.detail)
            retry_after, detail = STORAGE[error.reason]
            return problem(503, f"storage.{error.reason}", detail, headers={"Retry-After": str(retry_after)})
        case RateLimitExceeded():
            return _rate_limited(error)
        case HTTPException():
            return _from_http(error)
    log.exception("unhandled error", exc_info=error)
    detail = repr(error) if current_app.debug else "the server failed; nothing was written"
    return problem(500, "server.error", detail)


def _rate_limited(error: RateLimitExceeded) -> Response:
    """A 429: this address sent more new matches and imports than ``TANTEO_CREATE_LIMIT`` allows,
    with the seconds until its window opens again (Flask-Limiter's count, api/app.py)."""
    rate = error.limit.limit
    limiter = current_app.extensions.get("tanteo.limiter")
    current = limiter.current_limit if limiter is not None else None
    reset_at = current.reset_at if current is not None else time.time() + rate.get_expiry()
    wait = max(1, math.ceil(reset_at - time.time()))
    return problem(
        429,
        "rate.limited",
        f"this address has started or imported matches {rate.amount} times within "
        f"{_window(rate)}, the most the server takes; nothing was recorded: try again in {wait} s",
        headers={"Retry-After": str(wait)},
    )


def _window(rate: Any) -> str:
    """Say a rate's window as people do: "a minute", "10 seconds"."""
    unit = type(rate).__name__.removeprefix("RateLimitItemPer").lower()
    return f"a {unit}" if rate.multiples == 1 else f"{rate.multiples} {unit}s"


def _from_http(error: HTTPException) -> Response:
    """Werkzeug's and webargs' errors (unknown route, wrong method, unparsable body) as problems."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    headers: dict[str, str] = {}
    if getattr(error, "valid_methods", None):
        headers["Allow"] = ", ".join(error.valid_methods)  # type: ignore[attr-defined]
    if messages:
        flat = _flatten(messages)
        if any("Invalid JSON body" in m["message"] for m in flat):
            return problem(400, "request.malformed_json", "the request body is not valid JSON", title="Malformed JSON")
        first = flat[0] if flat else {"path": "$", "message": "invalid request"}
        return problem(
            400,
            "request.invalid",
            f"{first['path']}: {first['message']}",
            title="Invalid request",
            path=first["path"],
            errors=flat,
            headers=headers,
        )
    code = {
        404: "route.not_found",
        405: "method.not_allowed",
        413: "request.too_large",
        415: "request.media_type",
        431: "request.header_too_large",
    }.get(status, f"http.{status}")
    return problem(status, code, error.description or error.name, title=error.name, headers=headers)


def _flatten(messages: Any, path: str = "$") -> list[dict[str, str]]:
    """Turn webargs/marshmallow's nested message dicts into ``[{path, message}]``."""
    out: list[dict[str, str]] = []
    if isinstance(messages, dict):
        for key, value in messages.items():
            if path == "$" and key in ("json", "query", "headers"):
                out += _flatten(value, path)
            else:
                out += _flatten(value, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}")
    elif isinstance(messages, list):
        for item in messages:
            if isinstance(item, (dict, list)):
                out += _flatten(item, path)
            else:
                out.append({"path": path, "message": str(item)})
    else:
        out.append({"path": path, "message": str(messages)})
    return out


def register(app: Flask) -> None:
    """Route every exception through :func:`from_exception`."""
    app.register_error_handler(Exception, from_exception)
