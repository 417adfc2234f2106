"""The ``tanteo`` command line on a real database file (and, where ``db_path`` is taken, on a
PostgreSQL URL too): record, replay, audit, verify."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from api.cli import main
from tests.plain import machine_text
from tests.api.la_cabra_deals import DEAL_1, REST, REVEAL, START


def write_jsonl(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def record_new(runner: CliRunner, db: Path | str, path: Path) -> tuple[str, str, str]:
    result = runner.invoke(main, ["record", "new", str(path), "--db", str(db)])
    match = re.search(r"match (\S+) \(token (\S+)\)", result.output)
    assert match, result.output
    return match.group(1), match.group(2), result.output


def test_record_replay_audit_verify(tmp_path: Path, db_path: Path | str) -> None:
    """On a SQLite file and on a PostgreSQL URL alike (``db_path`` is each in turn)."""
    runner = CliRunner()
    db = db_path
    log = write_jsonl(tmp_path / "series.jsonl", [{"type": "match_started", "data": START}, *DEAL_1, REVEAL, *REST])
    match_id, _token, output = record_new(runner, db, log)
    assert "recorded 30 events" in output and "version 31" in output

    replay = runner.invoke(main, ["replay", match_id, "--db", str(db), "--at", "5"])
    assert replay.exit_code == 0
    lines = replay.output.strip().splitlines()
    assert len(lines) == 5 and "tira" in lines[4].lower()

    audit = runner.invoke(main, ["audit", match_id, "--db", str(db)])
    assert audit.exit_code == 2, audit.output  # the table's claim for deal 4 is wrong
    assert "first divergence" in audit.output and "hand 4" in audit.output
    table = audit.output.splitlines()
    header = next(line for line in table if line.startswith("hand "))
    assert header.split() == ["hand", "status", "North–South", "East–West"]
    row_4 = next(line for line in table if line.startswith("4 "))
    assert row_4.split()[:4] == ["4", "scored", "0", "ok"] and row_4.endswith("6 ≠ 4 claimed")
    assert next(line for line in table if line.startswith("total")).split() == ["total", "12", "out", "8", "winner"]
    assert "the table wrote 4 for points of East–West in hand 4; the log gives 6" in audit.output
    assert not machine_text(audit.output) and "{" not in audit.output
    as_json = json.loads(runner.invoke(main, ["audit", match_id, "--db", str(db), "--json"]).output)
    assert [s["total"] for s in as_json["standings"]] == [12, 8]

    by_hand = runner.invoke(
        main, ["replay", match_id, "--db", str(db), "--hand", "1", "--move", "3", "--seat", "South"]
    )
    assert by_hand.exit_code == 0, by_hand.output
    steps = by_hand.output.strip().splitlines()
    assert [line.split()[:2] for line in steps] == [["2", "1.0"], ["3", "1.1"], ["4", "1.2"], ["5", "1.3"]]
    nowhere = runner.invoke(main, ["replay", match_id, "--db", str(db), "--hand", "9"])
    assert nowhere.exit_code == 1 and "there is no hand 9: this match has 5 hands" in nowhere.output

    verify = runner.invoke(main, ["verify", "--db", str(db)])
    assert verify.exit_code == 0 and "1 of 1 chains valid" in verify.output


def test_record_stops_at_the_first_refused_line_and_keeps_the_rest(tmp_path: Path, db_path: Path | str) -> None:
    runner = CliRunner()
    db = db_path
    match_id, token, _ = record_new(
        runner, db, write_jsonl(tmp_path / "start.jsonl", [{"type": "match_started", "data": START}])
    )
    bad = [*DEAL_1[:3], {"type": "beat", "data": {"seat": 3, "cards": ["7S"]}}, *DEAL_1[3:]]
    result = runner.invoke(
        main,
        [
            "record",
            match_id,
            str(write_jsonl(tmp_path / "bad.jsonl", bad)),
            "--db",
            str(db),
            "--token",
            token,
            "--batch",
            "2",
        ],
    )
    assert result.exit_code == 1
    assert "line 4 refused" in result.output and "common.not_your_turn" in result.output
    assert "3 events before it were recorded" in result.output
    replay = runner.invoke(main, ["replay", match_id, "--db", str(db)])
    assert len(replay.output.strip().splitlines()) == 4


def test_record_needs_the_token(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "cli.db"
    match_id, _, _ = record_new(
        runner, db, write_jsonl(tmp_path / "start.jsonl", [{"type": "match_started", "data": START}])
    )
    result = runner.invoke(
        main,
        ["record", match_id, str(write_jsonl(tmp_path / "d.jsonl", DEAL_1[:1])), "--db", str(db), "--token", "wrong"],
    )
    assert result.exit_code == 1 and "auth.wrong" in result.output


def test_verify_catches_a_changed_row_and_refuses_a_missing_file(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "cli.db"
    match_id, _, _ = record_new(
        runner, db, write_jsonl(tmp_path / "s.jsonl", [{"type": "match_started", "data": START}, *DEAL_1[:3]])
    )
    with sqlite3.connect(db) as conn:  # someone edits a stored move behind the ledger's back
        triggers = list(conn.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger' AND tbl_name='events'"))
        for name, _ in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("UPDATE events SET data = replace(data, '6C', '7C') WHERE seq = 3")
        for _, sql in triggers:  # and puts the guards back
            conn.execute(sql)
    result = runner.invoke(main, ["verify", "--db", str(db), match_id])
    assert result.exit_code == 2
    assert "BROKEN at event 3" in result.output and "0 of 1 chains valid" in result.output
    missing = runner.invoke(main, ["verify", "--db", str(tmp_path / "nothing.db")])
    assert missing.exit_code == 1 and "no ledger database" in missing.output
    assert not (tmp_path / "nothing.db").exists()


def test_commands_that_read_say_when_there_is_no_database_and_make_none(tmp_path: Path) -> None:
    """A typo in --db, or the wrong folder, used to make an empty database file and then say
    'match not found'; only the commands that record new matches may start a database."""
    runner = CliRunner()
    nothing = tmp_path / "typo.db"
    start = write_jsonl(tmp_path / "s.jsonl", [{"type": "match_started", "data": START}])
    for command in (
        ["audit", "X"],
        ["replay", "X"],
        ["export", "X"],
        ["export", "--all"],
        ["rotate-token", "X"],
        ["record", "X", str(start), "--token", "t"],
    ):
        result = runner.invoke(main, [*command, "--db", str(nothing)])
        assert result.exit_code == 1, (command, result.output)
        assert f"there is no database at {nothing}" in result.output, (command, result.output)
        assert "Traceback" not in result.output
        assert not nothing.exists(), command
    match_id, _, _ = record_new(runner, nothing, start)  # 'record new' starts one
    assert nothing.exists()
    assert runner.invoke(main, ["audit", match_id, "--db", str(nothing)]).exit_code == 0


def test_record_run_again_after_a_fixed_line_leaves_one_copy_of_every_event(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "cli.db"
    start = {"type": "match_started", "data": START}
    bad = [*DEAL_1[:3], {"type": "beat", "data": {"seat": 3, "cards": ["7S"]}}, *DEAL_1[4:]]
    match_id, token, output = record_new(runner, db, write_jsonl(tmp_path / "m.jsonl", [start, *bad]))
    assert "line 5 refused" in output and "3 events before it were recorded" in output
    fixed = write_jsonl(tmp_path / "m.jsonl", [start, *DEAL_1, REVEAL, *REST])  # the scorer fixes line 5
    again = runner.invoke(main, ["record", match_id, str(fixed), "--db", str(db), "--token", token, "--batch", "4"])
    assert again.exit_code == 0, again.output
    assert "lines 2 to 4 are recorded already" in again.output and "recorded 27 events" in again.output
    log = json.loads(runner.invoke(main, ["audit", match_id, "--db", str(db), "--json"]).output)
    assert log["version"] == 31 and log["chain"]["valid"]
    third = runner.invoke(main, ["record", match_id, str(fixed), "--db", str(db), "--token", token])
    assert third.exit_code == 0 and "recorded 0 events" in third.output and "version 31" in third.output
    other = write_jsonl(
        tmp_path / "other.jsonl", [{"type": "match_started", "data": {**START, "players": ["A", "B", "C", "D"]}}]
    )
    refused = runner.invoke(main, ["record", match_id, str(other), "--db", str(db), "--token", token])
    assert refused.exit_code == 1 and "starts another match" in refused.output


def test_rotate_token_prints_a_new_token_and_retires_the_old(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "cli.db"
    match_id, token, _ = record_new(
        runner, db, write_jsonl(tmp_path / "s.jsonl", [{"type": "match_started", "data": START}])
    )
    rotated = runner.invoke(main, ["rotate-token", match_id, "--db", str(db), "--token", token])
    assert rotated.exit_code == 0, rotated.output
    new = re.search(r"\(token (\S+)\)", rotated.output)
    assert new and new.group(1) != token
    deal = write_jsonl(tmp_path / "d.jsonl", DEAL_1[:1])
    old = runner.invoke(main, ["record", match_id, str(deal), "--db", str(db), "--token", token])
    assert old.exit_code == 1 and "auth.wrong" in old.output
    fresh = runner.invoke(main, ["record", match_id, str(deal), "--db", str(db), "--token", new.group(1)])
    assert fresh.exit_code == 0 and "recorded 1 events" in fresh.output
    again = runner.invoke(main, ["rotate-token", match_id, "--db", str(db), "--token", token])
    assert again.exit_code == 1 and "auth.wrong" in again.output


def test_audit_lists_a_claim_about_a_voided_hand_as_orphaned(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "cli.db"
    log = [
        {"type": "match_started", "data": START},
        {"type": "hand_started", "data": {"dealer": 3}},
        {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
        {"type": "score_claimed", "data": {"hand": 1, "points": [0, 2]}},
        {"type": "void", "data": {"target": 2, "reason": "misdeal"}},
    ]
    match_id, _, output = record_new(runner, db, write_jsonl(tmp_path / "v.jsonl", log))
    assert "recorded 4 events" in output, output
    audit = runner.invoke(main, ["audit", match_id, "--db", str(db)])
    assert "orphaned claim at entry 4: hand 1 (dealt at entry 2) was voided at entry 5 (misdeal)" in audit.output, (
        audit.output
    )


def test_audit_and_replay_with_the_token_show_a_match_in_play_in_full(tmp_path: Path) -> None:
    """West's face-down discard is named by the scorer only: the open audit cannot score deal 1
    while it is in play, and scores it as the scorer does once it has ended; a Cabo reveal
    during play is told as ?? without the token."""
    from tests.api.cabo_logs import vocabulary_log

    runner = CliRunner(env={"TANTEO_TOKEN": ""})
    db = tmp_path / "cli.db"
    deal = [dict(e) for e in DEAL_1]
    deal[4] = {"type": "discard", "data": {"seat": 3, "cards": ["6H", "7H", "8C", "9C"]}}
    match_id, token, _ = record_new(
        runner, db, write_jsonl(tmp_path / "deal.jsonl", [{"type": "match_started", "data": START}, *deal[:5]])
    )
    open_audit = json.loads(runner.invoke(main, ["audit", match_id, "--db", str(db), "--json"]).output)
    assert open_audit["hands"][0]["status"] == "playing" and "6H" not in json.dumps(open_audit)
    runner.invoke(
        main,
        ["record", match_id, str(write_jsonl(tmp_path / "rest.jsonl", deal[5:])), "--db", str(db), "--token", token],
    )
    open_audit = json.loads(runner.invoke(main, ["audit", match_id, "--db", str(db), "--json"]).output)
    full = json.loads(runner.invoke(main, ["audit", match_id, "--db", str(db), "--json", "--token", token]).output)
    assert full["hands"][0]["status"] == "scored" and full["hands"][0]["points"] == [4, 0]
    assert open_audit["hands"][0] == full["hands"][0]
    wrong = runner.invoke(main, ["audit", match_id, "--db", str(db), "--token", "wrong"])
    assert wrong.exit_code == 1

    log = [*vocabulary_log()[:20], {"type": "reveal", "data": {"cards": [{"seat": 2, "slot": 3, "card": "10"}]}}]
    cabo, cabo_token, _ = record_new(runner, db, write_jsonl(tmp_path / "cabo.jsonl", log))
    assert (
        runner.invoke(main, ["replay", cabo, "--db", str(db)])
        .output.strip()
        .splitlines()[-1]
        .endswith("Carl's slot 3 is ??")
    )
    shown = runner.invoke(main, ["replay", cabo, "--db", str(db), "--token", cabo_token])
    assert shown.output.strip().splitlines()[-1].endswith("Carl's slot 3 is 10")


def test_a_database_that_cannot_be_used_is_said_in_words_not_as_a_traceback(tmp_path: Path) -> None:
    """Read-only, locked, a folder, not a database, a file that cannot be written: one line, exit status 1."""
    from tests.ledger.faults import lock_held, read_only_view

    runner = CliRunner()
    folder = tmp_path / "club"
    folder.mkdir()
    db = folder / "tanteo.db"
    log = write_jsonl(tmp_path / "s.jsonl", [{"type": "match_started", "data": START}, *DEAL_1[:3]])
    match_id, token, _ = record_new(runner, db, log)
    archive = tmp_path / "backup.jsonl"
    assert runner.invoke(main, ["export", "--all", str(archive), "--db", str(db)]).exit_code == 0

    def said(args: list[str]) -> str:
        result = runner.invoke(main, args)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (
            args,
            result.output,
            result.exception,
        )
        assert result.output.startswith("error: ") and "Traceback" not in result.output, result.output
        assert not machine_text(result.output)
        return result.output

    with read_only_view(folder) as (view, how):
        if how == "mount":  # root ignores file modes: only a read-only mount stops it
            message = said(["import", str(archive), "--db", str(tmp_path / "club-ro" / "other.db")])
            assert "cannot be written" in message and "club-ro" in message
    with lock_held(db):  # another writer holds it past the busy timeout (10 s)
        message = said(["rotate-token", match_id, "--token", token, "--db", str(db)])
        assert "busy" in message and "try again in a moment" in message
    message = said(["audit", match_id, "--db", str(tmp_path)])
    assert "not a folder" in message
    assert "not a usable" in said(["audit", match_id, "--db", str(archive)])
    assert "No such file or directory" in said(
        ["export", match_id, str(tmp_path / "nowhere" / "m.tnt"), "--db", str(db)]
    )
