"""The result of a match in one line and as a picture (issue 29, "Share"): the line the Share button
and the link preview say, for a match of each of the five games, in English and in Catalan; the
result card (``/m/{id}/card.png``): a 1200x630 PNG whose pixels are the standings' colours, cached by
the match's version, drawn from the public audit alone (a write key changes nothing in it); the
Open Graph and Twitter card tags of the match page, the sheet and the replay."""

from __future__ import annotations

import io
import re
from datetime import date
from html import unescape
from typing import Any

import pytest
from flask.testing import FlaskClient
from PIL import Image

from api import result_card, viewer
from tests.conftest import Scorer
from tests.pages.screenshots import MATCHES

OVER = (  # a Cau Robat match to one hand won: over after its first hand, B and C share it
    {"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 1}, "options": {}},
    [
        {"type": "hand_started", "data": {"dealer": 2}},
        {"type": "hand_result", "data": {"piles": [8, 12, 12, 6], "table": 2}},
    ],
)


def tags(html: str) -> dict[str, str]:
    """The page's <meta property|name=… content=…> tags."""
    return {
        name: unescape(content)
        for name, content in re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"', html)
    }


def played(scorer: Scorer, start: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    scorer.start(start)
    scorer.record(*events)
    return scorer.get()


def colours(png: bytes) -> tuple[tuple[int, int], set[tuple[int, int, int]]]:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.size, {rgb for _, rgb in image.convert("RGB").getcolors(maxcolors=1 << 20) or []}


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


@pytest.mark.parametrize("game", sorted(MATCHES))
def test_the_one_line_result_of_each_game(scorer: Scorer, client: FlaskClient, game: str) -> None:
    start, events = MATCHES[game]
    summary = played(scorer, start, events)
    audit = scorer.get("/audit")
    labels = [" + ".join(s["names"]) if "names" in s else s["name"] for s in audit["standings"]]
    scores = " – ".join(f"{label} {s['total']}" for label, s in zip(labels, audit["standings"]))
    finished = sum(h["status"] == "scored" for h in audit["hands"])
    assert finished >= 1 and not audit["end"]["over"]
    name = {"la-cabra": "La Cabra", "cabo": "Cabo", "cau-robat": "Cau Robat", "kabu": "Kabú", "el-roby": "El Roby"}[
        game
    ]
    created = date.fromisoformat(summary["createdAt"][:10])
    day = f"{created.strftime('%b')} {created.day}, {created.year}"  # as Babel writes it in English: "Nov 29, 2026"
    hands = "hand" if finished == 1 else "hands"
    expected = f"{name}, {day}: {scores} after {finished} {hands} (in play)"
    english = tags(client.get(f"/m/{scorer.id}?lang=en").get_data(as_text=True))
    assert english["og:description"] == expected == english["twitter:description"]
    catalan = tags(client.get(f"/m/{scorer.id}?lang=ca").get_data(as_text=True))["og:description"]
    assert catalan.startswith(f"{name}, {created.day} de ") and catalan.endswith(" (en joc)")
    assert scores in catalan and "després d" in catalan


def test_a_match_over_and_a_match_not_started(scorer: Scorer, client: FlaskClient) -> None:
    played(scorer, *OVER)
    line = tags(client.get(f"/m/{scorer.id}?lang=en").get_data(as_text=True))["og:description"]
    assert line.startswith("Cau Robat, ") and line.endswith(": A 0 – B 1 – C 1 – D 0 (match over)")
    german = tags(client.get(f"/m/{scorer.id}?lang=de").get_data(as_text=True))["og:description"]
    assert german.endswith(": A 0 – B 1 – C 1 – D 0 (Partie beendet)")

    scorer.start({"game": "cabo", "players": ["Àngel", "Núria", "Jürgen", "Weiß"], "title": "Nit de cabo"})
    line = tags(client.get(f"/m/{scorer.id}?lang=en").get_data(as_text=True))["og:description"]
    assert line.startswith("Nit de cabo (Cabo), ") and line.endswith(": no hand finished yet")
    card = client.get(f"/m/{scorer.id}/card.png?lang=de")
    assert card.status_code == 200 and card.mimetype == "image/png"
    size, seen = colours(card.data)
    assert size == (result_card.WIDTH, result_card.HEIGHT) and len(seen) > 8  # title and names drawn, no chart yet


def test_the_preview_tags_of_the_public_pages(scorer: Scorer, client: FlaskClient) -> None:
    start, events = MATCHES["cabo"]
    summary = played(scorer, start, events)
    for path in (f"/m/{scorer.id}", f"/m/{scorer.id}/sheet", f"/m/{scorer.id}/replay"):
        meta = tags(client.get(path + "?lang=es").get_data(as_text=True))
        assert meta["og:type"] == "website" and meta["og:site_name"] == "Tanteo"
        assert meta["og:title"] == "Cabo" == meta["twitter:title"]
        # the match's own path: the address is named only once configured, never taken from a forgeable Host
        assert meta["og:url"] == f"/m/{scorer.id}"
        assert meta["og:image"] == meta["twitter:image"]
        assert meta["og:image"].startswith(f"/m/{scorer.id}/card.png?lang=es&v={summary['version']}")
        assert (meta["og:image:width"], meta["og:image:height"]) == ("1200", "630")
        assert meta["og:image:alt"].startswith("Imagen del resultado: Cabo, ")
        assert meta["twitter:card"] == "summary_large_image"
        assert "token" not in meta["og:url"] and "#" not in meta["og:url"]


def test_the_preview_names_the_configured_public_address(scorer: Scorer, client: FlaskClient) -> None:
    client.application.config["TANTEO_PUBLIC_URL"] = "https://tanteo.example.org"
    scorer.start({"game": "kabu", "players": ["P1", "P2", "P3", "P4"], "options": {}})
    meta = tags(client.get(f"/m/{scorer.id}", headers={"Host": "forged.example"}).get_data(as_text=True))
    assert meta["og:url"] == f"https://tanteo.example.org/m/{scorer.id}"
    assert meta["og:image"].startswith(f"https://tanteo.example.org/m/{scorer.id}/card.png?")


def test_a_forged_host_never_reaches_the_preview_or_the_share_link(scorer: Scorer, client: FlaskClient) -> None:
    scorer.start({"game": "kabu", "players": ["P1", "P2", "P3", "P4"], "options": {}})
    for path in (f"/m/{scorer.id}", f"/m/{scorer.id}/sheet", f"/m/{scorer.id}/replay"):
        html = client.get(path, headers={"Host": "forged.example", "X-Forwarded-Host": "forged.example"})
        assert html.status_code == 200 and "forged.example" not in html.get_data(as_text=True), path


def test_the_result_card_is_the_standings_in_their_colours(scorer: Scorer, client: FlaskClient) -> None:
    start, events = MATCHES["el-roby"]
    summary = played(scorer, start, events)
    image = tags(client.get(f"/m/{scorer.id}").get_data(as_text=True))["og:image"]
    card = client.get(image.removeprefix("http://localhost"))
    assert card.status_code == 200 and card.mimetype == "image/png"
    size, seen = colours(card.data)
    assert size == (1200, 630)
    assert len(seen) > 50  # text, lines and their anti-aliasing: not a blank picture
    for index in range(len(summary["players"])):
        assert rgb(viewer.PALETTE[index]) in seen, viewer.PALETTE[index]  # each series in its colour
    assert card.headers["ETag"] == f'"{summary["version"]}-en"' and "max-age" in card.headers["Cache-Control"]
    again = client.get(f"/m/{scorer.id}/card.png?lang=en", headers={"If-None-Match": card.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    catalan = client.get(f"/m/{scorer.id}/card.png?lang=ca")
    assert catalan.headers["ETag"] == f'"{summary["version"]}-ca"' and catalan.data != card.data  # its words differ
    scorer.record({"type": "note", "data": {"text": "a new entry"}})
    newer = client.get(f"/m/{scorer.id}/card.png?lang=en", headers={"If-None-Match": card.headers["ETag"]})
    assert newer.status_code == 200 and newer.headers["ETag"] == f'"{summary["version"] + 1}-en"'
    assert client.get("/m/nope/card.png").status_code == 404


def test_the_card_draws_only_the_public_audit(
    scorer: Scorer, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand in play hides its cards: the card is drawn from what every reader of /m/{id} sees,
    the same for the scorer with the write key as for anyone."""
    start, events = MATCHES["kabu"]
    played(scorer, start, events)
    drawn: list[dict[str, Any]] = []
    real = result_card.draw_card
    monkeypatch.setattr(result_card, "draw_card", lambda **kw: drawn.append(kw) or real(**kw))
    public = client.get(f"/m/{scorer.id}/card.png")
    keyed = client.get(f"/m/{scorer.id}/card.png", headers={"Authorization": f"Bearer {scorer.token}"})
    assert public.data == keyed.data
    audit = scorer.get("/audit")  # the public audit: no key
    columns = [{"label": s["name"], "seat": s.get("seat"), "team": None} for s in audit["standings"]]
    assert drawn[0]["standings"] == audit["standings"] == drawn[1]["standings"]
    assert drawn[0]["chart"] == viewer.totals_chart(audit["hands"], columns)
    assert [s["last"] for s in drawn[0]["chart"]["series"]] == [s["total"] for s in audit["standings"]]
