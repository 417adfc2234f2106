"""Reading archive lines: the fast check of a plain envelope never lets in what the envelope schema refuses.

A 100k-line restore checks each line in one pass (``replays.archive._plain_fields``) and sends
anything unusual to the JSON Schema, which decides and explains. Here every envelope of a set
of damaged ones is read both ways (as bytes and as text, as a file and a request body hand
them): a line is taken exactly when the schema takes it.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from replays.archive import read_archive
from schemas import SchemaError, validate_envelope

AT = "2026-11-21T17:03:05.123Z"
PLAIN: dict[str, Any] = {
    "match": "q3Xk9aB7_-Zp",
    "seq": 2,
    "type": "discard",
    "data": {"seat": 1, "cards": ["7D"]},
    "at": AT,
    "by": "Ana",
    "key": None,
    "prev": "0" * 64,
    "hash": "a" * 64,
    "format": 2,
    "private": [{"path": ["cards"], "salt": "0123456789abcdef" * 2, "commitment": "b" * 64}],
}


def changed(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    envelope = copy.deepcopy(PLAIN)
    node = envelope
    for step in path[:-1]:
        node = node[step]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return envelope


DAMAGED = [
    changed(("seq",), 0),
    changed(("seq",), "2"),
    changed(("seq",), True),
    changed(("seq",), 2.0),
    changed(("type",), 7),
    changed(("data",), ["7D"]),
    changed(("by",), None),
    changed(("key",), 5),
    changed(("prev",), None),
    changed(("hash",), 1),
    changed(("format",), 3),
    changed(("format",), True),
    changed(("format",), KeyError),
    changed(("at",), "2026-11-21 17:03:05"),
    changed(("at",), "2026-13-21T17:03:05.123Z"),
    changed(("at",), AT[:-1]),
    changed(("at",), 5),
    changed(("extra",), 1),
    changed(("hash",), KeyError),
    changed(("private",), []),
    changed(("private",), {}),
    changed(("private", 0, "salt"), "0123456789ABCDEF" * 2),
    changed(("private", 0, "salt"), "0" * 31),
    changed(("private", 0, "salt"), " " + "0" * 31),
    changed(("private", 0, "commitment"), "b" * 63 + "g"),
    changed(("private", 0, "path"), []),
    changed(("private", 0, "path"), [True]),
    changed(("private", 0, "path"), ["x" * 65]),
    changed(("private", 0, "path"), [-1]),
    changed(("private", 0, "extra"), 1),
    changed(("private", 0, "salt"), KeyError),
    changed(("private", 0), "cards"),
]


def schema_takes(envelope: dict[str, Any]) -> bool:
    try:
        validate_envelope(envelope)
    except SchemaError:
        return False
    return True


@pytest.mark.parametrize("envelope", [PLAIN, changed(("private",), KeyError), *DAMAGED])
@pytest.mark.parametrize("as_bytes", [True, False])
def test_a_line_is_taken_exactly_when_the_envelope_schema_takes_it(envelope: dict[str, Any], as_bytes: bool) -> None:
    line = orjson.dumps(envelope)
    matches, errors = read_archive([line if as_bytes else line.decode()])
    taken = bool(matches)
    assert taken == schema_takes(envelope), envelope
    if taken:
        (event,) = matches[0].events
        fields = ("match", "seq", "type", "data", "at", "by", "key", "prev", "hash")
        assert [getattr(event, f) for f in fields] == [envelope[f] for f in fields]
        assert event.format == envelope.get("format", 1)
        assert event.private == tuple((tuple(p["path"]), p["salt"]) for p in envelope.get("private") or ())
    else:
        assert [(e.line, e.code, e.match) for e in errors] == [(1, "archive.bad_envelope", "q3Xk9aB7_-Zp")]


def test_a_time_is_checked_on_every_line_even_after_the_same_batch_was_taken() -> None:
    good = orjson.dumps(PLAIN)
    bad = orjson.dumps(changed(("at",), "2026-11-21T25:03:05.123Z"))
    matches, errors = read_archive([good, bad, good, bad])
    assert [m.lines for m in matches] == [(1, 3)] and [e.line for e in errors] == [2, 4]


def test_bytes_that_are_not_utf8_are_read_as_text_was() -> None:
    line = orjson.dumps(changed(("by",), "Ana")).replace(b'"Ana"', b'"A\xffa"')
    for raw in (line, line.decode("utf-8", "replace")):
        matches, errors = read_archive([raw, b"   \n", "", b"{broken"])
        assert matches[0].events[0].by == "A\ufffda"  # the chain check that follows refuses it, at its line
        assert [(e.line, e.code) for e in errors] == [(4, "archive.bad_json")]
