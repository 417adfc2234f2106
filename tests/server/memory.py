"""Helpers shared by the server memory tests: a process's memory from /proc, and an import sent to a
real server (moved out of tests.server.test_import_memory, so that no test module imports another)."""

from __future__ import annotations

import http.client
from pathlib import Path

from tests.server.conftest import Server

MB = 1024 * 1024


def status_kb(pid: int) -> dict[str, int]:
    """The VmRSS and VmHWM of a process, in bytes, from /proc/<pid>/status."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) * 1024
    return found


def post_import(server: Server, body: bytes, content_type: str) -> tuple[int, bytes, dict[str, str]]:
    """POST a body to ``/matches/import`` of a real server; return the status, the answer and its headers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=900)  # generous: it must finish
    try:
        connection.request("POST", "/matches/import", body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        connection.close()
