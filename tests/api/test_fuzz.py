"""schemathesis over every operation of /openapi.json, in-process on the WSGI app, on both backends.

Every operation runs against one SQLite file, then against one schema of the session's
throwaway PostgreSQL server (issue 26: zero 5xx on both; ``TANTEO_TEST_DB`` picks one), holding
a La Cabra match with a deal, and
most generated requests aim at that match with its write token, so the writes reach the
schemas, the rules and the ledger instead of stopping at 401/404. Valid and invalid data
(schemathesis' positive and negative modes) both run, derandomized so a failure repeats.
Checks: no 5xx, every status, content type and body as the document declares.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from api.openapi import EXAMPLES
from tests.conftest import stored_rows

EXAMPLES_PER_OPERATION = 30
"""Bounded so that the whole fuzz stays well under a minute on a shared 2-core machine."""


_FOLDER = tempfile.TemporaryDirectory(prefix="tanteo-fuzz-")  # removed when the interpreter exits
DB = Path(_FOLDER.name) / "fuzz.db"
APP = create_app(
    {"TANTEO_DB": str(DB), "TESTING": True, "TANTEO_STREAM_SECONDS": 0}
)  # a live stream answers what it has and ends
CONFIG = SchemathesisConfig.from_dict({"seed": 20261123, "generation": {"deterministic": True, "database": "none"}})


def _document() -> dict[str, Any]:
    """The served document, with the events of a batch narrowed to La Cabra's (the target's game).

    Everything else is the document as served; without the narrowing nearly every generated
    event belongs to another game and stops at its schema, so the rules and the ledger are
    never reached.
    """
    document: dict[str, Any] = APP.test_client().get("/openapi.json").get_json()
    events = document["components"]["schemas"]["AppendRequest"]["properties"]["events"]
    events["items"] = {"$ref": "#/components/schemas/la-cabra.event"}
    return document


# POST /matches/import takes files: archive lines that are (or are not quite) envelopes, and text.
schemathesis.openapi.media_type(
    "application/x-ndjson",
    st.lists(
        st.one_of(
            st.just(
                b'{"match":"m","seq":1,"type":"match_started","data":{},"at":"x","by":"","key":null,"prev":null,"hash":"0"}'
            ),
            st.binary(max_size=80),
        ),
        max_size=4,
    ).map(b"\n".join),
)
schemathesis.openapi.media_type(
    "text/plain",
    st.one_of(
        st.just(b'[Game "la-cabra"]\n[Players "N" "E" "S" "W"]\n2. hand_started dealer=0\n'), st.binary(max_size=120)
    ),
)

# Loaded at import: schemathesis' lazy fixture loader does not work with this pytest (9.2).
schema = schemathesis.openapi.from_dict(_document(), config=CONFIG)
schema.app, schema.location = APP, "/openapi.json"  # in-process calls through the WSGI app, as from_wsgi does
_turn = itertools.count()


BACKENDS = {"sqlite": ("sqlite",), "postgres": ("postgres",)}.get(
    os.environ.get("TANTEO_TEST_DB", ""), ("sqlite", "postgres")
)


@dataclass(frozen=True)
class Target:
    """The match the fuzzer writes to, its token, and the database it is stored in."""

    id: str
    token: str
    app: Any
    """The backend's app: each call is sent to it (an operation keeps the app it was loaded with)."""
    rows: Callable[[], list[tuple[Any, ...]]]
    """Every stored event row, read straight from the database."""


@pytest.fixture(scope="module", params=BACKENDS)
def target(request: pytest.FixtureRequest) -> Any:
    """The backend's app (the one schemathesis calls) and the match it aims at."""
    if request.param == "postgres":
        db: Path | str = request.getfixturevalue("postgres_server").new_url("fuzz")
        app = create_app({"TANTEO_DB": db, "TESTING": True, "TANTEO_STREAM_SECONDS": 0})
    else:
        db, app = DB, APP
    client = app.test_client()
    start, events = EXAMPLES["la-cabra"]
    created = client.post("/matches", json=start).get_json()
    response = client.post(
        f"/matches/{created['id']}/events",
        json={"events": events[:4]},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert response.status_code == 201
    if isinstance(db, str):  # one connection for the whole fuzz: a new one per case cost a third of its time
        with psycopg.connect(db, autocommit=True) as reader:
            yield Target(
                created["id"],
                created["token"],
                app,
                lambda: [
                    tuple(row) for row in reader.execute("SELECT match_id, seq, hash, prev FROM events ORDER BY id")
                ],
            )
            assert len(stored_rows(db)) > 5, "the fuzzer's writes never reached this backend"  # the start and the deal
        app.extensions["tanteo.ledgers"].close()
    else:
        yield Target(created["id"], created["token"], app, lambda: stored_rows(db))
        assert len(stored_rows(db)) > 5, "the fuzzer's writes never reached this backend"


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_holds_under_fuzzing(case: Any, target: Target) -> None:
    turn = next(_turn)
    if "match_id" in (case.path_parameters or {}) and turn % 4:
        case.path_parameters["match_id"] = target.id  # three in four aim at the real match
        if turn % 2 and case.method == "POST":  # and half of those writes expect no particular version
            case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "if-match"}
            if isinstance(case.body, dict):
                case.body.pop("expectedVersion", None)
    # identity: the in-process client does not undo compression (tests/api/test_page_renderings.py covers it)
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {target.token}", "Accept-Encoding": "identity"}
    before = target.rows()
    response = case.call(app=target.app)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
            negative_data_rejection,
        ],
    )
    after = target.rows()
    if response.status_code >= 400:
        assert after == before, "an error wrote something"
    else:
        assert after[: len(before)] == before, "the log changed under an earlier event"
