"""The portable text notation end to end: strict export, lenient import, every error by line and column."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.transfer.playouts import GAMES, record

from api.app import create_app
from api.cli import main
from api.service import Service, transfer
from ledger import MemoryLedger, SqliteLedger

TEXTS = Path(__file__).parent / "texts"
COMPARED = ("hands", "claims", "orphaned", "standings", "end", "corrections", "firstDivergence")


def without_head(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("[Head ")]


@pytest.mark.parametrize("game", GAMES)
def test_text_round_trip_keeps_the_audit_and_the_bytes(game: str, tmp_path: Path) -> None:
    source = Service(SqliteLedger(tmp_path / "a.db"))
    target = Service(SqliteLedger(tmp_path / "b.db"))
    for seed in (1, 2):
        original = record(source, game, seed)["id"]
        text = transfer.match_text(source, original, full=True)
        assert f'[Head "{source.ledger.get_match(original).head}"]' in text.splitlines()
        report = transfer.import_text(target, text)
        assert report["errors"] == [] and len(report["imported"]) == 1
        copy = report["imported"][0]
        assert copy["version"] == source.ledger.version(original) and copy["lines"] == [1, len(text.splitlines())]
        before, after = source.audit(original), target.audit(copy["id"])
        assert {k: before[k] for k in COMPARED} == {k: after[k] for k in COMPARED}
        again = transfer.match_text(target, copy["id"], full=True)
        assert without_head(again) == without_head(text)  # byte for byte but the new chain's head
        assert f'[Head "{copy["head"]}"]' in again.splitlines()


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(min_value=0, max_value=40),
    limit=st.integers(min_value=2, max_value=80),
)
def test_export_import_export_is_byte_identical(game: str, seed: int, limit: int) -> None:
    """Property: for any (short) playout, text → import → text gives the same bytes (the Head aside)."""
    source, target = Service(MemoryLedger()), Service(MemoryLedger())
    original = record(source, game, seed, limit=limit)["id"]
    text = transfer.match_text(source, original, full=True)
    report = transfer.import_text(target, text)
    assert report["errors"] == []
    assert without_head(transfer.match_text(target, report["imported"][0]["id"], full=True)) == without_head(text)


def _position(path: Path, line: int, word: str) -> int:
    return path.read_text().splitlines()[line - 1].index(word) + 1


@pytest.mark.parametrize("game", GAMES)
def test_hand_written_file_with_mistakes(game: str, tmp_path: Path) -> None:
    """Each file: lenient spelling (case, comments, continued lines), a move out of turn at line 14
    and a misspelt card at line 15; both are named with their place, the prefix is kept, the match open."""
    path = TEXTS / f"{game}.tnt"
    service = Service(SqliteLedger(tmp_path / "t.db"))
    report = transfer.import_text(service, path.read_text())
    errors = report["errors"]
    assert [e["line"] for e in errors] == [14, 15], errors
    out_of_turn, misspelt = errors
    assert (
        out_of_turn["code"] == "common.not_your_turn"
        and out_of_turn["column"]
        == _position(path, 14, "seat=") - len(path.read_text().splitlines()[13].split()[1]) - 1
    )
    assert misspelt["code"] == "notation.bad_card" and "is not" in misspelt["message"]
    assert len(path.read_text().rstrip().splitlines()) == 15  # the misspelt card is the last line
    assert out_of_turn["message"].endswith(
        "nothing from this line on was recorded; line 15 was checked "
        "for its shape only (the rules judge a move only after every move before it)"
    )
    bad_word = path.read_text().splitlines()[14].split("=")[-1].strip("[]").split()[0]
    assert misspelt["column"] == _position(path, 15, bad_word) and misspelt["message"].startswith(bad_word)
    (item,) = report["imported"]
    assert out_of_turn["match"] == misspelt["match"] == item["id"]
    numbered = [line for line in path.read_text().splitlines()[:13] if line.split(".")[0].isdigit()]
    assert item["version"] == int(numbered[-1].split(".")[0])  # every event before line 14, nothing after
    assert service.ledger.get_match(item["id"]).status == "playing"
    written = transfer.match_text(service, item["id"], full=True)
    assert written.splitlines()[-1].startswith(f"{item['version']}. ")


def test_the_lines_checked_for_their_shape_only_are_named_as_a_range(tmp_path: Path) -> None:
    """Two lines after the move the rules refused: "lines 15 to 16 were checked" (one line: "line 15 was checked for its shape only", above)."""
    lines = (TEXTS / "cabo.tnt").read_text().splitlines()
    text = "\n".join([*lines, lines[12]]) + "\n"  # line 16: a move again, read for its shape only
    out_of_turn = next(
        e for e in transfer.import_text(Service(SqliteLedger(tmp_path / "t.db")), text)["errors"] if e["line"] == 14
    )
    assert out_of_turn["message"].endswith(
        "nothing from this line on was recorded; lines 15 to 16 were checked for "
        "their shape only (the rules judge a move only after every move before it)"
    )


def test_http_text_export_and_import(tmp_path: Path) -> None:
    client = create_app({"TANTEO_DB": str(tmp_path / "h.db"), "TESTING": True}).test_client()
    body = (TEXTS / "la-cabra.tnt").read_bytes()
    created = client.post("/matches/import", data=body, content_type="text/plain; charset=utf-8")
    assert created.status_code == 201
    report = created.get_json()
    assert [e["line"] for e in report["errors"]] == [14, 15]
    match_id = report["imported"][0]["id"]
    text = client.get(f"/matches/{match_id}/export")
    assert text.status_code == 200 and text.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert text.data.decode().startswith(
        '[Game "la-cabra"]\n[Players "North" "East" "South" "West"]\n[Teams [[0 2] [1 3]]]\n'
    )
    assert "6. lead seat=0 cards=[9H KH]" in text.data.decode()  # the card letters as the vocabulary writes them
    nothing = client.post("/matches/import", data=b"2. play seat=0 card=7o\n", content_type="text/plain")
    assert nothing.status_code == 422
    assert nothing.get_json()["errors"][0] | {"message": ""} == {
        "line": 1,
        "column": 1,
        "code": "notation.no_tags",
        "match": None,
        "message": "",
    }


def test_cli_text_export_and_import(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "c.db"
    result = runner.invoke(main, ["import", str(TEXTS / "cabo.tnt"), "--db", str(db), "--json"])
    assert result.exit_code == 2  # errors were reported
    import json

    report = json.loads(result.output)
    match_id = report["imported"][0]["id"]
    out = tmp_path / "cabo.tnt"
    assert runner.invoke(main, ["export", match_id, str(out), "--db", str(db)]).exit_code == 0
    assert out.read_text().startswith('[Game "cabo"]')
    again = runner.invoke(main, ["import", str(out), "--db", str(tmp_path / "d.db")])
    assert again.exit_code == 0 and "1 imported, 0 unchanged, 0 errors" in again.output


def test_the_examples_of_docs_notation_import_and_export_as_written() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "NOTATION.md").read_text()
    examples = [block.split("```", 1)[0] for block in doc.split("## Examples", 1)[1].split("```\n")[1::2]]
    assert len(examples) == 5
    for example in examples:
        service = Service(MemoryLedger())
        report = transfer.import_text(service, example)
        assert report["errors"] == [], example
        assert without_head(transfer.match_text(service, report["imported"][0]["id"], full=True)) == without_head(
            example
        )
