"""The command line and the spreadsheets in the players' languages (issue 28): ``tanteo audit``,
``replay``, ``verify`` and their errors say their words in the terminal's language (``--lang``,
``TANTEO_LANG``, ``LANGUAGE``/``LANG``); codes, numbers, names and JSON stay the same."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.app import create_app
from api.cli import main
from tests.api.la_cabra_deals import DEAL_1, REST, REVEAL, START
from tests.pages.english import english_words


def write_jsonl(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def record_new(runner: CliRunner, db: Path, path: Path) -> str:
    result = runner.invoke(main, ["--lang", "en", "record", "new", str(path), "--db", str(db)])
    found = re.search(r"match (\S+) \(token (\S+)\)", result.output)
    assert found, result.output
    return found.group(1)


HEADERS = {"ca": ["mà", "estat"], "es": ["mano", "estado"], "de": ["Runde", "Stand"]}


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[CliRunner, Path, str]:
    runner = CliRunner()
    db = tmp_path / "cli.db"
    log = write_jsonl(tmp_path / "series.jsonl", [{"type": "match_started", "data": START}, *DEAL_1, REVEAL, *REST])
    match_id = record_new(runner, db, log)
    return runner, db, match_id


@pytest.mark.parametrize("lang", ["ca", "es", "de"])
def test_the_audit_in_the_terminals_language(recorded: tuple[CliRunner, Path, str], lang: str) -> None:
    runner, db, match_id = recorded
    english = runner.invoke(main, ["--lang", "en", "audit", match_id, "--db", str(db)])
    said = runner.invoke(main, ["--lang", lang, "audit", match_id, "--db", str(db)])
    assert said.exit_code == english.exit_code == 2  # the table's claim for deal 4 is wrong, in every language
    lines = said.output.splitlines()
    header = lines[next(i for i, line in enumerate(lines) if line.startswith("---")) - 1].split()
    assert header[:2] == HEADERS[lang] and header[2:] == ["North–South", "East–West"]
    assert said.output != english.output
    # the numbers are the same facts: every figure of the English table is in the other one
    digits = [line.split()[2:] for line in english.output.splitlines() if line[:1].isdigit()]
    other = [line.split()[2:] for line in said.output.splitlines() if line[:1].isdigit()]
    assert [[c for c in row if c.isdigit()] for row in digits] == [[c for c in row if c.isdigit()] for row in other]
    # the JSON for machines is the same in every language
    as_json = [
        json.loads(runner.invoke(main, ["--lang", x, "audit", match_id, "--db", str(db), "--json"]).output)
        for x in ("en", lang)
    ]
    assert as_json[0] == as_json[1]
    leftover = [line for line in said.output.splitlines() if english_words(line)]
    assert leftover == [], leftover


def test_the_terminal_says_its_language(recorded: tuple[CliRunner, Path, str]) -> None:
    runner, db, match_id = recorded
    german = runner.invoke(main, ["verify", "--db", str(db)], env={"LANG": "de_DE.UTF-8", "TANTEO_LANG": None})
    assert german.exit_code == 0 and "1 von 1 Ketten gültig" in german.output
    catalan = runner.invoke(main, ["verify", "--db", str(db)], env={"LANGUAGE": "ca:es", "LANG": "de_DE.UTF-8"})
    assert "1 de 1 cadenes vàlides" in catalan.output
    plain = runner.invoke(
        main, ["verify", "--db", str(db)], env={"LANG": "C.UTF-8", "LANGUAGE": None, "TANTEO_LANG": None}
    )
    assert "1 of 1 chains valid" in plain.output
    chosen = runner.invoke(main, ["verify", "--db", str(db)], env={"TANTEO_LANG": "es", "LANG": "de_DE.UTF-8"})
    assert "1 de 1 cadenas válidas" in chosen.output


def test_an_error_in_the_terminals_language(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = tmp_path / "nowhere.db"
    said = runner.invoke(main, ["--lang", "es", "audit", "x", "--db", str(missing)])
    assert said.exit_code == 1
    assert said.output.startswith(f"error: no hay ninguna base de datos en {missing}")
    german = runner.invoke(main, ["--lang", "de", "export", "--db", str(missing)])
    assert german.exit_code == 1 and "Fehler: nenne die zu exportierende Partie, oder --all" in german.output


@pytest.mark.parametrize("lang", ["ca", "es", "de"])
def test_the_spreadsheets_in_the_readers_language(tmp_path: Path, lang: str) -> None:
    client = create_app({"TANTEO_DB": str(tmp_path / "s.db"), "TESTING": True}).test_client()
    created = client.post("/matches", json={"game": "la-cabra", "players": ["Ana", "Bru", "Carme", "Dani"]}).get_json()
    series = [
        {"type": "hand_started", "data": {"dealer": 3}},
        {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
    ]
    written = client.post(
        f"/matches/{created['id']}/events",
        json={"events": series},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert written.status_code == 201

    def table(path: str, which: str) -> list[list[str]]:
        answer = client.get(f"{path}?lang={which}")
        assert answer.status_code == 200 and answer.headers["Content-Language"] == which
        return list(csv.reader(io.StringIO(answer.data.decode("utf-8"))))

    english, said = (
        table(f"/matches/{created['id']}/sheet.csv", "en"),
        table(f"/matches/{created['id']}/sheet.csv", lang),
    )
    assert english[0][:2] == ["hand", "status"] and said[0][:2] == HEADERS[lang]
    assert [row[0] for row in said][1:-1] == [row[0] for row in english][1:-1]  # the hands' numbers
    assert [row[2:] for row in said][1:] == [row[2:] for row in english][1:]  # the points, the same facts
    assert english_words(" ".join(" ".join(row) for row in said)) == []
    listed = table("/matches.csv", lang)
    assert listed[0] != table("/matches.csv", "en")[0] and english_words(" ".join(listed[0])) == []
