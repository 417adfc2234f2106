"""Irregular play recorded as played (issue 31), through HTTP on SQLite and PostgreSQL.

For each game, two kinds of irregularity its engine refuses are recorded in hand 2 (after a legal
hand 1), the hand is closed from the sheet, and the automatic dispute is ruled each way: the hand
stands as played (rejected), is void (upheld + a void of its deal) or takes the house penalty
(upheld + an amend of its result). Hand 1's score never moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, NamedTuple

import pytest
from flask import Flask

from api.app import create_app
from api.service import Service, transfer
from ledger import SqliteLedger
from tests.conftest import Clock, Scorer

U = "??"


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def move(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


class Game(NamedTuple):
    start: dict[str, Any]
    hand1: list[dict[str, Any]]
    deal2: dict[str, Any]
    kinds: dict[str, tuple[list[dict[str, Any]], dict[str, Any], str]]
    """Per kind: the legal moves before it, the irregular move, the code the rules refuse it with."""
    close: dict[str, Any]
    penalty: dict[str, Any]


ER = [
    ["2C", "2D", "9H", "9S", "JC", "QD", "KS", "3H", "5D", "6S"],
    ["4H", "5H", "6H", "8C", "8D", "8S", "KC", "QH", "JS", "AC"],
    ["7H", "7C", "10D", "2S", "3S", "4C", "9D", "JD", "QC", "AS"],
    ["3C", "5C", "6C", "10C", "KD", "KH", "2H", "4S", "8H", "AD"],
]
CABO_ROW = [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]]

GAMES: dict[str, Game] = {
    "la-cabra": Game(
        {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}},
        [ev("hand_started", dealer=3), ev("hand_result", cardPoints=[72, 48], tricks=[5, 2], lastTrick=0)],
        ev(
            "hand_started",
            dealer=0,
            trump="QS",
            hands=[["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], [U] * 4],
        ),
        {
            "lead out of turn": ([], move("lead", seat=2, cards=["7D"]), "common.not_your_turn"),
            "a beat that does not beat": (
                [ev("lead", seat=0, cards=["6C"])],
                move("beat", seat=1, cards=["JH"]),
                "la-cabra.cannot_beat",
            ),
        },
        {"cardPoints": [70, 50], "tricks": [5, 2], "lastTrick": 0},
        {"cardPoints": [0, 120], "tricks": [0, 7], "lastTrick": 1},  # the offenders lose the deal
    ),
    "el-roby": Game(
        {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "options": {"entry": 5, "stake": 1}},
        [
            ev("hand_started", dealer=3),
            ev("hand_result", out=0, hands=[[], ["AS", "KH", "7D", "7C"], ["5H", "6H", "7H", "QS"], ["2C"]]),
        ],
        ev("hand_started", dealer=0, hands=ER, discard="10H"),
        {
            "a discard before drawing": ([], move("discard", seat=1, card="4H"), "el-roby.draw_first"),
            "drawing out of turn": ([], move("draw", seat=2, **{"from": "stock"}), "common.not_your_turn"),
            "a discard that plays on a meld": (  # the seeds' wrong discard: Bea's 4-5-6 of hearts takes the 7
                [
                    *(
                        e
                        for seat, card in ((1, "9C"), (2, "10S"), (3, "JH"), (0, "QS"))
                        for e in (
                            ev("draw", seat=seat, **{"from": "stock"}, card=card),
                            ev("discard", seat=seat, card=card),
                        )
                    ),
                    ev("draw", seat=1, **{"from": "stock"}, card="3D"),
                    ev("meld", seat=1, id=1, cards=["4H", "5H", "6H"]),
                    ev("discard", seat=1, card="AC"),
                    ev("draw", seat=2, **{"from": "stock"}, card="4D"),
                ],
                move("discard", seat=2, card="7H"),
                "el-roby.discard_fits",
            ),
        },
        {"out": 1, "hands": [["AS", "KH", "7D", "7C"], [], ["5H", "6H", "7H", "QS"], ["2C"]]},
        {"out": 0, "hands": [[], ["AS", "KH", "7D", "7C"], ["5H", "6H", "7H", "QS"], ["2C"]]},
    ),
    "cau-robat": Game(
        {"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 3}, "options": {}},
        [ev("hand_started", dealer=3), ev("hand_result", piles=[8, 12, 12, 6], table=2)],
        ev("hand_started", dealer=0, table=["1o", "3c", "5e", "11b"], hands=[[U] * 9] * 4),
        {
            "playing out of turn": ([], move("play", seat=3, card="7e"), "common.not_your_turn"),
            "a miscounted call": ([], move("play", seat=1, card="7e", call=True), "cau-robat.mismatch"),
        },
        {"piles": [10, 10, 12, 6], "table": 2},
        {"piles": [0, 28, 0, 10], "table": 2},
    ),
    "cabo": Game(
        {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]},
        [ev("hand_started", dealer=0), ev("hand_result", layouts=CABO_ROW, caller=0)],
        ev("hand_started", dealer=3, layouts=[[U] * 4] * 4, discard="5"),
        {
            "drawing out of turn": ([], move("draw", seat=2), "common.not_your_turn"),
            "calling CABO twice in a round": (
                [ev("call_cabo", seat=3)],
                move("call_cabo", seat=0),
                "cabo.second_call",
            ),
        },
        {"layouts": CABO_ROW, "caller": 3},
        {"layouts": [*CABO_ROW[:3], ["9", "9", "5"]], "caller": 3},  # the house penalty: Dora's row as 9s
    ),
    "kabu": Game(
        {"game": "kabu", "players": ["P1", "P2", "P3", "P4"], "options": {}},
        [ev("hand_started", dealer=3), ev("hand_result", values=[8, 2, 1, 5])],
        ev("hand_started", dealer=3, hands=[[U, U]] * 4),
        {
            "standing out of turn": ([], move("stand", seat=2), "common.not_your_turn"),
            "keeping a card when nobody keeps": ([], move("keep", seat=0, card=U), "kabu.no_keep"),
        },
        {"values": [3, 9, 1, 5]},
        {"values": [9, 0, 1, 5]},
    ),
}
CASES = [(game, kind) for game, spec in GAMES.items() for kind in spec.kinds]


@pytest.fixture
def app(db_path: Path, clock: Clock) -> Iterator[Flask]:
    yield create_app({"TANTEO_DB": str(db_path), "TESTING": True, "TANTEO_CLOCK": clock})


def scored(hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hands as scored: without the irregular moves and the seq a hand was closed at (the log is longer)."""
    return [{k: v for k, v in h.items() if k not in ("irregular", "closedFromSheet")} for h in hands]


def played_to(scorer: Scorer, game: str, kind: str) -> int:
    """Record hand 1 and hand 2 up to the irregular move; return the seq of hand 2's deal."""
    spec = GAMES[game]
    scorer.start(spec.start)
    scorer.record(*spec.hand1)
    deal = scorer.record(spec.deal2)["version"]
    before, _, _ = spec.kinds[kind]
    if before:
        scorer.record(*before)
    return int(deal)


@pytest.mark.parametrize("ruling", ["stands", "void", "penalty"])
@pytest.mark.parametrize(("game", "kind"), CASES)
def test_an_irregularity_is_recorded_as_played_and_ruled(scorer: Scorer, game: str, kind: str, ruling: str) -> None:
    spec = GAMES[game]
    deal = played_to(scorer, game, kind)
    _, irregular_move, code = spec.kinds[kind]
    hand1 = scorer.get("/audit")["hands"][0]
    written = scorer.record(ev("irregular", hand=2, move=irregular_move))
    log = scorer.read("/events")["events"]  # as recorded (an open reader sees a private card as its placeholder)
    seq = written["version"] - 1
    irregular, dispute = log[seq - 1], log[seq]
    assert irregular["type"] == "irregular" and irregular["data"]["move"] == irregular_move
    assert irregular["data"]["rule"]["code"] == code and irregular["data"]["rule"]["message"]
    assert dispute["type"] == "dispute" and dispute["data"]["hand"] == 2  # opened in the same batch
    audit = scorer.read("/audit")  # with the key: the rule's words as stored (they may name a private card)
    assert audit["hands"][1]["irregular"] == [{"seq": seq, **irregular["data"]["rule"]}]
    assert audit["firstIrregularity"]["seq"] == seq
    assert audit["disputes"][0]["state"] == "open" and audit["disputes"][0]["irregular"] == seq

    close = scorer.record(ev("hand_result", **spec.close))["version"]
    played = scorer.get("/audit")["hands"]
    assert played[0] == hand1

    if ruling == "stands":
        scorer.record(ev("ruling", dispute=seq + 1, decision="rejected", reason="the hand stands as played"))
        after = scorer.get("/audit")
        assert after["hands"] == played and after["disputes"][0]["state"] == "rejected"
    elif ruling == "void":
        scorer.record(
            ev("ruling", dispute=seq + 1, decision="upheld", reason="dealt again"),
            ev("void", target=deal, reason="irregular play: the hand is dealt again"),
        )
        after = scorer.get("/audit")
        assert after["hands"] == [hand1] and after["firstIrregularity"] is None
        assert scorer.get("/legal-moves")["moves"][0]["type"] == "hand_started"
    else:
        scorer.record(
            ev("ruling", dispute=seq + 1, decision="upheld", reason="the house penalty"),
            ev("amend", target=close, data=spec.penalty, reason="house penalty for the irregularity"),
        )
        after = scorer.get("/audit")
        assert after["hands"][0] == hand1
        assert after["hands"][1]["points"] != played[1]["points"]
        assert after["hands"][1]["irregular"] == [{"seq": seq, **irregular["data"]["rule"]}]
    assert after["disputes"][0]["state"] == ("rejected" if ruling == "stands" else "upheld")


@pytest.mark.parametrize(("game", "kind"), [(g, next(iter(s.kinds))) for g, s in GAMES.items()])
def test_an_irregularity_never_changes_how_the_legal_record_is_scored(
    scorer: Scorer, client: Any, game: str, kind: str
) -> None:
    spec = GAMES[game]
    played_to(scorer, game, kind)
    _, irregular_move, _ = spec.kinds[kind]
    scorer.record(ev("irregular", hand=2, move=irregular_move, reason="as the table played it"))
    scorer.record(ev("hand_result", **spec.close))
    with_it = scorer.get("/audit")["hands"]
    twin = Scorer(client)
    twin.start(spec.start)
    twin.record(*spec.hand1, spec.deal2, *spec.kinds[kind][0], ev("hand_result", **spec.close))
    assert scored(with_it) == scored(twin.get("/audit")["hands"])
    assert scorer.get("/legal-moves")["moves"] == twin.get("/legal-moves")["moves"]


def test_a_legal_move_sent_as_irregular_is_refused_and_nothing_written(scorer: Scorer) -> None:
    played_to(scorer, "la-cabra", "lead out of turn")
    before = scorer.raw_log()
    response = scorer.post(ev("irregular", hand=2, move=move("lead", seat=0, cards=["6C"])))
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["code"] == "common.not_irregular"
    assert scorer.raw_log() == before


def test_a_client_sent_rule_and_a_bad_move_are_refused_by_the_schema(scorer: Scorer) -> None:
    played_to(scorer, "la-cabra", "lead out of turn")
    before = scorer.raw_log()
    sent = ev(
        "irregular",
        hand=2,
        move=move("lead", seat=2, cards=["7D"]),
        rule={"code": "common.not_your_turn", "message": "made up"},
    )
    response = scorer.post(ev("note", text="first"), sent)
    body = response.get_json()
    assert response.status_code == 400 and body["path"] == "$.events[1].data.rule", body
    response = scorer.post(ev("irregular", hand=2, move=move("lead", seat=2, cards=["XX"])))
    body = response.get_json()
    assert response.status_code == 400 and body["path"] == "$.events[0].data.move.data.cards[0]", body
    response = scorer.post(ev("irregular", hand=2, move=move("ruling", dispute=1)))
    assert response.status_code == 400 and response.get_json()["path"] == "$.events[0].data.move.type"
    assert scorer.raw_log() == before


def test_a_refusal_after_the_added_dispute_names_the_event_the_client_sent(scorer: Scorer) -> None:
    played_to(scorer, "la-cabra", "lead out of turn")
    response = scorer.post(
        ev("irregular", hand=2, move=move("lead", seat=2, cards=["7D"])), ev("lead", seat=3, cards=["7S"])
    )
    assert response.status_code == 422 and response.get_json()["index"] == 1, response.get_json()


def test_the_replay_names_the_broken_rule_in_the_readers_language(scorer: Scorer) -> None:
    played_to(scorer, "la-cabra", "lead out of turn")
    seq = scorer.record(ev("irregular", hand=2, move=move("lead", seat=2, cards=["7D"])))["version"] - 1
    english = next(f for f in scorer.get("/replay")["frames"] if f["seq"] == seq)
    assert english["irregular"] is True and english["status"] == "irregular"
    assert english["text"] == "irregular: South leads 7♦ — it is North's turn to lead, not South's"
    catalan = next(f for f in scorer.get("/replay", lang="ca")["frames"] if f["seq"] == seq)
    assert catalan["irregular"] is True
    assert catalan["text"].startswith("jugada irregular: ") and "North" in catalan["text"]
    assert catalan["text"] != english["text"] and "turn" not in catalan["text"]
    dispute = next(f for f in scorer.get("/replay", lang="ca")["frames"] if f["seq"] == seq + 1)
    assert dispute["text"] == f"reclamació sobre la mà 2: la jugada irregular de l'entrada {seq}"


@pytest.mark.parametrize("game", list(GAMES))
def test_an_irregularity_survives_the_archive_and_the_text_notation(game: str, tmp_path: Path) -> None:
    spec = GAMES[game]
    kind = next(iter(spec.kinds))
    source, target = Service(SqliteLedger(tmp_path / "a.db")), Service(SqliteLedger(tmp_path / "b.db"))
    created = source.start_match(spec.start)
    before, irregular_move, code = spec.kinds[kind]
    events = [*spec.hand1, spec.deal2, *before, ev("irregular", hand=2, move=irregular_move, reason="as played")]
    source.record(created["id"], events, token=created["token"])
    source.record(created["id"], [ev("hand_result", **spec.close)], token=created["token"])
    audit = source.audit(created["id"])
    assert audit["firstIrregularity"]["code"] == code

    report = transfer.import_archive(target, list(transfer.match_lines(source, created["id"], full=True)), workers=0)
    assert report["imported"], report
    copy = report["imported"][0]["id"]
    assert target.ledger.get_match(copy).head == source.ledger.get_match(created["id"]).head
    assert target.audit(copy)["hands"] == audit["hands"]

    text = transfer.match_text(source, created["id"], full=True)
    assert "{irregular hand=2" in text
    report = transfer.import_text(target, text)
    assert report["errors"] == [], report["errors"]
    copy = report["imported"][0]["id"]
    assert target.audit(copy)["hands"] == audit["hands"]
    again = transfer.match_text(target, copy, full=True)
    assert [ln for ln in again.splitlines() if not ln.startswith("[Head")] == [
        ln for ln in text.splitlines() if not ln.startswith("[Head")
    ]


def test_an_irregular_move_keeps_its_private_card_hidden_from_open_readers(scorer: Scorer) -> None:
    """A refused Kabú keep names a card only its seat may see: as an irregular it stays that seat's
    (and the rule's words with it) for every open read while the hand is in play."""
    spec = GAMES["kabu"]
    scorer.start(spec.start)
    scorer.record(*spec.hand1)
    scorer.record(spec.deal2)
    scorer.record(ev("irregular", hand=2, move=move("keep", seat=0, card="12o")))
    assert scorer.read("/events")["events"][-2]["data"]["move"]["data"]["card"] == "12o"  # the scorer sees it
    for path in ("/events", "/replay", "/audit", "/state", "", "/export?format=text"):
        raw = scorer.client.get(f"/matches/{scorer.id}{path}").data
        assert b"12o" not in raw and "rey de oros".encode() not in raw, path  # (a hex hash may hold 12c)
    listed = scorer.get("/events")["events"][-2]["data"]
    assert listed["move"]["data"]["card"]["private"] is True and listed["rule"]["message"]["private"] is True
    assert listed["rule"]["code"] == "kabu.no_keep"  # what rule was broken is public; the card is not
    said = scorer.get("/audit")["hands"][1]["irregular"][0]
    assert said["code"] == "kabu.no_keep" and "still hidden" in said["message"]


def test_the_match_page_links_the_automatic_dispute_to_the_irregular_move(scorer: Scorer) -> None:
    played_to(scorer, "la-cabra", "lead out of turn")
    written = scorer.record(ev("irregular", hand=2, move=GAMES["la-cabra"].kinds["lead out of turn"][1]))
    seq = written["version"] - 1
    page = scorer.client.get(f"/m/{scorer.id}?lang=ca").get_data(as_text=True)
    assert f'href="/m/{scorer.id}/replay?at={seq}"' in page
    assert f"Mira la jugada irregular a la repetició (anotació {seq})" in page
