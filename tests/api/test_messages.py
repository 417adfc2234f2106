"""Messages a player understands, through HTTP: words not patterns, 1-based positions, UTF-8 text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from api.cli import main
from tests.plain import machine_text
from tests.plain_errors import check_response
from tests.conftest import Scorer

START = {"game": "la-cabra", "players": ["Núria", "Østen", "Šárka", "West"], "options": {}}
DEAL = {
    "type": "hand_started",
    "data": {
        "dealer": 3,
        "trump": "QS",
        "hands": [
            ["6C", "8H", "9H", "6D"],
            ["6S", "8S", "9S", "JH"],
            ["7D", "8D", "KD", "AD"],
            ["??", "??", "??", "??"],
        ],
    },
}


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


@pytest.mark.parametrize(
    ("data", "path", "detail"),
    [
        ({**START, "options": {"eggs": True}}, "$.options.eggs", "eggs must be none or doubleNext, not true"),
        ({**START, "players": ["N", "E", "S"]}, "$.players", "La Cabra needs 4 players; 3 given"),
        (
            {**START, "players": ["N", "E", "S", "N"]},
            "$.players",
            "players must all differ: 'N' appears more than once",
        ),
        (
            {"game": "kabu", "players": ["A", "B"], "options": {"maxPlayers": "six"}},
            "$.options.maxPlayers",
            "maxPlayers must be a whole number, not 'six'",
        ),
    ],
)
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
    for body in (
        "{\"detail\": \"'TH' does not match '^(A|[2-9])$'\"}",
        '{"detail": "True is not one of [\'none\']"}',
        '{"detail": "N\\u00faria"}',
        '{"detail": "Anna\'s is None"}',
        '{"detail": "{\'seq\': 3} is not a binding"}',
        '{"detail": "\'a\\\\nb\' is not a card"}',
    ):
        with pytest.raises(AssertionError):
            check_response(app.response_class(body, status=400, mimetype="application/problem+json"))
    check_response(
        app.response_class('{"detail": "Núria: \'TH\' is not a card"}', status=400, mimetype="application/problem+json")
    )


def test_a_match_without_a_game_or_with_an_unknown_one_is_told_which_exist(scorer: Scorer) -> None:
    body = refused(scorer.client.post("/matches", json={"players": ["A", "B"]}), 400)
    assert body["path"] == "$.game" and body["detail"].startswith("game is required: write one of cabo, cau-robat")
    body = refused(scorer.client.post("/matches", json={"game": "poker", "players": ["A", "B"]}), 400)
    assert body["detail"].startswith("'poker' is not a game Tanteo knows: write one of cabo")


def test_an_event_type_that_is_not_a_word_is_said_in_words(scorer: Scorer) -> None:
    scorer.start(START)
    body = refused(scorer.post({"type": "Lead", "data": {}}), 400)
    assert body["path"] == "$.events[0].type" and body["code"] == "schema.invalid" and body["index"] == 0
    assert body["detail"] == (
        "the 1st event of the batch: 'Lead' is not an event type: lowercase words joined by _, like play or call_cabo"
    )


KABU = {"game": "kabu", "players": ["Anna", "Ben", "Clara"]}
KABU_VALUES = [
    {"type": "hand_started", "data": {"dealer": 0}},
    {"type": "hand_result", "data": {"values": [None, 2, 1]}},
]  # null for a seat in the hand
TIRA = {"type": "tira", "data": {"seat": 2, "cards": ["7D", "8D", "KD", "AD"], "rivals": [3, 2]}}


@pytest.mark.parametrize(
    ("start", "events", "code", "detail"),
    [
        (KABU, KABU_VALUES, "kabu.bad_result", "a hand's value is a digit from 0 to 9; Anna's is null"),
        (START, [DEAL, TIRA], "la-cabra.bad_rivals", "rivals must be other seats (0 to 3), each once: [3,2]"),
    ],
)
def test_a_value_the_schema_lets_through_and_the_rules_refuse_is_written_as_json(
    scorer: Scorer, start: dict[str, Any], events: list[dict[str, Any]], code: str, detail: str
) -> None:
    """The schema allows these values (null in a list of values, a list of seats) and the rules
    refuse them: the message repeats the value as it was sent, never as Python writes it."""
    scorer.start(start)
    body = refused(scorer.post(*events), 422)
    assert body["code"] == code and body["detail"] == f"the 2nd event of the batch: {detail}"


def test_an_option_value_the_schema_lets_through_is_written_as_sent(scorer: Scorer) -> None:
    """1.0 equals 1 for the schema's enum, but an edition is a whole number for the rules."""
    body = refused(
        scorer.client.post("/matches", json={"game": "cabo", "players": ["A", "B"], "options": {"edition": 1.0}}), 422
    )
    assert (body["code"], body["detail"]) == ("common.bad_option", "option edition must be one of 1, 2, not 1.0")


KABU_TEXT = (
    '[Game "kabu"]\n[Players "Anna" "Ben" "Clara"]\n\n2. hand_started dealer=0\n3. hand_result values=[null 2 1]\n'
)


def test_a_text_import_refusal_writes_null_as_the_text_did(scorer: Scorer, tmp_path: Path) -> None:
    """An import answers 201 with its refusals inside (the error check above reads error
    statuses only), through HTTP and through ``tanteo import`` alike."""
    created = scorer.client.post("/matches/import", data=KABU_TEXT.encode(), content_type="text/plain; charset=utf-8")
    assert created.status_code == 201
    report = created.get_json()
    (error,) = report["errors"]
    assert error["line"] == 5 and error["code"] == "kabu.bad_result"
    assert error["message"].startswith("a hand's value is a digit from 0 to 9; Anna's is null")
    assert machine_text(report) == []
    path = tmp_path / "kabu.tnt"
    path.write_text(KABU_TEXT)
    result = CliRunner().invoke(main, ["import", str(path), "--db", str(tmp_path / "cli.db")])
    assert result.exit_code == 2
    assert "kabu.bad_result: a hand's value is a digit from 0 to 9; Anna's is null" in result.stderr
    assert machine_text(result.stderr) == []
