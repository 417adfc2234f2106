"""A real server: ``tanteo serve`` (waitress) in a child process on a free loopback port."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.plain import machine_text

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One ``tanteo serve`` process; ``kill()`` is a crash (SIGKILL), ``start()`` a restart."""

    def __init__(self, db: Path, args: list[str] | None = None, root: Path | None = None) -> None:
        self.db = db
        self.root = root or Path(__file__).resolve().parents[2]
        """The code it runs: the checkout, or a copy whose files a test changes."""
        self.args = list(args or [])
        """More ``tanteo serve`` options (``--read-only`` …)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve", "--port", str(self.port), "--db", str(self.db), *self.args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.root,  # ``python -m api.cli`` imports ``api`` from here first
        )
        for _ in range(200):  # up to ~20 s of 0.1 s polls for the port to answer
            try:
                urllib.request.urlopen(self.url + "/games", timeout=1).read()
                return
            except (urllib.error.URLError, ConnectionError):
                if self.process.poll() is not None:
                    raise RuntimeError(
                        self.process.stderr.read().decode() if self.process.stderr else "server died"
                    ) from None
                time.sleep(0.1)
        raise RuntimeError("server did not answer within 20 s")

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            body = json.loads(error.read() or b"null")
            assert not machine_text(body), f"{error.code} reads like code: {machine_text(body)}"
            return error.code, body


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "served.db")
    srv.start()
    yield srv
    srv.stop()


ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's Chromium, once per module (the /docs browser tests)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail("needs Debian's chromium: apt-get install -y --no-install-recommends chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()
