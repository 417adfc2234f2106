"""Cabo engine: every rule of docs/RULES.md §3 and VOCABULARY.md §5.3, legal and illegal, and the unknown-card flows."""

from __future__ import annotations

import json
import random
import re
from functools import lru_cache
from typing import Any

import pytest

from tests.conftest import VOCABULARY

import schemas
from engines import ENGINES, cabo
from engines.base import COMMON_EVENTS, Event, RuleViolation, replay
from schemas import SchemaError, validate_event
from tests.engines.driver_cabo import CaboDriver, expected_round
from tests.engines.drivers import run

from tests.engines.cabo_helpers import A, B, C, D, HIDDEN4, PLAYERS, U, Match, cb4  # noqa: F401


def vocabulary() -> str:
    return VOCABULARY.read_text(encoding="utf-8")


def vocabulary_log() -> list[tuple[str, dict[str, Any]]]:
    text = vocabulary()
    section = text[text.index("**cabo** —") :]
    block = re.findall(r"```jsonl\n(.*?)```", section, flags=re.S)[0]
    return [(e["type"], e["data"]) for e in map(json.loads, block.strip().splitlines())]


def record(events: list[tuple[str, dict[str, Any]]]) -> Match:
    first = events[0][1]
    m = Match(first.get("options"), (first.get("initial") or {}).get("totals"), first["players"])
    for type, data in events[1:]:
        if type != "score_claimed":
            m.add(type, **data)
    return m


# --------------------------------------------------------------------------- describe, start


def test_registered_and_described() -> None:
    assert ENGINES["cabo"] is cabo
    d = cabo.describe()
    assert d["game"] == "cabo" and d["players"] == {"min": 2, "max": 5, "edition2Max": 4} and d["direction"] == "CW"
    opts = d["options"]
    assert opts["edition"] == {**opts["edition"], "values": [1, 2], "default": 1}
    assert opts["swapAny"]["default"] is False and opts["lockCaller"]["default"] is False
    assert (
        opts["wrongMultiPenalty"]["values"] == ["discard", "keep"] and opts["wrongMultiPenalty"]["default"] == "discard"
    )
    assert all(o["rule"].startswith("/rules/cabo#option-") and o["description"] for o in opts.values())
    assert set(d["events"]) == set(schemas.event_types("cabo"))
    json.dumps(d)


def test_start_defaults_and_edition_two_bundle() -> None:
    s = cabo.start({"game": "cabo", "players": ["A", "B"], "target": {"over": 100}})
    assert s.options == cabo.Options(1, False, False, "discard") and s.totals == (0, 0)
    s2 = cabo.start({"game": "cabo", "players": ["A", "B"], "options": {"edition": 2}})
    assert s2.options.wrongMultiPenalty == "keep" and s2.options.caller_penalty == 10
    s3 = cabo.start({"game": "cabo", "players": ["A", "B"], "options": {"edition": 2, "wrongMultiPenalty": "discard"}})
    assert s3.options.wrongMultiPenalty == "discard"
    assert cabo.start({"game": "cabo", "players": list("ABCDE")}).seats == 5
    assert cabo.start(
        {"game": "cabo", "players": ["A", "B"], "options": {"edition": 2}, "initial": {"totals": [100, 0]}}
    ).totals == (100, 0)


@pytest.mark.parametrize(
    "data, code",
    [
        ({"players": ["A"]}, "cabo.players"),
        ({"players": list("ABCDEF")}, "cabo.players"),
        ({"players": list("ABCDE"), "options": {"edition": 2}}, "cabo.players"),
        ({"players": ["A", "A"]}, "cabo.players"),
        ({"target": {"over": 50}}, "common.bad_target"),
        ({"options": {"edition": 3}}, "common.bad_option"),
        ({"options": {"edition": True}}, "common.bad_option"),
        ({"options": {"swapAny": "yes"}}, "common.bad_option"),
        ({"options": {"wrongMultiPenalty": "burn"}}, "common.bad_option"),
        ({"options": {"snap": True}}, "common.bad_option"),
        ({"initial": {"totals": [1, 2, 3]}}, "common.bad_initial"),
        ({"initial": {"totals": [101, 2]}}, "common.bad_initial"),
        ({"initial": {"totals": [100, 2]}}, "common.bad_initial"),
        ({"game": "la-cabra"}, "common.wrong_game"),
    ],
)
def test_start_refuses(data: dict[str, Any], code: str) -> None:
    with pytest.raises(RuleViolation) as info:
        cabo.start({"game": "cabo", "players": ["A", "B"], **data})
    assert info.value.code == code


# --------------------------------------------------------------------------- the deal


def test_deal_four_face_down_cards_and_the_first_discard() -> None:
    m = Match()
    m.deal(C, discard="7")
    r = m.rnd
    assert [len(row) for row in r.layouts] == [4, 4, 4, 4] and len(r.draw) == 52 - 16 - 1 and r.live() == 52
    v = cabo.view(m.state, None)
    assert v["discardPile"] == ["7"] and v["drawPile"] == 35 and v["turn"] == C and v["rows"][0]["cards"] == [U] * 4
    assert "Carl deals" in m.texts[-1]
    assert [mv["type"] for mv in cabo.legal_moves(m.state)].count("initial_peek") == 4


def test_deal_refusals() -> None:
    m = Match()
    m.refuse("hand_started", "cabo.bad_deal", dealer=0, layouts=HIDDEN4)
    m.refuse("hand_started", "cabo.bad_deal", dealer=0, layouts=HIDDEN4[:3], discard="5")
    m.refuse(
        "hand_started",
        "common.card_duplicate",
        dealer=0,
        layouts=[["13", "13", U, U], [U] * 4, [U] * 4, [U] * 4],
        discard="13",
    )
    m.refuse("hand_started", "common.card_hidden", dealer=0, layouts=HIDDEN4, discard="??")
    m.refuse("hand_started", "common.bad_seat", dealer=4, layouts=HIDDEN4, discard="1")
    m.deal(0)
    m.refuse("hand_started", "common.hand_in_progress", dealer=0)


# --------------------------------------------------------------------------- initial look


def test_initial_look_once_before_the_first_turn() -> None:
    m = Match()
    m.deal(A, [["1", "2", "3", "4"], [U] * 4, [U] * 4, [U] * 4])
    m.add("initial_peek", seat=C, slots=[2, 4], cards=["8", U])
    m.add("initial_peek", seat=A, slots=[1, 3])
    assert m.rows(A)[0] == ["1", U, "3", U]  # the scorer knew the deal; Anna saw two
    assert m.rows(None)[0] == [U] * 4 and m.rows(B)[0] == [U] * 4
    assert m.rows(C)[2] == [U, "8", U, U] and m.rows(A)[2] == [U] * 4
    m.refuse("initial_peek", "cabo.look_twice", seat=A, slots=[2, 4])
    m.refuse("initial_peek", "cabo.bad_slots", seat=B, slots=[2, 2])
    m.refuse("initial_peek", "cabo.bad_slot", seat=B, slots=[1, 5])
    m.add("draw", seat=A)
    m.refuse("initial_peek", "cabo.look_closed", seat=B, slots=[1, 2])
    assert m.texts[1] == "Carl looks at slots 2 and 4"


def test_initial_look_contradicting_the_written_deal() -> None:
    m = Match()
    m.deal(A, [["1", "2", "3", "4"], [U] * 4, [U] * 4, [U] * 4])
    err = m.refuse("initial_peek", "common.card_unavailable", seat=A, slots=[1, 2], cards=["1", "9"])
    assert err.seq == 2 and "entry 2" in err.message


# --------------------------------------------------------------------------- turns


def test_turn_order_and_the_turn_after_a_draw() -> None:
    m = Match()
    m.deal(D)
    m.refuse("draw", "common.not_your_turn", seat=A)
    m.refuse("discard", "cabo.no_draw", seat=D, card="5")
    m.refuse("replace", "cabo.no_draw", seat=D, slots=[1], cards=["5"])
    m.add("draw", seat=D)
    m.refuse("draw", "cabo.finish_turn", seat=D)
    m.refuse("call_cabo", "cabo.finish_turn", seat=D)
    m.refuse("take_discard", "cabo.finish_turn", seat=D, slots=[1], cards=["1"])
    m.refuse("discard", "common.not_your_turn", seat=A, card="3")
    m.refuse("discard", "common.card_hidden", seat=D, card="??")
    m.add("discard", seat=D, card="3")
    assert m.rnd.turn == A  # clockwise: seat 3 → seat 0
    assert cabo.view(m.state, None)["discardPile"] == ["5", "3"]
    assert m.texts[-2:] == ["Dora draws a card", "Dora discards the drawn 3"]


def test_take_the_discard_and_replace_one_card() -> None:
    m = Match()
    m.deal(A, discard="2")
    m.add("take_discard", seat=A, slots=[3], cards=["10"])
    assert cabo.view(m.state, None)["discardPile"] == ["10"]
    assert m.rows(None)[0] == [U, U, "2", U] and m.rows(B)[0] == [U, U, "2", U]  # everyone saw the 2 taken
    assert cabo.view(m.state, None)["rows"][0]["faceUp"] == []
    m.refuse("take_discard", "cabo.bad_slot", seat=B, slots=[5], cards=["1"])
    m.refuse("take_discard", "cabo.bad_claim", seat=B, slots=[1, 2], cards=["1"])
    m.refuse("take_discard", "cabo.bad_claim", seat=B, slots=[1], cards=["1"], drawn="3")
    assert "Anna takes the 2 from the discard pile into slot 3 and throws away the 10 that was there" in m.texts[-1]


def test_take_the_discard_edition_two_stays_face_up() -> None:
    m = Match({"edition": 2})
    m.deal(A, discard="2")
    m.add("take_discard", seat=A, slots=[3], cards=["10"])
    assert cabo.view(m.state, None)["rows"][0]["faceUp"] == [3]


def test_multi_card_claim_with_a_taken_discard() -> None:
    m = Match()
    m.deal(A, discard="0")
    m.add("take_discard", seat=A, slots=[2, 4], cards=["6", "6"])
    assert m.rows()[0] == [U, "0", U] and cabo.view(m.state)["discardPile"] == ["6", "6"]
    m.add("take_discard", seat=B, slots=[1, 2], cards=["3", "4"])  # wrong: the 6 goes back
    assert m.rows(None)[1] == ["3", "4", U, U] and cabo.view(m.state)["discardPile"] == ["6", "6"]


def test_cb4_multi_replacement_success() -> None:
    m = cb4()
    m.add("replace", seat=B, slots=[1, 3], cards=["9", "9"])
    assert m.rows()[1] == ["2", "4", "11"] and sum(int(c) for c in m.rows()[1]) == 17
    assert cabo.view(m.state)["discardPile"] == ["5", "9", "9"]
    assert m.rows(B)[1] == ["2", U, U] and m.rows(A)[1] == [U, U, U]  # only Ben knows the 2


def test_cb4_wrong_claim_discard_penalty() -> None:
    m = cb4()
    m.add("replace", seat=B, slots=[1, 4], cards=["9", "11"])
    assert m.rows()[1] == ["9", "4", "9", "11"] and cabo.view(m.state)["discardPile"][-1] == "2"
    assert m.rows(A)[1] == ["9", U, U, "11"]  # the shown cards are known to all
    assert "do not match" in m.texts[-1]


def test_cb4_wrong_claim_keep() -> None:
    m = cb4({"wrongMultiPenalty": "keep"})
    m.add("replace", seat=B, slots=[1, 4], cards=["9", "11"])
    assert m.rows()[1] == ["9", "4", "9", "11", "2"] and cabo.view(m.state)["discardPile"] == ["5"]
    m2 = cb4({"edition": 2})  # edition 2 keeps by default
    m2.add("replace", seat=B, slots=[1, 4], cards=["9", "11"])
    assert len(m2.rnd.layouts[B]) == 5


def test_wrong_claim_needs_the_drawn_value_when_nobody_wrote_it() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A)
    m.refuse("replace", "cabo.drawn_required", seat=A, slots=[1, 2], cards=["3", "4"])
    m.add("replace", seat=A, slots=[1, 2], cards=["3", "4"], drawn="8")
    assert cabo.view(m.state)["discardPile"] == ["5", "8"]


def test_claims_refused() -> None:
    m = cb4()
    m.refuse("replace", "cabo.bad_slots", seat=B, slots=[1, 1], cards=["9", "9"])
    m.refuse("replace", "cabo.bad_slots", seat=B, slots=[], cards=[])
    m.refuse("replace", "cabo.bad_claim", seat=B, slots=[1, 3], cards=["9"])
    m.refuse("replace", "common.card_unavailable", seat=B, slots=[2], cards=["5"])  # the deal says 4
    m.refuse("replace", "common.card_unavailable", seat=B, slots=[1, 3], cards=["9", "9"], drawn="3")  # the draw says 2


def test_a_claim_that_contradicts_a_peek_names_the_peek() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A, card="7")
    m.add("peek", seat=A, card="7", slot=2, value="6")
    m.add("draw", seat=B)
    m.add("discard", seat=B, card="1")
    m.add("draw", seat=C)
    m.add("swap", seat=C, card="12", first={"seat": C, "slot": 4}, second={"seat": A, "slot": 2})
    m.add("draw", seat=D)
    m.add("discard", seat=D, card="0")
    m.add("draw", seat=A)
    m.add("discard", seat=A, card="1")
    m.add("draw", seat=B)
    m.add("discard", seat=B, card="1")
    m.add("draw", seat=C)
    err = m.refuse("replace", "common.card_unavailable", seat=C, slots=[4], cards=["3"])
    assert err.seq == 4 and "entry 4" in err.message  # Anna's 6 moved to Carl's slot 4
    m.add("replace", seat=C, slots=[4], cards=["6"])


# --------------------------------------------------------------------------- actions


def test_discard_checks_the_written_draw() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A, card="4")
    err = m.refuse("discard", "common.card_unavailable", seat=A, card="5")
    assert err.seq == 3


def test_peek_is_private() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A, card="8")
    assert cabo.view(m.state, A)["drawn"]["card"] == "8" and cabo.view(m.state, B)["drawn"]["card"] == U
    m.refuse("peek", "cabo.bad_slot", seat=A, card="8", slot=5)
    m.add("peek", seat=A, card="8", slot=3, value="12")
    assert m.rows(A)[0] == [U, U, "12", U]
    assert all(m.rows(v)[0] == [U] * 4 for v in (None, B, C, D))
    assert "12" not in m.texts[-1] and "peeks at own slot 3" in m.texts[-1]


@pytest.mark.parametrize(
    "kind, extra",
    [
        ("peek", {"slot": 1}),
        ("spy", {"target": {"seat": 1, "slot": 1}}),
        ("swap", {"first": {"seat": 0, "slot": 1}, "second": {"seat": 1, "slot": 1}}),
    ],
)
@pytest.mark.parametrize("card", ["0", "5", "6", "13"])
def test_actions_need_their_cards(kind: str, extra: dict[str, Any], card: str) -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A)
    err = m.refuse(kind, "cabo.wrong_action", seat=A, card=card, **extra)
    assert f"{card} has no action" in err.message


def test_each_action_with_the_other_actions_card() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A)
    m.refuse("peek", "cabo.wrong_action", seat=A, card="9", slot=1)
    m.refuse("spy", "cabo.wrong_action", seat=A, card="7", target={"seat": 1, "slot": 1})
    m.refuse(
        "swap", "cabo.wrong_action", seat=A, card="10", first={"seat": 0, "slot": 1}, second={"seat": 1, "slot": 1}
    )
    for card in ("7", "8"):
        cabo.apply(m.state, Event(m.seq, "peek", {"seat": A, "card": card, "slot": 1}))
    for card in ("9", "10"):
        cabo.apply(m.state, Event(m.seq, "spy", {"seat": A, "card": card, "target": {"seat": 2, "slot": 4}}))
    for card in ("11", "12"):
        cabo.apply(
            m.state,
            Event(
                m.seq,
                "swap",
                {"seat": A, "card": card, "first": {"seat": 0, "slot": 4}, "second": {"seat": 3, "slot": 1}},
            ),
        )


def test_spy_on_another_player_only() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A)
    m.refuse("spy", "cabo.spy_own", seat=A, card="9", target={"seat": 0, "slot": 1})
    m.refuse("spy", "cabo.bad_slot", seat=A, card="9", target={"seat": 1, "slot": 7})
    m.refuse("spy", "common.bad_seat", seat=A, card="9", target={"seat": 4, "slot": 1})
    m.add("spy", seat=A, card="9", target={"seat": 2, "slot": 1}, value="0")
    assert m.rows(A)[2] == ["0", U, U, U] and m.rows(C)[2] == [U] * 4 and m.rows(None)[2] == [U] * 4


def test_swap_scope_default() -> None:
    m = Match()
    m.deal(A, [["1", "2", "3", "4"], ["5", "6", "7", "8"], [U] * 4, [U] * 4])
    m.add("initial_peek", seat=A, slots=[1, 2], cards=["1", "2"])
    m.add("draw", seat=A)
    err = m.refuse(
        "swap", "cabo.swap_own", seat=A, card="11", first={"seat": 0, "slot": 1}, second={"seat": 0, "slot": 2}
    )
    assert "one's own two cards" in err.message
    m.refuse("swap", "cabo.swap_scope", seat=A, card="11", first={"seat": 1, "slot": 1}, second={"seat": 2, "slot": 1})
    m.refuse("swap", "cabo.swap_scope", seat=A, card="11", first={"seat": 1, "slot": 1}, second={"seat": 0, "slot": 1})
    m.add("swap", seat=A, card="11", first={"seat": 0, "slot": 1}, second={"seat": 1, "slot": 4})
    assert m.rows()[0] == ["8", "2", "3", "4"] and m.rows()[1] == ["5", "6", "7", "1"]
    assert m.rows(A)[1] == [U, U, U, "1"] and m.rows(A)[0] == [U, "2", U, U]  # Anna still knows her 1, now Ben's
    assert m.rows(B)[1] == [U] * 4


def test_swap_any_two_cards_with_swap_any() -> None:
    m = Match({"swapAny": True})
    m.deal(A, [["1", "2", "3", "4"], ["5", "6", "7", "8"], [U] * 4, [U] * 4])
    m.add("draw", seat=A)
    m.refuse("swap", "cabo.swap_own", seat=A, card="12", first={"seat": 1, "slot": 1}, second={"seat": 1, "slot": 2})
    m.add("swap", seat=A, card="12", first={"seat": 1, "slot": 1}, second={"seat": 2, "slot": 1})
    assert m.rows()[1][0] == U and m.rows()[2][0] == "5"


def _called(options: dict[str, Any] | None = None) -> Match:
    m = Match(options)
    m.deal(A)
    m.add("call_cabo", seat=A)  # calling on one's first turn is allowed
    m.add("draw", seat=B)
    return m


def test_swap_with_the_caller_default_and_locked() -> None:
    m = _called()
    m.add("swap", seat=B, card="11", first={"seat": 1, "slot": 1}, second={"seat": 0, "slot": 1})
    locked = _called({"lockCaller": True})
    err = locked.refuse(
        "swap", "cabo.caller_locked", seat=B, card="11", first={"seat": 1, "slot": 1}, second={"seat": 0, "slot": 1}
    )
    assert "Anna called CABO" in err.message
    locked.add("swap", seat=B, card="11", first={"seat": 1, "slot": 1}, second={"seat": 2, "slot": 1})
    any_locked = _called({"lockCaller": True, "swapAny": True})
    any_locked.refuse(
        "swap", "cabo.caller_locked", seat=B, card="11", first={"seat": 2, "slot": 1}, second={"seat": 0, "slot": 1}
    )


# --------------------------------------------------------------------------- CABO and the round's end


def test_one_cabo_per_round_and_one_more_turn_each() -> None:
    m = Match()
    m.deal(C)
    m.add("draw", seat=C)
    m.add("discard", seat=C, card="2")
    m.add("call_cabo", seat=D)
    assert "Dora calls CABO" in m.texts[-1]
    err = m.refuse("call_cabo", "cabo.second_call", seat=A)
    assert err.seq == 5 and "Dora already called it at entry 5" in err.message
    m.refuse("call_cabo", "cabo.second_call", seat=D)
    m.refuse("draw", "common.not_your_turn", seat=D)
    for seat in (A, B):
        m.add("draw", seat=seat)
        m.add("discard", seat=seat, card="4")
        assert not m.rnd.over
    m.refuse("draw", "common.not_your_turn", seat=D)  # the caller gets no further turn
    m.add("take_discard", seat=C, slots=[1], cards=["6"])
    assert m.rnd.over and m.rnd.score is None
    m.refuse("draw", "cabo.round_over", seat=D)
    m.refuse("call_cabo", "cabo.round_over", seat=D)
    h = m.hand()
    assert h["status"] == "incomplete" and len(h["missing"]) == 15 and {"seat": 2, "slot": 1} not in h["missing"]
    assert h["points"] is None
    m.refuse("hand_started", "common.hand_in_progress", dealer=A)


def test_showdown_only_after_the_round() -> None:
    m = Match()
    m.deal(A)
    m.refuse("showdown", "cabo.round_not_over", layouts=HIDDEN4)
    m.refuse(
        "hand_result", "common.card_duplicate", layouts=[["1"] * 4] * 4, caller=0
    )  # a close from the sheet is checked


def _finished(
    dealt: list[list[str]] | None = None, options: dict[str, Any] | None = None, initial: list[int] | None = None
) -> Match:
    """Anna calls at once; Ben, Carl and Dora each draw and discard a 1."""
    m = Match(options, initial)
    m.deal(A, dealt, discard="9")
    m.add("call_cabo", seat=A)
    for seat in (B, C, D):
        m.add("draw", seat=seat)
        m.add("discard", seat=seat, card="1")
    assert m.rnd.over
    return m


def test_incomplete_round_names_the_missing_slots_and_reveals_complete_it() -> None:
    m = _finished()
    rows = [["0", "1", "2", "3"], ["4", "4", "4", "4"], ["5", "5", "5", "5"], ["6", "6", "6", "6"]]
    m.add("showdown", layouts=[rows[0], rows[1], rows[2], ["6", "6", U, "6"]])
    h = m.hand()
    assert h["status"] == "incomplete" and h["missing"] == [{"seat": 3, "slot": 3}]
    assert "Dora's slot 3" in h["lines"][0]["reason"]
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 2, "card": "6"}])
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": 3, "slot": 3, "card": "4"}])
    m.refuse("reveal", "common.card_unavailable", cards=[{"seat": 3, "slot": 1, "card": "7"}])
    m.add("reveal", cards=[{"seat": 3, "slot": 3, "card": "6"}])
    h = m.hand()
    assert h["status"] == "scored" and h["result"]["sums"] == [6, 16, 20, 24] and h["points"] == [0, 16, 20, 24]
    assert m.rows(B)[3] == ["6", "6", "6", "6"]  # shown at the showdown: everyone sees it
    m.add("hand_started", dealer=A)


def test_showdown_contradicting_a_peek_is_refused_naming_the_peek() -> None:
    m = Match()
    m.deal(A, discard="9")
    m.add("draw", seat=A, card="7")
    m.add("peek", seat=A, card="7", slot=2, value="3")  # seq 4
    m.add("call_cabo", seat=B)
    for seat in (C, D, A):
        m.add("draw", seat=seat)
        m.add("discard", seat=seat, card="1")
    err = m.refuse(
        "showdown", "common.card_unavailable", layouts=[["0", "2", "3", "4"], ["4"] * 4, ["5"] * 4, ["6"] * 4]
    )
    assert err.seq == 4 and "Anna's slot 2" in err.message
    m.add("showdown", layouts=[["0", "3", "2", "8"], ["4"] * 4, ["5"] * 4, ["6"] * 4])
    assert m.hand()["status"] == "scored"


def test_a_reveal_or_showdown_with_a_third_13_is_refused() -> None:
    m = _finished()
    err = m.refuse(
        "showdown", "common.card_duplicate", layouts=[["13", "13", "13", "0"], ["4"] * 4, ["5"] * 4, ["6"] * 4]
    )
    assert "the deck holds 2 cards of value 13" in err.message
    m.add("showdown", layouts=[["13", "13", U, "0"], ["4"] * 4, ["5"] * 4, ["6"] * 4])
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": 0, "slot": 3, "card": "13"}])
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": 0, "slot": 3, "card": "4"}])  # four 4s are in Ben's row
    m.add("reveal", cards=[{"seat": 0, "slot": 3, "card": "2"}])


def test_reveal_of_a_draw_and_of_an_initial_look() -> None:
    m = Match()
    m.deal(A)
    m.add("initial_peek", seat=B, slots=[1, 2])  # seq 3, values not noted
    m.add("draw", seat=A)  # seq 4, unseen by the scorer
    m.add("replace", seat=A, slots=[1], cards=["9"])
    m.add("reveal", cards=[{"seq": 4, "card": "3"}, {"seq": 3, "index": 1, "card": "8"}])
    assert m.rows(A)[0] == ["3", U, U, U] and m.rows(B)[0] == [U] * 4
    assert m.rows(B)[1] == [U, "8", U, U] and m.rows(A)[1] == [U] * 4
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 3, "card": "8"}])
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 5, "card": "8"}])
    m.refuse("reveal", "common.card_unavailable", cards=[{"seq": 4, "card": "4"}])
    m.refuse("reveal", "cabo.bad_slot", cards=[{"seat": 1, "slot": 9, "card": "4"}])
    m.add("reveal", cards=[{"seat": 2, "slot": 2, "card": "4"}])  # the scorer learns it; nobody at the table saw it
    assert all(m.rows(v)[2] == [U] * 4 for v in (None, A, B, C, D)) and m.rows()[2][1] == "4"


# --------------------------------------------------------------------------- draw pile exhaustion


def _burn(m: Match, draws: int, known: list[str]) -> list[str]:
    """Draw and discard ``draws`` cards in turn, writing values the deck still has; return the values left."""
    values = [str(v) for v in range(14) for _ in range(2 if v in (0, 13) else 4)]
    for v in known:
        values.remove(v)
    for _ in range(draws):
        seat = m.rnd.turn
        m.add("draw", seat=seat)
        m.add("discard", seat=seat, card=values.pop(0))
    return values


def test_reshuffle_when_the_draw_pile_is_empty() -> None:
    m = Match(players=["Anna", "Ben"])
    m.deal(A, [["0", "0", "13", "13"], [U] * 4], discard="12")
    assert len(m.rnd.draw) == 43
    _burn(m, 43, ["0", "0", "13", "13", "12"])
    assert cabo.view(m.state)["drawPile"] == 0 and len(m.rnd.discard) == 44
    top = cabo.view(m.state)["discardPile"][-1]
    m.add("draw", seat=m.rnd.turn)
    v = cabo.view(m.state)
    assert v["discardPile"] == [top] and v["drawPile"] == 42 and m.rnd.live() == 52
    assert "reshuffled" in m.texts[-1]
    # the new pile holds only the discarded values: no 0 or 13 can come from it
    err = m.refuse("discard", "common.card_unavailable", seat=m.rnd.turn, card="0")
    assert err.seq == m.seq - 1 and "reshuffled" in err.message
    m.add("discard", seat=m.rnd.turn, card="1")


def test_edition_two_round_ends_when_the_draw_pile_runs_out() -> None:
    m = Match({"edition": 2}, players=["Anna", "Ben"])
    m.deal(A, [["0", "1", "2", "3"], ["4", "5", "6", "7"]], discard="12")
    left = _burn(m, 42, ["0", "1", "2", "3", "4", "5", "6", "7", "12"])
    assert not m.rnd.over and left
    seat = m.rnd.turn
    m.add("draw", seat=seat)
    assert not m.rnd.over  # the drawing turn is played out
    m.add("discard", seat=seat, card=left[0])
    assert m.rnd.over and m.rnd.deck_out and "draw pile ran out" in m.texts[-1]
    h = m.hand()
    assert h["result"]["caller"] is None and h["points"] == [0, 22] and h["result"]["winners"] == [0]


# --------------------------------------------------------------------------- scoring (docs/RULES.md §3.7)


def test_cb1_caller_not_lowest_tie_and_exact_100() -> None:
    m = Match(initial=[20, 93, 85, 40])
    m.add("hand_started", dealer=A)
    m.add(
        "hand_result", layouts=[["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]], caller=A
    )
    h = m.hand()
    assert h["points"] == [15, 0, 15, 0] and h["totals"] == [35, 93, 50, 40]
    assert h["result"] == {
        **h["result"],
        "sums": [10, 7, 15, 7],
        "caller": 0,
        "kamikaze": None,
        "winners": [1, 3],
        "resets": [2],
    }
    assert [ln["points"] for ln in h["lines"] if ln["seat"] == C] == [15, -50]
    assert "called CABO but 7 (Ben and Dora) is lowest" in h["lines"][0]["reason"]
    assert cabo.allowed_dealers(m.state) == [D]
    err = m.refuse("hand_started", "cabo.wrong_dealer", dealer=B)
    assert "Dora" in err.message and "lowest total" in err.message
    assert not cabo.score(m.state)["end"]["over"]


def test_cb1_edition_two_comparison() -> None:
    m = Match({"edition": 2}, initial=[20, 93, 85, 40])
    m.add("hand_started", dealer=A)
    m.add(
        "hand_result", layouts=[["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]], caller=A
    )
    h = m.hand()
    assert h["points"] == [20, 7, 15, 7] and h["totals"] == [40, 50, 50, 47] and h["result"]["resets"] == [1, 2]
    assert cabo.allowed_dealers(m.state) == [D]  # the lowest sums (Ben 7, Dora 7): Dora has the lower total
    m.add("hand_started", dealer=D)  # Ben and Carl reach exactly 100 again: no second reset
    m.add(
        "hand_result",
        layouts=[["0"], ["5", "5", "10", "10", "9", "11"], ["5", "5", "10", "10", "9", "11"], ["1"]],
        caller=A,
    )
    h = m.hand()
    assert h["totals"] == [40, 100, 100, 48] and h["result"]["resets"] == []


def test_cb2_caller_tied_lowest_is_the_vocabulary_log() -> None:
    m = record(vocabulary_log())
    h = m.hand(2)
    assert h["status"] == "scored" and h["points"] == [9, 0, 5, 14] and h["totals"] == [44, 93, 55, 54]
    assert h["result"]["winners"] == [1] and h["result"]["dealt"] == [
        ["2", "3", "4", "12"],
        ["9", "3", "9", "0"],
        ["11", "1", "2", "1"],
        ["4", "7", "1", "2"],
    ]
    assert cabo.allowed_dealers(m.state) == [B]
    assert replay(cabo, m.events) == m.state


def test_cb3_kamikaze_ends_the_game() -> None:
    m = Match(initial=[44, 93, 55, 54])
    m.add("hand_started", dealer=B)
    m.add(
        "hand_result",
        layouts=[["5", "6", "7", "8"], ["9", "9", "9"], ["12", "13", "12", "13"], ["0", "1", "2"]],
        caller=D,
    )
    h = m.hand()
    assert h["result"]["kamikaze"] == 2 and h["points"] == [50, 50, 0, 50] and h["totals"] == [94, 143, 55, 104]
    assert h["result"]["winners"] == [2] and "no" not in str(h["result"]["resets"])
    end = cabo.score(m.state)["end"]
    assert (
        end["over"]
        and end["winners"] == [2]
        and end["rule"] == "/rules/cabo#scoring-match"
        and "Ben and Dora went over 100" in end["reason"]
    )
    assert [s["status"] for s in cabo.score(m.state)["standings"]] == ["out", "out", "winner", "out"]
    assert cabo.is_over(m.state) and cabo.legal_moves(m.state) == []
    m.refuse("hand_started", "common.match_over", dealer=C)


def test_kamikaze_needs_exactly_those_four_cards_and_reaches_100() -> None:
    m = Match(initial=[50, 0, 0, 0])
    m.add("hand_started", dealer=A)
    m.add("hand_result", layouts=[["12", "12", "13"], ["13", "0"], ["1"], ["2"]], caller=A)
    assert m.hand()["result"]["kamikaze"] is None
    m2 = Match(initial=[50, 0, 0, 0])
    m2.add("hand_started", dealer=A)
    m2.add("hand_result", layouts=[["1"], ["13", "12", "13", "12"], ["1"], ["2"]], caller=A)
    h = m2.hand()
    assert h["totals"] == [50, 0, 50, 50] and h["result"]["resets"] == [0]  # 50 + 50 = 100 → 50


@pytest.mark.parametrize("edition", [1, 2])
@pytest.mark.parametrize(
    "rows, caller",
    [
        ([["1"], ["2"], ["3"]], 0),
        ([["1"], ["2"], ["3"]], 1),
        ([["4"], ["2"], ["2"]], 0),
        ([["2"], ["2"], ["3"]], 1),
        ([["0", "0"], ["1"], ["5"]], 2),
        ([["3", "3"], ["6"], ["6"]], 1),
    ],
)
def test_scoring_table(edition: int, rows: list[list[str]], caller: int) -> None:
    m = Match({"edition": edition}, players=["A", "B", "C"])
    m.add("hand_started", dealer=0)
    m.add("hand_result", layouts=rows, caller=caller)
    expected, winners = expected_round(edition, [[int(c) for c in r] for r in rows], caller)
    h = m.hand()
    assert h["points"] == expected and h["result"]["winners"] == winners
    assert sum(ln["points"] for ln in h["lines"]) == sum(h["totals"])


def test_caller_penalty_five_and_ten() -> None:
    for edition, pts in ((1, [0, 12, 3]), (2, [1, 17, 3])):
        m = Match({"edition": edition}, players=["A", "B", "C"])
        m.add("hand_started", dealer=0)
        m.add("hand_result", layouts=[["1"], ["7"], ["3"]], caller=1)
        assert m.hand()["points"] == pts


def test_game_end_ties_share_and_next_start_player_lot() -> None:
    m = Match(initial=[90, 90, 30, 30])
    m.add("hand_started", dealer=A)
    m.add(
        "hand_result", layouts=[["5", "5"], ["1", "2"], ["1", "2"], ["9", "9"]], caller=A
    )  # Ben and Carl lowest, totals 90/30
    assert cabo.allowed_dealers(m.state) == [C]
    m2 = Match(initial=[30, 30, 0, 0])
    m2.add("hand_started", dealer=A)
    m2.add("hand_result", layouts=[["1", "2"], ["1", "2"], ["9"], ["9"]], caller=C)
    assert cabo.allowed_dealers(m2.state) == [A, B]  # a lot decides: either may start
    m2.add("hand_started", dealer=B)
    m3 = Match(initial=[95, 60, 60, 99])
    m3.add("hand_started", dealer=A)
    m3.add("hand_result", layouts=[["9"], ["1"], ["1"], ["3"]], caller=B)
    end = cabo.score(m3.state)["end"]
    assert m3.hand()["totals"] == [104, 60, 61, 102] and end["winners"] == [1]
    m4 = Match(initial=[95, 60, 60, 99], players=PLAYERS)
    m4.add("hand_started", dealer=A)
    m4.refuse("hand_result", "cabo.bad_result", layouts=[["9"], ["1"], ["1"], ["3"]], caller=None)
    m4.add("hand_result", layouts=[["9"], ["1"], ["1"], ["3"]], caller=A)
    assert cabo.score(m4.state)["end"]["winners"] == [1, 2]  # 60 and 60: a shared win


def test_exact_100_resets_each_time_in_the_first_edition() -> None:
    m = Match(initial=[90, 0], players=["A", "B"])
    m.add("hand_started", dealer=0)
    m.add("hand_result", layouts=[["5", "5"], ["1"]], caller=1)
    m.add("hand_started", dealer=1)
    m.add("hand_result", layouts=[["10", "10", "10", "10"], ["0"]], caller=1)
    m.add("hand_started", dealer=1)
    m.add("hand_result", layouts=[["10"], ["0"]], caller=1)
    assert [h["totals"][0] for h in cabo.score(m.state)["hands"]] == [50, 90, 50]
    assert [h["result"]["resets"] for h in cabo.score(m.state)["hands"]] == [[0], [], [0]]


# --------------------------------------------------------------------------- result only


def test_result_only_checks() -> None:
    m = Match()
    m.add("hand_started", dealer=A)
    m.refuse("draw", "common.no_deal", seat=A)
    m.refuse("showdown", "common.no_deal", layouts=[["1"]] * 4)
    m.refuse("hand_result", "common.card_duplicate", layouts=[["13", "13"], ["13"], ["1"], ["1"]], caller=0)
    m.refuse("hand_result", "cabo.bad_result", layouts=[["1"] * 5, ["2"], ["2"], ["2"]], caller=0)
    m.refuse("hand_result", "cabo.bad_result", layouts=[[], ["2"], ["2"], ["2"]], caller=0)
    m.refuse("hand_result", "cabo.bad_result", layouts=[["1"], ["2"]], caller=0)
    m.refuse("hand_result", "cabo.bad_result", layouts=[["1"], ["2"], ["2"], ["3"]], caller=None)
    m.refuse("hand_result", "common.bad_seat", layouts=[["1"], ["2"], ["2"], ["3"]], caller=7)
    m.add("hand_result", layouts=[["1"], ["2"], ["2"], ["3"]], caller=0)
    m.refuse("hand_result", "cabo.mismatch", layouts=[["1"], ["2"], ["2"], ["4"]], caller=0)
    m.refuse("hand_result", "cabo.mismatch", layouts=[["1"], ["2"], ["2"], ["3"]], caller=1)
    m.add("hand_result", layouts=[["1"], ["2"], ["2"], ["3"]], caller=0)  # a repeat agrees
    keep = Match({"wrongMultiPenalty": "keep"})
    keep.add("hand_started", dealer=A)
    keep.add("hand_result", layouts=[["1"] * 4 + ["2"], ["2"], ["2"], ["3"]], caller=0)
    ed2 = Match({"edition": 2})
    ed2.add("hand_started", dealer=A)
    ed2.add("hand_result", layouts=[["1"], ["2"], ["1"], ["3"]], caller=None)
    assert ed2.hand()["points"] == [0, 2, 0, 3]


def test_move_by_move_round_cross_checked_by_hand_result() -> None:
    m = _finished()
    rows = [["0", "1", "2", "3"], ["4", "4", "4", "4"], ["5", "5", "5", "5"], ["6", "6", "6", "6"]]
    m.refuse("hand_result", "cabo.mismatch", layouts=rows, caller=1)
    m.refuse("hand_result", "cabo.mismatch", layouts=rows[:3] + [["6"]], caller=0)
    m.add("hand_result", layouts=rows, caller=0)
    assert m.hand()["status"] == "scored"
    m.refuse("showdown", "common.card_unavailable", layouts=rows[:3] + [["6", "6", "6", "7"]])
    m.add("showdown", layouts=rows)


# --------------------------------------------------------------------------- views, narration, legal moves


def test_views_show_exactly_what_each_seat_saw() -> None:
    m = record(vocabulary_log())
    s0 = Match(None, [20, 93, 85, 40])
    events = vocabulary_log()
    state = s0.state
    for i, (type, data) in enumerate(events[1:], start=2):
        if type == "score_claimed":
            continue
        state = cabo.apply(state, Event(i, type, data))
        if i == 20:  # after Anna's spy: before the call
            break
    rows = {v: [r["cards"] for r in cabo.view(state, v)["rows"]] for v in (None, 0, 1, 2, 3)}
    # Ben: his 2 (drawn, slot 1); Carl: his initial 11 went to Dora (slot 2), his 1 at slot 2 stays
    assert rows[1][1] == ["??", "??", "??"]  # Ben drew without the scorer noting the card
    assert rows[2][2] == ["??", "1", "??", "??"] and rows[2][3] == ["4", "11", "??", "2"]
    assert rows[3][3] == ["4", "??", "1", "2"]  # Dora's peek, and her failed claim shown to all
    assert rows[0][2] == ["7", "??", "??", "??"]  # Anna's spy on Carl's slot 1
    assert rows[None] == [["??"] * 4, ["??"] * 3, ["??"] * 4, ["4", "??", "??", "2"]]  # Dora's failed claim is public
    assert all(r == rows[None][0] for r in [rows[1][0], rows[2][0], rows[3][0]])
    assert m.texts and all("8" not in t for t in m.texts if t.startswith("Dora draws"))


def test_narration_never_tells_private_values() -> None:
    m = Match()
    m.deal(A)
    m.add("draw", seat=A, card="9")
    m.add("spy", seat=A, card="9", target={"seat": 3, "slot": 2}, value="13")
    m.add("draw", seat=B, card="6")
    m.add("replace", seat=B, slots=[1], cards=["0"])
    assert m.texts[-4] == "Anna draws a card" and m.texts[-2] == "Ben draws a card"
    assert (
        "13" not in m.texts[-3]
        and m.texts[-1] == "Ben puts the drawn card in slot 1 and throws away the 0 that was there"
    )


def test_legal_moves_templates_apply() -> None:
    m = cb4()
    moves = cabo.legal_moves(m.state)
    kinds = {mv["type"] for mv in moves}
    assert kinds == {"replace", "discard", "hand_result"}  # a close from the sheet is always possible in play
    assert {"type": "hand_result", "data": {}} in moves
    for mv in moves:
        if CaboDriver.is_complete(mv):
            cabo.apply(m.state, Event(m.seq, mv["type"], mv["data"]))
    assert {"type": "replace", "data": {"seat": 1, "slots": [1, 3], "cards": ["9", "9"]}} in moves
    m2 = Match()
    assert cabo.legal_moves(m2.state) == [{"type": "hand_started", "data": {"dealer": s}} for s in range(4)]


# --------------------------------------------------------------------------- schemas


def test_vocabulary_cabo_payloads_validate() -> None:
    for type, data in vocabulary_log():
        validate_event("cabo", type, data)
    text = vocabulary()
    amend = re.search(r'\{"type": "amend", "data": \{"target": 17, "data": (\{.*?\}), "reason"', text)
    assert amend is not None
    validate_event("cabo", "replace", json.loads(amend.group(1)))


@pytest.mark.parametrize(
    "type, data, path",
    [
        ("replace", {"seat": 1, "slots": [1, 1], "cards": ["9", "9"]}, "$.slots"),
        ("replace", {"seat": 1, "slots": [1, 2, 3, 4, 5], "cards": ["9"] * 5}, "$.cards"),
        ("replace", {"seat": 1, "slots": [1], "cards": ["??"]}, "$.cards[0]"),
        ("take_discard", {"seat": 1, "slots": [0], "cards": ["9"]}, "$.slots[0]"),
        ("draw", {"seat": 5}, "$.seat"),
        ("draw", {"seat": 1, "card": "14"}, "$.card"),
        ("peek", {"seat": 1, "card": "7"}, "$.slot"),
        ("spy", {"seat": 1, "card": "9", "target": {"seat": 1}}, "$.target.slot"),
        ("swap", {"seat": 1, "card": "11", "first": {"seat": 1, "slot": 1}}, "$.second"),
        ("initial_peek", {"seat": 1, "slots": [1]}, "$.slots"),
        ("hand_started", {"dealer": 0, "layouts": HIDDEN4}, "$.discard"),
        ("hand_started", {"dealer": 0, "layouts": [[U] * 3] * 4, "discard": "1"}, "$.layouts[0]"),
        ("hand_result", {"layouts": [["1"], ["2"]]}, "$.caller"),
        ("showdown", {"layouts": [["1"], []]}, "$.layouts[1]"),
        ("reveal", {"cards": [{"seat": 1, "card": "3"}]}, "$.cards[0].slot"),
        ("call_cabo", {"seat": 1, "card": "3"}, "$.card"),
        ("match_started", {"game": "cabo", "players": ["A"]}, "$.players"),
        ("match_started", {"game": "cabo", "players": ["A", "B"], "options": {"edition": 3}}, "$.options.edition"),
        ("score_claimed", {"hand": 1}, "$"),
    ],
)
def test_bad_shapes_fail_at_their_path(type: str, data: dict[str, Any], path: str) -> None:
    with pytest.raises(SchemaError) as info:
        validate_event("cabo", type, data)
    assert info.value.path == path, info.value.errors


# --------------------------------------------------------------------------- playouts: full and hidden recordings


SEEDS = range(8)


@lru_cache(maxsize=None)
def playout(seed: int, hidden: bool) -> tuple[list[Event], cabo.State]:
    return run(cabo, CaboDriver(random.Random(seed), hidden=hidden))


def _sheet(state: cabo.State) -> dict[str, Any]:
    """The score sheet, without the deal of rounds closed from the sheet (no showdown ever showed it) nor their seq."""
    sheet = cabo.score(state)
    for h in sheet["hands"]:
        if "closedFromSheet" in h:
            h["result"].pop("dealt")
            h["closedFromSheet"].pop("seq")  # the hidden log holds reveals the full one does not
    return sheet


@pytest.mark.parametrize("seed", SEEDS)
def test_full_and_hidden_recordings_of_the_same_deals_agree(seed: int) -> None:
    full_events, full = playout(seed, False)
    hidden_events, hidden = playout(seed, True)
    assert _sheet(hidden) == _sheet(full)
    assert cabo.score(full)["end"]["over"]
    assert replay(cabo, hidden_events) == hidden and replay(cabo, full_events) == full
    assert any(e.type == "hand_started" and U in str(e.data.get("layouts")) for e in hidden_events)
    played = ("take_discard", "draw", "replace", "discard", "peek", "spy", "swap", "call_cabo")
    assert [(e.type, e.data.get("seat")) for e in full_events if e.type in played] == [
        (e.type, e.data.get("seat")) for e in hidden_events if e.type in played
    ]


def test_playouts_cover_the_rules() -> None:
    seen: set[str] = set()
    feats: set[str] = set()
    for seed in SEEDS:
        for hidden in (False, True):
            events, state = playout(seed, hidden)
            seen |= {e.type for e in events}
            for rnd in state.rounds:
                if len(rnd.pools) > 1:
                    feats.add("reshuffle")
            for e in events:
                if e.type in ("replace", "take_discard") and len(e.data["cards"]) > 1:
                    feats.add("multi-ok" if len(set(e.data["cards"])) == 1 else "multi-wrong")
    assert seen >= set(schemas.event_types("cabo")) - set(COMMON_EVENTS)  # every event of Cabo's own
    assert feats == {"reshuffle", "multi-ok", "multi-wrong"}


def test_refused_events_change_nothing_during_a_playout() -> None:
    events, _ = playout(3, True)
    state = cabo.start(events[0].data)
    for event in events[1:60]:
        fingerprint = hash(state)
        for bad in (
            ("call_cabo", {"seat": 9}),
            ("peek", {"seat": 0, "card": "5", "slot": 1}),
            ("showdown", {"layouts": []}),
        ):
            with pytest.raises(RuleViolation):
                cabo.apply(state, Event(event.seq, *bad))
        assert hash(state) == fingerprint
        state = cabo.apply(state, event)


# --------------------------------------------------------------------------- the score-sheet form (VOCABULARY.md §5.3)


def _scored(m: Match) -> list[dict[str, Any]]:
    """What the sums form must score exactly as the rows: every number of every hand, line points included."""
    out = []
    for h in cabo.score(m.state)["hands"]:
        r = {k: v for k, v in h["result"].items() if k not in ("layouts", "dealt")}
        out.append(
            {
                "hand": h["hand"],
                "status": h["status"],
                "points": h["points"],
                "totals": h["totals"],
                "result": r,
                "lines": [(ln["seat"], ln["points"]) for ln in h["lines"]],
            }
        )
    return out


def _two_ways(
    rows: list[list[str]],
    caller: int | None,
    options: dict[str, Any] | None = None,
    initial: list[int] | None = None,
    kamikaze: int | None = None,
) -> tuple[Match, Match]:
    by_rows, by_sums = Match(options, initial), Match(options, initial)
    for m in (by_rows, by_sums):
        m.add("hand_started", dealer=A)
    by_rows.add("hand_result", layouts=rows, caller=caller)
    sheet: dict[str, Any] = {"sums": [sum(map(int, r)) for r in rows], "caller": caller}
    if kamikaze is not None:
        sheet["kamikaze"] = kamikaze
    by_sums.add("hand_result", **sheet)
    assert _scored(by_sums) == _scored(by_rows)
    assert cabo.score(by_sums.state)["standings"] == cabo.score(by_rows.state)["standings"]
    assert cabo.score(by_sums.state)["end"] == cabo.score(by_rows.state)["end"]
    return by_rows, by_sums


def test_cb1_from_sums_caller_not_lowest_plus_5_and_the_reset() -> None:
    _, m = _two_ways(
        [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]], A, initial=[20, 93, 85, 40]
    )
    h = m.hand()
    assert h["points"] == [15, 0, 15, 0] and h["totals"] == [35, 93, 50, 40] and h["result"]["resets"] == [C]
    assert h["result"]["layouts"] is None and h["result"]["sums"] == [10, 7, 15, 7]
    assert h["lines"][0]["reason"] == "sum 10; called CABO but 7 (Ben and Dora) is lowest: 10 + 5 = 15"
    assert m.texts[-1].startswith(
        "Round 1 result: sums Anna 10, Ben 7, Carl 15, Dora 7; Anna called CABO; the round is over; scores Anna 15"
    )
    m.refuse("hand_started", "cabo.wrong_dealer", dealer=B)  # Dora won with the lower total
    m.add("hand_started", dealer=D)


def test_cb2_and_cb3_from_sums_caller_tied_lowest_and_kamikaze() -> None:
    _two_ways([["2", "3", "4"], ["5"], ["1", "4"], ["7", "7"]], B, initial=[35, 93, 50, 40])
    rows, m = _two_ways(
        [["9", "9", "9"], ["11", "11", "11"], ["12", "13", "12", "13"], ["1", "2"]],
        D,
        initial=[44, 93, 55, 54],
        kamikaze=C,
    )
    h = m.hand()
    assert h["points"] == [0 + 50, 50, 0, 50] and h["result"]["kamikaze"] == C and h["result"]["winners"] == [C]
    assert cabo.score(m.state)["end"]["over"] and cabo.score(m.state)["end"]["winners"] == [C]
    assert h["lines"][2]["reason"] == "sum 50: kamikaze (12, 12, 13, 13), 0 points"
    assert m.texts[-1].endswith("the game is over") and "Carl shows 12 12 13 13 (kamikaze)" in m.texts[-1]


@pytest.mark.parametrize(
    "options, initial, rows, caller",
    [
        (
            {"edition": 2},
            [20, 93, 85, 40],
            [["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]],
            A,
        ),  # + 10
        ({"edition": 2}, [0, 0, 0, 0], [["1"], ["2"], ["1"], ["3"]], None),  # a deck-out: nobody called
        ({}, [50, 90, 0, 0], [["10", "10", "10", "10"], ["5", "5"], ["1"], ["2"]], C),  # 90 + 10 = 100 → 50 again
        ({"edition": 2}, [90, 90, 0, 0], [["10"], ["10"], ["1"], ["2"]], C),  # both reach 100: each resets once
        (
            {"wrongMultiPenalty": "keep"},
            [0, 0, 0, 0],
            [["13", "13", "12", "12", "11"], ["5"], ["1"], ["2"]],
            C,
        ),  # 61 in 5 cards
    ],
)
def test_sums_score_exactly_as_rows(
    options: dict[str, Any], initial: list[int], rows: list[list[str]], caller: int | None
) -> None:
    _two_ways(rows, caller, options, initial)


def test_the_one_reset_of_the_second_edition_from_sums() -> None:
    m = Match({"edition": 2}, [90, 0, 0, 0])
    m.add("hand_started", dealer=A)
    m.add("hand_result", sums=[10, 1, 2, 3], caller=B)
    m.add("hand_started", dealer=B)
    m.add("hand_result", sums=[50, 1, 2, 3], caller=B, kamikaze=A)
    assert [h["totals"][0] for h in cabo.score(m.state)["hands"]] == [50, 50]
    m2 = Match({"edition": 2}, [90, 0, 0, 0])
    m2.add("hand_started", dealer=A)
    m2.add("hand_result", sums=[10, 1, 2, 3], caller=B)
    m2.add("hand_started", dealer=B)
    m2.add("hand_result", sums=[40, 30, 2, 3], caller=C)
    m2.add("hand_started", dealer=C)
    m2.add("hand_result", sums=[10, 30, 2, 3], caller=C)
    assert cabo.score(m2.state)["hands"][-1]["totals"][0] == 100  # no second reset in the second edition


@pytest.mark.parametrize(
    "sheet, options, code, words",
    [
        (
            {"sums": [51, 1, 2, 3]},
            {},
            "cabo.bad_result",
            "Anna's sum 51 is impossible: a row of 1 to 4 cards adds up to 0 at least and 13 + 13 + 12 + 12 = 50 at most",
        ),
        (
            {"sums": [10, 1, 2, 3], "kamikaze": A},
            {},
            "cabo.bad_result",
            "a kamikaze shows 12 12 13 13, which adds up to 50: Anna's sum is 10",
        ),
        (
            {"sums": [50, 1, 2, 3]},
            {},
            "cabo.bad_result",
            "Anna's 50 in at most 4 cards can only be 12 12 13 13, a kamikaze: write kamikaze: 0",
        ),
        (
            {"sums": [0, 0, 0, 3]},
            {},
            "cabo.bad_result",
            "no deal gives these sums together (Anna 0, Ben 0, Carl 0, Dora 3)",
        ),
        (
            {"sums": [50, 49, 2, 3], "kamikaze": A},
            {},
            "cabo.bad_result",
            "no deal gives these sums together",
        ),  # 49 needs a 13
        ({"sums": [1, 2, 3]}, {}, "cabo.bad_result", "sums is one whole number per player (4)"),
        ({"sums": [0, 0, 0, 3]}, {"wrongMultiPenalty": "keep"}, "cabo.bad_result", "no deal gives these sums together"),
        ({"sums": [10, 1, 2, 3], "kamikaze": 7}, {}, "common.bad_seat", "kamikaze must be a seat from 0 to 3"),
        ({"layouts": [["1"], ["2"], ["2"], ["3"]], "sums": [1, 2, 2, 3]}, {}, "cabo.bad_result", "not both"),
        ({"layouts": [["1"], ["2"], ["2"], ["3"]], "kamikaze": None}, {}, "cabo.bad_result", "kamikaze goes with sums"),
        ({}, {}, "cabo.bad_result", "each row (layouts) or each player's sum"),
    ],
)
def test_sums_checks(sheet: dict[str, Any], options: dict[str, Any], code: str, words: str) -> None:
    m = Match(options)
    m.add("hand_started", dealer=A)
    err = m.refuse("hand_result", code, caller=A, **sheet)
    assert words in err.message, err.message


def test_sums_under_keep_may_exceed_four_cards() -> None:
    m = Match({"wrongMultiPenalty": "keep"})
    m.add("hand_started", dealer=A)
    m.add("hand_result", sums=[60, 1, 2, 3], caller=B)
    assert m.hand()["points"] == [60, 0, 2, 3]


def test_sums_cross_checks() -> None:
    m = Match()
    m.add("hand_started", dealer=A)
    m.add("hand_result", layouts=[["1"], ["2"], ["2"], ["3"]], caller=A)
    m.add("hand_result", sums=[1, 2, 2, 3], caller=A)  # the sheet agrees with the rows
    err = m.refuse("hand_result", "cabo.mismatch", sums=[1, 2, 2, 4], caller=A)
    assert err.message == "sums: entry 3 recorded Dora's sum as 3, not 4"
    m.refuse("hand_result", "cabo.mismatch", sums=[1, 2, 2, 3], caller=B)
    k = Match()
    k.add("hand_started", dealer=A)
    k.add("hand_result", sums=[50, 2, 2, 3], caller=B, kamikaze=A)
    k.add("hand_result", layouts=[["13", "12", "13", "12"], ["2"], ["2"], ["3"]], caller=B)  # rows confirm the sheet
    k.refuse("hand_result", "cabo.mismatch", layouts=[["13", "12", "13"], ["12", "2"], ["2"], ["3"]], caller=B)
    # a scored move-by-move round: the sums must be the ones its cards give
    f = _finished(HIDDEN4)
    f.add("showdown", layouts=[["2", "2", "3", "4"], ["0", "2", "5", "6"], ["2", "3", "4", "6"], ["5", "5", "5", "6"]])
    f.add("hand_result", sums=[11, 13, 15, 21], caller=A)
    err = f.refuse("hand_result", "cabo.mismatch", sums=[11, 13, 15, 20], caller=A)
    assert "the moves give Dora's sum as 21, not 20" in err.message


# --------------------------------------------------------------------------- closing a round from the sheet (VOCABULARY.md §4)


def _in_play() -> Match:
    """Anna deals (the scorer saw Anna's row); Anna draws and replaces, Ben draws and discards, Carl calls."""
    m = Match()
    m.deal(A, [["5", "6", "7", "8"], [U] * 4, [U] * 4, [U] * 4], discard="9")
    m.add("draw", seat=A, card="1")
    m.add("replace", seat=A, slots=[4], cards=["8"])
    m.add("draw", seat=B)
    m.add("discard", seat=B, card="4")
    m.add("call_cabo", seat=C)
    return m


def test_close_a_round_in_play_from_the_sums() -> None:
    m = _in_play()
    rows_before = m.rnd.layouts
    m.add("hand_result", sums=[19, 12, 3, 20], caller=C)
    h = m.hand()
    assert (
        h["status"] == "scored"
        and h["points"] == [19, 12, 0, 20]
        and h["closedFromSheet"] == {"afterMove": 5, "seq": m.rnd.closed_seq} == {"afterMove": 5, "seq": 8}
    )
    assert h["result"]["dealt"][0] == ["5", "6", "7", "8"]
    assert m.rnd.layouts == rows_before  # the recorded moves stay
    assert m.texts[-1] == (
        "Round 1 closed from the score sheet after move 5: sums Anna 19, Ben 12, Carl 3, Dora 20; "
        "Carl called CABO; scores Anna 19, Ben 12, Carl 0, Dora 20; totals Anna 19, Ben 12, Carl 0, Dora 20"
    )
    assert cabo.view(m.state)["closedFromSheet"] == {"afterMove": 5, "seq": 8}
    err = m.refuse("draw", "cabo.round_over", seat=D)
    assert "closed from the score sheet" in err.message
    m.refuse("showdown", "cabo.round_over", layouts=HIDDEN4)
    m.refuse("reveal", "common.bad_reveal", cards=[{"seat": B, "slot": 1, "card": "3"}])
    m.add("hand_result", sums=[19, 12, 3, 20], caller=C)  # the same sheet again
    m.refuse("hand_result", "cabo.mismatch", sums=[19, 12, 4, 20], caller=C)
    assert cabo.legal_moves(m.state) == [{"type": "hand_started", "data": {"dealer": C}}]
    m.add("hand_started", dealer=C)


def test_close_from_rows_before_anyone_called() -> None:
    m = Match()
    m.deal(B)
    m.add("hand_result", layouts=[["1"], ["0", "2"], ["3", "3"], ["4"]], caller=D)
    assert m.hand()["points"] == [0, 2, 6, 9] and m.texts[-1].startswith(
        "Round 1 closed from the score sheet before any move: "
    )


def test_a_close_that_contradicts_the_moves_is_refused() -> None:
    m = _in_play()
    err = m.refuse("hand_result", "cabo.result_conflict", sums=[19, 12, 3, 20], caller=A)
    assert err.message == "Carl called CABO at entry 7; the sheet says Anna called"
    assert m.rnd.closed_seq == 0 and not m.rnd.over
    # every turn taken, Anna's row known: her sum is fixed, the others' bounded by the cards left
    for seat, card in ((D, "4"), (A, "4"), (B, "4")):
        m.add("draw", seat=seat)
        m.add("discard", seat=seat, card=card)
    assert m.rnd.over and m.rnd.score is None
    err = m.refuse("hand_result", "cabo.result_conflict", sums=[10, 12, 3, 20], caller=C)
    assert err.message == "Anna's row holds 4 cards, known 5 + 6 + 7 + 1: its sum is exactly 19; the sheet says 10"
    err = m.refuse("hand_result", "cabo.result_conflict", sums=[19, 0, 3, 20], caller=C)
    assert err.message == "Ben's row holds 4 cards and 4 unknown: its sum is 2 to 50; the sheet says 0"
    err = m.refuse("hand_result", "cabo.result_conflict", sums=[50, 12, 3, 20], caller=C, kamikaze=A)
    assert err.message == "Anna's row holds 4 cards, known 5 + 6 + 7 + 1: its sum is exactly 19; the sheet says 50"
    m.add("hand_result", sums=[19, 12, 3, 20], caller=C)
    assert m.hand()["points"] == [19, 12, 0, 20]


def test_a_deck_out_close_names_the_missing_call() -> None:
    m = Match({"edition": 2})
    m.deal(A)
    m.add("hand_result", sums=[1, 2, 3, 4], caller=None)
    assert m.hand()["points"] == [0, 2, 3, 4]


def test_close_in_the_middle_of_a_turn_keeps_every_card() -> None:
    m = _in_play()
    m.add("draw", seat=D)
    m.add("hand_result", sums=[19, 12, 3, 20], caller=C)
    assert (
        m.hand()["closedFromSheet"] == {"afterMove": 6, "seq": 9} and m.rnd.live() == 52 and m.rnd.pending is not None
    )
    m.refuse("discard", "cabo.round_over", seat=D, card="3")


def test_a_kamikaze_needs_four_cards_in_the_row() -> None:
    m = Match()
    m.deal(A, [[U] * 4, ["9", "4", "9", "11"], [U] * 4, [U] * 4])
    m.add("draw", seat=A)
    m.add("discard", seat=A, card="3")
    m.add("draw", seat=B)
    m.add("replace", seat=B, slots=[1, 3], cards=["9", "9"])  # Ben's row closes up to 3 cards
    m.add("call_cabo", seat=C)
    for seat in (D, A, B):
        m.add("draw", seat=seat)
        m.add("discard", seat=seat, card="3" if seat != B else "2")
    assert m.rnd.over and m.rnd.score is None
    err = m.refuse("hand_result", "cabo.result_conflict", sums=[10, 50, 10, 10], caller=C, kamikaze=B)
    assert err.message == "Ben's row holds 3 cards, so it cannot be the kamikaze 12 12 13 13"


def test_a_replace_names_the_card_thrown_away_not_the_card_drawn() -> None:
    """The replay read 'Ben puts the drawn card in slot 1 (0)': the 0 is the card that left the row,
    while the drawn card (a 6, private) went face down into it (issue 25)."""
    m = Match()
    m.deal(A)
    m.add("draw", seat=A, card="6")
    m.add("replace", seat=A, slots=[2], cards=["0"])
    assert m.texts[-1] == "Anna puts the drawn card in slot 2 and throws away the 0 that was there"
    assert "6" not in m.texts[-1]
    m.add("draw", seat=B)
    m.add("replace", seat=B, slots=[1, 3], cards=["4", "4"])
    assert m.texts[-1].startswith("Ben puts the drawn card in slots 1 and 3 and shows 4 4: they match")
