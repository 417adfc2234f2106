"""Recording through the service under group commit: the service's check (token, rules, fold)
of one writer runs in the thread of whichever writer leads the commit, with each writer's own
ledger connection, and a move the rules refuse is refused alone.

The writers are made to arrive together: a writer holding the file (its check waits) leads,
and the service's appends queue behind it and join its transaction.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from api.service import EventRefused, Service, StateCache
from ledger import NewEvent, SqliteLedger


def hands(count: int) -> list[dict[str, Any]]:
    """A La Cabra log: match_started, then ``count`` result-only 60-60 deals (they never end a series)."""
    log: list[dict[str, Any]] = [
        {"type": "match_started", "data": {"game": "la-cabra", "players": ["North", "East", "South", "West"]}}
    ]
    for dealer in range(count):
        log.append({"type": "hand_started", "data": {"dealer": (dealer + 3) % 4}})
        log.append(
            {"type": "hand_result", "data": {"cardPoints": [60, 60], "tricks": [4, 3], "lastTrick": (dealer + 3) % 4}}
        )
    return log


def test_service_records_that_arrive_together_share_a_commit_and_a_refusal_stays_alone(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    log = hands(3)
    cache = StateCache()  # one cache for all writers, as the API shares it
    books = [SqliteLedger(db) for _ in range(4)]
    commits: list[str] = []
    try:
        services = [Service(book, cache) for book in books[1:]]
        created = [service.start_match(log[0]["data"]) for service in services]
        for service, match in zip(services, created):
            service.record(match["id"], log[1:3], token=match["token"])
        books[0].create_match(
            "held",
            game="la-cabra",
            players=["A", "B", "C", "D"],
            token_hash="x",
            first=NewEvent("match_started", {"game": "la-cabra"}),
            by="",
        )
        for book in books:
            book._connection().set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
        inside, go = threading.Event(), threading.Event()

        def hold(version: int, events: object) -> None:
            inside.set()
            assert go.wait(60)

        batches = [log[3:5], [{"type": "note", "data": {"text": "about a later event", "target": 9}}], log[3:4]]
        outcomes: list[Any] = [None] * 3

        def record(i: int) -> None:
            try:
                outcomes[i] = services[i].record(created[i]["id"], batches[i], token=created[i]["token"])
            except Exception as error:  # noqa: BLE001 - the outcome under test
                outcomes[i] = error

        leader = threading.Thread(target=lambda: books[0].append("held", [NewEvent("note", {})], by="", check=hold))
        leader.start()
        assert inside.wait(60)
        writers = [threading.Thread(target=record, args=(i,)) for i in range(3)]
        for thread in writers:
            thread.start()
        queue = books[0]._queue
        for _ in range(6000):  # a bounded number of polls, not a clock
            with queue.cond:
                if len(queue.pending) == 3:
                    break
            time.sleep(0.005)
        go.set()
        for thread in [leader, *writers]:
            thread.join(60)
        assert len(commits) == 1  # the held writer's, with the two accepted batches in it
    finally:
        for book in books:
            book.close()
    first, refused, third = outcomes
    assert (first.version, third.version) == (5, 4)
    assert isinstance(refused, EventRefused) and refused.index == 0
    assert refused.error.code == "common.bad_target" and refused.game == "la-cabra"
    with SqliteLedger(db) as book:
        reader = Service(book, StateCache())
        assert [reader.match(m["id"], token=m["token"])["version"] for m in created] == [5, 3, 4]
        assert [e.type for e in book.read(created[0]["id"])] == [e["type"] for e in log[:5]]
        assert all(report.valid for report in book.verify())
        for match in created:  # the state the writers cached is the state folded afresh from the log
            assert (
                reader.state(match["id"], token=match["token"])["state"]
                == Service(book, cache).state(match["id"], token=match["token"])["state"]
            )
