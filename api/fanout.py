"""What ``tanteo serve`` runs: the Flask app under uvicorn, with the live streams held by one fan-out.

Every request goes to the Flask app, through a2wsgi's worker threads, as under any WSGI
server: the stream's view checks it there (a missing match is a 404, a bad ``Last-Event-ID`` a
400, too many followers a 503, each from the one error table) and reads what the follower has
missed, through the one reader (:func:`api.stream.public_events`). Then, instead of holding a
worker thread for minutes with a body that polls the ledger, the view hands the follower over
(:class:`Follow`, left in the request's ASGI scope) and the worker thread is free again. Here,
on uvicorn's event loop, the follower waits for its match's :class:`Hub`.

One hub per followed match (or club night) in each server process, whatever its number of
followers: when the match changes, the hub reads the new events once, through the one reader
(the public view), on a small thread pool of its own, and hands the same frames to every
follower. Whether the match changed is asked of the ledger by one thread per process for
every match at once (:meth:`ledger.base.Ledger.changes`: on SQLite one indexed query every
50 ms; on PostgreSQL any server's announcement of an append, so several servers on one
database follow each other). A wake-up lost on the way (a PostgreSQL listener reconnecting)
costs at most :data:`api.stream.WAIT_SECONDS`: every hub with followers reads again then.

Each follower keeps what the old thread-per-stream body kept: ``retry:`` first, its
``Last-Event-ID`` (the view's read starts after it), ``?delay=`` (each frame sent only once it
is that old, which holds the frames after it too), a heartbeat comment when quiet, and the
end of the response after ``TANTEO_STREAM_SECONDS`` so the browser reconnects. A follower that
falls more than :data:`KEEP` frames behind its hub reads what it missed from the ledger itself.

The asynchronous server is uvicorn and the WSGI bridge is a2wsgi, both kept libraries; this
module is the glue between them and the ledger, not an event loop or a message broker.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from a2wsgi import WSGIMiddleware
from flask import Flask

from api.context import own_service
from api.service import Service
from api.web import BODY_CUT, RAW_BODIES

log = logging.getLogger("tanteo.fanout")

FOLLOW = "tanteo.follow"
"""The key of the ASGI scope where a stream's view leaves its :class:`Follow`."""

KEEP = 1000
"""Frames a hub keeps for followers that are a little behind (a slow phone, a held delay)."""

RETRY_MS = 1000
"""How soon a browser reconnects a stream that ended (SSE ``retry:``), with its ``Last-Event-ID``."""

READERS = 2
"""Threads that read the ledger for the hubs of one process (each keeps its own connection)."""


@dataclass(frozen=True)
class Frame:
    """One SSE event, written once for every follower: its seq (or count), its time, its text."""

    seq: int
    at: datetime | None
    text: bytes


@dataclass
class Follow:
    """What a stream's view hands over: whom to follow, from where, and how.

    ``hub`` names the hub (``("match", id)`` or ``("night", club, night)``); ``read(after)``
    returns the frames after a seq as an open reader sees them (run on the hubs' threads, with
    a service of their own); ``first`` is what the view read already and ``reached`` the seq
    the follower stands at after them; ``known`` a seq the match surely reached (a new hub
    starts reading after it: never past the log, whatever ``Last-Event-ID`` said);
    ``whole``: each frame is the whole state (a night's versions), so only the newest one
    matters, and any append may change it; ``now`` is the app's clock (``?delay=``);
    ``release`` gives the view's stream slot back when the follower leaves.
    """

    hub: tuple[str, ...]
    read: Callable[[Service, int], list[Frame]]
    first: list[Frame]
    reached: int
    known: int
    delay: float
    now: Callable[[], datetime]
    heartbeat: float
    max_seconds: float
    release: Callable[[], None]
    whole: bool = False


@dataclass(eq=False)
class _Follower:
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False


class Hub:
    """One reader of one match (or night) for all its followers in this process."""

    def __init__(self, follow: Follow) -> None:
        self.key = follow.hub
        self.read = follow.read
        self.whole = follow.whole
        self.head = follow.known
        self.base = follow.known
        """Frames after ``base`` are all in ``recent``."""
        self.recent: list[Frame] = []
        self.keep = KEEP
        self.followers: set[_Follower] = set()
        self.reading = False
        self.again = False
        self.read_at = 0.0
        """When the ledger was last read for this hub (the loop's clock)."""

    def frames_after(self, seq: int) -> list[Frame] | None:
        """The kept frames after ``seq``; None when the follower is further behind than they reach.

        A match's frames are its seqs one after another, so the answer is a slice, not a search:
        every follower asks on every event, and a room holds thousands of them.
        """
        if self.whole:
            return [frame for frame in self.recent if frame.seq > seq]
        if seq < self.base:
            return None
        return self.recent[seq - self.base :]

    def add(self, frames: list[Frame]) -> None:
        for frame in frames:
            if frame.seq <= self.head:
                continue
            if not self.whole and frame.seq != self.head + 1:  # a gap (never, in a log): start the window anew
                self.recent, self.base = [], frame.seq - 1
            self.recent.append(frame)
            self.head = frame.seq
        if len(self.recent) > 2 * self.keep:  # trimmed now and then, so a slice stays cheap
            dropped = len(self.recent) - self.keep
            self.base = self.recent[dropped - 1].seq
            del self.recent[:dropped]
        elif self.whole and len(self.recent) > 1:
            del self.recent[:-1]
            self.base = self.head - 1
        for follower in self.followers:
            follower.wake.set()


class Fanout:
    """The hubs of one server process, the thread that watches the ledger, and the followers."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.hubs: dict[tuple[str, ...], Hub] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.readers = ThreadPoolExecutor(READERS, thread_name_prefix="tanteo-fanout")
        self.local = threading.local()
        self.stopped = threading.Event()
        self.tasks: set[asyncio.Task[None]] = set()
        """The hubs' reads and the sweep, held here: the loop keeps only weak references to tasks."""

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- the ledger's side (threads) --------------------------------------------------------

    def _service(self) -> Service:
        """The reading thread's service (its own ledger connection, the app's cache)."""
        service: Service | None = getattr(self.local, "service", None)
        if service is None:
            service = self.local.service = own_service(self.app)
        return service

    def _read(self, read: Callable[[Service, int], list[Frame]], after: int) -> list[Frame]:
        return read(self._service(), after)

    def _watch(self) -> None:
        """Ask the ledger what changed, for every match at once, and tell the loop (one thread per process)."""
        ledger = self.app.extensions["tanteo.ledgers"].get()
        mark: int | None = None
        while not self.stopped.is_set():
            try:
                if mark is None:
                    mark = ledger.feed_end()
                mark, versions = ledger.changes(mark, 1.0)
            except Exception:  # storage away for a moment: the hubs' periodic reads cover the gap
                log.warning("the fan-out could not ask the ledger for changes", exc_info=True)
                self.stopped.wait(1.0)
                continue
            if versions and self.loop is not None:
                self.loop.call_soon_threadsafe(self._changed, versions)

    # -- the loop's side ----------------------------------------------------------------------

    def _start(self) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            threading.Thread(target=self._watch, name="tanteo-fanout-watch", daemon=True).start()
            self._spawn(self._sweep(float(self.app.config.get("TANTEO_STREAM_WAIT", 5.0))))

    def _changed(self, versions: dict[str, int]) -> None:
        for hub in list(self.hubs.values()):
            if hub.key[0] == "match":
                if versions.get(hub.key[1], 0) > hub.head:
                    self._refresh(hub)
            else:  # a night: any table, or the club's log, may have changed it
                self._refresh(hub)

    async def _sweep(self, every: float) -> None:
        """Read a followed hub that has not been read for ``every`` seconds, in case a wake-up was lost.

        Only those: a room of busy tables is read at each of their events anyway, and reading
        them all at once every few seconds made the scorers' appends wait behind a burst of reads.
        """
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every / 4)
            for hub in list(self.hubs.values()):
                if loop.time() - hub.read_at >= every:
                    self._refresh(hub)

    def _refresh(self, hub: Hub) -> None:
        if hub.reading:
            hub.again = True
            return
        hub.reading = True
        self._spawn(self._read_hub(hub))

    async def _read_hub(self, hub: Hub) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                hub.again = False
                hub.read_at = loop.time()
                try:
                    frames = await loop.run_in_executor(self.readers, self._read, hub.read, hub.head)
                except Exception:  # a read that failed is tried again at the next change or sweep
                    log.warning("the fan-out could not read %s", hub.key, exc_info=True)
                    return
                hub.add(frames)
                if not hub.again:
                    return
        finally:
            hub.reading = False

    async def follow(self, follow: Follow, receive: Any, send: Any) -> None:
        """Write one follower's stream until it leaves or its time is up, then give its slot back."""
        try:
            self._start()
            hub = self.hubs.get(follow.hub)
            if hub is None:
                hub = self.hubs[follow.hub] = Hub(follow)
                self._refresh(hub)  # anything stored since the view read
            follower = _Follower()
            hub.followers.add(follower)
            watching = asyncio.get_running_loop().create_task(_watch_disconnect(receive, follower))
            try:
                await self._write(hub, follow, follower, send)
            finally:
                watching.cancel()
                hub.followers.discard(follower)
                if not hub.followers and self.hubs.get(hub.key) is hub:
                    del self.hubs[hub.key]
        finally:
            follow.release()

    async def _write(self, hub: Hub, follow: Follow, follower: _Follower, send: Any) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        quiet_since = started
        pending = list(follow.first)
        reached = follow.reached

        async def write(text: bytes) -> None:
            await send({"type": "http.response.body", "body": text, "more_body": True})

        await write(f"retry: {RETRY_MS}\n\n".encode())
        while not follower.gone:
            now = follow.now()
            due: float | None = None
            while pending:
                frame = pending[0]
                if follow.delay and frame.at is not None:
                    age = (now - frame.at).total_seconds()
                    if age < follow.delay:
                        due = follow.delay - age
                        break
                await write(frame.text)
                pending.pop(0)
                quiet_since = loop.time()
            clock = loop.time()
            if clock - started >= follow.max_seconds:
                break
            if clock - quiet_since >= follow.heartbeat:
                await write(b": heartbeat\n\n")
                quiet_since = clock
            timeout = min(quiet_since + follow.heartbeat - clock, started + follow.max_seconds - clock)
            if due is not None:
                timeout = min(timeout, due)
            if hub.head <= reached:
                await _sleep_until(follower.wake, max(0.0, timeout))
            newer = hub.frames_after(reached)
            if newer is None:  # fell behind the hub's kept frames: read what was missed
                try:
                    newer = await loop.run_in_executor(self.readers, self._read, follow.read, reached)
                except Exception:
                    log.warning("the fan-out could not read %s for a follower", hub.key, exc_info=True)
                    newer = []
            if newer:
                if follow.whole:
                    pending = newer[-1:]
                else:
                    pending.extend(newer)
                reached = newer[-1].seq
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _watch_disconnect(receive: Any, follower: _Follower) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    follower.gone = True
    follower.wake.set()


async def _sleep_until(event: asyncio.Event, seconds: float) -> None:
    """Wait for ``event`` at most ``seconds`` (a timer, not a task per wait), then clear it."""
    timer = asyncio.get_running_loop().call_later(seconds, event.set)
    try:
        await event.wait()
    finally:
        timer.cancel()
        event.clear()


def _whole_bodies(app: Flask) -> Any:
    """Give the app a chunked request's body with its length, as waitress did, read up to one
    byte past the largest body its route accepts (in memory up to a megabyte, then in a file).

    uvicorn hands a chunked body over as it comes, without a length, and werkzeug's reader then
    stops quietly at ``MAX_CONTENT_LENGTH``: an oversized body would be cut and parsed as
    broken JSON (a 400) instead of being refused as too large (a 413, api/app.py).
    """

    def wsgi(environ: dict[str, Any], start_response: Any) -> Any:
        if not environ.get("CONTENT_LENGTH") and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            raw = environ.get("PATH_INFO", "") in RAW_BODIES
            most = int(app.config["TANTEO_MAX_IMPORT"] if raw else app.config.get("MAX_CONTENT_LENGTH") or 0)
            body = tempfile.SpooledTemporaryFile(max_size=1 << 20)
            size, source = 0, environ["wsgi.input"]
            while size <= most:  # one byte past the limit is enough to refuse it
                chunk = source.read(min(1 << 16, most + 1 - size))
                if not chunk:
                    break
                body.write(chunk)
                size += len(chunk)
            body.seek(0)
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = body, str(size)
            environ[BODY_CUT] = size > most
            del environ["HTTP_TRANSFER_ENCODING"]  # the body is whole now, as waitress gave it
        return app(environ, start_response)

    return wsgi


class Served:
    """The ASGI application of ``tanteo serve``: the Flask app through a2wsgi, the streams through the fan-out."""

    def __init__(self, app: Flask, threads: int) -> None:
        self.fanout = Fanout(app)
        app.extensions["tanteo.fanout"] = self.fanout
        self.wsgi = WSGIMiddleware(_whole_bodies(app), workers=threads)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/stream"):  # no stream: the app answers alone
            await self.wsgi(scope, receive, send)  # type: ignore[arg-type]
            return

        async def answer(message: dict[str, Any]) -> None:
            if FOLLOW not in scope:
                await send(message)
            elif message["type"] == "http.response.start":  # the view's headers; the fan-out writes the body
                headers = [(name, value) for name, value in message["headers"] if name != b"content-length"]
                await send({**message, "headers": headers})

        await self.wsgi(scope, receive, answer)  # type: ignore[arg-type]
        follow = scope.get(FOLLOW)
        if follow is not None:
            await self.fanout.follow(follow, receive, send)
