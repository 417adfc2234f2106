"""What ``GET /games/{game}`` serves the pages' forms is held against the schemas and the engines.

The pages (games.js, forms.js, score.js, desk.js) build every move form, deal and score sheet from
this answer and keep no table of their own (issue 27), so a field named here that the schema does
not know, a move the pages offer with no words, or a deck that differs from the engine's would
reach a scorer as a form the API refuses.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import schemas
from engines import ENGINES
from engines.base import COMMON_EVENTS
from engines.cabo.state import DECK as CABO
from engines.cau_robat.state import DECK as CAU_ROBAT
from engines.el_roby.state import DECK as EL_ROBY
from engines.kabu.options import DEFAULTS as KABU_DEFAULTS
from engines.kabu.state import DECKS as KABU
from engines.la_cabra.state import DECK as LA_CABRA
from tests.engines.views import strings

GAMES = sorted(ENGINES)
NOT_MOVES = {"match_started", "hand_started", "hand_result", "reveal", *COMMON_EVENTS}
"""Event types the pages enter through forms of their own (the deal, the sheet, reveals, corrections)."""
DECKS = {"cabo": CABO, "cau-robat": CAU_ROBAT, "el-roby": EL_ROBY, "la-cabra": LA_CABRA}


def served(client: Any, game: str) -> dict[str, Any]:
    answer = client.get(f"/games/{game}")
    assert answer.status_code == 200
    return answer.get_json()  # type: ignore[no-any-return]


def moves_of(game: str) -> list[str]:
    """The game's own moves: each has a button on the score page."""
    return [t for t in schemas.event_types(game) if t not in NOT_MOVES]


def properties(game: str, type: str) -> dict[str, Any]:
    return schemas.self_contained(game, type).get("properties", {})  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", GAMES)
def test_every_served_field_is_a_property_of_its_event(client: Any, game: str) -> None:
    moves = served(client, game)["forms"]["moves"]
    assert moves, "every game has moves with fields"
    for type, fields in moves.items():
        assert type in moves_of(game), f"{type} is not a move of {game}"
        known = properties(game, type)
        for field in fields:
            assert field["name"] in known, f"{game} {type}: {field['name']} is not in its schema"
            assert field["label"].strip(), f"{game} {type}.{field['name']} has no words"


@pytest.mark.parametrize("game", GAMES)
def test_every_move_with_a_page_control_is_described(client: Any, game: str) -> None:
    """A move whose schema asks more than the seat has fields; every move has its button's words."""
    forms = served(client, game)["forms"]
    for type in moves_of(game):
        assert type in forms["words"], f"{game}: no words for the {type} button"
        needed = set(schemas.self_contained(game, type).get("required", [])) - {"seat"}
        named = {f["name"] for f in forms["moves"].get(type, [])}
        assert needed <= named, f"{game} {type}: the form leaves out {sorted(needed - named)}"


@pytest.mark.parametrize("game", GAMES)
def test_the_deal_layout_names_fields_of_hand_started(client: Any, game: str) -> None:
    deal = served(client, game)["forms"]["deal"]
    known = properties(game, "hand_started")
    for field in [deal["perSeat"]["field"], *(x["field"] for x in deal["extras"])]:
        assert field in known, f"{game}: the deal's {field} is not a field of hand_started"


def integer_maximum(schema: dict[str, Any]) -> int | None:
    """The largest whole number ``schema`` (a field, its items, or one of its choices) allows, if it says."""
    for part in [schema, schema.get("items", {}), *schema.get("oneOf", []), *schema.get("anyOf", [])]:
        if isinstance(part, dict) and part.get("type") in ("integer", ["integer", "null"]) and "maximum" in part:
            return int(part["maximum"])
    return None


@pytest.mark.parametrize("game", GAMES)
def test_the_sheet_bounds_are_the_schemas(client: Any, game: str) -> None:
    """A sheet field's ``max`` is the hand_result schema's: a smaller one would refuse a true score sheet."""
    sheet = served(client, game)["forms"]["sheet"]
    known = properties(game, "hand_result")
    held = [name for name, spec in sheet.items() if "max" in spec and name in known]
    for name in held:
        bound = integer_maximum(known[name])
        if bound is not None:
            assert sheet[name]["max"] == bound, (
                f"{game} sheet {name}: {sheet[name]['max']} against the schema's {bound}"
            )
    assert all(name in known for name in sheet if name != "mode"), f"{game}: a sheet field not in hand_result"


def as_counter(cards: list[dict[str, Any]]) -> Counter[str]:
    return Counter({c["code"]: c["copies"] for c in cards})


@pytest.mark.parametrize("game", sorted(DECKS))
def test_the_served_deck_is_the_engines(client: Any, game: str) -> None:
    assert as_counter(served(client, game)["cards"]) == Counter(str(c) for c in DECKS[game].cards)


def test_kabu_serves_each_deck_of_its_option(client: Any) -> None:
    info = served(client, "kabu")
    assert info["cardsByOption"]["option"] == "deck"
    values = info["cardsByOption"]["values"]
    assert set(values) == set(KABU) == set(info["options"]["deck"]["values"])
    for name, deck in KABU.items():
        assert as_counter(values[name]) == Counter(str(c) for c in deck.cards), name
    assert info["cards"] == values[KABU_DEFAULTS["deck"]]
    assert len(values["full52"]) == 52 and len(values["french40"]) == 40


def test_the_list_of_games_serves_the_same(client: Any) -> None:
    listed = {g["game"]: g for g in client.get("/games").get_json()["games"]}
    for game in GAMES:
        one = served(client, game)
        assert listed[game]["forms"] == one["forms"] and listed[game]["cards"] == one["cards"]


STATIC = Path(__file__).resolve().parents[2] / "api" / "static"
READERS = ("games.js", "cards.js", "forms.js", "desk.js")
"""The pages' modules that build forms from the served answer (score.js is being reorganised apart)."""


def served_words(value: Any) -> Iterator[str]:
    """Every string of a served form, cut at its {placeholders}: what would show a copy in the code."""
    for text in strings(value):
        for part in re.split(r"\{\w+\}", text):
            yield part.strip(" :().,")


def code_of(name: str) -> str:
    """A page module without its comments (which may quote a label while saying what the code does)."""
    text = re.sub(r"/\*.*?\*/", "", (STATIC / name).read_text(), flags=re.S)
    return "\n".join(line.split("// ")[0] for line in text.splitlines())


@pytest.mark.parametrize("game", GAMES)
def test_the_pages_hold_no_copy_of_the_served_words(client: Any, game: str) -> None:
    """A label written again in the pages' code would drift from the one table (and escape translation)."""
    words = {w for w in served_words(served(client, game)["forms"]) if len(w) >= 10}
    assert words, "the forms say something"
    for name in READERS:
        code = code_of(name)
        assert not [w for w in words if w in code], name
