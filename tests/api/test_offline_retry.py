"""What the score page's offline queue relies on when it sends its entries again (issue 29).

An entry made offline carries the version the page knew (If-Match) and an Idempotency-Key.
When the connection drops after the server stored it but before the answer arrived, the page
sends it again: the key must win over the now-stale version (the first result, nothing written
twice), while an entry another phone overtook meanwhile is a 409 that names the version now, so the
page can tell the scorer how many entries came in between.
"""

from __future__ import annotations

import pytest

from tests.api.problems import DEAL, START, problem, snapshot, unchanged
from tests.conftest import Scorer


@pytest.fixture
def dealt(scorer: Scorer) -> Scorer:
    scorer.start(START)
    scorer.record(DEAL)
    return scorer


LEAD = {"type": "lead", "data": {"seat": 0, "cards": ["6C"]}}


def test_a_resent_entry_is_stored_once_though_its_version_is_now_stale(dealt: Scorer) -> None:
    version = dealt.get()["version"]
    headers = {"Idempotency-Key": "queued-1", "If-Match": f'"{version}"'}
    first = dealt.post(LEAD, headers=headers)
    assert first.status_code == 201
    after = snapshot(dealt)
    again = dealt.post(LEAD, headers=headers)  # the answer was lost: the page sends it again, as it was
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    unchanged(dealt, after)


def test_an_entry_overtaken_by_another_phone_is_a_conflict_naming_both_versions(dealt: Scorer) -> None:
    version = dealt.get()["version"]
    dealt.record({"type": "note", "data": {"text": "recorded by the other phone"}})
    before = snapshot(dealt)
    late = dealt.post(LEAD, headers={"Idempotency-Key": "queued-2", "If-Match": f'"{version}"'})
    body = problem(late, 409, "version.conflict")
    assert body["currentVersion"] == version + 1  # the page knew `version`: one entry came in between
    unchanged(dealt, before)
