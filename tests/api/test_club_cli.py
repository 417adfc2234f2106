"""``tanteo club …`` on a real SQLite file: an organiser's roster, matches, tables, profiles,
archive and rebuild from a terminal, and each refusal said in words with nothing written."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from api.cli import main
from engines import ENGINES
from tests.engines.drivers import playout

ROSTER = ("Anna", "Ben", "Carl", "Dora", "Eva")
"""The names the Cabo playouts seat (tests/engines/driver_cabo.py)."""

FIVE, THREE = 1, 11
"""Cabo playouts played to the end: seed 1 seats all five, seed 11 Anna, Ben and Carl."""


def run(runner: CliRunner, db: Path, *args: str, key: str | None = None, lang: str | None = None) -> Result:
    head = ["--lang", lang] if lang else []
    env = {"TANTEO_CLUB_KEY": key} if key is not None else {}
    return runner.invoke(main, [*head, "club", *args, "--db", str(db)], env=env)


def new_club(runner: CliRunner, db: Path, *names: str) -> tuple[str, str]:
    created = run(runner, db, "create", "Casal de Gràcia", "--place", "Gràcia")
    assert created.exit_code == 0, created.output
    found = re.search(r"club (\S+) \(key (\S+)\)", created.output)
    assert found, created.output
    club, key = found.group(1), found.group(2)
    for name in names:
        added = run(runner, db, "add", club, name, key=key)
        assert added.exit_code == 0, added.output
    return club, key


def shown(runner: CliRunner, db: Path, club: str, key: str | None = None) -> dict[str, Any]:
    result = run(runner, db, "show", club, "--json", key=key)
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.output)
    return found


def record_playout(runner: CliRunner, db: Path, tmp_path: Path, seed: int) -> tuple[str, str]:
    """Record a whole Cabo playout as a casual match with ``tanteo record new``; its id and token."""
    events, _ = playout("cabo", seed)
    path = tmp_path / f"cabo-{seed}.jsonl"
    path.write_text("".join(json.dumps({"type": e.type, "data": e.data}) + "\n" for e in events))
    result = runner.invoke(main, ["record", "new", str(path), "--db", str(db)])
    assert result.exit_code == 0, result.output
    found = re.search(r"match (\S+) \(token (\S+)\)", result.output)
    assert found, result.output
    return found.group(1), found.group(2)


def expected_rows(seeds: Sequence[int]) -> dict[str, dict[str, Any]]:
    """Each player's figures over whole Cabo playouts, worked out from each playout's own score
    sheet (winners, scored hands, final totals), not from the projection."""
    engine = ENGINES["cabo"]
    rows: dict[str, dict[str, Any]] = {}
    for seed in seeds:
        events, state = playout("cabo", seed)
        sheet = engine.score(state)
        assert sheet["end"]["over"]
        hands = sum(1 for h in sheet["hands"] if h["status"] == "scored")
        for seat, name in enumerate(events[0].data["players"]):
            row = rows.setdefault(name, {"played": 0, "won": 0, "hands": 0, "total": 0})
            row["played"] += 1
            row["won"] += int(seat in sheet["end"]["winners"])
            row["hands"] += hands
            row["total"] += next(s["total"] for s in sheet["standings"] if s["seat"] == seat)
    return rows


def table_lines(output: str) -> list[list[str]]:
    """The rows of a printed table (between the rule under the headers and the blank line)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"-+( +-+)*", line))
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def test_create_prints_the_id_and_the_key_once_and_show_lists_the_roster(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    created = run(runner, db, "create", "Casal de Gràcia", "--place", "Gràcia")
    assert created.exit_code == 0, created.output
    club, key = re.findall(r"club (\S+) \(key (\S+)\)", created.output)[0]
    assert "Keep this key: it is shown only now" in created.output
    added = run(runner, db, "add", club, "Núria", "--nickname", "la Nuri", key=key)
    assert added.exit_code == 0 and "added Núria as p1" in added.output, added.output
    assert "as p2" in run(runner, db, "add", club, "Jordi", key=key).output
    show = run(runner, db, "show", club)
    assert show.exit_code == 0, show.output
    assert show.output.splitlines()[0] == f"Casal de Gràcia, Gràcia (club {club})"
    rows = table_lines(show.output)
    assert rows == [["p1", "Núria", "la", "Nuri", "0"], ["p2", "Jordi", "0"]]
    assert key not in show.output
    club_json = shown(runner, db, club)
    assert [(p["id"], p["name"], p["nickname"]) for p in club_json["players"]] == [
        ("p1", "Núria", "la Nuri"),
        ("p2", "Jordi", None),
    ]
    assert club_json["version"] == 3


def test_roster_changes_seasons_and_nights(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, "Anna", "Ben", "Carl", "Bob")
    renamed = run(runner, db, "rename", club, "carl", "Carles", "--nickname", "el Gran", key=key)
    assert renamed.exit_code == 0 and "Carl (p3) is now called Carles" in renamed.output, renamed.output
    merged = run(runner, db, "merge", club, "Bob", "p2", key=key)
    assert merged.exit_code == 0 and "Bob (p4) merged into Ben (p2)" in merged.output, merged.output
    hidden = run(runner, db, "hide", club, "Anna", key=key)
    assert hidden.exit_code == 0 and "Anna (p1) is hidden" in hidden.output, hidden.output
    season = run(runner, db, "season", club, "Tardor", "2026-09-01", "2026-12-31", key=key)
    assert season.exit_code == 0 and "season s1: Tardor, 2026-09-01 to 2026-12-31" in season.output
    night = run(runner, db, "night", club, "Dijous", "2026-11-26", key=key)
    assert night.exit_code == 0 and "night n1: Dijous, 2026-11-26" in night.output
    public = shown(runner, db, club)
    assert [(p["id"], p["name"]) for p in public["players"]] == [("p2", "Ben"), ("p3", "Carles")]
    assert public["seasons"] == [{"id": "s1", "name": "Tardor", "from": "2026-09-01", "to": "2026-12-31"}]
    assert [(n["id"], n["name"], n["date"]) for n in public["nights"]] == [("n1", "Dijous", "2026-11-26")]
    with_key = run(runner, db, "show", club, key=key)
    assert [row[0] for row in table_lines(with_key.output)] == ["p1", "p2", "p3"]
    assert table_lines(with_key.output)[0][-1] == "hidden"
    assert "Tardor, 2026-09-01 to 2026-12-31" in with_key.output and "Dijous, 2026-11-26: 0 matches" in with_key.output
    shown_again = run(runner, db, "unhide", club, "p1", key=key)
    assert shown_again.exit_code == 0 and "Anna (p1) is shown" in shown_again.output
    assert [p["id"] for p in shown(runner, db, club)["players"]] == ["p1", "p2", "p3"]


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("add", "{club}", "Zoe"), "auth.wrong", "this key does not open this club"),
        (("merge", "{club}", "Anna", "anna"), "club.merge_self", "Anna cannot be merged into themself"),
        (("merge", "{club}", "p1", "p9"), "club.unknown_player", "the club has no player p9"),
        (("add", "{club}", "ben"), "club.name_taken", "the club already has a player called Ben (p2)"),
        (("rename", "{club}", "Anna", "BEN"), "club.name_taken", "the club already has a player called Ben (p2)"),
        (("rename", "{club}", "Nobody", "Zoe"), "club.unknown_player", "the club has no player Nobody"),
        (("hide", "{club}", "p7"), "club.unknown_player", "the club has no player p7"),
        (("season", "{club}", "Back", "2026-12-31", "2026-09-01"), "club.season_dates", "a season ends on or after"),
        (("add", "nosuchclub", "Zoe"), "club.not_found", "club 'nosuchclub' not found"),
    ],
)
def test_refusals_are_said_in_words_and_write_nothing(
    tmp_path: Path, args: tuple[str, ...], code: str, words: str
) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, "Anna", "Ben")
    before = shown(runner, db, club, key)
    wrong = "not-the-key" if code == "auth.wrong" else key
    refused = run(runner, db, *(a.format(club=club) for a in args), key=wrong)
    assert refused.exit_code == 1, refused.output
    assert f"error: {code}: {words}" in refused.output
    assert "Traceback" not in refused.output
    assert shown(runner, db, club, key) == before


def test_a_change_without_the_key_is_refused_before_anything(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, "Anna")
    refused = run(runner, db, "add", club, "Ben", key="")
    assert refused.exit_code == 1 and "changing a club needs its key: --key or TANTEO_CLUB_KEY" in refused.output
    assert shown(runner, db, club)["version"] == 2
    flag = runner.invoke(main, ["club", "add", club, "Ben", "--key", key, "--db", str(db)])
    assert flag.exit_code == 0 and "added Ben as p2" in flag.output


def test_commands_that_read_make_no_database(tmp_path: Path) -> None:
    runner, nothing = CliRunner(), tmp_path / "typo.db"
    for args in (("show", "X"), ("table", "X", "cabo"), ("profile", "X", "p1"), ("export", "X"), ("rebuild",)):
        result = run(runner, nothing, *args)
        assert result.exit_code == 1 and f"there is no database at {nothing}" in result.output, args
        assert not nothing.exists()


def test_attach_a_casual_match_then_read_the_table_and_the_profiles(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, *ROSTER)
    night = run(runner, db, "night", club, "Dijous", "2026-11-26", key=key)
    assert night.exit_code == 0
    five, five_token = record_playout(runner, db, tmp_path, FIVE)
    three, three_token = record_playout(runner, db, tmp_path, THREE)

    no_token = run(runner, db, "attach", club, five, key=key)
    assert no_token.exit_code == 1 and "attaching a match needs its write token" in no_token.output
    wrong = run(runner, db, "attach", club, five, "--token", three_token, key=key)
    assert wrong.exit_code == 1 and "auth.wrong" in wrong.output
    seats = run(runner, db, "attach", club, three, "Anna", "Ben", "--token", three_token, key=key)
    assert seats.exit_code == 1 and "club.seats: the match has 3 seats" in seats.output
    assert shown(runner, db, club)["matches"] == 0

    by_names = run(runner, db, "attach", club, five, "--token", five_token, key=key)  # the seats' names
    assert by_names.exit_code == 0, by_names.output
    assert "Anna (p1), Ben (p2), Carl (p3), Dora (p4), Eva (p5)" in by_names.output
    again = run(runner, db, "attach", club, five, "--token", five_token, key=key)
    assert again.exit_code == 1 and "club.match_taken" in again.output
    by_ids = run(runner, db, "attach", club, three, "p1", "ben", "Carl", "--token", three_token, key=key)
    assert by_ids.exit_code == 0, by_ids.output
    assert [p["matches"] for p in shown(runner, db, club)["players"]] == [2, 2, 2, 1, 1]

    expected = expected_rows([FIVE, THREE])
    table = run(runner, db, "table", club, "cabo")
    assert table.exit_code == 0, table.output
    assert table.output.splitlines()[0] == "cabo, all matches:"
    assert "ranked by matches won, then the lowest average total per match" in table.output
    rows = table_lines(table.output)
    assert sorted(row[1] for row in rows) == sorted(ROSTER)
    for row in rows:
        mine = expected[row[1]]
        played, won, hands = (int(v) for v in row[2:5])
        assert (played, won, hands) == (mine["played"], mine["won"], mine["hands"]), row
        assert float(row[7]) == round(mine["total"] / mine["played"], 2), row
    keys = [(-expected[row[1]]["won"], expected[row[1]]["total"] / expected[row[1]]["played"]) for row in rows]
    assert keys == sorted(keys)  # Cabo's rule: matches won, then the lowest average
    assert [row[0].rstrip("=") for row in rows][0] == "1"

    csv = run(runner, db, "table", club, "cabo", "--csv")
    assert csv.output.splitlines()[0].startswith("rank,player,matches played,matches won")
    assert [line.split(",")[1] for line in csv.output.splitlines()[1:]] == [row[1] for row in rows]
    as_json = json.loads(run(runner, db, "table", club, "cabo", "--json").output)
    assert [r["name"] for r in as_json["rows"]] == [row[1] for row in rows]
    empty_night = run(runner, db, "table", club, "cabo", "--period", "night:n1")
    assert empty_night.exit_code == 0 and "no matches of cabo in this period yet" in empty_night.output
    unknown = run(runner, db, "table", club, "cabo", "--period", "season:s4")
    assert unknown.exit_code == 1 and "club.unknown_period" in unknown.output
    no_game = run(runner, db, "table", club, "pinochle")
    assert no_game.exit_code == 1 and "game.unknown: there is no game 'pinochle'" in no_game.output

    profile = run(runner, db, "profile", club, "anna")
    assert profile.exit_code == 0, profile.output
    anna = expected["Anna"]
    lines = profile.output.splitlines()
    assert lines[0] == "Anna (p1)"
    assert f"cabo: {anna['played']} matches played, {anna['won']} won" in lines
    assert f"  hands: {anna['hands']}, won" in profile.output
    assert "  against each other player (played, won, lost):" in lines
    assert any(line.startswith("    Dora (p4): 1, ") for line in lines)  # Dora sat at one match with Anna
    assert any(line.startswith("    Ben (p2): 2, ") for line in lines)
    form = next(line for line in lines if line.startswith("  form, newest first: "))
    assert sorted(form.split(": ")[1].split()) == sorted(["W"] * anna["won"] + ["L"] * (2 - anna["won"]))
    nobody = run(runner, db, "profile", club, "Zoe")
    assert nobody.exit_code == 1 and "club.unknown_player: the club has no player Zoe" in nobody.output


def test_export_imports_back_with_the_same_head_and_rebuild_gives_the_same_table(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, *ROSTER)
    match, token = record_playout(runner, db, tmp_path, FIVE)
    assert run(runner, db, "attach", club, match, "--token", token, key=key).exit_code == 0
    archive = tmp_path / "club.jsonl"
    exported = run(runner, db, "export", club, "-o", str(archive))
    assert exported.exit_code == 0 and f"wrote club {club} to {archive}: its log and 1 match" in exported.output
    lines = [json.loads(line) for line in archive.read_text().splitlines()]
    assert lines[0]["type"] == "club_started" and {line["match"] for line in lines} == {club, match}
    to_stdout = run(runner, db, "export", club)
    assert to_stdout.output == archive.read_text()

    other = tmp_path / "other.db"
    imported = runner.invoke(main, ["import", str(archive), "--db", str(other)])
    assert imported.exit_code == 0 and "2 imported, 0 unchanged, 0 errors" in imported.output, imported.output
    here, there = shown(runner, db, club), shown(runner, other, club)
    assert (there["head"], there["version"]) == (here["head"], here["version"])
    assert there["players"] == here["players"]
    table = run(runner, db, "table", club, "cabo").output
    assert run(runner, other, "table", club, "cabo").output == table

    rebuilt = run(runner, db, "rebuild")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert re.search(
        r"rebuilt the league tables and profiles from the logs: \d+ events read, 1 club matches in 1 clubs, in [\d.]+ s",
        rebuilt.output,
    ), rebuilt.output
    assert run(runner, db, "table", club, "cabo").output == table


def test_the_club_commands_speak_the_terminals_language(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    created = run(runner, db, "create", "Casal", lang="ca")
    assert created.exit_code == 0
    assert "Keep this key" not in created.output and "Guarda aquesta clau" in created.output, created.output
    club, key = re.findall(r"club (\S+) \(clau (\S+)\)", created.output)[0]
    refused = run(runner, db, "merge", club, "p1", "p1", key=key, lang="de")
    assert refused.exit_code == 1 and "club.unknown_player" in refused.output
    assert "the club has no player" not in refused.output, refused.output


def test_attach_by_the_seats_names_says_which_seat_the_club_lacks(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, "Anna", "Ben")
    match, token = record_playout(runner, db, tmp_path, THREE)
    before = shown(runner, db, club)
    refused = run(runner, db, "attach", club, match, "--token", token, key=key)
    assert refused.exit_code == 1
    assert "seat 2, Carl, is no player of the club" in refused.output, refused.output
    assert shown(runner, db, club) == before


def test_a_hidden_players_profile_and_row_need_the_clubs_key(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, *ROSTER)
    match, token = record_playout(runner, db, tmp_path, FIVE)
    assert run(runner, db, "attach", club, match, "--token", token, key=key).exit_code == 0
    assert run(runner, db, "hide", club, "Dora", key=key).exit_code == 0
    public = run(runner, db, "profile", club, "Dora", key="")
    assert public.exit_code == 1 and "club.unknown_player" in public.output
    wrong = run(runner, db, "profile", club, "Dora", key="not-the-key")
    assert wrong.exit_code == 1 and "auth.wrong" in wrong.output and "Dora (p4)" not in wrong.output
    owner = run(runner, db, "profile", club, "Dora", key=key)
    assert owner.exit_code == 0 and owner.output.startswith("Dora (p4)")
    assert "Dora" not in [row[1] for row in table_lines(run(runner, db, "table", club, "cabo", key="").output)]
    assert "Dora" in [row[1] for row in table_lines(run(runner, db, "table", club, "cabo", key=key).output)]
    refused = run(runner, db, "table", club, "cabo", key="not-the-key")
    assert refused.exit_code == 1 and "auth.wrong" in refused.output


def test_a_hidden_player_is_not_seated_in_an_attached_match(tmp_path: Path) -> None:
    runner, db = CliRunner(), tmp_path / "club.db"
    club, key = new_club(runner, db, *ROSTER)
    assert run(runner, db, "hide", club, "Eva", key=key).exit_code == 0
    match, token = record_playout(runner, db, tmp_path, FIVE)
    before = shown(runner, db, club, key)
    refused = run(runner, db, "attach", club, match, "--token", token, key=key)
    assert refused.exit_code == 1
    assert "club.hidden_player: Eva is hidden from the club's lists" in refused.output, refused.output
    assert shown(runner, db, club, key) == before
