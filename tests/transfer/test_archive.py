"""The lossless archive: export → import gives back every match with the same id, version and head."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.transfer.playouts import GAMES, record

from api.service import Service
from api.service import transfer
from ledger import SqliteLedger


def service_on(path: Path) -> Service:
    return Service(SqliteLedger(path))


@pytest.mark.parametrize("game", GAMES)
def test_archive_round_trip_of_random_playouts(game: str, tmp_path: Path) -> None:
    source = service_on(tmp_path / "a.db")
    ids = [record(source, game, seed)["id"] for seed in (1, 2)]
    ids.append(record(source, game, 3, limit=25)["id"])  # one left in play
    lines = list(transfer.all_lines(source, full=True))
    assert all(json.loads(line)["match"] in ids for line in lines)
    target = service_on(tmp_path / "b.db")
    report = transfer.import_archive(target, lines)
    assert report["errors"] == [] and report["unchanged"] == []
    assert sorted(m["id"] for m in report["imported"]) == sorted(ids)
    for item in report["imported"]:
        original = source.ledger.get_match(item["id"])
        copy = target.ledger.get_match(item["id"])
        assert (copy.version, copy.head, copy.status, copy.created_at, copy.players) == (
            original.version,
            original.head,
            original.status,
            original.created_at,
            original.players,
        )
        assert (item["version"], item["head"]) == (original.version, original.head)
        assert [e.envelope() for e in target.ledger.read(item["id"])] == [
            e.envelope() for e in source.ledger.read(item["id"])
        ]
        assert target.audit(item["id"]) == source.audit(item["id"])
        # the new token writes; the old one does not open the copy
        target.record(item["id"], [{"type": "note", "data": {"text": "restored"}}], token=item["token"])
    assert all(r.valid for r in target.ledger.verify())
    # a match stored with other events (the note above) is refused by its line, nothing written
    differs = transfer.import_archive(target, lines)
    assert differs["imported"] == [] and {e["code"] for e in differs["errors"]} == {"import.exists_different"}
    assert sorted(e["match"] for e in differs["errors"]) == sorted(ids)
    # the same file imported twice: the second time every match is unchanged
    fresh = service_on(tmp_path / "c.db")
    assert len(transfer.import_archive(fresh, lines)["imported"]) == 3
    again = transfer.import_archive(fresh, lines)
    assert again["imported"] == [] and again["errors"] == []
    assert sorted(m["id"] for m in again["unchanged"]) == sorted(ids)


def test_open_exports_of_a_match_in_play_hide_private_values(tmp_path: Path) -> None:
    """Without the token, while in play: the text writes ``??`` for each hidden card and imports
    as a new match with those cards unknown; the lossless archive needs the write key (401, in
    words); the token's archive imports as the very match."""
    from api.app import create_app

    client = create_app({"TANTEO_DB": str(tmp_path / "p.db"), "TESTING": True}).test_client()
    text = (Path(__file__).parent / "texts" / "cau-robat.tnt").read_bytes()
    item = client.post("/matches/import", data=text, content_type="text/plain").get_json()["imported"][0]
    match_id, token = item["id"], item["token"]
    public = client.get(f"/matches/{match_id}/export?format=jsonl")
    assert public.status_code == 401 and public.get_json()["code"] == "auth.missing"
    assert "write key" in public.get_json()["detail"] and "format=text" in public.get_json()["detail"]
    open_text = client.get(f"/matches/{match_id}/export").data.decode()
    assert "5o 12o" not in open_text
    assert "hands=[[?? ?? ?? ?? ?? ?? ?? ?? ??] [?? ?? ?? ?? ?? ?? ?? ?? ??]" in open_text, open_text
    full_response = client.get(f"/matches/{match_id}/export?format=jsonl", headers={"Authorization": f"Bearer {token}"})
    full = [json.loads(line) for line in full_response.data.splitlines()]
    assert next(e for e in full if e["type"] == "hand_started" and "hands" in e["data"])["private"]
    assert (
        "5o 12o"
        in client.get(f"/matches/{match_id}/export", headers={"Authorization": f"Bearer {token}"}).data.decode()
    )
    wrong = client.get(f"/matches/{match_id}/export?format=jsonl", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    other = create_app({"TANTEO_DB": str(tmp_path / "q.db"), "TESTING": True}).test_client()
    published = other.post("/matches/import", data=open_text.encode(), content_type="text/plain")
    assert published.status_code == 201 and not published.get_json()["errors"], published.get_json()
    copy = published.get_json()["imported"][0]
    assert copy["version"] == item["version"]
    assert (
        other.get(f"/matches/{copy['id']}").get_json()["standings"]
        == client.get(f"/matches/{match_id}").get_json()["standings"]
    )
    restored = other.post("/matches/import", data=full_response.data, content_type="application/x-ndjson")
    assert restored.status_code == 201 and restored.get_json()["imported"][0]["head"] == item["head"]
