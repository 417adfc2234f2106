"""Kabú through the HTTP API, as a scorer at the table would record it (docs/RULES.md §2.7 K1-K3).

K1 is VOCABULARY.md §7's log, move by move with every card hidden until the showdown; K2 is
a result-only hand from a paper sheet that ends the game by insolvency; K3 are values with
the other decks. A session of many hands is recorded with the table's chip counts, one of
them wrong; the audit finds the first hand where the sheet diverges. Refused events leave
the log exactly as it was.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.conftest import Scorer

U = "??"


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


K1_LOG = [
    ev("hand_started", dealer=3, hands=[[U, U], [U, U], [U, U], [U, U]]),
    ev("stand", seat=0),
    ev("take", seat=1),
    ev("take", seat=2),
    ev("stand", seat=3),
    ev("stand", seat=1),
    ev("take", seat=2),
    ev("showdown", hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]),
    ev("score_claimed", hand=1, points=[13, 5, -23, 5], totals=[83, 75, 47, 75]),
]
K1_START = {"game": "kabu", "players": ["P1", "P2", "P3", "P4"], "options": {}}


def refused(scorer: Scorer, code: str, *events: dict[str, Any]) -> dict[str, Any]:
    """Post events that must be refused with ``code``: a 4xx problem, the log unchanged."""
    before = scorer.raw_log()
    response = scorer.post(*events)
    body = response.get_json()
    assert 400 <= response.status_code < 500, body
    assert response.status_code == 422 and body["code"] == code, body
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert scorer.raw_log() == before
    return body


def test_k1_through_the_api(scorer: Scorer) -> None:
    scorer.start(K1_START)
    for event in K1_LOG[:3]:
        scorer.record(event)
    refused(scorer, "kabu.stood", ev("take", seat=0))  # drawing after standing
    assert scorer.record(*K1_LOG[3:-2])["version"] == 8
    audit = scorer.get("/audit")
    assert audit["hands"][0]["status"] == "incomplete" and {"seat": 2} in audit["hands"][0]["missing"]
    refused(scorer, "kabu.max_cards", ev("take", seat=2))  # a fifth card
    refused(
        scorer,
        "common.card_not_in_deck",  # not in the A-10 deck
        ev("showdown", hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "KD"]]),
    )
    scorer.record(*K1_LOG[-2:])
    summary = scorer.get()
    assert summary["version"] == 10 and summary["status"] == "playing"
    assert [s["total"] for s in summary["standings"]] == [83, 75, 47, 75]
    audit = scorer.get("/audit")
    hand = audit["hands"][0]
    assert (
        hand["status"] == "scored"
        and hand["result"]["values"] == [9, 7, 0, 7]
        and hand["result"]["net"] == [13, 5, -23, 5]
    )
    assert hand["points"] == [13, 5, -23, 5] and hand["totals"] == [83, 75, 47, 75]
    assert all(c["agrees"] for c in audit["claims"]) and len(audit["claims"]) == 8 and audit["firstDivergence"] is None
    reasons = [line["reason"] for line in hand["lines"]]
    for words in (
        "P2 (7) owes P1 (9) 2",
        "P3 (0) owes P1 (9) 9",
        "P4 (7) owes P1 (9) 2",
        "P3 (0) owes P2 (7) 7",
        "P2 and P4 both have 7: no payment",
        "P3 (0) owes P4 (7) 7",
        "P3's net -23 = N·v − S = 4 × 0 − 23",
    ):
        assert any(words in r for r in reasons), words
    assert audit["chain"]["valid"] and audit["chain"]["length"] == 10
    # the hands were secret until the showdown: the public view at step 8 shows none of them
    at = scorer.get("/state", at=8)["state"]
    assert at["seats"][2]["cards"] == 4 and "3D" not in json.dumps(at)
    frames = scorer.get("/replay")["frames"]
    assert "hand 1" in frames[-1]["text"]
    assert frames[8]["text"].startswith("Showdown: P1 5♥ 4♠ (9)")


def test_k2_insolvency_ends_the_game_through_the_api(scorer: Scorer) -> None:
    scorer.start({"game": "kabu", "players": ["X", "Y", "Z"], "initial": {"chips": [40, 30, 5]}})
    scorer.record(
        ev("hand_started", dealer=0),
        ev("hand_result", values=[8, 2, 1]),
        ev("score_claimed", hand=1, points=[6, -6, 0], totals=[46, 24, 5], winners=[0]),
    )
    summary = scorer.get()
    assert summary["status"] == "over"
    assert [s["total"] for s in summary["standings"]] == [46, 24, 5]
    assert (
        summary["end"]["over"]
        and summary["end"]["winners"] == [0]
        and summary["end"]["rule"] == "/rules/kabu#scoring-match"
    )
    assert [s["status"] for s in summary["standings"]] == [
        "winner",
        "out",
        "out",
    ]  # as Cau Robat: the loser who could pay is out too
    audit = scorer.get("/audit")
    assert audit["hands"][0]["result"]["insolvent"] == [2] and audit["firstDivergence"] is None
    assert any(
        "Z (1) owes X (8) 7 = 8 − 1: not paid, Z is insolvent and pays nobody" == ln["reason"]
        for ln in audit["hands"][0]["lines"]
    )
    # a settlement after the game ended
    refused(scorer, "common.match_over", ev("hand_started", dealer=0))
    refused(scorer, "common.match_over", ev("hand_started", dealer=1), ev("hand_result", values=[1, 2, 3]))
    assert scorer.get("/legal-moves")["moves"] == []


@pytest.mark.parametrize(
    "deck, hands, values",
    [
        ("spanish40", [["12o", "11c"], ["12b", "11e", "10o"]], [7, 7]),  # rey + caballo (+ sota)
        ("french40", [["8H", "9C", "3D"], ["AH", "AS"]], [0, 2]),  # 20: the worst value
        ("full52", [["KS", "9D"], ["QH", "JH"]], [9, 0]),  # faces are 0
    ],
)
def test_k3_values_with_other_decks(scorer: Scorer, deck: str, hands: list[list[str]], values: list[int]) -> None:
    scorer.start({"game": "kabu", "players": ["A", "B"], "options": {"deck": deck}})
    scorer.record(ev("hand_started", dealer=0), ev("hand_result", hands=hands))
    hand = scorer.get("/audit")["hands"][0]
    assert hand["result"]["values"] == values
    diff = values[0] - values[1]
    assert hand["points"] == [diff, -diff]


def test_games_lists_kabu_with_every_option(client: Any) -> None:
    games = client.get("/games").get_json()["games"]
    kabu = next(g for g in games if g["game"] == "kabu")
    assert kabu["options"]["deck"]["default"] == "french40" and kabu["options"]["maxPlayers"]["default"] == 6
    assert kabu["options"]["dealerMode"]["values"] == ["keep", "rotate", "croupier"]
    assert set(kabu["schemas"]) >= {
        "match_started",
        "hand_started",
        "keep",
        "take",
        "stand",
        "showdown",
        "reveal",
        "hand_result",
        "buy_chips",
        "leave",
        "time_up",
        "score_claimed",
    }
    assert client.get(kabu["schemas"]["showdown"]).get_json()["$id"].endswith("kabu/showdown.v1.json")
    assert client.get("/games/kabu").get_json()["target"]["end"]["default"] == "insolvency"


def test_impossible_setup_is_refused_at_match_started(client: Any) -> None:
    response = client.post(
        "/matches",
        json={
            "game": "kabu",
            "players": [f"p{i}" for i in range(7)],
            "options": {"maxPlayers": 10, "start": "choose5", "openSix": True},
        },
    )
    assert response.status_code == 422 and response.get_json()["code"] == "kabu.deck_too_small"
    response = client.post("/matches", json={"game": "kabu", "players": ["A"]})
    assert response.status_code == 400 and response.get_json()["code"] == "schema.invalid"
    assert client.get("/matches").get_json()["total"] == 0


def _session(rng: random.Random, hands: int) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """A session of five players, hands alternately move by move and result only, with the true stacks."""
    deck = [r + s for s in "CDHS" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]]
    value = {"A": 1, **{str(v): v % 10 for v in range(2, 11)}}
    chips = [85] * 5
    events: list[dict[str, Any]] = []
    stacks = []
    for h in range(hands):
        rng.shuffle(deck)
        cards = [deck[2 * s : 2 * s + 2] for s in range(5)]
        stock = deck[10:]
        if h % 2 == 0:
            events.append(ev("hand_started", dealer=h % 5, hands=[[U, U]] * 5))
            order = [(h % 5 + i) % 5 for i in range(1, 6)]
            takers = []
            for s in order:
                take = rng.random() < 0.5
                events.append(ev("take" if take else "stand", seat=s))
                if take:
                    takers.append(s)
            for s in takers:
                cards[s].append(stock.pop())
            for s in takers:
                take = rng.random() < 0.5
                events.append(ev("take" if take else "stand", seat=s))
                if take:
                    cards[s].append(stock.pop())
            events.append(ev("showdown", hands=cards))
        else:
            events += [ev("hand_started", dealer=h % 5), ev("hand_result", hands=cards)]
        values = [sum(value[c[:-1]] for c in hand) % 10 for hand in cards]
        total = sum(values)
        assert all(chips[s] >= sum(max(0, values[t] - values[s]) for t in range(5)) for s in range(5)), (
            "keep the session solvent"
        )
        chips = [chips[s] + 5 * values[s] - total for s in range(5)]
        stacks.append(list(chips))
    return events, stacks


def test_a_session_of_many_hands_audits_and_a_wrong_stack_is_found_where_it_diverges(scorer: Scorer) -> None:
    rng = random.Random(2024)
    events, stacks = _session(rng, 8)
    scorer.start({"game": "kabu", "players": ["Ana", "Ben", "Cris", "Dani", "Eva"]})
    claims_from = 3  # from hand 4 on, the table's sheet carries a slip: Ben written 1 chip too many
    hand = 0
    batch: list[dict[str, Any]] = []
    for event in events:
        batch.append(event)
        if event["type"] in ("showdown", "hand_result"):
            totals = list(stacks[hand])
            if hand >= claims_from:
                totals[1] += 1
            batch.append(ev("score_claimed", hand=hand + 1, totals=totals))
            scorer.record(*batch)
            batch = []
            hand += 1
    audit = scorer.get("/audit")
    assert [h["totals"] for h in audit["hands"]] == stacks
    assert all(sum(h["totals"]) == 425 for h in audit["hands"])
    first = audit["firstDivergence"]
    assert (first["hand"], first["field"], first["seat"], first["claimed"], first["computed"]) == (
        4,
        "totals",
        1,
        stacks[3][1] + 1,
        stacks[3][1],
    )
    assert "Ben" in first["why"]
    assert [c["agrees"] for c in audit["claims"] if c["hand"] <= 3] == [True] * 15
    wrong = [c for c in audit["claims"] if c["agrees"] is False]
    assert [c["hand"] for c in wrong] == [4, 5, 6, 7, 8] and all(c["seat"] == 1 for c in wrong)
    assert [s["total"] for s in scorer.get()["standings"]] == stacks[-1]


def test_refused_events_leave_the_log_unchanged(scorer: Scorer) -> None:
    scorer.start({"game": "kabu", "players": ["A", "B", "C"], "options": {"start": "choose5", "openSix": True}})
    six = ["AH", "2H", "3H", "4H", "5H", "6H"]
    refused(
        scorer,
        "common.card_not_in_deck",
        ev("hand_started", dealer=0, hands=[["JH", U, U, U, U], [U] * 5, [U] * 5], table=six),
    )
    refused(scorer, "kabu.bad_deal", ev("hand_started", dealer=0, hands=[[U, U]] * 3, table=six))
    scorer.record(ev("hand_started", dealer=0, hands=[["7C", "8C", U, U, U], [U] * 5, [U] * 5], table=six))
    refused(scorer, "common.not_your_turn", ev("keep", seat=0, card="7C"))
    refused(scorer, "kabu.keep_first", ev("take", seat=1))
    refused(scorer, "common.card_unavailable", ev("keep", seat=1, card="7C"))
    refused(scorer, "common.card_unavailable", ev("keep", seat=1, card="AH"))
    scorer.record(ev("keep", seat=1, card=U), ev("keep", seat=2, card=U), ev("keep", seat=0, card="7C"))
    refused(scorer, "kabu.kept_already", ev("keep", seat=0, card="7C"))
    scorer.record(ev("stand", seat=1), ev("take", seat=2))
    refused(scorer, "kabu.stood", ev("take", seat=1))
    scorer.record(ev("take", seat=0), ev("take", seat=2), ev("take", seat=0))
    refused(scorer, "kabu.max_cards", ev("take", seat=0))
    refused(
        scorer,
        "common.card_duplicate",
        ev("showdown", hands=[["7C", "AH", "2C", "3C"], ["9D", "10D"], ["4S", "5S", "6S", "7S"]]),
    )
    refused(
        scorer, "kabu.hand_size", ev("showdown", hands=[["7C", "9C", "2C"], ["9D", "10D"], ["4S", "5S", "6S", "7S"]])
    )
    refused(
        scorer,
        "kabu.mismatch",
        ev("showdown", hands=[["8C", "9C", "2C", "3C"], ["9D", "10D"], ["4S", "5S", "6S", "7S"]]),
    )
    # all or nothing: a good showdown followed by a bad event writes neither
    refused(
        scorer,
        "kabu.hand_over",
        ev("showdown", hands=[["7C", "9C", "2C", "3C"], ["9D", "10D"], ["4S", "5S", "6S", "7S"]]),
        ev("take", seat=1),
    )
    scorer.record(ev("showdown", hands=[["7C", "9C", "2C", "3C"], ["9D", "10D"], ["4S", "5S", "6S", "7S"]]))
    hand = scorer.get("/audit")["hands"][0]
    assert hand["result"]["values"] == [1, 9, 2]
    assert hand["points"] == [3 * 1 - 12, 3 * 9 - 12, 3 * 2 - 12] and hand["totals"] == [46, 70, 49]
