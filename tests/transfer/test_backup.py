"""Backup and restore through the command line and HTTP: export --all, then import into an empty database."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from flask.testing import FlaskClient

from api.app import create_app
from api.cli import main
from api.service import Service
from ledger import SqliteLedger
from tests.transfer.backups import START, fill


def heads_of(db: Path) -> dict[str, str]:
    with SqliteLedger(db) as book:
        return {r.id: r.head for r in book.list_matches(limit=10_000)[0]}


def test_export_all_then_import_reproduces_every_head(tmp_path: Path) -> None:
    runner = CliRunner()
    heads = fill(tmp_path / "club.db", 200)
    archive = tmp_path / "backup.jsonl"
    out = runner.invoke(main, ["export", "--all", str(archive), "--db", str(tmp_path / "club.db")])
    assert out.exit_code == 0, out.output
    assert len(archive.read_text().splitlines()) == 200 * 4 + 50
    restored = runner.invoke(main, ["import", str(archive), "--db", str(tmp_path / "empty.db"), "--json"])
    assert restored.exit_code == 0, restored.output
    report = json.loads(restored.output)
    assert len(report["imported"]) == 200 and report["errors"] == []
    assert heads_of(tmp_path / "empty.db") == heads
    assert all(r.valid for r in SqliteLedger(tmp_path / "empty.db").verify())
    # the imported keys replay: a retried batch writes nothing
    service = Service(SqliteLedger(tmp_path / "empty.db"))
    item = report["imported"][0]
    batch = [e for e in service.ledger.read(item["id"]) if e.key]
    retry = service.record(
        item["id"],
        [{"type": e.type, "data": e.data} for e in batch],
        token=item["token"],
        by="scorer",
        key=batch[0].key,
    )
    assert retry.replayed and retry.version == batch[-1].seq


def test_one_altered_line_is_named_and_every_other_match_imported(tmp_path: Path) -> None:
    runner = CliRunner()
    heads = fill(tmp_path / "club.db", 12)
    archive = tmp_path / "backup.jsonl"
    runner.invoke(main, ["export", "--all", str(archive), "--db", str(tmp_path / "club.db")])
    lines = archive.read_text().splitlines()
    altered = next(i for i, line in enumerate(lines) if i > 15 and '"hand_result"' in line)
    damaged = next(i for i, line in enumerate(lines) if i > altered + 5 and '"score_claimed"' in line)
    victim = json.loads(lines[altered])
    victim["data"]["piles"] = [8, 12, 6, 12]  # the table's numbers, rewritten
    lines[altered] = json.dumps(victim)
    lines[damaged] = lines[damaged][:-1]  # a damaged line: not JSON any more
    archive.write_text("\n".join(lines) + "\n")
    result = runner.invoke(main, ["import", str(archive), "--db", str(tmp_path / "empty.db")])
    assert result.exit_code == 2
    assert f"line {altered + 1} (match {victim['match']}): import.chain_broken" in result.output
    assert "seq 3: hash does not match" in result.output
    assert f"line {damaged + 1}, column" in result.output and "archive.bad_json" in result.output
    report = json.loads(
        runner.invoke(main, ["import", str(archive), "--db", str(tmp_path / "other.db"), "--json"]).output
    )
    broken = {e["match"] for e in report["errors"] if e["match"]}
    assert victim["match"] in broken and len(report["imported"]) == 12 - len(broken) >= 10
    assert {e["line"] for e in report["errors"]} >= {altered + 1, damaged + 1}
    restored = heads_of(tmp_path / "other.db")
    assert restored == {mid: head for mid, head in heads.items() if mid not in broken}


def test_http_export_and_import(tmp_path: Path) -> None:
    fill(tmp_path / "club.db", 3)
    source = create_app({"TANTEO_DB": str(tmp_path / "club.db"), "TESTING": True}).test_client()
    target: FlaskClient = create_app({"TANTEO_DB": str(tmp_path / "new.db"), "TESTING": True}).test_client()
    listing = source.get("/matches").get_json()["items"]
    one = source.get(f"/matches/{listing[0]['id']}/export?format=jsonl")
    assert one.status_code == 200 and one.mimetype == "application/x-ndjson"
    envelopes = [json.loads(line) for line in one.data.splitlines()]
    assert [e["seq"] for e in envelopes] == list(range(1, len(envelopes) + 1))
    assert {e.pop("match") for e in envelopes} == {listing[0]["id"]}
    assert envelopes == source.get(f"/matches/{listing[0]['id']}/events").get_json()["events"]
    everything = source.get("/matches/export?format=jsonl&player=A1")
    assert {json.loads(line)["match"] for line in everything.data.splitlines()} == {
        m["id"] for m in listing if "A1" in m["players"]
    }
    everything = source.get("/matches/export?format=jsonl")
    created = target.post("/matches/import", data=everything.data, content_type="application/x-ndjson")
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert sorted(m["id"] for m in body["imported"]) == sorted(m["id"] for m in listing) and body["errors"] == []
    first = body["imported"][0]
    assert first["lines"][0] == 1 and first["token"]
    write = target.post(
        f"/matches/{first['id']}/events",
        json={"events": [{"type": "note", "data": {"text": "hi"}}]},
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    assert write.status_code == 201
    again = target.post("/matches/import", data=everything.data, content_type="application/x-ndjson")
    assert again.status_code == 422  # the match written to differs now
    assert [e["code"] for e in again.get_json()["errors"]] == ["import.exists_different"]
    assert len(again.get_json()["unchanged"]) == 2
    garbage = target.post("/matches/import", data=b"{not json\n", content_type="application/x-ndjson")
    assert garbage.status_code == 422
    assert garbage.get_json()["errors"] == [
        {
            "line": 1,
            "column": 2,
            "code": "archive.bad_json",
            "match": None,
            "message": garbage.get_json()["errors"][0]["message"],
        }
    ]
    wrong = target.post("/matches/import", data=b"<xml/>", content_type="application/xml")
    assert wrong.status_code == 415 and wrong.mimetype == "application/problem+json"
    missing = target.get("/matches/nope/export?format=jsonl")
    assert missing.status_code == 404


def test_restore_keeps_the_match_metadata_and_csv_lists_it(tmp_path: Path) -> None:
    source = create_app({"TANTEO_DB": str(tmp_path / "m.db"), "TESTING": True}).test_client()
    start = {**START, "title": "Club night", "date": "2026-11-21", "place": "Bar Pepe", "tags": ["league"]}
    created = source.post("/matches", json=start).get_json()
    archive = source.get("/matches/export?format=jsonl").data
    target = create_app({"TANTEO_DB": str(tmp_path / "n.db"), "TESTING": True}).test_client()
    assert target.post("/matches/import", data=archive, content_type="application/x-ndjson").status_code == 201
    summary = target.get(f"/matches/{created['id']}").get_json()
    assert (summary["title"], summary["date"], summary["place"], summary["tags"]) == (
        "Club night",
        "2026-11-21",
        "Bar Pepe",
        ["league"],
    )
    assert [m["id"] for m in target.get("/matches?tag=league").get_json()["items"]] == [created["id"]]
    row = target.get("/matches.csv").data.decode().splitlines()[1].split(",")
    assert row[1:4] == ["Club night", "2026-11-21", "Bar Pepe"]
    text = target.get(f"/matches/{created['id']}/export").data.decode()
    assert '[Title "Club night"]' in text and '[Tags ["league"]]' not in text and "[Tags [league]]" in text


def test_a_compressed_or_empty_backup_is_said_in_one_sentence(tmp_path: Path) -> None:
    """A gzipped backup was read as the text notation ('this string is never closed'), an empty one 'imported'."""
    import gzip

    runner = CliRunner()
    fill(tmp_path / "club.db", 3)
    archive = tmp_path / "backup.jsonl"
    assert runner.invoke(main, ["export", "--all", str(archive), "--db", str(tmp_path / "club.db")]).exit_code == 0
    packed = tmp_path / "backup.jsonl.gz"
    packed.write_bytes(gzip.compress(archive.read_bytes()))
    empty = tmp_path / "monday.jsonl"
    empty.write_bytes(b"\n")
    for path, said in (
        (packed, f"error: {packed} is compressed (gzip): unpack it first (gunzip -k {packed})"),
        (empty, f"error: {empty} is empty: there is nothing to import"),
    ):
        result = runner.invoke(main, ["import", str(path), "--db", str(tmp_path / "new.db")])
        assert result.exit_code == 1 and result.output.startswith(said), result.output
        assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "new.db").exists()  # nothing opened, nothing created
    client = create_app({"TANTEO_DB": str(tmp_path / "new.db"), "TESTING": True}).test_client()
    response = client.post("/matches/import", data=packed.read_bytes(), content_type="application/x-ndjson")
    assert response.status_code == 415 and response.mimetype == "application/problem+json"
    assert response.get_json()["detail"].startswith("the body is compressed (gzip): send the archive")


def test_the_command_line_lists_the_first_100_errors_and_counts_the_rest(tmp_path: Path) -> None:
    """Past 100 errors with nothing imported the file is no Tanteo record: the 101st match's error is
    counted, and the lines after it are counted unread (issue 26), as the HTTP import says."""
    junk = tmp_path / "junk.tnt"
    junk.write_text('[Game "junk"]\n[Players "a" "b"]\n2. note {x}\n' * 250)
    result = CliRunner().invoke(main, ["import", str(junk), "--db", str(tmp_path / "t.db")])
    assert result.exit_code == 2
    assert result.stderr.count(": game.unknown: ") + result.stderr.count(": schema.") == 100
    assert "1 more error was found and not listed" in result.stderr
    assert "the file's last 447 lines (from line 304 on) were not read" in result.stderr
    assert result.stdout.strip().endswith("0 imported, 0 unchanged, 101 errors")
