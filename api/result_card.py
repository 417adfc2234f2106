"""The result of a match in one line and in one picture, for the group chat (issue 29, "Share").

:func:`result_line` says the public standings in one sentence of the reader's language ("Cau Robat,
14 Nov 2026: Anna 12 – Ben 9 (match over)"): the Share button sends it with the match's public link,
and the link preview (``og:description``) shows it. :func:`draw_card` draws the result card, a
1200x630 PNG (the size chat apps show in a preview): the match's title, game, date and status, its
standings, and the running totals drawn as the match page's chart (:func:`api.viewer.totals_chart`
gives the geometry, :data:`api.viewer.PALETTE` the colours). Both read only the public audit, so
they show what any reader of ``/m/{id}`` may see and nothing a hidden hand still hides.

The picture is drawn with Pillow (no headless browser on the server) in DejaVu Sans, shipped in
``api/fonts`` with its licence: Pillow's bundled font has no accented letters (à ç ñ ü ß ·).
The card is always light: it is an image for other people's chats, whatever theme its sender reads in.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from flask_babel import format_number, gettext, ngettext
from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1200, 630
"""Open Graph's recommended size: what WhatsApp, Telegram, Signal and X show large."""

FONTS = Path(__file__).resolve().parent / "fonts"
INK, MUTED, GRID, CHART_TEXT, BG, SOFT, ACCENT = (
    "#1a1a1a",
    "#555555",
    "#dddddd",
    "#444444",
    "#ffffff",
    "#f2f4f7",
    "#0b5394",
)
"""The light theme's colours (api/static/app.css :root: --ink, --muted, --chart-grid, --chart-text, --bg, --soft, --accent)."""


def finished_hands(audit: dict[str, Any]) -> int:
    """How many hands are scored (a void hand is not played, a hand in play not finished)."""
    return sum(1 for h in audit.get("hands", []) if h.get("status") == "scored")


def match_name(title: str | None, game_name: str) -> str:
    """What the match is called in a sentence: its title with its game, or the game alone."""
    if title and title.strip() and title.strip() != game_name:
        return gettext("%(title)s (%(game)s)", title=title.strip(), game=game_name)
    return game_name


def standings_words(columns: list[dict[str, Any]], standings: list[dict[str, Any]]) -> str:
    """Every seat's or team's total, as the match page's footer shows them: "Anna 12 – Ben 9"."""
    return " – ".join(
        gettext("%(name)s %(total)s", name=column["label"], total=format_number(standing.get("total", 0)))
        for column, standing in zip(columns, standings)
    )


def result_line(name: str, day: str, columns: list[dict[str, Any]], audit: dict[str, Any]) -> str:
    """The match's result in one sentence of the request's language, from its public audit."""
    if audit.get("end", {}).get("over"):
        return gettext(
            "%(match)s, %(date)s: %(standings)s (match over)",
            match=name,
            date=day,
            standings=standings_words(columns, audit["standings"]),
        )
    finished = finished_hands(audit)
    if not finished:
        return gettext("%(match)s, %(date)s: no hand finished yet", match=name, date=day)
    return ngettext(
        "%(match)s, %(date)s: %(standings)s after %(num)s hand (in play)",
        "%(match)s, %(date)s: %(standings)s after %(num)s hands (in play)",
        finished,
        match=name,
        date=day,
        standings=standings_words(columns, audit["standings"]),
    )


def status_words(audit: dict[str, Any]) -> str:
    """Where the match stands, for the card's last line and the embedded scoreboard."""
    finished = finished_hands(audit)
    if audit.get("end", {}).get("over"):
        return ngettext("Match over after %(num)s hand", "Match over after %(num)s hands", finished)
    if not finished:
        return gettext("No hand finished yet")
    return ngettext("%(num)s hand finished, in play", "%(num)s hands finished, in play", finished)


def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size)


def _fit(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _dashed(
    draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], color: str, width: int, dash: list[float]
) -> None:
    """A polyline, dashed as the chart's SVG dashes it (``stroke-dasharray``), so the series differ also
    for a reader who does not tell the colours apart."""
    if not dash:
        draw.line(points, fill=color, width=width, joint="curve")
        return
    pattern, index, left, on = dash, 0, dash[0], True
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        done = 0.0
        while done < length:
            step = min(left, length - done)
            if on:
                a, b = done / length, (done + step) / length
                draw.line(
                    [(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                    fill=color,
                    width=width,
                )
            done += step
            left -= step
            if left <= 0:
                index = (index + 1) % len(pattern)
                left, on = pattern[index], not on
        # a segment's end carries the dash on into the next one


def draw_card(
    *,
    title: str,
    meta: str,
    status: str,
    columns: list[dict[str, Any]],
    standings: list[dict[str, Any]],
    chart: dict[str, Any] | None,
    palette: list[str],
    dashes: list[str],
    empty: str,
    brand: str = "Tanteo",
) -> bytes:
    """The result card as PNG bytes: title, meta line (game · date · place), the standings with each
    series' colour, the running totals drawn from ``chart`` (:func:`api.viewer.totals_chart`), or the
    sentence ``empty`` where no hand is finished yet, and ``status`` under it all."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BG)
    draw = ImageDraw.Draw(image)
    margin = 48
    draw.rectangle([0, 0, WIDTH, 12], fill=ACCENT)
    draw.text((margin, 34), brand, font=_font(26, bold=True), fill=ACCENT)
    draw.text(
        (margin, 72), _fit(draw, title, _font(52, bold=True), WIDTH - 2 * margin), font=_font(52, bold=True), fill=INK
    )
    draw.text((margin, 140), _fit(draw, meta, _font(28), WIDTH - 2 * margin), font=_font(28), fill=MUTED)

    # the standings, right: a stroke of the series' colour (and dash), the name, the total
    panel_x, panel_top = 780, 200
    draw.rounded_rectangle([panel_x - 20, panel_top - 10, WIDTH - margin + 10, 560], radius=16, fill=SOFT)
    shown = list(zip(columns, standings))[:6]
    row = min(58, (350 - 10) // max(1, len(shown)))
    name_font, total_font = _font(min(28, row - 22)), _font(min(34, row - 16), bold=True)
    for index, (column, standing) in enumerate(shown):
        y = panel_top + 12 + index * row
        color = palette[index % len(palette)]
        dash = [float(d) * 2 for d in dashes[index % len(dashes)].split()]
        _dashed(draw, [(panel_x, y + row / 2 - 8), (panel_x + 40, y + row / 2 - 8)], color, 6, dash)
        total = format_number(standing["total"]) if standing.get("total") is not None else ""
        total_w = draw.textlength(total, font=total_font)
        draw.text((WIDTH - margin - total_w, y), total, font=total_font, fill=INK)
        label = _fit(draw, str(column["label"]), name_font, WIDTH - margin - total_w - panel_x - 70)
        draw.text((panel_x + 54, y + 4), label, font=name_font, fill=INK)

    # the chart, left: the match page's drawing, scaled into its box
    box = (margin + 64, 210, 720, 520)  # left, top, right, bottom of the plot
    tick_font = _font(22)
    if chart is None:
        draw.rectangle([margin, 200, 740, 560], outline=GRID, width=2)
        words = _fit(draw, empty, _font(34, bold=True), 740 - margin - 40)
        w = draw.textlength(words, font=_font(34, bold=True))
        draw.text(((margin + 740 - w) / 2, 360), words, font=_font(34, bold=True), fill=MUTED)
    else:
        sx = (box[2] - box[0]) / (chart["right"] - chart["left"])
        sy = (box[3] - box[1]) / (chart["bottom"] - chart["top"])

        def at(x: float, y: float) -> tuple[float, float]:
            return box[0] + (x - chart["left"]) * sx, box[1] + (y - chart["top"]) * sy

        for tick in chart["ticks"]:
            _, y = at(0, tick["y"])
            draw.line([(box[0], y), (box[2], y)], fill=GRID, width=2)
            label = str(tick["label"])
            draw.text(
                (box[0] - 10 - draw.textlength(label, font=tick_font), y - 13), label, font=tick_font, fill=CHART_TEXT
            )
        hands = chart["hands"]
        every = max(1, len(hands) // 12)  # at most a dozen hand numbers under the axis
        for index, hand in enumerate(hands):
            if index % every and index != len(hands) - 1:
                continue
            x, _ = at(hand["x"], 0)
            label = hand["label"]
            draw.text(
                (x - draw.textlength(label, font=tick_font) / 2, box[3] + 12), label, font=tick_font, fill=CHART_TEXT
            )
        for series in chart["series"]:
            points = [at(*map(float, p.split(","))) for p in series["points"].split()]
            dash = [float(d) * 2 for d in series["dash"].split()]
            _dashed(draw, points, series["color"], 6, dash)
            end = points[-1]
            draw.ellipse([end[0] - 7, end[1] - 7, end[0] + 7, end[1] + 7], fill=series["color"])

    if chart is not None:  # else the box said it already
        draw.text(
            (margin, 580),
            _fit(draw, status, _font(28, bold=True), WIDTH - 2 * margin),
            font=_font(28, bold=True),
            fill=INK,
        )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
