"""Every refusal the API server says, said in the reader's language (issue 28).

A bad request asked with ``?lang=ca|es|de`` or ``Accept-Language`` gets the same status and the
same ``code`` as in English, says its language in ``Content-Language``, and none of its words
(``title``, ``detail``, ``message``, ``errors[].message``, an import's report) is left in English
where the words are the server's own. A rule refusal's reason is the engine's (other areas
translate those): for it, the status, the code and the server's own words around it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import fields, validate

from api import i18n
from api.app import create_app
from api.errors import _VALIDATION, _validation, event_in_batch
from api.openapi import EXAMPLES
from api.service import Service
from api.service.transfer import import_text
from api.service.words import said
from engines.said import Said
from ledger import MemoryLedger, verify_listing
from schemas import ordinal
from tests.languages import english_left, untranslated
from tests.ledger.sqlite_helpers import drop_edit_restore

LANGS = ("ca", "es", "de")
ACCEPT = {"ca": "ca-ES,ca;q=0.9,en;q=0.3", "es": "es-ES,es;q=0.9,en;q=0.3", "de": "de-DE,de;q=0.9,en;q=0.3"}


@pytest.fixture
def lang_app(tmp_path: Path) -> Iterator[Flask]:
    """An app that offers every language, so that a browser's ``Accept-Language`` chooses one."""
    app = create_app({"TANTEO_DB": str(tmp_path / "t.db"), "TESTING": True, "TANTEO_LANGUAGES": "ca,es,de,en"})
    yield app
    app.extensions["tanteo.ledgers"].close()


@pytest.fixture
def client(lang_app: Flask) -> FlaskClient:
    return lang_app.test_client(use_cookies=False)


Request = tuple[str, str, dict[str, Any]]
"""How a case is asked: method, path and the test client's keyword arguments."""


def started(client: FlaskClient, game: str = "la-cabra", upto: int = 1) -> tuple[str, dict[str, str]]:
    """A match of ``game`` from its OpenAPI example, with the first ``upto`` example events recorded."""
    start, events = EXAMPLES[game]
    body = client.post("/matches", json=start).get_json()
    auth = {"Authorization": f"Bearer {body['token']}"}
    if upto:
        answer = client.post(f"/matches/{body['id']}/events", json={"events": events[:upto]}, headers=auth)
        assert answer.status_code == 201, answer.get_json()
    return body["id"], auth


def events(match: str, auth: dict[str, str], *sent: dict[str, Any], **more: Any) -> Request:
    headers = {**auth, **more.pop("headers", {})}
    return "POST", f"/matches/{match}/events", {"json": {"events": list(sent), **more}, "headers": headers}


NOTE = {"type": "note", "data": {"text": "x"}}


def malformed_json(client: FlaskClient) -> Request:
    match, auth = started(client)
    return (
        "POST",
        f"/matches/{match}/events",
        {"data": '{"events": [', "content_type": "application/json", "headers": auth},
    )


def huge_number(client: FlaskClient) -> Request:
    match, auth = started(client)
    body = '{"events": [{"type": "note", "data": {"text": "x", "n": ' + "9" * 45 + "}}]}"
    return "POST", f"/matches/{match}/events", {"data": body, "content_type": "application/json", "headers": auth}


TEN_MB = '{"events": [{"type": "note", "data": {"text": "' + "x" * (10 * 1024 * 1024) + '"}}]}'


def ten_mb_string(client: FlaskClient) -> Request:
    match, auth = started(client)
    return "POST", f"/matches/{match}/events", {"data": TEN_MB, "content_type": "application/json", "headers": auth}


def schema_violation(client: FlaskClient) -> Request:
    match, auth = started(client, "la-cabra", 4)
    return events(match, auth, {"type": "lead", "data": {"seat": 0, "cards": ["1H"]}})


def unknown_field(client: FlaskClient) -> Request:
    match, auth = started(client)
    return events(match, auth, NOTE, bogus=1)


def missing_field(client: FlaskClient) -> Request:
    match, auth = started(client)
    return events(match, auth, {"type": "note"})


def missing_events(client: FlaskClient) -> Request:
    match, auth = started(client)
    return "POST", f"/matches/{match}/events", {"json": {"expectedVersion": 2}, "headers": auth}


def event_not_an_object(client: FlaskClient) -> Request:
    match, auth = started(client)
    return events(match, auth, "note")  # type: ignore[arg-type]


def out_of_range(client: FlaskClient) -> Request:
    return "GET", "/matches", {"query_string": {"perPage": "501"}}


def stale_version(client: FlaskClient) -> Request:
    match, auth = started(client)
    return events(match, auth, NOTE, headers={"If-Match": '"1"'})


def missing_token(client: FlaskClient) -> Request:
    match, _ = started(client)
    return events(match, {}, NOTE)


def wrong_token(client: FlaskClient) -> Request:
    match, _ = started(client)
    return events(match, {"Authorization": "Bearer not-this-one"}, NOTE)


def unknown_match(client: FlaskClient) -> Request:
    return "GET", "/matches/no-such-match", {}


def unknown_game(client: FlaskClient) -> Request:
    return "GET", "/games/poker", {}


def unknown_route(client: FlaskClient) -> Request:
    return "GET", "/no/such/route", {}


def wrong_method(client: FlaskClient) -> Request:
    return "DELETE", "/matches", {}


def unknown_parameter(client: FlaskClient) -> Request:
    return "GET", "/matches", {"query_string": {"limit": "5"}}


def reused_key(client: FlaskClient) -> Request:
    match, auth = started(client)
    first = client.post(f"/matches/{match}/events", json={"events": [NOTE]}, headers={**auth, "Idempotency-Key": "k1"})
    assert first.status_code == 201
    return events(match, auth, {"type": "note", "data": {"text": "other"}}, headers={"Idempotency-Key": "k1"})


def not_json_media(client: FlaskClient) -> Request:
    return "POST", "/matches", {"data": "game=la-cabra", "content_type": "text/plain"}


def bad_step(client: FlaskClient) -> Request:
    match, _ = started(client)
    return "GET", f"/matches/{match}/state", {"query_string": {"at": "99"}}


def bad_seat(client: FlaskClient) -> Request:
    match, _ = started(client)
    return "GET", f"/matches/{match}/state", {"query_string": {"seat": "Nobody"}}


def unknown_hand(client: FlaskClient) -> Request:
    match, auth = started(client, "cabo", 3)
    return events(match, auth, {"type": "dispute", "data": {"hand": 7, "reason": "no such hand"}})


def not_a_dispute(client: FlaskClient) -> Request:
    match, auth = started(client, "cabo", 3)
    return events(match, auth, {"type": "ruling", "data": {"dispute": 3, "decision": "rejected", "reason": "no"}})


def ruling_without_correction(client: FlaskClient) -> Request:
    match, auth = started(client, "cabo", 3)
    dispute = {"type": "dispute", "data": {"hand": 1, "reason": "Ben called"}}
    assert client.post(f"/matches/{match}/events", json={"events": [dispute]}, headers=auth).status_code == 201
    return events(match, auth, {"type": "ruling", "data": {"dispute": 5, "decision": "upheld", "reason": "yes"}})


def _archive(client: FlaskClient) -> list[str]:
    match, auth = started(client, "cabo", 3)
    answer = client.get(f"/matches/{match}/export", query_string={"format": "jsonl"}, headers=auth)
    assert answer.status_code == 200
    return answer.get_data(as_text=True).splitlines()


def import_without_start(client: FlaskClient) -> Request:
    body = "\n".join(_archive(client)[1:]) + "\n"
    return "POST", "/matches/import", {"data": body, "content_type": "application/x-ndjson"}


def import_broken_chain(client: FlaskClient) -> Request:
    lines = _archive(client)
    match = lines[0].split('"match":"')[1].split('"')[0]
    body = "\n".join(line.replace(match, "Zz0123456789") for line in lines) + "\n"
    return "POST", "/matches/import", {"data": body, "content_type": "application/x-ndjson"}


def _rule(game: str, upto: int, event: dict[str, Any]) -> Callable[[FlaskClient], Request]:
    def case(client: FlaskClient) -> Request:
        match, auth = started(client, game, upto)
        return events(match, auth, event)

    return case


CABO_ROWS = copy.deepcopy(EXAMPLES["cabo"][1][1])
CABO_ROWS["data"]["layouts"] = CABO_ROWS["data"]["layouts"][:3]

ALL, TITLE = "all", "title"
"""Whose words a body holds: all the server's own, or the server's title around an engine's reason."""

CASES: list[tuple[str, Callable[[FlaskClient], Request], int, str, str]] = [
    ("malformed JSON", malformed_json, 400, "request.malformed_json", ALL),
    ("a huge number", huge_number, 400, "request.number_too_large", ALL),
    ("a 10 MB string", ten_mb_string, 413, "request.too_large", ALL),
    ("a schema violation", schema_violation, 400, "schema.invalid", TITLE),
    ("an unknown field", unknown_field, 400, "request.invalid", ALL),
    ("a missing field", missing_field, 400, "schema.invalid", ALL),
    ("a body without its events", missing_events, 400, "request.invalid", ALL),
    ("an event that is not an object", event_not_an_object, 400, "schema.invalid", ALL),
    ("a query out of range", out_of_range, 400, "request.invalid", ALL),
    ("La Cabra's rules", _rule("la-cabra", 4, {"type": "lead", "data": {"seat": 0, "cards": ["9H", "KS"]}}), 422, "la-cabra.one_suit", TITLE),
    ("Cabo's rules", _rule("cabo", 1, CABO_ROWS), 422, "cabo.bad_result", TITLE),
    ("Cau Robat's rules", _rule("cau-robat", 1, {"type": "hand_result", "data": {"piles": [8, 12, 12, 7], "table": 2}}), 422, "cau-robat.bad_result", TITLE),
    ("El Roby's rules", _rule("el-roby", 3, EXAMPLES["el-roby"][1][2]), 422, "el-roby.rebuy_twice", TITLE),
    ("Kabu's rules", _rule("kabu", 2, EXAMPLES["kabu"][1][1]), 422, "kabu.stood", TITLE),
    ("a stale version", stale_version, 409, "version.conflict", ALL),
    ("a missing token", missing_token, 401, "auth.missing", ALL),
    ("a wrong token", wrong_token, 403, "auth.wrong", ALL),
    ("an unknown match", unknown_match, 404, "match.not_found", ALL),
    ("an unknown game", unknown_game, 404, "game.unknown", ALL),
    ("an unknown route", unknown_route, 404, "route.not_found", ALL),
    ("a wrong method", wrong_method, 405, "method.not_allowed", ALL),
    ("an unknown query parameter", unknown_parameter, 400, "request.unknown_parameter", ALL),
    ("a reused idempotency key", reused_key, 422, "idempotency.key_reused", ALL),
    ("a body that is not JSON", not_json_media, 415, "request.media_type", ALL),
    ("a step past the end", bad_step, 400, "request.bad_step", ALL),
    ("no such seat", bad_seat, 400, "request.bad_seat", ALL),
    ("a dispute of no hand", unknown_hand, 422, "common.unknown_hand", ALL),
    ("a ruling on no dispute", not_a_dispute, 422, "common.unknown_dispute", ALL),
    ("an upheld ruling without its correction", ruling_without_correction, 422, "common.ruling_needs_correction", ALL),
    ("an archive without its start", import_without_start, 422, "import.nothing_imported", ALL),
    ("an archive whose chain is broken", import_broken_chain, 422, "import.nothing_imported", ALL),
]  # fmt: skip


def ask(client: FlaskClient, request: Request, lang: str | None = None, accept: str | None = None) -> Any:
    method, path, kwargs = request
    kwargs = copy.deepcopy(kwargs) if "data" not in kwargs else dict(kwargs)
    if lang is not None:
        kwargs["query_string"] = {**kwargs.get("query_string", {}), "lang": lang}
    if accept is not None:
        kwargs["headers"] = {**kwargs.get("headers", {}), "Accept-Language": accept}
    return client.open(path, method=method, **kwargs)


@pytest.mark.parametrize(("name", "make", "status", "code", "ours"), CASES, ids=[c[0] for c in CASES])
def test_a_refusal_is_said_in_the_readers_language(
    client: FlaskClient, name: str, make: Callable[[FlaskClient], Request], status: int, code: str, ours: str
) -> None:
    request = make(client)
    english = ask(client, request)
    assert english.status_code == status, english.get_json()
    assert english.mimetype == "application/problem+json" and english.headers["Content-Language"] == "en"
    said = english.get_json()
    assert said["code"] == code and said["detail"], said
    for lang in LANGS:
        for answer in (ask(client, request, lang=lang), ask(client, request, accept=ACCEPT[lang])):
            body = answer.get_json()
            assert (answer.status_code, body["code"], body["status"]) == (status, code, status), body
            assert answer.headers["Content-Language"] == lang
            assert answer.headers.get("Retry-After") == english.headers.get("Retry-After")
            assert body["title"] != said["title"], (lang, body["title"])
            assert body["detail"] != said["detail"], (lang, body["detail"])
            if ours == ALL:
                assert english_left(said, body, lang) == [], (lang, body)
            else:
                assert english_left({"title": said["title"]}, {"title": body["title"]}, lang) == []


def test_werkzeugs_stock_english_is_replaced_by_our_own(client: FlaskClient) -> None:
    for request in (unknown_route(client), wrong_method(client)):
        detail = ask(client, request).get_json()["detail"]
        assert "requested URL" not in detail and "not allowed for the requested" not in detail, detail
    detail = ask(client, wrong_method(client)).get_json()["detail"]
    assert detail.startswith("'/matches' does not take DELETE; it takes ") and "POST" in detail, detail


def test_the_batch_position_reads_as_before_in_english_and_each_language_counts_its_own_way() -> None:
    for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112):
        assert event_in_batch(n - 1) == f"the {ordinal(n)} event of the batch"
    assert i18n.say(event_in_batch(1), "ca") == "la 2a anotació de l'enviament"
    assert i18n.say(event_in_batch(20), "es") == "la 21.ª anotación del envío"
    assert i18n.say(event_in_batch(2), "de") == "der 3. Eintrag der Sendung"


def test_every_marshmallow_message_is_a_message_id() -> None:
    """Marshmallow words its refusals in English; each is said again from a message id of ours. A
    new Marshmallow wording (an upgrade) would fall through as English: this test names it."""
    stock = {
        message
        for field in (fields.Field, fields.Integer, fields.Number, fields.String, fields.Boolean, fields.Date, fields.List, fields.Dict, fields.Nested)
        for message in field.default_error_messages.values()
        if "{" not in message
    } | {"Unknown field.", "Invalid input type."}  # fmt: skip
    assert sorted(stock - set(_VALIDATION)) == []
    bounded = [
        validate.Range(min=1, max=500)._format_error(0, validate.Range(min=1, max=500).message_all),
        validate.Range(min=1)._format_error(0, validate.Range(min=1).message_min),
        validate.Range(max=9)._format_error(10, validate.Range(max=9).message_max),
        validate.Length(min=1, max=40)._format_error("", validate.Length.message_all),
        validate.Length(max=40)._format_error("", validate.Length.message_max),
        validate.Length(min=1)._format_error("", validate.Length.message_min),
        validate.Length(equal=3)._format_error("", validate.Length.message_equal),
        validate.OneOf(["corrected", "recorded"])._format_error("x"),
    ]
    for text in bounded:
        again = _validation(text)
        assert isinstance(again, Said) and again == text, text
        for lang in LANGS:
            assert untranslated(again, lang) == [] and i18n.say(again, lang) != text


def test_why_a_chain_does_not_verify_is_said_in_each_language() -> None:
    """The ledger says why a chain breaks in its own words (ledger/words.py); the service makes them
    the engines' kind, which every language says."""
    listing = [
        {"seq": 1, "type": "match_started", "data": {}, "at": "", "by": "", "key": None, "prev": "x", "hash": "y"},
    ]
    reason = verify_listing("m", listing).reason
    assert reason == "seq 1: prev is not GENESIS (the chain is broken here)"
    for lang in LANGS:
        assert untranslated(said(reason), lang) == []
        assert i18n.say(said(reason), lang) != reason


def test_an_altered_logs_audit_says_why_in_the_readers_language(client: FlaskClient, lang_app: Flask) -> None:
    """The audit's chain reason (the ledger's words) is said in the reader's language, like a refusal."""
    match, auth = started(client, "cabo", 3)
    assert client.post(f"/matches/{match}/events", json={"events": [NOTE]}, headers=auth).status_code == 201
    drop_edit_restore(
        Path(lang_app.config["TANTEO_DB"]),
        "UPDATE events SET data = ? WHERE seq = 5",
        params=('{"text":"nothing happened"}',),
    )
    english = client.get(f"/matches/{match}/audit").get_json()["chain"]
    assert english["reason"] == "seq 5: hash does not match the event's contents (the event was altered)"
    for lang in LANGS:
        chain = client.get(f"/matches/{match}/audit", query_string={"lang": lang}).get_json()["chain"]
        assert {k: v for k, v in chain.items() if k != "reason"} == {k: v for k, v in english.items() if k != "reason"}
        assert english_left(english, chain, lang) == [] and chain["reason"] != english["reason"]


TEXT = """[Game "cabo"]
[Players "Anna" "Ben" "Carl" "Dora"]
[Initial (totals=[20 93 85 40])]

2. hand_started dealer=0
7. hand_result caller=0 layouts=[[1 2 3 4] [0 2 5] [2 3 4 6] [1 1 5]]
4. score_claimed hand=1 points=[15 0 15 0] totals=[35 93 50 40]
"""


def test_a_text_imports_report_is_said_in_each_language() -> None:
    """A line numbered wrong stops a match's recorded prefix there: the report says so, and what
    of the rest was checked, in message ids with named parts (api/service/transfer.py)."""
    service = Service(MemoryLedger())
    report = import_text(service, TEXT)
    [error] = report["errors"]
    assert error["code"] == "notation.bad_number" and error["message"] == (
        "this line is numbered 7 but it is event 3 of the match (number every event from 2 on, or leave the "
        "numbers out) — nothing from this line on was recorded; line 7 was checked for its shape only (the rules "
        "judge a move only after every move before it)"
    )
    for lang in LANGS:
        assert untranslated(error["message"], lang) == []
        assert english_left(error, {**error, "message": i18n.say(error["message"], lang)}, lang) == []
