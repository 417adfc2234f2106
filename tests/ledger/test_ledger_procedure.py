"""The write procedure every backend runs (ledger.base.Ledger): what its check is given.

The check is given the match as the write transaction found it, so that it never calls back
into the ledger for the row (the service re-reads the write token from it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tests.ledger.ledger_helpers import plays, start

from ledger import Current, Ledger, MatchImport, MemoryLedger, NewEvent, StoredEvent


def test_an_append_check_is_given_the_version_and_the_row_of_its_transaction(ledger: Ledger) -> None:
    start(ledger)
    before = ledger.get_match("m1")
    assert ledger.replace_token("m1", before.token_hash, "rotated")  # by another writer, before this append
    seen: list[Current] = []

    def check(current: Current, batch: Sequence[StoredEvent]) -> None:
        seen.append(current)

    ledger.append("m1", plays("7D"), by="s", check=check)
    ledger.append("m1", plays("8D"), by="s", key="k", check=check)  # looked up with its key
    first, second = seen
    assert first == 1 and isinstance(first, int) and second == 2
    assert first.match == dataclasses.replace(before, token_hash="rotated")
    assert second.match is not None and (second.match.version, second.match.token_hash) == (2, "rotated")


def test_a_new_or_imported_match_is_checked_at_version_0_with_no_row_yet(ledger: Ledger) -> None:
    seen: list[Current] = []

    def check(current: Current, batch: Sequence[StoredEvent]) -> dict[str, Any]:
        seen.append(current)
        return {"meta": {}}  # a check may clear what the match is called by

    ledger.create_match(
        "m1",
        game="cabo",
        players=["A", "B"],
        token_hash="t",
        by="s",
        check=check,
        first=NewEvent("match_started", {"game": "cabo"}),
        meta={"title": "old"},
    )
    with MemoryLedger() as elsewhere:  # an archive of a match recorded on another server
        start(elsewhere, "m2")
        elsewhere.append("m2", plays("7D"), by="s")
        archived = elsewhere.read("m2")
    (imported,) = ledger.import_matches([MatchImport("m2", "cabo", ("Anna", "Ben", "Carl"), "t", archived, check)])
    assert not isinstance(imported, Exception) and imported.version == 2
    assert seen == [0, 0] and seen[0].match is None and seen[1].match is None
    assert ledger.get_match("m1").meta == {} and ledger.get_match("m2").meta == {}
