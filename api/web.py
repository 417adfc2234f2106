"""Small helpers the blueprints share: the strict JSON body parser, headers, versions and ETags.

Every request body is read here, once, by :func:`load_json`: it refuses what the standard
library parser would let through to crash a later layer (a body nested 100,000 deep, a
5,001-digit number, ``NaN``, a lone UTF-16 surrogate that no UTF-8 encoder accepts), each
with a 400 a client can act on. The blueprints get it through :class:`Blueprint`, whose
webargs parser reads bodies with :func:`load_json`.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Mapping, TypeVar, cast
from urllib.parse import urlencode

import flask_smorest
from flask import Request, request
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from webargs.multidictproxy import MultiDictProxy
from werkzeug.datastructures import MultiDict

from api.schemas import MAX_RECORDER
from api.service import BadRequest
from api.service.words import grouped
from engines.said import Counted, Said
from schemas import MAX_INTEGER, strict

MAX_DEPTH = 32
"""How deeply arrays and objects may nest in a request body (the deepest real body, an amend
of a deal, nests 7 levels)."""

MAX_DIGITS = 30
"""The most digits a number in a body may have; a longer one is refused before it is converted.
Integers of up to 30 digits still reach the schemas, which name the field that is out of range."""

MAX_IDEMPOTENCY_KEY = 200
"""The longest ``Idempotency-Key``."""

RAW_BODIES = frozenset({"/matches/import"})
"""Paths whose body is a file (an archive or text notation), not JSON: they check the media type
themselves, and take up to ``TANTEO_MAX_IMPORT`` bytes instead of ``MAX_CONTENT_LENGTH``."""

BODY_CUT = "tanteo.body_cut"
"""WSGI environment key: the server read a chunked body only to one byte past its route's limit
(api/fanout.py), so its length is not known, only that it is too long."""

MAX_HEADER = 8192
"""The longest single header value the app reads; a longer one is a 431."""

_ESCAPE = re.compile(r"\\.", re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class BodyError(BadRequest):
    """A request body refused while parsing; ``path`` is where, when a value is to blame."""

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(code, message)
        self.path = path


def _too_deep(text: str) -> bool:
    """Return whether arrays/objects in ``text`` nest deeper than :data:`MAX_DEPTH` (strings skipped)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    # once escapes are gone, quotes alternate: every other piece between them is outside strings
    outside = "".join(_ESCAPE.sub("", text).split('"')[::2])
    brackets = _NOT_BRACKETS.sub("", outside)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH


_TOO_DEEP = Said("the body nests arrays and objects more than %(most)s levels deep", most=MAX_DEPTH)


def _not_json(error: json.JSONDecodeError) -> str:
    """Why a body is not JSON, where: Python's own words for it (``Expecting value``), said from
    a message id each, so that a reader reads them in their language."""
    where = {"line": error.lineno, "column": error.colno}
    why = error.msg.lower()
    if why == "expecting value":
        return Said("the request body is not valid JSON: expecting value at line %(line)s, column %(column)s", **where)
    if why == "expecting property name enclosed in double quotes":
        return Said(
            "the request body is not valid JSON: expecting property name enclosed in double quotes "
            "at line %(line)s, column %(column)s",
            **where,
        )
    if why == "expecting ':' delimiter":
        return Said(
            "the request body is not valid JSON: expecting ':' delimiter at line %(line)s, column %(column)s", **where
        )
    if why == "expecting ',' delimiter":
        return Said(
            "the request body is not valid JSON: expecting ',' delimiter at line %(line)s, column %(column)s", **where
        )
    if why == "unterminated string starting at":
        return Said(
            "the request body is not valid JSON: unterminated string starting at line %(line)s, column %(column)s",
            **where,
        )
    if why.startswith("invalid control character"):
        return Said(
            "the request body is not valid JSON: invalid control character at line %(line)s, column %(column)s",
            **where,
        )
    if why == "invalid \\uxxxx escape":
        return Said(
            "the request body is not valid JSON: invalid \\uxxxx escape at line %(line)s, column %(column)s", **where
        )
    if why.startswith("invalid \\escape"):
        return Said("the request body is not valid JSON: invalid \\escape at line %(line)s, column %(column)s", **where)
    if why == "extra data":
        return Said("the request body is not valid JSON: extra data at line %(line)s, column %(column)s", **where)
    return Said("the request body is not valid JSON: %(why)s at line %(line)s, column %(column)s", why=why, **where)


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise BadRequest(
            "request.number_too_large",
            Said(
                "the body holds a number with %(digits)s digits; no field accepts more than %(most)s "
                "(send a smaller number)",
                digits=len(text.lstrip("-")),
                most=grouped(MAX_INTEGER),
            ),
        )
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or len(text) > MAX_DIGITS + 10:
        raise BadRequest(
            "request.number_too_large",
            Said("the body holds a number too large to be read (%(number)s…)", number=text[:20]),
        )
    return value


def _constant(name: str) -> None:
    raise BadRequest("request.malformed_json", Said("%(name)s is not a JSON value: JSON numbers are finite", name=name))


def _lone_surrogate(value: Any, path: str = "$") -> str | None:
    """Return the JSON path of the first string (or key) holding a lone UTF-16 surrogate."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return where
        elif isinstance(node, dict):
            for key, item in node.items():
                child = f"{where}.{key}"
                try:
                    key.encode("utf-8")
                except UnicodeEncodeError:
                    return child.encode("utf-8", "replace").decode()
                stack.append((item, child))
        elif isinstance(node, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(node))
    return None


def load_json(data: bytes) -> Any:
    """Parse a request body strictly: UTF-8 JSON, at most :data:`MAX_DEPTH` deep, finite numbers.

    Raises:
        BadRequest: ``request.invalid_text`` (not UTF-8, or a lone surrogate such as ``\\udfff``,
            with its path), ``request.too_deep``, ``request.number_too_large`` or
            ``request.malformed_json``.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(
            "request.invalid_text",
            Said("the body is not UTF-8 text (byte %(byte)s cannot start a character)", byte=error.start),
        ) from None
    if _too_deep(text):
        raise BadRequest("request.too_deep", _TOO_DEEP)
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise BadRequest("request.malformed_json", _not_json(error)) from None
    except RecursionError:  # a fallback: _too_deep already refuses anything this deep
        raise BadRequest("request.too_deep", _TOO_DEEP) from None
    if _SURROGATE_ESCAPE.search(text):
        where = _lone_surrogate(value)
        if where is not None:
            raise BodyError(
                "request.invalid_text",
                Said(
                    "%(where)s: the text holds a lone UTF-16 surrogate (an escape such as \\udfff that "
                    "is half of a pair), which is not a character",
                    where=where,
                ),
                where,
            )
    if "\\u0000" in text:  # JSON has no raw NUL in a string: only this escape writes one
        where = strict.first_nul(value)
        if where is not None:
            raise BodyError("request.nul_character", strict.nul_message(where), where)
    return value


def whole_number(text: str, *, what: str, code: str, lowest: int = 0, highest: int = MAX_INTEGER) -> int:
    """Read a whole number a route takes from outside the body (a header, a path part): ASCII
    digits within ``lowest`` to ``highest`` (:func:`schemas.strict.whole_number`).

    Raises:
        BadRequest: ``code``, saying what was expected.
    """
    try:
        return strict.whole_number(text, what=what, lowest=lowest, highest=highest)
    except strict.NotAccepted as refused:
        raise BadRequest(code, refused.message) from None


def odd_headers(environ: Mapping[str, Any] | None = None) -> bool:
    """Whether any header of the request (``environ``: its WSGI environment, the current
    request's by default) is too long or holds a NUL: one pass, so that the usual request pays
    no more (the append is the hot path)."""
    values = [
        value
        for key, value in (request.environ if environ is None else environ).items()
        if (key[:5] == "HTTP_" or key in ("CONTENT_TYPE", "CONTENT_LENGTH")) and isinstance(value, str)
    ]
    return bool(values) and (max(map(len, values)) > MAX_HEADER or strict.NUL in "".join(values))


def refuse_nul_in_request(*, headers: bool = True) -> None:
    """Refuse a request whose address, query or headers hold a NUL character (U+0000), for every
    route at once: PostgreSQL cannot store or even compare one (a match id or a filter holding
    one was a 500 there), and RFC 9110 calls such a header value invalid.

    ``headers``: look at the headers too (False when :func:`odd_headers` found none odd).

    Raises:
        BadRequest: ``request.nul_character``, naming where.
    """
    if strict.NUL in request.path:
        raise BadRequest("request.nul_character", strict.nul_message(Said("the address (a match id or a name in it)")))
    query = request.environ.get("QUERY_STRING", "")
    # A NUL in the query is sent as %00 (or raw): the query is parsed to name it only then.
    for name, value in request.args.items(multi=True) if "%00" in query or strict.NUL in query else ():
        if strict.NUL in name or strict.NUL in value:
            raise BadRequest(
                "request.nul_character", strict.nul_message(Said("the query parameter %(name)s", name=quoted(name)))
            )
    for name, value in request.headers.items() if headers else ():
        if strict.NUL in value:
            raise BadRequest(
                "request.nul_character", strict.nul_message(Said("the %(name)s header", name=quoted(name)))
            )


EVERY_ROUTE = frozenset({"lang"})
"""Query parameters every route takes: ``lang``, the reader's language (api/i18n.py)."""


class ArgumentsParser(FlaskParser):
    """webargs' Flask parser, reading JSON bodies with :func:`load_json` (cached per request),
    and refusing a query parameter its route does not read.

    webargs drops unknown query parameters by default, so a typo answered as if it were
    absent: ``?limt=10`` gave the whole replay, ``/matches?limit=5`` fifty matches. A script
    writer now learns it at once, with the parameters the route does read.
    """

    def pre_load(self, location_data: Any, *, schema: Any, req: Request, location: str) -> Any:
        if location in ("query", "querystring"):
            if EVERY_ROUTE.intersection(location_data):  # read by the app itself, never by a route's schema
                kept = MultiDict([(k, v) for k, v in req.args.items(multi=True) if k not in EVERY_ROUTE])
                location_data = MultiDictProxy(kept, schema)
            known = {f.data_key or name for name, f in schema.fields.items() if not f.dump_only}
            unknown = sorted(name for name in location_data if name not in known)
            if unknown:
                said = ", ".join(quoted(name) for name in unknown[:3]) + (", …" if len(unknown) > 3 else "")
                raise BadRequest(
                    "request.unknown_parameter",
                    Said(
                        "this route reads no query parameter %(unknown)s; it reads %(known)s",
                        unknown=said,
                        known=", ".join(sorted(known)),
                    ),
                )
        return location_data

    def _raw_load_json(self, req: Request) -> Any:
        return json_body(req)


def json_body(req: Request) -> Any:
    """The request's JSON body read by :func:`load_json`, once per request (webargs' parser and
    a view that reads its body itself share it); ``webargs.core.missing`` when there is none."""
    if not is_json_request(req):
        return core.missing
    cached = getattr(req, "_tanteo_json", core.missing)
    if cached is core.missing:
        data = req.get_data(cache=True)
        cached = load_json(data) if data.strip() else core.missing
        req._tanteo_json = cached  # type: ignore[attr-defined]
    return cached


class InvalidBody(BodyError):
    """A body whose envelope is wrong (a missing, unknown or mistyped top-level field), said as
    webargs says an invalid body (``request.invalid``, the first error's path, every error)."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        first = errors[0]
        where = Said("%(where)s: %(message)s", where=first["path"], message=first["message"])
        super().__init__("request.invalid", where, first["path"])
        self.errors = errors


def quoted(name: str) -> str:
    """Quote a name taken from the request (a query parameter, a match id, a game) for a message:
    at most 40 characters, control characters dropped, never as Python writes a string."""
    return strict.shown(name)


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's blueprint with the strict body parser."""

    ARGUMENTS_PARSER = ArgumentsParser()


View = TypeVar("View", bound=Callable[..., Any])


def called_directly(view: View) -> View:
    """Call ``view`` itself on each request, keeping what flask-smorest's decorators documented.

    Each flask-smorest decorator (``response``, ``alt_response``, ``doc``) wraps the view in one
    more function, which on every request looks the app up and asks whether the view is a
    coroutine: on the append, a dozen of them were a tenth of its time (issue 32). Put this
    outermost on a view that reads its own body and returns what Flask makes a response of
    as it is (a dict is sent as JSON, with the status and headers given): the wrappers' record
    (``_apidoc``, read when the OpenAPI document is built) is kept, their work at call time is
    not done, so a view whose arguments flask-smorest parses is refused here.
    """
    documented = getattr(view, "_apidoc", {})
    if "arguments" in documented:
        raise TypeError(f"{view.__qualname__}: flask-smorest parses its arguments, so its wrappers must run")
    inner = inspect.unwrap(view)
    inner._apidoc = documented  # type: ignore[attr-defined]
    return cast(View, inner)


def bearer_token() -> str | None:
    """Return the token of an ``Authorization: Bearer …`` header, or None."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def recorder() -> str:
    """Return the ``X-Recorder`` header (who records), or "".

    Raises:
        BadRequest: ``request.recorder_too_long``.
    """
    name = request.headers.get("X-Recorder", "")
    if len(name) > MAX_RECORDER:
        raise BadRequest(
            "request.recorder_too_long",
            Said(
                "X-Recorder is %(length)s characters long; a recorder's name has at most %(most)s",
                length=len(name),
                most=MAX_RECORDER,
            ),
        )
    return name


def idempotency_key() -> str | None:
    """Return the ``Idempotency-Key`` header, or None.

    Raises:
        BadRequest: ``request.idempotency_key_too_long``.
    """
    key = request.headers.get("Idempotency-Key") or None
    if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
        raise BadRequest(
            "request.idempotency_key_too_long",
            Said(
                "Idempotency-Key is %(length)s characters long; at most %(most)s are allowed",
                length=len(key),
                most=MAX_IDEMPOTENCY_KEY,
            ),
        )
    return key


def expected_version(body_value: int | None) -> int | None:
    """Read the expected version from ``If-Match: "n"`` or the body's ``expectedVersion``.

    Raises:
        BadRequest: an If-Match that is no version, or one that contradicts the body.
    """
    header = request.headers.get("If-Match")
    if header is None:
        return body_value
    raw = header.strip().removeprefix("W/").strip('"')
    number, _, encoding = raw.partition(":")  # the ETag of a compressed answer: "5:gzip" (api/app.py compress)
    if encoding in COMPRESSED_SUFFIXES:
        raw = number
    if not strict.is_whole_number(raw) or len(raw) > len(str(MAX_INTEGER)) or int(raw) > MAX_INTEGER:
        raise BadRequest(
            "request.bad_if_match", Said('If-Match must be a version in quotes, like "3"; got %(got)s', got=header[:40])
        )
    version = int(raw)
    if body_value is not None and body_value != version:
        raise BadRequest(
            "request.version_mismatch",
            Said("If-Match says %(header)s but expectedVersion says %(body)s", header=version, body=body_value),
        )
    return version


COMPRESSED_SUFFIXES = frozenset({"zstd", "br", "gzip", "deflate"})
"""What flask-compress appends to a strong ETag it compresses the answer of (``"5"`` becomes ``"5:gzip"``)."""


def etag(version: int) -> dict[str, str]:
    """Return the ETag header for a match version."""
    return {"ETag": f'"{version}"'}


def page_links(headers: dict[str, str], **next_args: int | None) -> dict[str, str | None]:
    """Return a page's ``links`` (``next``: this request's URL with ``next_args`` set, or None at
    the end) and add the matching ``Link: <…>; rel="next"`` header (RFC 8288) to ``headers``."""
    if any(v is None for v in next_args.values()):
        return {"next": None}
    args = {k: v for k, v in request.args.items() if k not in next_args and k not in ("start", "after", "from")}
    args.update({k: str(v) for k, v in next_args.items()})
    url = f"{request.path}?{urlencode(args)}"
    headers["Link"] = f'<{url}>; rel="next"'
    return {"next": url}


def read_headers(version: int) -> dict[str, str]:
    """Return the headers of a read whose body depends on the write token (private facts shown or not)."""
    return {**etag(version), "Vary": "Authorization"}


class StreamsBusy(Exception):
    """Every stream this process may hold is open: a 503 with Retry-After, never a stalled server."""

    def __init__(self, limit: int) -> None:
        self.message: str = Counted(
            "%(n)s live streams are open on this server, its most; the page keeps working "
            "and follows the match again in a few seconds",
            "%(n)s live streams are open on this server, its most; the page keeps working "
            "and follows the match again in a few seconds",
            limit,
        )
        super().__init__(self.message)


SECURITY_HEADERS = {
    "Content-Security-Policy": "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",  # Swagger UI draws its icons as data: SVGs in its stylesheet
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Sent on every response, pages, API, errors and static files alike (:func:`create_app`'s
``protect``). The pages load only the server's own scripts and stylesheets, with no inline
script, handler or style attribute (``element.style`` set from a script is not one: the CSP
governs markup, not the CSSOM), so a script that slipped into a page would not run. No page
may be framed: the scoring page writes with the key stored in the browser, one click-jacking
away from a forged entry; the one exception is the read-only scoreboard made for clubs' websites
(``/m/{id}/embed``, api/viewer.py), which writes nothing and sets its own policy. No referrer leaves: the
write key travels after ``#``, which browsers never send, and nothing else of a match's
address needs to reach another site either."""
