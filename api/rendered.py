"""Pages read by hundreds (issue 32): each rendering made once per version, and a reader who
has it already answered 304.

A match page, its replay and a club night are drawn from the match's (the night's) version:
nothing else of the record changes what they show. So a rendering is kept, by version, in a
:class:`~api.service.StateCache` of its own (the app's bounded, least-recently-used cache of
per-match entries, weighed in bytes; ``tanteo.pages``), keyed by everything the HTML depends
on — the page, the match, the reader's language, the view (a page of earlier hands, the big
screen), and the reader's kind: what :class:`~api.service.reader.Reader` decided this reader
may see (``all``: the write token or the match over, ``open``: everyone else). An open reader
and a token holder never share a rendering: hidden cards stay hidden.

Each rendering has a strong ETag made of the same parts and of the code that draws it (the
templates, scripts and catalogs: :func:`build_stamp`), so an upgraded server never answers 304
with the old drawing. ``If-None-Match`` is answered 304 before anything is read but the
version. flask-compress (api/app.py) gives a compressed answer the ETag ``"<tag>:gzip"``; that
form is recognised here too. The API's own ETags stay the match's version, as ``If-Match``
reads them (:func:`api.web.expected_version`).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Callable

from flask import Response, current_app, request

from api.i18n import current_language
from api.service import StateCache
from api.service.cache import Folded
from api.web import COMPRESSED_SUFFIXES

BUDGET = 32 * 1024 * 1024
"""Bytes of renderings one process keeps (config ``TANTEO_PAGES_BYTES``): a match page is tens of
kilobytes, so about a thousand of them."""


_DRAWING = tuple(threading.Lock() for _ in range(64))
"""Locks by rendering (striped): one drawing of a page at a time, the other readers waiting for it."""

_DRAWN_BY = ("templates", "static", "translations")
"""The folders whose files change a rendering for the same version: an upgrade draws anew."""


def build_stamp() -> str:
    """A digest of the files that draw the pages (templates, scripts, catalogs), computed once per app."""
    stamp = current_app.extensions.get("tanteo.pages.stamp")
    if stamp is None:
        digest = hashlib.blake2b(digest_size=6)
        root = Path(__file__).parent
        for folder in _DRAWN_BY:
            for path in sorted((root / folder).rglob("*")):
                if path.is_file() and path.suffix != ".mo":  # the .mo files are compiled from the .po ones
                    digest.update(str(path.relative_to(root)).encode())
                    digest.update(path.read_bytes())
        stamp = current_app.extensions["tanteo.pages.stamp"] = digest.hexdigest()
    return str(stamp)


def renderings() -> StateCache:
    """The app's cache of renderings (created with the app: :func:`init_app`)."""
    return current_app.extensions["tanteo.pages"]  # type: ignore[no-any-return]


def init_app(app: object) -> None:
    from flask import Flask

    assert isinstance(app, Flask)
    app.extensions["tanteo.pages"] = StateCache(int(app.config.get("TANTEO_PAGES_BYTES", BUDGET)))


def _matched(tag: str) -> str | None:
    """The form of ``tag`` the request's ``If-None-Match`` holds (plain or as compressed), or None."""
    wanted = request.if_none_match
    if not wanted:
        return None
    for form in (tag, *(f"{tag}:{encoding}" for encoding in sorted(COMPRESSED_SUFFIXES))):
        if wanted.contains(form):
            return form
    return None


def page(
    name: str,
    subject: str,
    version: int,
    kind: str,
    draw: Callable[[], tuple[str, int]],
    *,
    view: str = "",
) -> Response:
    """Answer a page drawn from ``subject`` (a match, a club night) at ``version``: 304 when the
    reader holds this rendering, else the kept rendering, else ``draw()`` once.

    ``draw`` returns the HTML and the version it was drawn from: a rendering of a newer version
    (an append landed meanwhile) is sent under its own version, and kept only when it is the one
    asked for. ``kind`` is the reader's kind (``open`` or ``all``); ``view`` what else the
    drawing depends on (a page of hands, the big screen).
    """
    lang = current_language()
    root = request.script_root
    tag = f"{version}-{lang}-{kind}{'-' + view if view else ''}-{build_stamp()}"
    headers = {
        "Cache-Control": "no-cache" if kind == "open" else "private, no-cache",  # ask each time: 304 costs nothing
        "Vary": "Authorization",
        "Content-Language": lang,
    }
    matched = _matched(tag)
    if matched is not None:
        return Response(status=304, headers={**headers, "ETag": f'"{matched}"'})
    key = "\x00".join((name, subject, lang, kind, view, root))
    cache = renderings()

    def kept() -> str | None:
        found = cache.get(key)
        return str(found.state) if found is not None and found.version == version and found.head == tag else None

    html = kept()
    if html is None:
        # The readers of a new version arrive together (every spectator's page is told of the
        # same event at once): one draws, the others wait for its drawing instead of each
        # drawing the same page on its own worker thread.
        with _DRAWING[hash(key) % len(_DRAWING)]:
            html = kept()
            if html is None:
                html, drawn = draw()
                if drawn != version:
                    tag = f"{drawn}-{lang}-{kind}{'-' + view if view else ''}-{build_stamp()}"
                else:
                    cache.put(key, Folded(version, tag, html))
    return Response(html, mimetype="text/html", headers={**headers, "ETag": f'"{tag}"'})
