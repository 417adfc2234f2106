"""The append validates each event once (issue 32): the HTTP layer checks only the body's envelope,
and the service checks each event by the JSON Schemas (the event as sent, then its data), so a
schema violation deep in an event is answered once, in the schema's words for a player."""

from __future__ import annotations

from typing import Any

import marshmallow
import pytest

import api.service.writing
from api.events import plain_envelope
from api.schemas import MAX_BATCH, MAX_RECORDER, AppendBody
from schemas import MAX_INTEGER
from tests.api.problems import DEAL, START, problem, snapshot, unchanged
from tests.conftest import Scorer


@pytest.fixture
def dealt(scorer: Scorer) -> Scorer:
    scorer.start(START)
    scorer.record(DEAL)
    return scorer


MARSHMALLOW = ("Not a valid", "Missing data for required field", "Unknown field", "Invalid input type", "_schema")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the validations an append runs: each event's data by its type's schema, and any
    marshmallow load (the HTTP layer's: once, for the envelope only; it used to load each event too)."""
    counts = {"schema": 0, "marshmallow": 0}
    validate, load = api.service.writing.validate_event, marshmallow.Schema.load

    def validate_counted(*args: Any, **kwargs: Any) -> None:
        counts["schema"] += 1
        validate(*args, **kwargs)

    def load_counted(self: marshmallow.Schema, *args: Any, **kwargs: Any) -> Any:
        counts["marshmallow"] += 1
        return load(self, *args, **kwargs)

    monkeypatch.setattr(api.service.writing, "validate_event", validate_counted)
    monkeypatch.setattr(marshmallow.Schema, "load", load_counted)
    return counts


def test_a_nested_schema_violation_is_answered_once_in_the_schemas_words(
    dealt: Scorer, counted: dict[str, int]
) -> None:
    before = snapshot(dealt)  # (a read: its query string is loaded by marshmallow)
    counted.update(schema=0, marshmallow=0)
    reveal = {"type": "reveal", "data": {"cards": [{"seq": 2, "index": 3, "card": "TH"}]}}
    body = problem(dealt.post({"type": "note", "data": {"text": "x"}}, reveal), 400, "schema.invalid")
    assert body["path"] == "$.events[1].data.cards[0].card" and body["index"] == 1
    assert body["message"] == "'TH' is not a card: write rank then suit, like 10H or QS"
    assert body["detail"] == f"the 2nd event of the batch: {body['message']}"
    assert body["errors"] == [{"path": body["path"], "message": body["message"]}]  # one error, said once
    assert not any(word in str(body) for word in MARSHMALLOW), body
    assert counted == {"schema": 2, "marshmallow": 0}  # the note, then the reveal refused: each checked once
    unchanged(dealt, before)


def test_each_event_of_an_accepted_append_is_checked_once(dealt: Scorer, counted: dict[str, int]) -> None:
    lead = {"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}
    assert dealt.post({"type": "note", "data": {"text": "x"}}, lead).status_code == 201
    # each event once by its schema; the envelope a plain one, known at a glance (no marshmallow load)
    assert counted == {"schema": 2, "marshmallow": 0}


@pytest.mark.parametrize(
    ("event", "path", "message"),
    [
        ({"type": "note"}, "$.events[1].data", "data is required"),
        (
            {"type": "note", "data": {"text": "x"}, "seq": 4},
            "$.events[1].seq",
            "unknown field 'seq' (allowed: type, data)",
        ),
        ({"type": "note", "data": []}, "$.events[1].data", "data must be an object of named fields, not []"),
        ({"type": 7, "data": {}}, "$.events[1].type", "type must be text, not 7"),
        (["note", {}], "$.events[1]", 'an event must be an object with its type and data, not ["note",{}]'),
    ],
)
def test_an_event_that_is_not_an_event_is_said_by_the_schema_of_an_event_as_sent(
    dealt: Scorer, event: Any, path: str, message: str
) -> None:
    before = snapshot(dealt)
    body = problem(dealt.post({"type": "note", "data": {"text": "x"}}, event), 400, "schema.invalid")
    assert (body["path"], body["index"], body["message"]) == (path, 1, message)
    unchanged(dealt, before)


def test_the_envelope_is_still_checked_at_the_door(dealt: Scorer) -> None:
    before = snapshot(dealt)
    note = {"type": "note", "data": {"text": "x"}}
    for sent, path, words in (
        ([note], "$", "Invalid input type."),
        ({}, "$.events", "Missing data for required field."),
        ({"events": []}, "$.events", "Length must be between 1 and 10000."),
        ({"events": [note], "expectedVersion": True}, "$.expectedVersion", "Not a valid integer."),
        ({"events": [note], "expectedVersion": 0}, "$.expectedVersion", "Must be greater than or equal to 1"),
        ({"events": [note], "by": 3}, "$.by", "Not a valid string."),
        ({"events": [note], "seq": 3}, "$.seq", "Unknown field."),
    ):
        response = dealt.client.post(
            f"/matches/{dealt.id}/events", json=sent, headers={"Authorization": f"Bearer {dealt.token}"}
        )
        body = problem(response, 400, "request.invalid")
        assert body["path"] == path and body["detail"].startswith(f"{path}: {words}"), body
    unchanged(dealt, before)


NOTE = {"type": "note", "data": {"text": "x"}}


@pytest.mark.parametrize(
    "body",
    [
        {"events": [NOTE]},
        {"events": [NOTE, NOTE], "expectedVersion": 3},
        {"events": [NOTE], "expectedVersion": None, "by": "Anna"},
        {"events": [NOTE], "expectedVersion": MAX_INTEGER, "by": "x" * MAX_RECORDER},
        {"events": [7, "not an event"]},  # the events are the service's to check, not the door's
        {"events": [NOTE] * MAX_BATCH},
    ],
)
def test_a_plain_envelope_is_what_the_schema_loads(body: dict[str, Any]) -> None:
    """The door's shortcut (no marshmallow load for the usual envelope) takes only what the schema
    takes, and as the schema gives it back."""
    assert plain_envelope(body)
    assert AppendBody().load(body) == body


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"events": []},
        {"events": [NOTE] * (MAX_BATCH + 1)},
        {"events": NOTE},
        {"events": [NOTE], "expectedVersion": 0},
        {"events": [NOTE], "expectedVersion": MAX_INTEGER + 1},
        {"events": [NOTE], "expectedVersion": True},  # the schema's own answer, whatever it is
        {"events": [NOTE], "expectedVersion": 3.0},
        {"events": [NOTE], "expectedVersion": "3"},
        {"events": [NOTE], "by": None},
        {"events": [NOTE], "by": 3},
        {"events": [NOTE], "by": "x" * (MAX_RECORDER + 1)},
        {"events": [NOTE], "seq": 3},
    ],
)
def test_anything_else_goes_through_the_schema(body: dict[str, Any]) -> None:
    assert not plain_envelope(body)
