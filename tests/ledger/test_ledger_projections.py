"""The projection store and club logs, on every backend (SQLite file, memory, PostgreSQL).

Projections (league tables, profiles) are documents derived from the logs: written in one
transaction with a compare-and-set feed position, read by key or key prefix. A club's log is a
stream like a match's that the match list leaves out.
"""

from __future__ import annotations

import threading

from tests.ledger.ledger_helpers import start

from ledger import CLUB_LOG, Ledger, NewEvent


def test_documents_are_written_and_read_by_key(ledger: Ledger) -> None:
    assert ledger.docs("league", ["t/a", "t/b"]) == {}
    assert ledger.write_docs("league", {"t/a": {"p1": {"won": 2}}, "t/b": [1, 2], "x": "ç"})
    assert ledger.docs("league", ["t/a", "t/b", "t/c", "x"]) == {"t/a": {"p1": {"won": 2}}, "t/b": [1, 2], "x": "ç"}
    assert ledger.docs("other", ["t/a"]) == {}  # each projection is its own name space
    assert ledger.write_docs("league", {"t/a": None, "t/b": {"now": True}})  # None deletes
    assert ledger.docs("league", ["t/a", "t/b"]) == {"t/b": {"now": True}}


def test_a_prefix_scan_keeps_key_order_and_its_limit(ledger: Ledger) -> None:
    keys = ["pm/c/p1/cabo/2026-11-02/b", "pm/c/p1/cabo/2026-11-01/a", "pm/c/p10/cabo/2026-11-01/z", "pm/c/p1/kabu/x"]
    ledger.write_docs("league", {key: i for i, key in enumerate(keys)})
    assert [k for k, _ in ledger.scan_docs("league", "pm/c/p1/cabo/")] == [keys[1], keys[0]]
    assert [k for k, _ in ledger.scan_docs("league", "pm/c/p1/", reverse=True, limit=2)] == [keys[3], keys[0]]
    assert ledger.scan_docs("league", "pm/c/p1/cabo/", limit=1) == [(keys[1], 1)]
    assert ledger.scan_docs("league", "pm/d/") == []


def test_the_position_moves_only_from_where_it_stands(ledger: Ledger) -> None:
    assert ledger.doc_position("league") == 0
    assert ledger.write_docs("league", {"a": 1}, position=(0, 7))
    assert ledger.doc_position("league") == 7
    assert not ledger.write_docs("league", {"a": 2, "b": 3}, position=(0, 9))  # stale: nothing written
    assert ledger.docs("league", ["a", "b"]) == {"a": 1} and ledger.doc_position("league") == 7
    assert ledger.write_docs("league", {"c": 4}, position=(7, 0), clear=True)  # a rebuild starts afresh
    assert ledger.docs("league", ["a", "c"]) == {"c": 4} and ledger.doc_position("league") == 0


def test_two_writers_racing_from_one_position_cannot_both_win(ledger: Ledger) -> None:
    ledger.write_docs("league", {}, position=(0, 1))
    wins: list[bool] = []

    def race(n: int) -> None:
        wins.append(ledger.write_docs("league", {f"k{n}": n}, position=(1, 2)))

    threads = [threading.Thread(target=race, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(wins) == [False, False, False, True]
    assert len(ledger.scan_docs("league", "k")) == 1


def test_a_club_log_is_a_chained_stream_the_match_list_leaves_out(ledger: Ledger) -> None:
    start(ledger)
    ledger.create_match(
        "c1",
        game=CLUB_LOG,
        players=[],
        token_hash="sha256:" + "cd" * 32,
        first=NewEvent("club_started", {"name": "Casal"}),
        by="org",
    )
    ledger.append("c1", [NewEvent("player_added", {"name": "Núria"})], by="org", expected_version=1)
    assert [r.id for r in ledger.list_matches()[0]] == ["m1"] and ledger.list_matches()[1] == 1
    clubs, total = ledger.list_matches(game=CLUB_LOG)
    assert [r.id for r in clubs] == ["c1"] and total == 1
    reports = {r.match: r for r in ledger.verify()}
    assert reports["c1"].valid and reports["c1"].length == 2
    assert [e.type for _, e in ledger.feed() if e.match == "c1"] == ["club_started", "player_added"]
