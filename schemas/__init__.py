"""JSON Schemas of the event contract, and the cached validators that check them.

The ``*.json`` files beside this module are the durable, public event contract
(``docs/VOCABULARY.md``); the engines check the rules, these files check the shapes.

Layout (a new game only adds a folder)::

    envelope.v1.json              a stored event: seq, type, data, at, by, key, prev, hash
                                  (and match, optional: the ledger's envelopes carry it)
    sent.v1.json                  an event as a client sends it: type and data, nothing else
    common/card.json              card notation ($defs: frenchCard, spanishCard, caboCard, unknown,
                                  frenchOrUnknown, spanishOrUnknown, caboOrUnknown)
    common/defs.json              shared building blocks (seq, text, playerName, …)
    common/<type>.v<N>.json       events every game shares: void, amend, note
    <game>/defs.json              the game's own building blocks (seat 0…N-1, …)
    <game>/<type>.v<N>.json       the game's events, match_started included

An event type of a game is looked up in ``<game>/`` first, then in ``common/``; a file
``<type>.v<N>.json`` is an event schema (the highest ``N`` is the current version), any
other ``.json`` file holds definitions only. Every file has ``$id`` =
``https://tanteo.example/schemas/<relative path>`` and refers to others by relative
``$ref``, resolved offline through a :class:`referencing.Registry` holding every file.

Validation semantics, beyond plain draft 2020-12 (all deliberate, for a Python pipeline):

* ``integer`` means a JSON integer literal: ``1.0`` and ``true`` are refused (the spec
  accepts ``1.0``, which would reach the engines as a float and be hashed as ``1.0``);
* ``pattern`` anchors follow ECMA-262, as the spec says: ``$`` matches only at the very end,
  so ``"AH\\n"`` is not a card (Python's ``re`` lets ``$`` match before a final newline);
* a missing or unknown property is reported at its own path (``$.seat``), not at the object.

Validators are built lazily, once per ``(game, type)``, from a copy of the schema whose
``$ref`` are inlined and annotations dropped. The hot path asks a predicate compiled from
that copy (``schemas._fast``, 10-20× faster than jsonschema's ``is_valid`` on the same
inlined schema, 40-60× faster than resolving ``$ref`` on every call) and calls jsonschema, the
reference, only for an invalid payload, to collect every error with its path.

>>> validate_event("la-cabra", "lead", {"seat": 0, "cards": ["9H", "KH"]})
>>> try:
...     validate_event("la-cabra", "lead", {"seat": 0, "cards": ["9H", "XX"]})
... except SchemaError as e:
...     print(e.code, e.path)
schema.invalid $.cards[1]
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, TypeAlias
from urllib.parse import urldefrag, urljoin

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.exceptions import best_match
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from engines.said import Counted, Joined, Said
from engines.written import grouped
from schemas._fast import Unsupported, compile_schema

__all__ = [
    "BASE_URI",
    "MAX_INTEGER",
    "SchemaError",
    "ordinal",
    "say",
    "show",
    "event_types",
    "games",
    "load",
    "schema_document",
    "schema_id",
    "self_contained",
    "club_event_types",
    "validate_club_event",
    "validate_envelope",
    "validate_sent",
    "validate_event",
]

BASE_URI = "https://tanteo.example/schemas/"
"""The base of every schema's ``$id``: ``BASE_URI + relative path``."""

COMMON = "common"
"""The folder of the event types every game shares (and of shared definitions)."""

ENVELOPE = "envelope.v1.json"

SENT = "sent.v1.json"
"""The relative path of the stored-event envelope schema."""

MATCH_STARTED = "match_started"

ROSTER = "club"
"""The folder of a club's roster events (``club/<type>.v<N>.json``): not a game."""

MAX_INTEGER = 1_000_000_000
"""The widest integer any schema accepts (``common/defs.json#/$defs/boundedInteger``); every
integer of every schema has a ``minimum`` and a ``maximum`` within ±this (tests/schemas checks)."""

Schema: TypeAlias = dict[str, Any]
ErrorEntry: TypeAlias = dict[str, str]

_EVENT_FILE = re.compile(r"(?P<type>[a-z][a-z0-9]*(?:_[a-z0-9]+)*)\.v(?P<version>[1-9][0-9]*)\.json")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SchemaError(Exception):
    """A payload that does not fit the event contract.

    Attributes:
        code: ``schema.invalid`` (the payload breaks its schema), ``schema.unknown_type``
            (the game has no such event type) or ``schema.unknown_game``.
        message: the first error in a player's words, without the path:
            ``'TH' is not a card: write rank then suit, like 10H or QS``; ``(and 2 more errors)``
            is added when there are more.
        path: JSON path of the first error, relative to the validated instance: ``$``,
            ``$.cards[1]``, ``$.options.eggs``.
        errors: every error as ``{"path", "message"}``, sorted by path.
    """

    def __init__(self, code: str, message: str, path: str = "$", errors: list[ErrorEntry] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.errors: list[ErrorEntry] = errors if errors is not None else [{"path": path, "message": message}]

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message, self.path, self.errors))

    def __repr__(self) -> str:
        return f"SchemaError({self.code!r}, {self.message!r}, path={self.path!r})"


# --------------------------------------------------------------------------- catalogue


@dataclass(frozen=True)
class _Catalogue:
    """Every schema file of the package, read once."""

    documents: dict[str, Schema]
    """Relative path (``la-cabra/lead.v1.json``) → parsed document."""
    types: dict[str, dict[str, str]]
    """Folder (a game id or ``common``) → event type → relative path of its current version."""
    registry: Registry[Any]
    """Every document under its ``$id``, for ``$ref`` resolution."""


def _walk(folder: Traversable, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and not entry.name.startswith((".", "_")):
            yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.is_file() and entry.name.endswith(".json"):
            yield prefix + entry.name, entry


@cache
def _catalogue() -> _Catalogue:
    """Read every schema file of the package (once)."""
    documents: dict[str, Schema] = {}
    versions: dict[str, dict[str, tuple[int, str]]] = {}
    for rel, entry in _walk(resources.files(__name__)):
        documents[rel] = json.loads(entry.read_text(encoding="utf-8"))
        folder, _, name = rel.rpartition("/")
        match = _EVENT_FILE.fullmatch(name)
        if folder and "/" not in folder and match:
            version = int(match["version"])
            known = versions.setdefault(folder, {}).get(match["type"])
            if known is None or version > known[0]:
                versions[folder][match["type"]] = (version, rel)
    registry: Registry[Any] = Registry().with_resources(
        (doc.get("$id", BASE_URI + rel), DRAFT202012.create_resource(doc)) for rel, doc in documents.items()
    )
    types = {folder: {t: rel for t, (_, rel) in sorted(found.items())} for folder, found in versions.items()}
    return _Catalogue(documents, types, registry.crawl())


def games() -> list[str]:
    """Return the game ids that have a schema folder, sorted."""
    return sorted(folder for folder in _catalogue().types if folder not in (COMMON, ROSTER))


def _check_game(game: object, path: str = "$") -> str:
    if not isinstance(game, str) or game in (COMMON, ROSTER) or game not in _catalogue().types:
        known = Joined(games(), ", ")
        message = (
            Said("game is required: write one of %(known)s", known=known)
            if game is None
            else Said("%(value)s is not a game Tanteo knows: write one of %(known)s", value=show(game), known=known)
        )
        raise SchemaError("schema.unknown_game", message, path, [{"path": path, "message": message}])
    return game


def event_types(game: str) -> list[str]:
    """Return the event types a game accepts: its own (sorted), then the common ones.

    Raises:
        SchemaError: ``schema.unknown_game``.
    """
    types = _catalogue().types
    own = list(types[_check_game(game)])
    return own + [t for t in types.get(COMMON, {}) if t not in own]


def schema_id(game: str, type: str) -> str:
    """Return the relative path of the current schema of a game's event type.

    ``schema_id("la-cabra", "lead") == "la-cabra/lead.v1.json"``; common types resolve to
    ``common/``: ``schema_id("la-cabra", "void") == "common/void.v1.json"``. The ``$id`` is
    ``BASE_URI`` + this path.

    Raises:
        SchemaError: ``schema.unknown_game`` or ``schema.unknown_type``.
    """
    types = _catalogue().types
    own = types[_check_game(game)]
    rel = (own.get(type) or types.get(COMMON, {}).get(type)) if isinstance(type, str) else None
    if rel is None:
        message = Said(
            "%(game)s has no event %(type)s: write one of %(known)s",
            game=_game_name(game),
            type=show(type),
            known=Joined(event_types(game), ", "),
        )
        raise SchemaError("schema.unknown_type", message, "$", [{"path": "$", "message": message}])
    return rel


def load(relative_path: str) -> Schema:
    """Return a copy of one schema file, by its path relative to the package.

    Raises:
        FileNotFoundError: the package holds no schema file at that path.
    """
    try:
        return copy.deepcopy(_catalogue().documents[relative_path])
    except KeyError:
        raise FileNotFoundError(f"no schema {relative_path!r}") from None


def schema_document(game: str, type: str) -> Schema:
    """Return a copy of the current schema of a game's event type, as stored (for serving).

    Raises:
        SchemaError: ``schema.unknown_game`` or ``schema.unknown_type``.
    """
    return load(schema_id(game, type))


def self_contained(game: str, type: str) -> Schema:
    """Return the current schema of a game's event type with every ``$ref`` inlined, annotations kept.

    For documents that embed the contract (the OpenAPI document): no ``$id``, ``$schema`` or
    ``$ref`` left to resolve, descriptions, defaults and examples where the files put them.

    Raises:
        SchemaError: ``schema.unknown_game`` or ``schema.unknown_type``.
    """
    rel = schema_id(game, type)
    catalogue = _catalogue()
    document = catalogue.documents[rel]
    base = document.get("$id", BASE_URI + rel)
    inlined: Schema = _inline(document, base, catalogue.registry, frozenset({base}), root=True, annotations=True)
    inlined.pop("$id", None)
    inlined.pop("$schema", None)
    return inlined


# --------------------------------------------------------------------------- validator class


@lru_cache(maxsize=None)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """Compile a schema pattern, with ``$`` outside classes meaning the very end (ECMA-262)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = r"\Z"
        out.append(char)
        i += 1
    return re.compile("".join(out))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if isinstance(instance, str) and not _ecma_regex(pattern).search(instance):
        yield ValidationError(Said("the text is not in the expected form"))


def _required(validator: Any, required: list[str], instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name in required:
            if name not in instance:
                yield ValidationError(Said("%(field)s is required", field=name), path=(name,))


def _dependent_required(
    validator: Any, dependent: Mapping[str, list[str]], instance: Any, schema: Schema
) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name, needed in dependent.items():
            if name in instance:
                for each in needed:
                    if each not in instance:
                        yield ValidationError(
                            Said("%(field)s is required when %(other)s is given", field=each, other=name), path=(each,)
                        )


_ADDITIONAL_PROPERTIES = Draft202012Validator.VALIDATORS["additionalProperties"]


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    if allowed is False and isinstance(instance, dict) and "patternProperties" not in schema:
        properties = schema.get("properties", {})
        for name in instance:
            if name not in properties:
                known = Joined(properties, ", ") if properties else Said("none")
                yield ValidationError(
                    Said("unknown field %(field)s (allowed: %(known)s)", field=show(name), known=known), path=(name,)
                )
        return
    yield from _ADDITIONAL_PROPERTIES(validator, allowed, instance, schema)


def _max_length(validator: Any, limit: int, instance: Any, schema: Schema) -> Iterator[ValidationError]:
    """Say how long the text is and how long it may be, without quoting it (it may be huge)."""
    if isinstance(instance, str) and len(instance) > limit:
        yield ValidationError(
            Said(
                "is %(length)s characters long; at most %(most)s are allowed",
                length=grouped(len(instance)),
                most=grouped(limit),
            )
        )


def _is_integer(checker: Any, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator: Any = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    validators={
        "pattern": _pattern,
        "required": _required,
        "dependentRequired": _dependent_required,
        "additionalProperties": _additional_properties,
        "maxLength": _max_length,
    },
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)
"""Draft 2020-12 with JSON-literal integers, ECMA ``$`` and per-property error paths."""

_FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER

_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_SCHEMA_VALUES = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


def _inline(
    schema: Any, base: str, registry: Registry[Any], seen: frozenset[str], root: bool = False, annotations: bool = False
) -> Any:
    """Return a copy of ``schema`` with every ``$ref`` replaced by its target, annotations dropped.

    A ``$ref`` with no other keywords becomes its target; beside other keywords it becomes
    one more ``allOf`` entry. A recursive ``$ref`` stays, made absolute, for the registry.
    With ``annotations`` the descriptions, defaults and examples stay (for documents people read).
    """
    if not isinstance(schema, dict):
        return schema
    if "$id" in schema:
        base = urljoin(base, schema["$id"])
    out: Schema = {}
    for key, value in schema.items():
        if (
            (key in _ANNOTATIONS and not annotations)
            or key in ("$ref", "$defs")
            or (not root and key in ("$id", "$schema"))
        ):
            continue
        if key in _SCHEMA_MAPS:
            out[key] = {
                name: _inline(sub, base, registry, seen, annotations=annotations) for name, sub in value.items()
            }
        elif key in _SCHEMA_VALUES:
            out[key] = _inline(value, base, registry, seen, annotations=annotations)
        elif key in _SCHEMA_LISTS:
            out[key] = [_inline(sub, base, registry, seen, annotations=annotations) for sub in value]
        else:
            out[key] = value
    ref = schema.get("$ref")
    if ref is None:
        return out
    target_uri = urljoin(base, ref)
    if target_uri in seen:
        out["$ref"] = target_uri
        return out
    target = registry.resolver(base).lookup(ref).contents
    inlined = _inline(target, urldefrag(target_uri).url, registry, seen | {target_uri}, annotations=annotations)
    if not out:
        return inlined
    out["allOf"] = [*out.get("allOf", ()), inlined]
    return out


class _Compiled:
    """One schema's validators: a fast ``is_valid`` and jsonschema's, which reports errors."""

    __slots__ = ("is_valid", "validator")

    def __init__(self, validator: Any, is_valid: Callable[[Any], bool]) -> None:
        self.validator = validator
        self.is_valid = is_valid


def _build(rel: str) -> _Compiled:
    """Build the validators of one schema file, ``$ref`` inlined."""
    catalogue = _catalogue()
    document = catalogue.documents[rel]
    base = document.get("$id", BASE_URI + rel)
    schema = _inline(document, base, catalogue.registry, frozenset({base}), root=True)
    validator = _Validator(schema, registry=catalogue.registry, format_checker=_FORMAT_CHECKER)
    try:
        is_valid = compile_schema(
            schema, keywords=_Validator.VALIDATORS, regex=_ecma_regex, conforms=_FORMAT_CHECKER.conforms
        )
    except Unsupported:
        is_valid = validator.is_valid
    return _Compiled(validator, is_valid)


_VALIDATORS: dict[tuple[str, str], _Compiled] = {}


def _validator(game: str, type: str) -> _Compiled:
    """Return the cached validators of a game's event type, building them on first use.

    Raises:
        SchemaError: ``schema.unknown_game`` or ``schema.unknown_type``.
    """
    key = (game, type)
    compiled = _VALIDATORS.get(key) if isinstance(type, str) else None
    if compiled is None:
        compiled = _build(schema_id(game, type))  # raises for anything but a known str type
        _VALIDATORS[key] = compiled
    return compiled


@cache
def _envelope_validator() -> _Compiled:
    return _build(ENVELOPE)


@cache
def _sent_validator() -> _Compiled:
    return _build(SENT)


# --------------------------------------------------------------------------- validation


def validate_event(game: str | None, type: str, data: object) -> None:
    """Check an event's ``data`` against the schema of its type in ``game``.

    For ``match_started`` ``game`` may be None: the schema is chosen by ``data["game"]``
    (a ``game`` given wins, and that game's schema then refuses another ``data.game``).

    Raises:
        SchemaError: ``schema.unknown_game`` (path ``$.game`` for ``match_started``, else
            ``$``), ``schema.unknown_type`` or ``schema.invalid``.
    """
    try:
        validator = _VALIDATORS.get((game, type))  # type: ignore[arg-type]
    except TypeError:  # an unhashable type from a bad request: no such event type
        validator = None
    if validator is None:
        if type == MATCH_STARTED:
            if game is None:
                if not isinstance(data, dict):
                    raise _invalid(
                        [ValidationError("not an object", validator="type", validator_value="object", instance=data)],
                        "data",
                    )
                game = data.get("game")
            _check_game(game, "$.game")
        validator = _validator(_check_game(game), type)
    if not validator.is_valid(data):
        _raise_invalid(validator.validator, data, "data", game)


def validate_sent(event: object) -> None:
    """Check an event as a client sends it (``sent.v1.json``): an object holding its ``type``
    and its ``data`` and nothing else; :func:`validate_event` then checks the data.

    Raises:
        SchemaError: ``schema.invalid``, paths relative to the event (``$.type``, ``$.data``).
    """
    compiled = _sent_validator()
    if compiled.is_valid(event):
        return
    if not isinstance(event, dict):
        message = Said("an event must be an object with its type and data, not %(value)s", value=show(event))
        raise SchemaError("schema.invalid", message)
    _raise_invalid(compiled.validator, event, "event")


def club_event_types() -> list[str]:
    """Return the event types of a club's roster log, sorted."""
    return list(_catalogue().types[ROSTER])


def validate_club_event(type: str, data: object) -> None:
    """Check a roster event's ``data`` against its schema (``club/<type>.v<N>.json``).

    Raises:
        SchemaError: ``schema.unknown_type`` or ``schema.invalid``.
    """
    own = _catalogue().types[ROSTER]
    rel = own.get(type) if isinstance(type, str) else None
    if rel is None:
        message = Said(
            "a club's log has no event %(type)s: write one of %(known)s",
            type=show(type),
            known=Joined(list(own), ", "),
        )
        raise SchemaError("schema.unknown_type", message, "$.type", [{"path": "$.type", "message": message}])
    key = (ROSTER, type)
    compiled = _VALIDATORS.get(key)
    if compiled is None:
        compiled = _VALIDATORS[key] = _build(rel)
    if not compiled.is_valid(data):
        _raise_invalid(compiled.validator, data, "data")


def validate_envelope(envelope: object) -> None:
    """Check a stored event's envelope (not its ``data``, which :func:`validate_event` checks).

    Raises:
        SchemaError: ``schema.invalid``, paths relative to the envelope (``$.seq``).
    """
    validator = _envelope_validator()
    if not validator.is_valid(envelope):
        _raise_invalid(validator.validator, envelope, "envelope")


def _format_path(parts: Iterable[object]) -> str:
    """Return a JSON path: ``$``, ``$.cards[1]``, ``$["odd key"]``."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif isinstance(part, str) and _IDENTIFIER.fullmatch(part):
            out.append(f".{part}")
        else:
            out.append(f"[{json.dumps(part, ensure_ascii=False)}]")
    return "".join(out)


def _required_choice(error: ValidationError) -> str | None:
    """Return a readable message for a ``oneOf``/``anyOf`` of bare ``required`` branches."""
    branches: Any = error.validator_value
    if not all(isinstance(b, dict) and b.keys() == {"required"} for b in branches):
        return None
    names = [name for b in branches for name in b["required"]]
    if error.validator == "anyOf":
        return Said("write at least one of %(names)s", names=_either(names, "or"))
    given = [n for n in names if isinstance(error.instance, dict) and n in error.instance]
    if len(given) > 1:
        return Said(
            "give only one of %(names)s, not %(given)s", names=_either(names, "or"), given=_either(given, "and")
        )
    return Said("one of %(names)s is required", names=_either(names, "or"))


def _entries(errors: Iterable[ValidationError], game: str | None) -> Iterator[tuple[tuple[Any, ...], str]]:
    for error in errors:
        message = _required_choice(error) if error.validator in ("oneOf", "anyOf") else None
        if message is None and error.context:
            error = best_match([error])
            if error.validator in ("oneOf", "anyOf"):
                message = _required_choice(error)
        path = tuple(error.absolute_path)
        yield path, message or say(error, game)


# --------------------------------------------------------------------------- messages for players
#
# jsonschema's own messages are for programmers ("'TH' does not match '^(A|…)$'", "True is
# not one of ['none', 'doubleNext']"). Each error is said again here from the schema's
# intent, in the players' words; the JSON path travels beside it, never inside it.

_CARD_FORMS: dict[str, Callable[[str], Said]] = {
    "^(A|[2-9]|10|J|Q|K)[CDHS]$": lambda value: Said(
        "%(value)s is not a card: write rank then suit, like 10H or QS", value=value
    ),
    "^((A|[2-9]|10|J|Q|K)[CDHS]|\\?\\?)$": lambda value: Said(
        "%(value)s is not a card: write rank then suit, like 10H or QS (?? for a card the rules hide)", value=value
    ),
    "^([1-7]|1[0-2])[ocbe]$": lambda value: Said(
        "%(value)s is not a Spanish card: write rank then suit, like 7o or 12b", value=value
    ),
    "^(([1-7]|1[0-2])[ocbe]|\\?\\?)$": lambda value: Said(
        "%(value)s is not a Spanish card: write rank then suit, like 7o or 12b (?? for a card the rules hide)",
        value=value,
    ),
    "^([0-9]|1[0-3])$": lambda value: Said(
        "%(value)s is not a Cabo card: write its value 0 to 13, like 7", value=value
    ),
    "^(([0-9]|1[0-3])|\\?\\?)$": lambda value: Said(
        "%(value)s is not a Cabo card: write its value 0 to 13, like 7 (?? for a card the rules hide)", value=value
    ),
    "^[0-9a-f]{64}$": lambda value: Said("%(value)s is not a hash: 64 lowercase hexadecimal digits", value=value),
    "^[a-z][a-z0-9]*(_[a-z0-9]+)*$": lambda value: Said(
        "%(value)s is not an event type: lowercase words joined by _, like play or call_cabo", value=value
    ),
}
"""The form each schema pattern stands for, said with an example (the whole sentence, naming the value)."""

_TYPE_WORDS: dict[str, str] = {
    "integer": Said("a whole number"),
    "number": Said("a number"),
    "string": Said("text"),
    "boolean": Said("true or false"),
    "array": Said("a list"),
    "object": Said("an object of named fields"),
    "null": "null",
}

_FORMAT_WORDS: dict[str, str] = {
    "date-time": Said("a date and time with its offset, like 2026-11-21T17:03:05Z"),
    "date": Said("a calendar date, like 2026-11-21"),
}


def ordinal(n: int) -> str:
    """Return ``n`` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 22nd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _either(words: Iterable[object], last: str) -> str:
    """Join words as a sentence does: ``a``, ``a or b``, ``a, b or c`` (``last``: ``"or"`` or
    ``"and"``), each language with its own word for it ("o", "oder"; "i", "und")."""
    items = [w if isinstance(w, str) else str(w) for w in words]
    if len(items) <= 1:
        return items[0] if items else ""
    if last == "and":
        return Said("%(some)s and %(last)s", some=Joined(items[:-1], ", "), last=items[-1])
    return Said("%(some)s or %(last)s", some=Joined(items[:-1], ", "), last=items[-1])


def show(value: object) -> str:
    """Write a value as a player would read it: JSON, text quoted, never a Python repr; a long
    text by its start and its length (a 10 MB string is not sent back whole)."""
    if isinstance(value, str):
        if len(value) > 60:
            return Said("%(start)s (%(length)s characters)", start=show(value[:40] + "…"), length=grouped(len(value)))
        return f"'{value}'" if "'" not in value else f"\u201c{value}\u201d"
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= 60 else text[:57] + "…"


def _number(value: object) -> str:
    """A number as people read a big one: 1,000,000,000; anything else as :func:`show`."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        return grouped(value)
    return show(value)


def _plain(value: object) -> str:
    """An allowed value in a list of choices: text unquoted, anything else as JSON."""
    return value if isinstance(value, str) else show(value)


def _subject(path: Sequence[Any]) -> str:
    """Name the value at ``path``: ``seat``, ``the 2nd entry of cards``, ``the data``."""
    if not path:
        return Said("the data")
    *head, last = path
    if isinstance(last, int):
        owner = (_format_path(head)[2:] if head else "") or Said("the list")
        n = last + 1
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        if suffix == "st":
            return Said("the %(n)sst entry of %(owner)s", n=n, owner=owner)
        if suffix == "nd":
            return Said("the %(n)snd entry of %(owner)s", n=n, owner=owner)
        if suffix == "rd":
            return Said("the %(n)srd entry of %(owner)s", n=n, owner=owner)
        return Said("the %(n)sth entry of %(owner)s", n=n, owner=owner)
    return str(last)


def _game_name(game: str | None) -> str:
    """A game's name as players write it (the title of its ``defs.json``)."""
    if game is None:
        return Said("this game")
    title = str(_catalogue().documents.get(f"{game}/defs.json", {}).get("title", game))
    return title.removesuffix(" definitions")


def _players(low: int | None, high: int | None) -> str:
    """How many players a game needs: ``4 players``, ``2 to 5 players``, ``at least 2 players``."""
    if low is not None and high is not None:
        if low == high:
            return Said("%(low)s players", low=low)
        return Said("%(low)s to %(high)s players", low=low, high=high)
    if low is not None:
        return Said("at least %(low)s players", low=low)
    return Said("at most %(high)s players", high=high)


def _entry_count(low: int | None, high: int | None) -> str:
    """How many entries a list holds: ``exactly 2 entries``, ``1 to 4 entries``, ``at least 1 entry``."""
    if low is not None and high is not None:
        if low == high:
            return Counted("exactly %(n)s entry", "exactly %(n)s entries", low)
        return Said("%(low)s to %(high)s entries", low=low, high=high)
    if low is not None:
        return Counted("at least %(n)s entry", "at least %(n)s entries", low)
    return Counted("at most %(n)s entry", "at most %(n)s entries", high or 0)


def say(error: ValidationError, game: str | None = None) -> str:
    """Say one schema error in a player's words, from the schema's intent.

    The message names the value and what is expected, with an example where the notation
    needs one; it never quotes a regular expression or a Python value. Each message is a
    sentence said from a message id (:mod:`engines.said`), so the API says it again in the
    reader's language.
    """
    keyword: Any = error.validator
    expected: Any = error.validator_value
    value: Any = error.instance
    schema: Mapping[str, Any] = error.schema if isinstance(error.schema, Mapping) else {}
    path = tuple(error.absolute_path)
    who = _subject(path)
    if keyword == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        return Said(
            "%(who)s must be %(expected)s, not %(value)s",
            who=who,
            expected=_either((_TYPE_WORDS.get(k, k) for k in kinds), "or"),
            value=show(value),
        )
    if keyword == "enum":
        return Said(
            "%(who)s must be %(expected)s, not %(value)s",
            who=who,
            expected=_either(map(_plain, expected), "or"),
            value=show(value),
        )
    if keyword == "const":
        if isinstance(expected, (list, dict)):
            return Said(
                "%(who)s is fixed in %(game)s: write %(expected)s or leave it out",
                who=who,
                game=_game_name(game),
                expected=show(expected),
            )
        return Said(
            "%(who)s must be %(expected)s, not %(value)s", who=who, expected=_plain(expected), value=show(value)
        )
    if keyword == "pattern":
        if expected in _CARD_FORMS:
            return _CARD_FORMS[expected](show(value))
        if not str(value).strip():
            return Said("%(who)s must not be blank", who=who)
        return Said("%(who)s is not written in the expected form: %(value)s", who=who, value=show(value))
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return Said(
                "%(who)s must be %(low)s to %(high)s, not %(value)s",
                who=who,
                low=_number(low),
                high=_number(high),
                value=_number(value),
            )
        bound = dict(who=who, expected=_number(expected), value=_number(value))
        if keyword == "minimum":
            return Said("%(who)s must be at least %(expected)s, not %(value)s", **bound)
        if keyword == "maximum":
            return Said("%(who)s must be at most %(expected)s, not %(value)s", **bound)
        if keyword == "exclusiveMinimum":
            return Said("%(who)s must be more than %(expected)s, not %(value)s", **bound)
        return Said("%(who)s must be less than %(expected)s, not %(value)s", **bound)
    if keyword in ("minItems", "maxItems"):
        low, high = schema.get("minItems"), schema.get("maxItems")
        count = len(value) if isinstance(value, list) else 0
        if path == ("players",):
            return Said(
                "%(game)s needs %(needs)s; %(count)s given",
                game=_game_name(game),
                needs=_players(low, high),
                count=count,
            )
        return Said(
            "%(who)s must hold %(entries)s, not %(count)s", who=who, entries=_entry_count(low, high), count=count
        )
    if keyword == "uniqueItems":
        twice = next((v for i, v in enumerate(value) if v in value[:i]), None) if isinstance(value, list) else None
        return Said("%(who)s must all differ: %(value)s appears more than once", who=who, value=show(twice))
    if keyword == "minLength":
        if expected == 1:
            return Said("%(who)s must not be empty", who=who)
        return Said("%(who)s must be at least %(n)s characters long", who=who, n=expected)
    if keyword == "maxLength":  # the text itself is not quoted back: it may be megabytes
        length = len(value) if isinstance(value, str) else 0
        return Said(
            "%(who)s is %(length)s characters long; at most %(most)s are allowed",
            who=who,
            length=grouped(length),
            most=grouped(expected),
        )
    if keyword == "format":
        return Said(
            "%(who)s must be %(expected)s, not %(value)s",
            who=who,
            expected=_FORMAT_WORDS.get(expected, expected),
            value=show(value),
        )
    if keyword == "required":
        return Said("%(field)s is required", field=str(path[-1]) if path else error.message)
    if keyword == "dependentRequired":
        return error.message  # already said in words by _dependent_required
    if keyword == "additionalProperties":
        return (
            error.message
            if error.message.startswith("unknown field")
            else Said("%(who)s has a field not allowed here", who=who)
        )
    if keyword in ("items", "prefixItems", "unevaluatedItems") or (keyword is None and value is not None):
        return Said("%(who)s is not allowed here", who=who)
    if keyword in ("oneOf", "anyOf"):
        return Said("%(who)s does not fit any of the accepted forms", who=who)
    if keyword == "not":
        return Said("%(who)s is not allowed here", who=who)
    return Said("%(who)s is not valid here", who=who)


def _sort_key(entry: tuple[tuple[Any, ...], str]) -> tuple[Any, ...]:
    path, message = entry
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in path), message


def _raise_invalid(validator: Any, instance: object, root: str, game: str | None = None) -> None:
    """Raise the errors jsonschema finds in ``instance``, if any (it is the reference)."""
    errors = list(validator.iter_errors(instance))
    if errors:
        raise _invalid(errors, root, game)


def _invalid(errors: Iterable[ValidationError], root: str, game: str | None = None) -> SchemaError:
    """Turn validation errors into one :class:`SchemaError` (``schema.invalid``)."""
    entries = sorted(set(_entries(errors, game)), key=_sort_key)
    listed = [{"path": _format_path(path), "message": message} for path, message in entries]
    first = listed[0]
    message = first["message"]
    if len(listed) > 1:
        message = Counted(
            "%(message)s (and %(n)s more error)",
            "%(message)s (and %(n)s more errors)",
            len(listed) - 1,
            message=message,
        )
    return SchemaError("schema.invalid", message, first["path"], listed)
