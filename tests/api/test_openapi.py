"""The OpenAPI document: valid OpenAPI 3.1, real bodies, examples the API accepts, problem+json errors."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from schemathesis.specs.openapi.definitions import OPENAPI_31

from api.openapi import EXAMPLES, RESPONSE_SHAPES

GAMES = sorted(EXAMPLES)


@pytest.fixture
def document(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    return response.get_json()  # type: ignore[no-any-return]


def validator(document: dict[str, Any], name: str) -> Draft202012Validator:
    """A validator for one component schema, resolving ``#/components/…`` inside the document."""
    root = {"components": document["components"], "$ref": f"#/components/schemas/{name}"}
    return Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)


def body(document: dict[str, Any], path: str) -> dict[str, Any]:
    return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]  # type: ignore[no-any-return]


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    errors = sorted(Draft202012Validator(OPENAPI_31).iter_errors(document), key=str)
    assert not errors, errors[0].message
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)  # each schema is valid JSON Schema 2020-12
    assert "https://tanteo.example" not in str(document), "a $ref left pointing at a schema file"


def test_request_bodies_are_the_event_contract(document: dict[str, Any]) -> None:
    schemas_ = document["components"]["schemas"]
    assert body(document, "/matches")["schema"] == {"$ref": "#/components/schemas/MatchStart"}
    assert body(document, "/matches/{match_id}/events")["schema"] == {"$ref": "#/components/schemas/AppendRequest"}
    assert {"la-cabra.match_started", "kabu.match_started", "la-cabra.lead", "common.note", "cabo.call_cabo"} <= set(
        schemas_
    )
    refused = validator(document, "MatchStart")
    assert not refused.is_valid({"game": "kabu", "players": ["A", "B"], "initial": {"chips": [2**64, 1]}})
    assert not refused.is_valid({"game": "la-cabra", "players": ["N" * 41, "E", "S", "W"]})
    assert not validator(document, "AppendRequest").is_valid(
        {"events": [{"type": "note", "data": {"text": "x", "target": 0}}]}
    )


@pytest.mark.parametrize("game", GAMES)
def test_each_example_fits_its_schema_and_the_api_records_it(
    game: str, document: dict[str, Any], client: FlaskClient
) -> None:
    start = body(document, "/matches")["examples"][game]["value"]
    append = body(document, "/matches/{match_id}/events")["examples"][game]["value"]
    assert start == EXAMPLES[game][0] and append["events"] == EXAMPLES[game][1]
    validator(document, "MatchStart").validate(start)
    validator(document, "AppendRequest").validate(append)

    created = client.post("/matches", json=start)
    assert created.status_code == 201, created.get_json()
    validator(document, "MatchCreated").validate(created.get_json())
    match_id, token = created.get_json()["id"], created.get_json()["token"]
    appended = client.post(f"/matches/{match_id}/events", json=append, headers={"Authorization": f"Bearer {token}"})
    assert appended.status_code == 201, appended.get_json()
    validator(document, "Appended").validate(appended.get_json())
    assert appended.get_json()["version"] == 1 + len(append["events"])

    # the fixed response shapes hold for a real match of every game
    validator(document, "MatchSummary").validate(client.get(f"/matches/{match_id}").get_json())
    audit = client.get(f"/matches/{match_id}/audit").get_json()
    validator(document, "AuditOut").validate(audit)
    assert audit["hands"] and audit["claims"] and audit["chain"]["valid"]


def test_the_fixed_shapes_are_declared(document: dict[str, Any]) -> None:
    schemas_ = document["components"]["schemas"]
    for name in RESPONSE_SHAPES:
        assert schemas_[name] == RESPONSE_SHAPES[name]
    audit = schemas_["AuditOut"]
    assert {"hands", "claims", "firstDivergence", "corrections", "chain", "standings", "end"} <= set(audit["required"])
    assert not validator(document, "Standing").is_valid({"seat": 0, "total": 3, "status": "asleep"})


def test_every_error_is_declared_as_problem_json(document: dict[str, Any]) -> None:
    responses = document["components"]["responses"]
    seen = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    response = responses[response["$ref"].rsplit("/", 1)[1]]
                if status == "default" or status[0] in "45":
                    assert set(response.get("content", {})) == {"application/problem+json"}, (path, method, status)
                    seen += 1
    assert seen > 20


def test_docs_page_is_served(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200 and b"swagger" in response.data.lower()


def test_every_route_naming_a_match_declares_its_404_and_every_database_route_its_503(
    document: dict[str, Any], client: FlaskClient
) -> None:
    """A script writer's generated client learns every answer it can get: an unknown match, a storage fault."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            if "{match_id}" in path:
                assert "404" in operation["responses"], (method, path)
            if not path.startswith(("/games", "/schemas")):
                assert "503" in operation["responses"], (method, path)
    answer = client.get("/matches/no-such-match/audit")  # and the 404 is what the route really answers
    assert answer.status_code == 404 and answer.get_json()["code"] == "match.not_found"


def test_every_query_parameter_a_route_reads_is_in_the_document(document: dict[str, Any], client: FlaskClient) -> None:
    """Each field of a route's query schema is a documented parameter (the live stream's
    ``lastEventId`` and ``delay`` were missing: a hand-written parameter list replaced them)."""
    import re

    checked = 0
    for rule in client.application.url_map.iter_rules():
        view = client.application.view_functions[rule.endpoint]
        cls = getattr(view, "view_class", None)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            apidoc = getattr(getattr(cls, method.lower(), None), "_apidoc", {})
            for argument in apidoc.get("arguments", {}).get("parameters", []):
                if argument["in"] != "query":
                    continue
                path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
                operation = document["paths"][path][method.lower()]
                documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
                schema = argument["schema"]
                schema = schema() if isinstance(schema, type) else schema
                wanted = {f.data_key or name for name, f in schema.fields.items() if not f.dump_only}
                assert wanted <= documented, (method, path, wanted - documented)
                checked += 1
    assert checked >= 5  # the replay, state, events, stream and list routes at least
    stream = document["paths"]["/matches/{match_id}/stream"]
    assert {"lastEventId", "delay"} <= {p["name"] for p in stream["get"]["parameters"]}
    assert "Last-Event-ID" in {p["name"] for p in stream.get("parameters", [])}


@pytest.mark.parametrize("game", GAMES)
def test_the_game_description_fits_its_documented_shape(
    document: dict[str, Any], client: FlaskClient, game: str
) -> None:
    """GET /games/{game} is documented as Game, forms and deck included, and answers that shape."""
    declared = document["paths"]["/games/{game}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert declared == {"$ref": "#/components/schemas/Game"}
    assert {"cards", "forms"} <= set(document["components"]["schemas"]["Game"]["required"])
    validator(document, "Game").validate(client.get(f"/games/{game}").get_json())
