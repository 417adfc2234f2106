"""GET /matches/{id}/stream: the log as Server-Sent Events, for pages and people following a match live.

One SSE event per stored event, in seq order: ``id:`` is the seq, ``data:`` the envelope as an
open reader sees it (the public view, never the write token's). A client that reconnects
sends ``Last-Event-ID`` (browsers do it by themselves; ``?lastEventId=`` for clients that
cannot set headers) and gets exactly the events after that seq: nothing lost, nothing twice.
``?delay=`` holds each event back until it is that many seconds old (a broadcast delay, as
live card and chess broadcasts use), timed by the ``at`` the ledger stored.

Under ``tanteo serve`` (uvicorn) the view checks the request here — a missing match, a bad
``Last-Event-ID`` or a full house answered from the one error table — reads what the follower
missed, and hands the follower over to the fan-out (:mod:`api.fanout`): one reader per followed
match in the process, no worker thread held. Under a plain WSGI server (the test client, any
other deployment) the response is a generator instead, on the worker thread: it polls the
ledger for newer events with a short sleep (on PostgreSQL it waits for the appends'
announcements instead), sends a comment line as a heartbeat when quiet (so proxies and the
browser keep the connection), and ends after a maximum duration. Either way the browser's
EventSource then reconnects with ``Last-Event-ID`` on its own (``retry:`` says how soon). The
tunables are app config: ``TANTEO_STREAM_POLL`` (seconds between polls, WSGI only),
``TANTEO_STREAM_WAIT`` (the longest wait for an announcement before reading anyway; under
the fan-out, how stale a followed hub may get before it is read again),
``TANTEO_STREAM_HEARTBEAT`` (seconds of quiet before a heartbeat) and ``TANTEO_STREAM_SECONDS``
(the longest a connection is kept).
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime
from typing import Any, Callable, Iterator

from flask import Response, current_app, request
from flask.views import MethodView
from api.web import Blueprint, StreamsBusy, whole_number
from marshmallow import Schema, fields, validate

from api.context import current_service, own_service
from api.fanout import FOLLOW, RETRY_MS, Follow, Frame
from api.schemas import Envelope, WholeNumber
from schemas import MAX_INTEGER
from api.service import Service
from api.service.desk import parse_at
from engines.said import Said

blp = Blueprint("stream", __name__, description="Follow a match live (Server-Sent Events)")

POLL_SECONDS = 0.2
HEARTBEAT_SECONDS = 15.0
MAX_SECONDS = 300.0
WAIT_SECONDS = 5.0
MAX_STREAMS = 4
"""Open streams one process serves at once (``TANTEO_MAX_STREAMS``; ``tanteo serve`` sets its
``--connection-limit``, 10,000, since its followers hold no thread). Under a plain WSGI server
each open stream holds a worker thread, so without a cap a handful of followers would leave no
thread for recording; past the cap a follower is told to come back later."""


class _Slots:
    """A count of open streams per app, taken before a stream starts and given back when it ends."""

    def __init__(self) -> None:
        self.open = 0
        self.lock = threading.Lock()

    def take(self, limit: int) -> None:
        with self.lock:
            if self.open >= limit:
                raise StreamsBusy(limit)
            self.open += 1

    def give_back(self) -> None:
        with self.lock:
            self.open -= 1


"""With a ledger that announces appends (PostgreSQL): the longest a quiet stream waits for an
announcement before reading the log anyway (``TANTEO_STREAM_WAIT``)."""


class StreamQuery(Schema):
    lastEventId = WholeNumber(
        validate=validate.Range(min=0, max=MAX_INTEGER),
        metadata={"description": "resume after this seq (for clients that cannot send the Last-Event-ID header)"},
    )
    delay = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0, max=3600),
        metadata={"description": "broadcast delay: send each event only once it is this many seconds old"},
    )


def public_events(service: Service, match_id: str, after: int) -> list[dict[str, Any]]:
    """Return the envelopes after seq ``after`` as an open reader sees them (no write token).

    See :func:`public_listing`, which also returns the match's version.

    The one place the stream reads the log: the service's listing for a reader without the
    token (:meth:`Service.events`, the one redaction of every listing), which shows private
    values only as their public placeholders while the match is in play.

    Raises:
        MatchNotFound: no such match.
    """
    return public_listing(service, match_id, after)[0]


def public_listing(service: Service, match_id: str, after: int) -> tuple[list[dict[str, Any]], int]:
    """Return the envelopes after seq ``after`` as an open reader sees them, and the match's version.

    The one place the streams read a match's log: the service's listing for a reader without
    the token (:meth:`Service.events`, the one redaction of every listing), which shows
    private values only as their public placeholders while the match is in play.

    Raises:
        MatchNotFound: no such match.
    """
    return service.events(match_id, after=after, token=None)


def resume_from(header: str | None, query: int | None) -> int:
    """Return the seq to resume after: the ``Last-Event-ID`` header, else ``?lastEventId=``, else 0.

    Raises:
        BadRequest: a header that is not a seq.
    """
    if header is not None and header.strip():
        return whole_number(
            header, what=Said("Last-Event-ID (the seq of an event, like 12)"), code="request.bad_last_event_id"
        )
    return query or 0


ENVELOPE = Envelope()


def frame(envelope: dict[str, Any]) -> str:
    """Format one envelope as an SSE event: its seq as ``id``, its JSON (one line, as ``GET /events`` shows it) as ``data``."""
    shown = ENVELOPE.dump(envelope)
    return f"id: {envelope['seq']}\ndata: {json.dumps(shown, ensure_ascii=False, separators=(',', ':'))}\n\n"


def sse(
    read: Callable[[int], list[dict[str, Any]]],
    after: int,
    *,
    delay: float,
    now: Callable[[], datetime],
    poll: float,
    heartbeat: float,
    max_seconds: float,
    first: list[dict[str, Any]] | None = None,
    wait: Callable[[int, float], object] | None = None,
    wait_at_most: float = WAIT_SECONDS,
    frame_of: Callable[[dict[str, Any]], str] = frame,
) -> Iterator[str]:
    """Yield the SSE text of a stream: every event after ``after`` as it is stored, heartbeats when quiet.

    ``read(after)`` returns the envelopes after a seq; ``first`` is an answer already read.
    Events are sent in seq order and only once they are ``delay`` seconds old, so a held
    event holds the ones after it too. ``wait(after, seconds)``, when the ledger can be woken
    by appends (PostgreSQL: any server's), replaces the polling sleep: it returns as soon as
    the match is past ``after``, else after at most ``wait_at_most`` seconds (a read then
    happens anyway, in case a wake-up was missed). ``frame_of`` writes one event (a match's
    envelope by default).
    """
    started = time.monotonic()
    quiet_since = started
    yield f"retry: {RETRY_MS}\n\n"
    pending = first if first is not None else read(after)
    while True:
        for envelope in pending:
            if delay and (now() - parse_at(envelope["at"])).total_seconds() < delay:
                break
            yield frame_of(envelope)
            after = envelope["seq"]
            quiet_since = time.monotonic()
        clock = time.monotonic()
        if clock - started >= max_seconds:
            return
        if clock - quiet_since >= heartbeat:
            yield ": heartbeat\n\n"
            quiet_since = clock
        held = any(envelope["seq"] > after for envelope in pending)  # read, kept back by the delay
        if wait is not None and not held:
            wait(after, max(0.0, min(wait_at_most, quiet_since + heartbeat - clock, started + max_seconds - clock)))
        else:
            time.sleep(poll)
        pending = read(after)


# The header is declared on the route, not with ``blp.doc(parameters=…)`` on the method: a manual
# ``parameters`` list replaces the one flask-smorest builds from StreamQuery, and the document
# lost ``lastEventId`` and ``delay``.
def _last_event_id(what: str) -> list[dict[str, Any]]:
    """The ``Last-Event-ID`` header of a stream's route, as the document lists it."""
    return [
        {
            "in": "header",
            "name": "Last-Event-ID",
            "schema": {"type": "string"},
            "description": f"resume after this {what} (browsers send it when they reconnect)",
        }
    ]


@blp.route("/matches/<match_id>/stream", parameters=_last_event_id("seq"))
class Stream(MethodView):
    @blp.arguments(StreamQuery, location="query", error_status_code=400)
    @blp.response(
        200,
        description="text/event-stream: one event per stored event (id = seq, data = the public "
        "envelope), comment lines as heartbeats",
        content_type="text/event-stream",
    )
    @blp.alt_response(400, schema="Problem", description="a Last-Event-ID or query that is no seq or delay")
    @blp.alt_response(404, schema="Problem")
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """Follow a match live: each event as it is stored, resumable with Last-Event-ID."""
        after = resume_from(request.headers.get("Last-Event-ID"), query.get("lastEventId"))
        service = current_service()
        first, version = public_listing(service, match_id, after)  # a missing match is a 404 before the stream starts
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        config = app.config

        def handover(release: Callable[[], None]) -> Follow:
            reached = first[-1]["seq"] if first else after
            return Follow(
                hub=("match", match_id),
                read=lambda reader, seq: [_match_frame(envelope) for envelope in public_events(reader, match_id, seq)],
                first=[_match_frame(envelope) for envelope in first],
                reached=reached,
                known=min(version, reached),
                delay=query["delay"],
                now=service.clock,
                release=release,
                **_held_timing(config),
            )

        def follow(service: Service) -> Iterator[str]:
            # PostgreSQL wakes the stream when any server appends (LISTEN/NOTIFY); others poll.
            woken = getattr(service.ledger, "wait_for_append", None)
            wait = None if woken is None else (lambda seq, seconds: woken(match_id, seq, seconds))
            yield from sse(
                lambda seq: public_events(service, match_id, seq),
                after,
                delay=query["delay"],
                now=service.clock,
                first=first,
                wait=wait,
                wait_at_most=float(config.get("TANTEO_STREAM_WAIT", WAIT_SECONDS)),
                **_timing(config),
            )

        return _stream(app, follow, handover)


def _match_frame(envelope: dict[str, Any]) -> Frame:
    return Frame(envelope["seq"], parse_at(envelope["at"]), frame(envelope).encode())


def _held_timing(config: Any) -> dict[str, float]:
    timing = _timing(config)
    return {"heartbeat": timing["heartbeat"], "max_seconds": timing["max_seconds"]}


def _timing(config: Any) -> dict[str, float]:
    return {
        "poll": float(config.get("TANTEO_STREAM_POLL", POLL_SECONDS)),
        "heartbeat": float(config.get("TANTEO_STREAM_HEARTBEAT", HEARTBEAT_SECONDS)),
        "max_seconds": float(config.get("TANTEO_STREAM_SECONDS", MAX_SECONDS)),
    }


def _stream(
    app: Any, follow: Callable[[Service], Iterator[str]], handover: Callable[[Callable[[], None]], Follow]
) -> Response:
    """Answer with an event stream: a slot taken now (503 ``stream.busy`` when none is left) and
    given back when the stream ends, however it ends.

    Under ``tanteo serve`` (uvicorn, :mod:`api.fanout`) the follower is handed over to the
    fan-out (``handover``) and this worker thread is free at once. Under a plain WSGI server
    (a test client, waitress) ``follow`` runs on the worker thread after the view returned,
    with a service of its own, and holds it for the stream's life.
    """
    slots: _Slots = app.extensions.setdefault("tanteo.streams", _Slots())
    slots.take(int(app.config.get("TANTEO_MAX_STREAMS", MAX_STREAMS)))
    scope = request.environ.get("asgi.scope")
    if scope is not None and "tanteo.fanout" in app.extensions:
        try:
            scope[FOLLOW] = handover(slots.give_back)
        except BaseException:
            slots.give_back()
            raise
        return Response(iter(()), mimetype="text/event-stream", headers=STREAM_HEADERS)

    def body() -> Iterator[str]:
        try:
            yield from follow(own_service(app))
        finally:  # the client left, the stream timed out or failed: the slot is free again
            slots.give_back()

    return Response(body(), mimetype="text/event-stream", headers=STREAM_HEADERS)


STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class NightQuery(Schema):
    lastEventId = WholeNumber(
        validate=validate.Range(min=0, max=MAX_INTEGER),
        metadata={"description": "resume after this count (for clients that cannot send the Last-Event-ID header)"},
    )


def _night_frame(change: dict[str, Any]) -> str:
    return f"id: {change['seq']}\ndata: {json.dumps(change, separators=(',', ':'))}\n\n"


@blp.route("/clubs/<club_id>/nights/<night_id>/stream", parameters=_last_event_id("count"))
class NightStream(MethodView):
    @blp.arguments(NightQuery, location="query", error_status_code=400)
    @blp.response(
        200,
        description="text/event-stream: an event each time a table of the night (or the night's list of "
        "tables) changes; id = the events stored so far across the night's tables and the club's log, "
        'data = {"seq", "tables": {match: version}}',
        content_type="text/event-stream",
    )
    @blp.alt_response(404, schema="Problem")
    @blp.alt_response(422, schema="Problem", description="no such night")
    def get(self, query: dict[str, Any], club_id: str, night_id: str) -> Any:
        """Follow a club night live with one stream, whatever its number of tables (a big screen, an organiser's phone)."""
        after = resume_from(request.headers.get("Last-Event-ID"), query.get("lastEventId"))
        service = current_service()
        count, tables = service.clubs.night_versions(club_id, night_id)  # a missing club or night answers first
        app = current_app._get_current_object()  # type: ignore[attr-defined]

        def changes(reader: Service, seen: int) -> list[dict[str, Any]]:
            count, tables = reader.clubs.night_versions(club_id, night_id)
            return [{"seq": count, "at": "", "tables": tables}] if count > seen else []

        def follow(reader: Service) -> Iterator[str]:
            yield from sse(
                lambda seen: changes(reader, seen),
                after,
                delay=0.0,
                now=reader.clock,
                frame_of=_night_frame,
                **_timing(app.config),
            )

        def handover(release: Callable[[], None]) -> Follow:
            def frames(reader: Service, seen: int) -> list[Frame]:
                return [Frame(change["seq"], None, _night_frame(change).encode()) for change in changes(reader, seen)]

            first = [Frame(count, None, _night_frame({"seq": count, "at": "", "tables": tables}).encode())]
            first = first if count > after else []
            return Follow(
                hub=("night", club_id, night_id),
                read=frames,
                first=first,
                reached=max(count, after),
                known=count,
                delay=0.0,
                now=service.clock,
                release=release,
                whole=True,
                **_held_timing(app.config),
            )

        return _stream(app, follow, handover)
