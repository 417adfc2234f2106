"""``engines.common.as_written``: the one way a refusal repeats a recorded value, in the words the recorder wrote."""

from __future__ import annotations

import pytest

from engines.written import SHORT, as_written
from tests.plain import machine_text


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("TH", "'TH'"),
        ("it's", "\u201cit's\u201d"),
        ("a\x00b\nc\x1b", "'abc'"),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (7, "7"),
        (1.0, "1.0"),
        ([3, 2], "[3,2]"),
        (("a", None), '["a",null]'),
        ({"seq": 3, "card": "??"}, '{"seq":3,"card":"??"}'),
        ([{"seat": False}], '[{"seat":false}]'),
        (["x\ty"], '["xy"]'),
    ],
)
def test_a_value_is_written_as_json_would_write_it(value: object, words: str) -> None:
    assert as_written(value) == words
    assert machine_text(f"{as_written(value)} is not a binding") == []


@pytest.mark.parametrize(
    "value",
    [
        "x" * 10_000_000,
        list(range(100_000)),
        {str(k): [k] * 50 for k in range(1000)},
        [[[[[[[[[[["deep"]]]]]]]]]]] * 1000,
        "\x00" * 500 + "late",
    ],
)
def test_a_long_value_is_cut_to_its_start(value: object) -> None:
    words = as_written(value)
    assert len(words) <= SHORT + 3 and words.endswith(("…", "…'"))


def test_a_value_just_short_enough_is_written_whole() -> None:
    assert as_written("x" * SHORT) == f"'{'x' * SHORT}'"
    assert as_written([1] * 19) == "[" + ",".join(["1"] * 19) + "]"  # 39 characters
