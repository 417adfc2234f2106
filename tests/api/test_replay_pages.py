"""A page of a replay costs what it shows: it resumes from a stored state, not from event 1.

Whole series of every game (seeded legal playouts, played to their end) are recorded through
the service on a real SQLite file with a snapshot every few events. A new service (empty
memory cache: a process after a restart) serves pages of ``replay``; each page must be
exactly what the walk of the whole log gives (the same service with its page path turned
off). How much a page folds is counted with a counting hook on the engine's ``apply``
(work, not time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.api.walk_logs import corrected_log
from tests.api.snapshot_logs import eggs_log, ended_log

from replays.addressing import hand_number, positions
from api.service import Service, StateCache
from engines import ENGINES
from engines.base import Event, events_from
from ledger import SqliteLedger
from replays.steps import frames

EVERY = 16


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same answer, byte for byte as the API writes it (key order included)."""
    return orjson.dumps(a) == orjson.dumps(b)


class WholeWalk(Service):
    """The service as it was: every replay walks the whole log (the reference)."""

    def _page(self, *args: Any, **kwargs: Any) -> None:
        return None


def recorded(
    ledger: SqliteLedger, log: list[dict[str, Any]], *, every: int = EVERY, batch: int = 10
) -> tuple[str, str]:
    service = Service(ledger, StateCache(), snapshot_every=every)
    created = service.start_match(log[0]["data"])
    for start in range(1, len(log), batch):
        service.record(created["id"], log[start : start + batch], token=created["token"])
    return str(created["id"]), str(created["token"])


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_view_numbers_hands_as_players_count_them(game: str) -> None:
    """The hand number a page starts from (the state's) is the one the walk counts, in every game."""
    log = ended_log(game, 5)
    steps = frames(ENGINES[game], [Event(i, e["type"], e["data"]) for i, e in enumerate(log, 1)])
    places = {p.seq: p for p in positions(ENGINES[game], steps)}
    deals = [f for f in steps if f.type == "hand_started"]
    assert len(deals) > 1
    assert [hand_number(ENGINES[game], f.state) for f in deals] == [places[f.seq].hand for f in deals]


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_last_moves_of_an_open_replay_are_those_of_the_whole_replay(tmp_path: Path, game: str) -> None:
    """An open reader's replay from a late event (a match page's last moves) makes frames from the
    deal of that event's hand only: every frame, its words, view, changes, hand, move and trick,
    is the one the whole replay gives, in a match still in play (La Cabra also with corrections
    and a re-deal)."""
    logs = [ended_log(game, 7)[:-1], *([corrected_log(1)] if game == "la-cabra" else [])]
    with SqliteLedger(tmp_path / "o.db") as ledger:
        for log in logs:
            match_id, _ = recorded(ledger, log)
            service = Service(ledger, StateCache())
            assert service.match(match_id)["status"] != "over"  # an open reader: the disclosed log
            whole = service.replay(match_id)["frames"]
            n = len(whole)
            for start in sorted({1, 2, 3, n // 3, n // 2, n - 4, n - 1, n}):
                late = service.replay(match_id, start=start)
                assert late["frames"] == [f for f in whole if f["seq"] >= start], start
                assert late["frames"][0]["hand"] == whole[start - 1]["hand"]


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_pages_from_a_stored_state_equal_the_whole_walk(tmp_path: Path, game: str) -> None:
    log = ended_log(game, 7)
    with SqliteLedger(tmp_path / "p.db") as ledger:
        match_id, token = recorded(ledger, log)
        n = len(log)
        reference = WholeWalk(ledger, StateCache(), snapshot_every=EVERY)
        for course in ("corrected", "recorded"):
            for seat in (None, 1, "all"):
                for start, limit in (
                    (1, 5),
                    (2, 1),
                    (EVERY + 1, 7),
                    (n // 2, 30),
                    (n - 3, 10),
                    (n, None),
                    (n // 3, None),
                ):
                    cold = Service(ledger, StateCache(), snapshot_every=EVERY)  # a new process: stored snapshots only
                    ask = {"course": course, "seat": seat, "start": start, "limit": limit, "token": token}
                    assert same(cold.replay(match_id, **ask), reference.replay(match_id, **ask)), (
                        course,
                        seat,
                        start,
                        limit,
                    )
        warm = Service(ledger, StateCache(), snapshot_every=EVERY)
        warm.state(match_id, token=token)  # the memory cache's checkpoints serve too
        ask = {"start": n - 20, "limit": 15, "token": token, "seat": 0}
        assert same(warm.replay(match_id, **ask), reference.replay(match_id, **ask))
        assert same(warm.replay(match_id, token=token), reference.replay(match_id, token=token))
        assert same(
            warm.replay(match_id, start=5, stop=9, token=token),
            reference.replay(match_id, start=5, stop=9, token=token),
        )


@pytest.mark.parametrize("course", ["corrected", "recorded"])
def test_pages_of_a_corrected_log_equal_the_whole_walk(tmp_path: Path, course: str) -> None:
    """Before a correction the two courses differ: such pages walk the whole log; after it they resume."""
    log = corrected_log(3)
    with SqliteLedger(tmp_path / "c.db") as ledger:
        match_id, token = recorded(ledger, log, every=4, batch=3)
        reference = WholeWalk(ledger, StateCache(), snapshot_every=4)
        n = len(log)
        for start in range(1, n + 1, 3):
            ask = {"course": course, "start": start, "limit": 4, "token": token, "seat": 2}
            assert same(
                Service(ledger, StateCache(), snapshot_every=4).replay(match_id, **ask),
                reference.replay(match_id, **ask),
            )
        extra = [{"type": "note", "data": {"text": f"after {i}"}} for i in range(6)]
        Service(ledger, StateCache(), snapshot_every=4).record(match_id, extra, token=token)
        for start in (n - 2, n + 1, n + 4):
            ask = {"course": course, "start": start, "limit": 3, "token": token}
            assert same(
                Service(ledger, StateCache(), snapshot_every=4).replay(match_id, **ask),
                reference.replay(match_id, **ask),
            )


def test_a_page_at_the_end_of_a_long_match_folds_only_from_the_snapshot_before_it(
    tmp_path: Path, applied: list[int]
) -> None:
    length, every, page = 2000, 100, 50
    log = eggs_log(length)
    with SqliteLedger(tmp_path / "long.db") as ledger:
        match_id, token = recorded(ledger, log, every=every, batch=30)
        cold = Service(ledger, StateCache(), snapshot_every=every)
        applied[0] = 0
        out = cold.replay(match_id, start=length - page + 1, limit=page, token=token)
        assert [f["seq"] for f in out["frames"]] == list(range(length - page + 1, length + 1))
        assert applied[0] <= every + 30 + page  # snapshots are due every 100 events, recorded 30 at a time
        whole = WholeWalk(ledger, StateCache(), snapshot_every=every).replay(
            match_id, start=length - page + 1, limit=page, token=token
        )
        assert same(out, whole)
        assert out["frames"][-1]["hand"] == sum(1 for e in log if e["type"] == "hand_started")
        assert events_from(ledger.read(match_id))[-1].seq == length


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_replay_body_is_the_schema_dump_of_the_service_answer(tmp_path: Path, game: str) -> None:
    """``GET /replay`` answers its frames without ReplayOut's dump (a copy of every frame): the bytes stay the dump's."""
    from api.app import create_app
    from api.context import current_service
    from api.schemas import ReplayOut

    app = create_app({"TANTEO_DB": str(tmp_path / "http.db"), "TESTING": True})
    client = app.test_client()
    log = ended_log(game, 3)
    created = client.post("/matches", json=log[0]["data"]).get_json()
    auth = {"Authorization": f"Bearer {created['token']}"}
    for start in range(1, len(log), 100):
        assert (
            client.post(
                f"/matches/{created['id']}/events", json={"events": log[start : start + 100]}, headers=auth
            ).status_code
            == 201
        )
    asked = [
        ("", {}, {}),
        ("", auth, {"token": created["token"]}),
        ("?seat=0", auth, {"token": created["token"], "seat": 0}),
        ("?from=4&limit=5", auth, {"token": created["token"], "start": 4, "limit": 5}),
    ]
    for query, headers, kwargs in asked:
        got = client.get(f"/matches/{created['id']}/replay{query}", headers=headers)
        assert got.status_code == 200 and got.content_type == "application/json"
        with app.test_request_context():
            out = current_service().replay(created["id"], **kwargs)
        want = ReplayOut().dump({**out, "links": got.get_json()["links"]})
        assert got.data == orjson.dumps(want), query
