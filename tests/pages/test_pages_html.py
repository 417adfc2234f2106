"""The pages as the server renders them (no browser): lists, filters, refusals, the public address."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from api.app import create_app, public_url
from tests.conftest import Scorer

CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}
CABO = {"game": "cabo", "players": ["Anna", "Ben", "Carl"]}


def test_home_lists_matches_and_filters_them(client: FlaskClient, scorer: Scorer) -> None:
    scorer.start(CABRA)
    cabra = scorer.id
    scorer.start(CABO)
    cabo = scorer.id
    page = client.get("/").get_data(as_text=True)
    assert f"/m/{cabra}/score" in page and f"/m/{cabo}/score" in page
    assert "Anna, Ben, Carl" in page and "last change" in page
    only_cabo = client.get("/?game=cabo").get_data(as_text=True)
    assert f"/m/{cabo}/score" in only_cabo and f"/m/{cabra}/score" not in only_cabo
    by_player = client.get("/?player=North").get_data(as_text=True)
    assert f"/m/{cabra}/score" in by_player and f"/m/{cabo}/score" not in by_player
    nothing = client.get("/?status=over").get_data(as_text=True)
    assert "/score" not in nothing.split("<main")[1] and "with these filters" in nothing
    assert client.get("/?game=chess&status=maybe").status_code == 200  # unknown filters are ignored, not a 500


def test_import_is_offered_as_a_labelled_file_input(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'type="file" id="import-file" class="file-pick" accept=".tnt,.txt,.jsonl,.ndjson"' in page
    assert '<label class="button" for="import-file">Import a file</label>' in page
    assert "not available yet" not in page and "disabled" not in page.split("<main")[1]


def test_pages_of_a_match_that_does_not_exist_are_404(client: FlaskClient) -> None:
    assert client.get("/m/nope/score").status_code == 404
    assert client.get("/m/nope/sheet").status_code == 404


def test_no_route_draws_a_qr_code_from_a_text_sent_to_it(client: FlaskClient) -> None:
    """POST /qr drew the hand-over code, so the page sent it the whole link, write key included: the
    code is drawn in the browser now (api/static/qr.js), and a link sent here is answered 404, unread."""
    gone = client.post("/qr", json={"text": "http://127.0.0.1/m/x/score#token=secret"})
    assert gone.status_code == 404 and "secret" not in gone.get_data(as_text=True)


def test_the_sheet_shows_totals_winners_and_the_head(client: FlaskClient, scorer: Scorer) -> None:
    scorer.start(CABRA)
    for dealer in range(3):
        scorer.record(
            {"type": "hand_started", "data": {"dealer": (3 + dealer) % 4}},
            {"type": "hand_result", "data": {"cardPoints": [100, 20], "tricks": [6, 1], "lastTrick": 0}},
        )
    audit = scorer.get("/audit")
    assert audit["end"]["over"] is True
    sheet = client.get(f"/m/{scorer.id}/sheet").get_data(as_text=True)
    assert audit["chain"]["head"] in sheet
    assert 'id="winners">North + South<' in sheet
    assert '<td class="total">12</td>' in sheet


@pytest.mark.parametrize(
    "given, kept",
    [
        ("https://tanteo.example.org/", "https://tanteo.example.org"),
        ("  http://192.168.1.20:8000 ", "http://192.168.1.20:8000"),
        ("", None),
        (None, None),
    ],
)
def test_the_public_address_is_kept_without_its_last_slash(given: str | None, kept: str | None) -> None:
    assert public_url(given) == kept


@pytest.mark.parametrize(
    "given",
    [
        "tanteo.example.org",
        "ftp://tanteo.example.org",
        "http://",
        "http://a.example/?x=1",
        "http://a.example/#token",
        "http://me:pw@a.example",
        "http://a.example:99999",
        "http://a example",
    ],
)
def test_an_address_other_phones_cannot_open_is_refused_in_words(given: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="the address other phones open this server at|port out of range"):
        create_app({"TANTEO_DB": str(tmp_path / "x.db"), "TANTEO_PUBLIC_URL": given})
    refused = subprocess.run(
        [sys.executable, "-m", "api.cli", "serve", "--db", str(tmp_path / "x.db"), "--public-url", given],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 1 and refused.stderr.startswith("error: --public-url (or TANTEO_PUBLIC_URL)")
    assert "Traceback" not in refused.stderr


def test_the_sheet_and_the_new_page_name_the_configured_address_never_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TANTEO_PUBLIC_URL", "https://tanteo.example.org/")
    app = create_app({"TANTEO_DB": str(tmp_path / "x.db"), "TESTING": True})
    try:
        client = app.test_client()
        scorer = Scorer(client)
        scorer.start(CABRA)
        head = scorer.get("/audit")["chain"]["head"]
        sheet = client.get(f"/m/{scorer.id}/sheet", headers={"Host": "evil.example"}).get_data(as_text=True)
        assert f'href="https://tanteo.example.org/m/{scorer.id}?head={head}"' in sheet and "evil.example" not in sheet
        new = client.get("/new", headers={"Host": "evil.example"}).get_data(as_text=True)
        assert 'data-public-url="https://tanteo.example.org"' in new and "evil.example" not in new
    finally:
        app.extensions["tanteo.ledgers"].close()
