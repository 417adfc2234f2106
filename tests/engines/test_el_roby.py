"""El Roby engine: every rule of docs/RULES.md §4 and VOCABULARY.md §5.4, legal and illegal.

R2 and R3 (docs/RULES.md §4.8) start mid-hand: they are built with the engine's test-facing
position constructor (:func:`engines.el_roby.position`). R1 is in its own tests here and,
through HTTP, in ``tests/api/test_el_roby_api.py``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import VOCABULARY

import schemas
from engines import el_roby
from engines.base import Event, RuleViolation, replay
from engines.el_roby.search import can_empty
from engines.el_roby.state import Options, classify, read_card
from schemas import SchemaError, validate_event
from tests.engines.el_roby_helpers import ANA, BEA, CARLOS, DANI, PLAYERS, Match, cards

R1_START = {"options": {"entry": 10, "stake": 2}, "initial": {"scores": [40, 70, 75, 97]}}
R1_HAND1 = [[], cards("AS KH 7D 7C"), cards("5H 6H 7H QS"), cards("2C")]


def r1() -> Match:
    m = Match(**R1_START)
    m.add("hand_started", dealer=DANI)
    m.add("hand_result", out=ANA, hands=R1_HAND1)
    return m


# --------------------------------------------------------------------------- describe and start


def test_describe_lists_every_option_with_its_default() -> None:
    d = el_roby.describe()
    assert d["game"] == el_roby.GAME == "el-roby" and d["deck"] == "French 104 (2 x 52)" and d["direction"] == "ACW"
    assert d["players"] == {"min": 4, "max": 8, "minWithOption": 2} and d["target"] == {"limit": 99}
    opts = d["options"]
    defaults = {k: v["default"] for k, v in opts.items()}
    assert defaults == {
        "players": "4-8",
        "entry": 0,
        "stake": 0,
        "dealerDrawOrder": "value",
        "setsDistinctSuits": False,
        "aceWrap": False,
        "discardCheck": "othersMelds",
        "elevenCardSource": "stockOnly",
        "noImmediateRediscard": False,
        "stockOut": "reshuffle",
        "limitCheck": "afterDiscard",
        "limitScope": "everyMeld",
        "rebuyDenominator": "remaining",
        "rebuyRounding": "up",
    }
    assert opts["limitScope"]["values"] == ["everyMeld", "firstExposure", "alsoLayoffs"]
    assert all(o["rule"].startswith("/rules/el-roby#option-") and o["description"] for o in opts.values())
    assert set(d["events"]) == set(schemas.event_types("el-roby"))
    assert Options() == el_roby.parse_options({})
    json.dumps(d)


def test_start_defaults_money_and_pot() -> None:
    s = el_roby.start({"game": "el-roby", "players": PLAYERS, "target": {"limit": 99}})
    assert s.scores == (0, 0, 0, 0) and s.money == (0, 0, 0, 0) and s.pot == 0
    s = el_roby.start({"game": "el-roby", "players": PLAYERS, "options": {"entry": 10}})
    assert s.money == (-10,) * 4 and s.pot == 40
    standing = el_roby.score(s)["standings"][0]
    assert standing["money"] == -10 and standing["pot"] == 40 and standing["status"] == "playing"
    assert standing["ledger"] == [{"hand": None, "money": -10, "reason": "entry paid into the pot (10)"}]


def test_start_non_default_options_and_initial() -> None:
    opts = {
        "players": "2-8",
        "entry": 5,
        "stake": 1,
        "dealerDrawOrder": "rank",
        "setsDistinctSuits": True,
        "aceWrap": True,
        "discardCheck": "allMelds",
        "elevenCardSource": "either",
        "noImmediateRediscard": True,
        "stockOut": "voidHand",
        "limitCheck": "beforeDiscard",
        "limitScope": "alsoLayoffs",
        "rebuyDenominator": "includeRebuyers",
        "rebuyRounding": "down",
    }
    s = el_roby.start(
        {
            "game": "el-roby",
            "players": ["A", "B"],
            "options": opts,
            "initial": {"scores": [10, 20], "money": [-8, -2], "pot": 10},
        }
    )
    assert s.options == Options(**opts)
    assert s.scores == (10, 20) and s.money == (-8, -2) and s.pot == 10 and s.carried
    s = el_roby.start(
        {"game": "el-roby", "players": PLAYERS, "initial": {"scores": [1, None, 3, 4], "money": [-5, -5, -5, -5]}}
    )
    assert s.pot == 20 and s.scores[1] is None


@pytest.mark.parametrize(
    "data, code",
    [
        ({"players": ["A", "B", "C"]}, "el-roby.players"),
        ({"players": [f"P{i}" for i in range(9)]}, "el-roby.players"),
        ({"players": ["A", "B", "A", "D"]}, "el-roby.players"),
        ({"players": ["A"], "options": {"players": "2-8"}}, "el-roby.players"),
        ({"target": {"limit": 100}}, "common.bad_target"),
        ({"options": {"wrap": True}}, "common.bad_option"),
        ({"options": {"limitScope": "never"}}, "common.bad_option"),
        ({"options": {"entry": -1}}, "common.bad_option"),
        ({"options": {"stake": True}}, "common.bad_option"),
        ({"options": {"aceWrap": "yes"}}, "common.bad_option"),
        ({"initial": {"scores": [100, 0, 0, 0]}}, "common.bad_initial"),
        ({"initial": {"scores": [0, 0, 0]}}, "common.bad_initial"),
        ({"initial": {"scores": [0, None, None, None]}}, "common.bad_initial"),
        ({"initial": {"money": [-10, -10, -10, -10], "pot": 30}}, "common.bad_initial"),
        ({"game": "cabo"}, "common.wrong_game"),
    ],
)
def test_start_refuses(data: dict[str, Any], code: str) -> None:
    with pytest.raises(RuleViolation) as info:
        el_roby.start({"game": "el-roby", "players": PLAYERS, **data})
    assert info.value.code == code


def test_two_or_three_players_with_the_option() -> None:
    s = el_roby.start({"game": "el-roby", "players": ["A", "B"], "options": {"players": "2-8"}})
    m = Match(state=s, players=["A", "B"])
    deal = [cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C"), cards("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D")]
    m.add("hand_started", dealer=0, hands=deal, discard="KS")
    assert m.hand.stock == 104 - 21 and m.hand.turn == 1


# --------------------------------------------------------------------------- the deal


DEAL = [
    cards("2C 2D 9H 9S JC QD KS 3H 5D 6S"),
    cards("4H 5H 6H 8C 8D 8S KC QH JS AC"),
    cards("7H 7C 10D 2S 3S 4C 9D JD QC AS"),
    cards("3C 5C 6C 10C KD KH 2H 4S 8H AD"),
]


def dealt(options: dict[str, Any] | None = None, dealer: int = ANA, deal: list[list[str]] = DEAL, **kw: Any) -> Match:
    m = Match(options, **kw)
    m.add("hand_started", dealer=dealer, hands=deal, discard="10H")
    return m


def test_the_deal_sets_stock_discard_and_first_player() -> None:
    m = dealt()
    h = m.hand
    assert h.stock == 63 and [str(c) for c in h.pile] == ["10H"] and h.turn == BEA and h.phase == "draw"
    assert [h.size(s) for s in range(4)] == [10] * 4 and h.first_round
    assert m.texts[-1] == "Hand 1: Ana deals; 10♥ turned up; Bea plays first"
    # duplicates are written alike: two 7♥ in play is fine
    dup = [list(h_) for h_ in DEAL]
    dup[0][0] = "7H"
    dealt(deal=dup)


def test_deal_refusals() -> None:
    m = Match()
    m.refuse("hand_started", "el-roby.bad_deal", dealer=0, hands=DEAL)
    m.refuse("hand_started", "el-roby.bad_deal", dealer=0, hands=[DEAL[0][:9], *DEAL[1:]], discard="10H")
    m.refuse("hand_started", "el-roby.bad_deal", dealer=0, hands=[None, *DEAL[1:]], discard="10H")
    m.refuse("hand_started", "el-roby.bad_deal", dealer=0, hands=DEAL[:3], discard="10H")
    triple = [cards("7H 7H 9H 9S JC QD KS 3H 5D 6S"), *DEAL[1:]]
    m.refuse("hand_started", "common.card_duplicate", dealer=0, hands=triple, discard="7H")
    m.refuse("hand_started", "common.bad_seat", dealer=4)
    m = dealt()
    m.refuse("hand_started", "common.hand_in_progress", dealer=1)


def test_dealer_rotates_to_the_next_player_still_in_the_game() -> None:
    m = r1()  # Dani dealt hand 1
    m.refuse("hand_started", "el-roby.wrong_dealer", dealer=BEA)
    m.add("rebuy", seat=BEA)
    m.add("hand_started", dealer=ANA)
    # a dealer out of the game is refused; the deal after Bea skips Carlos (out)
    m2 = Match(initial={"scores": [0, 0, None, 0]})
    m2.refuse("hand_started", "el-roby.wrong_dealer", dealer=CARLOS)
    m2.add("hand_started", dealer=BEA)
    m2.add("hand_result", out=BEA, hands=[cards("2C"), [], None, cards("3C")])
    m2.refuse("hand_started", "el-roby.wrong_dealer", dealer=CARLOS)
    m2.add("hand_started", dealer=DANI)


# --------------------------------------------------------------------------- turns: draw


def test_draw_from_stock_or_discard() -> None:
    m = dealt()
    m.refuse("meld", "el-roby.draw_first", seat=BEA, id=1, cards=cards("4H 5H 6H"))
    m.refuse("draw", "common.not_your_turn", seat=CARLOS, **{"from": "stock"})
    m.refuse("draw", "el-roby.mismatch", seat=BEA, card="9H", **{"from": "discard"})
    m.draw(BEA, "10H", "discard")
    assert m.hand.pile == () and "10H" in [str(c) for c in m.hand.shown[BEA]]
    m.refuse("draw", "el-roby.already_drew", seat=BEA, **{"from": "stock"})
    m.add("discard", seat=BEA, card="KC")
    m.draw(CARLOS)  # unseen: the card stays hidden
    assert m.hand.unknown[CARLOS] == 1 and m.hand.stock == 62
    assert m.texts[-1] == "Carlos draws from the stock"
    m.add("discard", seat=CARLOS, card="AS")
    m.draw(DANI, "2H")  # private card, known to the record; the second 2♥
    m.refuse("discard", "common.card_unavailable", seat=DANI, card="9H")
    m.add("discard", seat=DANI, card="2H")
    m.refuse("draw", "common.card_unavailable", seat=ANA, card="2H", **{"from": "stock"})  # both 2♥ are placed


def test_pile_and_stock_empty() -> None:
    m = Match.at(
        hands=[cards(f"2{s} 3{s} 4{s} 5{s} 6{s} 7{s} 8{s} 9{s} 10{s} J{s}") for s in "CDHS"], discard=[], turn=ANA
    )
    m.refuse("draw", "el-roby.pile_empty", seat=ANA, **{"from": "discard"})
    # every card placed: 40 in hands, the rest in big sets, one discard
    hands = [
        cards("AC AC AD AD AH AH AS AS 2C 2C"),
        cards("2D 2D 2H 2H 2S 2S 3C 3C 3D 3D"),
        cards("3H 3H 3S 3S 4C 4C 4D 4D 4H 4H"),
        cards("4S 4S 5C 5C 5D 5D 5H 5H 5S 5S"),
    ]
    melds = [(BEA, [f"{r}{s}" for s in "CDHS" for _ in (0, 1)]) for r in ("7", "8", "9", "10", "J", "Q", "K")]
    melds.append((BEA, cards("6C 6C 6D 6D 6H 6H 6S")))
    m = Match.at(hands=hands, melds=melds, discard=["6S"], turn=ANA)
    assert m.hand.stock == 0
    m.refuse("draw", "el-roby.stock_empty", seat=ANA, **{"from": "stock"})
    m.draw(ANA, "6S", "discard")


def low_stock(options: dict[str, Any] | None = None) -> Match:
    """A position with one card left in the stock and a long discard pile."""
    hands = [
        cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C"),
        cards("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D"),
        cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H"),
        cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S"),
    ]
    pile = [str(c) for c in el_roby.state.DECK.cards]
    for h in hands:
        for c in h:
            pile.remove(c)
    pile.remove("KS")  # the last stock card
    return Match.at(hands=hands, discard=pile, turn=ANA, options=options)


def test_stock_out_reshuffle_and_void_hand() -> None:
    m = low_stock()
    assert m.hand.stock == 1
    m.draw(ANA, "KS")
    m.add("discard", seat=ANA, card="KS")
    assert m.hand.stock == 63 and [str(c) for c in m.hand.pile] == ["KS"] and m.hand.turn == BEA
    assert "turned over into a new stock of 63" in m.texts[-1]
    m = low_stock({"stockOut": "voidHand"})
    m.draw(ANA)
    m.add("discard", seat=ANA, card="10C")
    assert m.hand.over and m.hand.void
    entry = m.hand_score()
    assert entry["status"] == "scored" and entry["result"]["void"] and entry["points"] == [0, 0, 0, 0]
    m.refuse("draw", "el-roby.hand_over", seat=BEA, **{"from": "stock"})
    m.add("hand_started", dealer=ANA)  # the deal passes on (Dani dealt the position)


# --------------------------------------------------------------------------- melds


@pytest.mark.parametrize(
    "text, options, ok",
    [
        ("7H 7H 7S", {}, True),
        ("7H 7H 7S", {"setsDistinctSuits": True}, False),
        ("7H 7D 7S 7C", {"setsDistinctSuits": True}, True),
        ("7H 7D 7S 7C 7H", {"setsDistinctSuits": True}, False),
        ("7H 7H 7D 7D 7S 7S 7C 7C", {}, True),
        ("AH 2H 3H", {}, True),
        ("QH KH AH", {}, True),
        ("KH AH 2H", {}, False),
        ("KH AH 2H", {"aceWrap": True}, True),
        ("QH KH AH 2H 3H", {"aceWrap": True}, True),
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", {}, True),
        ("4H 5H 7H", {}, False),
        ("4H 5H 6D", {}, False),
        ("4H 5H", {}, False),
        ("4H 5H 5H 6H", {}, False),
    ],
)
def test_sets_and_runs(text: str, options: dict[str, Any], ok: bool) -> None:
    shape = classify([read_card(c) for c in cards(text)], Options(**options))  # type: ignore[misc]
    assert (shape is not None) == ok


@pytest.mark.parametrize(
    "options, meld, code",
    [
        ({}, "7H 7H 7S", None),
        ({"setsDistinctSuits": True}, "7H 7H 7S", "el-roby.bad_meld"),
        ({"setsDistinctSuits": True}, "7H 7D 7S", None),
        ({}, "KH AH 2H", "el-roby.bad_meld"),
        ({"aceWrap": True}, "KH AH 2H", None),
    ],
)
def test_meld_variants_as_moves(options: dict[str, Any], meld: str, code: str | None) -> None:
    m = Match.at(
        hands=[cards("2C 3C"), cards("4D 5D"), cards("7H 7H 7S 7D KH AH 2H 9C"), cards("AD KC")],
        turn=CARLOS,
        drew="stock",
        options=options,
    )
    if code is None:
        m.add("meld", seat=CARLOS, id=1, cards=cards(meld))
        assert m.hand.melds[0].owner == CARLOS
    else:
        e = m.refuse("meld", code, seat=CARLOS, id=1, cards=cards(meld))
        assert cards(meld)[0][:-1] in e.message


# R2 (docs/RULES.md §4.8): Carlos has 72 (limit 27), first round over, after his stock draw.
R2_HAND = cards("8S 8H 8D 4C 5C 6C KD 2H 3S 9H JC")


def r2(options: dict[str, Any] | None = None, hand: list[str] = R2_HAND) -> Match:
    return Match.at(
        hands=[cards("2C 3C"), cards("4D 5D"), hand, cards("AD KC")],
        turn=CARLOS,
        drew="stock",
        scores=[10, 20, 72, 30],
        options=options,
    )


def test_r2_two_melds_then_discard_is_legal() -> None:
    m = r2()
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    m.add("discard", seat=CARLOS, card="KD")  # keeps 2♥ 3♠ 9♥ J♣ = 24 ≤ 27
    assert m.hand.turn == DANI and m.hand.size(CARLOS) == 4
    assert m.texts[:2] == ["Carlos melds 8♠ 8♥ 8♦ (meld 1)", "Carlos melds 4♣ 5♣ 6♣ (meld 2)"]


def test_r2_before_discard_is_illegal() -> None:
    m = r2({"limitCheck": "beforeDiscard"})
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    e = m.refuse("discard", "el-roby.limit", seat=CARLOS, card="KD")
    assert "27" in e.message and "34" in e.message


@pytest.mark.parametrize("check", ["afterDiscard", "beforeDiscard"])
def test_r2_only_the_eights_is_illegal_under_every_reading(check: str) -> None:
    m = r2({"limitCheck": check})
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    e = m.refuse("discard", "el-roby.limit", seat=CARLOS, card="KD")
    assert ("39" if check == "afterDiscard" else "49") in e.message


def test_limit_scope_first_exposure_and_lay_offs() -> None:
    hand = cards("4C 5C 6C KD QH JS 10S 9S")
    melds = [(CARLOS, cards("8S 8H 8D"))]  # Carlos melded on an earlier turn
    base = dict(
        hands=[cards("2C 3C"), cards("4D 5D"), hand, cards("AD KC")],
        melds=melds,
        turn=CARLOS,
        drew="stock",
        scores=[10, 20, 72, 30],
    )
    m = Match.at(**base)
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    m.refuse("discard", "el-roby.limit", seat=CARLOS, card="KD")  # everyMeld: 39 > 27
    m = Match.at(**base, options={"limitScope": "firstExposure"})
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    m.add("discard", seat=CARLOS, card="KD")  # not his first meld of the hand: no test
    # lay-offs only: tested under alsoLayoffs only
    lay = dict(base, hands=[cards("2C 3C"), cards("4D 5D"), cards("8C KD QH JS 10S 9S 4C"), cards("AD KC")])
    m = Match.at(**lay)
    m.add("lay_off", seat=CARLOS, meld=1, cards=["8C"])
    m.add("discard", seat=CARLOS, card="KD")
    m = Match.at(**lay, options={"limitScope": "alsoLayoffs"})
    m.add("lay_off", seat=CARLOS, meld=1, cards=["8C"])
    m.refuse("discard", "el-roby.limit", seat=CARLOS, card="KD")


def test_meld_refusals() -> None:
    m = r2()
    m.refuse("meld", "el-roby.mismatch", seat=CARLOS, id=2, cards=cards("8S 8H 8D"))
    e = m.refuse("meld", "el-roby.bad_meld", seat=CARLOS, id=1, cards=cards("8S 8H 9H"))
    assert "8♠ 8♥ 9♥" in e.message
    m.refuse("meld", "el-roby.bad_meld", seat=CARLOS, id=1, cards=cards("2H 3S 4C"))
    m.refuse("meld", "common.card_unavailable", seat=CARLOS, id=1, cards=cards("7H 8H 9H"))
    m.refuse("meld", "common.not_your_turn", seat=DANI, id=1, cards=cards("AD KC QC"))


def test_first_round_meld_only_to_go_out_at_once() -> None:
    m = dealt()
    m.draw(BEA, "9C")
    e = m.refuse("meld", "el-roby.first_round", seat=BEA, id=1, cards=cards("4H 5H 6H"))
    assert "first round" in e.message
    # a hand that can go out at once: three melds and a final discard
    going = [DEAL[0], cards("AH 2H 3H 5C 5D 5S 9S 10S JS QS"), DEAL[2], cards("3C 6C 6C 10C KD KH 2H 4S 8H AD")]
    m = dealt(deal=going)
    m.draw(BEA, "KD")
    m.add("meld", seat=BEA, id=1, cards=cards("AH 2H 3H"))
    m.add("meld", seat=BEA, id=2, cards=cards("5C 5D 5S"))
    m.refuse("discard", "el-roby.first_round", seat=BEA, card="KD")  # 9♠ 10♠ J♠ Q♠ would stay
    m.add("meld", seat=BEA, id=3, cards=cards("9S 10S JS QS"))
    m.add("discard", seat=BEA, card="KD")
    assert m.hand.over and m.hand.out == BEA
    assert "Bea is out of cards: Roby!" in m.texts[-1]
    entry = m.hand_score()
    assert entry["status"] == "scored" and entry["points"][BEA] == 0
    assert entry["points"][ANA] == 2 + 2 + 9 + 9 + 10 + 10 + 10 + 3 + 5 + 6


def test_first_round_meld_with_hidden_cards_is_checked_at_the_discard() -> None:
    hidden = [["??"] * 10 for _ in range(4)]
    m = dealt(deal=hidden)
    m.draw(BEA)
    m.add("meld", seat=BEA, id=1, cards=cards("4H 5H 6H"))  # binds three hidden cards
    assert m.hand.unknown[BEA] == 8 and m.hand.known[BEA] == ()
    m.refuse("discard", "el-roby.first_round", seat=BEA, card="KC")


# --------------------------------------------------------------------------- lay-offs and the 11-card Roby

R3_MELDS = [
    (ANA, cards("4H 5H 6H")),
    (ANA, cards("9C 10C JC")),
    (ANA, cards("10D JD QD")),
    (BEA, cards("KS KD KH")),
    (BEA, cards("5S 6S 7S")),
]
R3_DANI = cards("2H 3H 7H 7C 8C QC KC 3S 4S 8S 9D")


def r3(drew: str = "stock", options: dict[str, Any] | None = None) -> Match:
    return Match.at(
        hands=[cards("2C 9H"), cards("AC 2D 3D 4D"), cards("5C 5D 6D 7D 8D 9S 10S JS QS AS"), R3_DANI],
        melds=R3_MELDS,
        turn=DANI,
        drew=drew,
        scores=[20, 30, 40, 50],
        options=options,
    )


def test_r3_eleven_card_roby_by_lay_offs() -> None:
    m = r3()
    m.add("lay_off", seat=DANI, meld=1, cards=cards("2H 3H 7H"))
    m.refuse("discard", "el-roby.eleven_card", seat=DANI, card="QC")
    m.refuse("meld", "el-roby.eleven_card", seat=DANI, id=6, cards=cards("7C 8C 9D"))
    m.add("lay_off", seat=DANI, meld=2, cards=cards("7C 8C QC"))
    m.add("lay_off", seat=DANI, meld=4, cards=["KC"])
    m.add("lay_off", seat=DANI, meld=5, cards=cards("3S 4S 8S"))
    m.add("lay_off", seat=DANI, meld=3, cards=["9D"])
    assert m.hand.over and m.hand.out == DANI
    assert [str(c) for c in m.hand.melds[0].cards] == cards("2H 3H 4H 5H 6H 7H")
    assert [str(c) for c in m.hand.melds[1].cards] == cards("7C 8C 9C 10C JC QC")
    entry = m.hand_score()
    assert entry["points"] == [2 + 9, 11 + 2 + 3 + 4, 5 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10 + 11, 0]
    assert entry["totals"] == [31, 50, 121, 50]
    assert entry["result"]["busted"] == [CARLOS]


def test_r3_after_a_discard_draw_is_refused_by_default() -> None:
    m = r3(drew="discard")
    e = m.refuse("lay_off", "el-roby.eleven_card_source", seat=DANI, meld=1, cards=cards("2H 3H 7H"))
    assert "stock" in e.message
    m = r3(drew="discard", options={"elevenCardSource": "either"})
    m.add("lay_off", seat=DANI, meld=1, cards=cards("2H 3H 7H"))


def test_lay_off_before_melding_is_refused() -> None:
    hand = list(R3_DANI)
    hand[-1] = "9H"  # 9♥ fits nothing: she cannot lay off all eleven
    m = Match.at(hands=[cards("2C 9S"), cards("AC 2D"), cards("5C 5D"), hand], melds=R3_MELDS, turn=DANI, drew="stock")
    e = m.refuse("lay_off", "el-roby.needs_meld", seat=DANI, meld=1, cards=cards("2H 3H 7H"))
    assert "no meld of their own" in e.message


def test_lay_off_on_any_meld_once_one_has_a_meld() -> None:
    m = Match.at(
        hands=[cards("2C 9S"), cards("AC 2D"), cards("7H 8H 9H 7S KD 3C"), cards("QD JC")],
        melds=R3_MELDS,
        turn=CARLOS,
        drew="stock",
    )
    m.refuse("lay_off", "el-roby.unknown_meld", seat=CARLOS, meld=9, cards=["7S"])
    m.refuse("lay_off", "el-roby.bad_lay_off", seat=CARLOS, meld=5, cards=["KD"])
    m.add("meld", seat=CARLOS, id=6, cards=cards("7H 8H 9H"))
    m.refuse("lay_off", "el-roby.bad_lay_off", seat=CARLOS, meld=5, cards=["7S"])  # 5♠ 6♠ 7♠ already holds 7♠
    m.add("lay_off", seat=CARLOS, meld=4, cards=["KD"])  # on Bea's kings: a set may hold two K♦
    m.add("discard", seat=CARLOS, card="3C")
    assert m.hand.size(CARLOS) == 1
    assert m.texts[-2] == "Carlos lays off K♦ on meld 4"


# --------------------------------------------------------------------------- discards


def fits_position(options: dict[str, Any] | None = None, hand: str = "7H QS 2C 3D") -> Match:
    """Bea owns 4♥ 5♥ 6♥; Carlos owns 9♣ 10♣ J♣ and holds ``hand`` after his stock draw."""
    return Match.at(
        hands=[cards("AC AD"), cards("2S 3S"), cards("8C " + hand), cards("KC KD")],
        melds=[(BEA, cards("4H 5H 6H")), (CARLOS, cards("9C 10C JC"))],
        turn=CARLOS,
        drew="stock",
        options=options,
    )


def test_discard_must_not_fit_another_players_meld() -> None:
    m = fits_position()
    e = m.refuse("discard", "el-roby.discard_fits", seat=CARLOS, card="7H")
    assert "meld 1 (Bea's 4♥ 5♥ 6♥)" in e.message
    m.add("discard", seat=CARLOS, card="8C")  # fits his own run: allowed by default
    m = fits_position({"discardCheck": "allMelds"})
    m.refuse("discard", "el-roby.discard_fits", seat=CARLOS, card="8C")
    m.add("discard", seat=CARLOS, card="QS")


def test_forced_discard_exception() -> None:
    # Dani has no meld; every card she holds fits a meld on the table
    m = Match.at(
        hands=[cards("AC AD"), cards("2S 3S"), cards("KC KD"), cards("7H 3H 8C QC")],
        melds=[(BEA, cards("4H 5H 6H")), (CARLOS, cards("9C 10C JC"))],
        turn=DANI,
        drew="stock",
    )
    m.refuse("discard", "el-roby.discard_fits", seat=DANI, card="7H")
    m.add("discard", seat=DANI, card="7H", forced=True)
    assert "forced" in m.texts[-1]
    # not forced when a card fits nothing, or when the player has a meld of his own
    m = Match.at(
        hands=[cards("AC AD"), cards("2S 3S"), cards("KC KD"), cards("7H 3H 8C QS")],
        melds=[(BEA, cards("4H 5H 6H")), (CARLOS, cards("9C 10C JC"))],
        turn=DANI,
        drew="stock",
    )
    m.refuse("discard", "el-roby.not_forced", seat=DANI, card="7H", forced=True)
    m.refuse("discard", "el-roby.not_forced", seat=DANI, card="QS", forced=True)
    m = fits_position(hand="7H 3H QC")
    m.refuse("discard", "el-roby.not_forced", seat=CARLOS, card="7H", forced=True)


def test_no_immediate_rediscard_option() -> None:
    m = dealt({"noImmediateRediscard": True})
    m.draw(BEA, "10H", "discard")
    m.refuse("discard", "el-roby.rediscard", seat=BEA, card="10H")
    m.add("discard", seat=BEA, card="KC")
    m = dealt()
    m.draw(BEA, "10H", "discard")
    m.add("discard", seat=BEA, card="10H")  # default: allowed


def test_going_out_with_and_without_a_final_discard() -> None:
    m = Match.at(
        hands=[cards("2C 9S"), cards("AC 2D"), cards("7H 8H 9H 5C"), cards("QD JC")],
        melds=R3_MELDS,
        turn=CARLOS,
        drew="stock",
    )
    m.add("meld", seat=CARLOS, id=6, cards=cards("7H 8H 9H"))
    m.add("discard", seat=CARLOS, card="5C")
    assert m.hand.out == CARLOS and m.hand_score()["status"] == "scored"
    m = Match.at(
        hands=[cards("2C 9S"), cards("AC 2D"), cards("7H 8H 9H 8S"), cards("QD JC")],
        melds=R3_MELDS,
        turn=CARLOS,
        drew="stock",
    )
    m.add("meld", seat=CARLOS, id=6, cards=cards("7H 8H 9H"))
    m.add("lay_off", seat=CARLOS, meld=5, cards=["8S"])
    assert m.hand.out == CARLOS
    m.refuse("discard", "el-roby.hand_over", seat=CARLOS, card="8S")
    m.refuse("draw", "el-roby.hand_over", seat=DANI, **{"from": "stock"})


# --------------------------------------------------------------------------- hidden cards


def hidden_r2(options: dict[str, Any] | None = None) -> Match:
    """R2 with Carlos's hand unseen by the scorer (he drew from the stock unseen)."""
    return Match.at(
        hands=[cards("2C 3C"), cards("4D 5D"), ["??"] * 11, cards("AD KC")],
        turn=CARLOS,
        drew="stock",
        scores=[10, 20, 72, 30],
        options=options,
    )


def test_hidden_hand_binds_and_scores_after_the_showdown() -> None:
    m = hidden_r2()
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    m.add("discard", seat=CARLOS, card="KD")
    assert m.hand.unknown[CARLOS] == 4 and len(m.hand.pending) == 1
    m.draw(DANI)
    m.add("discard", seat=DANI, card="KC")
    m.draw(ANA, "4C")
    m.add("meld", seat=ANA, id=3, cards=cards("2C 3C 4C"))
    assert m.hand.out == ANA
    entry = m.hand_score()
    assert entry["status"] == "incomplete" and entry["missing"] == [{"seat": CARLOS}] * 4 + [{"seat": DANI}]
    m.refuse("hand_started", "common.hand_in_progress", dealer=1)
    m.refuse("showdown", "el-roby.mismatch", hands=[[], cards("4D 5D"), cards("2H 3S 9H"), cards("AD 5H")])
    m.refuse("showdown", "el-roby.mismatch", hands=[[], cards("4D"), cards("2H 3S 9H JC"), cards("AD 5H")])
    m.refuse("showdown", "common.card_duplicate", hands=[[], cards("4D 5D"), cards("2H 3S 9H JC"), cards("AD 4C")])
    m.add("showdown", hands=[[], cards("4D 5D"), cards("2H 3S 9H JC"), cards("AD 5H")])
    entry = m.hand_score()
    assert entry["status"] == "scored" and entry["points"] == [0, 9, 24, 16]


def test_deferred_limit_check_refuses_the_showdown_naming_the_move() -> None:
    m = hidden_r2()
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    discard_seq = m.seq
    m.add("discard", seat=CARLOS, card="KD")  # 7 hidden cards kept: at least 14, so possible
    m.draw(DANI)
    m.add("discard", seat=DANI, card="KC")
    m.draw(ANA, "4C")
    m.add("meld", seat=ANA, id=2, cards=cards("2C 3C 4C"))
    e = m.refuse("showdown", "el-roby.limit", hands=[[], cards("4D 5D"), cards("4C 5C 6C 2H 3S 9H JC"), cards("AD 5H")])
    assert e.seq == discard_seq
    # hidden cards can make the limit plainly impossible at once: at 90 the limit is 9, and
    # seven hidden cards are worth at least 14
    m = Match.at(
        hands=[cards("2C 3C"), cards("4D 5D"), ["??"] * 11, cards("AD KC")],
        turn=CARLOS,
        drew="stock",
        scores=[10, 20, 90, 30],
    )
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    e = m.refuse("discard", "el-roby.limit", seat=CARLOS, card="KD")
    assert "at least worth 14" in e.message


def test_reveal_binds_hidden_cards() -> None:
    m = dealt(deal=[["??"] * 10] * 4)
    draw_seq = m.seq
    m.draw(BEA)
    m.add("reveal", cards=[{"seq": draw_seq, "card": "9C"}, {"seat": CARLOS, "card": "AS"}])
    assert [str(c) for c in m.hand.known[BEA]] == ["9C"] and [str(c) for c in m.hand.known[CARLOS]] == ["AS"]
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": draw_seq, "card": "9C"}])  # already revealed
    m.add("reveal", cards=[{"seat": DANI, "card": "10H"}])  # the second 10♥
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": ANA, "card": "10H"}])
    m.refuse("reveal", "common.bad_reveal", cards=[{"card": "2C"}])


def test_hand_result_totals_for_hidden_cards() -> None:
    m = hidden_r2()
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    m.add("discard", seat=CARLOS, card="KD")
    m.draw(DANI, "QC")
    m.add("discard", seat=DANI, card="KC")
    m.draw(ANA, "4C")
    m.add("meld", seat=ANA, id=3, cards=cards("2C 3C 4C"))
    m.refuse("hand_result", "el-roby.mismatch", out=BEA, hands=[[], cards("4D 5D"), 24, cards("AD QC")])
    m.refuse("hand_result", "el-roby.mismatch", out=ANA, hands=[[], 8, 24, cards("AD QC")])
    m.refuse("hand_result", "el-roby.mismatch", out=ANA, hands=[[], cards("4D 5D"), 3, cards("AD QC")])
    m.add("hand_result", out=ANA, hands=[[], cards("4D 5D"), 24, cards("AD QC")])
    entry = m.hand_score()
    assert entry["status"] == "scored" and entry["points"] == [0, 9, 24, 21]
    assert "only the total was written" in entry["lines"][2]["reason"]


# --------------------------------------------------------------------------- result-only hands, R1


def test_r1_scores_rebuy_stakes_and_pot() -> None:
    m = r1()
    entry = m.hand_score(1)
    assert entry["points"] == [0, 35, 28, 2] and entry["totals"] == [40, 105, 103, 99]
    r = entry["result"]
    assert r["busted"] == [1, 2] and r["price"] == 20 and r["reentry"] == 99 and r["pot"] == 40
    assert r["stakes"] == [2, 0, 0, -2]  # before the re-buy decisions: the busted pay nothing
    m.add("rebuy", seat=BEA)
    assert m.texts[-1] == "Bea re-buys for 20 and re-enters at 99; the pot holds 60"
    entry = m.hand_score(1)
    assert entry["totals"] == [40, 99, 103, 99]
    assert entry["result"]["money"] == [-6, -32, -10, -12] and entry["result"]["pot"] == 60
    standings = m.score()["standings"]
    assert [s["status"] for s in standings] == ["playing"] * 4 and [s["deciding"] for s in standings] == [
        False,
        False,
        True,
        False,
    ]
    m.add("hand_started", dealer=ANA)
    assert "Carlos out of the game" in m.texts[-1]
    assert m.score()["standings"][2]["status"] == "out" and m.hand.seats == (0, 1, 3)
    m.refuse("hand_result", "el-roby.bad_result", out=ANA, hands=[[], cards("3S"), cards("2C"), cards("2H 3H")])
    m.add("hand_result", out=ANA, hands=[[], cards("3S"), None, cards("2H 3H")])
    sheet = m.score()
    assert sheet["hands"][1]["points"] == [0, 3, None, 5] and sheet["hands"][1]["totals"] == [40, 102, None, 104]
    assert sheet["hands"][1]["result"]["money"] == [54, -32, -10, -12] and sheet["hands"][1]["result"]["pot"] == 0
    assert sheet["end"]["over"] and sheet["end"]["winners"] == [ANA]
    assert el_roby.is_over(m.state) and el_roby.legal_moves(m.state) == []
    m.refuse("rebuy", "el-roby.rebuy_closed", seat=BEA)
    m.refuse("hand_started", "common.match_over", dealer=BEA)
    assert replay(el_roby, m.events) == m.state


def test_exactly_100_is_out_and_99_is_in() -> None:
    m = Match(initial={"scores": [0, 90, 89, 50]})
    m.add("hand_started", dealer=3)
    m.add("hand_result", out=ANA, hands=[[], cards("10C"), cards("10D"), cards("2C")])
    r = m.hand_score()["result"]
    assert r["busted"] == [BEA] and m.hand_score()["totals"] == [0, 100, 99, 52]


def test_result_only_checks() -> None:
    m = Match(initial={"scores": [0, 0, 0, 0]})
    m.add("hand_started", dealer=0)
    m.refuse("draw", "common.no_deal", seat=1, **{"from": "stock"})
    m.refuse("showdown", "common.no_deal", hands=[[], ["2C"], ["2C"], ["2C"]])
    m.refuse("hand_result", "el-roby.bad_result", out=ANA, hands=[["2C"], ["2C"], ["2C"], ["2C"]])
    m.refuse("hand_result", "el-roby.bad_result", out=ANA, hands=[[], [], ["2C"], ["2C"]])
    m.refuse(
        "hand_result",
        "el-roby.bad_result",
        out=ANA,
        hands=[[], cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC"), ["2D"], ["2S"]],
    )
    m.refuse("hand_result", "el-roby.bad_result", out=ANA, hands=[[], 1, ["2D"], ["2S"]])
    m.refuse("hand_result", "el-roby.bad_result", out=ANA, hands=[[], None, ["2D"], ["2S"]])
    m.refuse("hand_result", "common.card_duplicate", out=ANA, hands=[[], ["7H", "7H"], ["7H"], ["2S"]])
    m.refuse("hand_result", "el-roby.bad_result", out=None, hands=None)  # void needs stockOut = voidHand
    m.add("hand_result", out=ANA, hands=[[], 108, ["7H", "7H"], ["2S"]])
    m.refuse("hand_result", "el-roby.mismatch", out=BEA, hands=[["2C"], [], ["7H", "7H"], ["2S"]])
    m.add("hand_result", out=ANA, hands=[[], 108, ["7H", "7H"], ["2S"]])  # the same again: a cross-check
    v = Match(options={"stockOut": "voidHand"})
    v.add("hand_started", dealer=0)
    v.add("hand_result", out=None)
    assert v.hand_score()["result"]["void"] and v.hand_score()["totals"] == [0, 0, 0, 0]


# --------------------------------------------------------------------------- re-buys and money


def busts(options: dict[str, Any], scores: list[int], hands: list[Any]) -> Match:
    m = Match(options=options, initial={"scores": scores})
    m.add("hand_started", dealer=3)
    m.add("hand_result", out=ANA, hands=hands)
    return m


def test_rebuy_price_rounding_and_denominator() -> None:
    hands = [[], cards("KC KD"), cards("2C"), cards("3C"), cards("KH KS")]
    five = ["Ana", "Bea", "Carlos", "Dani", "Eva"]
    for options, price in [
        ({"entry": 10}, 17),
        ({"entry": 10, "rebuyRounding": "down"}, 16),
        ({"entry": 10, "rebuyDenominator": "includeRebuyers"}, 10),
    ]:
        m = Match(options=options, initial={"scores": [10, 90, 20, 30, 85]}, players=five)
        m.add("hand_started", dealer=3)
        m.add("hand_result", out=ANA, hands=hands)
        m.add("rebuy", seat=1)
        m.add("rebuy", seat=4)
        r = m.hand_score()["result"]
        assert r["price"] == price, options  # pot 50 over R = 3 (or 3 + 2 re-buyers)
        assert r["pot"] == 50 + 2 * price and r["reentry"] == 33
        assert sum(r["money"]) + r["pot"] == 0


def test_rebuy_refusals() -> None:
    m = r1()
    m.refuse("rebuy", "el-roby.not_busted", seat=DANI)
    m.refuse("rebuy", "el-roby.not_busted", seat=ANA)
    m.add("rebuy", seat=BEA)
    m.refuse("rebuy", "el-roby.rebuy_twice", seat=BEA)
    m.add("hand_started", dealer=ANA)
    m.refuse("rebuy", "common.hand_in_progress", seat=CARLOS)
    m = dealt()
    m.refuse("rebuy", "common.hand_in_progress", seat=BEA)
    m = Match()
    m.refuse("rebuy", "el-roby.not_busted", seat=BEA)
    # when one player pushes every other over at once, nobody may re-buy: he wins
    m = busts({"entry": 10}, [0, 90, 95, 99], [[], cards("KC"), cards("KD"), cards("2C")])
    m.refuse("rebuy", "el-roby.rebuy_closed", seat=BEA)
    assert m.score()["end"]["winners"] == [ANA] and m.hand_score()["result"]["money"] == [30, -10, -10, -10]


def test_stakes_skip_busted_players_who_do_not_rebuy() -> None:
    m = busts({"entry": 0, "stake": 3}, [0, 90, 10, 20], [[], cards("KC"), cards("2D"), cards("2C")])
    assert m.hand_score()["result"]["stakes"] == [6, 0, -3, -3]
    m.add("rebuy", seat=BEA)
    r = m.hand_score()["result"]
    assert r["stakes"] == [9, -3, -3, -3] and r["price"] == 0 and r["reentry"] == 22


def test_money_ledger_balances_and_explains() -> None:
    m = r1()
    m.add("rebuy", seat=BEA)
    for s in m.score()["standings"]:
        assert sum(e["money"] for e in s["ledger"]) == s["money"]
    total = sum(s["money"] for s in m.score()["standings"]) + m.score()["standings"][0]["pot"]
    assert total == 0


# --------------------------------------------------------------------------- views and narration


def test_views_hide_other_hands() -> None:
    m = dealt()
    m.draw(BEA, "10H", "discard")
    public = el_roby.view(m.state, None)
    assert "cards" not in public and public["hands"][BEA]["shown"] == ["10H"] and public["hands"][BEA]["size"] == 11
    assert "4H" not in json.dumps(public)
    mine = el_roby.view(m.state, BEA)
    assert "4H" in mine["cards"] and "7H" not in mine["cards"] and "7H" not in json.dumps(mine)
    everything = el_roby.view(m.state, "all")
    assert everything["hands"][CARLOS]["cards"][:1] == ["7C"] or "7H" in everything["hands"][CARLOS]["cards"]
    with pytest.raises(ValueError):
        el_roby.view(m.state, 7)


def test_legal_moves_follow_the_turn() -> None:
    m = Match()
    assert el_roby.legal_moves(m.state) == [{"type": "hand_started", "data": {}}]
    m = dealt()
    *moves, close = el_roby.legal_moves(m.state)
    assert {(mv["type"], mv["data"]["from"]) for mv in moves} == {("draw", "stock"), ("draw", "discard")}
    assert close == {"type": "hand_result", "data": {}}  # a hand in play may be closed from the score sheet
    m = r2()
    *moves, close = el_roby.legal_moves(m.state)
    assert {"type": "meld", "data": {"seat": CARLOS, "id": 1, "cards": ["8D", "8H", "8S"]}} in moves
    assert all(mv["data"]["seat"] == CARLOS for mv in moves)
    m = r3()
    lays = [mv for mv in el_roby.legal_moves(m.state) if mv["type"] == "lay_off"]
    assert (
        lays
        and not [mv for mv in el_roby.legal_moves(m.state) if mv["type"] == "discard" and "forced" not in mv["data"]]
        == []
    )
    for mv in el_roby.legal_moves(m.state)[:-1]:
        el_roby.apply(m.state, Event(m.seq, mv["type"], mv["data"]))
    m = r1()
    assert el_roby.legal_moves(m.state) == [
        {"type": "hand_started", "data": {"dealer": ANA}},
        {"type": "rebuy", "data": {"seat": 1}},
        {"type": "rebuy", "data": {"seat": 2}},
    ]


def test_search_looks_ahead_within_the_turn() -> None:
    o = Options()

    def c(text: str) -> tuple[Any, ...]:
        return tuple(read_card(x) for x in cards(text))

    melds = (c("4H 5H 6H"), c("9C 10C JC"))
    assert can_empty(c("2H 3H 7H 8C"), melds, o, new_melds=False)  # 3♥ before 2♥, 8♣ below 9♣
    assert not can_empty(c("2H 7H 7H"), melds, o, new_melds=False)  # one 7♥ only fits once
    assert can_empty(c("2S 3S 4S KD"), (), o, new_melds=True, leave=1)
    assert not can_empty(c("2S 3S 5S KD"), (), o, new_melds=True, leave=1)


# --------------------------------------------------------------------------- a hidden recording of random playouts


def _hide(events: list[Event]) -> tuple[list[Event], el_roby.State]:
    """Record the same match as a scorer who sees no hand: ``??`` deals, unseen stock draws, a showdown at the end."""
    out = [events[0]]
    known = el_roby.start(events[0].data)
    state = known
    for i, event in enumerate(events[1:], start=1):
        data = dict(event.data)
        if event.type == "hand_started" and "hands" in data:
            data["hands"] = [None if h is None else ["??"] * 10 for h in data["hands"]]
        if event.type == "draw" and data["from"] == "stock":
            data.pop("card", None)
        e = Event(len(out) + 1, event.type, data)
        state = el_roby.apply(state, e)
        out.append(e)
        known = el_roby.apply(known, event)
        hand = known.current
        nxt = events[i + 1] if i + 1 < len(events) else None
        if (
            hand is not None
            and not hand.result_only
            and hand.over
            and not hand.void
            and state.current is not None
            and not state.current.scored
            and (nxt is None or nxt.type != "showdown")
        ):
            show = [None if s not in hand.seats else [str(c) for c in hand.known[s]] for s in range(known.n)]
            e = Event(len(out) + 1, "showdown", {"hands": show})
            state = el_roby.apply(state, e)
            out.append(e)
    return out, state


@pytest.mark.parametrize("seed", range(4))
def test_hidden_recording_scores_identically(seed: int) -> None:
    from tests.engines.drivers import playout

    events, known = playout("el-roby", seed)
    hidden_events, hidden = _hide(events)
    assert el_roby.score(hidden) == el_roby.score(known)
    assert replay(el_roby, hidden_events) == hidden


# --------------------------------------------------------------------------- schemas


def _vocabulary() -> str:
    return VOCABULARY.read_text(encoding="utf-8")


def test_vocabulary_examples_validate() -> None:
    text = _vocabulary()
    section = text[text.index("### 5.4 el-roby") : text.index("### 5.5 la-cabra")]
    log = text[text.index("**el-roby** —") : text.index("**la-cabra** —", text.index("**el-roby** —"))]
    found = 0
    for block in re.findall(r"```jsonl?\n(.*?)```", section + log, flags=re.S):
        for line in block.splitlines():
            if line.strip():
                e = json.loads(line)
                validate_event("el-roby", e["type"], e["data"])
                found += 1
    assert found >= 14
    for rel in schemas._catalogue().documents:
        if rel.startswith("el-roby/") and "examples" in schemas.load(rel):
            for example in schemas.load(rel)["examples"]:
                validate_event("el-roby", rel.split("/")[1].split(".v")[0], example)


@pytest.mark.parametrize(
    "type, data, path",
    [
        ("draw", {"seat": 0, "from": "deck"}, "$.from"),
        ("draw", {"seat": 8, "from": "stock"}, "$.seat"),
        ("draw", {"seat": 0, "from": "stock", "card": "??"}, "$.card"),
        ("meld", {"seat": 0, "id": 1, "cards": ["7H", "8H"]}, "$.cards"),
        ("meld", {"seat": 0, "id": 0, "cards": ["7H", "8H", "9H"]}, "$.id"),
        ("meld", {"seat": 0, "id": 1, "cards": ["7H", "8H", "9X"]}, "$.cards[2]"),
        ("lay_off", {"seat": 0, "meld": 1, "cards": []}, "$.cards"),
        ("discard", {"seat": 0, "card": "7H", "forced": "yes"}, "$.forced"),
        ("discard", {"seat": 0, "cards": ["7H"]}, "$.card"),
        ("hand_started", {"dealer": 0, "hands": [["??"] * 10] * 4}, "$.discard"),
        ("hand_started", {"dealer": 0, "hands": [["??"] * 9] * 4, "discard": "7H"}, "$.hands[0]"),
        ("hand_result", {"out": 0}, "$.hands"),
        ("hand_result", {"out": 0, "hands": [[], 109, None, None]}, "$.hands[1]"),
        ("rebuy", {"seat": 1, "price": 20}, "$.price"),
        ("score_claimed", {"hand": 1, "pot": -1}, "$.pot"),
        (
            "match_started",
            {"game": "el-roby", "players": ["A", "B"], "options": {"stockOut": "never"}},
            "$.options.stockOut",
        ),
    ],
)
def test_bad_payloads_fail_at_their_path(type: str, data: dict[str, Any], path: str) -> None:
    with pytest.raises(SchemaError) as caught:
        validate_event("el-roby", type, data)
    assert caught.value.path == path or any(e["path"] == path for e in caught.value.errors), caught.value


def test_narration_of_a_turn() -> None:
    m = r2()
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    m.add("discard", seat=CARLOS, card="KD")
    m.draw(DANI, "QC")
    assert m.texts[-2:] == ["Carlos discards K♦", "Dani draws from the stock"]


# --------------------------------------------------------------------------- closing a hand from the sheet (VOCABULARY.md §4)


def test_a_hand_in_play_closed_from_the_sheet_scores_from_the_facts() -> None:
    m = dealt({"entry": 10, "stake": 2}, initial={"scores": [40, 70, 75, 97]})
    m.draw(BEA)
    m.add("discard", seat=BEA, card="AC")
    m.draw(CARLOS, "AC", source="discard")
    m.add("discard", seat=CARLOS, card="AS")  # the scorer stops writing here
    m.add("hand_result", out=ANA, hands=[0, 35, 28, 2])
    hand = m.hand_score()
    assert hand["status"] == "scored" and hand["points"] == [0, 35, 28, 2] and hand["totals"] == [40, 105, 103, 99]
    assert hand["closedFromSheet"] == {"afterMove": 4, "seq": 7}
    assert m.texts[-1].startswith("Hand 1 closed from the score sheet after move 4: Ana made Roby")
    m.refuse("draw", "el-roby.hand_over", seat=DANI, **{"from": "stock"})
    m.add("rebuy", seat=BEA)


def test_closing_from_the_sheet_refuses_more_cards_than_a_seat_can_end_with() -> None:
    m = r2()  # Carlos has drawn: 11 cards, and must still discard
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    e = m.refuse(
        "hand_result",
        "el-roby.result_conflict",
        out=ANA,
        hands=[[], cards("4D 5D"), cards("4C 5C 6C KD 2H 3S 9H JC"), cards("AD KC")],
    )
    assert (
        e.message
        == "Carlos holds 8 cards and must still discard, and no turn adds a card: at most 7 at the end; the sheet lists 8"
    )
    e = m.refuse("hand_result", "el-roby.result_conflict", out=CARLOS, hands=[cards("2C 3C"), 23, [], cards("AD KC")])
    assert e.message == "Bea holds 2 cards: at most 2 cards at the end, worth at most 22 points; the sheet says 23"
    m.add("hand_result", out=CARLOS, hands=[cards("2C 3C"), 22, [], cards("AD KC")])
    assert m.hand_score()["points"] == [5, 22, 0, 21]


def test_closing_from_the_sheet_refuses_a_card_whose_copies_are_melded() -> None:
    m = Match.at(
        hands=[cards("2C 9H"), cards("AC 2D 3D 4D"), cards("5C 5D 6D 7D 8D 9S"), cards("QC KC")],
        melds=[(ANA, cards("7H 7H 7S")), (BEA, cards("5S 6S 7S"))],
        turn=DANI,
    )
    e = m.refuse("hand_result", "el-roby.result_conflict", out=DANI, hands=[cards("2C 7H"), 15, 40, []])
    assert e.message == "7♥ is melded (meld 1) and the two packs hold it twice; the sheet puts one in Ana's hand"
    e = m.refuse("hand_result", "el-roby.result_conflict", out=DANI, hands=[cards("2C 9H"), cards("7S 2D"), 40, []])
    assert e.message == "7♠ is melded (melds 1 and 2) and the two packs hold it twice; the sheet puts one in Bea's hand"
    m.add("hand_result", out=DANI, hands=[cards("2C 9H"), cards("AC 2D"), 40, []])
    assert m.hand_score()["points"] == [11, 13, 40, 0]
