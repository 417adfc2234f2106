"""Helpers for checking what views show."""

from __future__ import annotations

from typing import Any, Iterator


def strings(value: Any, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every string in a JSON value (keys in ``skip`` left out)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from strings(v, skip)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v, skip)
