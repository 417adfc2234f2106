"""A hypothesis state machine over a real SQLite ledger file, written through the service.

Rules: append (with or without an expected version and an idempotency key), a batch whose
last event the rules refuse, a stale expected version, a retry with the same key, a key
reused for another body, void (any seq), amend (of the deal's events), and reopening the file with a cold cache. The
service is the real one (Flask-free) so that voids and amends are judged by the La Cabra
engine, as in production.

Invariants after every step: the seqs are 1…n with no gap, ``verify`` finds the chain valid
and its head is the match row's, the rows on disk are exactly the rows before the step plus
the rows of an accepted batch (a refused step writes nothing, an accepted one writes its
whole batch), a retry returns the first result, and a cold cache folds the same state.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from api.service import EventRefused, Service, StateCache
from ledger import ConcurrencyConflict, IdempotencyConflict, SqliteLedger

START = {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}}
DEAL = [  # deal 1 by its result (VOCABULARY.md §7), so voids and amends meet real events
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
    {"type": "score_claimed", "data": {"hand": 1, "points": [0, 2], "totals": [0, 2]}},
]
ILLEGAL = {"type": "lead", "data": {"seat": 2, "cards": ["9H"]}}  # no deal in progress: the rules refuse it

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12).filter(
    str.strip
)
notes = st.lists(texts, min_size=1, max_size=3).map(lambda ts: [{"type": "note", "data": {"text": t}} for t in ts])


def rows(db: Path) -> list[tuple[Any, ...]]:
    """Every stored event row, read with a separate connection straight from the file."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM events ORDER BY match_id, seq").fetchall()


class LedgerMachine(RuleBasedStateMachine):
    keys = Bundle("keys")

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="tanteo-stateful-"))
        self.db = self.folder / "tanteo.db"
        self.ledger = SqliteLedger(self.db)
        self.service = Service(self.ledger, StateCache())
        self.version = 0
        self.rows: list[tuple[Any, ...]] = []
        self.sent: dict[str, tuple[list[dict[str, Any]], int, str]] = {}
        """Idempotency key → (batch, version and head of its first answer)."""

    def teardown(self) -> None:
        self.ledger.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    @initialize()
    def start(self) -> None:
        created = self.service.start_match(START, by="scorer")
        self.id, self.token = created["id"], created["token"]
        result = self.service.record(self.id, DEAL, token=self.token, by="scorer")
        self.version = result.version
        self.rows = rows(self.db)

    # ---- helpers

    def _accepted(self, batch_size: int, result: Any) -> None:
        """An accepted batch: the old rows untouched, exactly its rows added, version moved by its size."""
        now = rows(self.db)
        assert now[: len(self.rows)] == self.rows, "an earlier row changed"
        assert len(now) == len(self.rows) + batch_size
        assert result.version == self.version + batch_size and not result.replayed
        self.version, self.rows = result.version, now

    def _refused(self) -> None:
        assert rows(self.db) == self.rows, "a refused write left rows behind"
        assert self.ledger.version(self.id) == self.version

    def _record(self, batch: list[dict[str, Any]], **kwargs: Any) -> Any:
        return self.service.record(self.id, batch, token=self.token, by="scorer", **kwargs)

    # ---- rules

    @rule(target=keys, batch=notes, key=st.uuids().map(str), pin=st.booleans())
    def append(self, batch: list[dict[str, Any]], key: str, pin: bool) -> str:
        result = self._record(batch, key=key, expected_version=self.version if pin else None)
        self._accepted(len(batch), result)
        self.sent[key] = (batch, result.version, result.head)
        return key

    @rule(batch=notes)
    def append_with_a_refused_last_event(self, batch: list[dict[str, Any]]) -> None:
        try:
            self._record([*batch, ILLEGAL], expected_version=self.version)
        except EventRefused as refused:
            assert refused.index == len(batch)
        else:
            raise AssertionError("the rules accepted a lead with no deal in progress")
        self._refused()

    @rule(batch=notes, behind=st.integers(min_value=1, max_value=3))
    def append_at_a_stale_version(self, batch: list[dict[str, Any]], behind: int) -> None:
        try:
            self._record(batch, expected_version=max(1, self.version - behind))
        except ConcurrencyConflict as conflict:
            assert conflict.current == self.version
        else:
            raise AssertionError("a stale expected version was accepted")
        self._refused()

    @rule(key=keys)
    def retry_with_the_same_key(self, key: str) -> None:
        batch, version, head = self.sent[key]
        result = self._record(batch, key=key)
        assert (result.version, result.head, result.replayed) == (version, head, True)
        self._refused()  # nothing written

    @rule(key=keys, batch=notes)
    def reuse_a_key_for_another_body(self, key: str, batch: list[dict[str, Any]]) -> None:
        if batch == self.sent[key][0]:
            return
        try:
            self._record(batch, key=key)
        except IdempotencyConflict:
            pass
        else:
            raise AssertionError("a key was accepted for another body")
        self._refused()

    @rule(data=st.data(), reason=texts)
    def void(self, data: st.DataObject, reason: str) -> None:
        target = data.draw(st.integers(min_value=1, max_value=self.version + 1), label="target")
        self._correct({"type": "void", "data": {"target": target, "reason": reason}})

    @rule(data=st.data(), reason=texts)
    def amend_the_deal(self, data: st.DataObject, reason: str) -> None:
        """Amend one of deal 1's events (notes and corrections cannot be amended: the rules say void them)."""
        points = st.integers(min_value=0, max_value=6)
        target, payload = data.draw(
            st.one_of(
                st.tuples(st.just(2), st.builds(lambda d: {"dealer": d}, st.integers(min_value=0, max_value=3))),
                st.tuples(
                    st.just(3),
                    st.builds(
                        lambda p, t: {"cardPoints": [p, 120 - p], "tricks": t, "lastTrick": 0},
                        st.integers(min_value=0, max_value=120),
                        st.lists(st.integers(min_value=0, max_value=7), min_size=2, max_size=2),
                    ),
                ),
                st.tuples(
                    st.just(4), st.builds(lambda a, b: {"hand": 1, "points": [a, b], "totals": [a, b]}, points, points)
                ),
            ),
            label="amend",
        )
        self._correct({"type": "amend", "data": {"target": target, "data": payload, "reason": reason}})

    def _correct(self, correction: dict[str, Any]) -> None:
        """A correction is accepted or refused by the rules; either way the file stays whole."""
        try:
            result = self._record([correction], expected_version=self.version)
        except EventRefused:
            self._refused()
        else:
            self._accepted(1, result)

    @rule()
    def reopen(self) -> None:
        before = self.service.state(self.id)["state"]
        self.ledger.close()
        self.ledger = SqliteLedger(self.db)
        self.service = Service(self.ledger, StateCache())  # cold: folds from the file
        assert self.service.state(self.id)["state"] == before

    # ---- invariants

    @invariant()
    def no_gaps_and_a_valid_chain(self) -> None:
        if not hasattr(self, "id"):
            return
        stored = self.ledger.read(self.id)
        assert [e.seq for e in stored] == list(range(1, self.version + 1))
        assert all(later.prev == earlier.hash for earlier, later in zip(stored, stored[1:]))
        (report,) = self.ledger.verify(self.id)
        assert report.valid and report.length == self.version and report.head == stored[-1].hash, report.reason
        assert self.ledger.get_match(self.id).version == self.version


TestLedgerMachine = LedgerMachine.TestCase
TestLedgerMachine.settings = settings(
    max_examples=25,
    stateful_step_count=15,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
