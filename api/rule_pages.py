"""GET /rules and /rules/{game}: the rules every score line, refusal and option links to.

Server-rendered from :mod:`api.rulebook` in the reader's language (:mod:`api.i18n`; a page not
yet translated reads English, and says so in its ``lang``); a plain Flask blueprint (pages, not
JSON: they stay out of the OpenAPI document).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template
from flask_babel import gettext
from werkzeug.exceptions import NotFound

from api import i18n, rulebook
from api.web import quoted

blp = Blueprint("rules", __name__)


@blp.get("/rules")
def index() -> Any:
    """List the rules pages."""
    lang = i18n.current_language()
    pages = [rulebook.page_in(g, lang) for g in rulebook.games()]
    return render_template("rules.html", page=None, pages=pages, common=rulebook.page_in(rulebook.COMMON, lang))


@blp.get("/rules/<game>")
def rules(game: str) -> Any:
    """Show one game's rules, every rule under its own anchor."""
    try:
        page = rulebook.page_in(game, i18n.current_language())
    except KeyError:
        raise NotFound(gettext("there are no rules for %(name)s; /rules lists them", name=quoted(game))) from None
    return render_template("rules.html", page=page, pages=None, common=None)
