"""Which fields of an event are private, and to whom: the one reading every engine's declaration.

Each engine declares, next to its ``view``, a ``PRIVATE`` table: per event type, the fields
that only some seats saw (VOCABULARY.md §1 "Private"): a peek's value, a kept card, a card
drawn from the stock, a face-down discard, each seat's dealt hand. Everything the service
hides from an open read, commits to in the hash chain, or folds as unknown starts here, so
a field declared once is hidden everywhere.

A declaration names a path into the event's ``data`` (keys, ``"*"`` for every item of a
list) and who saw the value:

* ``ACTOR``: the seat that acted (``data["seat"]``): a peek, a keep, a draw, a discard;
* ``OWNER``: the seat whose index the path's first ``"*"`` matched (``hands[2]`` is seat 2's);
* ``NOBODY``: the record only (cards dealt face down that nobody at the table has looked at).

When a value becomes public follows the table (VOCABULARY.md §4 "Who may see it"): the end
of its hand shows it (the piles are counted, the rows turned up, the hands shown before paying)
unless ``at_hand_end`` says the rules never show it (Kabú's cards returned after a ``keep``);
``shown`` (optional) says when the rules show it earlier, during the hand, read off the events
recorded after it. What is never shown stays private until the match is over.

``unknown`` says how the field reads in a log without its private facts (what a reader
without the token may fold): ``"??"`` replaces every card in it, ``"omit"`` drops the field
(an optional value: the scorer "did not see it"), ``"keep"`` leaves it (the view already
hides it until the rules show it; only the listing hides it).

Pure, standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Sequence

Audience = Literal["actor", "owner", "nobody"]
ACTOR: Audience = "actor"
OWNER: Audience = "owner"
NOBODY: Audience = "nobody"

Path = tuple["str | int", ...]
"""A concrete place in an event's data: keys and list indexes (``("hands", 2)``)."""

UNKNOWN = "??"


@dataclass(frozen=True)
class Private:
    """One private field of an event type (see the module docstring)."""

    path: tuple[str, ...]
    to: Audience
    unknown: Literal["??", "omit", "keep"] = "??"
    when: Callable[[Mapping[str, Any], Mapping[str, Any]], bool] | None = None
    """``(match options, event data) -> bool``: the field is private only when this holds
    (a stock draw, a face-down discard); None: always."""
    shown: Callable[[Mapping[str, Any], Mapping[str, Any], Sequence[Any]], bool] | None = None
    """``(match options, event data, the events recorded after it) -> bool``: the rules have
    made the value public (Kabú's open cards, turned up after the last keep), so an open
    listing shows it with its salt from then on; None: it stays hidden until its hand ends."""
    at_hand_end: Callable[[Mapping[str, Any], Mapping[str, Any]], bool] | None = None
    """``(match options, event data) -> bool``: whether the end of the hand shows the value;
    None: it does (all five games show the hand's cards at its end)."""


Declarations = Mapping[str, Sequence[Private]]
"""An engine's ``PRIVATE``: event type → its private fields (``()`` for an all-public type)."""


@dataclass(frozen=True)
class Secret:
    """One private value of one event: where it is and which seats saw it (empty: nobody)."""

    path: Path
    seats: frozenset[int]
    unknown: Literal["??", "omit", "keep"]
    shown: Callable[[Mapping[str, Any], Mapping[str, Any], Sequence[Any]], bool] | None = None
    """The declaration's ``shown`` (see :class:`Private`)."""
    hand_end: bool = True
    """Whether the end of its hand shows the value (the declaration's ``at_hand_end``, read)."""


def secrets_of(
    declarations: Declarations,
    options: Mapping[str, Any],
    event_type: str,
    data: Mapping[str, Any],
    *,
    target_type: str | None = None,
) -> list[Secret]:
    """Return the private values present in one event's data, in declaration order.

    An ``amend`` carries its target's new payload under ``data``: pass the target's type as
    ``target_type`` and its private fields are found there (``("data", "value")``). An
    ``irregular`` carries its move under ``move``: the move type's private fields are found there
    (``("move", "data", "card")``), and the refusal's words (``("rule", "message")``), which may
    name the value, are as private as it is.
    """
    if event_type == "amend" and target_type is not None:
        inner = data.get("data")
        if not isinstance(inner, Mapping):
            return []
        return [
            Secret(("data", *s.path), s.seats, s.unknown, None, s.hand_end)  # shown when its target's hand ends
            for s in secrets_of(declarations, options, target_type, inner)
        ]
    if event_type == "irregular":  # a move the rules refused, kept as played: its private values are the move's
        return _irregular_secrets(declarations, options, data)
    out: list[Secret] = []
    for decl in declarations.get(event_type, ()):
        if decl.when is not None and not decl.when(options, data):
            continue
        actor = data.get("seat")
        hand_end = decl.at_hand_end is None or decl.at_hand_end(options, data)
        for path, owner in _expand(data, decl.path):
            if decl.to == ACTOR:
                seats = _seats(actor) if isinstance(actor, int) else _NOBODY
            elif decl.to == OWNER:
                seats = _seats(owner) if owner is not None else _NOBODY
            else:
                seats = _NOBODY
            out.append(Secret(path, seats, decl.unknown, decl.shown, hand_end))
    return out


_NOBODY: frozenset[int] = frozenset()
_ONE_SEAT = tuple(frozenset({s}) for s in range(16))
"""The one-seat audiences, built once: the service asks for the secrets of every event it records."""


def _seats(seat: int) -> frozenset[int]:
    """Return ``frozenset({seat})``, the same object for every usual seat."""
    if type(seat) is int and 0 <= seat < len(_ONE_SEAT):
        return _ONE_SEAT[seat]
    return frozenset({seat})


def _expand(
    data: Any, pattern: tuple[str, ...], done: Path = (), owner: int | None = None
) -> list[tuple[Path, int | None]]:
    """Return the concrete paths a pattern matches in ``data`` (absent fields match nothing)."""
    if not pattern:
        return [(done, owner)]
    if "*" not in pattern:  # a plain path (most declarations): walk it without recursion
        for step in pattern:
            if not (type(data) is dict or isinstance(data, Mapping)) or step not in data:
                return []
            data = data[step]
        return [((*done, *pattern), owner)]
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        if not isinstance(data, list):
            return []
        out: list[tuple[Path, int | None]] = []
        for i, item in enumerate(data):
            if item is not None:
                out += _expand(item, rest, (*done, i), i if owner is None else owner)
        return out
    if not isinstance(data, Mapping) or head not in data:
        return []
    return _expand(data[head], rest, (*done, head), owner)


def get_at(data: Any, path: Path) -> Any:
    """Return the value at a concrete path."""
    for step in path:
        data = data[step]
    return data


def replaced(data: Any, path: Path, value: Any, *, drop: bool = False) -> Any:
    """Return a copy of ``data`` with the value at ``path`` replaced (or dropped); ``data`` is unchanged."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, list):
        out_list = list(data)
        out_list[int(head)] = replaced(data[int(head)], rest, value, drop=drop)
        return out_list
    out = dict(data)
    if drop and not rest:
        out.pop(head, None)
    else:
        out[head] = replaced(data[head], rest, value, drop=drop)
    return out


def _unknown_cards(value: Any) -> Any:
    """Every card text in a value written as unknown (``"??"``); structure and nulls kept."""
    if isinstance(value, str):
        return UNKNOWN
    if isinstance(value, list):
        return [_unknown_cards(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _unknown_cards(v) for k, v in value.items()}
    return value


def unknown_form(data: Mapping[str, Any], secrets: Sequence[Secret], viewer: int | None = None) -> dict[str, Any]:
    """Return the data as a record that never learnt the private values would hold it.

    Values that ``viewer`` saw stay (None: the public, who saw none of them). Folding a log
    in this form gives the state a reader without those facts may see: its views, words,
    legal moves and scores cannot echo a private value.
    """
    out: Any = dict(data)
    for secret in secrets:
        if viewer is not None and viewer in secret.seats:
            continue
        if secret.unknown == "omit":
            out = replaced(out, secret.path, None, drop=True)
        elif secret.unknown == "??":
            out = replaced(out, secret.path, _unknown_cards(get_at(out, secret.path)))
    return dict(out)


def cards_unknown(data: Mapping[str, Any], secrets: Sequence[Secret]) -> dict[str, Any]:
    """Return the data with every card of the given private values written as unknown, whatever
    their declared form: how a step that a reader may not see in full is told in words."""
    out: Any = dict(data)
    for secret in secrets:
        out = replaced(out, secret.path, _unknown_cards(get_at(out, secret.path)))
    return dict(out)


def _irregular_secrets(declarations: Declarations, options: Mapping[str, Any], data: Mapping[str, Any]) -> list[Secret]:
    """The private values of an irregular: those of the move it keeps, and the rule's words with them."""
    move = data.get("move")
    if (
        not isinstance(move, Mapping)
        or not isinstance(move.get("type"), str)
        or not isinstance(move.get("data"), Mapping)
    ):
        return []
    inner = secrets_of(declarations, options, move["type"], move["data"])
    found = [Secret(("move", "data", *s.path), s.seats, s.unknown, None, s.hand_end) for s in inner]
    rule = data.get("rule")
    if found and isinstance(rule, Mapping) and isinstance(rule.get("message"), str):
        seats = frozenset().union(*(s.seats for s in inner))
        found.append(Secret(("rule", "message"), seats, "??", None, all(s.hand_end for s in inner)))
    return found
