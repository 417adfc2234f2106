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
import re
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, request
from flask_limiter.errors import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from api import i18n, rulebook
from api.service import AuthError, BadRequest, EventRefused
from api.service.transfer import ImportBusy, ImportStopped, NothingImported, OutOfTime, TooLarge
from api.service.words import grouped, ordinal_suffix, said
from api.service.clubs import ClubNotFound
from engines.base import RuleViolation, UnknownGame
from api.web import InvalidBody, StreamsBusy, quoted
from ledger import ConcurrencyConflict, IdempotencyConflict, MatchExists, MatchNotFound, StorageUnavailable
from engines.said import Counted, Joined, Said
from schemas import SchemaError

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
    """Build one problem+json response, its words in the reader's language.

    ``title``, ``detail`` and every other sentence of the body (an import's report, a schema's
    ``errors``) may be an engine's, the service's or the ledger's words
    (:class:`engines.said.Said`): each is said again in the request's language
    (:func:`api.i18n.say`, the one translation) before the body is encoded. The ``code``, the
    status and the field names are the same in every language.
    """
    body = {
        "type": f"tag:tanteo,2026:problem/{code}",
        "title": title or _TITLES.get(status, Said("Error")),
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    response = current_app.response_class(current_app.json.dumps(_said(body)), status=status, mimetype=PROBLEM)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _said(value: Any) -> Any:
    """The body with every sentence in it said in the reader's language now (the ledger's words
    made the engines' first), so that no encoder's fallback can write one as its English."""
    if isinstance(value, dict):
        return {key: _said(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_said(item) for item in value]
    if isinstance(value, str):
        return str(i18n.say(said(value)))
    return value


def event_in_batch(index: int) -> str:
    """Say an event's place in a batch as people count: index 1 is "the 2nd event of the batch".

    One message id per English ordinal suffix, so that the English reads as before and each
    language writes its own ordinal ("la 2a anotació", "la 2.ª anotación", "der 2. Eintrag")."""
    n = index + 1
    suffix = ordinal_suffix(n)
    if suffix == "st":
        return Said("the %(n)sst event of the batch", n=n)
    if suffix == "nd":
        return Said("the %(n)snd event of the batch", n=n)
    if suffix == "rd":
        return Said("the %(n)srd event of the batch", n=n)
    return Said("the %(n)sth event of the batch", n=n)


def _in_batch(index: int, message: str) -> str:
    """A refusal of the ``index``-th event of a batch: where it stands, then why."""
    return Said("%(where)s: %(message)s", where=event_in_batch(index), message=message)


_TITLES = {
    400: Said("Bad request"),
    401: Said("Token required"),
    403: Said("Wrong token"),
    404: Said("Not found"),
    405: Said("Method not allowed"),
    409: Said("Version conflict"),
    413: Said("Body too large"),
    415: Said("Unsupported media type"),
    422: Said("Refused by the rules"),
    429: Said("Too many requests"),
    431: Said("Header too large"),
    500: Said("Internal error"),
    503: Said("Storage unavailable"),
}

STORAGE: dict[str, tuple[int, str]] = {
    # reason: (Retry-After seconds, what a person is told)
    "busy": (
        1,
        Said(
            "the match database was busy with other writes for too long, so nothing was recorded; "
            "send the same request again in a moment"
        ),
    ),
    "full": (
        60,
        Said("the server's disk is full, so nothing was recorded; try again once its operator has freed space"),
    ),
    "read_only": (
        300,
        Said(
            "the match database is read-only at the moment, so nothing can be recorded; "
            "reading matches still works, try recording again later"
        ),
    ),
    "io": (
        30,
        Said(
            "the server could not read or write its storage; if you were recording, reload the match to see "
            "whether your events arrived before sending them again (an Idempotency-Key makes a retry safe)"
        ),
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
            where = f"$.events[{index}]{error.within}"  # the event's data, or the event itself as sent
            return problem(
                400,
                schema.code,
                _in_batch(index, schema.message),
                title=Said("Schema violation"),
                index=index,
                message=schema.message,
                path=_schema_path(where, schema.path),
                errors=[{**e, "path": _schema_path(where, e["path"])} for e in schema.errors],
            )
        case EventRefused(error=RuleViolation() as rule, index=index):
            extra: dict[str, Any] = {"seq": rule.seq} if rule.seq is not None else {}
            return problem(
                422,
                rule.code,
                _in_batch(index, rule.message),
                index=index,
                message=rule.message,
                **extra,
                **_rule(rule.code, error.game),
            )
        case SchemaError():
            return problem(
                400, error.code, error.message, title=Said("Schema violation"), path=error.path, errors=error.errors
            )
        case RuleViolation():
            seq: dict[str, Any] = {"seq": error.seq} if error.seq is not None else {}
            return problem(422, error.code, error.message, **seq, **_rule(error.code, None))
        case AuthError(code="auth.missing"):
            return problem(401, error.code, error.message, headers={"WWW-Authenticate": 'Bearer realm="tanteo"'})
        case AuthError():
            return problem(403, error.code, error.message)
        case ClubNotFound():
            return problem(404, "club.not_found", Said("club %(club)s not found", club=quoted(error.match_id)))
        case MatchNotFound():
            return problem(404, "match.not_found", Said("match %(match)s not found", match=quoted(error.match_id)))
        case UnknownGame():
            return problem(
                404,
                "game.unknown",
                Said("there is no game %(game)s; GET /games lists them", game=quoted(str(error.game))),
            )
        case ConcurrencyConflict():
            return problem(
                409,
                "version.conflict",
                Said(
                    "you expected version %(expected)s but the match is at version %(current)s: "
                    "reload it and record your events again",
                    expected=error.expected,
                    current=error.current,
                ),
                currentVersion=error.current,
                headers={"ETag": f'"{error.current}"'},
            )
        case IdempotencyConflict():
            # draft-ietf-httpapi-idempotency-key-header: a key reused with another body is 422
            return problem(422, "idempotency.key_reused", _key_reused(error), title=Said("Idempotency key reused"))
        case MatchExists():
            return problem(409, "match.exists", Said("match %(match)s already exists", match=quoted(error.match_id)))
        case NothingImported():
            return problem(
                422, "import.nothing_imported", error.message, title=Said("Nothing imported"), **error.report
            )
        case ImportStopped(cause=OutOfTime()):
            # the matches stored before it are said with their new tokens: nowhere else to find them
            return problem(422, "import.time_limit", error.message, title=Said("Import stopped"), **error.report)
        case ImportStopped(cause=TooLarge()):
            return problem(413, "import.too_large", error.message, title=Said("Import stopped"), **error.report)
        case ImportBusy():
            return problem(
                503,
                "import.busy",
                error.message,
                title=Said("Another import is running"),
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
        case InvalidBody():
            return _invalid_request(error.errors)
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
    detail = repr(error) if current_app.debug else Said("the server failed; nothing was written")
    return problem(500, "server.error", detail)


def _key_reused(error: IdempotencyConflict) -> str:
    """Why a reused ``Idempotency-Key`` is refused, naming the key (and the match, when known)."""
    if error.match_id is None:
        return Said(
            "idempotency key %(key)s was already used for different events; "
            "a retry must repeat the same events, new events need a new key",
            key=quoted(error.key),
        )
    return Said(
        "idempotency key %(key)s was already used on match %(match)s for different events; "
        "a retry must repeat the same events, new events need a new key",
        key=quoted(error.key),
        match=quoted(error.match_id),
    )


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
        Said(
            "this address has started or imported matches %(count)s times within %(window)s, the most the server "
            "takes; nothing was recorded: try again in %(wait)s s",
            count=rate.amount,
            window=_window(rate),
            wait=wait,
        ),
        headers={"Retry-After": str(wait)},
    )


_ONE_UNIT = {
    "second": Said("a second"),
    "minute": Said("a minute"),
    "hour": Said("an hour"),
    "day": Said("a day"),
    "month": Said("a month"),
    "year": Said("a year"),
}


def _window(rate: Any) -> str:
    """Say a rate's window as people do: "a minute", "10 seconds"."""
    unit = type(rate).__name__.removeprefix("RateLimitItemPer").lower()
    n = rate.multiples
    if n == 1 and unit in _ONE_UNIT:
        return _ONE_UNIT[unit]
    if unit == "second":
        return Counted("%(n)s second", "%(n)s seconds", n)
    if unit == "minute":
        return Counted("%(n)s minute", "%(n)s minutes", n)
    if unit == "hour":
        return Counted("%(n)s hour", "%(n)s hours", n)
    if unit == "day":
        return Counted("%(n)s day", "%(n)s days", n)
    if unit == "month":
        return Counted("%(n)s month", "%(n)s months", n)
    return Counted("%(n)s year", "%(n)s years", n)


_CODES = {
    404: "route.not_found",
    405: "method.not_allowed",
    413: "request.too_large",
    415: "request.media_type",
    431: "request.header_too_large",
}
"""The codes of Werkzeug's own errors."""


def _from_http(error: HTTPException) -> Response:
    """Werkzeug's and webargs' errors (unknown route, wrong method, unparsable body) as problems,
    in our own words: a description a view gave (a Said, or a sentence already in the reader's
    language) is kept, Werkzeug's stock English is not."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    headers: dict[str, str] = {}
    if getattr(error, "valid_methods", None):
        headers["Allow"] = ", ".join(error.valid_methods)  # type: ignore[attr-defined]
    if messages:
        flat = flatten_messages(messages)
        if any("Invalid JSON body" in m["message"] for m in flat):
            return problem(
                400,
                "request.malformed_json",
                Said("the request body is not valid JSON"),
                title=Said("Malformed JSON"),
            )
        return _invalid_request(flat or [{"path": "$", "message": Said("invalid request")}], headers)
    own = error.description if error.description and error.description != type(error).description else None
    return problem(
        status,
        _CODES.get(status, f"http.{status}"),
        own or _stock(error, status),
        title=_TITLES.get(status, Said("Error")),
        headers=headers,
    )


def _invalid_request(errors: list[dict[str, str]], headers: dict[str, str] | None = None) -> Response:
    """A 400 for a request whose arguments or body envelope are wrong: the first error's path
    and message, and every error."""
    first = errors[0]
    return problem(
        400,
        "request.invalid",
        Said("%(where)s: %(message)s", where=first["path"], message=first["message"]),
        title=Said("Invalid request"),
        path=first["path"],
        errors=errors,
        headers=headers,
    )


def _stock(error: HTTPException, status: int) -> str:
    """Our own sentence for a Werkzeug error raised with its stock English description."""
    if status == 404:
        return Said(
            "there is nothing at %(path)s on this server; /docs lists the API's routes", path=quoted(request.path)
        )
    if status == 405:
        return Said(
            "%(path)s does not take %(method)s; it takes %(allowed)s",
            path=quoted(request.path),
            method=request.method,
            allowed=", ".join(sorted(getattr(error, "valid_methods", None) or ())),
        )
    if status == 413:
        limit = request.max_content_length
        if limit is not None:
            return Said("the body is larger than this server accepts (%(limit)s bytes at most)", limit=grouped(limit))
        return Said("the body is larger than this server accepts")
    if status == 415:
        return Said("this route does not take a body of this media type")
    if status == 431:
        return Said("a request header is too long for this server")
    return Said("the server could not handle this request (HTTP %(status)s)", status=str(status))


_VALIDATION = {
    "Missing data for required field.": Said("Missing data for required field."),
    "Field may not be null.": Said("Field may not be null."),
    "Invalid value.": Said("Invalid value."),
    "Not a valid integer.": Said("Not a valid integer."),
    "Not a valid number.": Said("Not a valid number."),
    "Number too large.": Said("Number too large."),
    "Not a valid string.": Said("Not a valid string."),
    "Not a valid utf-8 string.": Said("Not a valid utf-8 string."),
    "Not a valid boolean.": Said("Not a valid boolean."),
    "Not a valid date.": Said("Not a valid date."),
    "Not a valid list.": Said("Not a valid list."),
    "Not a valid mapping type.": Said("Not a valid mapping type."),
    "Invalid type.": Said("Invalid type."),
    "Invalid input type.": Said("Invalid input type."),
    "Unknown field.": Said("Unknown field."),
    "String does not match expected pattern.": Said("String does not match expected pattern."),
    "Special numeric values (nan or infinity) are not permitted.": Said(
        "Special numeric values (nan or infinity) are not permitted."
    ),
    # api/schemas.py's own
    "Not a whole number: write it with the digits 0 to 9.": Said(
        "Not a whole number: write it with the digits 0 to 9."
    ),
    "Too large a number.": Said("Too large a number."),
    "write a seat number (0, 1, …), a player's name or all": Said(
        "write a seat number (0, 1, …), a player's name or all"
    ),
    "an event type is lowercase words joined by _, like play or call_cabo": Said(
        "an event type is lowercase words joined by _, like play or call_cabo"
    ),
}
"""Marshmallow's messages (and those ``api/schemas.py`` gives its fields), each as a message id:
Marshmallow formats them into plain English text, so they are said again here, by their text."""

_BOUND = r"(-?\d[\d.]*)"
_VALIDATION_FORMS: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (
        re.compile(rf"Must be greater than or equal to {_BOUND} and less than or equal to {_BOUND}\."),
        lambda low, high: Said(
            "Must be greater than or equal to %(min)s and less than or equal to %(max)s.", min=low, max=high
        ),
    ),
    (
        re.compile(rf"Must be greater than or equal to {_BOUND}\."),
        lambda low: Said("Must be greater than or equal to %(min)s.", min=low),
    ),
    (
        re.compile(rf"Must be less than or equal to {_BOUND}\."),
        lambda high: Said("Must be less than or equal to %(max)s.", max=high),
    ),
    (
        re.compile(rf"Length must be between {_BOUND} and {_BOUND}\."),
        lambda low, high: Said("Length must be between %(min)s and %(max)s.", min=low, max=high),
    ),
    (
        re.compile(rf"Longer than maximum length {_BOUND}\."),
        lambda high: Said("Longer than maximum length %(max)s.", max=high),
    ),
    (
        re.compile(rf"Shorter than minimum length {_BOUND}\."),
        lambda low: Said("Shorter than minimum length %(min)s.", min=low),
    ),
    (re.compile(rf"Length must be {_BOUND}\."), lambda equal: Said("Length must be %(equal)s.", equal=equal)),
    (
        re.compile(r"Must be one of: (.+)\."),
        lambda choices: Said("Must be one of: %(choices)s.", choices=Joined(choices.split(", "), ", ")),
    ),
]
"""Marshmallow's messages that name a bound or the choices: their English, and its message id."""


def _number(text: str) -> Any:
    """A bound as Marshmallow wrote it: a whole number stays a number (each language groups its
    digits its own way); anything else stays as written."""
    return int(text) if text.lstrip("-").isdigit() and text.isascii() else text


def _validation(text: str) -> str:
    """Say a Marshmallow message again from its message id, so that the reader reads it in their
    language; a message this table does not know stays as it is."""
    if text in _VALIDATION:
        return _VALIDATION[text]
    for form, said_as in _VALIDATION_FORMS:
        found = form.fullmatch(text)
        if found:
            return said_as(*(_number(group) for group in found.groups()))
    return text


def flatten_messages(messages: Any, path: str = "$") -> list[dict[str, str]]:
    """Turn webargs/marshmallow's nested message dicts into ``[{path, message}]``."""
    out: list[dict[str, str]] = []
    if isinstance(messages, dict):
        for key, value in messages.items():
            if path == "$" and key in ("json", "query", "headers"):
                out += flatten_messages(value, path)
            else:
                out += flatten_messages(value, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}")
    elif isinstance(messages, list):
        for item in messages:
            if isinstance(item, (dict, list)):
                out += flatten_messages(item, path)
            else:
                out.append({"path": path, "message": _validation(str(item))})
    else:
        out.append({"path": path, "message": _validation(str(messages))})
    return out


def register(app: Flask) -> None:
    """Route every exception through :func:`from_exception`."""
    app.register_error_handler(Exception, from_exception)
