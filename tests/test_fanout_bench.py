"""The spectators bench reads the streams it times correctly (bench/fanout_bench.py; no time is asserted).

Its followers parse only the status line and the ``id:`` lines of an SSE response, cut at any
byte by the network and framed or not by HTTP/1.1 chunks: an event it misreads would be counted
as missed, or delivered at the wrong seq, whatever the servers do.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import fanout_bench  # noqa: E402

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
FRAMES = [
    b"retry: 1000\n\n",
    b'id: 7\ndata: {"seq":7,"type":"note","data":{"text":"id: 99"}}\n\n',
    b": heartbeat\n\n",
    b'id: 8\ndata: {"seq":8,"id: 98":1}\n\n',
    b'id: 12\ndata: {"seq":12}\n\n',
]


def chunked(frames: list[bytes]) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(f), f) for f in frames)


class Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def feed(response: bytes, cut: int) -> tuple[fanout_bench.Follower, asyncio.Future[int]]:
    loop = asyncio.new_event_loop()
    try:
        answered: asyncio.Future[int] = loop.create_future()
        follower = fanout_bench.Follower(0, b"GET / HTTP/1.1\r\n\r\n", answered)
        follower.connection_made(Transport())
        for start in range(0, len(response), cut):
            follower.data_received(response[start : start + cut])
        return follower, answered
    finally:
        loop.close()


def test_a_follower_finds_every_id_line_however_the_bytes_are_cut() -> None:
    for body in (b"".join(FRAMES), chunked(FRAMES)):
        response = HEAD + body
        for cut in (1, 2, 3, 5, 7, 11, 64, len(response)):
            follower, answered = feed(response, cut)
            assert answered.result() == 200
            assert sorted(follower.seen) == [7, 8, 12], (cut, follower.seen)


def test_a_refused_follower_reads_its_status_and_hangs_up() -> None:
    follower, answered = feed(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}", 4)
    assert answered.result() == 503 and follower.seen == {}
    assert isinstance(follower.transport, Transport) and follower.transport.closed


def test_the_quantiles_are_nearest_ranks() -> None:
    values = [float(v) for v in range(1, 101)]
    assert fanout_bench.pct(values, 0.5) == 50.0
    assert fanout_bench.pct(values, 0.99) == 99.0
    assert fanout_bench.pct([3.0], 0.99) == 3.0
    assert fanout_bench.pct([], 0.5) is None
