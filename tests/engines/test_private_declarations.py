"""Every engine declares what is private, and nothing its view hides goes undeclared.

Two walks. The schema walk: every event type of every game's schemas (``schemas/<game>/`` and
the common corrections) has an entry in the engine's ``PRIVATE``; a field the schema calls
private, or where the schema lets a card be ``"??"`` (VOCABULARY §3: only where the rules
hide it), is declared. The view walk: over random legal playouts, every card written in an
event is replaced by ``"??"``; when the rules accept that and the public view after the
event does not change while the omniscient view does (the record learnt the card from
this field), the view hides the card, and the field must be declared private.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any, Iterator

import pytest
from tests.engines.drivers import DRIVERS, run

from engines import ENGINES
from engines.base import Event, RuleViolation
from engines.privacy import ACTOR, NOBODY, OWNER, Private, secrets_of, unknown_form
from schemas import SchemaError, validate_event

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
COMMON_TYPES = ("void", "amend", "note", "dispute", "ruling", "seat_key", "seat_signer", "confirm", "irregular")
SHOWN_WITH_UNKNOWNS = {("cabo", "showdown", "layouts")}
"""Fields written face up where ``??`` only means "not noted" (the showdown's rows)."""


def schema_types(game: str) -> dict[str, dict[str, Any]]:
    out = {}
    for path in sorted((SCHEMAS / game).glob("*.v1.json")):
        out[path.name.split(".")[0]] = json.loads(path.read_text(encoding="utf-8"))
    return out


def declared_keys(decls: tuple[Private, ...]) -> set[str]:
    return {d.path[0] for d in decls}


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_schema_event_type_is_declared(game: str) -> None:
    private = ENGINES[game].PRIVATE
    types = schema_types(game)
    assert types, f"no schemas for {game}"
    for name in [*types, *COMMON_TYPES]:
        assert name in private, f"{game}: event type {name} has no PRIVATE entry (say () when all of it is public)"
    for name in private:
        assert name in types or name in COMMON_TYPES, f"{game}: PRIVATE declares {name}, which has no schema"


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_fields_the_schema_hides_are_declared(game: str) -> None:
    private = ENGINES[game].PRIVATE
    for name, schema in schema_types(game).items():
        declared = declared_keys(tuple(private[name]))
        props = schema.get("properties", {})
        named = named_private(schema.get("description", ""), set(props))
        for decl in private[name]:
            assert decl.path[0] in props, f"{game} {name}: declared field {decl.path[0]} is not in the schema"
        for prop, sub in props.items():
            text = json.dumps(sub)
            said_private = "private" in sub.get("description", "").lower() or prop in named
            may_be_unknown = "OrUnknown" in text or "??" in text
            if (said_private or may_be_unknown) and (game, name, prop) not in SHOWN_WITH_UNKNOWNS:
                assert prop in declared, f"{game} {name}.{prop} is hidden by the rules but not declared private"


def named_private(description: str, props: set[str]) -> set[str]:
    """The fields a schema's description calls private: the last field named before each "private"."""
    out = set()
    for clause in re.split(r"[.;]", description):
        words = re.findall(r"[A-Za-z]+", clause)
        for i, word in enumerate(words):
            if word.lower() == "private":
                before = [w for w in words[:i] if w in props]
                if before:
                    out.add(before[-1])
    return out


def card_leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from card_leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from card_leaves(v, (*path, i))


def put(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = list(data) if isinstance(data, list) else dict(data)
    copy[path[0]] = put(data[path[0]], path[1:], value)
    return copy


def covered(path: tuple[Any, ...], found: list[Any]) -> bool:
    return any(path[: len(s.path)] == s.path for s in found)


@pytest.mark.parametrize("game", sorted(DRIVERS))
def test_what_the_public_view_hides_is_declared(game: str) -> None:
    engine = ENGINES[game]
    checked = 0  # how many writable-as-unknown cards were compared (for the reader of a failure)
    for seed in range(2):
        events, _ = run(engine, DRIVERS[game](random.Random(seed)))
        options = events[0].data.get("options", {})
        state = engine.start(events[0].data)
        for event in events[1:300]:
            after = engine.apply(state, event)
            public, everything = engine.view(after, None), engine.view(after, "all")
            found = secrets_of(engine.PRIVATE, options, event.type, event.data)
            for path, text in card_leaves(event.data):
                if text == "??" or covered(path, found) or not re.fullmatch(r"[0-9AJQK][0-9]?[CDHSocbe]?|1[0-3]", text):
                    continue
                variant = put(event.data, path, "??")
                try:
                    validate_event(game, event.type, variant)
                    other = engine.apply(state, Event(event.seq, event.type, variant))
                except (SchemaError, RuleViolation):
                    continue  # the rules want this card written: it is shown
                if engine.view(other, "all") == everything:
                    continue  # the record knew the card already: writing it taught nothing
                checked += 1
                assert engine.view(other, None) != public, (
                    f"{game} {event.type} {list(path)}: the public view hides {text!r} but PRIVATE does not declare it"
                )
            state = after


def test_secrets_name_who_saw_each_value() -> None:
    decls = {
        "hand_started": (Private(("hands", "*"), OWNER),),
        "peek": (Private(("value",), ACTOR, "omit"),),
        "reveal": (Private(("cards", "*", "card"), NOBODY, "keep"),),
    }
    deal = {"hands": [["7D"], None, ["8S"]]}
    assert [(s.path, s.seats) for s in secrets_of(decls, {}, "hand_started", deal)] == [
        (("hands", 0), frozenset({0})),
        (("hands", 2), frozenset({2})),
    ]
    peek = {"seat": 3, "value": "1"}
    assert [(s.path, s.seats) for s in secrets_of(decls, {}, "peek", peek)] == [(("value",), frozenset({3}))]
    assert secrets_of(decls, {}, "peek", {"seat": 3}) == []  # nothing private written: nothing to hide
    amend = {"target": 9, "data": peek, "reason": "r"}
    assert [s.path for s in secrets_of(decls, {}, "amend", amend, target_type="peek")] == [("data", "value")]
    assert unknown_form(peek, secrets_of(decls, {}, "peek", peek)) == {"seat": 3}
    assert unknown_form(deal, secrets_of(decls, {}, "hand_started", deal)) == {"hands": [["??"], None, ["??"]]}
    assert unknown_form(deal, secrets_of(decls, {}, "hand_started", deal), viewer=2) == {
        "hands": [["??"], None, ["8S"]]
    }
    reveal = {"cards": [{"seat": 1, "slot": 2, "card": "4"}]}
    assert unknown_form(reveal, secrets_of(decls, {}, "reveal", reveal)) == reveal  # "keep": the view hides it already


def test_conditions_follow_the_options_and_the_move() -> None:
    from engines import el_roby, la_cabra

    stock = {"seat": 1, "from": "stock", "card": "9C"}
    pile = {"seat": 1, "from": "discard", "card": "9C"}
    assert [s.path for s in secrets_of(el_roby.PRIVATE, {}, "draw", stock)] == [("card",)]
    assert secrets_of(el_roby.PRIVATE, {}, "draw", pile) == []
    down = {"seat": 3, "cards": ["6H", "7H"]}
    assert [s.path for s in secrets_of(la_cabra.PRIVATE, {}, "discard", down)] == [("cards",)]
    assert secrets_of(la_cabra.PRIVATE, {"discardFaceUp": True}, "discard", down) == []
