"""Helpers shared by the server memory tests and bench/hostile_import_bench.py: a process's memory
from /proc, an import sent to a real server, and a body of junk text notation (moved out of
tests.server.test_import_memory, so that no test module imports another)."""

from __future__ import annotations

from collections.abc import Mapping
import http.client
import random
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


def post_import(server: Server, body: bytes, content_type: str) -> tuple[int, bytes, Mapping[str, str]]:
    """POST a body to ``/matches/import`` of a real server; return the status, the answer and its headers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=900)  # generous: it must finish
    try:
        connection.request("POST", "/matches/import", body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return response.status, response.read(), response.headers  # any case of a name
    finally:
        connection.close()


def junk_text(size: int) -> bytes:
    """Text-notation lines a hostile user might send: tags of games that do not exist, cards that
    are not cards, lists and objects, stray words; many short "matches", none importable, and
    no line that cannot be read (every list and object closed on its line): what stops its reading
    is the import's own rule for a file that is no Tanteo record (``replays.lines.not_a_record``)."""
    rng = random.Random(26)
    words = [
        "play",
        "lead",
        "beat",
        "card=ZZ",
        "seat=9",
        "x=[1 2 3]",
        "y=(a=1 b=[])",
        "??",
        "7o",
        "hand_started",
        'note="hola"',
        "{a comment}",
        "dealer=0",
        "12",
        "true",
        "null",
        "(",
        ")",
        "=",
        "10H",
        "KS",
    ]
    lines = []
    total = 0
    while total < size:
        if rng.random() < 0.2:
            line = f'[Game "junk{rng.randrange(1000)}"]\n[Players "a" "b"]'
        else:
            line = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 8)))
            line = line.replace("(", "(z=").replace(")", "") + ")" * line.count("(")  # every ( closed on its line
        lines.append(line)
        total += len(line) + 1
    return ("\n".join(lines) + "\n").encode()[:size]
