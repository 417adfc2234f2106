"""Every integer and every free text of the event contract is bounded (issue 9: hostile input).

An unbounded integer reached SQLite and orjson as 2^64 (a 500); an unbounded text stored a
10 MB player name. These walk every schema file so that a new schema cannot forget.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import schemas
from schemas import MAX_INTEGER, SchemaError, validate_event

FILES = sorted(schemas._catalogue().documents)


def nodes(node: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema with its path, except ``if`` conditions (a test, not a bound)."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            if key != "if":
                yield from nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from nodes(value, f"{path}/{i}")


def types(node: dict[str, Any]) -> list[Any]:
    kind = node.get("type")
    return kind if isinstance(kind, list) else [kind]


@pytest.mark.parametrize("rel", FILES)
def test_every_integer_has_bounds_within_max_integer(rel: str) -> None:
    for path, node in nodes(schemas.load(rel)):
        if "integer" in types(node):
            assert (
                -MAX_INTEGER <= node.get("minimum", -MAX_INTEGER - 1)
                and node.get("maximum", MAX_INTEGER + 1) <= MAX_INTEGER
            ), f"{rel}{path}: an integer needs a minimum and a maximum within ±{MAX_INTEGER}"


@pytest.mark.parametrize("rel", FILES)
def test_every_free_text_has_a_max_length(rel: str) -> None:
    for path, node in nodes(schemas.load(rel)):
        if "string" in types(node) and not {"enum", "const", "format"} & node.keys():
            pattern = node.get("pattern", "")
            anchored = pattern.startswith("^") and pattern.endswith("$")
            assert anchored or "maxLength" in node, f"{rel}{path}: free text needs a maxLength"


def test_the_shared_bound_is_max_integer() -> None:
    bounded = schemas.load("common/defs.json")["$defs"]["boundedInteger"]
    assert (bounded["minimum"], bounded["maximum"]) == (-MAX_INTEGER, MAX_INTEGER)


def test_out_of_range_and_too_long_are_refused_with_a_path_and_no_quote() -> None:
    with pytest.raises(SchemaError) as caught:
        validate_event(
            "kabu", "match_started", {"game": "kabu", "players": ["A", "B"], "initial": {"chips": [2**64, 1]}}
        )
    assert caught.value.path == "$.initial.chips[0]"
    validate_event(
        "kabu", "match_started", {"game": "kabu", "players": ["A", "B"], "initial": {"chips": [MAX_INTEGER, 1]}}
    )
    with pytest.raises(SchemaError) as caught:
        validate_event("la-cabra", "note", {"text": "é" * 2001})
    assert caught.value.path == "$.text" and "é" not in caught.value.message
    assert "2,001 characters long; at most 2,000" in caught.value.message
    validate_event("la-cabra", "note", {"text": "é" * 2000})
