"""The ledger's values and the hash chain.

Everything here is a frozen value or a pure function, shared by every backend, so that an
event hashed by the SQLite ledger verifies byte for byte in the memory ledger, in the
offline ``tanteo verify`` command, or in another language.

The chain (format 1, :data:`CHAIN_FORMAT`)::

    hash(seq) = sha256( prev.encode("ascii")
                        + canonical_json({"match", "seq", "type", "data", "at", "by", "key"}) )
    prev(1)   = GENESIS = "0" * 64,  prev(n) = hash(n - 1)

where :func:`canonical_json` is JSON with sorted keys, no spaces, UTF-8 with non-ASCII
characters written as themselves — the same bytes as Python's
``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()``.
Every stored row records the format number it was chained with, so a future format can
stand beside this one and :func:`ledger.records.hash_function` picks the right one.

Format 2 (:data:`CHAIN_FORMAT` for new rows) lets a reader who may not see an event's
private values still recompute its hash. The writer names the private places of each event
(``NewEvent.private``: JSON paths into ``data``, chosen by the service; the ledger knows no
game); each gets a fresh random salt (32 hex digits), stored beside the event, and enters
the hash as a commitment::

    commitment = sha256( salt.encode("ascii") + canonical_json(value) )   (hex)
    hash(seq)  = sha256( prev.encode("ascii")
                         + canonical_json({"match", "seq", "type", "data": committed,
                                           "at", "by", "key", "format": 2}) )

where ``committed`` is ``data`` with the value at each private path replaced by the
placeholder ``{"commitment": <hex>, "private": true}`` — exactly what an open listing shows
while the value is hidden. Once the value is public, the listing shows the value and its
salt, and anyone recomputes the commitment, puts the placeholder back and checks the hash.
An event with no private value has ``committed == data``. docs/HTTP.md "Chain formats" is the
page a third party implements a verifier from.

Event data must be JSON values (dicts with string keys, lists/tuples, str, int within 64
bits, finite floats, bool, None): a ``datetime`` or dataclass is refused because it would
read back as something else than was written, ``NaN`` because JSON has no text for it.
(Enum members and UUIDs, which orjson writes natively, are stored as their JSON value.)
Integers and strings — all the card games need — have the same canonical bytes in every
JSON library; floats are allowed but their text is orjson's shortest round-trip form
(``1e16`` where the stdlib writes ``1e+16``), so keep floats out of event data if another
implementation must re-verify the chain.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

GENESIS = "0" * 64
"""The ``prev`` of every match's first event."""

CHAIN_FORMAT = 2
"""The chain format new events are written with (stored per row in column ``fmt``)."""

Path = tuple["str | int", ...]
"""A place in an event's data: object keys and list indexes (``("hands", 2)``)."""

_dumps = orjson.dumps
_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
"""Sorted keys; datetimes and dataclasses raise instead of being silently turned into
strings and objects (they would read back as something else than was written)."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event as a writer submits it: its type and payload; the ledger adds the rest."""

    type: str
    data: dict[str, Any]
    private: tuple[Path, ...] = ()
    """Where ``data`` holds values only some seats saw: each enters the chain as a salted
    commitment (format 2), so the event's hash recomputes with the value hidden."""

    def __post_init__(self) -> None:
        # Refuse obviously wrong values here, at the edge, so a bad batch never reaches
        # a write transaction.
        if not isinstance(self.type, str) or not self.type:
            raise ValueError(f"event type must be a non-empty string, got {self.type!r}")
        if not isinstance(self.data, dict):
            raise TypeError(f"event data must be a dict, got {type(self.data).__name__} for {self.type!r}")


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored: the envelope of docs/DESIGN.md (``seq`` … ``hash``) plus its match.

    ``at`` is the server's UTC time of the append (``2026-11-21T17:03:05.123Z``), ``by`` who
    recorded it, ``key`` the idempotency key of the batch it came in (or None), ``prev`` the
    hash of the event before it (``GENESIS`` for seq 1) and ``hash`` its own chain hash.
    """

    match: str
    seq: int
    type: str
    data: dict[str, Any]
    at: str
    by: str
    key: str | None
    prev: str
    hash: str
    format: int = 1
    """The chain format the event was hashed with (1, or 2 with commitments)."""
    private: tuple[tuple[Path, str], ...] = ()
    """Format 2: each private place in ``data`` with its salt (see the module docstring)."""

    def envelope(self) -> dict[str, Any]:
        """Return every field as a JSON-able dict, private values included (the recorder's listing).

        A format-2 event with private values lists them with their salts and commitments
        under ``private`` so that the hash can be rechecked; :func:`public_data` is what an
        open listing shows instead of ``data``.
        """
        out = {
            "match": self.match,
            "seq": self.seq,
            "type": self.type,
            "data": self.data,
            "at": self.at,
            "by": self.by,
            "key": self.key,
            "prev": self.prev,
            "hash": self.hash,
            "format": self.format,
        }
        if self.private:
            out["private"] = [
                {"path": list(path), "salt": salt, "commitment": commitment(salt, value_at(self.data, path))}
                for path, salt in self.private
            ]
        return out


_new_object = object.__new__


def stored_event(
    match: str,
    seq: int,
    type: str,  # noqa: A002 - the envelope's field name
    data: dict[str, Any],
    at: str,
    by: str,
    key: str | None,
    prev: str,
    hash: str,  # noqa: A002
    format: int = 1,  # noqa: A002
    private: tuple[tuple[Path, str], ...] = (),
) -> StoredEvent:
    """Build a StoredEvent without the frozen ``__init__`` (package-internal, hot path).

    A frozen dataclass's ``__init__`` pays one ``object.__setattr__`` per field (about
    2.5 µs for nine fields here); appends and reads build one per event, so the ledger fills
    the instance dict directly. The result is indistinguishable (``tests/ledger`` checks).
    """
    event = _new_object(StoredEvent)
    event.__dict__.update(
        {
            "match": match,
            "seq": seq,
            "type": type,
            "data": data,
            "at": at,
            "by": by,
            "key": key,
            "prev": prev,
            "hash": hash,
            "format": format,
            "private": private,
        }
    )
    return event


def append_result(version: int, head: str, events: tuple[StoredEvent, ...], replayed: bool) -> AppendResult:
    """Build an AppendResult without the frozen ``__init__`` (package-internal, hot path)."""
    result = _new_object(AppendResult)
    result.__dict__.update({"version": version, "head": head, "events": events, "replayed": replayed})
    return result


@dataclass(frozen=True)
class AppendResult:
    """What an append (or the creation of a match) did.

    ``version`` is the match's version after the append (the seq of its last event),
    ``head`` that event's hash, ``events`` the events written. ``replayed`` is True when the
    call was a retry with an idempotency key already used for the same events: the result of
    the first call is returned and nothing was written.
    """

    version: int
    head: str
    events: tuple[StoredEvent, ...]
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match's row: what it is, who plays, and where its log stands."""

    id: str
    game: str
    token_hash: str
    created_at: str
    players: tuple[str, ...]
    status: str
    version: int
    head: str
    meta: dict[str, Any] = field(default_factory=dict)
    """What people call the match by (title, date, place, tags), as the service stored it."""


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of recomputing one match's chain from the stored rows.

    ``length`` is the number of events stored, ``head`` the hash stored on the last one.
    When ``valid`` is False, ``first_bad`` names the first seq that is wrong (missing,
    altered, or badly linked; None when only the match row disagrees with an intact log)
    and ``reason`` says what is wrong in a sentence.
    """

    match: str
    valid: bool
    length: int
    head: str
    first_bad: int | None = None
    reason: str | None = None


@dataclass(frozen=True, eq=False)
class Verified:
    """A match's rows as one read found them, every one verified, and its events decoded from them.

    A later read of the same match takes them over (:meth:`ledger.base.Ledger.read_verified_on`):
    it still reads every row, compares each with the row kept here byte for byte, and hashes
    and decodes only the rows that are new or differ; a stored byte changed since (a damaged or
    edited file) sends it back to verifying the whole chain.
    """

    rows: Sequence[Sequence[Any]]
    """The rows as the backend returned them (its raw text or bytes)."""
    events: Sequence[StoredEvent]
    head: str
    """The hash of the last row."""


def canonical_json(obj: Any) -> bytes:
    """Return the canonical JSON bytes of ``obj``: sorted keys, no spaces, UTF-8.

    Raises:
        TypeError: ``obj`` holds something that is not JSON (a set, a datetime, a dataclass,
            a non-string key, an integer beyond 64 bits).
        ValueError: ``obj`` holds NaN or an infinity, which JSON cannot represent.
    """
    out = _dumps(obj, option=_CANONICAL)
    # orjson writes NaN and infinities as null; only then is a walk needed to tell them
    # from a real None (this runs for every appended event, so the common case stays cheap).
    if b"null" in out:
        _reject_non_finite(obj)
    return out


def chain_hash(
    prev: str,
    match: str,
    seq: int,
    type: str,  # noqa: A002 - the envelope's field name
    data: Any,
    at: str,
    by: str,
    key: str | None,
    fmt: int = 1,
) -> str:
    """Return the chain hash of one event (hex sha256) in format ``fmt``, linking it to ``prev``.

    Format 2 hashes the committed data (see above) and names its format in the envelope.
    """
    body = {"match": match, "seq": seq, "type": type, "data": data, "at": at, "by": by, "key": key}
    if fmt != 1:
        body["format"] = fmt
    return hashlib.sha256(prev.encode("ascii") + canonical_json(body)).hexdigest()


def chain_hash_v2(prev: str, match: str, seq: int, type: str, data: Any, at: str, by: str, key: str | None) -> str:  # noqa: A002
    """Return the format-2 chain hash of one event; ``data`` is the committed data (see above)."""
    return chain_hash(prev, match, seq, type, data, at, by, key, 2)


HashFunction = Callable[..., str]
"""``(prev, match, seq, type, data, at, by, key) -> hex digest``, as :func:`chain_hash`."""

_HASH_FUNCTIONS: dict[int, HashFunction] = {1: chain_hash, 2: chain_hash_v2}

PLACEHOLDER_KEYS = frozenset({"private", "commitment"})


def commitment(salt: str, value: Any) -> str:
    """Return the commitment to a private value: ``sha256(salt ‖ canonical JSON of value)``, hex."""
    return hashlib.sha256(salt.encode("ascii") + canonical_json(value)).hexdigest()


def placeholder(digest: str) -> dict[str, Any]:
    """Return what stands in the data for a hidden private value (and is hashed in its place)."""
    return {"private": True, "commitment": digest}


def is_placeholder(value: Any) -> bool:
    """Tell whether a value is the placeholder of a hidden private value."""
    return isinstance(value, dict) and value.keys() == PLACEHOLDER_KEYS and value.get("private") is True


def value_at(data: Any, path: Path) -> Any:
    """Return the value at ``path`` in ``data``.

    Raises:
        KeyError, IndexError, TypeError: the path does not lead anywhere in ``data``.
    """
    for step in path:
        if isinstance(data, list) and isinstance(step, int) and not isinstance(step, bool):
            data = data[step]
        elif isinstance(data, dict) and isinstance(step, str):
            data = data[step]
        else:
            raise KeyError(step)
    return data


def with_value(data: Any, path: Path, value: Any) -> Any:
    """Return a copy of ``data`` with the value at ``path`` replaced; ``data`` is not changed."""
    if not path:
        return value
    step, rest = path[0], path[1:]
    if isinstance(data, list):
        out_list = list(data)
        out_list[step] = with_value(data[step], rest, value)  # type: ignore[index]
        return out_list
    out = dict(data)
    out[step] = with_value(data[step], rest, value)
    return out


def committed_data(data: Any, private: Sequence[tuple[Path, str]]) -> Any:
    """Return the data as format 2 hashes it: each private value replaced by its placeholder.

    The same as replacing them one by one with :func:`with_value` (``tests/ledger`` checks
    it), but each container on the way is copied once for all the paths, not once per path
    (a deal with a private layout per seat; verify and every append of a hidden card run it).
    ``data`` is not changed.

    Raises:
        KeyError, IndexError, TypeError: a path does not lead anywhere in ``data``.
    """
    if not private:
        return data
    out = data
    copied: set[int] = set()  # the containers of ``out`` that are already this call's own copies
    for path, salt in private:
        hidden = placeholder(commitment(salt, value_at(out, path)))
        if not path:
            out = hidden
            continue
        if id(out) not in copied:
            out = list(out) if isinstance(out, list) else dict(out)
            copied.add(id(out))
        node = out
        for step in path[:-1]:
            child = node[step]
            if id(child) not in copied:
                child = list(child) if isinstance(child, list) else dict(child)
                copied.add(id(child))
                node[step] = child
            node = child
        node[path[-1]] = hidden
    return out


def public_data(event: StoredEvent) -> dict[str, Any]:
    """Return an event's data as an open listing shows it during play: private values hidden.

    The placeholders carry the commitments, so the hash recomputes from this alone.
    """
    if not event.private:
        return event.data
    return committed_data(event.data, event.private)  # type: ignore[no-any-return]


def hash_function(fmt: int) -> HashFunction | None:
    """Return the hash function of chain format ``fmt``, or None if this code doesn't know it."""
    return _HASH_FUNCTIONS.get(fmt)


def utc_now() -> str:
    """Return the current UTC time as ISO 8601 with milliseconds and ``Z``.

    One fixed width (``2026-11-21T17:03:05.123Z``) so that the text sorts like the time
    and every client parses it the same way. The formatted second is cached (one tuple,
    swapped atomically) because this runs on every append.
    """
    global _second
    now = time.time()
    whole = int(now)
    cached = _second
    if cached[0] != whole:
        cached = _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(whole)))
    return f"{cached[1]}{int((now - whole) * 1000):03d}Z"


_second: tuple[int, str] = (-1, "")


def _reject_non_finite(obj: Any) -> None:
    """Raise ValueError if ``obj`` holds a NaN or infinite float anywhere."""
    stack = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"JSON cannot represent {value!r}")
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
