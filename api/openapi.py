"""What the OpenAPI document says about bodies: the real request and response shapes.

flask-smorest builds the document from the marshmallow HTTP shapes; marshmallow never
re-declares an event payload (``schemas/`` is the contract), so this module adds the
contract itself: each game's ``match_started`` and event schemas, self-contained (every
``$ref`` inlined, descriptions kept), as OpenAPI 3.1 components (3.1 speaks JSON Schema
2020-12, the dialect of ``schemas/``, so nothing is converted). It also holds the fixed
response shapes of docs/DESIGN.md (standings, end, hands with their lines, claims, chain), a
worked example per game for ``POST /matches`` and ``POST /matches/{id}/events`` (from
VOCABULARY.md §7: record the first into a new match, then the second, and the deal is in
the log), and :class:`ProblemJson`, which declares every error as ``application/problem+json``
as it is served.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from apispec import APISpec, BasePlugin

import schemas
from api.schemas import MAX_RECORDER
from schemas import MAX_INTEGER

PROBLEM = "application/problem+json"
COMPONENTS = "#/components/schemas/"


def ref(name: str) -> dict[str, str]:
    """Return a reference to a schema component."""
    return {"$ref": COMPONENTS + name}


EXAMPLES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "cau-robat": (
        {"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 3}, "options": {}},
        [
            {"type": "hand_started", "data": {"dealer": 2}},
            {"type": "hand_result", "data": {"piles": [8, 12, 12, 6], "table": 2}},
            {"type": "score_claimed", "data": {"hand": 1, "points": [8, 12, 12, 6], "totals": [0, 1, 1, 0]}},
        ],
    ),
    "kabu": (
        {"game": "kabu", "players": ["P1", "P2", "P3", "P4"], "options": {}},
        [
            {
                "type": "hand_started",
                "data": {"dealer": 3, "hands": [["??", "??"], ["??", "??"], ["??", "??"], ["??", "??"]]},
            },
            {"type": "stand", "data": {"seat": 0}},
            {"type": "take", "data": {"seat": 1}},
            {"type": "take", "data": {"seat": 2}},
            {"type": "stand", "data": {"seat": 3}},
            {"type": "stand", "data": {"seat": 1}},
            {"type": "take", "data": {"seat": 2}},
            {
                "type": "showdown",
                "data": {"hands": [["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]},
            },
            {"type": "score_claimed", "data": {"hand": 1, "points": [13, 5, -23, 5], "totals": [83, 75, 47, 75]}},
        ],
    ),
    "cabo": (
        {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"], "initial": {"totals": [20, 93, 85, 40]}},
        [
            {"type": "hand_started", "data": {"dealer": 0}},
            {
                "type": "hand_result",
                "data": {
                    "layouts": [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]],
                    "caller": 0,
                },
            },
            {"type": "score_claimed", "data": {"hand": 1, "points": [15, 0, 15, 0], "totals": [35, 93, 50, 40]}},
        ],
    ),
    "el-roby": (
        {
            "game": "el-roby",
            "players": ["Ana", "Bea", "Carlos", "Dani"],
            "options": {"entry": 10, "stake": 2},
            "initial": {"scores": [40, 70, 75, 97]},
        },
        [
            {"type": "hand_started", "data": {"dealer": 3}},
            {
                "type": "hand_result",
                "data": {"out": 0, "hands": [[], ["AS", "KH", "7D", "7C"], ["5H", "6H", "7H", "QS"], ["2C"]]},
            },
            {"type": "rebuy", "data": {"seat": 1}},
            {
                "type": "score_claimed",
                "data": {
                    "hand": 1,
                    "points": [0, 35, 28, 2],
                    "totals": [40, 99, None, 99],
                    "money": [-6, -32, -10, -12],
                    "pot": 60,
                },
            },
        ],
    ),
    "la-cabra": (
        {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}},
        [
            {"type": "hand_started", "data": {"dealer": 3}},
            {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
            {"type": "score_claimed", "data": {"hand": 1, "points": [0, 2], "totals": [0, 2]}},
            {
                "type": "hand_started",
                "data": {
                    "dealer": 0,
                    "trump": "QS",
                    "hands": [
                        ["??", "??", "??", "??"],
                        ["??", "??", "??", "??"],
                        ["??", "??", "??", "??"],
                        ["??", "??", "??", "??"],
                    ],
                },
            },
            {"type": "lead", "data": {"seat": 0, "cards": ["9H", "KH"]}},
            {"type": "beat", "data": {"seat": 1, "cards": ["10H", "6S"]}},
            {"type": "beat", "data": {"seat": 2, "cards": ["AH", "7S"]}},
            {"type": "discard", "data": {"seat": 3, "cards": ["??", "??"]}},
            {
                "type": "reveal",
                "data": {"cards": [{"seq": 9, "index": 0, "card": "6D"}, {"seq": 9, "index": 1, "card": "QC"}]},
            },
        ],
    ),
}
"""Per game: a ``match_started`` body and the events that follow it (VOCABULARY.md §7)."""

_SUMMARIES = {
    "cau-robat": "hand 1 recorded by its result (C3: B and C win it) and the score sheet",
    "kabu": "K1 move by move: the deal, stand and take, the showdown and the score sheet",
    "cabo": "round 1 recorded by its result (CB1) and the score sheet",
    "el-roby": "R1 recorded by its result, Bea's re-buy and the score sheet",
    "la-cabra": "deal 1 by its result (Z3), then deal 2's first trick with the hidden discard revealed",
}


def _component(folder_type: str) -> str:
    """Name a schema file's component: ``la-cabra.lead``, ``common.note``."""
    folder, _, name = folder_type.partition("/")
    return f"{folder}.{name.partition('.')[0]}"


def _integer(minimum: int, description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": MAX_INTEGER, "description": description}


_ANY = {"description": "any JSON value"}
_SEAT_OR_TEAM = {
    "seat": {"type": "integer", "minimum": 0, "description": "the seat (games scored per seat)"},
    "team": {"type": "integer", "minimum": 0, "description": "the team (la-cabra)"},
}

RESPONSE_SHAPES: dict[str, dict[str, Any]] = {
    "ScoreLine": {
        "type": "object",
        "description": "One reason for points (VOCABULARY.md §6).",
        "required": ["reason", "rule"],
        "properties": {
            **_SEAT_OR_TEAM,
            "points": {"type": ["integer", "null"], "description": "added to that standing's total"},
            "money": {"type": "integer", "description": "el-roby: money beside or instead of points"},
            "reason": {"type": "string", "description": "a sentence naming the cards and numbers"},
            "rule": {"type": "string", "description": "the rule it applies: /rules/{game}#{anchor}"},
        },
    },
    "Hand": {
        "type": "object",
        "description": "A hand, rescored from the log (VOCABULARY.md §6).",
        "required": ["hand", "status", "lines"],
        "properties": {
            "hand": {"type": "integer", "minimum": 1},
            "status": {"enum": ["playing", "scored", "incomplete", "void"]},
            "result": {"type": ["object", "null"], "description": "the game's facts per hand (VOCABULARY.md §6 table)"},
            "lines": {"type": "array", "items": ref("ScoreLine")},
            "missing": {"type": "array", "description": "incomplete: the reveal references of the cards it needs"},
            "confirmations": {
                "type": "array",
                "description": "the audit: the players' signed confirmations of this hand that stand (a correction "
                "of the hand after one asks for it again)",
                "items": ref("Confirmation"),
            },
            "needs": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "the audit: seats whose confirmation the match's confirmation option still needs",
            },
            "settled": {"type": "boolean", "description": "the audit: scored, and every needed seat confirmed it"},
            "irregular": {
                "type": "array",
                "description": "the audit only, when the hand has some: its irregular moves (recorded as played, "
                "never scored), each `{seq, code, message}` with the rule the move breaks",
                "items": {"type": "object"},
            },
        },
    },
    "Confirmation": {
        "type": "object",
        "description": "A seat's signed confirm of a hand (VOCABULARY.md §4).",
        "required": ["seat", "name", "seq", "valid"],
        "properties": {
            "seat": {"type": "integer"},
            "name": {"type": "string", "description": "the seat's player"},
            "seq": {"type": "integer", "description": "the confirm event"},
            "at": {"type": ["string", "null"], "description": "when it was stored"},
            "valid": {"type": "boolean", "description": "its signature verifies with the seat's signing key"},
        },
    },
    "SeatKeys": {
        "type": "object",
        "description": "Whether a seat was given a key and registered its signing key (no key or hash is ever shown).",
        "required": ["seat", "hasKey", "hasSigner"],
        "properties": {"seat": {"type": "integer"}, "hasKey": {"type": "boolean"}, "hasSigner": {"type": "boolean"}},
    },
    "Standing": {
        "type": "object",
        "description": "One seat's (la-cabra: one team's) standing (VOCABULARY.md §6).",
        "required": ["total", "status"],
        "properties": {
            **_SEAT_OR_TEAM,
            "name": {"type": "string"},
            "names": {"type": "array", "items": {"type": "string"}},
            "seats": {"type": "array", "items": {"type": "integer"}},
            "total": {"type": "integer", "description": "in the game's unit: hand wins, chips, points, loss points"},
            "status": {"enum": ["playing", "out", "winner"]},
            "money": {"type": "integer"},
            "pot": {"type": "integer"},
        },
    },
    "End": {
        "type": "object",
        "description": "Whether the match is over, who won and why.",
        "required": ["over"],
        "properties": {
            "over": {"type": "boolean"},
            "winners": {"type": "array", "items": {"type": "integer"}},
            "reason": {"type": "string"},
            "rule": {"type": "string"},
        },
    },
    "Claim": {
        "type": "object",
        "description": "One claimed value (score_claimed) beside the computed one.",
        "required": ["hand", "field", "claimed", "computed", "agrees"],
        "properties": {
            **_SEAT_OR_TEAM,
            "hand": {"type": ["integer", "null"]},
            "field": {"type": "string"},
            "claimed": _ANY,
            "computed": _ANY,
            "agrees": {"type": "boolean"},
            "claimSeq": {"type": "integer", "description": "the score_claimed event"},
            "why": {"type": "string"},
        },
    },
    "Chain": {
        "type": "object",
        "description": "The hash chain, verified.",
        "required": ["valid", "length", "head"],
        "properties": {
            "valid": {"type": "boolean"},
            "length": {"type": "integer", "minimum": 0},
            "head": {"type": ["string", "null"]},
            "firstBad": {"type": ["integer", "null"]},
            "reason": {"type": ["string", "null"]},
        },
    },
    "Card": {
        "type": "object",
        "description": "One card of a deck, in its text form (VOCABULARY.md §3), and how many copies the deck holds.",
        "required": ["code", "copies"],
        "properties": {"code": {"type": "string"}, "copies": {"type": "integer", "minimum": 1}},
    },
    "MoveField": {
        "type": "object",
        "description": "One field the scorer fills in for a move (engines/<game>/forms.py).",
        "required": ["name", "kind", "label"],
        "properties": {
            "name": {"type": "string", "description": "the event's data key"},
            "kind": {
                "type": "string",
                "description": "the control: card, cards, slot, slots, pos, seat, seats, bool, choice, int, rows, captures",
            },
            "label": {"type": "string", "description": "the whole words a person reads"},
            "optional": {"type": "boolean", "description": "may be left empty (the label says so)"},
            "max": {"type": "integer", "description": "the most cards"},
            "min": {"type": "integer", "description": "the least number"},
            "only": {"type": "array", "items": {"type": "string"}, "description": "the only cards allowed"},
            "values": {"type": "array", "description": "a choice's values"},
            "own": {"type": "boolean", "description": "a place in the acting seat's own row"},
            "other": {"type": "boolean", "description": "another seat than the acting one"},
            "unknown": {"type": "boolean", "description": "an unseen card (??) may be written"},
        },
    },
    "GameForms": {
        "type": "object",
        "description": "What the pages ask the scorer, declared once per game: the pages keep no table of their own.",
        "required": ["moves", "words", "sheet", "deal"],
        "properties": {
            "moves": {
                "type": "object",
                "description": "each move type's fields, in order; a move not named is recorded in one tap",
                "additionalProperties": {"type": "array", "items": ref("MoveField")},
            },
            "words": {
                "type": "object",
                "description": "how each move reads on its button, and the details and deal places of any move: "
                "whole sentences with {seat}, {card}, {cards}, {slots}, {n}, {places} to fill in",
                "additionalProperties": {"type": "string"},
            },
            "sheet": {
                "type": "object",
                "description": "the score-sheet form of a hand: per hand_result field its label ({player}, {team}), "
                "bounds and notes",
                "additionalProperties": {"type": "object"},
            },
            "deal": {
                "type": "object",
                "description": "the deal's layout: perSeat {field, count} and extras [{field, count, single, label, "
                "name, place}]; a count is a number, {players: {n: count}} or {option, values, default}",
                "required": ["perSeat", "extras"],
                "properties": {"perSeat": {"type": "object"}, "extras": {"type": "array", "items": {"type": "object"}}},
            },
        },
    },
    "Game": {
        "type": "object",
        "description": "One game: players, deck, options with defaults, events and their JSON Schemas, and the forms.",
        "required": ["game", "name", "options", "events", "schemas", "cards", "forms"],
        "properties": {
            "game": {"type": "string"},
            "name": {"type": "string"},
            "deck": {"type": "string", "description": "the deck's name"},
            "options": {"type": "object", "description": "each option: values or type, default, rule, description"},
            "events": {"type": "array", "items": {"type": "string"}},
            "schemas": {"type": "object", "additionalProperties": {"type": "string"}},
            "rulesVersion": {"type": "integer"},
            "cards": {"type": "array", "items": ref("Card"), "description": "the deck under the default options"},
            "cardsByOption": {
                "type": "object",
                "description": "kabu: the deck under each value of the option that chooses it",
                "properties": {
                    "option": {"type": "string"},
                    "values": {"type": "object", "additionalProperties": {"type": "array", "items": ref("Card")}},
                },
            },
            "forms": ref("GameForms"),
        },
    },
}
"""The fixed response shapes of docs/DESIGN.md, as schema components."""


def answer(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """A 200 answer documented by a raw schema (for a view that passes a plain dict through)."""
    return {"200": {"description": description, "content": {"application/json": {"schema": schema}}}}


def match_start_schema() -> dict[str, Any]:
    """The body of ``POST /matches``: one game's ``match_started`` data."""
    return {
        "description": "The match_started data (VOCABULARY.md §2); `game` chooses the schema.",
        "oneOf": [ref(f"{game}.match_started") for game in schemas.games()],
    }


def append_schema() -> dict[str, Any]:
    """The body of ``POST /matches/{id}/events``."""
    return {
        "type": "object",
        "required": ["events"],
        "additionalProperties": False,
        "properties": {
            "events": {
                "type": "array",
                "minItems": 1,
                "maxItems": 10000,
                "description": "appended all or nothing; each must be an event of the match's game",
                "items": {"anyOf": [ref(f"{game}.event") for game in schemas.games()]},
            },
            "expectedVersion": {
                "type": ["integer", "null"],
                "minimum": 1,
                "maximum": MAX_INTEGER,
                "description": "the version you last saw (or If-Match)",
            },
            "by": {"type": "string", "maxLength": MAX_RECORDER, "description": "who records (or X-Recorder)"},
        },
    }


@cache
def _contract() -> tuple[tuple[str, dict[str, Any]], ...]:
    """The event contract as named components, built once per process (every app reuses a copy)."""
    components: dict[str, dict[str, Any]] = {}
    for game in schemas.games():
        branches = []
        for event_type in schemas.event_types(game):
            name = _component(schemas.schema_id(game, event_type))
            if name not in components:
                components[name] = schemas.self_contained(game, event_type)
            if event_type != schemas.MATCH_STARTED:
                branches.append(
                    {
                        "type": "object",
                        "title": event_type,
                        "required": ["type", "data"],
                        "additionalProperties": False,
                        "properties": {"type": {"const": event_type}, "data": ref(name)},
                    }
                )
        components[f"{game}.event"] = {"description": f"An event of a {game} match.", "oneOf": branches}
    components["MatchStart"] = match_start_schema()
    components["AppendRequest"] = append_schema()
    components.update(RESPONSE_SHAPES)
    return tuple(components.items())


def register(spec: APISpec) -> None:
    """Add the event contract and the fixed response shapes to the document's components."""
    for name, schema in copy.deepcopy(_contract()):
        spec.components.schema(name, schema)


def match_request() -> dict[str, Any]:
    """The ``requestBody`` of ``POST /matches``, one example per game."""
    return {
        "content": {
            "application/json": {
                "schema": ref("MatchStart"),
                "examples": {
                    game: {"summary": f"{game}: {', '.join(start['players'])}", "value": start}
                    for game, (start, _) in EXAMPLES.items()
                },
            }
        }
    }


def events_request() -> dict[str, Any]:
    """The ``requestBody`` of ``POST /matches/{id}/events``, one example per game (after its start example)."""
    return {
        "required": True,
        "content": {
            "application/json": {
                "schema": ref("AppendRequest"),
                "examples": {
                    game: {
                        "summary": f"{game}: {_SUMMARIES[game]}",
                        "description": f"Start a match with the {game} example of POST /matches, then send these "
                        "with its token.",
                        "value": {"events": events},
                    }
                    for game, (_, events) in EXAMPLES.items()
                },
            }
        },
    }


def _as_problem(response: dict[str, Any]) -> None:
    content = response.get("content")
    if isinstance(content, dict) and "application/json" in content:
        content[PROBLEM] = content.pop("application/json")


class ProblemJson(BasePlugin):
    """Declare every error response as ``application/problem+json``, the type it is served with."""

    def response_helper(self, response: dict[str, Any], **kwargs: Any) -> dict[str, Any] | None:
        """Component responses (flask-smorest's per-status and default errors) are all errors."""
        if "content" in response:
            response = {**response, "content": dict(response["content"])}
            _as_problem(response)
        return response

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        for operation in (operations or {}).values():
            responses = operation.setdefault("responses", {})
            for status, answer in _ANSWERED_BY_EVERY.items():
                if status not in responses and _answers(path or "", status):
                    responses[status] = {"description": answer, "content": {PROBLEM: {"schema": ref("Problem")}}}
            for status, response in responses.items():
                if (status == "default" or str(status)[0] in "45") and isinstance(response, dict):
                    _as_problem(response)


_ANSWERED_BY_EVERY = {
    "404": "no match has this id (code match.not_found)",
    "503": "the database could not be used for a moment (storage.busy, storage.full, storage.read_only, "
    "storage.io) or, for a live stream, every stream of this server is open (stream.busy): nothing "
    "was written; try again after the Retry-After header's seconds",
}
"""Errors an operation answers whatever it does: an unknown match (every path naming one) and a
storage fault (every path that reads or writes the database); declared once here rather than
on each route, so a script writer's generated client knows them all."""


def _answers(path: str, status: str) -> bool:
    if status == "404":
        return "{match_id}" in path
    return not path.startswith(("/games", "/schemas"))  # those are served from the code, not the database
