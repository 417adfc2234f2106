"""Pages for people who read a match: the match page (score sheet computed vs claimed, the
first divergence, explanations, a chart of running totals) and the replay (the table as
cards, step by step, from any seat's perspective).

The replay is drawn in the browser from the same JSON a script reads (``/replay``,
``/state``); the match page is rendered here from the audit, with its chart drawn as SVG on
the server, so it reads without JavaScript and prints.
"""

from __future__ import annotations

import bisect
from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_babel import force_locale, gettext, lazy_gettext, ngettext

from api import rendered, result_card, rulebook
from api.context import current_service
from api.service.reader import Reader
from api.web import bearer_token
from api.i18n import LANGUAGES, current_language, day, say
from api.web import SECURITY_HEADERS
from engines import get_engine
from engines.said import Listed
from ledger import MatchNotFound

bp = Blueprint("viewer", __name__, template_folder="templates")


def _summary(match_id: str) -> dict[str, Any]:
    try:
        return current_service().match(match_id)
    except MatchNotFound:
        abort(404, gettext("no match %(match)s", match=match_id))


def _opening(match_id: str) -> dict[str, Any]:
    """The match_started data: title, date, place and options live there."""
    first = current_service().events(match_id, after=0, limit=1)[0]
    return dict(first[0]["data"]) if first else {}


@bp.get("/m/<match_id>/replay")
def replay(match_id: str) -> Response:
    """Step through a match; the page reads ``at``, ``seat`` and ``course`` from its URL (the frames
    come from the JSON API). Drawn once per version, language and reader's kind (api/rendered.py)."""
    reader = _reader(match_id)

    def draw() -> tuple[str, int]:
        summary = reader.match()
        audit = reader.audit()
        html = render_template(
            "replay.html",
            match=summary,
            opening=dict(reader.events(after=0, limit=1)[0][0]["data"]),
            game=get_engine(summary["game"]).describe(),
            share=share_facts(summary, audit),  # the link preview's tags
        )
        return html, audit["version"]

    return rendered.page("replay", match_id, reader.record.version, reader_kind(reader), draw)


def rule_title(game: str, href: str | None) -> str | None:
    """The title of the rule a link points at (``Scoring a round``), so the link reads as words, not as its anchor;
    in the reader's language, as the rules page the link opens is."""
    if not href or "#" not in href:
        return None
    where, anchor = href.removeprefix("/rules/").split("#", 1)
    try:
        toc = rulebook.page_in(where or game, current_language()).toc
    except KeyError:
        return None
    return next((title for _, title, a in toc if a == anchor), None)


FIELD_WORDS = {
    "points": lazy_gettext("points"),
    "totals": lazy_gettext("running total"),
    "cardPoints": lazy_gettext("card points"),
    "money": lazy_gettext("money"),
    "tricks": lazy_gettext("tricks"),
    "scores": lazy_gettext("score"),
    "chips": lazy_gettext("chips"),
}
"""What a claim's field is called in a sentence (the field's name stays the API's)."""

HAND_STATES = {
    "scored": lazy_gettext("scored"),
    "void": lazy_gettext("void"),
    "playing": lazy_gettext("playing"),
    "incomplete": lazy_gettext("incomplete"),
}
"""A hand's status in words (the status itself stays the API's: the page's classes use it)."""


def rule_href(game: str, rule: str | None) -> str | None:
    """Where a score line's ``rule`` is explained: the rules page of its game, at that rule.

    A reference already written as ``/rules/{game}#anchor`` is used as it is; the older form
    ``docs/RULES.md §3.4`` (section 3, rule 4 of the project's rules) points at ``#s3.4`` there.
    """
    if not rule:
        return None
    if rule.startswith("/rules/"):
        return rule
    if "§" in rule:
        return f"/rules/{game}#s{rule.split('§', 1)[1].strip()}"
    return None


def _columns(standings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One column per seat or team, as the score sheet is written."""
    return [
        {"label": " + ".join(s["names"]) if "names" in s else s["name"], "seat": s.get("seat"), "team": s.get("team")}
        for s in standings
    ]


def _column_of(entry: dict[str, Any], columns: list[dict[str, Any]]) -> int | None:
    """The sheet column a claim or a score line belongs to (a seat's, or a team's)."""
    if entry.get("team") is not None:
        key, value = "team", entry["team"]
    elif entry.get("seat") is not None:
        key, value = "seat", entry["seat"]
    else:
        return None
    for index, column in enumerate(columns):
        if column.get(key) == value:
            return index
    return value if isinstance(value, int) and 0 <= value < len(columns) else None


def divergence_sentence(first: dict[str, Any] | None, columns: list[dict[str, Any]], players: list[str]) -> str | None:
    """The first place where the table's sheet and the record disagree, in one sentence (one whole
    sentence for each kind of place and of column, so each language words it its own way)."""
    if not first:
        return None
    column = _column_of(first, columns)
    field = FIELD_WORDS.get(first.get("field", ""), first.get("field", "score"))
    parts = {"claimed": first["claimed"], "field": field, "computed": first["computed"]}
    hand = first.get("hand")
    if first.get("team") is not None:
        team = columns[column]["label"] if column is not None else first["team"] + 1
        if hand:
            return gettext(
                "The first disagreement is in hand %(hand)s: the table wrote %(claimed)s %(field)s for team %(team)s, "
                "the record gives %(computed)s.",
                hand=hand,
                team=team,
                **parts,
            )
        return gettext(
            "The first disagreement is in the match result: the table wrote %(claimed)s %(field)s for team %(team)s, "
            "the record gives %(computed)s.",
            team=team,
            **parts,
        )
    if first.get("seat") is not None:
        seat = first["seat"]
        name = players[seat] if 0 <= seat < len(players) else gettext("seat %(seat)s", seat=seat + 1)
        if hand:
            return gettext(
                "The first disagreement is in hand %(hand)s: the table wrote %(claimed)s %(field)s for %(player)s "
                "(seat %(seat)s), the record gives %(computed)s.",
                hand=hand,
                player=name,
                seat=seat + 1,
                **parts,
            )
        return gettext(
            "The first disagreement is in the match result: the table wrote %(claimed)s %(field)s for %(player)s "
            "(seat %(seat)s), the record gives %(computed)s.",
            player=name,
            seat=seat + 1,
            **parts,
        )
    if hand:
        return gettext(
            "The first disagreement is in hand %(hand)s: the table wrote %(claimed)s %(field)s for the match, "
            "the record gives %(computed)s.",
            hand=hand,
            **parts,
        )
    return gettext(
        "The first disagreement is in the match result: the table wrote %(claimed)s %(field)s for the match, "
        "the record gives %(computed)s.",
        **parts,
    )


LABEL_PX = 22
"""The end labels' font size in the chart's units (``.chart .label`` in the style sheet)."""
LABEL_EM = 0.64
"""About how wide a character of a bold sans-serif label is, in ems: enough for names in capitals and accents."""

CHART_POINTS = 200
"""The most points a series of the chart has: the plot is 414 units wide, so a longer match's line
is drawn through every n-th hand (and the last), as the eye sees it anyway; the sheet has every hand."""

CHART_LABELS = 12
"""The most hands named under the chart (every n-th, and the last)."""

PALETTE = ["#1f5fa8", "#c0392b", "#1d7a3a", "#8a5a00", "#6c3a9c", "#0f7c85"]
DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4"]


def totals_chart(hands: list[dict[str, Any]], columns: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Running totals per column over the scored hands, as the points of an SVG drawn by the template."""
    rows = [h for h in hands if h.get("totals") and h.get("status") != "void"]
    if not rows:
        return None
    values = [v for h in rows for v in h["totals"] if isinstance(v, (int, float))]
    if not values:
        return None
    low, high = min(0, *values), max(0, *values)
    if high == low:
        high = low + 1
    lasts = [
        next(
            (
                h["totals"][c]
                for h in reversed(rows)
                if c < len(h["totals"]) and isinstance(h["totals"][c], (int, float))
            ),
            0,
        )
        for c in range(len(columns))
    ]
    # the end labels ("Marta + Núria 124") sit right of the plot: the margin fits the longest
    longest = max(len(f"{column['label']} {last}") for column, last in zip(columns, lasts))
    right = max(170, 16 + round(LABEL_PX * LABEL_EM * longest))
    plot, height, left, top, bottom = 414, 320, 56, 16, 36
    width = left + plot + right
    steps = len(rows)
    x = lambda i: left + plot * (i / steps)  # noqa: E731 (hand 0 is the start)
    y = lambda v: top + (height - top - bottom) * (1 - (v - low) / (high - low))  # noqa: E731
    drawn = _every(steps, CHART_POINTS)
    series = []
    for c, column in enumerate(columns):
        points = [(x(0), y(0))]
        for i, h in enumerate(rows, start=1):
            if i not in drawn:
                continue
            value = h["totals"][c] if c < len(h["totals"]) else None
            if isinstance(value, (int, float)):
                points.append((x(i), y(value)))
        series.append(
            {
                "label": column["label"],
                "color": PALETTE[c % len(PALETTE)],
                "tone": c % len(PALETTE),  # class tone-N: app.css draws it in the theme (PALETTE: the light one)
                "dash": DASHES[c % len(DASHES)],
                "points": " ".join(f"{px:.1f},{py:.1f}" for px, py in points),
                "last": lasts[c],
                "end": points[-1],
            }
        )
    # end labels must not sit on top of each other
    placed: list[float] = []
    for s in sorted(series, key=lambda s: s["end"][1]):
        ly = s["end"][1]
        while any(abs(ly - p) < 24 for p in placed):
            ly += 24
        placed.append(ly)
        s["labelY"] = ly
    named = _every(steps, CHART_LABELS)
    ticks = sorted({low, 0, high} | ({round((low + high) / 2)} if high - low > 4 else set()))
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "series": series,
        "hands": [{"x": x(i), "label": str(h["hand"])} for i, h in enumerate(rows, start=1) if i in named],
        "ticks": [{"y": y(t), "label": t} for t in ticks],
        "start": x(0),
        "summary": ", ".join(f"{s['label']} {s['last']}" for s in series),
    }


def _every(steps: int, most: int) -> set[int]:
    """Steps 1..``steps`` to draw when at most ``most`` fit: all of them, or every n-th and the last."""
    stride = max(1, -(-steps // most))
    return {i for i in range(1, steps + 1) if i % stride == 0 or i == steps}


DISPUTE_STATES = {
    "open": lazy_gettext("open, waiting for a ruling"),
    "upheld": lazy_gettext("upheld"),
    "rejected": lazy_gettext("rejected"),
    "withdrawn": lazy_gettext("withdrawn"),
}


def dispute_rows(disputes: list[dict[str, Any]], players: list[str]) -> list[dict[str, Any]]:
    """The audit's disputes in words (as the dispute desk says them): what is contested, whose
    (a dispute names a player, also in a team game), where it stands, and the ruling."""
    rows = []
    for d in disputes:
        what = FIELD_WORDS.get(d.get("field") or "", lazy_gettext("score")) if d.get("field") else lazy_gettext("score")
        seat = d.get("seat")
        whose = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None
        if d.get("hand"):
            title = (
                gettext("Hand %(hand)s, %(field)s of %(player)s", hand=d["hand"], field=what, player=whose)
                if whose is not None
                else gettext("Hand %(hand)s, %(field)s", hand=d["hand"], field=what)
            )
        else:
            title = (
                gettext("The match result, %(field)s of %(player)s", field=what, player=whose)
                if whose is not None
                else gettext("The match result, %(field)s", field=what)
            )
        ruling = d.get("ruling") or None
        decision = (ruling or {}).get("decision", "")
        rows.append(
            {
                "seq": d.get("seq"),
                "hand": d.get("hand"),
                "state": d.get("state", "open"),
                "title": title,
                "stateWords": DISPUTE_STATES.get(d.get("state", ""), d.get("state", "")),
                "reason": d.get("reason", ""),
                "ruling": None
                if ruling is None
                else gettext(
                    "%(decision)s — %(reason)s",
                    decision=DISPUTE_STATES.get(decision, decision),
                    reason=say(ruling.get("reason", "")),
                ),
                "corrections": len(d.get("correction") or []),
                "irregular": d.get("irregular"),
            }
        )
    return rows


def printed_head_sentence(match_id: str, head: str, audit: dict[str, Any]) -> dict[str, Any] | None:
    """Say where the head hash of a printed sheet (its QR code: ``?head=``) stands in the record:
    the current head, an earlier entry (so entries were recorded after printing), or nowhere."""
    head = head.strip().lower()
    if not head:
        return None
    current = audit["chain"]["head"]
    if head == current:
        return {
            "agrees": True,
            "text": gettext(
                "The printed sheet you scanned ends where the record ends, at entry %(entry)s: "
                "nothing was recorded after it was printed.",
                entry=audit["chain"]["length"],
            ),
        }
    if len(head) == len(current) and all(c in "0123456789abcdef" for c in head):
        envelopes, version = current_service().events(match_id)
        for envelope in envelopes:
            if envelope.get("hash") == head:
                later = version - envelope["seq"]
                return {
                    "agrees": True,
                    "text": ngettext(
                        "The printed sheet you scanned was printed when the record ended at entry %(entry)s; "
                        "%(num)s more entry was recorded after it, shown here.",
                        "The printed sheet you scanned was printed when the record ended at entry %(entry)s; "
                        "%(num)s more entries were recorded after it, shown here.",
                        later,
                        entry=envelope["seq"],
                    ),
                }
    return {
        "agrees": False,
        "text": gettext(
            "The head hash of the printed sheet you scanned is not in this record: "
            "the sheet does not come from this record as it is kept here."
        ),
    }


def missing_words(missing: list[Any], players: list[str]) -> str:
    """The cards a hand still waits for, in words ("Anna's slot 2", "card 1 of entry 5")."""

    def name(seat: Any) -> str:
        return (
            players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else gettext("seat %(seat)s", seat=seat)
        )

    words = []
    for ref in missing:
        if not isinstance(ref, dict):
            words.append(str(ref))
        elif ref.get("seat") is not None and ref.get("slot") is not None:
            words.append(gettext("%(player)s's slot %(slot)s", player=name(ref["seat"]), slot=ref["slot"]))
        elif ref.get("seq") is not None:
            words.append(
                gettext("card %(index)s of entry %(entry)s", index=(ref.get("index") or 0) + 1, entry=ref["seq"])
            )
        elif ref.get("seat") is not None:
            words.append(gettext("a card of %(player)s", player=name(ref["seat"])))
        else:
            words.append(str(ref))
    return ", ".join(words)


HANDS_SHOWN = 12
"""Hands a match page shows (its sheet rows and their explanations): the latest, and earlier ones a
page at a time (``?before=``), so that a 1,000-event match reads as fast as a short one."""

LAST_MOVES = 10
"""The latest moves the match page says in words; the replay has every one."""


def _reader(match_id: str) -> Reader:
    """The one reader of this request: the write token if the client sends one (a browser never
    does on a page: its key lives in localStorage), else an open reader."""
    try:
        return current_service().reader(match_id, bearer_token())
    except MatchNotFound:
        abort(404, gettext("no match %(match)s", match=match_id))


def reader_kind(reader: Reader) -> str:
    """What a rendering for this reader may hold: ``all`` (the write token, or the match over) or ``open``."""
    return "all" if reader.full else "open"


def _before() -> int | None:
    """The ``?before=`` of a page of earlier hands (hands before that one), or None for the latest."""
    raw = request.args.get("before", "")
    return int(raw) if raw.isascii() and raw.isdigit() and 0 < len(raw) < 9 else None


@bp.get("/m/<match_id>")
def match_page(match_id: str) -> Response:
    """The match: its score sheet computed vs claimed, the first divergence, every point explained.

    The latest :data:`HANDS_SHOWN` hands and the last moves; earlier hands a page at a time
    (``?before=``). Drawn once per version, language and reader's kind (api/rendered.py)."""
    reader = _reader(match_id)
    before = _before()
    head = request.args.get("head", "")[:200]
    if head:  # a printed sheet's proof (its QR code): said of this head, not kept
        return Response(_draw_match(reader, "match.html", before, head)[0], mimetype="text/html")
    return rendered.page(
        "match",
        match_id,
        reader.record.version,
        reader_kind(reader),
        lambda: _draw_match(reader, "match.html", before),
        view=f"before{before}" if before else "",
    )


@bp.get("/m/<match_id>/live")
def match_live(match_id: str) -> Response:
    """What of the match page changes as the match goes on (its status and ``#live-part``), alone:
    the page fetches it when its stream brings an event, instead of the whole page (match.js)."""
    reader = _reader(match_id)
    return rendered.page(
        "match-live",
        match_id,
        reader.record.version,
        reader_kind(reader),
        lambda: _draw_match(reader, "_match_live.html"),
    )


def _draw_match(reader: Reader, template: str, before: int | None = None, head: str = "") -> tuple[str, int]:
    """Render the match page (or its live part) for ``reader``; return it and the version it shows."""
    audit = reader.audit()  # first: its one verified read of the log is the one the summary folds too
    summary = reader.match()
    game = summary["game"]
    columns = _columns(audit["standings"])
    every = audit["hands"]
    high = len(every) if before is None else bisect.bisect_left([h["hand"] for h in every], before)
    low = max(0, high - HANDS_SHOWN)
    shown = every[low:high]
    numbers = {h["hand"] for h in shown}
    claims: dict[tuple[int, str, int], dict[str, Any]] = {}
    others: dict[int, list[dict[str, Any]]] = {}
    first = audit.get("firstDivergence")
    for claim in audit.get("claims", []):
        if claim.get("hand") and claim["hand"] not in numbers and not (first is not None and claim == first):
            continue
        column = _column_of(claim, columns)
        claim = {
            **claim,
            "first": first is not None and claim == first,
            "who": columns[column]["label"] if column is not None else gettext("the match"),
            "fieldWords": FIELD_WORDS.get(claim.get("field", ""), claim.get("field", "")),
        }
        if claim.get("hand") and claim.get("field") in ("points", "totals") and column is not None:
            claims[(claim["hand"], claim["field"], column)] = claim
        else:
            others.setdefault(claim.get("hand") or 0, []).append(claim)
    hands = []
    for h in shown:
        lines = []
        for line in h.get("lines", []):
            column = _column_of(line, columns)
            href = rule_href(game, line.get("rule"))
            lines.append(
                {
                    **line,
                    "who": columns[column]["label"] if column is not None else "",
                    "href": href,
                    "ruleTitle": rule_title(game, href),
                }
            )
        hands.append(
            {
                **h,
                "lines": lines,
                "statusWords": HAND_STATES.get(h.get("status", ""), h.get("status", "")),
                "missingWords": missing_words(h.get("missing") or [], summary["players"]),
                "confirmationWords": confirmation_words(h, summary["players"]),
            }
        )
    where = url_for("viewer.match_page", match_id=reader.id)
    first_hand = first.get("hand") if first else None
    later = high + HANDS_SHOWN
    paging = {
        "earlier": url_for("viewer.match_page", match_id=reader.id, before=every[low]["hand"]) if low > 0 else None,
        "later": None
        if high >= len(every)
        else url_for("viewer.match_page", match_id=reader.id, before=every[later]["hand"])
        if later < len(every)
        else where,
        "latest": where if high < len(every) else None,
        "first": shown[0]["hand"] if shown else None,
        "last": shown[-1]["hand"] if shown else None,
        "count": len(every),
        "divergence": "#first-divergence"
        if first_hand is None or first_hand in numbers
        else f"{url_for('viewer.match_page', match_id=reader.id, before=first_hand + 1)}#first-divergence",
    }
    version = audit["version"]
    moves = [  # the newest first, each said in the reader's language
        {**frame, "text": say(frame["text"])}
        for frame in reversed(reader.replay(start=max(1, version - LAST_MOVES + 1))["frames"] if before is None else [])
    ]
    html = render_template(
        template,
        share=share_facts(summary, audit),
        match=summary,
        opening=dict(reader.events(after=0, limit=1)[0][0]["data"]),
        audit=audit,
        columns=columns,
        hands=hands,
        paging=paging,
        moves=moves,
        claims=claims,
        others=others,
        game=get_engine(game).describe(),
        sentence=divergence_sentence(first, columns, summary["players"]),
        chart=totals_chart(every, columns),
        disputes=dispute_rows(audit.get("disputes", []), summary["players"]),
        printed=printed_head_sentence(reader.id, head, audit),
        end_href=rule_href(game, audit["end"].get("rule")),
        end_reason=say(audit["end"].get("reason")) or "",
    )
    return html, version


@bp.get("/m/<match_id>/seat/<int:seat>")
def seat_page(match_id: str, seat: int) -> str:
    """A player's own page (issue 31): each hand explained, confirmed or contested from the player's
    phone with the seat key the scorer handed over (``#key=``, never sent to the server in a URL)."""
    summary = _summary(match_id)
    if not 0 <= seat < len(summary["players"]):
        abort(404, gettext("no seat %(seat)s in match %(match)s", seat=seat + 1, match=match_id))
    return render_template(
        "seat.html",
        match=summary,
        opening=_opening(match_id),
        game=get_engine(summary["game"]).describe(),
        seat=seat,
        player=summary["players"][seat],
    )


def confirmation_words(hand: dict[str, Any], players: list[str]) -> dict[str, str]:
    """Who confirmed a hand (``✓ Anna, ✓ Ben``) and who is still needed (``Carl and Dora``), in the
    reader's language, from the audit's ``confirmations`` and ``needs`` (issue 31); empty words
    when the hand has neither."""

    def name(seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(players):
            return players[seat]
        return gettext("seat %(seat)s", seat=seat + 1 if isinstance(seat, int) else seat)

    confirmed = [c for c in hand.get("confirmations") or [] if c.get("valid", True)]
    # joined as each language joins names (engines/said.py Listed, as the page scripts' listed())
    return {
        "confirmed": say(Listed(f"✓ {c.get('name') or name(c.get('seat'))}" for c in confirmed)) if confirmed else "",
        "needs": say(Listed(name(s) for s in hand.get("needs") or [])) if hand.get("needs") else "",
    }


@bp.get("/m/<match_id>/dispute")
def desk(match_id: str) -> str:
    """The dispute desk: open a dispute on a hand, with its explanation beside the claim; record the ruling."""
    summary = _summary(match_id)
    return render_template(
        "desk.html", match=summary, opening=_opening(match_id), game=get_engine(summary["game"]).describe()
    )


# --------------------------------------------------------------------------- Share and Embed (issue 29)


def public_address() -> str:
    """Where other people reach this server: the configured public address (``--public-url``), or ""
    so that the links are relative. Never the request's ``Host``, which any client may forge
    (api/pages.py says the same of the printed sheet); the Share button makes its link absolute
    with the address the reader's own browser shows, and the preview tags name the address
    players know only once it is configured."""
    return str(current_app.config.get("TANTEO_PUBLIC_URL") or "").rstrip("/")


def _meta(summary: dict[str, Any], game_name: str) -> str:
    """Game, date and place of a match in one line, for the result card."""
    when = day(summary.get("date") or summary["createdAt"])
    if summary.get("place"):
        return gettext("%(game)s · %(date)s · %(place)s", game=game_name, date=when, place=summary["place"])
    return gettext("%(game)s · %(date)s", game=game_name, date=when)


def share_facts(summary: dict[str, Any], audit: dict[str, Any]) -> dict[str, Any]:
    """What the Share button, the link preview (Open Graph, Twitter card) and the result card say of a
    match: its public link (never a write key: that lives after ``#`` in the scorer's browser only),
    and its result in one line of the reader's language, from the public audit."""
    game_name = get_engine(summary["game"]).describe()["name"]
    when = day(summary.get("date") or summary["createdAt"])
    columns = _columns(audit["standings"])
    text = result_card.result_line(result_card.match_name(summary.get("title"), game_name), when, columns, audit)
    page = f"{public_address()}/m/{summary['id']}"
    lang = current_language()
    return {
        "title": summary.get("title") or game_name,
        "text": text,
        "path": f"/m/{summary['id']}",
        "url": page,
        "image": f"{page}/card.png?lang={lang}&v={summary['version']}",
        "card": f"/m/{summary['id']}/card.png?lang={lang}",
        "filename": f"tanteo-{summary['id']}.png",
        "alt": gettext("Result card: %(result)s", result=text),
        "embed": f"{page}/embed",
        "width": result_card.WIDTH,
        "height": result_card.HEIGHT,
    }


def _public(match_id: str) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The match's summary, its public audit and its sheet's columns: all a public reader may see."""
    summary = _summary(match_id)
    audit = current_service().audit(match_id)
    return summary, audit, _columns(audit["standings"])


@bp.get("/m/<match_id>/card.png")
def card(match_id: str) -> Response:
    """The result card: the match's standings and running totals as a 1200x630 PNG, for link previews
    and to download; its words in ``?lang=`` or the request's language. Cached by the match's version."""
    summary, audit, columns = _public(match_id)
    asked = request.args.get("lang", "").lower()
    lang = asked if asked in LANGUAGES else current_language()
    etag = f"{summary['version']}-{lang}"
    headers = {"Cache-Control": "public, max-age=60", "ETag": f'"{etag}"', "Content-Language": lang}
    if request.if_none_match.contains(etag):
        return Response(status=304, headers=headers)
    with force_locale(lang):
        game_name = get_engine(summary["game"]).describe()["name"]
        png = result_card.draw_card(
            title=summary.get("title") or game_name,
            meta=_meta(summary, game_name),
            status=result_card.status_words(audit),
            columns=columns,
            standings=audit["standings"],
            chart=totals_chart(audit["hands"], columns),
            palette=PALETTE,
            dashes=DASHES,
            empty=gettext("No hand finished yet"),
        )
    return Response(png, mimetype="image/png", headers=headers)


FRAMEABLE = "frame-ancestors *"
"""The embed's framing rule: any club's website may show it (api/app.py keeps every other page unframed)."""


@bp.get("/m/<match_id>/embed")
def embed(match_id: str) -> Response:
    """A compact, read-only live scoreboard of the match for a club's website to put in an iframe:
    the one page that may be framed (it writes nothing, so there is nothing to click-jack)."""
    summary, audit, columns = _public(match_id)
    game_name = get_engine(summary["game"]).describe()["name"]
    # the rest of the policy stays the app's: scripts and styles from here only
    policy = SECURITY_HEADERS["Content-Security-Policy"].replace("frame-ancestors 'none'", FRAMEABLE)
    html = render_template(
        "embed.html",
        match=summary,
        audit=audit,
        rows=[
            {"label": column["label"], "total": standing.get("total"), "tone": index % len(PALETTE)}
            for index, (column, standing) in enumerate(zip(columns, audit["standings"]))
        ],
        winners=[columns[w]["label"] for w in audit["end"].get("winners") or [] if 0 <= w < len(columns)],
        teams=any(column["team"] is not None for column in columns),  # the column says who scores
        title=summary.get("title") or game_name,
        meta=_meta(summary, game_name),
        status=result_card.status_words(audit),
        finished=result_card.finished_hands(audit),
    )
    return Response(html, mimetype="text/html", headers={"Content-Security-Policy": policy})
