"""The open reader tells the true score of every finished hand, and hides only what the rules hide.

Random legal playouts of the five games (the conformance drivers: move by move and result
only, with notes, claims and corrections woven in by ``tests/transfer/playouts.py``) are
recorded event by event. After every event:

* for every hand that has ended, the open audit's hand (status, result, points, totals,
  lines) and the claims about it are the write token's; once no hand is in play, so are the
  standings, in the summary and the audit;
* in every view, the score lines of each seat or team add up to its change of total;
* the open listing verifies alone (what ``tanteo verify --url`` checks), its values shown
  since their hand ended listed with their salts;
* no card the rules still hide (the values the reader's disclosure holds back, less every
  card the open log shows anyway) appears in the raw bytes of any open read: the summary,
  the listing (the stream sends the same envelopes), the state and replay, the legal moves,
  the audit, the text export, the spreadsheet, the match page, the printable sheet and the
  live stream (the newest event, as a follower receives it when it is appended).
  Cabo's cards are digits, which a byte search cannot tell from a count: its hiding is held
  by ``tests/api/test_private_reads.py``'s differential test, and its scores here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.context import own_service
from engines.privacy import get_at
from ledger import verify_listing
from tests.api.cabo_logs import vocabulary_log
from tests.api.open_reads import assert_open_text_imports, leaks, normalised, open_reads
from tests.conftest import Scorer
from tests.transfer.playouts import GAMES, decorated

SEEDS = (0, 1)
LIMIT = 70
"""Events of each playout recorded one by one (the reads after each cost the length of the log)."""


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TANTEO_DB": str(tmp_path / "reader.db"),
            "TESTING": True,
            "TANTEO_STREAM_SECONDS": 0.01,
            "TANTEO_STREAM_POLL": 0.005,
            "TANTEO_STREAM_HEARTBEAT": 0.005,
        }
    )
    yield app
    app.extensions["tanteo.ledgers"].close()


def unit_of(audit: dict[str, Any]) -> str:
    standings = audit["standings"]
    return "team" if standings and "team" in standings[0] else "seat"


def assert_lines_add_up(audit: dict[str, Any]) -> None:
    """A hand's score lines, per seat or team, sum to that standing's change of total."""
    unit = unit_of(audit)
    before: list[Any] | None = None
    for hand in audit["hands"]:
        totals = hand.get("totals")
        if hand["status"] == "scored" and isinstance(totals, list) and before is not None and hand.get("lines"):
            for key, (old, new) in enumerate(zip(before, totals)):
                if not (isinstance(old, int) and isinstance(new, int)):
                    continue
                lines = [
                    line["points"]
                    for line in hand["lines"]
                    if line.get(unit) == key and isinstance(line.get("points"), int)
                ]
                assert sum(lines) == new - old, (hand["hand"], key, lines, old, new)
        if isinstance(totals, list) and hand["status"] != "void":
            before = totals


def ended(audit: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {h["hand"]: h for h in audit["hands"] if h["status"] != "playing"}


def card_texts(value: Any) -> set[str]:
    """Every string in a value that could be a card (short, no spaces, not ``??``)."""
    if isinstance(value, str):
        return {value} if 1 < len(value) <= 3 and value != "??" else set()
    if isinstance(value, dict):
        return set().union(*(card_texts(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_texts(v) for v in value)) if value else set()
    return set()


def still_hidden(app: Flask, match_id: str) -> list[str]:
    """The cards the open reader's disclosure holds back that nothing open shows anyway."""
    with app.app_context():
        reader = own_service(app).reader(match_id)
        if reader.disclosure is None:
            return []
        log = {e.seq: e for e in reader.log}
        hidden: set[str] = set()
        for seq, secrets in reader.disclosure.hidden.items():
            for secret in secrets:
                hidden |= card_texts(get_at(log[seq].data, secret.path))
        public: set[str] = set()
        for event in reader.exported():
            public |= card_texts(event[2])
    return sorted(hidden - public)


OPEN_READS = (
    "",
    "/events",
    "/state",
    "/replay",
    "/replay?course=recorded",
    "/legal-moves",
    "/audit",
    "/export",
    "/sheet.csv",
)


def open_bodies(client: FlaskClient, match_id: str) -> Iterator[tuple[str, bytes]]:
    for path in OPEN_READS:
        response = client.get(f"/matches/{match_id}{path}")
        assert response.status_code == 200, (path, response.get_json())
        yield path, response.data
    for page in (f"/m/{match_id}", f"/m/{match_id}/sheet", f"/m/{match_id}/replay"):
        response = client.get(page)
        assert response.status_code == 200, page
        yield page, response.data
    version = client.get(f"/matches/{match_id}").get_json()["version"]
    response = client.get(f"/matches/{match_id}/stream", query_string={"lastEventId": version - 1})
    assert response.status_code == 200 and f"id: {version}" in response.get_data(as_text=True)
    yield "/stream (the newest event, as a follower gets it)", response.data


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", GAMES)
def test_the_open_reader_scores_every_finished_hand_truly_and_hides_the_rest(app: Flask, game: str, seed: int) -> None:
    client = app.test_client()
    events = decorated(game, seed, limit=LIMIT)
    created = client.post("/matches", json=events[0]["data"]).get_json()
    match_id, key = created["id"], {"Authorization": f"Bearer {created['token']}"}
    checked_hands = 0
    for event in events[1:]:
        response = client.post(f"/matches/{match_id}/events", json={"events": [event]}, headers=key)
        assert response.status_code == 201, response.get_json()
        full = client.get(f"/matches/{match_id}/audit", headers=key).get_json()
        public = client.get(f"/matches/{match_id}/audit").get_json()
        assert_lines_add_up(full)
        assert_lines_add_up(public)
        over, seen = ended(full), ended(public)
        assert set(seen) == set(over), (event, sorted(seen), sorted(over))
        for number, hand in over.items():  # a hand left incomplete may miss more cards in the open (never shown)
            assert {k: v for k, v in seen[number].items() if k != "missing"} == {
                k: v for k, v in hand.items() if k != "missing"
            }, (number, event)
        checked_hands = max(checked_hands, len(over))
        claims = {(c["hand"], c["field"], c.get("seat", c.get("team"))): c for c in full["claims"]}
        for claim in public["claims"]:
            if claim["hand"] in over:
                assert claim == claims[(claim["hand"], claim["field"], claim.get("seat", claim.get("team")))]
        if not full["hands"] or full["hands"][-1]["status"] != "playing":
            assert public["standings"] == full["standings"]
            summary = client.get(f"/matches/{match_id}").get_json()
            assert summary["standings"] == client.get(f"/matches/{match_id}", headers=key).get_json()["standings"]
        listing = client.get(f"/matches/{match_id}/events").get_json()["events"]
        summary = client.get(f"/matches/{match_id}").get_json()
        assert verify_listing(
            match_id, listing, summary["version"], summary["head"]
        ).valid  # tanteo verify --url's check
        if game == "cabo":
            continue
        hidden = still_hidden(app, match_id)
        if hidden:
            for path, body in open_bodies(client, match_id):
                assert not leaks(body, hidden), f"after {event['type']}: {path} shows {leaks(body, hidden)}"
    assert checked_hands >= 1, "the playout ended no hand: lengthen LIMIT"
    summary = client.get(f"/matches/{match_id}").get_json()
    if summary["status"] == "playing":  # the open text export is what a club publishes: it imports
        assert_open_text_imports(client, client.get(f"/matches/{match_id}/export").data)


def test_an_amend_of_the_options_never_shows_an_earlier_face_down_discard(app: Flask) -> None:
    """La Cabra: a deal with every hand known and face-down discards, then a house rule agreed
    mid-deal (``discardFaceUp: true``). The discards were private when recorded: they stay
    hidden in every open read until the deal ends."""
    client = app.test_client()
    start = {
        "game": "la-cabra",
        "players": ["North", "East", "South", "West"],
        "teams": [[0, 2], [1, 3]],
        "options": {},
    }
    created = client.post("/matches", json=start).get_json()
    match_id, key = created["id"], {"Authorization": f"Bearer {created['token']}"}
    hands = [["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], ["7C", "8C", "9C", "10C"]]
    events = [
        {"type": "hand_started", "data": {"dealer": 3, "trump": "QS", "hands": hands}},
        {"type": "lead", "data": {"seat": 0, "cards": ["6C"]}},
        {"type": "beat", "data": {"seat": 1, "cards": ["6S"]}},
        {"type": "discard", "data": {"seat": 2, "cards": ["7D"]}},
        {"type": "discard", "data": {"seat": 3, "cards": ["7C"]}},
        {
            "type": "amend",
            "data": {
                "target": 1,
                "data": {**start, "options": {"discardFaceUp": True}},
                "reason": "house rule agreed at the table",
            },
        },
    ]
    response = client.post(f"/matches/{match_id}/events", json={"events": events}, headers=key)
    assert response.status_code == 201, response.get_json()
    private = ["8H", "9H", "6D", "8S", "9S", "JH", "7D", "8D", "KD", "AD", "7C", "8C", "9C", "10C"]
    reads = [f"/matches/{match_id}{p}" for p in OPEN_READS] + [f"/matches/{match_id}/state?seat={s}" for s in range(4)]
    reads += [f"/matches/{match_id}/replay?seat={s}&course={c}" for s in range(4) for c in ("corrected", "recorded")]
    reads += [f"/m/{match_id}/replay", f"/m/{match_id}", f"/m/{match_id}/sheet"]
    for path in reads:
        body = client.get(path).data
        assert not leaks(body, private), f"{path} shows {leaks(body, private)}"
    assert "7D" in json.dumps(client.get(f"/matches/{match_id}/events", headers=key).get_json())


def cabo_failed_claim_then_amended(client: FlaskClient, drawn: str) -> Scorer:
    """§7's Cabo log under ``wrongMultiPenalty: keep`` to Dora's failed claim (seq 17): the card
    she drew (``drawn``, private) joins her row face down. Then the table agrees the penalty
    was ``discard`` after all, which would have laid that card face up."""
    log = vocabulary_log()
    scorer = Scorer(client)
    start = {**log[0]["data"], "options": {"wrongMultiPenalty": "keep"}}
    scorer.start(start)
    events = [dict(e) for e in log[1:17]]
    events[14] = {"type": "draw", "data": {"seat": 3, "card": drawn}}  # seq 16
    events[15] = {"type": "replace", "data": {"seat": 3, "slots": [1, 4], "cards": ["4", "2"]}}  # seq 17: fails
    scorer.record(*events)
    scorer.record(
        {
            "type": "amend",
            "data": {
                "target": 1,
                "data": {**start, "options": {"wrongMultiPenalty": "discard"}},
                "reason": "the penalty agreed was discard",
            },
        }
    )
    return scorer


def test_a_cabo_card_drawn_face_down_stays_hidden_when_the_penalty_is_amended(client: FlaskClient) -> None:
    """Cabo's values are digits, so the open reads of two such matches, differing only in the card
    Dora drew, must be byte for byte the same (ids, times and hashes aside)."""
    one, other = cabo_failed_claim_then_amended(client, "9"), cabo_failed_claim_then_amended(client, "13")
    assert (
        one.read("/state", seat="all")["state"] != other.read("/state", seat="all")["state"]
    )  # the scorer tells them apart
    a, b = open_reads(one, 4), open_reads(other, 4)
    for path in a:
        if path.startswith("/matches"):
            continue  # the list holds both matches
        assert normalised(a[path], one.id) == normalised(b[path], other.id), path


def test_kabu_cards_given_back_stay_hidden_an_amend_of_start_is_refused(client: FlaskClient) -> None:
    """Kabú's option that changes what is private is ``start``: under choose5 the cards given back
    are never shown. A match dealt five cards each cannot be amended to two (the deal would
    break), so no amend can make them public; after the hand, they are still hidden."""
    from tests.api.open_reads import leaks

    scorer = Scorer(client)
    start = {"game": "kabu", "players": ["A", "B", "C"], "options": {"start": "choose5"}}
    scorer.start(start)
    given_back = ["8C", "9D", "10S"]
    scorer.record(
        {"type": "hand_started", "data": {"dealer": 0, "hands": [["7C", *given_back, "AS"], ["??"] * 5, ["??"] * 5]}},
        {"type": "keep", "data": {"seat": 1, "card": "??"}},
        {"type": "keep", "data": {"seat": 2, "card": "??"}},
        {"type": "keep", "data": {"seat": 0, "card": "7C"}},
    )
    refused = scorer.post(
        {
            "type": "amend",
            "data": {"target": 1, "data": {**start, "options": {"start": "direct"}}, "reason": "we played two cards"},
        }
    )
    assert refused.status_code == 422 and refused.get_json()["code"] == "common.correction_breaks"
    for path, body in open_reads(scorer, 3).items():
        assert not leaks(body, given_back), f"{path} shows {leaks(body, given_back)}"
