"""Each game in each language (issue 28), through the API: a whole series of each game, recorded as
a scorer would (notes, claims and corrections among the moves), replayed, audited and read in
Catalan, Spanish and German says every word in that language and the same facts as in English;
and each game's most common refusal is said in the language with the same ``code``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from tests.languages import english_left, same_facts, typed_in
from tests.transfer.playouts import GAMES, decorated, driver_events

LANGS = ("ca", "es", "de")
BATCH = 200


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    app = create_app({"TANTEO_DB": str(tmp_path_factory.mktemp("languages") / "games.db"), "TESTING": True})
    yield app.test_client(use_cookies=False)
    app.extensions["tanteo.ledgers"].close()


def start(client: FlaskClient, data: dict[str, Any]) -> tuple[str, dict[str, str]]:
    created = client.post("/matches", json=data)
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def record(client: FlaskClient, match: str, auth: dict[str, str], events: list[dict[str, Any]]) -> None:
    for first in range(0, len(events), BATCH):
        answer = client.post(f"/matches/{match}/events", json={"events": events[first : first + BATCH]}, headers=auth)
        assert answer.status_code == 201, answer.get_json()


def read(client: FlaskClient, path: str, lang: str, auth: dict[str, str] | None = None) -> Any:
    answer = client.get(path, query_string={"lang": lang}, headers=auth or {})
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["Content-Language"] == lang
    return answer.get_json()


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_series_is_told_in_each_language(client: FlaskClient, game: str) -> None:
    events = decorated(game, 0)
    match, auth = start(client, events[0]["data"])
    record(client, match, auth, events[1:])
    typed = typed_in(events)
    paths = [f"/matches/{match}", f"/matches/{match}/replay", f"/matches/{match}/audit", f"/matches/{match}/state"]
    for path in paths:
        for who in (None, auth):  # the open reader and the scorer
            english = read(client, path, "en", who)
            for lang in LANGS:
                said = read(client, path, lang, who)
                assert same_facts(english, said) == [], path
                left = english_left(english, said, lang, typed=typed)
                assert left == [], f"{game} {path} in {lang}:\n" + "\n".join(left[:20])


def first_refusal(client: FlaskClient, game: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """A match of ``game`` in play and a move it refuses: the playout's first move played twice
    (the same card played again, a player moving out of turn: each game's everyday slip)."""
    events = [{"type": e.type, "data": dict(e.data)} for e in driver_events(game, 1)]
    match, auth = start(client, events[0]["data"])
    done = 1
    for i in range(1, len(events)):
        record(client, match, auth, events[done : i + 1])
        done = i + 1
        if events[i]["type"] in {"hand_started", "deal", "reveal", "hand_result", "note", "score_claimed"}:
            continue
        again = client.post(
            f"/matches/{match}/events", json={"events": [events[i]]}, headers=auth, query_string={"dryRun": "true"}
        )
        if again.status_code == 422:
            return match, auth, events[i]
    raise AssertionError(f"no {game} move was refused when played twice")


@pytest.mark.parametrize("game", GAMES)
def test_a_refusal_is_said_in_each_language_with_the_same_code(client: FlaskClient, game: str) -> None:
    match, auth, move = first_refusal(client, game)
    version = client.get(f"/matches/{match}").get_json()["version"]

    def refused(lang: str) -> dict[str, Any]:
        answer = client.post(
            f"/matches/{match}/events", json={"events": [move]}, headers=auth, query_string={"lang": lang}
        )
        assert answer.status_code == 422 and answer.headers["Content-Language"] == lang
        return answer.get_json()

    english = refused("en")
    for lang in LANGS:
        said = refused(lang)
        assert said["code"] == english["code"] and said.get("rule") == english.get("rule")
        assert said["detail"] != english["detail"] and said["title"] != english["title"]
        assert english_left(english, said, lang) == [], said
    assert client.get(f"/matches/{match}").get_json()["version"] == version  # nothing was written


def test_the_same_match_reads_the_same_in_two_languages_at_once(tmp_path: Path) -> None:
    """Two readers of one match, one in Catalan and one in German, asking in turn: each gets
    their own words (the language is the request's, never the match's or the server's)."""
    app = create_app({"TANTEO_DB": str(tmp_path / "two.db"), "TESTING": True})
    client = app.test_client(use_cookies=False)
    events = decorated("cau-robat", 0)[:40]
    match, auth = start(client, events[0]["data"])
    record(client, match, auth, events[1:])
    first = [read(client, f"/matches/{match}/replay", lang) for lang in ("ca", "de", "ca", "de")]
    assert first[0] == first[2] and first[1] == first[3] and first[0] != first[1]
    app.extensions["tanteo.ledgers"].close()
