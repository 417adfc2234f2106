"""The pages as the server renders them (no browser): lists, filters, refusals, the QR endpoint."""

from __future__ import annotations

from flask.testing import FlaskClient

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


def test_qr_is_drawn_from_the_body_never_the_url(client: FlaskClient) -> None:
    drawn = client.post("/qr", json={"text": "http://127.0.0.1/m/x/score#token=secret"})
    assert drawn.status_code == 200 and drawn.mimetype == "image/svg+xml"
    assert drawn.get_data(as_text=True).startswith("<svg") and "no-store" in drawn.headers["Cache-Control"]
    assert client.post("/qr", json={"text": ""}).status_code == 400
    assert client.post("/qr", json={"text": "x" * 601}).status_code == 400
    assert client.post("/qr", json=["not", "an", "object"]).status_code == 400
    assert client.get("/qr?text=secret").status_code == 405


def test_the_sheet_shows_totals_winners_and_the_head(client: FlaskClient, scorer: Scorer) -> None:
    scorer.start(CABRA)
    for dealer in range(3):
        scorer.record({"type": "hand_started", "data": {"dealer": (3 + dealer) % 4}},
                      {"type": "hand_result", "data": {"cardPoints": [100, 20], "tricks": [6, 1], "lastTrick": 0}})
    audit = scorer.get("/audit")
    assert audit["end"]["over"] is True
    sheet = client.get(f"/m/{scorer.id}/sheet").get_data(as_text=True)
    assert audit["chain"]["head"] in sheet
    assert 'id="winners">North + South<' in sheet
    assert '<td class="total">12</td>' in sheet
