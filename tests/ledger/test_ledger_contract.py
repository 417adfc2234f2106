"""The ledger contract: one suite, run against every backend (SQLite file and memory).

Whatever the service relies on is pinned here, so a new backend (PostgreSQL) passes the same
class or is not a ledger. (File named ``test_ledger_contract.py`` rather than
``test_contract.py`` so it cannot collide with another folder's test module of that name.)
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from typing import Any

import pytest
from tests.ledger.ledger_helpers import plays, start

from ledger.records import chain_hash_v2
from ledger import (
    GENESIS,
    AppendResult,
    ConcurrencyConflict,
    IdempotencyConflict,
    Ledger,
    LedgerError,
    MatchExists,
    MatchNotFound,
    MemoryLedger,
    NewEvent,
    StoredEvent,
)

AT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


class Refused(Exception):
    """What a test's check raises to refuse a batch (the service raises RuleViolation)."""


def snapshot(book: Ledger, match_id: str = "m1") -> tuple[Any, ...]:
    """Everything an append could change, to compare before and after a refused write."""
    return (
        book.version(match_id),
        book.get_match(match_id),
        [event.envelope() for event in book.read(match_id)],
        [(i, event.envelope()) for i, event in book.feed()],
        book.verify(),
    )


class TestLedgerContract:
    """Behaviour every backend must have; ``ledger`` is parametrized in conftest."""

    def test_backend_satisfies_the_protocol(self, ledger: Ledger) -> None:
        assert isinstance(ledger, Ledger)

    # -- creating and reading ------------------------------------------------------------

    def test_create_match_stores_seq_1_and_the_row(self, ledger: Ledger) -> None:
        result = start(ledger, players=("Anna", "Ben", "Carl"))
        assert result.version == 1 and not result.replayed
        (first,) = result.events
        assert (first.match, first.seq, first.type, first.by, first.key) == (
            "m1",
            1,
            "match_started",
            "scorer",
            None,
        )
        assert first.prev == GENESIS and result.head == first.hash
        match = ledger.get_match("m1")
        assert match.id == "m1" and match.game == "cabo"
        assert match.players == ("Anna", "Ben", "Carl")
        assert match.token_hash == "sha256:" + "ab" * 32
        assert (match.version, match.head) == (1, first.hash)
        assert match.created_at == first.at and AT.match(match.created_at)
        assert match.status == "playing"
        assert ledger.read("m1") == [first]

    def test_create_match_refuses_a_taken_id(self, ledger: Ledger) -> None:
        start(ledger)
        before = snapshot(ledger)
        with pytest.raises(MatchExists) as error:
            start(ledger, game="kabu")
        assert error.value.match_id == "m1" and "m1" in str(error.value)
        assert snapshot(ledger) == before

    def test_append_and_read_round_trip(self, ledger: Ledger) -> None:
        start(ledger)
        data = {
            "seat": 1,
            "cards": ["7D", "??", "10H"],
            "note": "Ñandú ♠ 🂡",
            "nested": {"b": [1, {"a": None}]},
        }
        result = ledger.append("m1", [NewEvent("play", data), NewEvent("note", {"text": "ok"})], by="Ben", key="k-1")
        assert isinstance(result, AppendResult) and result.version == 3 and not result.replayed
        assert [e.seq for e in result.events] == [2, 3]
        assert result.head == result.events[-1].hash
        stored = ledger.read("m1", after=1)
        assert stored == list(result.events)
        assert stored[0].data == data and stored[1].data == {"text": "ok"}
        for event in stored:
            assert event.by == "Ben" and event.key == "k-1"  # the batch's key on every event
            assert AT.match(event.at)
        assert stored[0].at == stored[1].at  # one transaction, one time
        envelope = stored[0].envelope()
        assert set(envelope) == {"match", "seq", "type", "data", "at", "by", "key", "prev", "hash", "format"}
        assert envelope["data"] == data and envelope["seq"] == 2

    def test_every_hash_is_the_documented_chain_hash(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D", "8D", "9D"), by="Anna", key="batch")
        ledger.append("m1", plays("KD"), by="Ben")
        prev = GENESIS
        for event in ledger.read("m1"):
            assert event.prev == prev
            assert event.format == 2 and event.hash == chain_hash_v2(
                prev, event.match, event.seq, event.type, event.data, event.at, event.by, event.key
            )
            prev = event.hash
        assert ledger.get_match("m1").head == prev

    def test_seqs_are_contiguous_and_version_follows(self, ledger: Ledger) -> None:
        start(ledger)
        for cards in (["7D"], ["8D", "9D", "KD"], ["AD"], ["2C", "3C"]):
            ledger.append("m1", plays(*cards), by="scorer")
        events = ledger.read("m1")
        assert [e.seq for e in events] == list(range(1, 9))
        assert ledger.version("m1") == 8 == ledger.get_match("m1").version

    def test_read_windows(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D", "8D", "9D", "KD", "AD"), by="scorer")
        assert [e.seq for e in ledger.read("m1", after=2)] == [3, 4, 5, 6]
        assert [e.seq for e in ledger.read("m1", upto=3)] == [1, 2, 3]
        assert [e.seq for e in ledger.read("m1", after=1, upto=4)] == [2, 3, 4]
        assert [e.seq for e in ledger.read("m1", after=1, limit=2)] == [2, 3]
        assert [e.seq for e in ledger.read("m1", after=4, upto=100, limit=10)] == [5, 6]
        assert ledger.read("m1", after=6) == []
        assert ledger.read("m1", after=3, upto=2) == []
        assert ledger.read("m1", limit=0) == []
        with pytest.raises(ValueError):
            ledger.read("m1", after=-1)
        with pytest.raises(ValueError):
            ledger.read("m1", limit=-5)

    def test_unknown_match_is_not_found_everywhere(self, ledger: Ledger) -> None:
        start(ledger)
        calls = [
            lambda: ledger.append("nope", plays("7D"), by="x"),
            lambda: ledger.append("nope", plays("7D"), by="x", key="k"),
            lambda: ledger.read("nope"),
            lambda: ledger.read("nope", after=5),
            lambda: ledger.version("nope"),
            lambda: ledger.get_match("nope"),
            lambda: ledger.verify("nope"),
        ]
        for call in calls:
            with pytest.raises(MatchNotFound) as error:
                call()
            assert error.value.match_id == "nope"

    def test_returned_and_submitted_data_are_not_shared_with_the_store(self, ledger: Ledger) -> None:
        start(ledger)
        payload: dict[str, Any] = {"seat": 0, "cards": ["7D"]}
        result = ledger.append("m1", [NewEvent("play", payload)], by="scorer")
        payload["cards"].append("8D")  # the caller keeps editing its dict
        result.events[0].data["cards"].append("9D")  # or the one it got back
        ledger.read("m1")[1].data["seat"] = 2
        assert ledger.read("m1")[1].data == {"seat": 0, "cards": ["7D"]}
        assert ledger.verify("m1")[0].valid

    # -- refusing writes -----------------------------------------------------------------

    def test_empty_batch_is_a_value_error(self, ledger: Ledger) -> None:
        start(ledger)
        before = snapshot(ledger)
        with pytest.raises(ValueError):
            ledger.append("m1", [], by="scorer")
        assert snapshot(ledger) == before

    @pytest.mark.parametrize(
        ("data", "error"),
        [
            ({"x": math.nan}, ValueError),
            ({"x": [1, math.inf]}, ValueError),
            ({"when": dt.datetime(2026, 1, 1)}, TypeError),
            ({1: "non-string key"}, TypeError),
            ({"big": 2**70}, TypeError),
            ({"s": {1, 2}}, TypeError),
        ],
    )
    def test_data_that_is_not_json_is_refused(self, ledger: Ledger, data: dict[Any, Any], error: type) -> None:
        start(ledger)
        before = snapshot(ledger)
        with pytest.raises(error):
            ledger.append("m1", [NewEvent("play", {"ok": 1}), NewEvent("play", data)], by="scorer")
        assert snapshot(ledger) == before

    def test_stale_expected_version_is_a_conflict_and_writes_nothing(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D"), by="Anna", expected_version=1)
        ledger.append("m1", plays("8D", "9D"), by="Ben", expected_version=2)
        before = snapshot(ledger)
        with pytest.raises(ConcurrencyConflict) as error:
            ledger.append("m1", plays("KD"), by="Carl", expected_version=2)
        assert (error.value.expected, error.value.current) == (2, 4)
        assert "2" in str(error.value) and "4" in str(error.value)
        with pytest.raises(ConcurrencyConflict) as ahead:
            ledger.append("m1", plays("KD"), by="Carl", expected_version=9)
        assert (ahead.value.expected, ahead.value.current) == (9, 4)
        assert snapshot(ledger) == before
        assert ledger.append("m1", plays("KD"), by="Carl", expected_version=4).version == 5

    def test_a_batch_refused_on_its_7th_event_writes_none_of_them(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D"), by="scorer")
        before = snapshot(ledger)
        refusal = Refused("seat 0 does not hold 3C (event 7 of 10)")

        def check(version: int, batch: Sequence[StoredEvent]) -> None:
            assert [e.seq for e in batch] == list(range(3, 13))
            for index, _event in enumerate(batch):
                if index == 6:  # the service folds event by event and stops at the first bad one
                    raise refusal

        batch = plays("8D", "9D", "KD", "AD", "2C", "3C", "4C", "5C", "6C", "7C")
        with pytest.raises(Refused) as raised:
            ledger.append("m1", batch, by="scorer", expected_version=2, key="ten", check=check)
        assert raised.value is refusal  # propagated unchanged
        assert snapshot(ledger) == before
        # The key was not consumed and the next append continues at seq 3.
        result = ledger.append("m1", batch, by="scorer", expected_version=2, key="ten")
        assert not result.replayed and [e.seq for e in result.events] == list(range(3, 13))
        assert ledger.verify("m1")[0].valid

    def test_check_sees_current_version_and_the_built_batch(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D", "8D"), by="scorer")
        seen: list[tuple[int, tuple[StoredEvent, ...]]] = []

        def check(version: int, batch: Sequence[StoredEvent]) -> dict[str, str]:
            seen.append((version, tuple(batch)))
            return {"status": "over"}

        result = ledger.append("m1", plays("9D", "KD"), by="Ben", key="last", check=check)
        ((version, batch),) = seen
        assert version == 3
        assert batch == result.events
        assert [(e.seq, e.by, e.key) for e in batch] == [(4, "Ben", "last"), (5, "Ben", "last")]
        assert batch[0].prev == ledger.read("m1", after=2, upto=3)[0].hash
        assert all(AT.match(e.at) and len(e.hash) == 64 for e in batch)
        match = ledger.get_match("m1")
        assert match.status == "over" and match.version == 5 and match.head == result.head
        assert [m.id for m in ledger.list_matches(status="over")[0]] == ["m1"]

    def test_check_returning_none_keeps_the_status(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D"), by="s", check=lambda version, batch: {"status": "over"})
        ledger.append("m1", plays("8D"), by="s", check=lambda version, batch: None)
        assert ledger.get_match("m1").status == "over"

    @pytest.mark.parametrize("returned", [{"version": 99}, {"status": ""}, {"status": 3}, ["status"]])
    def test_check_may_only_set_a_status(self, ledger: Ledger, returned: Any) -> None:
        start(ledger)
        before = snapshot(ledger)
        with pytest.raises(ValueError):
            ledger.append("m1", plays("7D"), by="s", check=lambda version, batch: returned)
        assert snapshot(ledger) == before

    def test_create_match_runs_the_check_too(self, ledger: Ledger) -> None:
        seen: list[tuple[int, list[int]]] = []

        def check(version: int, batch: Sequence[StoredEvent]) -> dict[str, str]:
            seen.append((version, [e.seq for e in batch]))
            return {"status": "setup"}

        ledger.create_match(
            "m2",
            game="kabu",
            players=["A", "B"],
            token_hash="t",
            first=NewEvent("match_started", {"game": "kabu"}),
            by="s",
            check=check,
        )
        assert seen == [(0, [1])]
        assert ledger.get_match("m2").status == "setup"

        def refuse(version: int, batch: Sequence[StoredEvent]) -> None:
            raise Refused("bad options")

        with pytest.raises(Refused):
            ledger.create_match(
                "m3",
                game="kabu",
                players=["A", "B"],
                token_hash="t",
                first=NewEvent("match_started", {"game": "kabu"}),
                by="s",
                check=refuse,
            )
        with pytest.raises(MatchNotFound):
            ledger.get_match("m3")
        assert ledger.list_matches()[1] == 1
        assert [e.match for _, e in ledger.feed()] == ["m2"]

    def test_create_match_with_more_events_is_one_chain_as_appends_make(self, ledger: Ledger) -> None:
        seen: list[list[int]] = []

        def check(version: int, batch: Sequence[StoredEvent]) -> dict[str, Any]:
            seen.append([e.seq for e in batch])
            return {"status": "over", "meta": {"title": "renamed"}}

        result = ledger.create_match(
            "m2",
            game="cabo",
            players=["A", "B", "C"],
            token_hash="t",
            first=NewEvent("match_started", {"game": "cabo"}),
            by="s",
            check=check,
            more=[*plays("7D", "8D"), NewEvent("reveal", {"card": "9H"}, private=(("card",),))],
        )
        assert seen == [[1, 2, 3, 4]]
        assert [e.seq for e in result.events] == [1, 2, 3, 4] and result.version == 4
        stored = ledger.read("m2")
        assert stored == list(result.events) and stored[-1].format == 2 and stored[-1].private
        assert [e.prev for e in stored] == [GENESIS, *(e.hash for e in stored[:-1])]
        assert len({e.at for e in stored}) == 1
        report = ledger.verify("m2")[0]
        assert report.valid and report.length == 4 and report.head == result.head
        match = ledger.get_match("m2")
        assert (match.version, match.head, match.status, match.meta) == (4, result.head, "over", {"title": "renamed"})

        def refuse(version: int, batch: Sequence[StoredEvent]) -> None:
            raise Refused("the third event breaks the rules")

        with pytest.raises(Refused):
            ledger.create_match(
                "m3",
                game="cabo",
                players=["A", "B", "C"],
                token_hash="t",
                first=NewEvent("match_started", {"game": "cabo"}),
                by="s",
                check=refuse,
                more=plays("7D", "8D"),
            )
        with pytest.raises(MatchNotFound):
            ledger.get_match("m3")
        assert {e.match for _, e in ledger.feed()} == {"m2"}

    # -- idempotency ---------------------------------------------------------------------

    def test_same_key_same_body_replays_the_first_result(self, ledger: Ledger) -> None:
        start(ledger)
        first = ledger.append("m1", plays("7D", "8D"), by="Anna", key="req-1", expected_version=1)
        ledger.append("m1", plays("9D"), by="Ben")  # the match moves on
        before = snapshot(ledger)
        again = ledger.append("m1", plays("7D", "8D"), by="Anna", key="req-1", expected_version=1)
        assert again.replayed and not first.replayed
        assert (again.version, again.head, again.events) == (first.version, first.head, first.events)
        assert again.version == 3 and ledger.version("m1") == 4
        assert snapshot(ledger) == before  # nothing written

    def test_replay_ignores_who_retries_and_runs_no_check(self, ledger: Ledger) -> None:
        start(ledger)
        first = ledger.append("m1", plays("7D"), by="Anna", key="k")

        def check(version: int, batch: Sequence[StoredEvent]) -> None:
            raise AssertionError("a replay must not run the check")

        again = ledger.append("m1", plays("7D"), by="someone else", key="k", check=check)
        assert again.replayed and again.events == first.events

    def test_same_key_other_body_is_an_idempotency_conflict(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D", "8D"), by="Anna", key="req-1")
        before = snapshot(ledger)
        for other in (plays("7D"), plays("7D", "9D"), [NewEvent("note", {"seat": 0, "card": "7D"})]):
            with pytest.raises(IdempotencyConflict) as error:
                ledger.append("m1", other, by="Anna", key="req-1")
            assert error.value.key == "req-1" and "req-1" in str(error.value)
        assert snapshot(ledger) == before

    def test_keys_are_per_match(self, ledger: Ledger) -> None:
        start(ledger, "m1")
        start(ledger, "m2")
        a = ledger.append("m1", plays("7D"), by="s", key="same")
        b = ledger.append("m2", plays("8D"), by="s", key="same")
        assert not a.replayed and not b.replayed
        assert (ledger.version("m1"), ledger.version("m2")) == (2, 2)

    def test_a_refused_keyed_batch_does_not_burn_its_key(self, ledger: Ledger) -> None:
        start(ledger)
        with pytest.raises(ConcurrencyConflict):
            ledger.append("m1", plays("7D"), by="s", key="k", expected_version=5)
        assert not ledger.append("m1", plays("7D"), by="s", key="k").replayed

    # -- listing and the feed ------------------------------------------------------------

    def test_list_matches_filters_and_pages_newest_first(self, ledger: Ledger) -> None:
        start(ledger, "c1", game="cabo", players=("Anna", "Ben"))
        start(ledger, "k1", game="kabu", players=("Anna", "Carl", "Dora"))
        start(ledger, "c2", game="cabo", players=("Ben", "Carl"))
        start(ledger, "c3", game="cabo", players=("Annabel", "Dora"))
        ledger.append("c2", plays("7D"), by="s", check=lambda v, b: {"status": "over"})

        def ids(**filters: Any) -> tuple[list[str], int]:
            page, total = ledger.list_matches(**filters)
            return [m.id for m in page], total

        assert ids() == (["c3", "c2", "k1", "c1"], 4)
        assert ids(game="cabo") == (["c3", "c2", "c1"], 3)
        assert ids(player="Anna") == (["k1", "c1"], 2)  # exact name, not "Annabel"
        assert ids(player="Ann") == ([], 0)
        assert ids(status="over") == (["c2"], 1)
        assert ids(status="playing", game="cabo") == (["c3", "c1"], 2)
        assert ids(game="cabo", player="Carl") == (["c2"], 1)
        assert ids(limit=2) == (["c3", "c2"], 4)
        assert ids(limit=2, offset=2) == (["k1", "c1"], 4)
        assert ids(limit=2, offset=4) == ([], 4)
        page, _ = ledger.list_matches(game="kabu")
        assert page[0] == ledger.get_match("k1")
        with pytest.raises(ValueError):
            ledger.list_matches(limit=-1)

    def test_list_matches_filters_on_meta_a_check_may_replace(self, ledger: Ledger) -> None:
        for match_id, meta in (
            ("a", {"title": "Final", "place": "Casal Gràcia", "tags": ["liga", "2026"], "date": "2026-11-21"}),
            ("b", {"place": "casal gràcia", "tags": ["amics"]}),
            ("c", {}),
        ):
            ledger.create_match(
                match_id,
                game="cabo",
                players=("Anna", "Ben"),
                token_hash="h",
                first=NewEvent("match_started", {"game": "cabo"}),
                by="s",
                meta=meta,
            )

        def ids(**filters: Any) -> list[str]:
            return [m.id for m in ledger.list_matches(**filters)[0]]

        assert ledger.get_match("a").meta["title"] == "Final" and ledger.get_match("c").meta == {}
        assert ids(tag="liga") == ["a"] and ids(tag="lig") == []
        assert ids(place="CASAL GRÀCIA") == ["b", "a"]
        assert ids(date="2026-11-21") == ["a"]
        ledger.append("c", plays("7D"), by="s", check=lambda v, b: {"meta": {"tags": ["liga"]}})
        assert ids(tag="liga") == ["c", "a"] and ledger.get_match("c").meta == {"tags": ["liga"]}
        ledger.append("c", plays("8D"), by="s", check=lambda v, b: {"status": "playing"})
        assert ledger.get_match("c").meta == {"tags": ["liga"]}  # a check without meta leaves it

    def test_replace_token_compares_and_sets(self, ledger: Ledger) -> None:
        start(ledger)
        old = ledger.get_match("m1").token_hash
        assert ledger.replace_token("m1", old, "new-hash")
        assert ledger.get_match("m1").token_hash == "new-hash"
        assert not ledger.replace_token("m1", old, "other")  # the old hash no longer opens it
        assert ledger.get_match("m1").token_hash == "new-hash"
        with pytest.raises(MatchNotFound):
            ledger.replace_token("nope", old, "x")

    def test_changes_name_each_match_appended_to_with_its_version(self, ledger: Ledger) -> None:
        """What the live streams' fan-out asks, once per server process for every match at once."""
        start(ledger, "m1")
        mark = ledger.feed_end()
        assert ledger.changes(mark, 0.0) == (mark, {})  # nothing new: the wait runs out, the mark stays
        start(ledger, "m2")
        ledger.append("m1", plays("7D", "8D"), by="s")
        ledger.append("m2", plays("9D"), by="s")
        mark, versions = ledger.changes(mark, 5.0)
        assert versions == {"m1": 3, "m2": 2}
        assert mark == ledger.feed_end() == ledger.feed()[-1][0]
        ledger.append("m2", plays("KD"), by="s")
        assert ledger.changes(mark, 5.0)[1] == {"m2": 3}  # only what came after the mark

    def test_feed_is_every_event_in_storage_order(self, ledger: Ledger) -> None:
        start(ledger, "m1")
        start(ledger, "m2")
        ledger.append("m1", plays("7D", "8D"), by="s")
        ledger.append("m2", plays("9D"), by="s")
        ledger.append("m1", plays("KD"), by="s")
        feed = ledger.feed()
        assert [(e.match, e.seq) for _, e in feed] == [
            ("m1", 1),
            ("m2", 1),
            ("m1", 2),
            ("m1", 3),
            ("m2", 2),
            ("m1", 4),
        ]
        ids = [i for i, _ in feed]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        assert [e for _, e in feed if e.match == "m1"] == ledger.read("m1")
        # Paging with the last id seen never skips or repeats an event.
        pages, after = [], 0
        while page := ledger.feed(after_id=after, limit=4):
            pages.extend(page)
            after = page[-1][0]
        assert pages == feed
        assert ledger.feed(after_id=ids[-1]) == []
        assert ledger.feed(limit=2) == feed[:2]

    # -- verify and lifecycle ------------------------------------------------------------

    def test_verify_reports_every_valid_chain(self, ledger: Ledger) -> None:
        start(ledger, "m2")
        start(ledger, "m1")
        ledger.append("m1", plays("7D", "8D", "9D"), by="s")
        reports = ledger.verify()
        assert [r.match for r in reports] == ["m1", "m2"]
        for report in reports:
            match = ledger.get_match(report.match)
            assert report.valid and report.first_bad is None and report.reason is None
            assert (report.length, report.head) == (match.version, match.head)
        assert ledger.verify("m1") == [reports[0]]

    def test_read_verified_gives_the_report_and_the_events_of_one_read(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D", "8D"), by="s", key="k1")
        ledger.append(
            "m1", [NewEvent("play", {"seat": 1, "card": "9D", "hidden": ["AS", "ñ"]}, private=(("hidden",),))], by="t"
        )
        report, events = ledger.read_verified("m1")
        assert report == ledger.verify("m1")[0] and report.valid and report.length == 4
        assert events == ledger.read("m1")
        assert events[-1].private and events[-1].data["hidden"] == ["AS", "ñ"]
        with pytest.raises(MatchNotFound):
            ledger.read_verified("nope")

    def test_a_read_that_takes_over_an_earlier_one_gives_what_a_whole_read_gives(self, ledger: Ledger) -> None:
        """``read_verified_on``: the rows verified before are compared, not hashed again; the
        report and events are those of :meth:`read_verified`, whatever was kept."""
        start(ledger)
        ledger.append("m1", plays("7D", "8D"), by="s", key="k1")
        first, events, kept = ledger.read_verified_on("m1", None)
        assert (first, events) == ledger.read_verified("m1")
        if isinstance(ledger, MemoryLedger):
            assert kept is None  # nothing kept: every read verifies the whole chain
            return
        assert kept is not None and len(kept.rows) == 3 and kept.head == first.head
        ledger.append(
            "m1", [NewEvent("play", {"seat": 1, "card": "9D", "hidden": ["AS"]}, private=(("hidden",),))], by="t"
        )
        report, events, later = ledger.read_verified_on("m1", kept)
        assert (report, events) == ledger.read_verified("m1") and report.valid and report.length == 4
        assert events[0] is kept.events[0] and events[2] is kept.events[2]  # taken over, not decoded again
        assert later is not None and len(later.rows) == 4
        again = ledger.read_verified_on("m1", later)  # nothing new: every row compared, none hashed
        assert again[:2] == (report, events)
        with pytest.raises(MatchNotFound):
            ledger.read_verified_on("nope", later)

    def test_an_anonymous_recorder_is_stored_as_an_empty_name(self, ledger: Ledger) -> None:
        start(ledger, by="")
        ledger.append("m1", plays("7D"), by="")
        assert [e.by for e in ledger.read("m1")] == ["", ""]
        assert ledger.verify("m1")[0].valid

    def test_a_closed_ledger_refuses_work(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.close()
        with pytest.raises(LedgerError):
            ledger.read("m1")
        with pytest.raises(LedgerError):
            ledger.append("m1", plays("7D"), by="s")
        ledger.close()  # closing twice is harmless

    def test_context_manager_closes(self, ledger: Ledger) -> None:
        with ledger as book:
            start(book)
        with pytest.raises(LedgerError):
            ledger.version("m1")

    @pytest.mark.parametrize(
        "call",
        [
            lambda b: b.append("", plays("7D"), by="s"),
            lambda b: b.append("m1", plays("7D"), by=None),
            lambda b: b.append("m1", plays("7D"), by="s", key=""),
            lambda b: b.append("m1", plays("7D"), by="s", expected_version=-1),
            lambda b: b.append("m1", plays("7D"), by="s", expected_version=True),
            lambda b: b.append("m1", [{"type": "play", "data": {}}], by="s"),
            lambda b: b.create_match(
                "m9", game="cabo", players="Anna", token_hash="t", first=NewEvent("match_started", {}), by="s"
            ),
        ],
    )
    def test_malformed_arguments_are_refused_before_writing(self, ledger: Ledger, call: Any) -> None:
        start(ledger)
        before = snapshot(ledger)
        with pytest.raises((ValueError, TypeError)):
            call(ledger)
        assert snapshot(ledger) == before


def test_the_memory_ledger_verifies_its_stored_text_too() -> None:
    """The memory backend keeps the same rows as SQLite, so its verify is as real."""
    from ledger import MemoryLedger

    book = MemoryLedger()
    start(book)
    book.append("m1", plays("7D", "8D"), by="s")
    assert book.verify("m1")[0].valid
    match = book._matches["m1"]
    row: list[Any] = list(match.rows[1])
    row[3] = row[3].replace("7D", "7E")
    match.rows[1] = tuple(row)  # type: ignore[assignment]
    (report,) = book.verify()
    assert not report.valid and report.first_bad == 2


class TestCheckMayReadTheLedger:
    """A check runs inside the write transaction and may read the ledger it runs in."""

    def test_reads_from_inside_a_check(self, ledger: Ledger) -> None:
        start(ledger)
        ledger.append("m1", plays("7D"), by="s")
        seen: dict[str, Any] = {}

        def check(version: int, batch: Sequence[StoredEvent]) -> None:
            seen["version"] = ledger.version("m1")
            seen["log"] = [e.seq for e in ledger.read("m1")]
            seen["listed"] = ledger.list_matches()[1]
            seen["valid"] = ledger.verify("m1")[0].valid

        ledger.append("m1", plays("8D"), by="s", check=check)
        assert seen == {"version": 2, "log": [1, 2], "listed": 1, "valid": True}
        assert ledger.version("m1") == 3
