"""Export and import: the lossless JSON Lines archive, the portable text notation, spreadsheets.

Thin views over :mod:`api.service.transfer`: they pick the format from the query or the
request's media type and stream the service's lines back.
"""

from __future__ import annotations

import codecs
import hmac
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView
from api.web import Blueprint, bearer_token, recorder
from marshmallow import Schema, fields, validate
from werkzeug.exceptions import RequestEntityTooLarge, UnsupportedMediaType

from api.context import current_service
from api.i18n import current_language
from api.schemas import MatchFilters, Problem, Words, match_filters
from api.service import AuthError, transfer
from engines.said import Said
from replays.lines import lines_of

blp = Blueprint(
    "exports", __name__, description="Export a match or a database (archive, text notation, CSV) and import files"
)

NDJSON = "application/x-ndjson"
ARCHIVE_TYPES = frozenset({NDJSON, "application/jsonl", "application/json-lines", "application/x-jsonlines"})
TEXT = "text/plain"


class ExportQuery(Schema):
    format = fields.String(
        load_default="text",
        validate=validate.OneOf(["text", "jsonl"]),
        metadata={"description": "text: the portable notation (docs/NOTATION.md); jsonl: the lossless archive"},
    )


class ExportAllQuery(MatchFilters):
    format = fields.String(
        load_default="jsonl",
        validate=validate.OneOf(["jsonl"]),
        metadata={"description": "jsonl: the lossless archive, one event per line, match after match"},
    )


class ImportedMatch(Schema):
    id = fields.String()
    token = fields.String(metadata={"description": "a new write token for the imported match"})
    version = fields.Integer()
    head = fields.String()
    lines = fields.List(fields.Integer(), metadata={"description": "first and last line of the match in the file"})


class ImportErrorEntry(Schema):
    line = fields.Integer()
    column = fields.Integer(allow_none=True)
    code = fields.String()
    message = Words()
    match = fields.String(allow_none=True)


MORE_ERRORS = fields.Integer(
    metadata={
        "description": "how many more errors were found than the first 100 listed (present only when there were more)"
    }
)
MORE_ERRORS_DETAIL = Words(metadata={"description": "the same, in words"})
UNREAD_LINES = fields.Integer(
    metadata={
        "description": "how many lines at the end of the file were not read: what came before showed it is no "
        "Tanteo record (more than 100 errors and nothing importable, or no match tags in a text's first 1,000 "
        "lines), so the import stopped reading there (present only then)"
    }
)
UNREAD_LINES_DETAIL = Words(metadata={"description": "the same, in words"})


class ImportProblem(Problem):
    """Nothing imported, or the import stopped: the problem, with the whole report beside it."""

    imported = fields.List(fields.Nested(ImportedMatch))
    unchanged = fields.List(fields.Nested(ImportedMatch))
    moreErrors = MORE_ERRORS
    moreErrorsDetail = MORE_ERRORS_DETAIL
    unreadLines = UNREAD_LINES
    unreadLinesDetail = UNREAD_LINES_DETAIL


class ImportReport(Schema):
    imported = fields.List(fields.Nested(ImportedMatch))
    unchanged = fields.List(fields.Nested(ImportedMatch), metadata={"description": "matches already stored, identical"})
    errors = fields.List(fields.Nested(ImportErrorEntry), metadata={"description": "the first 100 errors in the file"})
    moreErrors = MORE_ERRORS
    moreErrorsDetail = MORE_ERRORS_DETAIL
    unreadLines = UNREAD_LINES
    unreadLinesDetail = UNREAD_LINES_DETAIL


def _import_key() -> None:
    """Refuse an import without the server's import key, when it has one (``TANTEO_IMPORT_KEY``).

    Raises:
        AuthError: ``auth.missing`` (401) without a bearer token, ``auth.wrong`` (403) with another one.
    """
    key = current_app.config.get("TANTEO_IMPORT_KEY")
    if not key:
        return
    given = bearer_token()
    if given is None:
        raise AuthError(
            "auth.missing",
            Said(
                "importing on this server needs its import key: send "
                "'Authorization: Bearer <import key>' (ask the server's operator for it)"
            ),
        )
    if not hmac.compare_digest(given.encode("utf-8", "replace"), str(key).encode("utf-8")):
        raise AuthError("auth.wrong", Said("this is not the server's import key"))


def _body() -> tuple[bytes, Callable[[int], bytes]]:
    """Return the body's first bytes (for :func:`transfer.compressed`) and a ``read`` for the whole
    body from its start, read from the request's stream as it is consumed, never whole."""
    stream = request.stream
    head = b""
    while len(head) < 8:
        more = stream.read(8 - len(head))  # a limit this small is refused before: RequestEntityTooLarge is a 413
        if not more:
            break
        head += more
    unread = [head]
    limit = request.max_content_length
    consumed = len(head)

    def read(size: int) -> bytes:
        nonlocal consumed
        if unread:
            return unread.pop()
        if limit is not None:  # never ask past the limit: the lines up to it are imported
            size = max(1, min(size, limit - consumed))
        try:
            chunk = stream.read(size)
        except RequestEntityTooLarge:  # a body without a length, past the limit: said with what was stored
            raise transfer.TooLarge(int(limit or 0)) from None
        consumed += len(chunk)
        return chunk  # type: ignore[no-any-return]

    return head, read


def _text_lines(lines: Iterator[bytes], charset: str) -> Iterator[str]:
    for line in lines:
        yield line.decode(charset, "replace")


def _stream(lines: Any, mimetype: str, filename: str) -> Response:
    return Response(lines, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@blp.route("/matches/<match_id>/export")
class Export(MethodView):
    @blp.arguments(ExportQuery, location="query", error_status_code=400)
    @blp.alt_response(404, schema="Problem", description="no such match")
    @blp.alt_response(403, schema="Problem", description="a token that is not this match's")
    @blp.doc(
        responses={
            "200": {
                "description": "the match as text (text/plain) or as the archive (application/x-ndjson)",
                "content": {TEXT: {"schema": {"type": "string"}}, NDJSON: {"schema": {"type": "string"}}},
            }
        },
        security=[{"bearer": []}, {}],
    )
    def get(self, query: dict[str, Any], match_id: str) -> Response:
        """Export one match: the portable text notation (default) or the lossless archive."""
        service = current_service()
        token = bearer_token()
        if query["format"] == "text":
            text = transfer.match_text(service, match_id, token=token)
            return _stream(iter([text.encode("utf-8")]), TEXT, f"{match_id}.tnt")
        lines = list(transfer.match_lines(service, match_id, token=token))  # errors before the first byte
        return _stream(iter(lines), NDJSON, f"{match_id}.jsonl")


@blp.route("/matches/export")
class ExportAll(MethodView):
    @blp.arguments(ExportAllQuery, location="query", error_status_code=400)
    @blp.doc(
        responses={
            "200": {
                "description": "every match the filters keep, as one archive",
                "content": {NDJSON: {"schema": {"type": "string"}}},
            }
        }
    )
    def get(self, query: dict[str, Any]) -> Response:
        """Export every match (filtered as the list) as one archive."""
        query.pop("format")
        # Read whole before answering: the request's ledger connection closes at teardown.
        lines = list(transfer.all_lines(current_service(), **match_filters(query)))
        return _stream(iter(lines), NDJSON, "tanteo.jsonl")


@blp.route("/matches/import")
class Import(MethodView):
    @blp.response(201, ImportReport)
    @blp.alt_response(200, schema=ImportReport, description="every match of the file is already stored, identical")
    @blp.alt_response(
        422,
        schema=ImportProblem,
        description="nothing was imported (code import.nothing_imported), or "
        "the import ran past the server's time budget (code import.time_limit, TANTEO_IMPORT_SECONDS) "
        "and stopped: a problem that also carries imported (with their new tokens), unchanged and "
        "errors (the first 100 by line; moreErrors counts the rest)",
    )
    @blp.alt_response(415, schema="Problem", description="neither an archive nor text")
    @blp.alt_response(
        401, schema="Problem", description="the server has an import key (TANTEO_IMPORT_KEY) and none was sent"
    )
    @blp.alt_response(403, schema="Problem", description="a bearer token that is not the server's import key")
    @blp.alt_response(
        503,
        schema=ImportProblem,
        description="another import is running (import.busy, with Retry-After: "
        "one import at a time per server process), or the storage failed (storage.full, storage.busy, "
        "…): nothing was written, or, when the problem carries imported matches, those were stored "
        "before it, each whole, and their new tokens are said nowhere else; importing the file again "
        "reports them as unchanged and imports the rest",
    )
    @blp.doc(
        requestBody={
            "required": True,
            "content": {
                NDJSON: {
                    "schema": {"type": "string"},
                    "example": '{"match": "…", "seq": 1, "type": "match_started", …}\n',
                },
                TEXT: {"schema": {"type": "string"}},
            },
        },
        security=[{"bearer": []}, {}],
    )
    def post(self) -> Any:
        """Import an archive (application/x-ndjson) or text notation (text/plain); each match on its own.

        The body is read a line at a time as the import goes (memory is what the matches hold,
        not what the file weighs); the report lists the first 100 errors and counts the rest;
        the import stops after ``TANTEO_IMPORT_SECONDS``; one import runs at a time in a server
        process (another answers 503 ``import.busy``); with ``TANTEO_IMPORT_KEY`` set, the
        import needs it as a bearer token.
        """
        _import_key()
        mimetype = request.mimetype
        by = recorder()
        running = current_app.extensions["tanteo.import"]
        if not running.acquire(blocking=False):
            raise transfer.ImportBusy()
        try:
            head, read = _body()
            packed = transfer.compressed(head)
            if packed:
                raise UnsupportedMediaType(
                    Said(
                        "the body is compressed (%(kind)s): send the archive (%(archive)s) or the text notation "
                        "(%(text)s) unpacked",
                        kind=packed[0],
                        archive=NDJSON,
                        text=TEXT,
                    )
                )
            if mimetype not in ARCHIVE_TYPES and mimetype != TEXT:
                raise UnsupportedMediaType(
                    Said("send an archive as %(archive)s or the text notation as %(text)s", archive=NDJSON, text=TEXT)
                )
            charset = request.mimetype_params.get("charset", "utf-8")
            try:
                codecs.lookup(charset)
            except LookupError:
                raise UnsupportedMediaType(
                    Said(
                        "the body's charset is not one this server reads: send the file as UTF-8 "
                        "('Content-Type: %(type)s; charset=utf-8')",
                        type=mimetype,
                    )
                ) from None
            seconds = current_app.config["TANTEO_IMPORT_SECONDS"]
            lines = lines_of(read)
            if mimetype in ARCHIVE_TYPES:
                report = transfer.import_archive(current_service(), lines, seconds=seconds, rest=lines.count_rest)
            else:
                report = transfer.import_text(
                    current_service(), _text_lines(lines, charset), by=by, seconds=seconds, rest=lines.count_rest
                )
        finally:
            running.release()
        if not report["imported"] and report["errors"]:
            raise transfer.NothingImported(report)
        return report, 201 if report["imported"] else 200


CSV = "text/csv"
"""The spreadsheets' type: the response adds its charset (utf-8); written here, it was sent twice."""


@blp.route("/matches/<match_id>/sheet.csv")
class SheetCsv(MethodView):
    @blp.alt_response(404, schema="Problem", description="no such match")
    @blp.doc(
        responses={
            "200": {
                "description": "hands × players (or teams) and the totals",
                "content": {"text/csv": {"schema": {"type": "string"}}},
            }
        }
    )
    def get(self, match_id: str) -> Response:
        """The score sheet as a spreadsheet: one row per hand, one column per player, then the totals."""
        return _stream(
            iter([transfer.sheet_csv(current_service(), match_id, current_language()).encode("utf-8")]),
            CSV,
            f"{match_id}.csv",
        )


@blp.route("/matches.csv")
class MatchesCsv(MethodView):
    @blp.arguments(MatchFilters, location="query", error_status_code=400)
    @blp.doc(
        responses={"200": {"description": "one row per match", "content": {"text/csv": {"schema": {"type": "string"}}}}}
    )
    def get(self, query: dict[str, Any]) -> Response:
        """Every match (filtered as the list) as a spreadsheet: title, date, place, game, players, winners, totals."""
        return _stream(
            iter([transfer.matches_csv(current_service(), current_language(), **match_filters(query)).encode("utf-8")]),
            CSV,
            "matches.csv",
        )
