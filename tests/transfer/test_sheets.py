"""Spreadsheets: a match's sheet (hands × players, totals) and the list of matches, as CSV over HTTP."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from api.app import create_app

SERIES = [  # VOCABULARY.md §7, la-cabra deal 1 (result only), then a second deal by its loss points
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
    {"type": "score_claimed", "data": {"hand": 1, "points": [0, 2], "totals": [0, 2]}},
    {"type": "hand_started", "data": {"dealer": 0}},
    {"type": "hand_result", "data": {"lossPoints": [4, 0]}},
]


def rows(text: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.decode("utf-8"))))


def test_sheet_and_match_list_as_csv(tmp_path: Path) -> None:
    client = create_app({"TANTEO_DB": str(tmp_path / "s.db"), "TESTING": True}).test_client()
    created = client.post(
        "/matches", json={"game": "la-cabra", "players": ["=North", "East", "South", "West"]}
    ).get_json()
    written = client.post(
        f"/matches/{created['id']}/events",
        json={"events": SERIES},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert written.status_code == 201, written.get_json()
    sheet = client.get(f"/matches/{created['id']}/sheet.csv")
    assert sheet.status_code == 200 and sheet.mimetype == "text/csv"
    table = rows(sheet.data)
    audit = client.get(f"/matches/{created['id']}/audit").get_json()
    assert table[0][:2] == ["hand", "status"] and len(table[0]) == 2 + len(audit["standings"]) == 4
    assert table[1] == ["1", "scored", "0", "2"] and table[2] == ["2", "scored", "4", "0"]
    assert (
        table[-1]
        == ["total", "playing", *[str(s["total"]) for s in audit["standings"]]]
        == ["total", "playing", "4", "2"]
    )
    other = client.post("/matches", json={"game": "cabo", "players": ["Anna", "Ben"]}).get_json()
    listing = rows(client.get("/matches.csv").data)
    assert listing[0] == ["id", "title", "date", "place", "game", "players", "status", "winners", "totals", "version"]
    by_id = {row[0]: row for row in listing[1:]}
    assert set(by_id) == {created["id"], other["id"]}
    assert by_id[created["id"]][4:7] == ["la-cabra", "'=North; East; South; West", "playing"]  # no formula in a cell
    assert by_id[other["id"]][8] == "Anna 0; Ben 0"
    assert [r[0] for r in rows(client.get("/matches.csv?game=cabo").data)[1:]] == [other["id"]]
    assert client.get("/matches/nope/sheet.csv").status_code == 404


def test_the_csv_list_and_the_archive_of_every_match_filter_as_the_list_does(tmp_path: Path) -> None:
    """A league's spreadsheet and backup by its tag, place or date, as docs/HTTP.md says: 'filters as GET /matches'."""
    client = create_app({"TANTEO_DB": str(tmp_path / "s.db"), "TESTING": True}).test_client()
    players = ["North", "East", "South", "West"]
    league = client.post(
        "/matches",
        json={
            "game": "la-cabra",
            "players": players,
            "tags": ["league-2026"],
            "place": "Casal Gràcia",
            "date": "2026-11-21",
        },
    ).get_json()
    client.post("/matches", json={"game": "la-cabra", "players": players, "tags": ["friendly"]})
    for query in ("tag=league-2026", "place=casal%20gr%C3%A0cia", "date=2026-11-21"):
        listed = [m["id"] for m in client.get(f"/matches?{query}").get_json()["items"]]
        sheet = client.get(f"/matches.csv?{query}")
        assert sheet.headers["Content-Type"] == "text/csv; charset=utf-8"  # its charset said once
        assert [r[0] for r in rows(sheet.data)[1:]] == listed == [league["id"]], query
        archive = client.get(f"/matches/export?format=jsonl&{query}").data.decode().splitlines()
        assert {line.split('"match":"')[1].split('"')[0] for line in archive} == {league["id"]}, query
    for bad in ("status=finished", "date=21/11/2026"):  # refused as the list refuses them, not ignored
        assert client.get(f"/matches.csv?{bad}").status_code == 400 == client.get(f"/matches/export?{bad}").status_code
