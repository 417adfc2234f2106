"""The rate limit on anonymous writes (issue 26 item 6): ``POST /matches`` and ``POST /matches/import``
share one count per client address (Flask-Limiter, in memory); past it a 429 problem with
Retry-After, and nothing is written. Every other request is never counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from api.app import DEFAULT_CREATE_LIMIT, create_app

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}


@pytest.fixture
def limited(db_path: Path | str) -> Any:
    app = create_app({"TANTEO_DB": str(db_path), "TESTING": True, "TANTEO_CREATE_LIMIT": "3 per minute"})
    yield app
    app.extensions["tanteo.ledgers"].close()


def test_past_the_limit_creation_and_import_are_429_with_retry_after(limited: Flask) -> None:
    client = limited.test_client()
    created = [client.post("/matches", json=START) for _ in range(2)]
    assert [r.status_code for r in created] == [201, 201]
    archive = client.get(f"/matches/{created[0].get_json()['id']}/export", query_string={"format": "text"}).data
    assert client.post("/matches/import", data=archive, content_type="text/plain").status_code == 201  # the 3rd
    for response in (
        client.post("/matches", json=START),
        client.post("/matches/import", data=archive, content_type="text/plain"),
    ):
        assert response.status_code == 429 and response.mimetype == "application/problem+json"
        body = response.get_json()
        assert body["code"] == "rate.limited" and body["status"] == 429
        assert "3 times within a minute" in body["detail"] and "try again in" in body["detail"]
        assert 1 <= int(response.headers["Retry-After"]) <= 61
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/matches").get_json()["total"] == 3  # nothing written past the limit
    # reads and writes with a token are never counted; another address has its own count
    token = created[0].get_json()["token"]
    for _ in range(5):
        assert client.get("/matches").status_code == 200
        assert (
            client.post(
                f"/matches/{created[0].get_json()['id']}/events",
                json={"events": [{"type": "note", "data": {"text": "x"}}]},
                headers={"Authorization": f"Bearer {token}"},
            ).status_code
            == 201
        )
    assert client.post("/matches", json=START, environ_base={"REMOTE_ADDR": "192.0.2.7"}).status_code == 201


def test_the_default_takes_120_a_minute_from_one_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TANTEO_CREATE_LIMIT")
    app = create_app({"TANTEO_DB": str(tmp_path / "t.db"), "TESTING": True})
    assert app.config["TANTEO_CREATE_LIMIT"] == DEFAULT_CREATE_LIMIT == "120 per minute"
    client = app.test_client()
    assert {client.post("/matches", json=START).status_code for _ in range(120)} == {201}
    assert client.post("/matches", json=START).status_code == 429
    app.extensions["tanteo.ledgers"].close()


def test_the_limit_is_set_by_the_environment_or_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANTEO_CREATE_LIMIT", "1/minute")
    client = create_app({"TANTEO_DB": str(tmp_path / "a.db")}).test_client()
    assert [client.post("/matches", json=START).status_code for _ in range(2)] == [201, 429]
    monkeypatch.setenv("TANTEO_CREATE_LIMIT", "off")
    client = create_app({"TANTEO_DB": str(tmp_path / "b.db")}).test_client()
    assert {client.post("/matches", json=START).status_code for _ in range(5)} == {201}
    with pytest.raises(ValueError, match="a rate such as '120 per minute'"):
        create_app({"TANTEO_DB": str(tmp_path / "c.db"), "TANTEO_CREATE_LIMIT": "lots"})


def proxied(tmp_path: Path, proxies: int | str) -> Any:
    """An app behind ``proxies`` reverse proxies, two creations a minute per client address."""
    return create_app(
        {
            "TANTEO_DB": str(tmp_path / "p.db"),
            "TESTING": True,
            "TANTEO_CREATE_LIMIT": "2 per minute",
            "TANTEO_TRUSTED_PROXIES": proxies,
        }
    )


PROXY = {"REMOTE_ADDR": "10.0.0.1"}  # every request arrives from the one proxy


def test_behind_one_trusted_proxy_each_forwarded_client_has_its_own_count(tmp_path: Path) -> None:
    app = proxied(tmp_path, 1)
    client = app.test_client()

    def create(forwarded: str) -> int:
        return client.post(
            "/matches", json=START, environ_base=PROXY, headers={"X-Forwarded-For": forwarded}
        ).status_code

    assert [create("198.51.100.1") for _ in range(3)] == [201, 201, 429]
    assert [create("198.51.100.2") for _ in range(3)] == [201, 201, 429]  # another client, its own quota
    # what a client writes before the address the proxy appended is not believed
    assert create("198.51.100.9, 198.51.100.1") == 429
    assert client.get("/matches").get_json()["total"] == 4
    app.extensions["tanteo.ledgers"].close()


def test_with_no_trusted_proxy_a_forwarding_header_is_ignored(tmp_path: Path) -> None:
    app = proxied(tmp_path, 0)
    client = app.test_client()
    statuses = [
        client.post(
            "/matches", json=START, environ_base=PROXY, headers={"X-Forwarded-For": f"198.51.100.{n}"}
        ).status_code
        for n in range(4)
    ]
    assert statuses == [201, 201, 429, 429]  # inventing addresses does not dodge the limit
    assert client.get("/matches").get_json()["total"] == 2
    app.extensions["tanteo.ledgers"].close()


def test_the_trusted_proxies_come_from_the_environment_and_are_refused_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TANTEO_TRUSTED_PROXIES", raising=False)
    assert create_app({"TANTEO_DB": str(tmp_path / "a.db")}).config["TANTEO_TRUSTED_PROXIES"] == 0
    monkeypatch.setenv("TANTEO_TRUSTED_PROXIES", "2")
    assert create_app({"TANTEO_DB": str(tmp_path / "b.db")}).config["TANTEO_TRUSTED_PROXIES"] == 2
    for bad in ("-1", "one", "1.5", "²", "", "99999"):
        with pytest.raises(ValueError, match="how many reverse proxies stand in front of this server") as refused:
            create_app({"TANTEO_DB": str(tmp_path / "c.db"), "TANTEO_TRUSTED_PROXIES": bad})
        assert "Traceback" not in str(refused.value) and "\\" not in str(refused.value)
