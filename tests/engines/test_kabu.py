"""Kabú engine: every rule of docs/RULES.md §2 and VOCABULARY.md §5.2, legal and illegal."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.conftest import VOCABULARY
from tests.engines.kabu_helpers import K1_SHOWDOWN, P4, U, Match, k1

from engines import ENGINES, kabu
from engines.base import Event, RuleViolation, replay
from engines.cards import FRENCH_40, FRENCH_52, SPANISH_40, parse
from schemas import SchemaError, validate_event

# --------------------------------------------------------------------------- describe and start


def test_registered_and_described() -> None:
    assert ENGINES["kabu"] is kabu and kabu.GAME == "kabu"
    d = kabu.describe()
    assert d["name"] == "Kabú" and d["direction"] == "ACW" and d["players"] == {"min": 2, "max": 10, "defaultMax": 6}
    opts = d["options"]
    assert set(opts) == {
        "deck",
        "maxPlayers",
        "dealerMode",
        "start",
        "secondCardFrom",
        "openSix",
        "solvency",
        "insolventCollects",
    }
    assert opts["deck"]["values"] == ["french40", "full52", "spanish40"] and opts["deck"]["default"] == "french40"
    assert opts["maxPlayers"]["default"] == 6 and opts["maxPlayers"]["maximum"] == 10
    assert opts["dealerMode"] == {**opts["dealerMode"], "values": ["keep", "rotate", "croupier"], "default": "keep"}
    assert opts["start"]["values"] == ["direct", "choose5", "choose3"] and opts["start"]["default"] == "direct"
    assert opts["secondCardFrom"]["default"] == "returned" and opts["openSix"]["default"] is False
    assert opts["solvency"]["default"] == "gross" and opts["insolventCollects"]["default"] is True
    assert all(o["rule"].startswith("/rules/kabu#option-") and o["description"] for o in opts.values())
    assert d["target"]["end"]["values"] == ["insolvency", "time"] and d["target"]["end"]["default"] == "insolvency"
    assert set(d["events"]) >= {
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
        "void",
        "amend",
        "note",
    }
    json.dumps(d)


def test_start_defaults() -> None:
    s = kabu.start({"game": "kabu", "players": P4})
    assert s.options == kabu.Options()
    assert (
        s.options.deck,
        s.options.maxPlayers,
        s.options.dealerMode,
        s.options.start,
        s.options.secondCardFrom,
        s.options.openSix,
        s.options.solvency,
        s.options.insolventCollects,
        s.options.end,
    ) == ("french40", 6, "keep", "direct", "returned", False, "gross", True, "insolvency")
    assert s.chips == (70, 70, 70, 70) and not s.over
    assert kabu.score(s)["standings"][2] == {"seat": 2, "name": "P3", "total": 70, "status": "playing"}


@pytest.mark.parametrize(
    "n, chips", [(2, 40), (3, 55), (4, 70), (5, 85), (6, 100), (7, 115), (8, 130), (9, 145), (10, 160)]
)
def test_starting_stacks_are_ten_ones_and_n_fives_and_tens(n: int, chips: int) -> None:
    s = kabu.start({"game": "kabu", "players": [f"p{i}" for i in range(n)], "options": {"maxPlayers": 10}})
    assert s.chips == (chips,) * n == (10 * 1 + n * 5 + n * 10,) * n


def test_start_non_default_options() -> None:
    opts = {
        "deck": "spanish40",
        "maxPlayers": 8,
        "dealerMode": "croupier",
        "start": "choose3",
        "secondCardFrom": "stock",
        "openSix": True,
        "solvency": "net",
        "insolventCollects": False,
    }
    s = kabu.start(
        {
            "game": "kabu",
            "players": P4,
            "options": opts,
            "target": {"end": "time"},
            "initial": {"chips": [10, 0, 25, 70]},
        }
    )
    assert s.options == kabu.Options(**opts, end="time")
    assert s.chips == (10, 0, 25, 70) and s.carried


@pytest.mark.parametrize(
    "data, code",
    [
        ({"players": ["A"]}, "kabu.players"),
        ({"players": [f"p{i}" for i in range(7)]}, "kabu.players"),  # default maxPlayers 6
        ({"players": [f"p{i}" for i in range(4)], "options": {"maxPlayers": 3}}, "kabu.players"),
        ({"players": ["A", "B", "A"]}, "kabu.players"),
        ({"players": ["A", ""]}, "kabu.players"),
        ({"target": {"end": "never"}}, "common.bad_target"),
        ({"target": {"wins": 3}}, "common.bad_target"),
        ({"options": {"decks": "french40"}}, "common.bad_option"),
        ({"options": {"deck": "french36"}}, "common.bad_option"),
        ({"options": {"maxPlayers": 11}}, "common.bad_option"),
        ({"options": {"maxPlayers": True}}, "common.bad_option"),
        ({"options": {"dealerMode": "left"}}, "common.bad_option"),
        ({"options": {"start": "choose4"}}, "common.bad_option"),
        ({"options": {"secondCardFrom": "table"}}, "common.bad_option"),
        ({"options": {"openSix": "yes"}}, "common.bad_option"),
        ({"options": {"solvency": "both"}}, "common.bad_option"),
        ({"options": {"insolventCollects": 1}}, "common.bad_option"),
        ({"initial": {"chips": [70, 70, 70]}}, "common.bad_initial"),
        ({"initial": {"chips": [70, 70, 70, -1]}}, "common.bad_initial"),
        ({"initial": {}}, "common.bad_initial"),
        ({"game": "cabo"}, "common.wrong_game"),
    ],
)
def test_start_refuses(data: dict[str, Any], code: str) -> None:
    with pytest.raises(RuleViolation) as info:
        kabu.start({"game": "kabu", "players": P4, **data})
    assert info.value.code == code


@pytest.mark.parametrize(
    "options, most",
    [
        ({}, 10),  # direct: 4N ≤ 40
        ({"openSix": True}, 8),  # 4N + 6 ≤ 40
        ({"start": "choose5"}, 8),  # 5N ≤ 40
        ({"start": "choose5", "openSix": True}, 6),  # 5N + 6 ≤ 40 (returned)
        ({"start": "choose5", "openSix": True, "secondCardFrom": "stock"}, 8),  # 4N + 6 ≤ 40, 5N ≤ 40
        ({"start": "choose3"}, 10),  # 3N plus the draws: 4N ≤ 40
        ({"start": "choose3", "openSix": True}, 8),
        ({"deck": "spanish40", "openSix": True}, 8),
        ({"deck": "full52", "openSix": True}, 10),  # 46 ≤ 52
        ({"deck": "full52", "start": "choose5", "openSix": True}, 9),  # 5·9 + 6 = 51 ≤ 52
    ],
)
def test_impossible_setups_are_refused_at_match_started(options: dict[str, Any], most: int) -> None:
    opts = {**options, "maxPlayers": 10}
    kabu.start({"game": "kabu", "players": [f"p{i}" for i in range(most)], "options": opts})
    if most < 10:
        with pytest.raises(RuleViolation) as info:
            kabu.start({"game": "kabu", "players": [f"p{i}" for i in range(most + 1)], "options": opts})
        assert info.value.code == "kabu.deck_too_small" and "impossible set-up" in info.value.message


# --------------------------------------------------------------------------- values (docs/RULES.md §2.1, K3)


def _value(deck: Any, *texts: str) -> int:
    return kabu.hand_value([parse(t, deck) for t in texts])  # type: ignore[misc]


def test_k3_values_with_every_deck() -> None:
    assert _value(SPANISH_40, "12o", "11c") == 7  # rey + caballo = 9 + 8 = 17 → 7
    assert _value(SPANISH_40, "12o", "11c", "10e") == 7  # + sota (10) = 27 → 7
    assert _value(FRENCH_40, "8H", "9C", "3D") == 0  # 20 → 0, the worst
    assert _value(FRENCH_52, "KS", "9D") == 9  # K is 0
    assert _value(FRENCH_40, "5H", "2C") == 7 and _value(FRENCH_40, "5H", "8C") == 3  # the seed's examples
    assert [kabu.card_value(c) for c in FRENCH_52.cards[:13]] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0]
    assert [kabu.card_value(c) for c in SPANISH_40.cards[:10]] == [1, 2, 3, 4, 5, 6, 7, 10, 8, 9]


@pytest.mark.parametrize(
    "deck, cards, value",
    [
        ("spanish40", ["12o", "11c"], 7),
        ("spanish40", ["12o", "11c", "10e"], 7),
        ("french40", ["8H", "9C", "3D"], 0),
        ("full52", ["KS", "9D"], 9),
        ("full52", ["JS", "QD", "KH", "AC"], 1),
    ],
)
def test_k3_values_through_a_result(deck: str, cards: list[str], value: int) -> None:
    m = Match(["A", "B"], options={"deck": deck})
    other = {"spanish40": ["1o", "1c"], "french40": ["AH", "AS"], "full52": ["AH", "AS"]}[deck]
    m.result(0, hands=[cards, other])
    assert m.last()["result"]["values"] == [value, 2]


@pytest.mark.parametrize(
    "deck, card", [("french40", "JH"), ("french40", "7o"), ("full52", "12b"), ("spanish40", "AS"), ("spanish40", "8o")]
)
def test_a_card_outside_the_chosen_deck_is_refused(deck: str, card: str) -> None:
    m = Match(["A", "B"], options={"deck": deck})
    code = "common.bad_card" if card == "8o" else "common.card_not_in_deck"
    m.refuse(code, "hand_started", dealer=0, hands=[[card, U], [U, U]])
    m.add("hand_started", dealer=0)
    m.refuse(
        code,
        "hand_result",
        hands=[[card, "AH" if deck != "spanish40" else "1o"], ["2H", "3H"] if deck != "spanish40" else ["2o", "3o"]],
    )


# --------------------------------------------------------------------------- K1 (docs/RULES.md §2.7, VOCABULARY.md §7)


def test_k1_move_by_move() -> None:
    m = k1()
    assert m.hand.phase == "showdown" and m.hand.unknown == (2, 3, 4, 2)
    assert m.last()["status"] == "incomplete" and len(m.last()["missing"]) == 11
    m.add("showdown", hands=K1_SHOWDOWN)
    hand = m.last()
    assert hand["status"] == "scored"
    r = hand["result"]
    assert r["values"] == [9, 7, 0, 7] and r["net"] == [13, 5, -23, 5] and r["insolvent"] == []
    assert hand["points"] == [13, 5, -23, 5] and hand["totals"] == [83, 75, 47, 75] and sum(hand["totals"]) == 280
    pay = {(p["from"], p["to"]): p["chips"] for p in r["payments"]}
    assert pay == {(1, 0): 2, (2, 0): 9, (3, 0): 2, (2, 1): 7, (2, 3): 7}  # P2-P4 tie: no payment
    assert r["owes"] == [0, 2, 23, 2] and r["owedTo"] == [13, 7, 0, 7] and r["chipsBefore"] == [70] * 4
    for seat in range(4):
        assert sum(line["points"] for line in hand["lines"] if line["seat"] == seat) == hand["points"][seat]
    reasons = [line["reason"] for line in hand["lines"]]
    assert "P3 (0) owes P1 (9) 9 = 9 − 0: paid" in reasons
    assert "P2 and P4 both have 7: no payment" in reasons
    assert any("P1's net +13 = N·v − S = 4 × 9 − 23; chips 70 → 83" == r for r in reasons)
    assert any(r.startswith("P3 shows 10♠ 3♦ 9♣ 8♥ (10 + 3 + 9 + 8 = 30): value 0") for r in reasons)
    assert all(line["rule"] in ("/rules/kabu#hand-value", "/rules/kabu#scoring-settlement") for line in hand["lines"])
    assert [s["total"] for s in m.sheet()["standings"]] == [83, 75, 47, 75]
    assert m.sheet()["end"] == {"over": False}
    assert m.texts[-1].startswith("Showdown: P1 5♥ 4♠ (9); P2 7♦ 8♣ 2♥ (7)")
    assert m.texts[2] == "P2 asks for a third card"
    assert (
        m.texts[4] == "P4 stands with two cards; the dealer serves P2 and P3 a third card; P2 decides on a fourth card"
    )
    assert m.texts[6] == "P3 asks for a fourth card; the dealer serves P3 a fourth card: showdown next"
    assert replay(kabu, m.events) == m.state


def test_net_is_n_v_minus_s_for_ten_players() -> None:
    players = [f"p{i}" for i in range(10)]
    m = Match(players, options={"maxPlayers": 10})
    values = [9, 0, 3, 3, 7, 1, 5, 8, 2, 6]
    m.result(4, values=values)
    hand = m.last()
    total = sum(values)
    assert hand["points"] == [10 * v - total for v in values] and sum(hand["points"]) == 0
    assert len(hand["result"]["payments"]) == 44  # 45 pairs, one tie
    assert len([ln for ln in hand["lines"] if "owes" in ln["reason"] or "both have" in ln["reason"]]) == 90


# --------------------------------------------------------------------------- K2: insolvency (docs/RULES.md §2.5)


def k2(options: dict[str, Any] | None = None) -> Match:
    m = Match(["X", "Y", "Z"], options=options, initial={"chips": [40, 30, 5]})
    m.result(0, values=[8, 2, 1])
    return m


def test_k2_insolvency_ends_the_game() -> None:
    m = k2()
    hand = m.last()
    assert hand["totals"] == [46, 24, 5] and hand["points"] == [6, -6, 0]
    assert hand["result"]["insolvent"] == [2] and hand["result"]["owes"] == [0, 6, 8]
    pays = {(p["from"], p["to"]): p["paid"] for p in hand["result"]["payments"]}
    assert pays == {(1, 0): True, (2, 0): False, (2, 1): False}
    end = m.sheet()["end"]
    assert end["over"] and end["winners"] == [0] and end["rule"] == "/rules/kabu#scoring-match"
    assert (
        "Z holds 5 chips but owes 8 in all" in end["reason"] and "X has the most chips (46) and wins" in end["reason"]
    )
    assert [s["status"] for s in m.sheet()["standings"]] == [
        "winner",
        "out",
        "out",
    ]  # the match has ended: whoever did not win is out
    assert kabu.is_over(m.state) and kabu.legal_moves(m.state) == []
    # a settlement after the game ended
    m.refuse("common.match_over", "hand_started", dealer=0)
    # ... but the table's result of the last hand may still be cross-checked
    m.add("hand_result", values=[8, 2, 1])
    m.refuse("kabu.mismatch", "hand_result", values=[8, 2, 2])


def test_k2_is_insolvent_under_net_too() -> None:
    m = k2({"solvency": "net"})
    assert m.last()["totals"] == [46, 24, 5] and m.sheet()["end"]["winners"] == [0]


def test_gross_and_net_tests_differ_for_w() -> None:
    # docs/RULES.md §2.7: W holds 4, owes 6 (3 to A and 3 to C) and is owed 5 (2 by B, 3 by D):
    # insolvent under the default gross test (4 < 6), solvent under net (4 + 5 − 6 = 3)
    players, values, initial = ["A", "C", "W", "B", "D"], [7, 7, 4, 2, 1], {"chips": [50, 50, 4, 50, 50]}
    gross = Match(players, initial=initial)
    gross.result(0, values=values)
    r = gross.last()["result"]
    assert r["insolvent"] == [2] and r["owes"][2] == 6 and r["owedTo"][2] == 5 and gross.state.over
    assert gross.last()["totals"][2] == 4 + 5  # he pays nobody and still collects
    net = Match(players, options={"solvency": "net"}, initial=initial)
    net.result(0, values=values)
    assert net.last()["result"]["insolvent"] == [] and not net.state.over
    assert net.last()["totals"][2] == 3 and net.last()["points"] == [5 * v - 21 for v in values]


def test_gross_insolvent_still_collects_from_solvent_debtors() -> None:
    m = Match(["A", "W", "B"], initial={"chips": [50, 4, 50]})
    m.result(0, values=[8, 2, 0])  # W owes A 6 with 4 chips; B owes W 2
    assert m.last()["result"]["insolvent"] == [1] and m.last()["totals"] == [58, 6, 40]


def test_insolvent_player_collects_by_default_but_not_when_the_option_is_off() -> None:
    initial = {"chips": [3, 50, 50]}
    on = Match(["A", "B", "C"], initial=initial)
    on.result(0, values=[5, 9, 0])  # A owes B 4 with 3 chips; C owes A 5
    assert on.last()["result"]["insolvent"] == [0] and on.last()["totals"] == [3 + 5, 50 + 9, 50 - 5 - 9]
    off = Match(["A", "B", "C"], options={"insolventCollects": False}, initial=initial)
    off.result(0, values=[5, 9, 0])
    assert off.last()["totals"] == [3, 59, 41]
    assert any("collects nothing (insolventCollects is off)" in ln["reason"] for ln in off.last()["lines"])


def test_net_test_repeats_when_an_insolvent_debtor_pays_nothing() -> None:
    # B holds 0, owes A 9, is owed 4 by C; C holds 1 and owes 4 + 9: C is insolvent, so B receives nothing
    m = Match(["A", "B", "C"], options={"solvency": "net"}, initial={"chips": [20, 0, 1]})
    m.result(0, values=[9, 4, 0])
    r = m.last()["result"]
    assert r["insolvent"] == [1, 2] and min(m.last()["totals"]) >= 0
    assert m.last()["totals"] == [20, 0, 1]


def test_several_insolvent_players_pay_nobody_and_the_game_ends_once() -> None:
    m = Match(["A", "B", "C", "D"], initial={"chips": [0, 1, 40, 40]})
    m.result(0, values=[0, 1, 9, 9])
    r = m.last()["result"]
    assert r["insolvent"] == [0, 1] and m.last()["totals"] == [0, 1, 40, 40]  # B's 1 from A is not paid either
    assert m.sheet()["end"]["winners"] == [2, 3]
    assert "share the win with 40 chips each" in m.sheet()["end"]["reason"]


def test_exactly_enough_chips_is_solvent() -> None:
    m = Match(["A", "B"], initial={"chips": [9, 0]})
    m.result(0, values=[0, 9])
    assert m.last()["result"]["insolvent"] == [] and m.last()["totals"] == [0, 9] and not m.state.over


# --------------------------------------------------------------------------- dealers (docs/RULES.md §2.2)


def test_keep_dealer_any_seat_any_hand() -> None:
    m = Match()
    m.result(2, values=[1, 1, 1, 1])
    m.result(2, values=[1, 1, 1, 1])
    m.result(0, values=[1, 1, 1, 1])
    m.refuse("kabu.wrong_dealer", "hand_started", dealer=None)
    m.refuse("common.bad_seat", "hand_started", dealer=4)


def test_rotate_dealer_passes_to_the_next_seat() -> None:
    m = Match(options={"dealerMode": "rotate"})
    m.result(2, values=[1, 1, 1, 1])  # the first dealer is free
    m.refuse("kabu.wrong_dealer", "hand_started", dealer=2)
    assert kabu.legal_moves(m.state)[0] == {"type": "hand_started", "data": {"dealer": 3}}
    m.result(3, values=[1, 1, 1, 1])
    m.add("hand_started", dealer=0, hands=[[U, U]] * 4)
    assert m.hand.order == (1, 2, 3, 0)  # dealer+1 first, the dealer last


def test_croupier_never_pays_or_collects() -> None:
    m = Match(["A", "B", "C"], options={"dealerMode": "croupier"})
    m.refuse("kabu.wrong_dealer", "hand_started", dealer=0)
    m.add("hand_started", dealer=None, hands=[[U, U]] * 3)
    assert m.hand.order == (0, 1, 2) and m.hand.turn() == 0
    m.all_stand()
    m.add("showdown", hands=[["9H", "10H"], ["5C", "2C"], ["AS", "AD"]])
    assert m.last()["result"]["values"] == [9, 7, 2]
    assert m.last()["totals"] == [55 + 2 + 7, 55 - 2 + 5, 55 - 7 - 5] and sum(m.last()["totals"]) == 165
    assert len(m.sheet()["standings"]) == 3
    assert m.texts[0].startswith("Hand 1: the croupier deals")


# --------------------------------------------------------------------------- the deal


def test_deal_shape_and_duplicates() -> None:
    m = Match()
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U, U]] * 3)
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U, U], [U, U], [U, U], [U, U, U]])
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U, U], [U, U], [U, U], None])
    m.refuse("common.card_duplicate", "hand_started", dealer=0, hands=[["5H", U], [U, U], [U, "5H"], [U, U]])
    m.refuse("common.card_duplicate", "hand_started", dealer=0, hands=[["5H", "5H"], [U, U], [U, U], [U, U]])
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U, U]] * 4, table=["AH", "2H", "3H", "4H", "5H", "6H"])
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, table=["AH", "2H", "3H", "4H", "5H", "6H"])
    m.refuse("common.no_hand", "take", seat=0)
    m.direct(0)
    m.refuse("common.hand_in_progress", "hand_started", dealer=0)


def test_open_six_direct() -> None:
    six = ["AH", "2H", "3H", "4H", "5H", "6H"]
    m = Match(options={"openSix": True})
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U, U]] * 4)
    m.refuse("common.card_duplicate", "hand_started", dealer=0, hands=[["AH", U], [U, U], [U, U], [U, U]], table=six)
    m.refuse("common.card_duplicate", "hand_started", dealer=0, hands=[[U, U]] * 4, table=six[:5] + ["AH"])
    m.refuse("common.card_hidden", "hand_started", dealer=0, hands=[[U, U]] * 4, table=six[:5] + [U])
    m.direct(0, table=six)
    assert kabu.view(m.state)["table"] == six
    assert "lays out six open cards (A♥ 2♥ 3♥ 4♥ 5♥ 6♥)" in m.texts[0]
    m.all_stand()
    m.refuse("common.card_duplicate", "showdown", hands=[["AH", "7C"], ["7D", "8D"], ["9S", "10S"], ["AS", "2S"]])
    m.refuse("common.card_duplicate", "showdown", hands=[["3H", "7C"], ["7D", "8D"], ["9S", "10S"], ["AS", "2S"]])
    m.add("showdown", hands=[["7H", "7C"], ["7D", "8D"], ["9S", "10S"], ["AS", "2S"]])


# --------------------------------------------------------------------------- keeps (choose5 / choose3)


def deal5(m: Match, hands: list[list[str]] | None = None, **extra: Any) -> None:
    m.add("hand_started", dealer=3, hands=hands or [[U] * 5] * 4, **extra)


def test_choose5_keeps_go_in_deal_order_then_everyone_gets_a_new_card() -> None:
    m = Match(options={"start": "choose5"})
    m.refuse("kabu.bad_deal", "hand_started", dealer=3, hands=[[U, U]] * 4)
    deal5(m, [["AH", "2H", "3H", "4H", "5H"], [U] * 5, [U] * 5, [U] * 5])
    assert m.hand.phase == "keep" and m.hand.turn() == 0
    m.refuse("kabu.keep_first", "take", seat=0)
    m.refuse("kabu.decisions_pending", "showdown", hands=[["AH", "2C"]] * 4)
    m.refuse("common.not_your_turn", "keep", seat=1, card=U)
    m.refuse("kabu.name_keep", "keep", seat=0, card=U)
    m.refuse("common.card_unavailable", "keep", seat=0, card="6H")
    *moves, close = kabu.legal_moves(m.state)
    assert [mv["data"]["card"] for mv in moves] == ["AH", "2H", "3H", "4H", "5H"] and close == {
        "type": "hand_result",
        "data": {},
    }
    m.add("keep", seat=0, card="3H")
    assert m.hand.known[0] == {parse("3H", FRENCH_40)} and m.hand.size(0) == 1
    m.refuse("kabu.kept_already", "keep", seat=0, card="3H")
    m.refuse("common.card_unavailable", "keep", seat=1, card="3H")  # dealt to P1
    m.refuse("common.card_unavailable", "keep", seat=1, card="AH")  # P1 returned it, but it was dealt to P1
    m.add("keep", seat=1, card="9C")  # binds one of P2's unknown cards
    m.add("keep", seat=2, card=U)
    m.add("keep", seat=3, card=U)
    assert m.hand.phase == "third" and [m.hand.size(s) for s in range(4)] == [2, 2, 2, 2]
    assert (
        m.texts[-1]
        == "P4 keeps one card and returns 4; the dealer shuffles the 16 returned cards and deals each player a new card"
    )
    m.refuse("kabu.kept_already", "keep", seat=0, card="3H")
    m.all_stand()
    # P1's returned 2H may come back as anyone's new card
    m.add("showdown", hands=[["3H", "2H"], ["9C", "AH"], ["5C", "6C"], ["7C", "8C"]])
    assert m.last()["result"]["values"] == [5, 0, 1, 5]


def test_keep_in_a_direct_match_is_refused() -> None:
    m = Match()
    m.direct(0)
    m.refuse("kabu.no_keep", "keep", seat=1, card=U)


def test_choose3_deals_three() -> None:
    m = Match(options={"start": "choose3"})
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U] * 5] * 4)
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U] * 2] * 4)
    m.add("hand_started", dealer=0, hands=[[U] * 3] * 4)
    assert m.texts[0] == "Hand 1: P1 deals three cards to each player; each keeps one and returns two; P2 keeps first"
    for s in (1, 2, 3, 0):
        m.add("keep", seat=s, card=U)
    assert m.hand.phase == "third" and m.hand.unknown == (2, 2, 2, 2)


def test_hidden_keep_is_checked_when_the_hand_becomes_known() -> None:
    m = Match(["A", "B"], options={"start": "choose5"})
    m.add("hand_started", dealer=1, hands=[["AH", "2H", "3H", "4H", U], ["AS", "2S", "3S", "4S", "5S"]])
    m.add("keep", seat=0, card=U)  # seq 3: one of A♥ 2♥ 3♥ 4♥ or the unknown card
    m.add("keep", seat=1, card="5S")
    m.add("stand", seat=0)
    m.add("stand", seat=1)
    # A shows 2S and 3S: B's returned cards, neither can be the card A kept
    err = m.refuse("common.card_unavailable", "showdown", hands=[["2S", "3S"], ["5S", "9D"]])
    assert err.seq == 3
    m.add("showdown", hands=[["2S", "9H"], ["5S", "9D"]])  # 9H: A's unknown first card
    assert m.last()["result"]["values"] == [1, 4]


def test_reveal_of_a_hidden_keep() -> None:
    m = Match(["A", "B"], options={"start": "choose5"})
    m.add("hand_started", dealer=1, hands=[["AH", "2H", U, U, U], [U] * 5])
    m.add("keep", seat=0, card=U)  # seq 3
    m.add("keep", seat=1, card=U)  # seq 4
    m.refuse("common.bad_reveal", "reveal", cards=[{"seq": 2, "card": "AH"}])
    m.refuse("common.bad_reveal", "reveal", cards=[{"seq": 3, "index": 0, "card": "AH"}])
    m.refuse("common.card_unavailable", "reveal", cards=[{"seq": 4, "card": "AH"}])  # dealt to A, not B
    m.add("reveal", cards=[{"seq": 3, "card": "AH"}, {"seq": 4, "card": "KD" if False else "9D"}])
    assert m.hand.kept_card[0] == parse("AH", FRENCH_40) and m.hand.unknown == (1, 1)
    m.refuse("common.bad_reveal", "reveal", cards=[{"seq": 3, "card": "AH"}])
    m.refuse("common.card_duplicate", "reveal", cards=[{"seat": 1, "card": "AH"}])
    m.add("reveal", cards=[{"seat": 1, "card": "2H"}])  # A returned 2H
    m.refuse("common.bad_reveal", "reveal", cards=[{"seat": 1, "card": "3C"}])
    m.all_stand()
    m.refuse("kabu.mismatch", "showdown", hands=[["3C", "4C"], ["9D", "2H"]])
    m.add("showdown", hands=[["AH", "4C"], ["9D", "2H"]])
    m.refuse("common.bad_reveal", "reveal", cards=[{"seat": 0, "card": "5C"}])


def test_reveal_before_the_keep_binds_a_first_card() -> None:
    m = Match(["A", "B"], options={"start": "choose3"})
    m.add("hand_started", dealer=1, hands=[["AH", U, U], [U, U, U]])
    m.refuse("common.card_duplicate", "reveal", cards=[{"seat": 1, "card": "AH"}])
    m.add("reveal", cards=[{"seat": 0, "card": "7C"}])
    m.add("keep", seat=0, card="7C")
    assert m.hand.known[0] == {parse("7C", FRENCH_40)}
    m.refuse("common.card_unavailable", "keep", seat=1, card="7C")


def test_open_six_in_choose_modes_show_after_the_last_keep() -> None:
    six = ["AH", "2H", "3H", "4H", "5H", "6H"]
    m = Match(options={"start": "choose5", "openSix": True})
    m.refuse("common.card_duplicate", "hand_started", dealer=3, hands=[["AH", U, U, U, U]] + [[U] * 5] * 3, table=six)
    deal5(m, table=six)
    assert kabu.view(m.state)["table"] == ["??"] * 6 and kabu.view(m.state, 0)["table"] == ["??"] * 6
    assert kabu.view(m.state, "all")["table"] == six
    for s in range(4):
        m.add("keep", seat=s, card=U)
    assert kabu.view(m.state)["table"] == six
    assert "lays out six open cards (A♥ 2♥ 3♥ 4♥ 5♥ 6♥)" in m.texts[-1]


def test_open_six_with_the_stock_may_show_a_returned_card_never_a_kept_one() -> None:
    six = ["AH", "2H", "3H", "4H", "5H", "6H"]
    m = Match(options={"start": "choose5", "openSix": True, "secondCardFrom": "stock"})
    m.refuse(
        "common.card_duplicate",
        "hand_started",
        dealer=3,
        hands=[["AH", "2H", "3H", "4H", "5H"]] + [[U] * 5] * 3,
        table=six,
    )
    deal5(m, [["AH", "7C", U, U, U]] + [[U] * 5] * 3, table=six)
    assert kabu.legal_moves(m.state)[0] == {"type": "keep", "data": {"seat": 0, "card": "7C"}}
    m.refuse("common.card_unavailable", "keep", seat=0, card="AH")
    m.add("keep", seat=0, card="7C")


# --------------------------------------------------------------------------- third and fourth cards (docs/RULES.md §2.3)


def test_decisions_in_deal_order() -> None:
    m = Match()
    m.direct(3)
    m.refuse("common.not_your_turn", "take", seat=1)
    m.refuse("common.not_your_turn", "stand", seat=3)
    m.add("take", seat=0)
    m.refuse("common.not_your_turn", "take", seat=0)
    m.refuse("common.bad_seat", "take", seat=4)


def test_a_player_who_stood_can_never_draw() -> None:
    m = Match()
    m.direct(3)
    m.decide(("stand", 0), ("take", 1), ("take", 2), ("take", 3))
    assert m.hand.phase == "fourth" and m.hand.turn() == 1
    m.refuse("kabu.stood", "take", seat=0)
    m.refuse("kabu.stood", "stand", seat=0)
    m.decide(("stand", 1))
    m.refuse("kabu.stood", "take", seat=1)
    m.decide(("take", 2), ("take", 3))
    assert m.hand.phase == "showdown"
    # a fifth card
    m.refuse("kabu.max_cards", "take", seat=2)
    m.refuse("kabu.decisions_over", "stand", seat=2)
    m.refuse("kabu.stood", "take", seat=0)


def test_nobody_takes_a_third_card_goes_straight_to_the_showdown() -> None:
    m = Match()
    m.direct(3)
    m.all_stand()
    assert m.hand.phase == "showdown" and m.texts[-1].endswith("nobody asked for a third card: showdown next")


def test_nobody_takes_a_fourth_card() -> None:
    m = Match()
    m.direct(3)
    m.decide(("take", 0), ("stand", 1), ("stand", 2), ("stand", 3), ("stand", 0))
    assert m.hand.phase == "showdown" and m.hand.unknown == (3, 2, 2, 2)


def test_showdown_checks_counts_duplicates_and_known_cards() -> None:
    m = Match()
    m.direct(3, [["5H", U], [U, U], [U, U], [U, U]])
    m.refuse("kabu.decisions_pending", "showdown", hands=K1_SHOWDOWN)
    m.decide(("stand", 0), ("take", 1), ("take", 2), ("stand", 3), ("stand", 1), ("take", 2))
    m.refuse("kabu.hand_size", "showdown", hands=[["5H", "4S"], ["7D", "8C"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]])
    m.refuse(
        "kabu.hand_size",
        "showdown",
        hands=[["5H", "4S", "2D"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    m.refuse(
        "common.card_duplicate",
        "showdown",
        hands=[["5H", "4S"], ["7D", "8C", "4S"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    m.refuse(
        "kabu.mismatch", "showdown", hands=[["6H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]
    )
    m.refuse(
        "kabu.mismatch", "showdown", hands=[["4S", "6H"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "5H"], ["6C", "AD"]]
    )
    m.refuse(
        "common.card_hidden", "showdown", hands=[["5H", U], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]
    )
    m.refuse(
        "common.card_not_in_deck",
        "showdown",
        hands=[["5H", "QS"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    m.refuse("kabu.bad_result", "showdown", hands=K1_SHOWDOWN[:3])
    m.add("showdown", hands=K1_SHOWDOWN)
    m.refuse("kabu.hand_over", "showdown", hands=K1_SHOWDOWN)
    m.refuse("kabu.hand_over", "take", seat=0)


def test_showdown_refuses_a_card_the_record_places_in_another_hand() -> None:
    m = Match()
    m.direct(3, [[U, U], [U, U], ["10S", U], [U, U]])
    m.all_stand()
    err = m.refuse("common.card_duplicate", "showdown", hands=[["10S", "4S"], ["7D", "8C"], ["5H", "3D"], ["6C", "AD"]])
    assert "10♠ is in P3's hand, not in P1's" in err.message


def test_reveals_during_the_hand() -> None:
    m = Match()
    m.direct(3, [["5H", U], [U, U], [U, U], [U, U]])
    m.refuse("common.card_duplicate", "reveal", cards=[{"seat": 1, "card": "5H"}])
    m.refuse("common.bad_reveal", "reveal", cards=[{"seat": 0, "card": "5H"}])
    m.refuse("common.bad_reveal", "reveal", cards=[{"seat": 0, "slot": 1, "card": "4S"}])
    m.refuse("common.card_not_in_deck", "reveal", cards=[{"seat": 0, "card": "JS"}])
    m.add("reveal", cards=[{"seat": 0, "card": "4S"}, {"seat": 2, "card": "10S"}])
    m.refuse("common.bad_reveal", "reveal", cards=[{"seat": 0, "card": "6S"}])  # P1's two cards are known
    m.refuse("common.card_duplicate", "reveal", cards=[{"seat": 1, "card": "10S"}])
    m.decide(("stand", 0), ("take", 1), ("take", 2), ("stand", 3), ("stand", 1), ("take", 2))
    assert m.last()["missing"] == [{"seat": 1}] * 3 + [{"seat": 2}] * 3 + [{"seat": 3}] * 2
    m.refuse(
        "kabu.mismatch", "showdown", hands=[["5H", "4S"], ["7D", "8C", "2H"], ["AS", "3D", "9C", "8H"], ["6C", "AD"]]
    )
    m.add("showdown", hands=K1_SHOWDOWN)
    assert m.last()["points"] == [13, 5, -23, 5]


def test_k1_with_every_card_known_from_the_deal() -> None:
    m = Match()
    m.direct(3, [["5H", "4S"], ["7D", "8C"], ["10S", "3D"], ["6C", "AD"]])
    m.decide(("stand", 0), ("take", 1), ("take", 2), ("stand", 3), ("stand", 1), ("take", 2))
    m.add("reveal", cards=[{"seat": 1, "card": "2H"}, {"seat": 2, "card": "9C"}, {"seat": 2, "card": "8H"}])
    assert m.last()["status"] == "playing"
    template = kabu.legal_moves(m.state)[0]
    assert template["type"] == "showdown" and "hands" in template["data"]
    m.add("showdown", **template["data"])
    assert m.last()["totals"] == [83, 75, 47, 75]


# --------------------------------------------------------------------------- result only (VOCABULARY.md §5.2)


def test_result_only_hands() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    m.refuse("common.no_deal", "take", seat=1)
    m.refuse("common.no_deal", "showdown", hands=K1_SHOWDOWN)
    m.refuse("common.hand_in_progress", "hand_started", dealer=0)
    m.refuse("kabu.bad_result", "hand_result")
    m.refuse(
        "kabu.hand_size", "hand_result", hands=[["5H"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]
    )
    m.refuse(
        "kabu.hand_size",
        "hand_result",
        hands=[["5H", "4S", "AC", "2C", "3C"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    m.refuse(
        "common.card_duplicate",
        "hand_result",
        hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "5H"]],
    )
    m.refuse("kabu.bad_result", "hand_result", values=[9, 7, 0])
    m.refuse("kabu.bad_result", "hand_result", values=[9, 7, 0, 10])
    m.refuse("kabu.mismatch", "hand_result", hands=K1_SHOWDOWN, values=[9, 7, 0, 8])
    m.add("hand_result", hands=K1_SHOWDOWN, values=[9, 7, 0, 7])
    assert m.last()["totals"] == [83, 75, 47, 75] and m.last()["result"]["hands"] == K1_SHOWDOWN
    m.add("hand_result", values=[9, 7, 0, 7])  # a cross-check
    m.refuse(
        "kabu.mismatch",
        "hand_result",
        hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AC"]],
    )
    m.result(1, values=[0, 0, 0, 9])
    assert m.last()["points"] == [-9, -9, -9, 27] and m.last()["totals"] == [74, 66, 38, 102]
    assert m.last()["result"]["hands"] is None
    assert "P1's value is 0, as the table wrote it" in [ln["reason"] for ln in m.last()["lines"]]


def test_result_of_a_move_by_move_hand_is_a_cross_check_after_its_showdown() -> None:
    m = k1()
    m.add("showdown", hands=K1_SHOWDOWN)
    m.refuse("kabu.mismatch", "hand_result", values=[9, 7, 0, 6])
    m.refuse(
        "kabu.mismatch",
        "hand_result",
        hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["AC", "6D"]],
    )
    m.add("hand_result", hands=[list(reversed(h)) for h in K1_SHOWDOWN], values=[9, 7, 0, 7])
    assert m.texts[-1] == "The table's result for hand 1 agrees with the record"
    check = next(mv for mv in kabu.legal_moves(m.state) if mv["type"] == "hand_result")
    assert check["data"] == {"values": [9, 7, 0, 7], "hands": K1_SHOWDOWN}


# --------------------------------------------------------------------------- closing a hand from the sheet (VOCABULARY.md §4)


def test_a_hand_in_play_closed_from_the_sheet_by_values_scores_from_them() -> None:
    m = Match()
    m.direct(3, hands=[["5H", "4S"], ["7D", "8C"], ["??", "??"], ["6C", "AD"]])
    m.decide(
        ("stand", 0), ("take", 1), ("take", 2)
    )  # recording stops here: P4's decision and the rest were not written
    m.add("hand_result", values=[9, 7, 0, 7])
    hand = m.last()
    assert hand["status"] == "scored" and hand["points"] == [13, 5, -23, 5] and hand["totals"] == [83, 75, 47, 75]
    assert hand["closedFromSheet"] == {"afterMove": 3, "seq": 6}
    assert m.texts[-1].startswith("Hand 1 closed from the score sheet after move 3: ")
    m.refuse("kabu.hand_over", "stand", seat=3)
    m.add("hand_started", dealer=3)  # the match goes on


def test_a_hand_in_play_closed_from_the_sheet_by_cards_keeps_the_known_ones() -> None:
    m = Match()
    m.direct(3, hands=[["5H", "4S"], ["7D", "8C"], ["??", "??"], ["6C", "AD"]])
    m.decide(("stand", 0), ("take", 1))
    m.add("hand_result", hands=K1_SHOWDOWN)
    assert m.last()["points"] == [13, 5, -23, 5] and m.last()["result"]["hands"] == K1_SHOWDOWN


def test_closing_from_the_sheet_refuses_facts_the_moves_rule_out() -> None:
    m = Match()
    m.direct(3, hands=[["5H", "4S"], ["7D", "8C"], ["??", "??"], ["6C", "AD"]])
    m.decide(("stand", 0), ("take", 1), ("take", 2))
    why = m.refuse("kabu.result_conflict", "hand_result", values=[7, 7, 0, 7])
    assert why.message == "P1 holds 4♠ 5♥ (4 + 5 = 9), value 9; the sheet says 7"
    # P1 stood with two cards: the sheet cannot give him three
    why = m.refuse(
        "kabu.result_conflict",
        "hand_result",
        hands=[["5H", "4S", "AC"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    assert "P1 ends the hand with 2 cards; the sheet shows 3" == why.message
    # P2 asked for a third card: at least three
    why = m.refuse(
        "kabu.result_conflict",
        "hand_result",
        hands=[["5H", "4S"], ["7D", "8C"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    assert "P2 ends the hand with 3 to 4 cards (asked for a third card); the sheet shows 2" == why.message
    # a known card left out, or given to another seat
    why = m.refuse(
        "kabu.result_conflict",
        "hand_result",
        hands=[["5H", "4S"], ["7D", "9D", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    assert "the record puts 8♣ in P2's hand" in why.message
    why = m.refuse(
        "kabu.result_conflict",
        "hand_result",
        hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "AD"], ["6C", "8H"]],
    )
    assert "the record puts A♦ in P4's hand; the sheet puts it in P3's" == why.message
    m.add("hand_result", values=[9, 7, 0, 7])


def test_closing_from_the_sheet_a_value_no_card_can_make() -> None:
    # P4 holds 6 + A = 7 and may still take a card: every value is reachable with a third card,
    # but a seat that stood on two known cards has exactly one value
    m = Match(players=["P1", "P2"])
    m.direct(1, hands=[["5H", "4S"], ["??", "??"]])
    m.decide(("stand", 0))
    m.refuse("kabu.result_conflict", "hand_result", values=[3, 1])
    m.add("hand_result", values=[9, 1])
    assert m.last()["points"] == [8, -8]


def test_closing_from_the_sheet_during_the_keeps() -> None:
    m = Match(options={"start": "choose3"})
    m.add(
        "hand_started",
        dealer=3,
        hands=[["5H", "4S", "2C"], ["7D", "8C", "3C"], ["10S", "3D", "4C"], ["6C", "AD", "5C"]],
    )
    m.add("keep", seat=0, card="5H")
    why = m.refuse(
        "kabu.result_conflict",
        "hand_result",
        hands=[["4S", "9H"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    assert "the record puts 5♥ in P1's hand" in why.message
    why = m.refuse(
        "kabu.result_conflict",
        "hand_result",
        hands=[["5H", "4S"], ["9D", "9S", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]],
    )
    assert "P2 keeps one of the cards first dealt (7♦ 8♣ 3♣); none of 9♦ 9♠ 2♥ can be it" == why.message
    m.add("hand_result", hands=[["5H", "4S"], ["7D", "9D", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]])
    assert m.last()["closedFromSheet"]["afterMove"] == 1


def test_hand_result_without_a_hand() -> None:
    m = Match()
    m.refuse("common.no_hand", "hand_result", values=[1, 1, 1, 1])
    m.refuse("common.bad_reveal", "reveal", cards=[{"seat": 0, "card": "AH"}])


# --------------------------------------------------------------------------- the timed game (docs/RULES.md §2.5)


def timed(initial: list[int] | None = None, **options: Any) -> Match:
    return Match(["A", "B", "C"], options=options, target={"end": "time"}, initial={"chips": initial or [20, 20, 3]})


def test_timed_game_insolvent_must_buy_or_leave() -> None:
    m = timed()
    m.refuse("common.no_hand", "buy_chips", seat=2, **{"from": 0}, chips=5)
    m.result(0, values=[9, 5, 0])  # C owes 14 with 3: insolvent, pays nobody
    assert not m.state.over and m.state.pending == {2}
    assert m.last()["totals"] == [24, 16, 3]
    assert [s["status"] for s in m.sheet()["standings"]] == ["playing", "playing", "out"]
    assert kabu.legal_moves(m.state) == [
        {"type": "buy_chips", "data": {"seat": 2}},
        {"type": "leave", "data": {"seat": 2}},
        {"type": "time_up", "data": {}},
    ]
    m.refuse("kabu.insolvent", "hand_started", dealer=0)
    m.refuse("kabu.bad_buy", "buy_chips", seat=2, **{"from": 2}, chips=5)
    m.refuse("kabu.not_enough_chips", "buy_chips", seat=2, **{"from": 0}, chips=25)
    m.refuse("kabu.bad_buy", "buy_chips", seat=0, **{"from": 2}, chips=1)
    m.add("buy_chips", seat=2, **{"from": 0}, chips=20)
    assert m.texts[-1] == "C buys 20 chips from A (chips move, not winnings): C 23, A 4"
    assert m.state.chips == (4, 16, 23) and m.state.pending == frozenset()
    hand = m.last()
    assert hand["points"] == [4, -4, 0] and hand["totals"] == [4, 16, 23]
    assert hand["result"]["buys"] == [{"seat": 2, "from": 0, "chips": 20, "seq": 4}]
    assert sum(ln["points"] for ln in hand["lines"] if ln["seat"] == 0) == 4 - 20
    m.result(0, values=[1, 1, 1])
    m.add("leave", seat=1)
    assert m.texts[-1] == "B leaves the game with 16 chips"
    m.refuse("kabu.bad_leave", "leave", seat=1)
    m.refuse("kabu.bad_buy", "buy_chips", seat=1, **{"from": 0}, chips=1)
    m.refuse("kabu.wrong_dealer", "hand_started", dealer=1)
    m.refuse("kabu.bad_deal", "hand_started", dealer=0, hands=[[U, U], [U, U], [U, U]])
    m.add("hand_started", dealer=0, hands=[[U, U], None, [U, U]])
    assert m.hand.order == (2, 0)
    m.refuse("common.hand_in_progress", "time_up")
    m.refuse("common.hand_in_progress", "leave", seat=0)
    m.all_stand()
    m.refuse("kabu.bad_result", "showdown", hands=[["AH", "2H"], ["3H", "4H"], ["5H", "6H"]])
    m.add("showdown", hands=[["AH", "2H"], None, ["5H", "6H"]])
    assert m.last()["points"] == [2, None, -2] and m.last()["result"]["values"] == [3, None, 1]
    assert m.last()["totals"] == [6, 16, 21]
    m.add("time_up")
    end = m.sheet()["end"]
    assert end["over"] and end["by"] == "time" and "the agreed time is up" in end["reason"]
    assert end["winners"] == [2]  # C 21 against A 6; B left the game
    m.refuse("common.match_over", "time_up")
    m.refuse("common.match_over", "hand_started", dealer=0)
    m.refuse("common.match_over", "buy_chips", seat=0, **{"from": 2}, chips=1)


def test_timed_game_leaving_insolvent_and_last_player_alone() -> None:
    m = Match(["A", "B"], target={"end": "time"}, initial={"chips": [30, 2]})
    m.result(0, values=[9, 0])
    assert m.state.pending == {1}
    m.add("leave", seat=1)
    assert m.state.over and m.sheet()["end"]["winners"] == [0] and m.sheet()["end"]["by"] == "alone"
    assert [s["status"] for s in m.sheet()["standings"]] == ["winner", "out"]


def test_time_up_before_any_hand_and_with_an_insolvent_pending() -> None:
    m = timed([10, 10, 10])
    m.add("time_up")
    assert m.sheet()["end"]["winners"] == [0, 1, 2]
    m = timed()
    m.result(0, values=[9, 5, 0])
    m.add("time_up")
    assert m.sheet()["end"]["winners"] == [0]


def test_time_events_are_refused_in_the_insolvency_game() -> None:
    m = Match()
    m.result(0, values=[1, 1, 1, 1])
    m.refuse("kabu.time_only", "time_up")
    m.refuse("kabu.time_only", "leave", seat=0)
    m.refuse("kabu.time_only", "buy_chips", seat=0, **{"from": 1}, chips=1)


def test_any_seat_may_buy_chips_between_hands() -> None:
    m = timed([20, 20, 20])
    m.result(0, values=[1, 1, 1])
    m.add("buy_chips", seat=0, **{"from": 1}, chips=5)
    assert m.state.chips == (25, 15, 20) and sum(m.state.chips) == 60


# --------------------------------------------------------------------------- score sheet, views, words


def test_many_hands_conserve_chips_and_lines_explain_totals() -> None:
    m = Match(["A", "B", "C", "D", "E"])
    rng = random.Random(7)
    previous = [85] * 5
    for _ in range(12):
        m.result(rng.randrange(5), values=[rng.randrange(10) for _ in range(5)])
        if m.state.over:
            break
        hand = m.last()
        for s in range(5):
            assert previous[s] + sum(ln["points"] for ln in hand["lines"] if ln["seat"] == s) == hand["totals"][s]
        previous = hand["totals"]
        assert sum(hand["totals"]) == 425
    assert sum(m.state.chips) == 425


def test_views_hide_other_seats_cards() -> None:
    m = Match(options={"start": "choose5"})
    deal5(m, [["AH", "2H", "3H", "4H", "5H"], ["AS", "2S", "3S", "4S", "5S"], [U] * 5, [U] * 5])
    public, p1, p2 = kabu.view(m.state), kabu.view(m.state, 0), kabu.view(m.state, 1)
    assert "AH" not in json.dumps(public) and "AS" not in json.dumps(p1) and "AH" not in json.dumps(p2)
    assert p1["cards"] == ["AH", "2H", "3H", "4H", "5H"] and p2["cards"] == ["AS", "2S", "3S", "4S", "5S"]
    m.add("keep", seat=0, card="3H")
    assert kabu.view(m.state, 0)["cards"] == ["3H"] and kabu.view(m.state, 0)["kept"] == "3H"
    assert "3H" not in json.dumps(kabu.view(m.state, 1)) and "3H" not in json.dumps(kabu.view(m.state))
    assert kabu.view(m.state, "all")["seats"][0]["hand"] == ["3H"]
    with pytest.raises(ValueError):
        kabu.view(m.state, 4)


def test_narration() -> None:
    m = Match()
    assert kabu.narrate(None, m.events[0], m.state).startswith(
        "Kabú: P1, P2, P3 and P4; 70 chips each (ten 1s, 4 5s and 4 10s)"
    )
    m.direct(3)
    assert m.texts[0] == "Hand 1: P4 deals two cards to each player; P1 decides first"
    m.add("reveal", cards=[{"seat": 0, "card": "5H"}])
    assert m.texts[-1] == "Revealed: P1 holds 5♥"
    m2 = k2()
    assert (
        "Z cannot pay all he owes and pays nobody" in m2.texts[-1]
        and "X has the most chips (46) and wins" in m2.texts[-1]
    )


def test_legal_moves_between_hands_and_during_one() -> None:
    m = Match()
    assert kabu.legal_moves(m.state) == [{"type": "hand_started", "data": {}}]
    m.direct(3)
    close = {"type": "hand_result", "data": {}}  # a hand in play may be closed from the score sheet
    assert kabu.legal_moves(m.state) == [
        {"type": "take", "data": {"seat": 0}},
        {"type": "stand", "data": {"seat": 0}},
        close,
    ]
    m.all_stand()
    assert kabu.legal_moves(m.state) == [{"type": "showdown", "data": {}}, close]
    c = Match(options={"dealerMode": "croupier"}, target={"end": "time"})
    assert kabu.legal_moves(c.state) == [
        {"type": "hand_started", "data": {"dealer": None}},
        {"type": "time_up", "data": {}},
    ]


def test_unknown_event() -> None:
    Match().refuse("common.unknown_event", "lead", seat=0, cards=["AH"])


# --------------------------------------------------------------------------- schemas: the VOCABULARY examples

K1_LOG = """\
{"type":"match_started","data":{"game":"kabu","players":["P1","P2","P3","P4"],"options":{}}}
{"type":"hand_started","data":{"dealer":3,"hands":[["??","??"],["??","??"],["??","??"],["??","??"]]}}
{"type":"stand","data":{"seat":0}}
{"type":"take","data":{"seat":1}}
{"type":"take","data":{"seat":2}}
{"type":"stand","data":{"seat":3}}
{"type":"stand","data":{"seat":1}}
{"type":"take","data":{"seat":2}}
{"type":"showdown","data":{"hands":[["5H","4S"],["7D","8C","2H"],["10S","3D","9C","8H"],["6C","AD"]]}}
{"type":"score_claimed","data":{"hand":1,"points":[13,5,-23,5],"totals":[83,75,47,75]}}
"""
SNIPPETS = """\
{"type": "keep", "data": {"seat": 1, "card": "??"}}
{"type": "buy_chips", "data": {"seat": 2, "from": 0, "chips": 20}}
"""


def _events(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(e["type"], e["data"]) for e in map(json.loads, text.splitlines()) if e]


def _vocabulary() -> str:
    return VOCABULARY.read_text(encoding="utf-8")


def test_vocabulary_examples_are_copied_verbatim() -> None:
    text = _vocabulary()
    block = text.split("**kabu** — K1 move by move")[1].split("```jsonl\n")[1].split("```")[0]
    assert _events(block) == _events(K1_LOG)
    section = text.split("### 5.2 kabu")[1].split("### 5.3")[0]
    snippets = section.split("```json\n")[1].split("```")[0]
    assert _events(snippets) == _events(SNIPPETS)


VALID: list[tuple[str, Any]] = [
    *_events(K1_LOG),
    *_events(SNIPPETS),
    (
        "match_started",
        {
            "game": "kabu",
            "players": ["X", "Y", "Z"],
            "target": {"end": "time"},
            "initial": {"chips": [40, 30, 5]},
            "options": {
                "deck": "spanish40",
                "maxPlayers": 10,
                "dealerMode": "croupier",
                "start": "choose5",
                "secondCardFrom": "stock",
                "openSix": True,
                "solvency": "net",
                "insolventCollects": False,
            },
        },
    ),
    (
        "hand_started",
        {
            "dealer": None,
            "hands": [["??"] * 5, ["1o", "12b", "??", "??", "??"], None],
            "table": ["1o", "2o", "3o", "4o", "5o", "6o"],
        },
    ),
    ("hand_started", {"dealer": 0}),
    ("keep", {"seat": 0, "card": "12b"}),
    ("showdown", {"hands": [["KS", "9D"], None, ["10H", "AC", "2C", "3C"]]}),
    ("reveal", {"cards": [{"seat": 2, "card": "7D"}, {"seq": 4, "card": "AS"}]}),
    ("hand_result", {"values": [8, 2, 1]}),
    ("hand_result", {"hands": [["5H", "4S"], None, ["6C", "AD"]], "values": [9, None, 7]}),
    ("leave", {"seat": 3}),
    ("time_up", {}),
    ("score_claimed", {"winners": [0]}),
]


@pytest.mark.parametrize(("type", "data"), VALID, ids=[f"{i}-{t}" for i, (t, _) in enumerate(VALID)])
def test_schemas_accept_every_example(type: str, data: Any) -> None:
    validate_event("kabu", type, data)


@pytest.mark.parametrize(
    ("type", "data", "path"),
    [
        ("match_started", {"game": "kabu", "players": ["A"]}, "$.players"),
        ("match_started", {"game": "kabu", "players": ["A", "B"], "options": {"deck": "french36"}}, "$.options.deck"),
        ("match_started", {"game": "kabu", "players": ["A", "B"], "target": {"end": "soon"}}, "$.target.end"),
        ("hand_started", {"hands": [["??", "??"]] * 2}, "$.dealer"),
        ("hand_started", {"dealer": 0, "hands": [["??", "XX"], ["??", "??"]]}, "$.hands[0][1]"),
        ("hand_started", {"dealer": 0, "table": ["AH"] * 6}, "$.hands"),
        ("keep", {"seat": 0}, "$.card"),
        ("take", {"seat": 10}, "$.seat"),
        ("stand", {"seat": 0, "card": "AH"}, "$.card"),
        ("showdown", {"hands": [["AH", "??"], ["2H", "3H"]]}, "$.hands[0][1]"),
        ("showdown", {"hands": [["AH", "2H", "3H", "4H", "5H"], ["2S", "3S"]]}, "$.hands[0]"),
        ("hand_result", {"values": [10, 2]}, "$.values[0]"),
        ("buy_chips", {"seat": 0, "from": 1, "chips": 0}, "$.chips"),
        ("time_up", {"now": True}, "$.now"),
        ("score_claimed", {"totals": [83, -1]}, "$.totals[1]"),
    ],
)
def test_schemas_refuse_bad_shapes_with_a_path(type: str, data: Any, path: str) -> None:
    with pytest.raises(SchemaError) as info:
        validate_event("kabu", type, data)
    assert info.value.code == "schema.invalid"
    assert path in [e["path"] for e in info.value.errors], info.value.errors


def test_vocabulary_k1_log_folds_to_k1() -> None:
    events = [Event(i + 1, t, d) for i, (t, d) in enumerate(_events(K1_LOG)) if t != "score_claimed"]
    state = replay(kabu, events)
    assert kabu.score(state)["hands"][0]["totals"] == [83, 75, 47, 75]


# --------------------------------------------------------------------------- more random playouts (beyond the conformance seeds)


@pytest.mark.parametrize("seed", range(10, 30))
def test_more_random_playouts(seed: int) -> None:
    from tests.engines.driver_kabu import KabuDriver
    from tests.engines.drivers import run

    events, state = run(kabu, KabuDriver(random.Random(seed)))
    assert replay(kabu, events) == state and state.over
    assert sum(state.chips) == sum(state.initial)
