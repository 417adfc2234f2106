"""``TANTEO_TRUSTED_PROXIES`` on a real ``tanteo serve`` (issue 26): read from the environment,
applied to the address waitress hands over, and refused in words at start-up when it is not a
number of proxies. ``tests/api/test_rate_limit.py`` covers the same through the test client."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.server.conftest import Server

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "options": {}}


def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proxies: str) -> Server:
    """A server allowing two creations a minute per client, behind ``proxies`` proxies."""
    monkeypatch.setenv("TANTEO_CREATE_LIMIT", "2 per minute")
    monkeypatch.setenv("TANTEO_TRUSTED_PROXIES", proxies)
    server = Server(tmp_path / "proxied.db")
    server.start()
    return server


def create(server: Server, forwarded: str) -> int:
    return server.call("POST", "/matches", START, {"X-Forwarded-For": forwarded})[0]


def test_behind_one_proxy_each_forwarded_client_has_its_own_quota(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = served(tmp_path, monkeypatch, "1")
    try:
        assert [create(server, "198.51.100.1") for _ in range(3)] == [201, 201, 429]
        assert [create(server, "198.51.100.2") for _ in range(3)] == [201, 201, 429]
        assert server.call("GET", "/matches")[1]["total"] == 4
        # the forwarding headers believed are the client's address and scheme, never the host
        forged = {"Host": "evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"}
        match_id = server.call("GET", "/matches")[1]["items"][0]["id"]
        for page in ("/new", f"/m/{match_id}/sheet"):
            with urllib.request.urlopen(urllib.request.Request(server.url + page, headers=forged), timeout=10) as got:
                assert "evil.example" not in got.read().decode()
    finally:
        server.stop()


def test_with_no_trusted_proxy_an_invented_forwarding_header_does_not_dodge_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = served(tmp_path, monkeypatch, "0")
    try:
        assert [create(server, f"198.51.100.{n}") for n in range(4)] == [201, 201, 429, 429]
        assert server.call("GET", "/matches")[1]["total"] == 2
    finally:
        server.stop()


def test_a_bad_number_of_proxies_stops_serve_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANTEO_TRUSTED_PROXIES", "-1")
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "serve", "--port", "1", "--db", str(tmp_path / "t.db")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 1
    assert "TANTEO_TRUSTED_PROXIES is how many reverse proxies stand in front of this server" in done.stderr
    assert "Traceback" not in done.stderr
