"""A match started with all its events (``Service.start_match(data, events=…)``): one transaction.

It must store what starting the match and then recording the same events would store
(the same events, private places, status, name and state), check every event as a
recorded batch is checked, and store nothing at all when one event is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.api.walk_logs import corrected_log
from tests.engines.drivers import playout

from api.service import EventRefused, Service, StateCache
from engines import ENGINES
from engines.base import replay, events_from
from ledger import open_ledger
from schemas import SchemaError


def stored_like(service: Service, match_id: str) -> tuple[Any, ...]:
    """What two ways of recording a match must agree on (times, ids and salts aside)."""
    events = service.ledger.read(match_id)
    record = service.ledger.get_match(match_id)
    return (
        [(e.seq, e.type, e.data, e.format, [p for p, _ in e.private]) for e in events],
        record.status,
        record.meta,
        record.version,
    )


def both_ways(tmp_path: Path, log: list[dict[str, Any]]) -> tuple[Service, dict[str, Any], dict[str, Any]]:
    service = Service(open_ledger(str(tmp_path / "t.db")), StateCache())
    whole = service.start_match(log[0]["data"], events=log[1:])
    created = service.start_match(log[0]["data"])
    service.record(created["id"], log[1:], token=created["token"])
    return service, whole, created


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_whole_match_in_one_go_stores_what_start_then_record_stores(tmp_path: Path, game: str) -> None:
    events, state = playout(game, 3)
    log = [{"type": e.type, "data": dict(e.data)} for e in events]
    service, whole, created = both_ways(tmp_path, log)
    assert stored_like(service, whole["id"]) == stored_like(service, created["id"])
    assert whole["version"] == len(log) and whole["head"] == service.ledger.get_match(whole["id"]).head
    assert service.ledger.verify(whole["id"])[0].valid
    assert service.ledger.get_match(whole["id"]).status == "over"
    engine = ENGINES[game]
    assert replay(engine, events_from(service.ledger.read(whole["id"]))) == state
    # Over and recorded whole: its final state is kept as the snapshot at its head (read from there
    # when the match is first read), not weighed into the memory cache; one still in play is cached.
    assert service.cache.get(whole["id"]) is None
    assert service.ledger.snapshot(whole["id"]).seq == len(log)
    in_play = service.start_match(log[0]["data"], events=log[1:-1])
    assert service.cache.get(in_play["id"]).state == replay(engine, events_from(service.ledger.read(in_play["id"])))
    assert service.state(whole["id"], token=whole["token"]) == {
        **service.state(created["id"], token=created["token"]),
        "id": whole["id"],
    }


def test_corrections_in_the_batch_rename_the_match_as_an_append_does(tmp_path: Path) -> None:
    log = corrected_log(5)
    rename = next(e for e in log if e["type"] == "amend" and e["data"]["target"] == 1)
    rename["data"]["data"] = {**rename["data"]["data"], "title": "Friday at the bar"}
    service, whole, created = both_ways(tmp_path, log)
    assert stored_like(service, whole["id"]) == stored_like(service, created["id"])
    assert service.ledger.get_match(whole["id"]).meta == {"title": "Friday at the bar"}
    assert service.audit(whole["id"])["chain"]["valid"]


def test_a_refused_event_stores_nothing_and_names_its_index(tmp_path: Path) -> None:
    events, _ = playout("la-cabra", 4)
    log = [{"type": e.type, "data": dict(e.data)} for e in events]
    service = Service(open_ledger(str(tmp_path / "t.db")), StateCache())
    lead = next(i for i, e in enumerate(log) if e["type"] == "lead")
    illegal = [*log[1 : lead + 1], log[lead], *log[lead + 1 :]]  # the same lead twice: out of turn
    with pytest.raises(EventRefused) as refused:
        service.start_match(log[0]["data"], events=illegal)
    assert refused.value.index == lead and refused.value.game == "la-cabra"
    assert refused.value.error.code.startswith("la-cabra.") or refused.value.error.code.startswith("common.")
    misshapen = [*log[1:5], {"type": "lead", "data": {"seat": 0, "card": "XX"}}, *log[5:]]
    with pytest.raises(EventRefused) as refused:
        service.start_match(log[0]["data"], events=misshapen)
    assert refused.value.index == 4 and isinstance(refused.value.error, SchemaError)
    assert service.ledger.list_matches()[1] == 0  # nothing of either match was stored
