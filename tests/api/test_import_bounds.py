"""Bounded imports (issue 26 item 2): ``POST /matches/import`` lists the first 100 errors and counts
the rest in words, stops past its time budget saying what it stored, runs one at a time per
server process (503 ``import.busy`` with Retry-After) and, when the server has an import key
(``TANTEO_IMPORT_KEY``), needs it. Every refusal is problem+json with a stable code.
The memory an import costs is measured on a real server in tests/server/test_import_memory.py."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask

from api.app import DEFAULT_IMPORT_SECONDS, create_app
from api.service import transfer

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}
NDJSON = "application/x-ndjson"


def exported_text(client: Any) -> bytes:
    created = client.post("/matches", json=START).get_json()
    return client.get(f"/matches/{created['id']}/export", query_string={"format": "text"}).data  # type: ignore[no-any-return]


def exported_archive(client: Any) -> bytes:
    created = client.post("/matches", json=START).get_json()
    return client.get(
        f"/matches/{created['id']}/export",
        query_string={"format": "jsonl"},
        headers={"Authorization": f"Bearer {created['token']}"},
    ).data  # type: ignore[no-any-return]


@pytest.fixture
def configured(db_path: Path | str) -> Iterator[Any]:
    apps: list[Flask] = []

    def make(**config: Any) -> Flask:
        app = create_app({"TANTEO_DB": str(db_path), "TESTING": True, **config})
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["tanteo.ledgers"].close()


def test_a_file_of_broken_lines_lists_the_first_100_errors_and_counts_the_lines_left_unread(client: Any) -> None:
    """Past 100 errors with not one line read as an event, the body is no archive: the lines
    left are counted, not parsed (5 MB of them took 5 s), and the answer says so in words."""
    response = client.post("/matches/import", data=b"{}\n" * 5000 + b"not json\n" * 10, content_type=NDJSON)
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "import.nothing_imported"
    assert [e["line"] for e in body["errors"]] == list(range(1, 101))
    assert body["moreErrors"] == 1  # line 101: the report was full, and nothing had been read
    assert body["unreadLines"] == 4909
    assert "4,909 lines (from line 102 on) were not read" in body["unreadLinesDetail"]
    assert "4,909 lines" in body["detail"]
    assert len(response.data) < 64 * 1024
    assert client.get("/matches").get_json()["total"] == 0


def test_the_errors_listed_are_the_first_in_the_file_beside_the_matches_read(client: Any, tmp_path: Path) -> None:
    good = exported_archive(client)
    junk = [b"[%d]" % n for n in range(300)]
    body = b"\n".join(junk[:50]) + b"\n" + good + b"\n".join(junk[50:]) + b"\n"
    other = create_app({"TANTEO_DB": str(tmp_path / "other.db"), "TESTING": True})
    response = other.test_client().post("/matches/import", data=body, content_type=NDJSON)
    other.extensions["tanteo.ledgers"].close()
    report = response.get_json()
    assert response.status_code == 201 and len(report["imported"]) == 1 and report["imported"][0]["lines"][0] == 51
    after = 51 + good.count(b"\n")  # the first junk line after the match
    assert [e["line"] for e in report["errors"]] == list(range(1, 51)) + list(range(after, after + 50))
    assert report["moreErrors"] == 200 and "unreadLines" not in report  # a match was read: every line is


def test_an_archive_that_opens_with_more_than_100_errors_is_read_no_further(client: Any, tmp_path: Path) -> None:
    """The price of not parsing a junk body to its end: a sound match after 100 refused lines
    and nothing else is not reached; the answer says how many lines were not read."""
    good = exported_archive(client)
    junk = b"\n".join(b"[%d]" % n for n in range(300))
    other = create_app({"TANTEO_DB": str(tmp_path / "other.db"), "TESTING": True})
    response = other.test_client().post("/matches/import", data=junk + b"\n" + good, content_type=NDJSON)
    stored = other.test_client().get("/matches").get_json()["total"]
    other.extensions["tanteo.ledgers"].close()
    report = response.get_json()
    assert response.status_code == 422 and report["imported"] == [] and stored == 0
    assert report["moreErrors"] == 1 and report["unreadLines"] == 300 - 101 + good.count(b"\n")


def test_text_errors_are_bounded_too_and_junk_is_read_no_further(client: Any) -> None:
    """Past 100 errors with nothing imported the text is no Tanteo record: the reading stops after
    the match that brought the 101st error, and the lines left are counted, not read."""
    block = '[Game "junk"]\n[Players "a" "b"]\n2. play card=ZZ\n'
    response = client.post("/matches/import", data=(block * 500).encode(), content_type="text/plain")
    body = response.get_json()
    assert response.status_code == 422 and body["code"] == "import.nothing_imported"
    assert len(body["errors"]) == 100 and body["moreErrors"] == 1
    assert body["errors"][0]["line"] == 1 and "'junk' is not a game" in body["errors"][0]["message"]
    assert body["unreadLines"] == 3 * (500 - 101)
    assert body["unreadLinesDetail"].startswith("the file's last 1,197 lines (from line 304 on) were not read")
    assert body["unreadLinesDetail"] in body["detail"]


def test_a_text_import_that_starts_a_match_reads_the_whole_file(client: Any) -> None:
    """The early stop is for junk only: once a match was imported, every later error is read and counted."""
    block = '[Game "junk"]\n[Players "a" "b"]\n2. play card=ZZ\n'
    text = exported_text(client) + b"2. note {its own event: the junk tags below start other matches}\n"
    text += (block * 200).encode()
    body = client.post("/matches/import", data=text, content_type="text/plain").get_json()
    assert len(body["imported"]) == 1 and body["moreErrors"] == 100 and "unreadLines" not in body


def test_a_text_without_tags_is_read_no_further_than_1000_lines(client: Any) -> None:
    """No [Game] tag in the first 1,000 lines: not the notation; the rest is counted, not read."""
    response = client.post("/matches/import", data=b"play card=ZZ x=[1 2]\n" * 5000, content_type="text/plain")
    body = response.get_json()
    assert response.status_code == 422 and body["code"] == "import.nothing_imported"
    codes = [(e["line"], e["code"]) for e in body["errors"]]
    assert codes == [(1, "notation.no_tags"), (1001, "notation.not_notation")]
    assert "no match tags" in body["errors"][1]["message"] and body["unreadLines"] == 4000


def test_a_report_without_more_errors_has_no_more_errors_field(client: Any) -> None:
    body = client.post("/matches/import", data=exported_text(client), content_type="text/plain").get_json()
    assert body["errors"] == [] and "moreErrors" not in body and len(body["imported"]) == 1


def test_past_the_time_budget_the_import_stops_and_says_what_it_stored(
    configured: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = configured(TANTEO_IMPORT_SECONDS=0.5)
    client = app.test_client()
    text = exported_text(client)
    clock = iter(range(0, 10_000, 1))  # every look at the clock is a second later: the 2nd match runs out
    monkeypatch.setattr(transfer.time, "monotonic", lambda: float(next(clock)))
    response = client.post("/matches/import", data=text + b"\n" + text + b"\n" + text, content_type="text/plain")
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "import.time_limit"
    assert "0.5 seconds, the longest an import may take on this server" in body["detail"]
    assert "split the file" in body["detail"]
    assert all("token" in m for m in body["imported"])  # what was stored is said, with its token
    monkeypatch.undo()
    archive = exported_archive(client)
    clock = iter(range(0, 10_000, 1))
    monkeypatch.setattr(transfer.time, "monotonic", lambda: float(next(clock)))
    response = client.post("/matches/import", data=archive * 3, content_type=NDJSON)
    assert response.status_code == 422 and response.get_json()["code"] == "import.time_limit"


def test_the_time_budget_is_60_seconds_and_set_by_the_environment(
    configured: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert configured().config["TANTEO_IMPORT_SECONDS"] == DEFAULT_IMPORT_SECONDS == 60
    monkeypatch.setenv("TANTEO_IMPORT_SECONDS", "7.5")
    assert configured().config["TANTEO_IMPORT_SECONDS"] == 7.5
    for wrong in ("0", "-3", "soon", "inf"):
        monkeypatch.setenv("TANTEO_IMPORT_SECONDS", wrong)
        with pytest.raises(ValueError, match="TANTEO_IMPORT_SECONDS"):
            configured()


def test_a_second_import_while_one_runs_is_503_busy_with_retry_after(client: Any) -> None:
    text = exported_text(client)
    running = client.application.extensions["tanteo.import"]
    assert running.acquire(blocking=False)  # an import is running in this process
    try:
        response = client.post("/matches/import", data=text, content_type="text/plain")
    finally:
        running.release()
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "import.busy" and "one import runs at a time" in body["detail"]
    assert response.headers["Retry-After"] == "10"
    assert client.post("/matches/import", data=text, content_type="text/plain").status_code == 201  # free again


def test_two_imports_at_once_from_two_threads_one_is_busy(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two requests in flight (as two of the server's threads): the second is answered at once."""
    text = exported_text(client)
    inside, release = threading.Event(), threading.Event()
    real = transfer.import_text

    def slow(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(transfer, "import_text", slow)
    first: list[Any] = []
    worker = threading.Thread(
        target=lambda: first.append(
            client.application.test_client().post("/matches/import", data=text, content_type="text/plain")
        )
    )
    worker.start()
    assert inside.wait(10)
    second = client.post("/matches/import", data=text, content_type="text/plain")
    release.set()
    worker.join(10)
    assert second.status_code == 503 and second.get_json()["code"] == "import.busy"
    assert first[0].status_code == 201


def test_a_lock_is_let_go_after_a_refusal(client: Any) -> None:
    assert client.post("/matches/import", data=b"\x1f\x8b\x08junk", content_type=NDJSON).status_code == 415
    assert client.post("/matches/import", data=b"x", content_type="application/pdf").status_code == 415
    assert client.post("/matches/import", data=b"x", content_type="text/plain; charset=nonesuch").status_code == 415
    assert client.application.extensions["tanteo.import"].acquire(blocking=False)


def test_with_an_import_key_an_import_needs_it(configured: Any) -> None:
    app = configured(TANTEO_IMPORT_KEY="club-secret-2026")
    client = app.test_client()
    text = exported_text(client)
    missing = client.post("/matches/import", data=text, content_type="text/plain")
    assert missing.status_code == 401 and missing.get_json()["code"] == "auth.missing"
    assert "import key" in missing.get_json()["detail"] and missing.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = client.post(
        "/matches/import", data=text, content_type="text/plain", headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "auth.wrong"
    assert wrong.get_json()["detail"] == "this is not the server's import key"
    right = client.post(
        "/matches/import", data=text, content_type="text/plain", headers={"Authorization": "Bearer club-secret-2026"}
    )
    assert right.status_code == 201
    assert client.get("/matches").get_json()["total"] == 2  # the export's match and the one imported with the key


def test_the_import_key_comes_from_the_environment_and_unset_imports_are_open(
    configured: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TANTEO_IMPORT_KEY", "from-env")
    assert configured().config["TANTEO_IMPORT_KEY"] == "from-env"
    monkeypatch.setenv("TANTEO_IMPORT_KEY", "")
    open_app = configured()
    assert open_app.config["TANTEO_IMPORT_KEY"] is None
    client = open_app.test_client()
    assert client.post("/matches/import", data=exported_text(client), content_type="text/plain").status_code == 201


def test_a_body_without_a_length_past_the_limit_stops_with_what_was_stored(configured: Any) -> None:
    """A chunked body has no length to refuse up front: the limit holds while it is read, and the
    matches imported before it are said with their tokens (413 import.too_large)."""
    import io

    app = configured(TANTEO_MAX_IMPORT=4_000)
    client = app.test_client()
    text = exported_text(client)
    body = text + b"2. note {one}\n" + text + b"2. note {two}\n" + b"; a comment line that goes on and on\n" * 400
    response = client.post(
        "/matches/import",
        input_stream=io.BytesIO(body),
        content_type="text/plain",
        headers={"Transfer-Encoding": "chunked"},
        environ_base={"wsgi.input_terminated": True},
    )
    assert response.status_code == 413 and response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "import.too_large" and "larger than 4,000 bytes" in problem["detail"]
    assert len(problem["imported"]) == 1 and problem["imported"][0]["token"]  # the 2nd match was cut
