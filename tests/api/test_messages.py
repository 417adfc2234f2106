"""Messages a player understands, through HTTP: words not patterns, 1-based positions, UTF-8 text."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from tests.plain_errors import check_response
from tests.conftest import Scorer

START = {"game": "la-cabra", "players": ["Núria", "Østen", "Šárka", "West"], "options": {}}
DEAL = {"type": "hand_started", "data": {"dealer": 3, "trump": "QS", "hands": [
    ["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], ["??", "??", "??", "??"]]}}


def refused(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def test_a_bad_card_is_named_with_an_example_and_its_place_in_words(scorer: Scorer) -> None:
    scorer.start(START)
    body = refused(scorer.post(DEAL, {"type": "lead", "data": {"seat": 0, "cards": ["TH"]}}), 400)
    assert body["detail"] == "the 2nd event of the batch: 'TH' is not a card: write rank then suit, like 10H or QS"
    assert body["index"] == 1 and body["path"] == "$.events[1].data.cards[0]"


def test_a_rule_refusal_counts_the_batch_from_one(scorer: Scorer) -> None:
    scorer.start(START)
    body = refused(scorer.post(DEAL, {"type": "lead", "data": {"seat": 2, "cards": ["7D"]}}), 422)
    assert body["detail"].startswith("the 2nd event of the batch: ") and body["index"] == 1


@pytest.mark.parametrize(("data", "path", "detail"), [
    ({**START, "options": {"eggs": True}}, "$.options.eggs", "eggs must be none or doubleNext, not true"),
    ({**START, "players": ["N", "E", "S"]}, "$.players", "La Cabra needs 4 players; 3 given"),
    ({**START, "players": ["N", "E", "S", "N"]}, "$.players", "players must all differ: 'N' appears more than once"),
    ({"game": "kabu", "players": ["A", "B"], "options": {"maxPlayers": "six"}}, "$.options.maxPlayers",
     "maxPlayers must be a whole number, not 'six'"),
])
def test_match_started_errors_say_the_rule(scorer: Scorer, data: dict[str, Any], path: str, detail: str) -> None:
    body = refused(scorer.client.post("/matches", json=data), 400)
    assert (body["path"], body["detail"]) == (path, detail)


def test_json_is_sent_as_utf8_text_without_escapes(scorer: Scorer) -> None:
    scorer.start(START)
    raw = scorer.client.get(f"/matches/{scorer.id}").get_data(as_text=True)
    assert "Núria" in raw and "Šárka" in raw and "\\u" not in raw
    bad = scorer.client.post("/matches", json={**START, "players": ["Núria", "Núria", "B", "C"]})
    assert "'Núria' appears more than once" in bad.get_data(as_text=True)


def test_the_error_check_refuses_patterns_reprs_and_escapes(app: Flask) -> None:
    for body in ('{"detail": "\'TH\' does not match \'^(A|[2-9])$\'"}', '{"detail": "True is not one of [\'none\']"}',
                 '{"detail": "N\\u00faria"}'):
        with pytest.raises(AssertionError):
            check_response(app.response_class(body, status=400, mimetype="application/problem+json"))
    check_response(app.response_class('{"detail": "Núria: \'TH\' is not a card"}', status=400, mimetype="application/problem+json"))


def test_a_match_without_a_game_or_with_an_unknown_one_is_told_which_exist(scorer: Scorer) -> None:
    body = refused(scorer.client.post("/matches", json={"players": ["A", "B"]}), 400)
    assert body["path"] == "$.game" and body["detail"].startswith("game is required: write one of cabo, cau-robat")
    body = refused(scorer.client.post("/matches", json={"game": "poker", "players": ["A", "B"]}), 400)
    assert body["detail"].startswith("'poker' is not a game Tanteo knows: write one of cabo")


def test_an_event_type_that_is_not_a_word_is_said_in_words(scorer: Scorer) -> None:
    scorer.start(START)
    body = refused(scorer.post({"type": "Lead", "data": {}}), 400)
    assert body["path"] == "$.events[0].type"
    assert body["detail"].endswith("an event type is lowercase words joined by _, like play or call_cabo")
