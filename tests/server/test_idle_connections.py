"""150 idle connections trickling header bytes do not lock a new client out of ``tanteo serve``.

With waitress' defaults (``connection_limit=100``) the 101st connection waits in the kernel's
backlog until an idle one goes away, and one header byte now and then keeps each of them
alive: every other client was locked out. ``tanteo serve`` raises the limit (api/cli.py,
``WAITRESS_SETTINGS``). Loopback only; the number of sockets and every wait are bounded.
"""

from __future__ import annotations

import socket
import threading
import urllib.request
from collections.abc import Iterator

import pytest
from tests.server.conftest import Server

IDLE = 150


@pytest.fixture
def idle_clients(server: Server) -> Iterator[list[socket.socket]]:
    """``IDLE`` connections that each started a request and keep trickling its headers."""
    sockets: list[socket.socket] = []
    stop = threading.Event()
    try:
        for _ in range(IDLE):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(b"GET /games HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            sockets.append(sock)

        def trickle() -> None:
            while not stop.wait(0.5):
                for sock in sockets:
                    try:
                        sock.sendall(b"X")  # one more byte of a header that never ends
                    except OSError:
                        pass

        thread = threading.Thread(target=trickle, daemon=True)
        thread.start()
        yield sockets
        stop.set()
        thread.join(timeout=5)
    finally:
        stop.set()
        for sock in sockets:
            sock.close()


def test_a_new_client_is_answered_while_150_connections_idle(server: Server, idle_clients: list[socket.socket]) -> None:
    for _ in range(3):  # a few requests, each bounded by its own timeout
        with urllib.request.urlopen(server.url + "/games", timeout=10) as response:
            assert response.status == 200
    status, body = server.call("POST", "/matches", {"game": "cabo", "players": ["Anna", "Ben"]})
    assert status == 201, body
