"""Every response carries the security headers (issue 26 item 3), set in one place (api/app.py):
every route of the app's url_map, with good and with refused input, error answers included."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import SECURITY_HEADERS
from tests.conftest import Scorer

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}
EXPECTED = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
ARGUMENTS = {"filename": "app.css", "game": "la-cabra", "path": "common/defs.json", "seat": 1}


def protected(response: Any, where: str, framed: bool = False) -> None:
    """The headers of every answer; ``framed``: the embedded scoreboard's (``/m/{id}/embed``), the one
    page other sites may frame, which keeps the rest of the policy and carries no X-Frame-Options."""
    for name, value in EXPECTED.items():
        expected = None if framed and name == "X-Frame-Options" else value
        assert response.headers.get(name) == expected, (where, response.status_code, name)
    policy = response.headers.get("Content-Security-Policy", "")
    directives = dict(d.strip().partition(" ")[::2] for d in policy.split(";"))
    assert directives.get("default-src") == "'self'", (where, policy)
    assert directives.get("script-src") == "'self'" and directives.get("style-src") == "'self'", (where, policy)
    assert directives.get("frame-ancestors") == ("*" if framed else "'none'"), (where, policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_the_policy_allows_only_the_servers_own_scripts_and_styles() -> None:
    assert set(SECURITY_HEADERS) == {*EXPECTED, "Content-Security-Policy"}


def test_every_route_answers_with_the_headers(app: Flask, scorer: Scorer) -> None:
    """Walk the url_map: each route and method, with a real match, then with refused input."""
    scorer.start(START)
    app.config["TANTEO_STREAM_SECONDS"] = 0.1
    client: FlaskClient = scorer.client
    club = client.post("/clubs", json={"name": "Casal"}).get_json()
    client.post(
        f"/clubs/{club['id']}/events",
        json={
            "events": [
                {"type": "player_added", "data": {"name": "Núria"}},
                {"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}},
            ]
        },
        headers={"Authorization": f"Bearer {club['key']}"},
    )
    real = {"match_id": scorer.id, "series_id": scorer.id, "club_id": club["id"], "night_id": "n1", "player_id": "p1"}
    refused = {"match_id": "nope", "series_id": "nope", "club_id": "nope", "night_id": "n9", "player_id": "p9"}
    seen = framings = 0
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            good = rule.build({**ARGUMENTS, **real}, append_unknown=False)[1]
            bad = rule.build(
                {**ARGUMENTS, **refused, "game": "nope", "filename": "nope.js", "path": "nope"},
                append_unknown=False,
            )[1]
            for path in {good, bad, f"{good}?unknownParameter=1", f"{good}?x=%00"}:
                response = client.open(path, method=method, json={} if method == "POST" else None)
                framed = rule.endpoint == "viewer.embed" and response.status_code == 200
                protected(response, f"{method} {path}", framed=framed)
                framings += framed
                response.close()
                seen += 1
    assert seen > 100
    assert framings == 2  # the embed of a real match, with and without an unknown parameter; refusals stay DENY
    for response in (
        client.get("/no/such/page"),
        client.put("/games"),
        client.get("/matches", headers={"X": "y" * 9000}),
        client.post("/matches", data="{", content_type="application/json"),
        client.post("/matches", data="x", content_type="text/plain"),
    ):
        assert response.status_code >= 400
        protected(response, f"{response.status_code}")


def test_an_unexpected_failure_carries_them_too(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from api import games

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(games, "get_engine", broken)
    response = client.get("/games/la-cabra")
    assert response.status_code == 500
    protected(response, "500")
