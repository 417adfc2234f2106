"""Clubs: roster rules (legal and refused in words), figures that equal a brute-force
recomputation from the logs, league-table order on constructed ties, Play again and the club
archive — all through the service on a real SQLite file."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from tests.engines.drivers import playout

from api.service import EventRefused, Service
from api.service.league import periods
from api.service.transfer import club_archive, import_archive
from engines import ENGINES, LEAGUES
from engines.base import RuleViolation, events_from, walk
from engines.league import order_rows
from ledger import SqliteLedger

NAMES = ["Núria", "Jordi", "Pau", "Marta", "Laia", "Joan", "Anna", "Pere"]


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return Service(SqliteLedger(tmp_path / "club.db"))


def new_club(service: Service, players: int = 8) -> tuple[str, str]:
    made = service.clubs.create("Casal de Gràcia", place="Gràcia")
    service.clubs.record(
        made["id"], [{"type": "player_added", "data": {"name": n}} for n in NAMES[:players]], key=made["key"]
    )
    return made["id"], made["key"]


def add(service: Service, club: str, key: str, *events: dict[str, Any]) -> dict[str, Any]:
    return service.clubs.record(club, list(events), key=key)


def refused(service: Service, club: str, key: str, event: dict[str, Any]) -> RuleViolation:
    before = [e.hash for e in service.ledger.read(club)]
    with pytest.raises(EventRefused) as caught:
        add(service, club, key, event)
    assert [e.hash for e in service.ledger.read(club)] == before  # nothing written
    error = caught.value.error
    assert isinstance(error, RuleViolation)
    return error


# ---- the roster's rules: each legal and refused


def test_a_player_merged_into_themself_is_refused_and_two_entries_merge(service: Service) -> None:
    club, key = new_club(service)
    error = refused(service, club, key, {"type": "players_merged", "data": {"player": "p2", "into": "p2"}})
    assert error.code == "club.merge_self" and "Jordi cannot be merged into themself" in str(error.message)
    add(service, club, key, {"type": "players_merged", "data": {"player": "p2", "into": "p1"}})
    roster = service.clubs.roster(club)
    assert roster.person("p2") == "p1" and "p2" not in [p["id"] for p in service.clubs.club(club)["players"]]
    error = refused(service, club, key, {"type": "players_merged", "data": {"player": "p1", "into": "p2"}})
    assert error.code == "club.unknown_player" and "merged into Núria" in str(error.message)


def test_a_rename_to_a_name_another_player_has_is_refused(service: Service) -> None:
    club, key = new_club(service)
    error = refused(service, club, key, {"type": "player_renamed", "data": {"player": "p2", "name": "núria"}})
    assert error.code == "club.name_taken" and "already has a player called Núria" in str(error.message)
    error = refused(service, club, key, {"type": "player_added", "data": {"name": " PAU "}})
    assert error.code == "club.name_taken"
    add(
        service,
        club,
        key,
        {"type": "player_renamed", "data": {"player": "p2", "name": "Jordi B.", "nickname": "el Gran"}},
    )
    found = next(p for p in service.clubs.club(club)["players"] if p["id"] == "p2")
    assert (found["name"], found["nickname"]) == ("Jordi B.", "el Gran")
    add(service, club, key, {"type": "player_renamed", "data": {"player": "p3", "name": "Pau"}})  # its own name: fine


def test_a_hidden_player_is_refused_a_seat_and_left_out_of_public_lists(service: Service) -> None:
    club, key = new_club(service)
    add(service, club, key, {"type": "player_hidden", "data": {"player": "p4"}})
    assert "p4" not in [p["id"] for p in service.clubs.club(club)["players"]]
    assert "p4" in [p["id"] for p in service.clubs.club(club, key=key)["players"]]
    matches_before = service.ledger.list_matches()[1]
    with pytest.raises(RuleViolation) as caught:
        service.clubs.start_match(club, {"game": "cabo", "players": ["p1", "p4"]}, key=key)
    assert caught.value.code == "club.hidden_player" and "Marta is hidden" in str(caught.value.message)
    assert service.ledger.list_matches()[1] == matches_before  # no match was started either
    add(service, club, key, {"type": "player_shown", "data": {"player": "p4"}})
    started = service.clubs.start_match(club, {"game": "cabo", "players": ["p1", "p4"]}, key=key)
    assert service.match(started["id"])["players"] == ["Núria", "Marta"]


def test_unknown_players_nights_and_a_second_seat_are_refused(service: Service) -> None:
    club, key = new_club(service)
    error = refused(service, club, key, {"type": "player_hidden", "data": {"player": "p99"}})
    assert error.code == "club.unknown_player"
    for seats, night, code in ((["p1", "p1"], None, "club.seats"), (["p1", "p2"], "n4", "club.unknown_night")):
        with pytest.raises(RuleViolation) as caught:
            service.clubs.start_match(club, {"game": "cabo", "players": seats}, key=key, night=night)
        assert caught.value.code == code
    with pytest.raises(EventRefused) as written:
        add(service, club, key, {"type": "match_added", "data": {"match": "x", "players": ["p1", "p2"]}})
    assert written.value.error.code == "club.not_writable"


def test_a_casual_match_is_attached_by_its_token_and_the_club_key(service: Service) -> None:
    club, key = new_club(service)
    casual = service.start_match({"game": "cabo", "players": ["Nuria", "Jordi"]})
    with pytest.raises(RuleViolation) as caught:
        service.clubs.attach(club, casual["id"], ["p1"], key=key, token=casual["token"])
    assert caught.value.code == "club.seats"
    from api.service import AuthError

    with pytest.raises(AuthError):
        service.clubs.attach(club, casual["id"], ["p1", "p2"], key=key, token="wrong")
    service.clubs.attach(club, casual["id"], ["p1", "p2"], key=key, token=casual["token"])
    assert service.clubs.roster(club).matches[casual["id"]]["players"] == ["p1", "p2"]
    with pytest.raises(RuleViolation) as again:
        service.clubs.attach(club, casual["id"], ["p1", "p2"], key=key, token=casual["token"])
    assert again.value.code == "club.match_taken"
    other, other_key = new_club(service)
    with pytest.raises(RuleViolation) as elsewhere:
        service.clubs.attach(other, casual["id"], ["p1", "p2"], key=other_key, token=casual["token"])
    assert elsewhere.value.code == "club.match_taken" and "another club" in str(elsewhere.value.message)


# ---- figures: the projection equals a brute-force recomputation from the logs


def brute_force(service: Service, club: str) -> dict[str, Any]:
    """Every figure recomputed from scratch: each match's log folded anew, summed by person."""
    roster = service.clubs.roster(club)
    tables: dict[tuple[str, str], dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(int))
    )
    finished: dict[tuple[str, str], list[tuple[str, str, int, bool]]] = defaultdict(list)
    h2h: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for match_id, seating in roster.matches.items():
        record = service.ledger.get_match(match_id)
        engine = ENGINES[record.game]
        state = list(walk(engine, events_from(service.ledger.read(match_id))))[-1].state
        sheet = engine.score(state)
        league = LEAGUES[record.game]
        over = bool(sheet["end"].get("over"))
        winners = set(sheet["end"].get("winners") or ()) if over else set()
        scored = [h for h in sheet["hands"] if h["status"] == "scored"]
        people = [roster.person(p) for p in seating["players"]]
        night = seating.get("night")
        date = record.meta.get("date") or (roster.nights[night]["date"] if night else record.created_at[:10])
        doc = {"night": night, "date": date, "tags": record.meta.get("tags") or []}
        won_by = []
        for seat, person in enumerate(people):
            side = league.side(seat)
            deltas = [
                sum(line["points"] for line in h["lines"] if line.get("team", line.get("seat")) == side) for h in scored
            ]
            standing = next(s for s in sheet["standings"] if s.get("team", s.get("seat")) == side)
            won = over and side in winners
            won_by.append(won)
            for period in periods(doc, roster):
                row = tables[(record.game, period)][person]
                row["matches"] += 1
                row["played"] += int(over)
                row["won"] += int(won)
                row["hands"] += len(scored)
                row["handsWon"] += sum(league.hand_won(h["result"], seat) for h in scored)
                row["gained"] += sum(d for d in deltas if d > 0)
                row["lost"] += -sum(d for d in deltas if d < 0)
                row["money"] += int(standing.get("money") or 0)
            if over:
                finished[(person, record.game)].append((doc["date"], match_id, standing["total"], won))
        if over:
            for seat, person in enumerate(people):
                for other_seat, other in enumerate(people):
                    if other_seat != seat and league.side(other_seat) != league.side(seat):
                        row = h2h[(person, record.game, other)]
                        row[0] += 1
                        row[1] += int(won_by[seat] and not won_by[other_seat])
                        row[2] += int(won_by[other_seat] and not won_by[seat])
    return {"tables": tables, "finished": finished, "h2h": h2h}


def check_figures(service: Service, club: str) -> int:
    expected = brute_force(service, club)
    roster = service.clubs.roster(club)
    checked = 0
    for (game, period), rows in expected["tables"].items():
        table = {row["player"]: row for row in service.clubs.table(club, game, period)["rows"]}
        assert set(table) == set(rows), (game, period)
        for person, figures in rows.items():
            for figure, value in figures.items():
                assert table[person][figure] == value, (game, period, person, figure)
                checked += 1
    for person in {p.id for p in roster.listed()}:
        profile = service.clubs.profile(club, person)["games"]
        for (who, game), done in expected["finished"].items():
            if who != person:
                continue
            mine = profile[game]
            totals = [total for _, _, total, _ in done]
            better = LEAGUES[game].better
            assert mine["best"]["total"] == (max(totals) if better == "higher" else min(totals))
            assert mine["worst"]["total"] == (min(totals) if better == "higher" else max(totals))
            newest = sorted(done, reverse=True)[:10]
            assert [(f["date"], f["match"], f["won"]) for f in mine["form"]] == [(d, m, w) for d, m, _, w in newest]
            assert mine["average"] == round(sum(totals) / len(totals), 2)
            checked += 4
        for (who, game, other), row in expected["h2h"].items():
            if who == person:
                got = next(h for h in profile[game]["headToHead"] if h["opponent"] == other)
                assert [got["played"], got["won"], got["lost"]] == row
                checked += 1
    return checked


def record_playout(
    service: Service, club: str, key: str, game: str, seed: int, seats: list[str], night: str | None
) -> dict[str, Any]:
    events, _ = playout(game, seed)
    data = {**events[0].data, "players": seats}
    started = service.clubs.start_match(club, data, key=key, night=night)
    service.record(started["id"], [{"type": e.type, "data": e.data} for e in events[1:]], token=started["token"])
    return started


@pytest.mark.parametrize("seed", [1, 2])
def test_profiles_and_tables_equal_a_brute_force_recomputation_with_corrections_and_a_merge(
    service: Service, seed: int
) -> None:
    club, key = new_club(service)
    made = add(
        service,
        club,
        key,
        {"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}},
        {"type": "season_declared", "data": {"name": "Tardor", "from": "2026-01-01", "to": "2099-12-31"}},
    )
    assert made["made"] == ["s1", "n1"]
    pick = random.Random(seed)
    started = []
    for i, game in enumerate(sorted(ENGINES) * 2):
        n = len(playout(game, seed * 10 + i)[0][0].data["players"])
        seats = pick.sample([f"p{k}" for k in range(1, 9)], n)
        started.append(record_playout(service, club, key, game, seed * 10 + i, seats, "n1" if i % 2 else None))
    assert check_figures(service, club) > 100
    # corrections: void the last event of three matches (each is then in play again)
    for match in started[:3]:
        version = service.ledger.version(match["id"])
        service.record(
            match["id"], [{"type": "void", "data": {"target": version, "reason": "wrong card"}}], token=match["token"]
        )
    assert any(service.match(m["id"])["status"] == "playing" for m in started[:3])
    check_figures(service, club)
    # a merge of two entries: their matches count as one person's from then on (two entries who
    # played at the same table are two people: refused)
    shared = next(m for m in service.clubs.roster(club).matches.values() if len(m["players"]) >= 2)["players"]
    error = refused(service, club, key, {"type": "players_merged", "data": {"player": shared[0], "into": shared[1]}})
    assert error.code == "club.merge_same_table"
    add(
        service,
        club,
        key,
        {"type": "player_added", "data": {"name": "Ot"}},
        {"type": "player_added", "data": {"name": "Otto"}},
    )
    for seed_, newcomer, night in ((77, "p9", None), (78, "p10", "n1")):
        n = len(playout("cabo", seed_)[0][0].data["players"])
        record_playout(service, club, key, "cabo", seed_, [newcomer, *[f"p{k}" for k in range(1, n)]], night)
    add(service, club, key, {"type": "players_merged", "data": {"player": "p10", "into": "p9"}})
    assert service.clubs.profile(club, "p10")["player"] == "p9"
    assert service.clubs.profile(club, "p9")["games"]["cabo"]["matches"] == 2
    check_figures(service, club)
    # rebuilt from the logs, the projection is the same
    service.clubs.rebuild()
    check_figures(service, club)


# ---- league tables: the declared rule orders constructed ties


def row(player: str, **figures: Any) -> dict[str, Any]:
    return {
        "player": player,
        "played": 2,
        "won": 0,
        "handsWon": 0,
        "net": 0,
        "money": 0,
        "lossDiff": 0,
        "totalOver": 0,
        **figures,
    }


@pytest.mark.parametrize(
    ("game", "rows", "order", "tied"),
    [
        (
            "cau-robat",
            [row("a", won=1, handsWon=3), row("b", won=1, handsWon=5), row("c", won=2, handsWon=1)],
            ["c", "b", "a"],
            [],
        ),
        ("kabu", [row("a", net=-5, won=2), row("b", net=12, won=0), row("c", net=12, won=1)], ["c", "b", "a"], []),
        (
            "cabo",
            [row("a", won=1, totalOver=180), row("b", won=1, totalOver=120), row("c", won=0, totalOver=10)],
            ["b", "a", "c"],
            [],
        ),
        (
            "el-roby",
            [row("a", won=1, money=-4), row("b", won=1, money=9), row("c", won=1, money=9)],
            ["b", "c", "a"],
            ["b", "c"],
        ),
        (
            "la-cabra",
            [row("a", won=1, lossDiff=-3), row("b", won=1, lossDiff=7), row("c", won=3, lossDiff=-20)],
            ["c", "b", "a"],
            [],
        ),
    ],
)
def test_a_league_table_follows_its_declared_rule_on_ties(
    game: str, rows: list[dict[str, Any]], order: list[str], tied: list[str]
) -> None:
    ranked = order_rows(LEAGUES[game], rows)
    assert [r["player"] for r in ranked][: len(order)] == order or (
        tied and {r["player"] for r in ranked[:2]} == set(tied)
    )
    assert sorted(r["player"] for r in ranked if r["tied"]) == sorted(tied)
    if tied:
        assert len({r["rank"] for r in ranked if r["tied"]}) == 1  # a tie shares its rank


# ---- Play again


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_play_again_names_the_next_dealer_the_rules_name(service: Service, game: str) -> None:
    events, state = playout(game, 5)
    engine = ENGINES[game]
    started = service.start_match(events[0].data)
    service.record(started["id"], [{"type": e.type, "data": e.data} for e in events[1:]], token=started["token"])
    last_deal = [e for e in events if e.type == "hand_started"][-1].data
    expected = LEAGUES[game].next_dealer(state)
    n = len(events[0].data["players"])
    if game in ("cau-robat",):
        step = 1 if (events[0].data.get("options") or {}).get("dealerRotation", "right") == "right" else -1
        assert expected == (last_deal["dealer"] + step) % n
    elif game in ("el-roby", "la-cabra"):
        assert expected == (last_deal["dealer"] + 1) % n
    elif game == "cabo":
        assert expected in engine.score(state)["hands"][-1]["result"]["winners"]
    again = service.play_again(started["id"], token=started["token"])
    assert again["series"] == {
        k: v
        for k, v in {"id": started["id"], "number": 2, "previous": started["id"], "dealer": expected}.items()
        if v is not None
    }
    summary = service.match(again["id"])
    assert summary["players"] == events[0].data["players"] and summary["series"]["number"] == 2
    assert [m["id"] for m in service.series(started["id"])["matches"]] == [started["id"], again["id"]]
    if expected is not None:  # the score page is offered that dealer for the first deal
        first = service.legal_moves(again["id"])["moves"][0]
        assert first["type"] == "hand_started" and first["data"]["dealer"] == expected


def test_play_again_before_the_end_or_without_the_token_is_refused(service: Service) -> None:
    started = service.start_match({"game": "cabo", "players": ["Anna", "Ben"]})
    with pytest.raises(RuleViolation) as caught:
        service.play_again(started["id"], token=started["token"])
    assert caught.value.code == "series.not_over"
    from api.service import AuthError

    with pytest.raises(AuthError):
        service.play_again(started["id"], token=None)


# ---- the club's archive


def test_a_club_log_exports_and_imports_with_the_same_head(service: Service, tmp_path: Path) -> None:
    club, key = new_club(service, 4)
    add(service, club, key, {"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}})
    record_playout(service, club, key, "la-cabra", 3, ["p1", "p2", "p3", "p4"], "n1")
    archive = club_archive(service, club)
    other = Service(SqliteLedger(tmp_path / "other.db"))
    report = import_archive(other, archive.splitlines(keepends=True))
    assert len(report["imported"]) == 2 and not report.get("errors")
    assert other.ledger.get_match(club).head == service.ledger.get_match(club).head
    assert other.clubs.club(club)["players"] == service.clubs.club(club)["players"]
    assert other.clubs.table(club, "la-cabra")["rows"] == service.clubs.table(club, "la-cabra")["rows"]
    [report_club] = [r for r in other.ledger.verify(club)]
    assert report_club.valid


def test_play_again_in_a_club_seats_the_same_players_unless_one_was_hidden(service: Service) -> None:
    club, key = new_club(service, 4)
    add(service, club, key, {"type": "night_opened", "data": {"name": "Dijous", "date": "2026-11-26"}})
    first = record_playout(service, club, key, "la-cabra", 3, ["p1", "p2", "p3", "p4"], "n1")
    again = service.play_again(first["id"], token=first["token"])
    assert again["club"] == club
    assert service.clubs.roster(club).matches[again["id"]] == {
        "players": ["p1", "p2", "p3", "p4"],
        "night": "n1",
        "seq": 8,
    }
    service.record(
        again["id"], [{"type": e.type, "data": e.data} for e in playout("la-cabra", 3)[0][1:]], token=again["token"]
    )
    add(service, club, key, {"type": "player_hidden", "data": {"player": "p3"}})
    matches = service.ledger.list_matches()[1]
    with pytest.raises(RuleViolation) as caught:
        service.play_again(again["id"], token=again["token"])
    assert caught.value.code == "club.hidden_player"
    assert service.ledger.list_matches()[1] == matches  # no match was started
