"""Private values the public fold keeps (``unknown="keep"``) never reach an open read.

A Cabo ``reveal`` during play tells the record a face-down card; the public fold keeps it
because the view shows it to nobody, but a legal move could name it (a claim of the
revealed slot) and the reveal's words did. The §7 log to the CABO call is recorded twice
with different revealed values: every open read must be the same, byte for byte.
"""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from tests.api.open_reads import cabo_to_the_call, ev, leaks, normalised, open_reads
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
    assert {"type": "take_discard", "data": {"seat": 2, "slots": [3], "cards": ["10"]}} in ten.read("/legal-moves")[
        "moves"
    ]
    assert ten.get("/replay")["frames"][-1]["text"] == "Revealed: Carl's slot 3 is ??"
    assert ten.read("/replay")["frames"][-1]["text"] == "Revealed: Carl's slot 3 is 10"


def test_kabu_open_cards_are_listed_once_the_last_keep_turns_them_up(scorer: Scorer) -> None:
    """Under choose5 the six open cards lie face down until every seat has kept a card
    (docs/RULES.md §2.2): the open listing hides them until then and shows them, with their salt,
    from the last keep on, as the state does; the chain still verifies from the listing."""
    from ledger import verify_listing

    scorer.start({"game": "kabu", "players": ["A", "B", "C"], "options": {"start": "choose5", "openSix": True}})
    six = ["AH", "2H", "3H", "4H", "5H", "6H"]
    scorer.record(
        ev("hand_started", dealer=0, hands=[["7C", "8C", "9D", "??", "??"], ["??"] * 5, ["??"] * 5], table=six),
        ev("keep", seat=1, card="??"),
        ev("keep", seat=2, card="??"),
    )

    def listed() -> dict[str, object]:
        listing = scorer.get("/events")["events"]
        summary = scorer.get()
        assert verify_listing(scorer.id, listing, summary["version"], summary["head"]).valid
        return listing[1]

    deal = listed()
    assert deal["data"]["table"]["private"] is True and "private" not in deal
    for path, body in open_reads(scorer, 3).items():  # face down: no open read shows them
        assert not leaks(body, six), f"{path} shows {leaks(body, six)}"
    assert any(m["type"] == "keep" and m["data"]["seat"] == 0 for m in scorer.get("/legal-moves")["moves"])
    scorer.record(ev("keep", seat=0, card="7C"))  # the last keep: the open cards are turned up
    deal = listed()
    assert deal["data"]["table"] == six and [item["path"] for item in deal["private"]] == [["table"]]
    assert all(hand["private"] is True for hand in deal["data"]["hands"])  # the hands stay hidden
    assert "AH" in json.dumps(scorer.get("/state")["state"])  # as the state shows them
    assert scorer.get("/replay")["frames"][1]["data"]["table"] == six
    keep = scorer.get("/events")["events"][4]
    assert keep["data"]["card"]["private"] is True  # A's kept 7C stays private
    scorer.record(ev("void", target=5, reason="A has not kept yet"))  # the last keep voided: face down again
    assert listed()["data"]["table"]["private"] is True
