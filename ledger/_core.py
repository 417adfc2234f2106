"""What both backends do the same way: prepare a batch, chain it, verify a stored chain.

Kept in one place so that the SQLite and memory ledgers cannot drift apart: the same bytes
are hashed, the same rows are stored, the same mistakes are reported in the same words.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from .errors import ChainBroken
from .words import Said
from .records import (
    CHAIN_FORMAT,
    GENESIS,
    NewEvent,
    Path,
    StoredEvent,
    VerifyReport,
    canonical_json,
    chain_hash,
    chain_hash_v2,
    commitment,
    committed_data,
    hash_function,
    is_placeholder,
    placeholder,
    stored_event,
    value_at,
    with_value,
)

Row = tuple[str, int, str, str, str, str, "str | None", str, str, int, "str | None"]
"""A stored event row: match_id, seq, type, data (canonical JSON text), at, by, key, prev,
hash, fmt, private (format 2: JSON ``[[path, salt], …]`` or None) — the column order of the
SQLite ``events`` table."""

if TYPE_CHECKING:
    from .base import MatchImport

KeyRow = tuple[str, str, int, int, str]
"""An idempotency row of a match: key, body hash, first seq, last seq, when it was stored."""

Secrets = tuple[tuple[Path, str], ...]
"""An event's private places with their salts."""

Prepared = tuple[tuple[str, bytes, str, bytes, Secrets, bytes], ...]
"""A batch after validation, per event: (type, type as JSON, data as canonical JSON text,
the same as bytes, the private places with fresh salts, the committed data as canonical
JSON bytes) — everything encoded once, before any lock is taken."""

SALT_BYTES = 16
"""Random bytes per salt (written as 32 hex digits)."""

UPDATABLE_FIELDS = frozenset({"status", "meta"})
"""Match-row fields a check may set in the append transaction."""

_dumps = orjson.dumps
_loads = orjson.loads
_sha256 = hashlib.sha256


def prepare(events: Sequence[NewEvent]) -> Prepared:
    """Validate a batch and encode each payload once, before any lock is taken.

    Every private place gets its own fresh salt of :data:`SALT_BYTES` random bytes; the
    salts of a whole batch are drawn from the OS's randomness in one read and cut apart
    (each still 16 independent, unpredictable bytes), not one read per event. A batch has
    few distinct types: each is JSON-encoded once.

    Raises:
        ValueError: the batch is empty, a payload holds NaN/infinity, a private path leads
            nowhere or is named twice.
        TypeError: an item is not a NewEvent, or a payload is not plain JSON.
    """
    if isinstance(events, (str, bytes, NewEvent)) or not len(events):
        raise ValueError("an append needs at least one event (a non-empty sequence of NewEvent)")
    places: list[tuple[Path, ...]] = []
    wanted = 0
    for event in events:
        if type(event) is not NewEvent and not isinstance(event, NewEvent):
            raise TypeError(f"events must be NewEvent values, got {type(event).__name__}")
        found = _places(event) if event.private else ()
        places.append(found)
        wanted += len(found)
    salts = secrets.token_bytes(SALT_BYTES * wanted).hex() if wanted else ""
    width = 2 * SALT_BYTES
    cut = 0
    type_json: dict[str, bytes] = {}
    prepared: list[tuple[str, bytes, str, bytes, Secrets, bytes]] = []
    append = prepared.append
    for event, found in zip(events, places):
        data = canonical_json(event.data)
        etype = event.type
        encoded = type_json.get(etype)
        if encoded is None:
            encoded = type_json[etype] = _dumps(etype)
        if found:
            salted = tuple((path, salts[cut + i * width : cut + (i + 1) * width]) for i, path in enumerate(found))
            cut += len(found) * width
            committed = (_spliced_commitments(data, event.data, salted) if _apart(salted) else None) or canonical_json(
                committed_data(event.data, salted)
            )
            append((etype, encoded, data.decode("utf-8"), data, salted, committed))
        else:
            append((etype, encoded, data.decode("utf-8"), data, (), data))
    return tuple(prepared)


def _places(event: NewEvent) -> tuple[Path, ...]:
    """Return an event's private places, refusing places that are not there.

    Raises:
        ValueError: a path that leads nowhere in the data, or one named twice.
    """
    paths: list[Path] = []
    for path in event.private:
        path = tuple(path)
        try:
            value_at(event.data, path)
        except (KeyError, IndexError, TypeError):
            raise ValueError(f"private path {list(path)} is not in the data of this {event.type}") from None
        if path in paths:
            raise ValueError(f"private path {list(path)} is named twice")
        paths.append(path)
    return tuple(paths)


def private_text(salted: Secrets) -> str | None:
    """Return how a row stores its salts: JSON ``[[path, salt], …]``, or None when there are none."""
    return _dumps([[list(path), salt] for path, salt in salted]).decode("utf-8") if salted else None


def private_from_text(text: str | bytes | None) -> Secrets:
    """Decode a row's stored salts (see :func:`private_text`).

    Raises:
        ValueError: the text is not a list of ``[path, salt]`` pairs.
    """
    if text is None:
        return ()
    items = _loads(text)
    if type(items) is not list:
        raise ValueError("private salts must be a list")
    out = []
    for item in items:  # decoded JSON holds exact types: ``type(x) is int`` leaves the booleans out
        if type(item) is not list or len(item) != 2:
            raise ValueError("each private salt must be [path, salt]")
        path, salt = item
        if type(path) is not list or type(salt) is not str:
            raise ValueError("each private salt must be [path, salt]")
        for step in path:
            if type(step) is not str and type(step) is not int:
                raise ValueError("each private salt must be [path, salt]")
        out.append((tuple(path), salt))
    return tuple(out)


def body_hash(prepared: Prepared) -> str:
    """Return the sha256 of the batch body ``[{"data":…,"type":…},…]`` in canonical JSON.

    This is what an idempotency key is bound to: a retry matches when its body hashes the
    same. Built from the already canonical payloads (keys ``data`` < ``type`` are sorted),
    so it equals ``sha256(canonical_json([{"type": t, "data": d}, …]))``.
    """
    parts = [b'{"data":%s,"type":%s}' % (data, type_json) for _, type_json, _, data, _, _ in prepared]
    return _sha256(b"[" + b",".join(parts) + b"]").hexdigest()


def envelope_prefix(at: str, by: str) -> bytes:
    """Return the canonical envelope's bytes before its data (keys sorted: at, by, data, …)."""
    return b'{"at":%s,"by":%s,"data":' % (_dumps(at), _dumps(by))


def envelope_middle(key: str | None, match_id: str, fmt: int = 1) -> bytes:
    """Return the canonical envelope's bytes between its data and its seq (…, [format,] key, match, seq)."""
    if fmt == 2:
        return b',"format":2,"key":%s,"match":%s,"seq":' % (_dumps(key), _dumps(match_id))
    return b',"key":%s,"match":%s,"seq":' % (_dumps(key), _dumps(match_id))


def spliced_hash(prev: str, prefix: bytes, data: bytes, middle: bytes, seq: int, type_json: bytes) -> str:
    """Return the chain hash of an event from its canonical pieces (format 1 or 2, by ``middle``).

    Equal to :func:`~ledger.records.chain_hash` / ``chain_hash_v2`` (``tests/ledger`` checks it) without
    building and re-encoding the envelope: ``data`` is the payload's canonical JSON, the
    other pieces come from :func:`envelope_prefix`, :func:`envelope_middle` and the type
    as JSON. Appends and verification both hash this way.
    """
    return _sha256(
        b"".join((prev.encode("ascii"), prefix, data, middle, b"%d" % seq, b',"type":', type_json, b"}"))
    ).hexdigest()


def chain_batch(
    match_id: str,
    version: int,
    head: str,
    prepared: Prepared,
    *,
    at: str,
    by: str,
    key: str | None,
) -> tuple[tuple[StoredEvent, ...], list[Row]]:
    """Give a prepared batch its seqs and hashes, continuing the chain at ``version``/``head``.

    Returns the events (with decoded copies of their data, so callers never share a dict
    with the store) and the rows to store. The hash input is spliced from the canonical
    pieces rather than re-encoded (this is the append hot path): see :func:`spliced_hash`.
    """
    prefix = envelope_prefix(at, by)
    middle = envelope_middle(key, match_id, CHAIN_FORMAT)
    events: list[StoredEvent] = []
    rows: list[Row] = []
    prev = head
    seq = version
    for etype, type_json, text, data, salted, committed in prepared:
        seq += 1
        digest = spliced_hash(prev, prefix, committed, middle, seq, type_json)
        events.append(stored_event(match_id, seq, etype, _loads(data), at, by, key, prev, digest, CHAIN_FORMAT, salted))
        rows.append(
            (
                match_id,
                seq,
                etype,
                text,
                at,
                by,
                key,
                prev,
                digest,
                CHAIN_FORMAT,
                private_text(salted) if salted else None,
            )
        )
        prev = digest
    return tuple(events), rows


def event_from_row(row: Sequence[Any]) -> StoredEvent:
    """Decode a stored row (see :data:`Row`) into a StoredEvent with its own data dict."""
    if len(row) > 9:
        return stored_event(
            row[0],
            row[1],
            row[2],
            _loads(row[3]),
            row[4],
            row[5],
            row[6],
            row[7],
            row[8],
            row[9],
            private_from_text(row[10]) if row[10] is not None else (),
        )
    return stored_event(row[0], row[1], row[2], _loads(row[3]), row[4], row[5], row[6], row[7], row[8])


def status_update(result: object) -> str | None:
    """Return the status a check asked for (None: leave it), refusing anything else.

    Raises:
        ValueError: the check returned something other than None or ``{"status": str}``.
    """
    if result is None:
        return None
    if not isinstance(result, Mapping):
        raise ValueError(f"a check must return None or a dict of match fields, got {result!r}")
    unknown = set(result) - UPDATABLE_FIELDS
    if unknown:
        raise ValueError(f"a check may only update {sorted(UPDATABLE_FIELDS)}, got {sorted(map(str, unknown))}")
    status = result.get("status")
    if status is not None and (not isinstance(status, str) or not status):
        raise ValueError(f"match status must be a non-empty string, got {status!r}")
    return status


def meta_update(result: object) -> dict[str, Any] | None:
    """Return the match metadata a check asked to store (None: leave it).

    Metadata (title, date, place, tags: whatever the service lists and filters by) is a JSON
    object; the ledger stores it beside the match row and knows nothing of its fields.

    Raises:
        ValueError: ``meta`` is not a dict.
    """
    if not isinstance(result, Mapping) or result.get("meta") is None:
        return None
    meta = result["meta"]
    if not isinstance(meta, Mapping):
        raise ValueError(f"match meta must be a dict, got {type(meta).__name__}")
    return dict(meta)


def check_text(name: str, value: object) -> None:
    """Refuse an empty or non-string identifier before it is stored forever."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")


def check_recorder(by: object) -> None:
    """Refuse a recorder name that is not a string; an empty one means "not given"."""
    if not isinstance(by, str):
        raise ValueError(f"by must be a string (the recorder's name, may be empty), got {by!r}")


def verify_chain(
    match_id: str,
    rows: Iterable[Sequence[Any]],
    version: int | None,
    head: str | None,
    into: list[StoredEvent] | None = None,
    *,
    after: int = 0,
    after_hash: str = GENESIS,
) -> VerifyReport:
    """Recompute one match's chain from its stored rows, in seq order, in one pass over them.

    ``rows`` are (seq, type, data, at, by, key, prev, hash, fmt[, private]); text may come as ``bytes``
    (the SQLite verifier reads raw bytes so that a damaged file cannot crash it).
    ``version``/``head`` are the match row's, or None when the row is missing. Checks, per
    event: seq contiguity from 1, a known chain format, the prev link and the hash; then
    that the match row points at the last one.

    The stored data *is* the canonical JSON the chain hashes, so a sound row is hashed from
    its stored bytes without decoding them (only a format-2 row with private salts decodes
    its data, to put the commitments in). A row whose hash does not match is looked at
    again by :func:`_check_row`, which says what is wrong in words (not JSON, not canonical,
    damaged text). With ``into``, each sound row is also decoded once into a StoredEvent
    appended to it (a replay that verifies reads the rows once); it stops at the first bad row.
    ``after`` and ``after_hash`` go on from rows verified before: ``rows`` then start at seq
    ``after + 1``, whose prev link must be ``after_hash`` (the hash of seq ``after``).
    """
    length = after
    last_hash = after_hash
    expected_prev = after_hash
    first_bad: int | None = None
    reason: str | None = None
    pieces = _Pieces(match_id)
    prefixes, middles, types = pieces.prefixes, pieces.middles, pieces.types
    expected_prev_bytes = after_hash.encode("ascii")
    for row in rows:
        length += 1
        stored_hash = row[7]
        if isinstance(stored_hash, bytes):
            last_hash = stored_hash.decode("utf-8", "replace")
        else:
            last_hash = str(stored_hash)
        if first_bad is not None:
            continue
        if into is None and len(row) == 10 and row[0] == length:
            # The common row, inline: raw bytes, pieces already encoded for this batch, and
            # private values (a format-2 row) spliced as commitments into the stored bytes.
            # Anything else, or any doubt, goes through pieces.check.
            prefix = prefixes.get((row[3], row[4]))
            middle = middles.get((row[5], row[8]))
            kind = types.get(row[1])
            prev, data = row[6], row[2]
            if (
                prefix is not None
                and middle is not None
                and kind is not None
                and type(data) is bytes
                and prev == expected_prev_bytes
            ):
                committed = data if row[9] is None else _quick_commitments(data, row[9]) if row[8] == 2 else None
                if (
                    committed is not None
                    and _sha256(
                        b"".join((prev, prefix[0], committed, middle[0], b"%d" % length, b',"type":', kind[0], b"}"))
                    ).hexdigest()
                    == last_hash
                ):
                    expected_prev, expected_prev_bytes = last_hash, stored_hash
                    continue
        problem = pieces.check(length, expected_prev, last_hash, row, into)
        if problem is not None:
            first_bad, reason = length, problem
            continue
        expected_prev = last_hash
        expected_prev_bytes = last_hash.encode("ascii")
    if version is None:  # the worst news first: the log has no match at all
        reason = (
            Said("events are stored but the match row is missing; %(reason)s", reason=reason)
            if reason
            else Said("events are stored but the match row is missing")
        )
    elif first_bad is None:
        if length == 0:
            first_bad, reason = 1, Said("the match has no events (seq 1 is missing)")
        elif version != length:
            first_bad = min(version, length) + 1
            reason = Said(
                "the match row says version %(version)s but %(length)s events are stored",
                version=version,
                length=length,
            )
        elif head != last_hash:
            first_bad = None
            reason = Said("the match row's head %(head)s is not the hash of seq %(seq)s", head=repr(head), seq=length)
    return VerifyReport(
        match=match_id,
        valid=reason is None,
        length=length,
        head=last_hash,
        first_bad=first_bad,
        reason=reason,
    )


class _Pieces:
    """The one-pass check of a match's rows, with the envelope pieces already encoded.

    A batch shares its ``at``, ``by`` and ``key`` and a log has few event types, so each
    piece is decoded and JSON-encoded once per distinct stored value (keyed by the stored
    text or bytes themselves), and a sound row costs one sha256 of its spliced bytes.
    """

    __slots__ = ("match_id", "prefixes", "middles", "types")

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.prefixes: dict[tuple[Any, Any], tuple[bytes, str, str]] = {}
        self.middles: dict[tuple[Any, int], tuple[bytes, str | None]] = {}
        self.types: dict[Any, tuple[bytes, str]] = {}

    def check(
        self,
        expected_seq: int,
        expected_prev: str,
        stored_hash: str,
        row: Sequence[Any],
        into: list[StoredEvent] | None,
    ) -> str | None:
        """Return why the row is bad (in :func:`_check_row`'s words), or None; with ``into``, keep its event."""
        if len(row) == 10:
            seq, etype, data, at, by, key, prev, _, fmt, private = row
        else:
            seq, etype, data, at, by, key, prev, _, fmt = row[:9]
            private = None
        try:
            prefix = self.prefixes.get((at, by))
            if prefix is None:
                at_text, by_text = _as_text(at), _as_text(by)
                prefix = self.prefixes[(at, by)] = (envelope_prefix(at_text, by_text), at_text, by_text)
            middle = self.middles.get((key, fmt))
            if middle is None:
                key_text = None if key is None else _as_text(key)
                if type(fmt) is not int or fmt not in (1, 2):
                    raise TypeError
                middle = self.middles[(key, fmt)] = (envelope_middle(key_text, self.match_id, fmt), key_text)
            kind = self.types.get(etype)
            if kind is None:
                type_text = _as_text(etype)
                kind = self.types[etype] = (_dumps(type_text), type_text)
            prev_bytes = prev if type(prev) is bytes else prev.encode("ascii")
            if type(data) is str:
                data = data.encode("utf-8")
        except (UnicodeError, TypeError, AttributeError):
            return _check_row(self.match_id, expected_seq, expected_prev, row)
        if (
            seq != expected_seq
            or type(data) is not bytes
            or prev_bytes != expected_prev.encode("ascii")
            or (private is not None and fmt != 2)
        ):
            return _check_row(self.match_id, expected_seq, expected_prev, row)
        decoded: Any = None
        salted: Secrets = ()
        committed = data
        if private is not None:
            try:
                decoded = _loads(data)
                salted = private_from_text(private)
                committed = _spliced_commitments(data, decoded, salted) or canonical_json(
                    committed_data(decoded, salted)
                )
            except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, ValueError, UnicodeDecodeError):
                return _check_row(self.match_id, expected_seq, expected_prev, row)
        digest = _sha256(
            b"".join((prev_bytes, prefix[0], committed, middle[0], b"%d" % seq, b',"type":', kind[0], b"}"))
        ).hexdigest()
        if digest != stored_hash:
            return _check_row(self.match_id, expected_seq, expected_prev, row) or (
                Said("seq %(seq)s: hash does not match the event's contents (the event was altered)", seq=seq)
            )
        if into is not None:
            try:
                if decoded is None:
                    decoded = _loads(data)
            except orjson.JSONDecodeError:
                return Said("seq %(seq)s: data is not valid JSON (the event was altered)", seq=seq)
            into.append(
                stored_event(
                    self.match_id,
                    seq,
                    kind[1],
                    decoded,
                    prefix[1],
                    prefix[2],
                    middle[1],
                    expected_prev,
                    stored_hash,
                    fmt,
                    salted,
                )
            )
        return None


def _quick_commitments(data: bytes, private: Any) -> bytes | None:
    """The committed bytes of a format-2 row from its stored data and salts, or None when in any
    doubt (then :meth:`_Pieces.check` looks at the row the long way and says what is wrong)."""
    try:
        return _spliced_commitments(data, _loads(data), private_from_text(private))
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, ValueError, UnicodeDecodeError):
        return None


def _spliced_commitments(data: bytes, decoded: Any, salted: Secrets) -> bytes | None:
    """Return the committed data's canonical bytes by splicing placeholders into the stored bytes,
    or None when that cannot be done safely (then the caller re-encodes).

    Canonical JSON writes every nested value as its own canonical bytes, so a private
    value's bytes occur in the data where it stands; when they occur only once, that is
    the place. A wrong splice cannot pass anyway: it changes the hash, and a row whose hash
    does not match is re-checked the long way (:func:`_check_row`).
    """
    for path, salt in salted:
        value = canonical_json(value_at(decoded, path))
        if not path or data.count(value) != 1:
            return None
        digest = _sha256(salt.encode("ascii") + value).hexdigest()
        data = data.replace(value, b'{"commitment":"%s","private":true}' % digest.encode("ascii"))
    return data


def _apart(salted: Secrets) -> bool:
    """Whether no private place lies inside another: then splicing each commitment into the
    canonical bytes (:func:`_spliced_commitments`) gives exactly the committed data's bytes.

    Canonical JSON writes every nested value as its own canonical bytes where it stands; places
    apart are disjoint stretches of the bytes, so replacing one leaves the others where they were,
    and a value whose bytes occur once occurs at its place (the splice refuses any other case).
    """
    if len(salted) < 2:
        return True
    paths = [path for path, _ in salted]
    return not any(a != b and a == b[: len(a)] for a in paths for b in paths)


def _as_text(value: Any) -> str:
    """A stored text field as ``str`` (raw bytes decoded strictly; anything else is refused).

    Raises:
        UnicodeDecodeError: damaged bytes. TypeError: not text at all.
    """
    if type(value) is str:
        return value
    if type(value) is bytes:
        return value.decode("utf-8")
    raise TypeError


def _prev_is_not(seq: int) -> Said:
    """Why event ``seq`` breaks the chain at its ``prev``: it names neither GENESIS nor the hash before it."""
    if seq == 1:
        return Said("seq %(seq)s: prev is not GENESIS (the chain is broken here)", seq=seq)
    return Said(
        "seq %(seq)s: prev is not the hash of seq %(previous)s (the chain is broken here)", seq=seq, previous=seq - 1
    )


def _check_row(match_id: str, expected_seq: int, expected_prev: str, row: Sequence[Any]) -> str | None:
    """Return why the row stored at position ``expected_seq`` is bad, or None if it is sound."""
    seq = row[0]
    if seq != expected_seq:
        if isinstance(seq, int) and seq > expected_seq:
            return Said("seq %(seq)s is missing (the next stored event is seq %(next)s)", seq=expected_seq, next=seq)
        return Said("seq %(seq)s is stored out of order or twice (found %(found)s)", seq=expected_seq, found=repr(seq))
    try:
        etype, data, at, by, key, prev, stored_hash = [
            value.decode("utf-8") if isinstance(value, bytes) else value for value in row[1:8]
        ]
    except UnicodeDecodeError:
        return Said("seq %(seq)s: stored text is not valid UTF-8 (the file was altered)", seq=seq)
    fmt = row[8]
    hasher = hash_function(fmt) if isinstance(fmt, int) else None
    if hasher is None:
        return Said("seq %(seq)s: unknown chain format %(format)s", seq=seq, format=repr(fmt))
    if prev != expected_prev:
        return _prev_is_not(seq)
    if set(map(type, (etype, data, at, by, prev, stored_hash))) != {str} or not (key is None or type(key) is str):
        return Said("seq %(seq)s: a stored field has the wrong type", seq=seq)
    try:
        decoded = _loads(data)
        canonical = canonical_json(decoded)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return Said("seq %(seq)s: data is not valid JSON (the event was altered)", seq=seq)
    if canonical != data.encode("utf-8"):
        return Said("seq %(seq)s: data is not in canonical form (the event was altered)", seq=seq)
    stored_private = row[9] if len(row) > 9 else None
    if fmt == 1 and stored_private is not None:
        return Said("seq %(seq)s: a format-1 event has private salts (the event was altered)", seq=seq)
    if fmt == 2 and stored_private is not None:
        try:
            salted = private_from_text(stored_private)
            canonical = canonical_json(committed_data(decoded, salted))
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, ValueError, UnicodeDecodeError):
            return Said("seq %(seq)s: its private salts do not fit its data (the event was altered)", seq=seq)
    if fmt in (1, 2):  # the data is canonical: splice the envelope around it, as appends do
        prefix, middle = envelope_prefix(at, by), envelope_middle(key, match_id, fmt)
        digest = spliced_hash(prev, prefix, canonical, middle, seq, _dumps(etype))
    else:
        digest = hasher(prev, match_id, seq, etype, decoded, at, by, key)
    if digest != stored_hash:
        return Said("seq %(seq)s: hash does not match the event's contents (the event was altered)", seq=seq)
    return None


DEFAULT_STATUS = "playing"
"""A new match's status until a check sets another (the service sets ``over`` or the like)."""


def check_append_args(match_id: object, by: object, expected_version: object, key: object) -> None:
    """Refuse malformed append arguments before a transaction starts."""
    if (
        type(match_id) is str
        and match_id != ""
        and type(by) is str
        and (expected_version is None or (type(expected_version) is int and expected_version >= 0))
        and (key is None or (type(key) is str and key != ""))
    ):
        return  # the common case in one expression (the append hot path)
    check_text("match_id", match_id)
    check_recorder(by)
    if expected_version is not None and (
        isinstance(expected_version, bool) or not isinstance(expected_version, int) or expected_version < 0
    ):
        raise ValueError(f"expected_version must be None or an int >= 0, got {expected_version!r}")
    if key is not None:
        check_text("key", key)


def check_players(players: object) -> tuple[str, ...]:
    """Return the players as a tuple, refusing a bare string or non-string names."""
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        raise TypeError(f"players must be a sequence of names, got {players!r}")
    names = tuple(players)
    for name in names:
        check_text("a player name", name)
    return names


def check_count(name: str, value: object) -> None:
    """Refuse a bound that is not an int >= 0 (bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")


def check_window(after: object, upto: object, limit: object) -> None:
    """Refuse a read window that cannot mean anything (negative or non-integer bounds)."""
    check_count("after", after)
    if upto is not None:
        check_count("upto", upto)
    if limit is not None:
        check_count("limit", limit)


def check_page(limit: object, offset: object) -> None:
    """Refuse a page request with negative or non-integer bounds."""
    check_count("limit", limit)
    check_count("offset", offset)


# --------------------------------------------------------------------------- imports


def imported_rows(match_id: str, events: Sequence[StoredEvent]) -> tuple[list[Row], VerifyReport]:
    """Turn events given whole (an archive being restored) into rows, and verify their chain.

    The rows are exactly what an append would have stored for them (canonical data text,
    the given seq, at, by, key, prev, hash, chain format and private salts), and the report says what the
    verifier would say of them: an import is refused unless it is valid. Each payload is
    encoded once and the hash spliced from the canonical pieces, as appends do; an event in
    a chain format other than the current one goes through :func:`verify_chain`.

    Raises:
        ValueError: no events, or an event of another match.
        TypeError: a payload that is not plain JSON.
    """
    if not events:
        raise ValueError("an imported match needs at least its match_started event")
    rows: list[Row] = []
    append = rows.append
    first_bad: int | None = None
    reason: str | None = None
    expected_prev = GENESIS
    other_format = False
    at = by = key = fmt = None  # the envelope of the previous event, and its prefix and middle:
    prefix = middle = b""  # a batch shares them, so they are encoded once per batch
    type_json: dict[str, bytes] = {}
    sha256, join = _sha256, b"".join
    for position, event in enumerate(events, 1):
        if event.match != match_id:
            raise ValueError(f"event {event.seq} belongs to match {event.match!r}, not {match_id!r}")
        salted = event.private
        if event.at != at or event.by != by or event.key != key or event.format != fmt:
            at, by, key, fmt = event.at, event.by, event.key, event.format
            check_recorder(by)
            prefix = envelope_prefix(at, by) if fmt in (1, 2) else b""
            middle = envelope_middle(key, match_id, fmt) if fmt in (1, 2) else b""
        data = canonical_json(event.data)
        seq, etype, prev, digest = event.seq, event.type, event.prev, event.hash
        append(
            (
                match_id,
                seq,
                etype,
                data.decode("utf-8"),
                at,
                by,
                key,
                prev,
                digest,
                fmt,
                private_text(salted) if salted else None,
            )
        )
        if first_bad is not None or other_format:
            continue
        if fmt != 1 and fmt != 2:
            other_format = True  # the verifier names it (an unknown chain format)
            continue
        committed = data
        if salted:
            try:
                committed = (
                    _spliced_commitments(data, event.data, salted) if _apart(salted) else None
                ) or canonical_json(committed_data(event.data, salted))
            except (KeyError, IndexError, TypeError, ValueError):
                first_bad, reason = position, Said("seq %(seq)s: its private salts do not fit its data", seq=position)
                continue
        encoded = type_json.get(etype)
        if encoded is None:
            encoded = type_json[etype] = _dumps(etype)
        if seq != position:
            first_bad, reason = (
                position,
                (
                    Said("seq %(seq)s is missing (the next event is seq %(next)s)", seq=position, next=seq)
                    if isinstance(seq, int) and seq > position
                    else Said("seq %(seq)s is out of order or twice (found %(found)s)", seq=position, found=seq)
                ),
            )
        elif prev != expected_prev:
            first_bad, reason = position, _prev_is_not(position)
        elif fmt == 1 and salted:
            first_bad, reason = (
                position,
                Said("seq %(seq)s: a format-1 event has private salts (the event was altered)", seq=position),
            )
        elif (
            sha256(
                join((prev.encode("ascii"), prefix, committed, middle, b"%d" % position, b',"type":', encoded, b"}"))
            ).hexdigest()
            != digest
        ):  # spliced_hash, inline: this runs for every imported event
            first_bad, reason = (
                position,
                Said("seq %(seq)s: hash does not match the event's contents (the event was altered)", seq=position),
            )
        expected_prev = digest
    if other_format:
        return rows, verify_chain(match_id, [row[1:] for row in rows], len(rows), rows[-1][8])
    return rows, VerifyReport(
        match=match_id, valid=first_bad is None, length=len(rows), head=rows[-1][8], first_bad=first_bad, reason=reason
    )


def ready_import(item: MatchImport) -> tuple[MatchImport, tuple[str, ...], list[Row], list[KeyRow]]:
    """Check an import's arguments and chain before any lock is taken; return what to insert:
    the item, its players, its rows and its idempotency rows (every backend imports these).

    Raises:
        ChainBroken: the given hashes do not recompute.
        ValueError, TypeError: bad arguments, no events, an event of another match.
    """
    check_text("match_id", item.match_id)
    check_text("game", item.game)
    check_text("token_hash", item.token_hash)
    names = check_players(item.players)
    rows, report = imported_rows(item.match_id, item.events)
    if not report.valid:
        raise ChainBroken(item.match_id, report.first_bad, report.reason or Said("the chain does not verify"))
    return item, names, rows, imported_keys(item.events)


def imported_keys(events: Sequence[StoredEvent]) -> list[KeyRow]:
    """Rebuild the idempotency rows of imported events: per key, (key, body hash, first, last seq, at).

    A key is used once per match, by one batch, so the events that carry it are that batch;
    a retry of it after a restore then replays instead of writing the batch twice.
    """
    batches: dict[str, list[StoredEvent]] = {}
    for event in events:
        if event.key is not None:
            batches.setdefault(event.key, []).append(event)
    out = []
    for key, batch in batches.items():
        digest = _sha256(canonical_json([{"type": e.type, "data": e.data} for e in batch])).hexdigest()
        out.append((key, digest, batch[0].seq, batch[-1].seq, batch[-1].at))
    return out


# --------------------------------------------------------------------------- listings


def verify_listing(
    match_id: str,
    envelopes: Iterable[Mapping[str, Any]],
    version: int | None = None,
    head: str | None = None,
) -> VerifyReport:
    """Recompute a match's chain from envelopes as an HTTP listing shows them (docs/HTTP.md "Chain formats").

    Works with nothing but the listing: a format-2 event whose private values are hidden
    is hashed with their placeholders as shown; one whose values are shown lists each
    value's salt and commitment under ``private``, and the value must match its commitment
    before the placeholder is put back and the hash checked. A format-1 event with hidden
    values cannot be checked from a listing (no commitment): it is reported as such.
    ``version``/``head`` are what the match's summary says, when known.
    """
    length = 0
    last_hash = GENESIS
    expected_prev = GENESIS
    first_bad: int | None = None
    reason: str | None = None
    for envelope in envelopes:
        length += 1
        stored = envelope.get("hash")
        last_hash = stored if isinstance(stored, str) else ""
        if first_bad is not None:
            continue
        problem = _check_envelope(match_id, length, expected_prev, envelope)
        if problem is not None:
            first_bad, reason = length, problem
            continue
        expected_prev = last_hash
    if first_bad is None:
        if length == 0:
            first_bad, reason = 1, Said("the listing has no events (seq 1 is missing)")
        elif version is not None and version != length:
            first_bad, reason = (
                min(version, length) + 1,
                Said(
                    "the match says version %(version)s but the listing has %(length)s events",
                    version=version,
                    length=length,
                ),
            )
        elif head is not None and head != last_hash:
            reason = Said("the match's head %(head)s is not the hash of seq %(seq)s", head=head, seq=length)
    return VerifyReport(
        match=match_id, valid=reason is None, length=length, head=last_hash, first_bad=first_bad, reason=reason
    )


def _check_envelope(match_id: str, expected_seq: int, expected_prev: str, envelope: Mapping[str, Any]) -> str | None:
    """Return why one listed envelope breaks the chain, or None."""
    seq = envelope.get("seq")
    if seq != expected_seq:
        return Said(
            "seq %(seq)s is missing or out of order in the listing (found %(found)s)", seq=expected_seq, found=repr(seq)
        )
    if envelope.get("match", match_id) != match_id:
        return Said("seq %(seq)s belongs to another match", seq=seq)
    if envelope.get("prev") != expected_prev:
        return _prev_is_not(seq)
    fmt = envelope.get("format", 1)
    etype, at, by, key, data = (envelope.get(k) for k in ("type", "at", "by", "key", "data"))
    if not (
        isinstance(etype, str)
        and isinstance(at, str)
        and isinstance(by, str)
        and isinstance(data, dict)
        and (key is None or isinstance(key, str))
    ):
        return Said("seq %(seq)s: a listed field has the wrong type", seq=seq)
    try:
        if fmt == 1:
            if _has_placeholder(data):
                return Said(
                    "seq %(seq)s: a format-1 event with hidden values has no commitment; it can be checked "
                    "once its values are shown (after the match, or with the write token)",
                    seq=seq,
                )
            digest = chain_hash(expected_prev, match_id, seq, etype, data, at, by, key)
        elif fmt == 2:
            committed: Any = data
            for item in envelope.get("private") or ():
                path, salt, promised = tuple(item["path"]), item["salt"], item["commitment"]
                value = value_at(committed, path)
                if is_placeholder(value):
                    return Said(
                        "seq %(seq)s: the value at %(path)s is listed with its salt but is still hidden",
                        seq=seq,
                        path=str(list(path)),
                    )
                if not isinstance(salt, str) or commitment(salt, value) != promised:
                    return Said(
                        "seq %(seq)s: the value at %(path)s does not match its commitment (value or salt altered)",
                        seq=seq,
                        path=str(list(path)),
                    )
                committed = with_value(committed, path, placeholder(promised))
            digest = chain_hash_v2(expected_prev, match_id, seq, etype, committed, at, by, key)
        else:
            return Said("seq %(seq)s: unknown chain format %(format)s", seq=seq, format=repr(fmt))
    except (KeyError, IndexError, TypeError, ValueError, UnicodeEncodeError):
        return Said("seq %(seq)s: its private values are not listed as path, salt and commitment", seq=seq)
    if digest != envelope.get("hash"):
        return Said("seq %(seq)s: hash does not match the event's contents (the event was altered)", seq=seq)
    return None


def _has_placeholder(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("private") is True or any(_has_placeholder(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_placeholder(v) for v in value)
    return False
