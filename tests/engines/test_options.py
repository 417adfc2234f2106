"""Each game's options are declared once (``engines/<game>/options.py``) and everything else agrees.

The table is held against the ``match_started`` JSON Schema (names, values, defaults, an
integer's bounds), the ``Options`` state (its fields and their defaults), what the rules read
when an option is left out, and what ``GET /games/{game}`` says.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path

import pytest

from engines import ENGINES
from engines.common import Option, options_described

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
PACKAGES = {"cabo": "cabo", "cau-robat": "cau_robat", "el-roby": "el_roby", "kabu": "kabu", "la-cabra": "la_cabra"}
SHARED = {"correctionWindow", "confirmation"}
"""Options every game has, declared by the common schema and applied by the service."""


def table(game: str) -> tuple[Option, ...]:
    return importlib.import_module(f"engines.{PACKAGES[game]}.options").OPTIONS  # type: ignore[no-any-return]


def schema_options(game: str) -> dict[str, dict]:
    schema = json.loads((SCHEMAS / game / "match_started.v1.json").read_text())
    return {k: v for k, v in schema["properties"]["options"]["properties"].items() if k not in SHARED}


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_the_option_table_is_the_schema(game: str) -> None:
    options, schema = table(game), schema_options(game)
    assert [o.name for o in options] == list(schema), "the same options, in the same order"
    for option in options:
        declared = schema[option.name]
        assert declared.get("default") == option.default and type(declared.get("default")) is type(option.default), (
            option.name
        )
        if option.described.get("type") == "integer":
            assert declared["type"] == "integer", option.name
            assert (declared.get("minimum"), declared.get("maximum")) == (
                option.described.get("minimum"),
                option.described.get("maximum"),
            ), option.name
        elif set(option.values) == {False, True}:
            assert declared == {**declared, "type": "boolean"} and "enum" not in declared, option.name
        else:
            assert declared["enum"] == list(option.values), option.name
        assert option.rule == f"/rules/{game}#option-{option.name.lower()}"
        assert option.text and option.default in option.values or option.described.get("type") == "integer"


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_the_state_the_rules_and_the_description_take_the_table(game: str) -> None:
    engine = ENGINES[game]
    options = table(game)
    rules = importlib.import_module(f"engines.{PACKAGES[game]}.rules")
    parsed = rules.parse_options(None)
    fields = {f.name: f.default for f in dataclasses.fields(parsed)}
    for option in options:
        assert fields[option.name] == option.default, option.name
        assert getattr(parsed, option.name) == option.default, option.name  # an option left out takes its default
    assert engine.describe()["options"] == options_described(options)
    for option in options:
        if option.values and option.described.get("type") != "integer":
            other = next(v for v in option.values if v != option.default)
            assert getattr(rules.parse_options({option.name: other}), option.name) == other
