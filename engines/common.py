"""Helpers every engine uses, written once: reading event fields, options and cards, and small words.

What belongs here is plumbing that is the same in every game: checking a seat number or
an option value, turning a card's text into a :class:`~engines.cards.Card` with the rule
error a recorder sees, dispatching an event to its handler, joining names for a sentence,
repeating a recorded value in a refusal (:func:`as_written`).
Game rules never belong here: no deck, option set, message or limit of one game. What
differs between games (the game's name in a message, its deck, its option values) is a
parameter, so that a message stays exactly what each engine said before.

Pure, standard library only (plus :mod:`engines.base` and :mod:`engines.cards`); nothing
here keeps state between calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Mapping, Protocol, Sequence, TypeGuard, TypeVar, overload

from engines.base import MATCH_OPTIONS, Event, RuleViolation
from engines.written import as_written as as_written  # the helpers every engine takes from here
from engines.cards import UNKNOWN, Card, CardError, Deck, parse, parse_known, pretty
from engines.said import Counted, Joined, Listed, Said

S = TypeVar("S")
"""An engine's state type (each engine has its own)."""

OptionCheck = Callable[[str, object], "str | None"]
"""A custom option check: ``(key, value)`` → the error message, or None when the value is fine."""


# --------------------------------------------------------------------------- values


def is_int(v: object) -> TypeGuard[int]:
    """Tell whether ``v`` is a whole number; JSON's ``true``/``false`` decode to bools, which are ints in Python."""
    return isinstance(v, int) and not isinstance(v, bool)


def set_item(values: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    """Return ``values`` with item ``i`` replaced: states are tuples and never changed in place.

    A list round trip: two allocations, where slicing and concatenating takes four.
    """
    out = list(values)
    out[i] = v
    return tuple(out)


N = TypeVar("N", bound=tuple)  # type: ignore[type-arg]


def set_field(record: N, i: int, v: Any) -> N:
    """Return the ``NamedTuple`` ``record`` with field number ``i`` replaced: ``_replace`` of one field without the name look-up."""
    out = list(record)
    out[i] = v
    return tuple.__new__(record.__class__, out)


def quick_replace(cls: type[N]) -> type[N]:
    """Give a ``NamedTuple`` state record a ``_replace`` that costs a third less: every move rebuilds one.

    The generic ``_replace`` pops each field name from the keyword dict and checks the
    length again in ``_make``; this one writes the changed fields into a list by their
    index and builds the tuple once (measured on La Cabra's 25-field ``Hand`` with five
    changes: 1.2 µs → 0.75 µs; on its ``State`` with one: 0.6 → 0.35 µs). Same result, and
    an unknown field name is still a ``ValueError``.
    """
    index = {name: i for i, name in enumerate(cls._fields)}  # type: ignore[attr-defined]
    build = tuple.__new__

    def _replace(self: N, /, **changes: Any) -> N:
        values = list(self)
        try:
            for name, value in changes.items():
                values[index[name]] = value
        except KeyError:
            raise ValueError(f"Got unexpected field names: {[n for n in changes if n not in index]!r}") from None
        return build(cls, values)

    _replace.__doc__ = f"Return a new {cls.__name__} with the given fields replaced."
    cls._replace = _replace  # type: ignore[attr-defined]
    return cls


def check_seat(v: object, n: int, field: str = "seat") -> int:
    """Return ``v`` as a seat of an ``n``-player match, so that handlers can index by it.

    Raises:
        RuleViolation: ``common.bad_seat`` when ``v`` is not a whole number from 0 to n - 1.
    """
    if type(v) is int and 0 <= v < n:  # every valid seat but an int subclass, in one test
        return v
    if not is_int(v) or not 0 <= v < n:
        raise RuleViolation(
            "common.bad_seat",
            Said(
                "%(field)s must be a seat from 0 to %(last)s, not %(value)s",
                field=field,
                last=n - 1,
                value=as_written(v),
            ),
        )
    return int(v)


def read_seat(data: Mapping[str, Any], n: int, key: str = "seat") -> int:
    """Return the seat an event names in ``data[key]`` (see :func:`check_seat`).

    Raises:
        RuleViolation: ``common.bad_seat``.
    """
    v = data.get(key)
    if type(v) is int and 0 <= v < n:  # every move names a seat: a good one in one test, without a call
        return v
    return check_seat(v, n, key)


def check_game(data: Mapping[str, Any], game: str, name: str) -> None:
    """Check that ``match_started`` is for this engine's game (an omitted ``game`` is).

    Raises:
        RuleViolation: ``common.wrong_game`` (``name`` is the game's name in the message).
    """
    got = data.get("game", game)
    if got != game:
        raise RuleViolation(
            "common.wrong_game", Said("this is the %(game)s engine, not %(other)s", game=name, other=as_written(got))
        )


# --------------------------------------------------------------------------- options


def _allowed(v: object, allowed: Sequence[object]) -> bool:
    """Tell whether ``v`` is one of ``allowed``, never taking ``1`` for ``True`` nor ``True`` for ``1``."""
    for a in allowed:
        if isinstance(a, bool):
            if v is a:
                return True
        elif isinstance(a, str):
            if isinstance(v, str) and v == a:
                return True
        elif type(v) is type(a) and v == a:
            return True
    return False


def check_options(
    raw: object, values: Mapping[str, Sequence[object]], game: str, *, checks: Mapping[str, OptionCheck] | None = None
) -> dict[str, Any]:
    """Check the ``options`` of ``match_started`` and return them as a dict (``{}`` for None).

    Every engine reads options the same way: a key must be one of ``values`` and its value
    one of ``values[key]``; the engine then builds its ``Options`` from the dict (omitted
    keys take their default); the match options every game shares (:data:`~engines.base.MATCH_OPTIONS`,
    checked by their schema and applied by the service) are left out of it. ``checks`` replaces the value test of a key that is not a
    simple choice (an amount, a range); its keys that are not in ``values`` are options too,
    and are listed first in the unknown-key message.

    Args:
        raw: the ``options`` as recorded.
        values: each option's allowed values.
        game: the game's name for the unknown-key message (``La Cabra has no option 'x'``).
        checks: per key, a function of ``(key, value)`` returning the error message or None.

    Raises:
        RuleViolation: ``common.bad_option`` for a non-object, an unknown key or a bad value.
    """
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise RuleViolation("common.bad_option", Said("options must be an object"))
    checks = checks or {}
    raw = {key: v for key, v in raw.items() if key not in MATCH_OPTIONS}
    for key, v in raw.items():
        check = checks.get(key)
        if check is not None:
            problem = check(key, v)
            if problem:
                raise RuleViolation("common.bad_option", problem)
            continue
        if key not in values:
            known = Joined([*(k for k in checks if k not in values), *values], ", ")
            raise RuleViolation(
                "common.bad_option",
                Said(
                    "%(game)s has no option %(key)s (options: %(known)s)", game=game, key=as_written(key), known=known
                ),
            )
        allowed = values[key]
        if not _allowed(v, allowed):
            raise RuleViolation(
                "common.bad_option",
                Said(
                    "option %(key)s must be one of %(allowed)s, not %(value)s",
                    key=key,
                    allowed=Joined(map(as_written, allowed), ", "),
                    value=as_written(v),
                ),
            )
    return dict(raw)


@dataclass(frozen=True)
class Option:
    """One rule variant of a game, declared once (as OpenSpiel declares a game's parameters).

    Each game's ``options.py`` lists its ``OPTIONS``; the allowed values its rules check
    (:func:`option_choices`), the defaults of its ``Options`` state (:func:`option_defaults`)
    and what ``GET /games/{game}`` says of each (:func:`options_described`) are built from that
    table, and ``tests/engines/test_options.py`` holds it against the ``match_started`` schema.
    """

    name: str
    default: object
    rule: str
    """The link to the rule it changes (``/rules/<game>#option-<name>``)."""
    text: str
    """What it means, in a player's words."""
    values: tuple[object, ...] = ()
    """The values it takes (empty: an amount, checked by its own function)."""
    described: Mapping[str, Any] = field(default_factory=dict)
    """What ``describe()`` says beyond the values (an integer's bounds, another edition's default)."""


def option_choices(table: Sequence[Option]) -> dict[str, tuple[object, ...]]:
    """The allowed values of each option that is a choice (what :func:`check_options` checks)."""
    return {o.name: o.values for o in table if o.values}


def option_defaults(table: Sequence[Option]) -> dict[str, Any]:
    """Each option's default (the ``Options`` state's field defaults)."""
    return {o.name: o.default for o in table}


def options_described(table: Sequence[Option]) -> dict[str, dict[str, Any]]:
    """Each option as ``describe()`` lists it: a boolean or its values (or an integer's bounds), its default, rule and meaning."""
    out: dict[str, dict[str, Any]] = {}
    for o in table:
        if "type" in o.described:
            out[o.name] = {**o.described, "default": o.default, "rule": o.rule, "description": o.text}
        else:
            out[o.name] = {**option_entry(o.values, o.default, o.rule, o.text), **o.described}
    return out


def option_entry(values: Sequence[object], default: object, rule: str, description: str) -> dict[str, Any]:
    """Describe one option for ``describe()``: a boolean, or its list of values; its default, rule and meaning."""
    head: dict[str, Any] = {"type": "boolean"} if all(isinstance(v, bool) for v in values) else {"values": list(values)}
    return {**head, "default": default, "rule": rule, "description": description}


# --------------------------------------------------------------------------- the scorer's forms


def move_field(name: str, kind: str, label: str, *, optional: bool = False, **facts: Any) -> dict[str, Any]:
    """One thing the scorer fills in for a move, as ``GET /games/{game}`` serves it to the pages.

    ``name`` is the event's data key (held against the schema by ``tests/api/test_game_forms.py``);
    ``kind`` the control (card, cards, slot, slots, pos, seat, seats, bool, choice, int, rows,
    captures); ``label`` the whole words a person reads (an optional field says so itself, as
    "(if known)": labels are translated whole, never glued); ``facts`` what the control needs
    (``max`` cards, ``only`` these cards, ``own``/``other`` seat, ``unknown`` allowed, ``values``, ``min``).
    """
    return {"name": name, "kind": kind, "label": label, **({"optional": True} if optional else {}), **facts}


def deck_described(deck: Deck) -> list[dict[str, Any]]:
    """Every card of ``deck`` once, in deck order, with its copies: what a page's card picker offers."""
    return [{"code": str(c), "copies": deck.count(c)} for c in deck.distinct()]


COMMON_WORDS: dict[str, str] = {
    "reveal": Said("Reveal cards"),
    "note": Said("Note"),
    "withDetails": Said("{move} ({details})"),
    "slot": Said("slot {slots}"),
    "slots": Said("slots {slots}"),
    "slotShowing": Said("slot {slots} showing {cards}"),
    "slotsShowing": Said("slots {slots} showing {cards}"),
    "seatPlace": Said("{seat} card {n}: {card}"),
    "seatCards": Said("cards"),
    "dealMissing": Said("Pick the {places} first."),
}
"""How a move reads on its button, for the events every game shares and the details any move shows
and the deal's places (``{seat}``, ``{slots}``, ``{cards}``, ``{card}``, ``{n}``, ``{places}`` are
filled in by the page)."""


def turned_up_discard() -> dict[str, Any]:
    """The deal's one face-up card that starts the discard pile (Cabo, El Roby): a place of its own."""
    return {
        "field": "discard",
        "count": 1,
        "single": True,
        "label": Said("Turned-up discard"),
        "name": Said("turned-up discard"),
        "place": Said("turned-up discard card {n}: {card}"),
    }


def forms_described(
    moves: Mapping[str, Sequence[Mapping[str, Any]]],
    words: Mapping[str, str],
    sheet: Mapping[str, Mapping[str, Any]],
    deal: Mapping[str, Any],
) -> dict[str, Any]:
    """A game's forms for ``GET /games/{game}``: each move's fields, the words of its buttons, the
    score-sheet form of a hand and the deal's layout, declared once in ``engines/<game>/forms.py``."""
    return {
        "moves": {t: [dict(f) for f in fs] for t, fs in moves.items()},
        "words": {**COMMON_WORDS, **words},
        "sheet": {k: dict(v) for k, v in sheet.items()},
        "deal": dict(deal),
    }


# --------------------------------------------------------------------------- events


def dispatch(handlers: Mapping[str, Callable[[S, Event], S]], state: S, event: Event, game: str) -> S:
    """Apply ``event`` with the handler of its type: the body of every engine's ``apply``.

    Raises:
        RuleViolation: ``common.unknown_event`` when the game has no such event (``game``
            names it in the message), or whatever the handler raises.
    """
    handler = handlers.get(event.type)
    if handler is None:
        raise RuleViolation(
            "common.unknown_event", Said("%(game)s has no event %(type)s", game=game, type=as_written(event.type))
        )
    return handler(state, event)


# --------------------------------------------------------------------------- cards


class CardReader(Protocol):
    """Reads one card of a deck (see :func:`card_reader`)."""

    def __call__(self, text: object, *, hidden_ok: bool = False) -> Card | None: ...


def cards_by_text(deck: Deck) -> dict[str, Card]:
    """Return the deck's cards by their text: the very objects :func:`~engines.cards.parse` returns."""
    return {str(c): c for c in deck.cards}


def card_reader(deck: Deck, example: str) -> CardReader:
    """Return the function that reads one card of ``deck`` from an event, as a rule error.

    The reader returns None for ``"??"`` only where ``hidden_ok``. A well-formed card is one
    look-up (every move reads its cards); the rest explains errors. ``example`` is what the
    message suggests writing for a value that is not even text (``10H, AS or ??``).

    The reader raises :class:`RuleViolation` ``common.bad_card``, ``common.card_not_in_deck``
    or ``common.card_hidden`` (the codes of :class:`~engines.cards.CardError`).
    """
    cards = cards_by_text(deck)
    said_example = either(re.split(r", | or ", example)) if " or " in example else example

    def read_card(text: object, *, hidden_ok: bool = False) -> Card | None:
        card = cards.get(text) if isinstance(text, str) else None
        if card is not None:
            return card
        if not isinstance(text, str):
            raise RuleViolation(
                "common.bad_card",
                Said("%(value)s is not a card (write e.g. %(example)s)", value=as_written(text), example=said_example),
            )
        try:
            return parse(text, deck) if hidden_ok else parse_known(text, deck)
        except CardError as e:
            raise RuleViolation(e.code, e.message) from None

    read_card.__doc__ = f'Parse one card of the {deck.name} deck; ``"??"`` (None) only where ``hidden_ok``.'
    read_card.by_text = cards  # type: ignore[attr-defined]  # for read_all: a list in one pass
    return read_card


def read_all(texts: Iterable[object], read: CardReader, *, hidden_ok: bool = False) -> list[Card | None]:
    """Read several cards with ``read``: the cards of a well-formed list in one pass of look-ups.

    Events carry many cards (a deal, a capture with a whole pile); a text that is not simply
    a card of the deck (``"??"``, an error) falls back to ``read`` card by card, which says why.

    Raises:
        RuleViolation: as ``read``.
    """
    by_text: dict[str, Card] | None = getattr(read, "by_text", None)
    if by_text is not None:
        try:
            return [by_text[t] for t in texts]  # type: ignore[index]
        except (KeyError, TypeError):  # "??", a text of no card, or no text at all (unhashable)
            pass
    return [read(t, hidden_ok=hidden_ok) for t in texts]


@overload
def read_cards(
    data: Mapping[str, Any], read: CardReader, *, key: str = ..., hidden_ok: Literal[False] = ..., unique: bool = ...
) -> list[Card]: ...
@overload
def read_cards(
    data: Mapping[str, Any], read: CardReader, *, key: str = ..., hidden_ok: bool, unique: bool = ...
) -> list[Card | None]: ...
def read_cards(
    data: Mapping[str, Any], read: CardReader, *, key: str = "cards", hidden_ok: bool = False, unique: bool = False
) -> list[Card] | list[Card | None]:
    """Read the non-empty list of cards an event writes in ``data[key]``.

    Args:
        read: the deck's :func:`card_reader`.
        hidden_ok: ``"??"`` is allowed (read as None).
        unique: a card may be written once only (a deck with one copy of each card).

    Raises:
        RuleViolation: ``common.bad_cards`` (not a non-empty list), ``common.card_duplicate``
            (with ``unique``), or a card error of ``read``.
    """
    texts = data.get(key)
    if not isinstance(texts, (list, tuple)) or not texts:
        raise RuleViolation("common.bad_cards", Said("%(field)s must be a non-empty list of cards", field=key))
    out = read_all(texts, read, hidden_ok=hidden_ok)
    if unique and len(out) > 1:
        seen: set[Card] = set()
        for c in out:
            if c is not None:
                if c in seen:
                    raise RuleViolation("common.card_duplicate", Said("%(card)s is written twice", card=c.pretty()))
                seen.add(c)
    return out


def pretty_written(items: Iterable[object], read: CardReader) -> str:
    """Print written cards for a sentence (``9♥ K♥ ??``); anything unreadable prints as ``??``.

    Narration runs on events that may have been refused, so it never raises.
    """
    out: list[Card | None] = []
    for t in items:
        try:
            out.append(read(t, hidden_ok=True))
        except RuleViolation:
            out.append(None)
    return pretty(out)


# --------------------------------------------------------------------------- words


def withheld_reveal(bindings: Sequence[Any]) -> str | None:
    """Words for a reveal whose every card is withheld from the reader (an open read of a match in
    play writes them ``??``: they are private until the match ends), or None when it names cards."""
    if bindings and all(isinstance(b, Mapping) and b.get("card") == UNKNOWN for b in bindings):
        return Counted(
            "Revealed to the scorer: %(n)s card the rules still hide (shown when the match ends)",
            "Revealed to the scorer: %(n)s cards the rules still hide (shown when the match ends)",
            len(bindings),
        )
    return None


_COUNTED: dict[str, Callable[[int], Counted]] = {
    "card": lambda n: Counted("%(n)s card", "%(n)s cards", n),
    "trick": lambda n: Counted("%(n)s trick", "%(n)s tricks", n),
    "more trick": lambda n: Counted("%(n)s more trick", "%(n)s more tricks", n),
    "chip": lambda n: Counted("%(n)s chip", "%(n)s chips", n),
    "capture": lambda n: Counted("%(n)s capture", "%(n)s captures", n),
    "hidden card": lambda n: Counted("%(n)s hidden card", "%(n)s hidden cards", n),
    "unknown card": lambda n: Counted("%(n)s unknown card", "%(n)s unknown cards", n),
    "table card": lambda n: Counted("%(n)s table card", "%(n)s table cards", n),
    "named slot": lambda n: Counted("%(n)s named slot", "%(n)s named slots", n),
}
"""The nouns the games count, each a plural message of its own: every language has its own plural
rule and its own word for the thing counted."""


def how_many(n: int, noun: str) -> str:
    """``n`` and its noun as a player writes them: "1 card", "3 cards", "0 tricks".

    A noun the games count (:data:`_COUNTED`) is said in each language with its own plural; any
    other stays English (add it to the table).
    """
    counted = _COUNTED.get(noun)
    if counted is not None:
        return counted(n)
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def and_list(words: Sequence[str]) -> str:
    """Join words for a sentence: ``A``, ``A and B``, ``A, B and C``; ``nobody`` for none.

    Each language joins them its own way (:class:`~engines.said.Listed`: "A, B i C", "A, B und C")."""
    return Listed(words)


def either(words: Sequence[object], last: str = "or") -> str:
    """Join choices for a sentence: ``a``, ``a or b``, ``a, b or c`` (``last="and"``: ``a, b and c``).

    One message id per joining word, so each language says its own "or" ("o", "oder"); the items
    keep their own words (a :class:`~engines.said.Said` among them is said again too)."""
    items = list(words)
    if len(items) <= 1:
        return items[0] if items and isinstance(items[0], str) else "".join(map(str, items))
    some = Joined(items[:-1], ", ")
    if last == "and":
        return Said("%(some)s and %(last)s", some=some, last=items[-1])
    return Said("%(some)s or %(last)s", some=some, last=items[-1])


def seat_names(players: Sequence[str], seats: Iterable[int]) -> str:
    """Name seats for a sentence: ``Ben``, ``Ben and Dora``, ``Anna, Ben and Dora``; ``nobody`` for none."""
    return Listed([players[s] for s in seats])
