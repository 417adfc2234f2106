"""The values, the canonical JSON and the chain hash, checked against independent code.

The hash format is a promise to anyone who re-verifies an exported log, so it is pinned
against a second implementation written here with the standard library only.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ledger
from ledger import (
    CHAIN_FORMAT,
    GENESIS,
    ConcurrencyConflict,
    IdempotencyConflict,
    LedgerError,
    MatchExists,
    MatchNotFound,
    MemoryLedger,
    NewEvent,
    SqliteLedger,
    StoredEvent,
    canonical_json,
    chain_hash,
    open_ledger,
    verify_file,
)
from ledger._core import (
    body_hash,
    chain_batch,
    envelope_middle,
    envelope_prefix,
    prepare,
    spliced_hash,
    verify_chain,
)
from ledger.records import AppendResult, append_result, chain_hash_v2, stored_event, utc_now


def stdlib_json(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def stdlib_chain_hash(prev: str, **fields: Any) -> str:
    return hashlib.sha256(prev.encode() + stdlib_json(fields)).hexdigest()


# -- canonical JSON ------------------------------------------------------------------------

UNICODE_AND_NESTED = [
    {"text": "Ñandú ♠♥♦♣ 🂡 café", "emoji": "🃏", "cjk": "牌"},
    {"ctrl": 'tab\there\nnew "quoted" back\\slash \x01 \x1f \x7f', "sep": "\u2028\u2029"},
    {"z": 1, "a": {"y": [3, 2, {"b": None, "a": True}], "x": []}, "m": {}, "é": "accent key"},
    {"cards": ["7D", "??", "10H", "Jo"], "seat": 0, "big": 2**62, "neg": -(2**63)},
    [1, "two", [3, [4, [5]]], {"k": False}],
    "just a string",
    12,
    None,
]


@pytest.mark.parametrize("value", UNICODE_AND_NESTED)
def test_canonical_json_equals_the_stdlib_form(value: Any) -> None:
    assert canonical_json(value) == stdlib_json(value)


def test_canonical_json_sorts_by_code_point_and_keeps_non_ascii() -> None:
    out = canonical_json({"b": 1, "a": 2, "é": 3, "Z": 4, "ä": 5})
    assert out == '{"Z":4,"a":2,"b":1,"ä":5,"é":3}'.encode()
    assert "♠".encode() in canonical_json({"suit": "♠"})  # not \u2660


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"]), max_size=8), children, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_canonical_json_equals_the_stdlib_form_for_any_json(value: Any) -> None:
    assert canonical_json(value) == stdlib_json(value)
    assert json.loads(canonical_json(value)) == value


def test_canonical_json_writes_tuples_as_arrays() -> None:
    assert canonical_json({"t": (1, 2)}) == b'{"t":[1,2]}'


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (float("nan"), ValueError),
        ({"a": [None, {"b": float("-inf")}]}, ValueError),
        ({"when": __import__("datetime").date(2026, 1, 1)}, TypeError),
        ({3: "int key"}, TypeError),
        ({"n": 2**64}, TypeError),
        ({"p": Path("/tmp")}, TypeError),
    ],
)
def test_canonical_json_refuses_what_json_cannot_say(value: Any, error: type) -> None:
    with pytest.raises(error):
        canonical_json(value)


def test_canonical_json_allows_none_beside_finite_floats() -> None:
    assert canonical_json({"a": None, "b": 0.5}) == b'{"a":null,"b":0.5}'


# -- the chain -----------------------------------------------------------------------------


def test_chain_hash_is_sha256_of_prev_and_the_canonical_envelope() -> None:
    fields: dict[str, Any] = dict(
        match="m1",
        seq=2,
        type="play",
        data={"seat": 1, "card": "7♦"},
        at="2026-11-21T17:03:05.123Z",
        by="Ben",
        key=None,
    )
    expected = stdlib_chain_hash(GENESIS, **fields)
    assert chain_hash(GENESIS, **fields) == expected
    # A known answer, so a silent change of the format fails here and not in the field.
    assert chain_hash("1" * 64, "m", 1, "t", {}, "2026-01-01T00:00:00.000Z", "b", "k") == (
        stdlib_chain_hash("1" * 64, match="m", seq=1, type="t", data={}, at="2026-01-01T00:00:00.000Z", by="b", key="k")
    )
    assert CHAIN_FORMAT == 2 and GENESIS == "0" * 64
    # Format 2 adds "format": 2 to the hashed envelope (data holds placeholders for private values).
    assert chain_hash_v2(GENESIS, **fields) == stdlib_chain_hash(GENESIS, **fields, format=2)


def test_every_field_changes_the_hash() -> None:
    base = dict(
        prev=GENESIS, match="m", seq=1, type="play", data={"c": "7D"}, at="2026-11-21T17:03:05.123Z", by="Ben", key="k"
    )
    reference = chain_hash(**base)  # type: ignore[arg-type]
    changes = dict(
        prev="f" * 64,
        match="n",
        seq=2,
        type="note",
        data={"c": "7E"},
        at="2026-11-21T17:03:05.124Z",
        by="Bea",
        key=None,
    )
    for name, value in changes.items():
        assert chain_hash(**{**base, name: value}) != reference, name  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(
    data=st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
    etype=st.text(min_size=1, max_size=12),
    by=st.text(min_size=1, max_size=8),
    key=st.none() | st.text(min_size=1, max_size=8),
    version=st.integers(min_value=0, max_value=10**6),
)
def test_the_spliced_hot_path_hash_equals_chain_hash(
    data: dict[str, Any], etype: str, by: str, key: str | None, version: int
) -> None:
    prepared = prepare([NewEvent(etype, data), NewEvent("note", {"n": 1})])
    events, rows = chain_batch("match-é", version, GENESIS, prepared, at="2026-11-21T17:03:05.123Z", by=by, key=key)
    prev = GENESIS
    for event, row in zip(events, rows, strict=True):
        assert event.hash == stdlib_chain_hash(
            prev,
            match=event.match,
            seq=event.seq,
            type=event.type,
            data=event.data,
            at=event.at,
            by=event.by,
            key=event.key,
            format=2,
        )
        assert row[3] == stdlib_json(event.data).decode() and row[9] == CHAIN_FORMAT
        prev = event.hash
    assert [e.seq for e in events] == [version + 1, version + 2]


@settings(max_examples=100, deadline=None)
@given(
    data=st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
    etype=st.text(min_size=1, max_size=12),
    at=st.text(max_size=30),
    by=st.text(max_size=8),
    key=st.none() | st.text(min_size=1, max_size=8),
    match=st.text(min_size=1, max_size=10),
    seq=st.integers(min_value=1, max_value=2**62),
)
def test_verify_hashes_each_row_by_splicing_as_chain_hash_would(
    data: dict[str, Any], etype: str, at: str, by: str, key: str | None, match: str, seq: int
) -> None:
    """verify splices every row's own at/by/key around its stored canonical data."""
    text = stdlib_json(data)
    expected = stdlib_chain_hash(GENESIS, match=match, seq=seq, type=etype, data=data, at=at, by=by, key=key)
    pieces = (envelope_prefix(at, by), text, envelope_middle(key, match), seq, stdlib_json(etype))
    assert spliced_hash(GENESIS, *pieces) == expected == chain_hash(GENESIS, match, seq, etype, data, at, by, key)
    first = stdlib_chain_hash(GENESIS, match=match, seq=1, type=etype, data=data, at=at, by=by, key=key)
    row = (1, etype, text.decode(), at, by, key, GENESIS, first, 1)
    assert verify_chain(match, [row], 1, first).valid
    assert not verify_chain(match, [(*row[:3], at + "x", *row[4:])], 1, first).valid


def test_body_hash_binds_type_and_data_in_order() -> None:
    batch = [NewEvent("play", {"seat": 1, "card": "7D"}), NewEvent("note", {"text": "ñ"})]
    body = [{"type": e.type, "data": e.data} for e in batch]
    assert body_hash(prepare(batch)) == hashlib.sha256(stdlib_json(body)).hexdigest()
    assert body_hash(prepare(batch)) != body_hash(prepare(batch[::-1]))


def test_the_fast_builders_equal_the_dataclasses() -> None:
    fields = ("m", 3, "play", {"a": 1}, "2026-11-21T17:03:05.123Z", "b", None, "p" * 64, "h" * 64)
    fast, slow = stored_event(*fields), StoredEvent(*fields)
    assert fast == slow and repr(fast) == repr(slow) and type(fast) is StoredEvent
    with pytest.raises(AttributeError):
        fast.seq = 4  # type: ignore[misc]
    result = append_result(3, "h" * 64, (fast,), True)
    assert result == AppendResult(3, "h" * 64, (slow,), replayed=True)
    assert repr(result) == repr(AppendResult(3, "h" * 64, (slow,), True))


def test_utc_now_is_iso_8601_utc_with_milliseconds() -> None:
    import datetime as dt

    stamp = utc_now()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", stamp)
    parsed = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert abs((dt.datetime.now(dt.UTC) - parsed).total_seconds()) < 5


def test_new_event_refuses_wrong_shapes() -> None:
    with pytest.raises(ValueError):
        NewEvent("", {})
    with pytest.raises(ValueError):
        NewEvent(None, {})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        NewEvent("play", ["not", "a", "dict"])  # type: ignore[arg-type]


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "mentions"),
    [
        (MatchNotFound("m1"), ("'m1'", "not found")),
        (MatchExists("m1"), ("'m1'", "already exists")),
        (ConcurrencyConflict(3, 5, match_id="m1"), ("'m1'", "version 3", "version 5")),
        (ConcurrencyConflict(3, 5), ("version 3", "version 5")),
        (IdempotencyConflict("req-9", match_id="m1"), ("'req-9'", "'m1'", "different events")),
    ],
)
def test_errors_are_ledger_errors_that_read_well_and_pickle(error: LedgerError, mentions: tuple[str, ...]) -> None:
    assert isinstance(error, LedgerError)
    for words in mentions:
        assert words in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error) and vars(copy) == vars(error)


# -- opening by URL, verifying a file ------------------------------------------------------


def test_open_ledger_forms(tmp_path: Path) -> None:
    assert isinstance(open_ledger("memory:"), MemoryLedger)
    with open_ledger(str(tmp_path / "a.db")) as book:
        assert isinstance(book, SqliteLedger)
    with open_ledger(tmp_path / "b.db") as book:
        assert isinstance(book, SqliteLedger)
    with open_ledger(f"sqlite:///{tmp_path}/c.db") as book:  # tmp_path is absolute: 4 slashes
        assert isinstance(book, SqliteLedger) and Path(book.path) == tmp_path / "c.db"
    assert (tmp_path / "c.db").exists()


@pytest.mark.parametrize("bad", ["", "sqlite://relative.db", "sqlite:///", "memory:x", "mysql://h"])
def test_open_ledger_refuses_other_locations(bad: str) -> None:
    """(postgresql:// URLs open a PostgresLedger: tests/ledger/test_ledger_postgres.py.)"""
    with pytest.raises(ValueError) as error:
        open_ledger(bad)
    assert "memory:" in str(error.value) and "sqlite:///" in str(error.value)


def test_verify_file_never_creates_a_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "x.db"
    with pytest.raises(LedgerError):
        verify_file(missing)
    assert not missing.exists() and not missing.parent.exists()


def test_package_exports_the_interface() -> None:
    for name in ledger.__all__:
        assert hasattr(ledger, name), name


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (the value itself excluded)."""
    out = []
    items = enumerate(value) if isinstance(value, list) else value.items() if isinstance(value, dict) else ()
    for step, child in items:
        out.append((*path, step))
        out.extend(_places(child, (*path, step)))
    return out


@settings(max_examples=300)
@given(data=st.dictionaries(st.text(max_size=4), JSON_VALUES, min_size=1, max_size=5), pick=st.data())
def test_the_one_pass_verify_commits_private_values_as_the_writer_did(
    data: dict[str, Any], pick: st.DataObject
) -> None:
    """Whatever private places an event has (nested, repeated values, null, numbers inside other
    numbers), verify's spliced commitments hash the same bytes as the writer's re-encoding; and
    committed_data equals replacing the values one by one."""
    from ledger._core import _spliced_commitments, private_from_text, private_text
    from ledger.records import commitment, committed_data, placeholder, value_at, with_value

    places = sorted(set(_places(data)), key=len)
    chosen = pick.draw(st.lists(st.sampled_from(places), max_size=3, unique=True))
    chosen = [p for p in chosen if not any(p[: len(q)] == q for q in chosen if q != p)]  # none inside another
    salted = tuple((p, f"{i:032x}") for i, p in enumerate(chosen))
    one_by_one: Any = data
    for path, salt in salted:
        one_by_one = with_value(one_by_one, path, placeholder(commitment(salt, value_at(one_by_one, path))))
    assert committed_data(data, salted) == one_by_one
    text = canonical_json(data)
    spliced = _spliced_commitments(text, json.loads(text), salted)
    assert spliced is None or spliced == canonical_json(one_by_one)
    first = chain_hash_v2(GENESIS, "m", 1, "deal", one_by_one, "t", "b", None)
    row = (1, "deal", text.decode(), "t", "b", None, GENESIS, first, 2, private_text(salted) if salted else None)
    events: list[Any] = []
    assert verify_chain("m", [row], 1, first, events).valid
    assert events[0].data == data and events[0].private == private_from_text(row[9])
    raw = tuple(v.encode() if isinstance(v, str) else v for v in row)  # as SQLite hands them to verify
    second = chain_hash_v2(first, "m", 2, "deal", one_by_one, "t", "b", None)
    raw_two = (raw, (2, *raw[1:6], first.encode(), second.encode(), *raw[8:]))
    assert verify_chain("m", raw_two, 2, second).valid
    flipped = bytes([text[-2] ^ 0x01])
    altered = (raw, (2, raw[1], text[:-2] + flipped + text[-1:], *raw[3:6], first.encode(), second.encode(), *raw[8:]))
    report = verify_chain("m", altered, 2, second)
    assert not report.valid and report.first_bad == 2


@settings(max_examples=300)
@given(data=st.dictionaries(st.text(max_size=4), JSON_VALUES, min_size=1, max_size=5), pick=st.data())
def test_appends_and_imports_commit_private_values_as_one_by_one_replacement_does(
    data: dict[str, Any], pick: st.DataObject
) -> None:
    """Whatever private places an event has (apart, one inside another, values repeated elsewhere
    in the data), an import hashes and an append commits the bytes of the data with each value
    replaced by its placeholder: spliced into the canonical bytes where the places lie apart,
    re-encoded otherwise; a wrong hash is refused."""
    from ledger._core import imported_rows
    from ledger.records import committed_data, stored_event

    places = sorted(set(_places(data)), key=len)
    chosen = pick.draw(st.lists(st.sampled_from(places), max_size=3, unique=True)) if places else []
    salted = tuple((p, f"{i + 7:032x}") for i, p in enumerate(chosen))
    try:
        committed = committed_data(data, salted)
    except (KeyError, IndexError, TypeError):
        return  # a place inside one already hidden: the writer refuses such an event too
    digest = chain_hash_v2(GENESIS, "m", 1, "deal", committed, "t", "b", None)
    event = stored_event("m", 1, "deal", data, "t", "b", None, GENESIS, digest, 2, salted)
    rows, report = imported_rows("m", [event])
    assert report.valid, report.reason
    assert rows[0][3] == canonical_json(data).decode()
    wrong = stored_event("m", 1, "deal", data, "t", "b", None, GENESIS, "0" * 64, 2, salted)
    assert not imported_rows("m", [wrong])[1].valid
    from ledger._core import prepare

    ((_, _, text, _, drawn, written),) = prepare([NewEvent("deal", data, private=tuple(chosen))])
    assert [p for p, _ in drawn] == list(chosen) and text == canonical_json(data).decode()
    assert written == canonical_json(committed_data(data, drawn))  # an append commits the same way
