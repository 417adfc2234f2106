"""How a WSGI app is put on a port: the one place that chooses and sets up the HTTP server.

``tanteo serve`` and the benches' baselines both go through :func:`serve`, so a comparison
between Tanteo and a trivial app always runs both under the same server with the same settings.
"""

from __future__ import annotations

from typing import Any


def serve(app: Any, *, host: str, port: int, threads: int = 16, quiet: bool = False, **settings: Any) -> None:
    """Serve ``app`` (a WSGI callable) on ``host:port`` until the process is stopped."""
    from waitress import serve as waitress_serve

    from api.cli import WAITRESS_SETTINGS

    waitress_serve(app, host=host, port=port, _quiet=quiet, **{**WAITRESS_SETTINGS, "threads": threads, **settings})
