"""Compile the JSON Schema subset Tanteo's files use into plain Python predicates.

jsonschema stays the reference: it builds every error message and path. This module only
answers "valid or not?" on the hot path, about 25 times faster, for a schema whose ``$ref``
are already inlined (see ``schemas._inline``). It follows the package's validator exactly:
draft 2020-12, ``integer`` without ``1.0`` or ``true``, ECMA ``$`` in patterns, JSON
equality for ``const``/``enum``/``uniqueItems`` (``1 == 1.0``, ``true != 1``).

A keyword that jsonschema knows and this module does not (``prefixItems``, ``$ref``,
``unevaluatedProperties`` …) raises :class:`Unsupported` at compile time; the caller then
keeps jsonschema's own ``is_valid``. Keywords jsonschema ignores (annotations, unknown
words) are ignored here too. ``tests/schemas`` checks both agree on thousands of payloads.
"""

from __future__ import annotations

import numbers
import operator
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

Check = Callable[[Any], bool]
"""A compiled schema: returns whether an instance is valid."""


class Unsupported(Exception):
    """The schema uses a keyword this compiler does not implement."""


def _is_number(x: object) -> bool:
    kind = type(x)
    if kind is int or kind is float:
        return True
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def _is_integer(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}

_HANDLED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "const",
        "enum",
        "dependentRequired",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "format",
        "minProperties",
        "maxProperties",
    }
)


def json_key(value: Any) -> Any:
    """Return a hashable key equal for JSON-equal values (``1`` and ``1.0``; not ``true`` and ``1``)."""
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, numbers.Number):
        return ("n", value)
    if isinstance(value, Mapping):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("a", tuple(json_key(v) for v in value))
    return ("?", id(value))


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) and second(x)

    def check(x: Any) -> bool:
        for each in checks:
            if not each(x):
                return False
        return True

    return check


def compile_schema(
    schema: Any,
    *,
    keywords: Collection[str],
    regex: Callable[[str], re.Pattern[str]],
    conforms: Callable[[Any, str], bool],
) -> Check:
    """Compile an inlined schema into a predicate.

    Args:
        schema: a draft 2020-12 schema (dict or boolean) without ``$ref``.
        keywords: the keywords the reference validator implements; any of them not handled
            here makes the schema unsupported.
        regex: compiles a ``pattern`` (the reference validator's own dialect).
        conforms: ``conforms(instance, format)``, the reference validator's format check.

    Raises:
        Unsupported: the schema uses a keyword this compiler does not implement.
    """

    def build(node: Any) -> Check:
        if node is True:
            return lambda x: True
        if node is False:
            return lambda x: False
        if not isinstance(node, dict):
            raise Unsupported(f"not a schema: {node!r}")
        unknown = sorted(k for k in node if k in keywords and k not in _HANDLED)
        if unknown:
            raise Unsupported(", ".join(unknown))
        special = _special(node, keywords, build, regex)
        if special is not None:
            return special
        checks: list[Check] = []
        if "type" in node:
            names = [node["type"]] if isinstance(node["type"], str) else list(node["type"])
            if not all(n in _TYPES for n in names):
                raise Unsupported(f"type {node['type']!r}")
            tests = [_TYPES[n] for n in names]
            checks.append(tests[0] if len(tests) == 1 else (lambda x: any(t(x) for t in tests)))
        checks.extend(_object_checks(node, build))
        checks.extend(_array_checks(node, build))
        checks.extend(_scalar_checks(node, regex, conforms))
        checks.extend(_applicators(node, build))
        return _all(checks)

    return build(schema)


def _special(
    node: dict[str, Any],
    keywords: Collection[str],
    build: Callable[[Any], Check],
    regex: Callable[[str], re.Pattern[str]],
) -> Check | None:
    """Return one closure for the common node shapes (a typed string, integer, array or
    closed object), or None; the same semantics as the generic path, fewer calls."""
    words = frozenset(k for k in node if k in keywords)
    kind = node.get("type")
    if kind == "string" and words <= {"type", "pattern"}:
        if "pattern" not in node:
            return lambda x: isinstance(x, str)
        search = regex(node["pattern"]).search
        return lambda x: isinstance(x, str) and search(x) is not None
    if kind == "integer" and words <= {"type", "minimum", "maximum"}:
        low = node.get("minimum", float("-inf"))
        high = node.get("maximum", float("inf"))
        return lambda x: isinstance(x, int) and not isinstance(x, bool) and low <= x <= high
    if kind == "array" and words <= {"type", "minItems", "maxItems", "items"}:
        low, high = node.get("minItems", 0), node.get("maxItems", float("inf"))
        item = build(node.get("items", True))

        def check_array(x: Any) -> bool:
            if not isinstance(x, list) or not low <= len(x) <= high:
                return False
            for each in x:
                if not item(each):
                    return False
            return True

        return check_array
    if (
        kind == "object"
        and node.get("additionalProperties") is False
        and words <= {"type", "required", "properties", "additionalProperties"}
    ):
        required = tuple(node.get("required", ()))
        subs = tuple((name, build(s)) for name, s in node.get("properties", {}).items())
        names = frozenset(name for name, _ in subs)

        def check_object(x: Any) -> bool:
            if not isinstance(x, dict):
                return False
            for name in required:
                if name not in x:
                    return False
            for name in x:
                if name not in names:
                    return False
            for name, sub in subs:
                if name in x and not sub(x[name]):
                    return False
            return True

        return check_object
    return None


def _object_checks(node: dict[str, Any], build: Callable[[Any], Check]) -> list[Check]:
    checks: list[Check] = []
    properties = node.get("properties", {})
    required = tuple(node.get("required", ()))
    if required:
        checks.append(lambda x: not isinstance(x, dict) or all(name in x for name in required))
    if "additionalProperties" in node:
        if "patternProperties" in node:
            raise Unsupported("patternProperties")
        extra = node["additionalProperties"]
        names = frozenset(properties)
        if extra is False:
            checks.append(lambda x: not isinstance(x, dict) or all(k in names for k in x))
        elif extra is not True:
            sub = build(extra)
            checks.append(lambda x: not isinstance(x, dict) or all(sub(v) for k, v in x.items() if k not in names))
    if properties:
        subs = tuple((name, build(s)) for name, s in properties.items())

        def check_properties(x: Any) -> bool:
            if isinstance(x, dict):
                for name, sub in subs:
                    if name in x and not sub(x[name]):
                        return False
            return True

        checks.append(check_properties)
    dependent = {k: tuple(v) for k, v in node.get("dependentRequired", {}).items()}
    if dependent:
        checks.append(
            lambda x: (
                not isinstance(x, dict)
                or all(n not in x or all(m in x for m in needs) for n, needs in dependent.items())
            )
        )
    if "minProperties" in node:
        low = node["minProperties"]
        checks.append(lambda x: not isinstance(x, dict) or len(x) >= low)
    if "maxProperties" in node:
        high = node["maxProperties"]
        checks.append(lambda x: not isinstance(x, dict) or len(x) <= high)
    return checks


def _array_checks(node: dict[str, Any], build: Callable[[Any], Check]) -> list[Check]:
    checks: list[Check] = []
    if "minItems" in node:
        low = node["minItems"]
        checks.append(lambda x: not isinstance(x, list) or len(x) >= low)
    if "maxItems" in node:
        high = node["maxItems"]
        checks.append(lambda x: not isinstance(x, list) or len(x) <= high)
    if node.get("uniqueItems") is True:
        checks.append(lambda x: not isinstance(x, list) or len({json_key(v) for v in x}) == len(x))
    if "items" in node:
        sub = build(node["items"])

        def check_items(x: Any) -> bool:
            if isinstance(x, list):
                for item in x:
                    if not sub(item):
                        return False
            return True

        checks.append(check_items)
    return checks


def _scalar_checks(
    node: dict[str, Any], regex: Callable[[str], re.Pattern[str]], conforms: Callable[[Any, str], bool]
) -> list[Check]:
    checks: list[Check] = []
    if "pattern" in node:
        search = regex(node["pattern"]).search
        checks.append(lambda x: not isinstance(x, str) or search(x) is not None)
    if "minLength" in node:
        low = node["minLength"]
        checks.append(lambda x: not isinstance(x, str) or len(x) >= low)
    if "maxLength" in node:
        high = node["maxLength"]
        checks.append(lambda x: not isinstance(x, str) or len(x) <= high)
    for word, compare in (
        ("minimum", operator.ge),
        ("maximum", operator.le),
        ("exclusiveMinimum", operator.gt),
        ("exclusiveMaximum", operator.lt),
    ):
        if word in node:
            checks.append(_bound(compare, node[word]))
    if "const" in node:
        key = json_key(node["const"])
        checks.append(lambda x: json_key(x) == key)
    if "enum" in node:
        keys = frozenset(json_key(v) for v in node["enum"])
        checks.append(lambda x: json_key(x) in keys)
    if "format" in node:
        fmt = node["format"]
        checks.append(lambda x: conforms(x, fmt))
    return checks


def _bound(compare: Callable[[Any, Any], bool], limit: Any) -> Check:
    return lambda x: not _is_number(x) or compare(x, limit)


def _applicators(node: dict[str, Any], build: Callable[[Any], Check]) -> list[Check]:
    checks: list[Check] = []
    if "allOf" in node:
        checks.append(_all([build(s) for s in node["allOf"]]))
    if "anyOf" in node:
        any_of = [build(s) for s in node["anyOf"]]
        checks.append(lambda x: any(c(x) for c in any_of))
    if "oneOf" in node:
        one_of = [build(s) for s in node["oneOf"]]
        checks.append(lambda x: sum(1 for c in one_of if c(x)) == 1)
    if "not" in node:
        negated = build(node["not"])
        checks.append(lambda x: not negated(x))
    if "if" in node:
        condition = build(node["if"])
        then = build(node.get("then", True))
        otherwise = build(node.get("else", True))
        checks.append(lambda x: then(x) if condition(x) else otherwise(x))
    return checks
