"""The service a request (or a live stream's body) uses, as flaskr's ``db.py`` keeps its connection.

Its own module so that the blueprints import it without importing the app factory, which
imports them (``tests/test_layering.py`` finds no circle in the import graph).
"""

from __future__ import annotations

from flask import Flask, current_app, g

from api.service import Service


def current_service() -> Service:
    """Return this request's service: the worker thread's ledger and the app's shared cache.

    Raises:
        StorageUnavailable: the thread's ledger could not be opened (answered 503).
    """
    if "tanteo_service" not in g:
        g.tanteo_service = own_service(current_app)
    return g.tanteo_service  # type: ignore[no-any-return]


def own_service(app: Flask) -> Service:
    """Return a service on this worker thread's ledger and the app's shared cache and clock.

    Outside a request too: a live stream's body runs after its view has returned, on the
    same worker thread.

    Raises:
        StorageUnavailable: the thread's ledger could not be opened (answered 503).
    """
    ledger = app.extensions["tanteo.ledgers"].get()
    return Service(ledger, app.extensions["tanteo.cache"], app.config.get("TANTEO_CLOCK"))
