"""The summary of a match in play (``GET /matches/{id}``) is an open read like the others.

Its standings come from the disclosed log for a reader without the token, as the open audit's
do: a La Cabra deal whose face-down discards only the scorer named is scored alike for the
scorer and for everyone else once the deal has ended (the trick piles, face-down discards
included, are counted in the open), and the listing then shows those cards with their salts.
And the token that opens private values is the stored one: a token rotated away by another
process opens nothing.
"""

from __future__ import annotations

import json

from ledger import verify_listing
from tests.api.la_cabra_deals import DEAL_1, START
from tests.conftest import Scorer

WEST = ["6H", "7H", "8C", "9C"]  # West's face-down discard at seq 6, named by the scorer


def test_open_standings_are_the_true_ones_once_the_deal_has_ended(scorer: Scorer) -> None:
    scorer.start(START)
    deal = [dict(e) for e in DEAL_1]
    deal[4] = {"type": "discard", "data": {"seat": 3, "cards": WEST}}
    scorer.record(*deal[:4])
    in_play = scorer.get("/events")["events"]
    assert any('"private": true' in json.dumps(e["data"]) for e in in_play)  # the deal in play hides the hands
    scorer.record(*deal[4:])
    assert scorer.read("/audit")["hands"][0]["status"] == "scored"
    assert [s["total"] for s in scorer.read()["standings"]] == [4, 0]  # the scorer's sheet
    summary, audit = scorer.get(), scorer.get("/audit")
    assert summary["status"] == "playing"
    assert audit["hands"][0]["status"] == "scored" and audit["hands"][0] == scorer.read("/audit")["hands"][0]
    assert summary["standings"] == audit["standings"] and [s["total"] for s in summary["standings"]] == [4, 0]
    assert summary["end"] == audit["end"] and summary["hands"] == len(audit["hands"])
    listing = scorer.get("/events")["events"]
    discard = next(e for e in listing if e["seq"] == 6)
    assert discard["data"]["cards"] == WEST and discard["private"][0]["path"] == ["cards"]  # shown, with its salt
    assert verify_listing(scorer.id, listing, summary["version"], summary["head"]).valid
    response = scorer.client.get(f"/matches/{scorer.id}")
    assert "Authorization" in response.vary and response.headers["ETag"] == f'"{summary["version"]}"'
    wrong = scorer.client.get(f"/matches/{scorer.id}", headers={"Authorization": "Bearer wrong"})
    assert wrong.status_code == 403


def test_a_token_rotated_by_another_process_no_longer_shows_private_values(tmp_path: object) -> None:
    """Two services on one file (two processes): the old token, still in the first one's cached
    row, must not open the private values once the second has rotated it."""
    from pathlib import Path

    import pytest

    from api.service import AuthError, Service
    from ledger import open_ledger

    path = str(Path(str(tmp_path)) / "two.db")
    with open_ledger(path) as first_ledger, open_ledger(path) as second_ledger:
        first, second = Service(first_ledger), Service(second_ledger)
        created = first.start_match(START)
        match_id, old = created["id"], created["token"]
        first.record(match_id, DEAL_1[:2], token=old)
        assert first.state(match_id, seat=0, token=old)["disclosed"] is True  # the first caches the match's row
        new = second.rotate_token(match_id, old)["token"]
        for read in (first.state, first.replay, first.legal_moves, first.audit):
            with pytest.raises(AuthError):
                read(match_id, token=old)
        assert first.state(match_id, seat=0, token=new)["disclosed"] is True
