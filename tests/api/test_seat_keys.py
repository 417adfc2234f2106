"""Seat keys and signed confirmations (issue 31) through HTTP, on SQLite and PostgreSQL.

Signed as the browser signs: an ECDSA P-256 key pair, SHA-256, the DER signature turned into
IEEE P1363 (r then s, 32 bytes each), base64url without padding; the public key as a JWK.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from flask import Flask

from api.app import create_app
from api.cli import main
from engines import ENGINES
from ledger import canonical_json
from tests.conftest import Clock, Scorer
from tests.engines.drivers import playout

CB1 = {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"], "initial": {"totals": [20, 93, 85, 40]}}
LAYOUTS = [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]]


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Phone:
    """A player's phone: its seat key and its own key pair, signing as WebCrypto does."""

    def __init__(self, scorer: Scorer, seat: int) -> None:
        self.scorer, self.seat = scorer, seat
        issued = scorer.client.post(
            f"/matches/{scorer.id}/seats/{seat}/key", headers={"Authorization": f"Bearer {scorer.token}"}
        )
        assert issued.status_code == 201, issued.get_json()
        body = issued.get_json()
        assert body["link"] == f"/m/{scorer.id}/seat/{seat}#key={body['key']}"
        self.key = body["key"]
        self.private = ec.generate_private_key(ec.SECP256R1())

    def jwk(self) -> dict[str, str]:
        numbers = self.private.public_key().public_numbers()
        return {
            "kty": "EC",
            "crv": "P-256",
            "x": b64(numbers.x.to_bytes(32, "big")),
            "y": b64(numbers.y.to_bytes(32, "big")),
        }

    def register(self) -> None:
        response = self.scorer.client.post(
            f"/matches/{self.scorer.id}/seats/{self.seat}/signer", json={"publicKey": self.jwk()}, headers=self.auth()
        )
        assert response.status_code == 201, response.get_json()

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def sign(
        self, hand: int, *, result: Any = None, head: str | None = None, seat: int | None = None
    ) -> dict[str, Any]:
        audit = self.scorer.get("/audit")
        head = head or audit["chain"]["head"]
        seat = self.seat if seat is None else seat
        if result is None:
            result = next(h for h in audit["hands"] if h["hand"] == hand)["result"]
        message = canonical_json({"match": self.scorer.id, "hand": hand, "seat": seat, "result": result, "head": head})
        r, s = decode_dss_signature(self.private.sign(message, ec.ECDSA(hashes.SHA256())))
        signature = b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
        return ev("confirm", hand=hand, seat=seat, head=head, signature=signature)

    def post(self, *events: dict[str, Any]) -> Any:
        return self.scorer.client.post(
            f"/matches/{self.scorer.id}/events", json={"events": list(events)}, headers=self.auth()
        )


@pytest.fixture
def app(db_path: Path, clock: Clock) -> Iterator[Flask]:
    yield create_app({"TANTEO_DB": str(db_path), "TESTING": True, "TANTEO_CLOCK": clock})


def cb1(scorer: Scorer, **options: Any) -> None:
    scorer.start({**CB1, "options": options})
    scorer.record(ev("hand_started", dealer=0), ev("hand_result", layouts=LAYOUTS, caller=0))


def refused(scorer: Scorer, phone: Phone, status: int, code: str, *events: dict[str, Any]) -> dict[str, Any]:
    before = scorer.raw_log()
    response = phone.post(*events)
    body = response.get_json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert "Traceback" not in body["detail"] and "<" not in body["detail"]
    assert scorer.raw_log() == before  # nothing written
    return body  # type: ignore[no-any-return]


def hand(scorer: Scorer, number: int) -> dict[str, Any]:
    return next(h for h in scorer.get("/audit")["hands"] if h["hand"] == number)  # type: ignore[no-any-return]


def test_a_seat_key_confirms_its_own_seats_hand_and_nothing_else(scorer: Scorer) -> None:
    cb1(scorer, confirmation="all")
    ben, carl = Phone(scorer, 1), Phone(scorer, 2)
    ben.register()
    carl.register()
    refused(scorer, ben, 403, "seat.not_allowed", ev("hand_started", dealer=1))
    refused(scorer, ben, 403, "seat.not_allowed", ev("note", text="Ben was here"))
    refused(scorer, ben, 403, "seat.not_allowed", ev("seat_key", seat=1, hash="0" * 64))
    refused(scorer, ben, 422, "seat.other_seat", carl.sign(1))
    refused(scorer, ben, 422, "seat.other_seat", ev("dispute", hand=1, seat=2, reason="Carl had 8"))
    refused(scorer, ben, 422, "seat.other_seat", ben.sign(1, seat=2))
    rotate = scorer.client.post(f"/matches/{scorer.id}/token", headers=ben.auth())
    assert (rotate.status_code, rotate.get_json()["code"]) == (403, "seat.not_allowed")
    again = scorer.client.post(f"/matches/{scorer.id}/seats/1/key", headers=ben.auth())
    assert again.status_code == 403
    # the scorer cannot register a seat's signing key for it
    forged = scorer.client.post(
        f"/matches/{scorer.id}/seats/1/signer",
        json={"publicKey": ben.jwk()},
        headers={"Authorization": f"Bearer {scorer.token}"},
    )
    assert (forged.status_code, forged.get_json()["code"]) == (403, "seat.not_allowed")

    assert ben.post(ben.sign(1)).status_code == 201
    audit = hand(scorer, 1)
    assert [(c["seat"], c["name"], c["valid"]) for c in audit["confirmations"]] == [(1, "Ben", True)]
    assert audit["needs"] == [0, 2, 3] and audit["settled"] is False
    assert ben.post(ev("dispute", hand=1, seat=1, reason="I had 6, not 7")).status_code == 201
    summary = scorer.get()
    assert summary["confirmation"] == "all"
    assert summary["seats"][1] == {"seat": 1, "hasKey": True, "hasSigner": True}
    assert summary["seats"][0] == {"seat": 0, "hasKey": False, "hasSigner": False}
    assert ben.key not in json.dumps(summary)

    old = ben.key
    ben2 = Phone(scorer, 1)  # a new key for the seat: the old one stops working
    ben.key = old
    assert ben.post(ev("dispute", hand=1, seat=1, reason="again")).status_code == 403
    assert ben2.post(ev("dispute", hand=1, seat=1, reason="again")).status_code == 201


def test_a_seat_key_reads_exactly_what_an_open_reader_reads(scorer: Scorer) -> None:
    events, _ = playout("cabo", 0)
    scorer.start(dict(events[0].data))
    scorer.record(*[ev(e.type, **e.data) for e in events[1:12]])  # a hand in play: peeks only their seats saw
    phone = Phone(scorer, 1)
    assert scorer.get("/state")["disclosed"] is False
    for path in ("/events", "/state?seat=0", "/state?seat=1", "/replay", "/audit", "/export?format=jsonl"):
        open_read = scorer.client.get(f"/matches/{scorer.id}{path}")
        seat_read = scorer.client.get(f"/matches/{scorer.id}{path}", headers=phone.auth())
        assert seat_read.status_code == open_read.status_code, path
        assert seat_read.data == open_read.data, path
    scorer_read = scorer.client.get(f"/matches/{scorer.id}/events", headers={"Authorization": f"Bearer {scorer.token}"})
    assert scorer_read.data != scorer.client.get(f"/matches/{scorer.id}/events", headers=phone.auth()).data
    everything = scorer.client.get(f"/matches/{scorer.id}/state?seat=all", headers=phone.auth())
    assert everything.status_code == 401


def test_a_confirmation_that_does_not_hold_is_refused_in_words(scorer: Scorer) -> None:
    cb1(scorer, confirmation="opponents")
    ben = Phone(scorer, 1)
    refused(scorer, ben, 422, "seat.no_signer", ben.sign(1))
    ben.register()
    refused(scorer, ben, 422, "seat.not_scored", ben.sign(2, result={"sums": [1]}))
    signed = ben.sign(1)
    bad = {**signed, "data": {**signed["data"], "signature": b64(bytes(64))}}
    assert "signature" in refused(scorer, ben, 422, "seat.bad_signature", bad)["detail"]
    refused(scorer, ben, 422, "seat.stale_head", ben.sign(1, head="ab" * 32))
    refused(scorer, ben, 422, "seat.bad_signature", ben.sign(1, result={"scores": [0, 0, 0, 0]}))
    stale = ben.sign(1)  # read before the scorer corrects the hand
    scorer.record(ev("amend", target=3, reason="Ben called", data={"layouts": LAYOUTS, "caller": 1}))
    refused(scorer, ben, 422, "seat.result_changed", stale)
    assert ben.post(ben.sign(1)).status_code == 201
    # an amend of the seat's entries, or a void of them, is refused too
    seq = scorer.get()["version"]
    response = scorer.post(ev("void", target=seq, reason="the scorer would rather not"))
    assert (response.status_code, response.get_json()["code"]) == (422, "seat.not_correctable")


def test_a_confirmation_survives_export_and_import_and_a_forged_one_is_refused(
    scorer: Scorer, tmp_path: Path, clock: Clock
) -> None:
    cb1(scorer, confirmation="all")
    ben = Phone(scorer, 1)
    ben.register()
    assert ben.post(ben.sign(1)).status_code == 201
    head = scorer.get()["head"]
    archive = scorer.client.get(f"/matches/{scorer.id}/export?format=jsonl").data.decode()
    other = create_app({"TANTEO_DB": str(tmp_path / "other.db"), "TESTING": True, "TANTEO_CLOCK": clock}).test_client()
    done = other.post("/matches/import", data=archive.encode(), content_type="application/x-ndjson")
    assert done.status_code == 201, done.get_json()
    assert other.get(f"/matches/{scorer.id}").get_json()["head"] == head
    assert other.get(f"/matches/{scorer.id}/audit").get_json()["hands"][0]["confirmations"][0]["name"] == "Ben"

    lines = archive.splitlines()
    last = json.loads(lines[-1])
    assert last["type"] == "confirm"
    forged = ben.sign(1, result={"scores": [0, 0, 0, 0]})["data"]
    last["data"]["signature"] = forged["signature"]
    # the chain is recomputed on import: rehash the forged line so that only the signature is wrong
    from ledger.records import chain_hash

    fields = ("prev", "match", "seq", "type", "data", "at", "by", "key")
    last["hash"] = chain_hash(*(last[f] for f in fields), last.get("format", 1))
    lines[-1] = json.dumps(last)
    third = create_app({"TANTEO_DB": str(tmp_path / "third.db"), "TESTING": True, "TANTEO_CLOCK": clock}).test_client()
    refusal = third.post(
        "/matches/import", data=("\n".join(lines) + "\n").encode(), content_type="application/x-ndjson"
    )
    body = refusal.get_json()
    assert refusal.status_code == 422, body
    assert body["errors"][0]["code"] == "seat.bad_signature", body
    assert third.get(f"/matches/{scorer.id}").status_code == 404


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_confirmation_settles_over_random_playouts_with_corrections(scorer: Scorer, game: str) -> None:
    events, _ = playout(game, 1)
    start = dict(events[0].data)
    scorer.start({**start, "options": {**start.get("options", {}), "confirmation": "all"}})
    scorer.record(*[ev(e.type, **e.data) for e in events[1:]])
    phones = [Phone(scorer, seat) for seat in range(len(start["players"]))]
    for phone in phones:
        phone.register()
    hands = scorer.get("/audit")["hands"]
    assert hands and all(h["settled"] is False and h["needs"] == list(range(len(phones))) for h in hands)
    for h in hands:
        for phone in phones:
            assert phone.post(phone.sign(h["hand"])).status_code == 201
    assert all(h["settled"] and h["needs"] == [] for h in scorer.get("/audit")["hands"])

    last = events[-1]  # void the last hand's last event, then record it again: asked to sign again
    version = scorer.get()["version"]
    scorer.record(ev("void", target=len(events), reason="written too soon"))
    scorer.record(ev(last.type, **last.data))
    after = scorer.get("/audit")["hands"]
    assert [h["settled"] for h in after[:-1]] == [True] * (len(after) - 1)
    assert after[-1]["settled"] is False and after[-1]["needs"] == list(range(len(phones)))
    assert after[-1]["confirmations"] == []
    for phone in phones:
        assert phone.post(phone.sign(after[-1]["hand"])).status_code == 201
    assert all(h["settled"] for h in scorer.get("/audit")["hands"])
    assert scorer.get()["version"] > version


def test_opponents_need_only_the_seats_that_did_not_win(scorer: Scorer) -> None:
    cb1(scorer, confirmation="opponents")
    audit = hand(scorer, 1)
    winners = set(range(4)) - set(audit["needs"])
    assert winners == set(audit["result"]["winners"])


def test_verify_says_who_signed_which_hand_and_exits_2_on_a_bad_signature(scorer: Scorer, db_path: Path) -> None:
    cb1(scorer, confirmation="all")
    ben = Phone(scorer, 1)
    ben.register()
    assert ben.post(ben.sign(1)).status_code == 201
    runner = CliRunner()
    out = runner.invoke(main, ["verify", "--db", str(db_path), scorer.id])
    assert out.exit_code == 0, out.output
    assert "hand 1: Ben (seat 1) signed ✓" in out.output

    from ledger import NewEvent, open_ledger

    carl = Phone(scorer, 2)
    carl.register()
    forged = carl.sign(1, result={"scores": [0, 0, 0, 0]})
    ledger = open_ledger(str(db_path))  # written past the service: only a broken tool could
    ledger.append(scorer.id, [NewEvent("confirm", forged["data"])], by="")
    out = runner.invoke(main, ["verify", "--db", str(db_path), scorer.id])
    assert out.exit_code == 2, out.output
    assert "hand 1: Carl's signature does not verify ✗" in out.output
