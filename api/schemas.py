"""marshmallow schemas for the HTTP shapes only: request envelopes, query strings, responses.

Event payloads (``data``) are never re-declared here: the JSON Schemas in ``schemas/`` are
their contract, checked by the service. Integers in JSON bodies are strict (``2.5`` or
``"7"`` is not a version); query-string integers arrive as text and are parsed.
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from schemas import MAX_INTEGER, strict

MAX_RECORDER = 100
"""The longest recorder name (the ``X-Recorder`` header or the body's ``by``)."""


def _shape(name: str) -> dict[str, object]:
    """Document a passed-through value by one of the fixed shapes of ``api/openapi.py``."""
    return {"$ref": f"#/components/schemas/{name}"}


def _list_of(name: str, description: str = "") -> fields.List:
    """A list of passed-through objects, documented as the fixed shape ``name``."""
    return fields.List(
        fields.Dict(metadata={"allOf": [_shape(name)]}),
        required=True,
        metadata={"description": description} if description else {},
    )


class Problem(Schema):
    """An RFC 9457 problem, as every error is returned."""

    type = fields.String()
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String(metadata={"description": "stable error code, e.g. la-cabra.cannot_beat"})
    path = fields.String(metadata={"description": "JSON path of the offending value in the request"})
    index = fields.Integer(metadata={"description": "index of the refused event in the batch"})
    seq = fields.Integer(metadata={"description": "the earlier event a rule names"})
    rule = fields.String(
        metadata={"description": "a rule violation: the link to the rule it breaks, /rules/{game}#{anchor}"}
    )
    currentVersion = fields.Integer()
    errors = fields.List(fields.Dict())


class MatchStartBody(Schema):
    """The ``match_started`` data (VOCABULARY.md §2); its fields are checked by the game's JSON Schema."""

    class Meta:
        unknown = "include"


class EventIn(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(
        required=True,
        validate=validate.Regexp(
            r"^[a-z][a-z_]*$", error="an event type is lowercase words joined by _, like play or call_cabo"
        ),
        metadata={"description": "event type in the game's vocabulary"},
    )
    data = fields.Dict(required=True, metadata={"description": "payload, checked by the game's JSON Schema"})


MAX_BATCH = 10000
"""The most events one append carries."""


class AppendBody(Schema):
    """The envelope of an append, and only it: each event in ``events`` is checked once, by the
    service, against the JSON Schemas of an event as sent and of its type (``schemas/``), so
    nothing here repeats that work (issue 32). The OpenAPI document shows the events' schema
    from ``schemas/`` (``api/openapi.py``)."""

    class Meta:
        unknown = RAISE

    events = fields.List(fields.Raw(), required=True, validate=validate.Length(min=1, max=MAX_BATCH))
    expectedVersion = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(min=1, max=MAX_INTEGER),
        metadata={"description": "the version you last saw (or If-Match)"},
    )
    by = fields.String(validate=validate.Length(max=MAX_RECORDER), metadata={"description": "who records"})


class MatchCreated(Schema):
    id = fields.String(required=True)
    token = fields.String(
        required=True, metadata={"description": "write token: send it as 'Authorization: Bearer <token>'"}
    )
    version = fields.Integer(required=True)
    head = fields.String()


class Appended(Schema):
    version = fields.Integer(required=True)
    head = fields.String(required=True)


class TokenRotated(Schema):
    id = fields.String()
    token = fields.String(metadata={"description": "the new write token; the one sent stops working"})


_META = {
    "title": lambda: fields.String(allow_none=True, metadata={"description": "match_started.title, as amended"}),
    "date": lambda: fields.String(allow_none=True, metadata={"description": "match_started.date (YYYY-MM-DD)"}),
    "place": lambda: fields.String(allow_none=True),
    "tags": lambda: fields.List(fields.String()),
    "series": lambda: fields.Dict(
        allow_none=True,
        metadata={
            "description": "match_started.series: the series' id, this match's number, the one before it, the first dealer"
        },
    ),
}


class MatchSummary(Schema):
    id = fields.String()
    game = fields.String()
    players = fields.List(fields.String())
    status = fields.String()
    title = _META["title"]()
    date = _META["date"]()
    place = _META["place"]()
    tags = _META["tags"]()
    series = _META["series"]()
    createdAt = fields.String()
    version = fields.Integer()
    head = fields.String()
    hands = fields.Integer()
    standings = _list_of("Standing")
    end = fields.Dict(required=True, metadata={"allOf": [_shape("End")]})
    confirmation = fields.String(
        metadata={"enum": ["none", "opponents", "all"], "description": "which seats confirm each hand (option)"}
    )
    seats = _list_of("SeatKeys")


class SeatKeyIssued(Schema):
    seat = fields.Integer()
    key = fields.String(
        metadata={"description": "the seat's key, shown once: it confirms and contests that seat's hands"}
    )
    link = fields.String(metadata={"description": "the page a player's phone opens: the key rides in the fragment"})
    version = fields.Integer()


class SignerBody(Schema):
    publicKey = fields.Dict(
        required=True,
        metadata={"description": "the seat's ECDSA P-256 public key as a JWK {kty: EC, crv: P-256, x, y}"},
    )


class SignerRegistered(Schema):
    version = fields.Integer()
    head = fields.String()


class MatchListItem(Schema):
    id = fields.String()
    game = fields.String()
    players = fields.List(fields.String())
    status = fields.String()
    title = _META["title"]()
    date = _META["date"]()
    place = _META["place"]()
    tags = _META["tags"]()
    version = fields.Integer()
    createdAt = fields.String()


class MatchList(Schema):
    items = fields.List(fields.Nested(MatchListItem))
    total = fields.Integer()
    page = fields.Integer()
    perPage = fields.Integer()


class Words(fields.String):
    """A sentence for a person (an engine's or the service's words): passed to the JSON encoder as it
    is, so it is said in the reader's language there; ``fields.String`` would make it plain English."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value if isinstance(value, str) else super()._serialize(value, attr, obj, **kwargs)


class WholeNumber(fields.Integer):
    """A query-string integer, read as :mod:`schemas.strict` reads every whole number: ASCII
    digits only (``int()`` alone took ``٣`` as 3, ``1_0`` as 10 and `` 7`` as 7), at most 20 of
    them; the range is the field's ``validate``."""

    default_error_messages = {
        "invalid": "Not a whole number: write it with the digits 0 to 9.",
        "too_large": "Too large a number.",
    }

    def _validated(self, value: Any) -> int:
        if isinstance(value, str):
            if not strict.is_whole_number(value, signed=True):
                raise self.make_error("invalid")
            if len(value.lstrip("-")) > 20:
                raise self.make_error("too_large")
        return super()._validated(value)


class MatchFilters(Schema):
    """Which matches a listing keeps: the list, its CSV and the archive of every match filter alike."""

    game = fields.String(validate=validate.Length(max=40))
    player = fields.String(validate=validate.Length(max=40))
    status = fields.String(validate=validate.OneOf(["playing", "over"]))
    tag = fields.String(validate=validate.Length(min=1, max=40), metadata={"description": "one of the match's tags"})
    place = fields.String(
        validate=validate.Length(min=1, max=200), metadata={"description": "the match's place, ignoring case"}
    )
    date = fields.Date(metadata={"description": "the day the match was played"})


def match_filters(query: dict[str, Any]) -> dict[str, Any]:
    """The loaded filters as the service takes them (the date as written, YYYY-MM-DD)."""
    return {**query, "date": query["date"].isoformat()} if "date" in query else query


class MatchListQuery(MatchFilters):
    page = WholeNumber(load_default=1, validate=validate.Range(min=1, max=MAX_INTEGER))
    perPage = WholeNumber(load_default=50, validate=validate.Range(min=1, max=500))


class EventsQuery(Schema):
    after = WholeNumber(load_default=0, validate=validate.Range(min=0, max=MAX_INTEGER))
    from_ = WholeNumber(
        data_key="from",
        validate=validate.Range(min=1, max=MAX_INTEGER),
        metadata={"description": "the first seq to return (the same as after = from - 1)"},
    )
    limit = WholeNumber(load_default=1000, validate=validate.Range(min=1, max=10000))


class Envelope(Schema):
    seq = fields.Integer()
    type = fields.String()
    data = fields.Dict()
    at = fields.String()
    by = fields.String()
    key = fields.String(allow_none=True)
    prev = fields.String()
    hash = fields.String()
    format = fields.Integer(metadata={"description": "the chain format the hash was computed with (1 or 2)"})
    private = fields.List(
        fields.Dict(),
        metadata={
            "description": "format 2, when the values are shown: each private value's path in data, salt and "
            "commitment (docs/HTTP.md 'Chain formats')"
        },
    )


class EventPage(Schema):
    events = fields.List(fields.Nested(Envelope))
    version = fields.Integer()
    next = fields.Integer(allow_none=True, metadata={"description": "the `after` for the next page, or null"})
    links = fields.Dict(
        metadata={"description": "`next`: the URL of the next page, or null (also sent as a Link header)"}
    )


class SeatField(fields.Field):
    """A seat number, a player's name, or ``all`` for the omniscient view (names are resolved by the service)."""

    def _deserialize(self, value, attr, data, **kwargs):  # type: ignore[no-untyped-def]
        if not isinstance(value, str) or not value.strip() or len(value) > 200:
            raise self.make_error("invalid")
        if value == "all":
            return "all"
        # a number only in ASCII digits: "²" passed isdigit() and then crashed int() (a 500)
        return int(value) if strict.is_whole_number(value, signed=True) and len(value) <= 20 else value

    default_error_messages = {"invalid": "write a seat number (0, 1, …), a player's name or all"}


_HAND = WholeNumber(
    validate=validate.Range(min=1, max=100000),
    metadata={"description": "a hand, 1-based, voided hands not counted (with move or trick, or alone: its end)"},
)
_MOVE = WholeNumber(
    validate=validate.Range(min=0, max=100000),
    metadata={
        "description": "the move within the hand (or trick), 1-based; 0 is the deal. "
        "Claims, notes, reveals and corrections are not moves"
    },
)
_TRICK = WholeNumber(
    validate=validate.Range(min=1, max=100000),
    metadata={"description": "the trick within the hand, 1-based (games with tricks: La Cabra)"},
)


class StateQuery(Schema):
    at = WholeNumber(
        validate=validate.Range(min=1, max=MAX_INTEGER),
        metadata={"description": "the step (event seq); default the last"},
    )
    hand = _HAND
    move = _MOVE
    trick = _TRICK
    seat = SeatField(
        metadata={"description": "seat number, player's name, or 'all' (needs the token until the match is over)"}
    )


class StateOut(Schema):
    id = fields.String()
    version = fields.Integer()
    at = fields.Integer()
    hand = fields.Integer(allow_none=True, metadata={"description": "given when the state was asked by hand"})
    move = fields.Integer(allow_none=True)
    trick = fields.Integer(allow_none=True)
    seat = fields.Raw(allow_none=True)
    disclosed = fields.Boolean(
        metadata={"description": "whether private facts are shown (write token, or the match is over)"}
    )
    state = fields.Dict()
    hash = fields.String(metadata={"description": "with `at`: the hash of event `at`"})
    proof = fields.Dict(
        metadata={
            "description": "with `at`: the envelopes from `at`+1 to the head, to recompute the "
            "chain from `hash` to `head`"
        }
    )


class ReplayQuery(Schema):
    seat = SeatField()
    course = fields.String(load_default="corrected", validate=validate.OneOf(["corrected", "recorded"]))
    start = WholeNumber(load_default=1, validate=validate.Range(min=1, max=MAX_INTEGER))
    from_ = WholeNumber(
        data_key="from",
        validate=validate.Range(min=1, max=MAX_INTEGER),
        metadata={"description": "the first step to return (the same as start)"},
    )
    stop = WholeNumber(validate=validate.Range(min=1, max=MAX_INTEGER))
    limit = WholeNumber(
        validate=validate.Range(min=1, max=10000),
        metadata={"description": "at most this many frames (default: all up to stop)"},
    )
    at = WholeNumber(validate=validate.Range(min=1, max=MAX_INTEGER), metadata={"description": "the same as stop"})
    hand = _HAND
    move = _MOVE
    trick = _TRICK


class ReplayOut(Schema):
    id = fields.String()
    version = fields.Integer()
    course = fields.String()
    seat = fields.Raw(allow_none=True)
    disclosed = fields.Boolean()
    frames = fields.List(fields.Dict())
    next = fields.Integer(allow_none=True, metadata={"description": "the `from` of the next page, or null"})
    links = fields.Dict(
        metadata={"description": "`next`: the URL of the next page, or null (also sent as a Link header)"}
    )


class LegalMovesOut(Schema):
    id = fields.String()
    version = fields.Integer()
    disclosed = fields.Boolean()
    moves = fields.List(fields.Dict())


class AuditOut(Schema):
    rules = fields.Dict(
        metadata={
            "description": "the rules version recorded and the current one, "
            "with the hands another version scores otherwise"
        }
    )
    id = fields.String()
    version = fields.Integer()
    hands = _list_of("Hand")
    standings = _list_of("Standing")
    end = fields.Dict(required=True, metadata={"allOf": [_shape("End")]})
    claims = _list_of("Claim", "one entry per claimed value compared")
    orphaned = fields.List(
        fields.Dict(),
        metadata={"description": "claims about a hand whose deal was voided: nothing to compare them with"},
    )
    firstDivergence = fields.Dict(
        required=True,
        allow_none=True,
        metadata={"anyOf": [_shape("Claim"), {"type": "null"}], "description": "the first disagreeing claim, or null"},
    )
    firstIrregularity = fields.Dict(
        allow_none=True,
        metadata={
            "description": "the first irregular move (a move the rules refuse, recorded as played: "
            "`seq`, the rule's `code` and English `message`) of a hand that stands, or null; "
            "each such hand lists its own in `irregular`"
        },
    )
    corrections = fields.List(fields.Dict(), required=True)
    disputes = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "every dispute with its state (open, upheld, rejected, withdrawn), its ruling and the correction "
            "an upheld ruling carried; `irregular`: the seq of the irregular move the service opened it for"
        },
    )
    chain = fields.Dict(required=True, metadata={"allOf": [_shape("Chain")]})
