"""Helpers shared by tests (moved out of tests.transfer.test_backup, so that no test module imports another)."""

from __future__ import annotations
from pathlib import Path
from api.service import Service
from ledger import SqliteLedger


START = {"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 3}, "options": {}}


HAND = [
    {"type": "hand_started", "data": {"dealer": 2}},
    {"type": "hand_result", "data": {"piles": [8, 12, 12, 6], "table": 2}},
    {"type": "score_claimed", "data": {"hand": 1, "points": [8, 12, 12, 6], "totals": [0, 1, 1, 0]}},
]


def fill(db: Path, matches: int) -> dict[str, str]:
    """A database with small matches (a result-only hand each, some with a note); their heads by id."""
    service = Service(SqliteLedger(db))
    for i in range(matches):
        created = service.start_match({**START, "players": [f"A{i}", "B", "C", "D"]}, by=f"club{i % 3}")
        extra = [{"type": "note", "data": {"text": f"table {i}"}}] if i % 4 == 0 else []
        service.record(created["id"], [*HAND, *extra], token=created["token"], by="scorer", key=f"k{i}")
    heads = {r.id: r.head for r in service.ledger.list_matches(limit=10_000)[0]}
    service.ledger.close()
    return heads
