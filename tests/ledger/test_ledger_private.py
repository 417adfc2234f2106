"""Chain format 2: private values enter the hash as salted commitments, on every backend.

The ledger knows no game: the writer names the private places of each event. Checked here:
the salts are fresh and stored beside the event, the hash recomputes from the public form
(placeholders with commitments) alone, a value or salt changed by one byte is caught
(in the file and in a listing), and rows written with format 1 keep verifying.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from tests.ledger.ledger_helpers import start
from tests.ledger.sqlite_helpers import drop_edit_restore, raw

from ledger import (
    GENESIS,
    Ledger,
    NewEvent,
    SqliteLedger,
    chain_hash,
    chain_hash_v2,
    verify_file,
    verify_listing,
)
from ledger.records import canonical_json, public_data

PEEK = NewEvent("peek", {"seat": 2, "card": "8", "slot": 3, "value": "1"}, private=(("value",),))
DEAL = NewEvent(
    "hand_started", {"dealer": 0, "hands": [["7D", "8S"], ["QH", "KC"]]}, private=(("hands", 0), ("hands", 1))
)


def listing(book: Ledger, full: bool) -> list[dict[str, object]]:
    out = []
    for event in book.read("m1"):
        envelope = event.envelope()
        if not full:
            envelope.pop("private", None)
            envelope["data"] = public_data(event)
        out.append(envelope)
    return out


def test_private_values_are_committed_with_fresh_salts(ledger: Ledger) -> None:
    start(ledger)
    ledger.append("m1", [DEAL, PEEK], by="scorer")
    deal, peek = ledger.read("m1", after=1)
    assert deal.format == peek.format == 2
    assert peek.data["value"] == "1"  # the store keeps the value; only its listing hides it
    ((path, salt),) = peek.private
    assert path == ("value",) and len(salt) == 32 and int(salt, 16) >= 0
    assert len({s for _, s in deal.private} | {salt}) == 3  # a fresh salt per value
    shown = public_data(peek)
    digest = hashlib.sha256(salt.encode() + canonical_json("1")).hexdigest()
    assert shown["value"] == {"private": True, "commitment": digest}
    assert peek.hash == chain_hash_v2(peek.prev, "m1", peek.seq, "peek", shown, peek.at, peek.by, peek.key)
    assert public_data(deal)["hands"][0]["private"] is True and "7D" not in json.dumps(public_data(deal))
    (report,) = ledger.verify("m1")
    assert report.valid and report.length == 3


def test_a_listing_verifies_with_values_hidden_and_with_values_shown(ledger: Ledger) -> None:
    start(ledger)
    ledger.append("m1", [DEAL, PEEK], by="scorer")
    head = ledger.get_match("m1").head
    for full in (False, True):
        report = verify_listing("m1", listing(ledger, full), 3, head)
        assert report.valid and report.head == head, report


@pytest.mark.parametrize("where", ["value", "salt", "commitment", "hidden commitment"])
def test_a_changed_byte_in_a_listed_value_or_salt_is_caught(ledger: Ledger, where: str) -> None:
    start(ledger)
    ledger.append("m1", [PEEK], by="scorer")
    envelopes = listing(ledger, where != "hidden commitment")
    peek = envelopes[1]
    if where == "value":
        peek["data"] = {**peek["data"], "value": "7"}  # type: ignore[dict-item]
    elif where == "hidden commitment":
        hidden = peek["data"]["value"]  # type: ignore[index]
        hidden["commitment"] = ("0" if hidden["commitment"][0] != "0" else "1") + hidden["commitment"][1:]
    else:
        item = peek["private"][0]  # type: ignore[index]
        item[where] = ("0" if item[where][0] != "0" else "1") + item[where][1:]
    report = verify_listing("m1", envelopes)
    assert not report.valid and report.first_bad == 2, report


def test_a_path_that_is_not_in_the_data_is_refused_and_nothing_written(ledger: Ledger) -> None:
    start(ledger)
    with pytest.raises(ValueError, match="not in the data"):
        ledger.append("m1", [NewEvent("draw", {"seat": 0}, private=(("card",),))], by="scorer")
    assert ledger.version("m1") == 1


def test_a_changed_salt_in_the_file_is_caught(db_path: Path) -> None:
    with SqliteLedger(db_path) as book:
        start(book)
        book.append("m1", [PEEK], by="scorer")
        (salt,) = [s for _, s in book.read("m1")[1].private]
    forged = json.dumps([[["value"], ("0" if salt[0] != "0" else "1") + salt[1:]]], separators=(",", ":"))
    drop_edit_restore(db_path, "UPDATE events SET private = ? WHERE match_id = 'm1' AND seq = 2", params=(forged,))
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 2 and "hash" in (report.reason or "")


def test_a_changed_private_value_in_the_file_is_caught(db_path: Path) -> None:
    with SqliteLedger(db_path) as book:
        start(book)
        book.append("m1", [PEEK], by="scorer")
    drop_edit_restore(
        db_path,
        "UPDATE events SET data = ? WHERE match_id = 'm1' AND seq = 2",
        params=('{"card":"8","seat":2,"slot":3,"value":"2"}',),
    )
    (report,) = verify_file(db_path)
    assert not report.valid and report.first_bad == 2


def test_format_1_rows_keep_verifying_beside_format_2(db_path: Path) -> None:
    """A file written before format 2: rows with fmt 1 and no salts, then new appends."""
    with SqliteLedger(db_path):
        pass  # create the tables
    conn: sqlite3.Connection = raw(db_path)
    at = "2026-01-01T00:00:00.000Z"
    prev = GENESIS
    rows = [
        ("match_started", {"game": "cabo", "players": ["A", "B"]}),
        ("peek", {"seat": 0, "card": "8", "slot": 1, "value": "5"}),
    ]
    for seq, (etype, data) in enumerate(rows, start=1):
        digest = chain_hash(prev, "old", seq, etype, data, at, "scorer", None)
        conn.execute(
            'INSERT INTO events (match_id, seq, type, data, at, "by", "key", prev, hash, fmt) '
            "VALUES ('old', ?, ?, ?, ?, 'scorer', NULL, ?, ?, 1)",
            (seq, etype, canonical_json(data).decode(), at, prev, digest),
        )
        prev = digest
    conn.execute(
        "INSERT INTO matches (id, game, token_hash, created_at, players, status, version, head) "
        "VALUES ('old', 'cabo', 'x', ?, '[\"A\",\"B\"]', 'playing', 2, ?)",
        (at, prev),
    )
    conn.close()
    (report,) = verify_file(db_path)
    assert report.valid and report.length == 2
    with SqliteLedger(db_path) as book:
        book.append("old", [PEEK], by="scorer")
        events = book.read("old")
        assert [e.format for e in events] == [1, 1, 2]
        full = [e.envelope() for e in events]
    (report,) = verify_file(db_path)
    assert report.valid and report.length == 3
    assert verify_listing("old", full).valid
    hidden = [dict(full[0]), {**full[1], "data": {**full[1]["data"], "value": {"private": True}}}, full[2]]  # type: ignore[dict-item]
    report = verify_listing("old", hidden)
    assert not report.valid and report.first_bad == 2 and "format-1" in (report.reason or "")


def test_a_batch_draws_its_salts_in_one_read_each_value_its_own(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OS's randomness is read once per batch (not once per event); the bytes drawn are cut
    into one 16-byte salt per private value, in order, none shared."""
    import secrets

    import ledger._core as core

    start(ledger)
    draws: list[bytes] = []
    read = secrets.token_bytes

    def token_bytes(n: int) -> bytes:
        draws.append(read(n))
        return draws[-1]

    monkeypatch.setattr(core.secrets, "token_bytes", token_bytes)
    ledger.append("m1", [DEAL, NewEvent("note", {"text": "shuffle"}), PEEK], by="scorer")
    deal, _, peek = ledger.read("m1", after=1)
    assert len(draws) == 1 and len(draws[0]) == 3 * 16
    salts = [s for _, s in deal.private] + [s for _, s in peek.private]
    assert salts == [draws[0][i * 16 : (i + 1) * 16].hex() for i in range(3)] and len(set(salts)) == 3
    assert ledger.verify("m1")[0].valid
    ledger.append("m1", [NewEvent("note", {"text": "no secret"})], by="scorer")
    assert len(draws) == 1  # a batch without private values reads no randomness
