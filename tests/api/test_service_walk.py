"""The fold, the frames, the audit and the service's cache all read a log as its one walk does.

A real La Cabra log (a seeded legal playout) is recorded through the service on a real
SQLite file with every kind of correction among the moves: an amended ``match_started``,
a voided deal re-dealt (a misdeal), a note and a claim, an amend of the claim voided again,
and a voided note. Then every reader is held against :func:`engines.base.walk`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from api.service import EventRefused, Service, StateCache
from engines import la_cabra
from engines.base import events_from, replay, walk
from ledger import open_ledger
from replays.audit import named
from replays.steps import frames
from tests.api.walk_logs import corrected_log


@pytest.mark.parametrize("seed", [0, 3])
def test_fold_frames_audit_and_cache_agree_with_the_walk(tmp_path: Path, seed: int) -> None:
    log = corrected_log(seed)
    with open_ledger(str(tmp_path / "walk.db")) as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        match_id, token = created["id"], created["token"]
        for start in range(1, len(log), 7):  # batches that mix moves and corrections
            service.record(match_id, log[start : start + 7], token=token)
        events = events_from(ledger.read(match_id))
        walked = list(walk(la_cabra, events))
        recorded = list(walk(la_cabra, events, "recorded"))
        n = len(events) - 10

        statuses = {s.event.seq: s.status for s in walked}
        assert statuses[1] == "amended" and walked[0].read.data["players"][0] == "Nora"
        assert [statuses[seq] for seq in range(n - 1, n + 11)] == [
            "voided",
            "voided",
            "correction",
            "played",
            "played",
            "played",
            "voided",
            "claim",
            "voided",
            "correction",
            "correction",
            "correction",
        ]
        assert walked[n + 5].read.data == {"hand": 1, "points": [9, 9]}  # its amend was voided
        assert all(s.status == "played" for s in walked[1 : n - 3])

        # the fold: the last state of either course
        assert replay(la_cabra, events) == walked[-1].state == recorded[-1].state
        assert la_cabra.view(walked[-1].state, "all")["players"][0] == "Nora"

        # the frames: one per step, same status, same state, in both courses
        for course, steps in (("corrected", walked), ("recorded", recorded)):
            shown = frames(la_cabra, events, course)  # type: ignore[arg-type]
            assert [(f.seq, f.status, f.state) for f in shown] == [(s.event.seq, s.status, s.state) for s in steps]
        assert [f.data for f in frames(la_cabra, events)] == [
            s.read.data if s.status in ("played", "amended") else s.event.data for s in walked
        ]

        # the audit: the standing claims with their standing data, each correction with whether it stands
        report = service.audit(match_id, token=token)  # the scorer's audit
        assert {(c["claimSeq"], c["claimed"]) for c in report["claims"]} == {(n + 6, 9)}
        assert [(c["seq"], c["inForce"]) for c in report["corrections"]] == [
            (s.event.seq, s.status != "voided") for s in walked if s.event.type in ("void", "amend")
        ]
        players = events[0].data["players"]  # the audit also names seats and teams (replays.audit.named)
        desk_only = ("confirmations", "needs", "settled", "irregular")  # what the audit adds beside the score
        scored = [{k: v for k, v in h.items() if k not in desk_only} for h in report["hands"]]
        assert scored == named(la_cabra.score(walked[-1].state), players)["hands"]
        assert all(h["needs"] == [] and h["settled"] == (h["status"] == "scored") for h in report["hands"])

        # the cache and its checkpoints: the state at every step is the recorded course's, warm and cold
        def view(state: Any) -> dict[str, Any]:
            return la_cabra.view(state, "all")

        checkpoints = service.cache.get(match_id)
        assert checkpoints is not None and {n + 1, n + 7, n + 8, n + 9, n + 10} <= set(checkpoints.checkpoints)
        cold = Service(ledger, StateCache())
        for step in recorded:
            at = step.event.seq
            assert service.state(match_id, at=at, seat="all", token=token)["state"] == view(step.state)
            assert cold.state(match_id, at=at, seat="all", token=token)["state"] == view(step.state)
        behind = StateCache()  # a cache that saw the match before its corrections catches up on them
        assert behind.at_head(ledger, match_id, la_cabra, n).state == recorded[n - 1].state
        caught_up = behind.at_head(ledger, match_id, la_cabra, len(events))
        folded_cold = StateCache().at_head(ledger, match_id, la_cabra, len(events))
        assert caught_up.state == folded_cold.state == recorded[-1].state
        # a cold cache starts at the newest stored snapshot (each correction stores one), so its
        # checkpoints are the caught-up cache's from there on
        assert all(caught_up.checkpoints[seq] == state for seq, state in folded_cold.checkpoints.items())


def test_a_correction_that_breaks_a_later_event_is_refused_naming_it(tmp_path: Path) -> None:
    log = corrected_log(0)
    with open_ledger(str(tmp_path / "walk.db")) as ledger:
        service = Service(ledger, StateCache())
        created = service.start_match(log[0]["data"])
        service.record(created["id"], log[1:], token=created["token"])
        n = len(log) - 10
        with pytest.raises(EventRefused) as refused:  # restoring the voided deal leaves two deals open
            service.record(
                created["id"],
                [{"type": "void", "data": {"target": n + 1, "reason": "no misdeal"}}],
                token=created["token"],
            )
        assert refused.value.error.code == "common.correction_breaks"
        assert refused.value.error.seq == n + 2  # type: ignore[union-attr]
        assert ledger.version(created["id"]) == len(log)


def test_match_ids_never_start_with_a_dash() -> None:
    """An id starting with '-' is read as an option by the CLI (``tanteo audit -Nx…``)."""
    from api.service import new_match_id

    assert not any(new_match_id().startswith("-") for _ in range(5000))
