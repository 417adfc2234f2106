"""Every error response any test provokes is checked for words a player can read.

The check wraps the test client's ``open`` (the real app answers; only the answer is read):
a response with status 400 or more must not hold a regular expression, a jsonschema stock
phrase or a Python repr anywhere in its JSON, and no response holds ``\\u`` escapes (JSON is
sent as UTF-8 text).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient

from tests.plain import machine_text

ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}")


def check_response(response: Any) -> None:
    """Fail when an error body reads like code, or any JSON body escapes non-ASCII text."""
    if not (response.mimetype or "").endswith("json") or response.is_streamed:
        return
    text = response.get_data(as_text=True)
    assert not ESCAPE.search(text), f"escaped text in {response.status}: {text[:300]}"
    if response.status_code >= 400:
        bad = machine_text(json.loads(text))
        assert not bad, f"{response.status} reads like code: {bad}"


@pytest.fixture(autouse=True)
def plain_errors(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    opened = FlaskClient.open

    def open_and_check(self: FlaskClient, *args: Any, **kwargs: Any) -> Any:
        response = opened(self, *args, **kwargs)
        check_response(response)
        return response

    monkeypatch.setattr(FlaskClient, "open", open_and_check)
    yield
