"""The app around the pages: what makes Tanteo installable and lets it open with no network.

A scorer's phone at a bar table loses the signal between hands. The web app manifest
(``/manifest.webmanifest``) lets the browser install Tanteo as an app; the service worker
(``/sw.js``, at the root so that it serves every page) keeps the app's own files and what the
pages last read, and answers from them when the server cannot be reached:

- Every file of ``api/static`` is fetched once when the worker installs, into a cache named
  after a digest of their contents (:func:`shell_version`). Any changed file makes another
  ``sw.js``, hence a new worker and a new cache; the old cache is deleted when it takes over.
- Pages and the API's reads go to the network first and fall back to the last copy only when the
  server does not answer (a short timeout), so a page is never stuck on old scripts or old
  scores while the server is there. A copy served from the cache says so (``X-Tanteo-Offline``),
  and the pages say it in words.
- A read made with a write key is kept apart from the public reads and never answers a request
  without one: what only the scorer may see stays on the scorer's side.
- Nothing but GET requests of this origin is ever answered from a cache: entries are queued by
  the pages themselves (``api/static/api.js``), with their idempotency keys.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from flask import Blueprint, Response, render_template, url_for
from flask_babel import gettext

bp = Blueprint("app_shell", __name__, template_folder="templates")

STATIC = Path(__file__).parent / "static"
ICON_SIZES = (192, 512)


def _static_files() -> list[Path]:
    return sorted(p for p in STATIC.rglob("*") if p.is_file() and not p.name.startswith("."))


@lru_cache(maxsize=8)
def _digest(stamp: tuple[tuple[str, int, int], ...]) -> str:
    sha = hashlib.sha256()
    for name, _, _ in stamp:
        sha.update(name.encode("utf-8") + b"\0" + (STATIC / name).read_bytes() + b"\0")
    return sha.hexdigest()[:16]


def shell_version() -> str:
    """A digest of every static file's name and contents: the service worker's cache version.

    Read again when any file's size or time changes (the contents are hashed only then), so an
    updated file is a new version without a restart.
    """
    stamp = tuple((p.relative_to(STATIC).as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in _static_files())
    return _digest(stamp)


def _icon(name: str, size: int, purpose: str) -> dict[str, str]:
    return {
        "src": url_for("pages.static", filename=f"icons/{name}"),
        "sizes": f"{size}x{size}",
        "type": "image/png",
        "purpose": purpose,
    }


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest: installable, standalone, starting at the list of matches."""
    body = {
        "name": "Tanteo",
        "short_name": "Tanteo",
        "description": gettext("Score card games played with real cards, hand by hand, and settle disputes."),
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#112233",
        "icons": [_icon(f"icon-{size}.png", size, "any") for size in ICON_SIZES]
        + [_icon("maskable-512.png", 512, "maskable")],
    }
    response = Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, with this version's list of files to keep (see the module's docstring)."""
    files = [url_for("pages.static", filename=p.relative_to(STATIC).as_posix()) for p in _static_files()]
    body = render_template("sw.js", version=shell_version(), files=files)
    response = Response(body, mimetype="text/javascript")
    # the browser compares sw.js byte for byte on each visit: never an old copy from a cache
    response.headers["Cache-Control"] = "no-cache"
    return response
