"""Engine states to JSON-compatible data and back: one generic codec for every game.

A stored snapshot lets a cold reader start a long match from a recent state instead of
folding it from event 1. Every engine state is built from the same few kinds of immutable
values, so one codec serves all five games instead of five hand-written ones:

=========================  =========================================
value                      JSON form
=========================  =========================================
``None``, bool, int, str   itself (an int beyond ±2**53: ``{"int": "digits"}``)
tuple                      a list
``NamedTuple``/dataclass   ``{"@": "Hand", "v": [field values]}``
:class:`~engines.cards.Card`  ``{"c": [rank, suit]}``
frozenset                  ``{"fs": [...]}``
:class:`~engines.history.History`  ``{"hj": ["item as JSON text", ...]}`` (decoded lazily)
dict                       ``{"d": [[key, value], ...]}``
=========================  =========================================

Classes are named by their bare name, looked up in the game's own modules (its package)
and the shared ones: a stored form never holds an import path. Cards come back as the
decks' own card objects, so the identity fast path of :class:`Card` keeps working.

The data is only a cache of a fold: the service stores it beside the engine's rules
version and refolds from the log whenever the version or the chain head differs.

>>> from engines import la_cabra
>>> state = la_cabra.start({"game": "la-cabra", "players": ["N", "E", "S", "W"]})
>>> load_state(la_cabra, dump_state(state)) == state
True
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
from collections import OrderedDict
from functools import lru_cache
from types import ModuleType
from typing import Any

from engines import cards
from engines.base import Engine
from engines.cards import Card
from engines.history import History

JSON = Any

_SAFE = 2**53
"""Larger ints are written as strings: JSON readers (orjson, JavaScript) keep 53 or 64 bits."""
"""A value made of dicts, lists, str, int, bool and None."""


class CodecError(ValueError):
    """Data that is not a state this engine can have (another game's, or an older shape)."""


def _text(data: JSON) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


_TEXTS: OrderedDict[int, tuple[object, str]] = OrderedDict()
"""The JSON text of recently dumped history items, by identity (the entry keeps its item alive,
so an id is never reused while cached): a match's earlier hands never change, so storing a
snapshot every few hundred events encodes only the hands added since the last one."""
_TEXTS_MAX = 100_000
_TEXTS_LOCK = threading.Lock()


def _item_text(item: object) -> str:
    with _TEXTS_LOCK:
        hit = _TEXTS.get(id(item))
        if hit is not None and hit[0] is item:
            _TEXTS.move_to_end(id(item))
            return hit[1]
    text = _text(_dump(item))
    with _TEXTS_LOCK:
        _TEXTS[id(item)] = (item, text)
        while len(_TEXTS) > _TEXTS_MAX:
            _TEXTS.popitem(last=False)
    return text


@lru_cache(maxsize=1)
def _cards() -> dict[tuple[str, str | None], Card]:
    """Every card object of every deck, by (rank, suit)."""
    found: dict[tuple[str, str | None], Card] = {}
    for value in vars(cards).values():
        if isinstance(value, cards.Deck):
            for card in value.cards:
                found.setdefault((card.rank, card.suit), card)
    return found


def dump_state(state: Any) -> JSON:
    """Return ``state`` as JSON-compatible data (:func:`load_state` rebuilds it)."""
    return _dump(state)


def _dump(value: Any) -> JSON:
    kind = type(value)
    if kind is int and not -_SAFE <= value <= _SAFE:
        return {"int": str(value)}  # bitmasks of card sums: wider than JSON numbers safely carry
    if value is None or kind in (bool, int, str, float):
        return value
    if kind is tuple:
        return [_dump(v) for v in value]
    if kind is Card:
        return {"c": [value.rank, value.suit]}
    if kind is frozenset:
        return {"fs": [_dump(v) for v in value]}
    if kind is History:
        items = list(value.stored_items())
        if not value.is_lazy and any(type(v) is str for v in items):
            return {"h": [_dump(v) for v in items]}
        # one JSON text per item: a cold load parses only short strings and decodes an item
        # when it is first read; items never read since are stored back as they came
        return {"hj": [v if type(v) is str else _item_text(v) for v in items]}
    if kind is dict:
        return {"d": [[_dump(k), _dump(v)] for k, v in value.items()]}
    if isinstance(value, tuple) and hasattr(kind, "_fields"):
        return {"@": kind.__name__, "v": [_dump(v) for v in value]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"@": kind.__name__, "v": [_dump(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init]}
    raise CodecError(f"a {kind.__name__} cannot be part of a stored state")


@lru_cache(maxsize=None)
def _classes(package: str) -> dict[str, type]:
    """Every NamedTuple and dataclass defined in a game's package, by bare name."""
    found: dict[str, type] = {}
    modules: list[ModuleType] = [m for name, m in list(sys.modules.items())
                                 if m is not None and (name == package or name.startswith(package + "."))]
    for module in modules:
        for value in vars(module).values():
            if not isinstance(value, type) or value.__module__ != module.__name__:
                continue
            if (issubclass(value, tuple) and hasattr(value, "_fields")) or dataclasses.is_dataclass(value):
                if found.get(value.__name__, value) is not value:
                    raise CodecError(f"two classes named {value.__name__} in {package}")
                found[value.__name__] = value
    return found


def load_state(engine: Engine | ModuleType, data: JSON) -> Any:
    """Rebuild a state of ``engine``'s game from :func:`dump_state` data.

    Raises:
        CodecError: the data names a class the game does not have, or does not fit it.
    """
    package = getattr(engine, "__package__", None) or engine.__name__  # type: ignore[union-attr]
    classes = _classes(package)
    decks = _cards()

    def load(value: JSON) -> Any:
        if value is None or isinstance(value, (bool, int, str, float)):
            return value
        if isinstance(value, list):
            return tuple(load(v) for v in value)
        if "int" in value:
            return int(value["int"])
        if "c" in value:
            rank, suit = value["c"]
            return decks.get((rank, suit)) or Card(rank, suit)
        if "fs" in value:
            return frozenset(load(v) for v in value["fs"])
        if "hj" in value:
            return History.lazy(value["hj"], lambda text: load(json.loads(text)))  # decoded when first read
        if "h" in value:
            return History(load(v) for v in value["h"])
        if "d" in value:
            return {load(k): load(v) for k, v in value["d"]}
        cls = classes.get(value.get("@", ""))
        if cls is None:
            raise CodecError(f"no value named {value.get('@')!s} in {package}")
        try:
            return cls(*(load(v) for v in value["v"]))
        except TypeError as error:
            raise CodecError(f"stored {cls.__name__} does not fit: {error}") from None

    return load(data)
