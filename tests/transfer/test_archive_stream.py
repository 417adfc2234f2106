"""An archive read as it arrives (a request body): one match at a time (issue 26).

``replays.archive.iter_archive`` hands each match on as soon as a line of another match comes,
and ``transfer.import_archive`` given lines that are not a list decides and stores it then; a
match whose lines resume after another's began is refused by line, in words. A file read whole
(a list: the command line) keeps deciding each match whole at the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from api.service import Service, transfer
from ledger import SqliteLedger
from replays.archive import iter_archive
from replays.lines import ErrorLog
from tests.transfer.backups import fill


@pytest.fixture
def lines(tmp_path: Path) -> list[bytes]:
    """Three small matches, exported as ``tanteo export --all`` writes them."""
    fill(tmp_path / "source.db", 3)
    with SqliteLedger(tmp_path / "source.db") as ledger:
        return [line.rstrip(b"\n") for line in transfer.all_lines(Service(ledger), full=True)]


def ids(lines: list[bytes]) -> list[str]:
    return list(dict.fromkeys(json.loads(line)["match"] for line in lines))


def test_a_match_is_handed_on_when_the_next_one_begins_not_at_the_end(lines: list[bytes]) -> None:
    read: list[int] = []

    def arriving() -> Iterator[bytes]:
        for number, line in enumerate(lines, 1):
            read.append(number)
            yield line

    matches = iter_archive(arriving(), ErrorLog())
    first = next(matches)
    assert first.id == ids(lines)[0] and len(read) == len(first.events) + 1  # the next match's first line only
    assert [m.id for m in matches] == ids(lines)[1:]


def test_a_match_whose_lines_resume_after_another_began_is_refused_by_line(tmp_path: Path, lines: list[bytes]) -> None:
    first, second, third = ids(lines)
    of = {m: [line for line in lines if json.loads(line)["match"] == m] for m in (first, second, third)}
    body = of[first][:2] + of[second] + of[first][2:] + of[third]
    with SqliteLedger(tmp_path / "target.db") as ledger:
        report = transfer.import_archive(Service(ledger), iter(body))
        stored = {m: len(ledger.read(m)) for m in (first, second, third)}
    resumed = [e for e in report["errors"] if e["code"] == "archive.match_resumed"]
    assert [e["line"] for e in resumed] == list(range(3 + len(of[second]), 1 + len(of[second]) + len(of[first])))
    assert all(e["match"] == first for e in resumed)
    assert (
        f"belongs to match {first}, whose lines ended on line 2 before another match's began" in resumed[0]["message"]
    )
    assert [m["id"] for m in report["imported"]] == [first, second, third]
    assert stored[second] == len(of[second]) and stored[third] == len(of[third])
    # decided with its lines up to the break (a sound chain so far), never with the resumed ones
    assert stored[first] == 2 and report["imported"][0]["lines"] == [1, 2]


def test_a_damaged_line_of_the_match_being_read_refuses_it_whole(tmp_path: Path, lines: list[bytes]) -> None:
    first, second, _ = ids(lines)
    of_first = [line for line in lines if json.loads(line)["match"] == first]
    damaged = of_first[-1][:60]  # cut short: still names its match
    body = of_first[:-1] + [damaged] + [line for line in lines if json.loads(line)["match"] != first]
    with SqliteLedger(tmp_path / "target.db") as ledger:
        report = transfer.import_archive(Service(ledger), iter(body))
    assert first not in {m["id"] for m in report["imported"]} and second in {m["id"] for m in report["imported"]}
    assert report["errors"][0]["line"] == len(of_first) and report["errors"][0]["match"] == first


def test_read_as_it_arrives_or_whole_the_report_is_the_same(tmp_path: Path, lines: list[bytes]) -> None:
    reports: list[Any] = []
    for name, given in (("streamed", iter(lines)), ("whole", list(lines))):
        with SqliteLedger(tmp_path / f"{name}.db") as ledger:
            report = transfer.import_archive(Service(ledger), given, workers=0)
        reports.append([{k: v for k, v in m.items() if k != "token"} for m in report["imported"]])
    assert reports[0] == reports[1] and len(reports[0]) == 3


def test_a_body_stopped_part_way_keeps_the_matches_stored_before_and_says_so(
    tmp_path: Path, lines: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read as it arrives, a match is stored with its chunk while the body goes on: a stop after
    the second match (Ctrl-C; the time budget and a storage fault stop the same way) keeps the
    first two, each whole, with their tokens, and the answer says so."""
    monkeypatch.setattr(transfer, "CHUNK_EVENTS", 1)  # a transaction per match
    first, second, third = ids(lines)
    handled: list[int] = []
    with SqliteLedger(tmp_path / "target.db") as ledger:
        try:
            transfer.import_archive(
                Service(ledger), iter(lines), progress=handled.append, stop=lambda: len(handled) >= 2
            )
        except transfer.ImportStopped as stopped:
            report, message = stopped.report, stopped.message
        else:
            raise AssertionError("the import did not stop")
        kept = [m.id for m in ledger.list_matches(limit=10)[0]]
    assert sorted(kept) == sorted([first, second]) and [m["id"] for m in report["imported"]] == [first, second]
    assert all(m["token"] for m in report["imported"])
    assert "2 matches were imported before it, each whole" in message
    assert "importing the same file again imports the rest and reports those as unchanged" in message
