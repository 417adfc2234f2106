"""Helpers shared by tests (moved out of tests.api.test_private_reads, so that no test module imports another)."""

from __future__ import annotations
import json
import re
from typing import Any
from flask.testing import FlaskClient
from ledger import verify_listing
from tests.api.cabo_logs import vocabulary_log
from tests.conftest import Scorer


SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "o": " oros", "c": " copas", "e": " espadas", "b": " bastos"}


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


KABU_OPEN_SIX = {"game": "kabu", "players": ["A", "B", "C"], "options": {"start": "choose5", "openSix": True}}
"""A Kabú match dealt five cards each with six open on the table (the scorer knows seat 0's three)."""

KABU_OPEN_DEAL = ev(
    "hand_started",
    dealer=0,
    hands=[["7C", "8C", "9D", "??", "??"], ["??"] * 5, ["??"] * 5],
    table=["AH", "2H", "3H", "4H", "5H", "6H"],
)
"""Its deal: seat 0's first three cards known, every other card face down."""


def open_reads(scorer: Scorer, seats: int) -> dict[str, bytes]:
    """Every open read of the match, without the token: path → body."""
    version = scorer.get()["version"]
    paths = [
        "",
        "/events",
        "/events?after=1&limit=2",
        "/legal-moves",
        "/audit",
        "/replay",
        "/replay?course=recorded",
        "/state",
        "/export",
        "/export?format=jsonl",
        "/sheet.csv",
    ]
    for seat in range(seats):
        paths += [f"/replay?seat={seat}", f"/replay?seat={seat}&course=recorded", f"/state?seat={seat}"]
    for at in range(1, version + 1):
        paths.append(f"/state?at={at}")
        paths += [f"/state?at={at}&seat={seat}" for seat in range(seats)]
    out = {}
    playing = scorer.get()["status"] == "playing"
    for path in paths:
        response = scorer.client.get(f"/matches/{scorer.id}{path}")
        if path == "/export?format=jsonl" and playing and response.status_code != 200:  # it hides a card: needs the key
            assert response.status_code == 401 and response.get_json()["code"] == "auth.missing", response.get_json()
            assert "write key" in response.get_json()["detail"]
        else:
            assert response.status_code == 200, (path, response.get_json())
        out[path] = response.data
    game = json.loads(out[""])["game"]
    for listing in (
        "/matches",
        f"/matches?game={game}&status=playing",
        "/matches.csv",
        "/matches/export",
    ):  # every match
        response = scorer.client.get(listing)
        assert response.status_code == 200, listing
        assert scorer.id in response.text or (listing == "/matches/export" and playing), listing
        out[listing] = response.data
    return out


def assert_open_text_imports(client: FlaskClient, text: bytes) -> None:
    """The open text export of a match in play is what a club publishes: it imports as a new
    match, its hidden cards unknown. Where the rules need a card the reader may not see to go
    on (a discard the record could name, open cards not yet turned up), the import keeps every
    event before it and says so in words."""
    imported = client.post("/matches/import", data=text, content_type="text/plain")
    assert imported.status_code == 201, imported.get_json()
    report = imported.get_json()
    assert len(report["imported"]) == 1 and report["imported"][0]["version"] >= 1
    for error in report["errors"]:
        assert error["code"] in ("notation.bad_card", "la-cabra.name_discard"), error
        assert "unseen card (??)" in error["message"] or "name the other" in error["message"], error


def leaks(body: bytes, cards: list[str]) -> list[str]:
    """The private cards a response shows, as written (``8H``) or as words print them (``8♥``, ``7 bastos``)."""
    text = body.decode("utf-8")
    try:
        text += json.dumps(json.loads(body), ensure_ascii=False)
    except ValueError:  # the text notation, JSON Lines, CSV: searched as they are
        pass
    found = []
    for card in cards:
        rank, suit = card[:-1], card[-1]
        # '-' and '_' count as part of a word: match ids are random URL-safe text, and an id
        # like "x-8S_yz" must not read as the card 8S (it made these tests fail now and then)
        written = rf"(?<![0-9A-Za-z_-]){re.escape(card)}(?![0-9A-Za-z_-])"
        spoken = rf"(?<![0-9A-Za-z_-]){re.escape(rank + SUITS[suit])}"
        if re.search(written, text) or re.search(spoken, text):
            found.append(card)
    return found


def assert_hidden_then_shown(scorer: Scorer, seats: int, private: list[str]) -> None:
    reads = open_reads(scorer, seats)
    for path, body in reads.items():
        assert not leaks(body, private), f"{path} shows {leaks(body, private)}"
    if scorer.get()["status"] == "playing":
        assert_open_text_imports(scorer.client, reads["/export"])
    response = scorer.client.get(f"/matches/{scorer.id}/state", query_string={"seat": "all"})
    assert response.status_code == 401  # the omniscient view of a match in play needs the token
    for path in ("/events", "/state", "/replay", "/legal-moves", "/audit"):  # shared caches keep the two bodies apart
        assert "Authorization" in scorer.client.get(f"/matches/{scorer.id}{path}").vary
    with_token = json.dumps(scorer.read("/events"))
    assert set(leaks(with_token.encode(), private)) == set(private)  # the scorer sees every value
    listing = scorer.get("/events")["events"]
    assert any('"private": true' in json.dumps(e["data"]) for e in listing)  # a marked placeholder, not a gap
    summary = scorer.get()
    assert verify_listing(scorer.id, listing, summary["version"], summary["head"]).valid


NORMALISE = [
    (re.compile(rb'"[0-9a-f]{64}"'), b'"H"'),
    (re.compile(rb'"[0-9a-f]{32}"'), b'"S"'),
    (re.compile(rb'"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"'), b'"T"'),
]


def normalised(body: bytes, match_id: str) -> bytes:
    body = body.replace(match_id.encode(), b"M")
    for pattern, replacement in NORMALISE:
        body = pattern.sub(replacement, body)
    return body


def cabo_to_the_call(client: FlaskClient, changes: dict[int, dict[str, Any]]) -> Scorer:
    """The VOCABULARY §7 Cabo log up to Ben's CABO call (seq 20), with some private values changed."""
    log = vocabulary_log()
    scorer = Scorer(client)
    scorer.start(log[0]["data"])
    events = [dict(e, data={**e["data"], **changes.get(seq, {})}) for seq, e in enumerate(log[1:20], start=2)]
    scorer.record(*events)
    assert events[-1]["type"] == "call_cabo"
    return scorer
