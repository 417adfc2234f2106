"""How a WSGI app is put on a port: the one place that chooses and sets up the HTTP server.

``tanteo serve`` and the benches' baselines both go through :func:`serve`, so a comparison
between Tanteo and a trivial app always runs both under the same server with the same settings.

The server is uvicorn (asynchronous, with uvloop and httptools when installed): it holds every
connection on one event loop, so thousands of live followers cost sockets, not threads. The
WSGI app runs on ``threads`` worker threads through a2wsgi, exactly as under a WSGI server;
with ``fanout`` (``tanteo serve``), the live streams are held by :class:`api.fanout.Served`
on the loop instead of by a worker thread each.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from typing import Any

SWITCH_SECONDS = 0.0005
"""How long a thread may hold the GIL while another waits for it (CPython's default: 0.005)."""

GRACEFUL_SECONDS = 3
"""On SIGTERM or Ctrl-C: how long requests in flight may finish before the rest are closed
(live streams never finish by themselves; their browsers reconnect to the next server)."""


YOUNG_SECONDS = 1.0
"""How often the server collects its young garbage (the cycles of the requests just served)."""

FULL_SECONDS = 600.0
"""How often it walks every object it holds, to free the cycles that outlived a young pass."""


def _collect_on_a_timer() -> None:
    """Collect garbage on a timer instead of by allocation counts (CPython's default).

    A room of followers is hundreds of thousands of live objects. By allocation counts the
    collector walked all of them whenever enough had been made since its last full pass — while
    followers were arriving, every few seconds — and each pass stopped every request and every
    follower for up to a quarter of a second (bench/fanout_bench.py: the scorers' append p99
    went from 12 ms with no collection to 70–230 ms). Here a thread collects the young
    generations every second (milliseconds) and walks everything every ten minutes; what the
    process built before serving (the app, engines, schemas, catalogs) is left out of every pass.
    """
    gc.collect()
    gc.freeze()
    gc.disable()

    def collect() -> None:
        full_at = time.monotonic() + FULL_SECONDS
        while True:
            time.sleep(YOUNG_SECONDS)
            if time.monotonic() >= full_at:
                gc.collect()
                full_at = time.monotonic() + FULL_SECONDS
            else:
                gc.collect(1)

    threading.Thread(target=collect, name="tanteo-gc", daemon=True).start()


def serve(
    app: Any,
    *,
    host: str,
    port: int,
    threads: int = 16,
    quiet: bool = False,
    connection_limit: int = 10_000,
    keep_alive: int = 30,
    fanout: bool = False,
) -> None:
    """Serve ``app`` (a WSGI callable; with ``fanout``, Tanteo's Flask app) on ``host:port`` until stopped.

    ``connection_limit``: connections and requests at once before new ones answer 503 (idle
    keep-alive connections count); ``keep_alive``: seconds an idle connection is kept.
    """
    import uvicorn
    from a2wsgi import WSGIMiddleware

    # The event loop holds the GIL while it writes to thousands of followers; a worker thread
    # recording an event asks for it back after each SQLite call. With CPython's default of
    # 5 ms before the holder must let go, an append of a dozen such calls waited tens of
    # milliseconds behind a busy loop; at 0.5 ms it waits a few (bench/fanout_bench.py).
    sys.setswitchinterval(SWITCH_SECONDS)
    _collect_on_a_timer()

    if fanout:
        from api.fanout import Served

        asgi: Any = Served(app, threads)
    else:
        asgi = WSGIMiddleware(app, workers=threads)
    config = uvicorn.Config(
        asgi,
        host=host,
        port=port,
        interface="asgi3",
        lifespan="off",
        log_level="error" if quiet else "warning",
        access_log=False,
        proxy_headers=False,  # the app's ProxyFix reads X-Forwarded-*, as many hops as configured (api/app.py)
        server_header=False,
        limit_concurrency=connection_limit,
        backlog=2048,
        timeout_keep_alive=keep_alive,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    uvicorn.Server(config).run()
