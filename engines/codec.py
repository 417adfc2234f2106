"""Engine states to JSON-compatible data and back: one generic codec for every game.

A stored snapshot lets a cold reader start a long match from a recent state instead of
folding it from event 1. Every engine state is built from the same few kinds of immutable
values, so one codec serves all five games instead of five hand-written ones:

=========================  =========================================
value                      JSON form
=========================  =========================================
``None``, bool, int, str   itself (an int beyond ±2**53: ``{"int": "digits"}``)
tuple                      a list; of deck cards only: ``{"tc": ["AS", "10H", …]}``
``NamedTuple``/dataclass   ``{"@": "Hand", "v": [field values]}``
:class:`~engines.cards.Card`  ``{"c": "AS"}`` (a deck's card), ``{"c": [rank, suit]}`` (any other)
frozenset                  ``{"fs": [...]}``; of deck cards only: ``{"fc": ["AS", …]}``
:class:`~engines.history.History`  ``{"hj": ["item as JSON text", ...]}`` (decoded lazily)
dict                       ``{"d": [[key, value], ...]}``
words an engine said       :class:`~engines.said.Said` ``{"said": [msgid, [[name, part], …]]}``,
                           ``Counted`` ``{"counted": [one, other, n, [[name, part], …]]}``,
                           ``Listed`` ``{"listed": [items]}``, ``Joined`` ``{"joined": [[items], separator, worded]}``
=========================  =========================================

Words (a score line's reason) are kept as said, message id and parts, so a state loaded from a
snapshot says them in every language as the fold that made it did.

Classes are named by their bare name, looked up in the game's own modules (its package)
and the shared ones: a stored form never holds an import path. Cards come back as the
decks' own card objects, so the identity fast path of :class:`Card` keeps working. A deck's
card is written as its text (unique across the decks, :func:`_deck_cards` checks it), and a tuple or
frozenset made of such cards as one list of texts: states hold hundreds of cards, and a
cold read loaded each ``{"c": [rank, suit]}`` object one Python call at a time.

The data is only a cache of a fold: the service stores it beside the engine's rules
version and refolds from the log whenever the version or the chain head differs. That
version digests this module's source too (``api/service/snapshots.py``), so a snapshot
written by another version of the codec (another form, another encoder) is refused and
rebuilt, never read with the wrong rules.

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
from functools import lru_cache
from types import ModuleType
from typing import Any, Callable

from engines import cards
from engines.base import Engine
from engines.cards import Card
from engines.history import History
from engines.said import Counted, Joined, Listed, Said

JSON = Any
"""A value made of dicts, lists, str, int, bool and None."""

_SAFE = 2**53
"""Larger ints are written as strings: JSON readers (orjson, JavaScript) keep 53 or 64 bits."""


class CodecError(ValueError):
    """Data that is not a state this engine can have (another game's, or an older shape)."""


Encode = Callable[[JSON], str]
"""Turns JSON data into compact JSON text."""
Parse = Callable[[Any], JSON]
"""Turns JSON text back into data."""


def _text(data: JSON) -> str:
    """Compact JSON text with the standard library (engines import nothing else; the service
    passes a faster encoder, :func:`dump_state`'s ``encode``)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


@lru_cache(maxsize=1)
def _cards() -> dict[tuple[str, str | None], Card]:
    """Every card object of every deck, by (rank, suit)."""
    found: dict[tuple[str, str | None], Card] = {}
    for value in vars(cards).values():
        if isinstance(value, cards.Deck):
            for card in value.cards:
                found.setdefault((card.rank, card.suit), card)
    return found


def _deck_cards() -> dict[str, Card]:
    """Every card object of every deck, by its text (``str(card)``).

    Raises:
        CodecError: two decks' different cards share a text (then no text could be read back).
    """
    found: dict[str, Card] = {}
    for card in _cards().values():
        text = str(card)
        if found.get(text, card) != card:
            raise CodecError(f"two cards are written {text}")
        found[text] = card
    return found


_BY_TEXT = _deck_cards()
_DECKS = frozenset(_BY_TEXT.values())
"""Every decks' card: a card equal to one of them is written as its text (and read back as it)."""


def dump_state(state: Any, *, encode: Encode = _text) -> JSON:
    """Return ``state`` as JSON-compatible data (:func:`load_state` rebuilds it).

    ``encode`` writes the JSON text of each earlier item of a history (the standard library's
    by default; the service passes orjson's, several times faster).
    """
    before = getattr(_DUMPING, "encode", _text)
    _DUMPING.encode = encode  # read by the histories this dump meets (this thread's dump only)
    try:
        return _dump(state)
    finally:
        _DUMPING.encode = before


_DUMPING = threading.local()
"""What the dump running in this thread encodes history items with."""


def _dump(value: Any) -> JSON:
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return value
    if kind is int:
        if -_SAFE <= value <= _SAFE:
            return value
        return {"int": str(value)}  # bitmasks of card sums: wider than JSON numbers safely carry
    dump = _DUMPS.get(kind)
    if dump is None:
        dump = _dumper(kind)
    return dump(value)


def _dump_tuple(value: tuple[Any, ...]) -> JSON:
    if value and _DECKS.issuperset(value):  # only cards (nothing else equals a card)
        return {"tc": [str(v) for v in value]}
    return [_dump(v) for v in value]


def _dump_card(value: Card) -> JSON:
    return {"c": str(value)} if value in _DECKS else {"c": [value.rank, value.suit]}


def _dump_frozenset(value: frozenset[Any]) -> JSON:
    if value and value <= _DECKS:
        return {"fc": [str(v) for v in value]}
    return {"fs": [_dump(v) for v in value]}


def _dump_dict(value: dict[Any, Any]) -> JSON:
    return {"d": [[_dump(k), _dump(v)] for k, v in value.items()]}


def _dump_history(value: History[Any]) -> JSON:
    items = list(value.stored_items())
    if not value.is_lazy and any(type(v) is str for v in items):
        return {"h": [_dump(v) for v in items]}
    # One JSON text per item: a cold load parses only short strings and decodes an item when
    # it is first read; items never read since are stored back as they came. What each earlier
    # item encodes to is remembered beside the history's shared items (History.memo), so a long
    # match's snapshot, stored every few hundred events, encodes only the hands added since the
    # last one; the last item is held apart and may still change.
    encode = getattr(_DUMPING, "encode", _text)
    memo = value.memo()
    earlier = len(items) - 1
    if len(memo) < earlier:
        memo.extend([None] * (earlier - len(memo)))
    out: list[str] = []
    for i, item in enumerate(items):
        if type(item) is str:
            out.append(item)
        elif i < earlier:
            text = memo[i]
            if text is None:
                text = memo[i] = encode(_dump(item))  # any encoder's text parses back to the same data
            out.append(text)
        else:
            out.append(encode(_dump(item)))
    return {"hj": out}


def _dump_float(value: float) -> JSON:
    return value


def _dump_parts(parts: Any) -> JSON:
    return [[name, _dump(part)] for name, part in parts.items()]


def _dump_said(value: Said) -> JSON:
    return {"said": [value.msgid, _dump_parts(value.parts)]}


def _dump_counted(value: Counted) -> JSON:
    return {"counted": [value.one, value.other, value.n, _dump_parts(value.parts)]}


def _dump_listed(value: Listed) -> JSON:
    return {"listed": [_dump(item) for item in value.items]}


def _dump_joined(value: Joined) -> JSON:
    return {"joined": [[_dump(item) for item in value.items], value.separator, value.worded]}


_DUMPS: dict[type, Callable[[Any], JSON]] = {
    tuple: _dump_tuple,
    Card: _dump_card,
    frozenset: _dump_frozenset,
    dict: _dump_dict,
    History: _dump_history,
    float: _dump_float,
    Said: _dump_said,
    Counted: _dump_counted,
    Listed: _dump_listed,
    Joined: _dump_joined,
}
"""How each kind of value is dumped, by its exact type (named tuples and dataclasses are added
the first time one is met): one dict look-up per value instead of a chain of tests."""
_DUMPS_LOCK = threading.Lock()


def _dumper(kind: type) -> Callable[[Any], JSON]:
    """Return (and remember) how to dump a named tuple or dataclass of class ``kind``.

    Raises:
        CodecError: ``kind`` is none of the kinds a stored state may hold.
    """
    name = kind.__name__
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):

        def dump(value: Any) -> JSON:
            return {"@": name, "v": [_dump(v) for v in value]}
    elif dataclasses.is_dataclass(kind):
        fields = tuple(f.name for f in dataclasses.fields(kind) if f.init)

        def dump(value: Any) -> JSON:
            return {"@": name, "v": [_dump(getattr(value, f)) for f in fields]}
    else:
        raise CodecError(f"a {name} cannot be part of a stored state")
    with _DUMPS_LOCK:
        _DUMPS[kind] = dump
    return dump


@lru_cache(maxsize=None)
def _classes(package: str) -> dict[str, type]:
    """Every NamedTuple and dataclass defined in a game's package, by bare name."""
    found: dict[str, type] = {}
    modules: list[ModuleType] = [
        m
        for name, m in list(sys.modules.items())
        if m is not None and (name == package or name.startswith(package + "."))
    ]
    for module in modules:
        for value in vars(module).values():
            if not isinstance(value, type) or value.__module__ != module.__name__:
                continue
            if (issubclass(value, tuple) and hasattr(value, "_fields")) or dataclasses.is_dataclass(value):
                if found.get(value.__name__, value) is not value:
                    raise CodecError(f"two classes named {value.__name__} in {package}")
                found[value.__name__] = value
    return found


_NESTED = (list, dict)
"""The JSON kinds that stand for something else (a tuple, a card, a class…); the rest load as they are."""


def load_state(engine: Engine | ModuleType, data: JSON, *, parse: Parse = json.loads) -> Any:
    """Rebuild a state of ``engine``'s game from :func:`dump_state` data.

    ``parse`` reads the JSON text of a history's items when they are first read (the standard
    library's by default; the service passes orjson's).

    Raises:
        CodecError: the data names a class the game does not have, or does not fit it, or
            holds an object that is none of the stored forms.
    """
    package = getattr(engine, "__package__", None) or engine.__name__  # type: ignore[union-attr]
    classes = _classes(package)
    decks = _cards()
    by_text = _BY_TEXT

    def load(value: JSON) -> Any:
        kind = type(value)
        if kind is list:  # scalars are taken as they are, without a call each
            return tuple([v if type(v) not in _NESTED else load(v) for v in value])
        if kind is not dict:
            return value  # None, bool, int, str, float
        if len(value) == 1:
            ((tag, inner),) = value.items()
            if tag == "fc":
                return frozenset([by_text[text] for text in inner])
            if tag == "tc":
                return tuple([by_text[text] for text in inner])
            if tag == "c":
                if type(inner) is str:
                    return by_text[inner]
                rank, suit = inner
                return decks.get((rank, suit)) or Card(rank, suit)
            if tag == "fs":
                return frozenset([v if type(v) not in _NESTED else load(v) for v in inner])
            if tag == "hj":
                return History.lazy(inner, lambda text: load(parse(text)))  # decoded when first read
            if tag == "h":
                return History([load(v) for v in inner])
            if tag == "d":
                return {load(k): load(v) for k, v in inner}
            if tag == "int":
                return int(inner)
            if tag == "said":
                msgid, parts = inner
                return Said(msgid, **{name: load(part) for name, part in parts})
            if tag == "counted":
                one, other, n, parts = inner
                return Counted(one, other, n, **{name: load(part) for name, part in parts})
            if tag == "listed":
                return Listed([load(item) for item in inner])
            if tag == "joined":
                items, separator, worded = inner
                return Joined([load(item) for item in items], separator, worded)
        elif len(value) == 2 and "@" in value and "v" in value:
            cls = classes.get(value["@"])
            if cls is None:
                raise CodecError(f"no value named {value['@']!s} in {package}")
            try:
                return cls(*[v if type(v) not in _NESTED else load(v) for v in value["v"]])
            except TypeError as error:
                raise CodecError(f"stored {cls.__name__} does not fit: {error}") from None
        raise CodecError(f"an object with the keys {', '.join(sorted(map(str, value)))} is no stored value")

    try:
        return load(data)
    except (KeyError, TypeError, ValueError) as error:  # a card text no deck has, a pair that is not one
        if isinstance(error, CodecError):
            raise
        raise CodecError(f"stored data that is no state: {error}") from None
