"""Private values the public fold keeps (``unknown="keep"``) never reach an open read.

A Cabo ``reveal`` during play tells the record a face-down card; the public fold keeps it
because the view shows it to nobody, but a legal move could name it (a claim of the
revealed slot) and the reveal's words did. The §7 log to the CABO call is recorded twice
with different revealed values: every open read must be the same, byte for byte.
"""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.api.test_private_reads import cabo_to_the_call, ev, normalised, open_reads
from tests.conftest import Scorer


def cabo_revealed(client: FlaskClient, card: str) -> Scorer:
    scorer = cabo_to_the_call(client, {})
    scorer.record(ev("reveal", cards=[{"seat": 2, "slot": 3, "card": card}]))  # Carl's slot 3, face down
    return scorer


def test_a_cabo_reveal_during_play_reaches_no_open_read(client: FlaskClient) -> None:
    ten, three = cabo_revealed(client, "10"), cabo_revealed(client, "3")
    a, b = open_reads(ten, 4), open_reads(three, 4)
    for path in a:
        if path.startswith("/matches"):  # the list holds both matches
            continue
        assert normalised(a[path], ten.id) == normalised(b[path], three.id), path
    moves = ten.get("/legal-moves")["moves"]
    assert {"type": "take_discard", "data": {"seat": 2}} in moves and all("cards" not in m["data"] for m in moves)
    # the scorer is offered the claim of the revealed 10 on the discarded 10
    assert {"type": "take_discard", "data": {"seat": 2, "slots": [3], "cards": ["10"]}} in ten.read("/legal-moves")["moves"]
    assert ten.get("/replay")["frames"][-1]["text"] == "Revealed: Carl's slot 3 is ??"
    assert ten.read("/replay")["frames"][-1]["text"] == "Revealed: Carl's slot 3 is 10"
