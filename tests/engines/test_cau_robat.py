"""Cau Robat engine: every rule of docs/RULES.md §1 and VOCABULARY.md §5.1, legal and illegal.

docs/RULES.md §1.8's C1-C3 start mid-hand: they are built with :func:`engines.cau_robat.position`
and checked card for card, pile order included (suits chosen here; the examples give ranks).
"""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import pytest
from tests.engines.cau_robat_helpers import PLAYERS, A, B, C, D, Match, deal, reference_hand

from engines import cau_robat
from engines.base import Event, RuleViolation, replay
from engines.cards import SPANISH_40
from engines.cau_robat.state import pred, succ

U = "??"


def hidden(n: int = 4, size: int = 9) -> list[list[str]]:
    return [[U] * size for _ in range(n)]


def unknowns(known: list[str], total: int) -> list[str]:
    return known + [U] * (total - len(known))


# --------------------------------------------------------------------------- the worked examples


def c1(**options: Any) -> Match:
    """C1: table {3 4 6 7 10 11}; piles A [12 2], B [12 12 5], C [1 1], D []; A to play an 11."""
    return Match.at(
        PLAYERS,
        table=["3o", "4o", "6o", "7o", "10o", "11o"],
        piles=[["12o", "2o"], ["12c", "12e", "5o"], ["1o", "1c"], []],
        hands=[unknowns(["11c"], 9), 6, 6, 6],
        options=options,
    )


def test_c1_run_through_another_pile_own_pile_breaks_it_table_clear() -> None:
    m = c1()
    m.play(A, "11c")
    assert m.piles() == [
        ["12o", "2o", "11o", "10o", "7o", "6o", "12c", "12e", "5o", "4o", "3o", "11c", "1c"],
        [],
        ["1o"],
        [],
    ]
    assert m.table() == [] and m.hand.turn == B
    cap = m.hand.last.captures[0]
    assert cap.cleared and [(p.payer, str(p.card) if p.card else None) for p in cap.payments] == [
        (B, None),
        (C, "1c"),
        (D, None),
    ]
    assert m.texts[-1] == (
        "A plays caballo de copas: takes caballo-sota-7-6-4-3 and B's pile on 5; clears the table; "
        "C pays 1, B and D have nothing to pay"
    )
    assert sum(len(p) for p in m.hand.piles) + sum(m.hand.size(s) for s in range(4)) + len(m.hand.table) == 40


def c2(**options: Any) -> Match:
    return Match.at(
        PLAYERS,
        table=["2o", "6o", "10o", "11o"],
        piles=[["12o", "12c"], ["3o", "3c"], ["1o", "1c"], ["5o", "5c"]],
        hands=[unknowns(["7o"], 7), unknowns(["7c"], 7), unknowns(["7e"], 7), unknowns(["4o"], 7)],
        options=options,
    )


def test_c2_cau_recau_deferred_resolution_two_piles_stolen() -> None:
    m = c2()
    m.play(A, "7o")
    assert m.hand.chain.seats == (A,) and cau_robat.view(m.state)["chain"]["call"] is None
    m.play(B, "7c", call=True)
    assert cau_robat.view(m.state)["chain"] == {"rank": 7, "seats": [0, 1], "call": "cau", "cards": ["7o", "7c"]}
    m.play(C, "7e")
    assert cau_robat.view(m.state)["chain"]["call"] == "recau" and m.piles()[C] == ["1o", "1c"]
    m.play(D, "4o", captures=[{"seat": C, "cards": ["7o", "7c", "6o", "5o", "5c", "10o", "11o", "12o", "12c", "7e"]}])
    assert m.piles() == [
        [],
        ["3o"],
        ["1o", "1c", "7o", "7c", "6o", "5o", "5c", "10o", "11o", "12o", "12c", "7e", "3c"],
        [],
    ]
    assert m.table() == ["2o", "4o"]
    assert cau_robat.view(m.state)["chain"] == {"rank": 4, "seats": [3], "call": None, "cards": ["4o"]}
    cap = m.hand.last.captures[0]
    assert cap.call == "recau" and not cap.cleared
    assert [(p.payer, p.card and str(p.card)) for p in cap.payments] == [(A, None), (B, "3c")]
    assert [len(p) for p in m.hand.piles] == [0, 1, 13, 0]
    assert (
        "C's Recau on the 7s takes" in m.texts[-1]
        and "B pays 3" in m.texts[-1]
        and "4 stays on the table" in m.texts[-1]
    )


def c3(**options: Any) -> Match:
    return Match.at(
        PLAYERS,
        table=[],
        piles=[["3o", "11o"], ["4o", "2o"], ["7o", "6o"], ["10o"]],
        hands=[unknowns(["12o"], 9), unknowns(["12c"], 8), unknowns(["12e"], 8), unknowns(["12b"], 8)],
        options=options,
    )


def test_c3_contracau_chain_payments_then_clearing_payments() -> None:
    m = c3()
    for seat, card in [(A, "12o"), (B, "12c"), (C, "12e")]:
        m.play(seat, card)
    assert m.hand.chain.seats == (A, B, C) and m.table() == ["12o", "12c", "12e"]
    m.play(D, "12b")
    assert m.piles() == [[], [], [], ["10o", "12o", "12c", "12e", "3o", "11o", "12b", "2o", "6o", "4o", "7o"]]
    assert m.table() == [] and m.hand.chain is None
    cap = m.hand.last.captures[0]
    assert [(p.payer, p.card and str(p.card), p.why) for p in cap.payments] == [
        (A, None, "contracau"),
        (B, "2o", "contracau"),
        (C, "6o", "contracau"),
        (A, None, "clear"),
        (B, "4o", "clear"),
        (C, "7o", "clear"),
    ]
    assert m.hand.calls[0].call == "contracau" and m.hand.turn == A
    assert "Contracau" in m.texts[-1]


def test_c3_end_of_hand_count_ties_all_win() -> None:
    m = Match()
    m.add("hand_started", dealer=D)
    m.add("hand_result", piles=[8, 12, 12, 6], table=2)
    hand = m.score()["hands"][0]
    assert hand["status"] == "scored" and hand["result"]["winners"] == [B, C]
    assert hand["points"] == [8, 12, 12, 6] and hand["totals"] == [0, 1, 1, 0]
    assert [ln["points"] for ln in hand["lines"]] == [0, 1, 1, 0]
    assert all(ln["rule"] == "/rules/cau-robat#scoring-hand" and ln["reason"] for ln in hand["lines"])


VOCAB_DEAL = [
    ["5o", "12o", "7o", "7b", "1e", "2o", "4o", "6o", "10o"],
    ["6c", "3o", "7c", "1b", "2c", "4c", "6e", "10e", "12c"],
    ["1c", "2e", "7e", "2b", "3e", "5c", "11c", "12e", "10b"],
    ["11o", "10c", "4b", "3b", "4e", "5b", "6b", "11e", "12b"],
]
VOCAB_PLAYS = [(A, "5o"), (B, "6c"), (C, "1c"), (D, "11o"), (A, "12o"), (B, "3o"), (C, "2e"), (D, "10c")]


def vocab_hand(m: Match) -> None:
    m.add("hand_started", dealer=D, table=["1o", "3c", "5e", "11b"], hands=VOCAB_DEAL)
    for seat, card in VOCAB_PLAYS:
        m.play(seat, card)


def test_vocabulary_example_log() -> None:
    m = Match(target={"wins": 3}, options={})
    m.add("hand_started", dealer=C)
    m.add("hand_result", piles=[8, 12, 12, 6], table=2)
    vocab_hand(m)
    assert m.piles() == [["5e", "5o"], ["3c", "3o"], ["1o", "1c"], ["11b", "11o"]]
    assert sorted(m.table()) == sorted(["6c", "12o", "2e", "10c"])
    m.play(A, "7o")
    m.play(B, "7c", call=True)
    m.play(C, "7e", call=True)
    m.play(D, "4b", captures=[{"seat": 2, "cards": ["7o", "7c", "6c", "5e", "5o", "10c", "11b", "11o", "12o", "7e"]}])
    assert m.piles() == [
        [],
        ["3c"],
        ["1o", "1c", "7o", "7c", "6c", "5e", "5o", "10c", "11b", "11o", "12o", "7e", "3o"],
        [],
    ]
    assert m.table() == ["2e", "4b"] and m.hand.chain.seats == (D,)
    assert m.score()["hands"][0]["totals"] == [0, 1, 1, 0]


# --------------------------------------------------------------------------- describe and start


def test_describe_lists_every_option_with_default_and_rule() -> None:
    d = cau_robat.describe()
    assert d["game"] == cau_robat.GAME == "cau-robat" and d["deck"] == "Spanish 40" and d["direction"] == "ACW"
    assert d["players"]["min"] == 3 and d["players"]["max"] == 5 and d["target"] == {"wins": 3, "tie": "share"}
    assert d["ranks"] == [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    assert d["deal"]["5"] == {"table": 5, "hand": 7, "batches": "3, 3, 1"} and d["deal"]["4"]["hand"] == 9
    defaults = {k: v["default"] for k, v in d["options"].items()}
    assert defaults == {
        "players": "3-5",
        "dealerRotation": "right",
        "dupFix": "replace",
        "requireAnnouncement": False,
        "runDirection": "both",
        "directPileCapture": False,
        "pileOrder": "deterministic",
        "chainMode": "deferred",
        "anyoneMayCall": False,
        "lastPlayClears": True,
        "leftovers": "nobody",
    }
    assert all(o["rule"].startswith("/rules/cau-robat#option-") and o["description"] for o in d["options"].values())
    assert d["options"]["runDirection"]["values"] == ["both", "up", "down"]
    assert set(d["events"]) == {
        "match_started",
        "hand_started",
        "play",
        "reveal",
        "hand_result",
        "score_claimed",
        "void",
        "amend",
        "note",
        "dispute",
        "ruling",
        "seat_key",
        "seat_signer",
        "confirm",
        "irregular",
    }
    json.dumps(d)


def test_start_defaults_and_every_non_default_option() -> None:
    s = cau_robat.start({"game": "cau-robat", "players": PLAYERS})
    assert s.options == cau_robat.Options() and s.target == 3 and s.tie == "share" and s.totals == (0, 0, 0, 0)
    opts = {
        "players": "2-6",
        "dealerRotation": "left",
        "dupFix": "redealAll",
        "requireAnnouncement": True,
        "runDirection": "up",
        "directPileCapture": True,
        "pileOrder": "recorded",
        "chainMode": "immediate",
        "anyoneMayCall": True,
        "lastPlayClears": False,
        "leftovers": "lastCapturer",
    }
    s = cau_robat.start(
        {
            "game": "cau-robat",
            "players": ["A", "B"],
            "options": opts,
            "target": {"wins": 5, "tie": "playOn"},
            "initial": {"wins": [2, 4]},
        }
    )
    assert s.options == cau_robat.Options(**opts) and (s.target, s.tie, s.totals) == (5, "playOn", (2, 4))


@pytest.mark.parametrize(
    "data, code",
    [
        ({"players": ["A", "B"]}, "cau-robat.players"),
        ({"players": ["A", "B", "C", "D", "E", "F"]}, "cau-robat.players"),
        ({"players": ["A"], "options": {"players": "2-6"}}, "cau-robat.players"),
        ({"players": list("ABCDEFG"), "options": {"players": "2-6"}}, "cau-robat.players"),
        ({"players": ["A", "B", "A"]}, "cau-robat.players"),
        ({"target": {"wins": 0}}, "common.bad_target"),
        ({"target": {"wins": 3, "tie": "split"}}, "common.bad_target"),
        ({"target": {"lossPoints": 12}}, "common.bad_target"),
        ({"options": {"pileOrder": "random"}}, "common.bad_option"),
        ({"options": {"anyoneMayCall": "yes"}}, "common.bad_option"),
        ({"options": {"trumpCard": "returned"}}, "common.bad_option"),
        ({"initial": {"wins": [0, 0]}}, "common.bad_initial"),
        ({"initial": {"wins": [0, 3, 0, 0]}}, "common.bad_initial"),
        ({"initial": {"wins": [0, -1, 0, 0]}}, "common.bad_initial"),
        ({"game": "la-cabra"}, "common.wrong_game"),
    ],
)
def test_start_refuses(data: dict[str, Any], code: str) -> None:
    with pytest.raises(RuleViolation) as info:
        cau_robat.start({"game": "cau-robat", "players": PLAYERS, **data})
    assert info.value.code == code


def test_two_and_six_players_with_the_option() -> None:
    for n, table, per in [(2, 4, 18), (6, 4, 6)]:
        m = Match([f"P{i}" for i in range(n)], options={"players": "2-6"})
        t, hands = deal(random.Random(n), n)
        assert len(t) == table and all(len(h) == per for h in hands)
        m.add("hand_started", dealer=0, table=t, hands=hands)
        assert m.hand.turn == 1


def test_rank_cycle() -> None:
    assert succ("7") == "10" and pred("10") == "7" and succ("12") == "1" and pred("1") == "12" and succ("1") == "2"


def test_unknown_event_type() -> None:
    Match().refuse("lead", "common.unknown_event", seat=0, cards=["1o"])


# --------------------------------------------------------------------------- the deal


def test_deal_counts_table_ranks_and_deck() -> None:
    m = Match()
    t, hands = deal(random.Random(1), 4)
    m.refuse("hand_started", "cau-robat.bad_deal", dealer=0, table=t[:3], hands=hands)
    m.refuse("hand_started", "cau-robat.bad_deal", dealer=0, table=t, hands=[h[:8] for h in hands])
    m.refuse("hand_started", "cau-robat.bad_deal", dealer=0, table=t)
    dup = [t[0], t[1], t[2], next(c for h in hands for c in h if c[:-1] == t[0][:-1])]
    m.refuse("hand_started", "cau-robat.table_ranks", dealer=0, table=dup, hands=hidden())
    for fix in ("replace", "redealAll"):  # informational: the fixed layout is what is recorded
        Match(options={"dupFix": fix}).refuse(
            "hand_started", "cau-robat.table_ranks", dealer=0, table=dup, hands=hidden()
        )
        Match(options={"dupFix": fix}).add("hand_started", dealer=0, table=t, hands=hands)
    twice = [list(h) for h in hands]
    twice[1][0] = hands[0][0]
    m.refuse("hand_started", "common.card_duplicate", dealer=0, table=t, hands=twice)
    on_table = [list(h) for h in hands]
    on_table[2][0] = t[0]
    m.refuse("hand_started", "common.card_duplicate", dealer=0, table=t, hands=on_table)
    m.refuse("hand_started", "common.card_not_in_deck", dealer=0, table=[*t[:3], "AS"], hands=hands)
    m.refuse("hand_started", "common.bad_card", dealer=0, table=[*t[:3], "8o"], hands=hands)
    m.refuse("hand_started", "common.card_hidden", dealer=0, table=[*t[:3], U], hands=hands)
    m.refuse("hand_started", "common.bad_seat", dealer=4, table=t, hands=hands)


def test_five_players_deal_five_table_cards_and_seven_each() -> None:
    m = Match(["A", "B", "C", "D", "E"])
    t, hands = deal(random.Random(5), 5)
    m.refuse("hand_started", "cau-robat.bad_deal", dealer=0, table=t[:4], hands=hidden(5, 7))
    m.add("hand_started", dealer=4, table=t, hands=hands)
    assert m.hand.turn == 0 and len(m.hand.table) == 5


@pytest.mark.parametrize("rotation, nxt, wrong", [("right", 1, 3), ("left", 3, 1)])
def test_dealer_rotation(rotation: str, nxt: int, wrong: int) -> None:
    m = Match(options={"dealerRotation": rotation})
    m.add("hand_started", dealer=0)  # the first dealer is free
    m.add("hand_result", piles=[10, 10, 10, 6], table=4)
    m.refuse("hand_started", "cau-robat.wrong_dealer", dealer=wrong)
    m.add("hand_started", dealer=nxt)


def test_hand_in_progress_and_moves_need_a_deal() -> None:
    m = Match()
    m.refuse("play", "common.no_hand", seat=0, card="1o")
    m.refuse("hand_result", "common.no_hand", piles=[10, 10, 10, 6], table=4)
    m.add("hand_started", dealer=0)
    m.refuse("play", "common.no_deal", seat=1, card="1o")
    m.refuse("hand_started", "common.hand_in_progress", dealer=1)
    m2 = Match()
    t, hands = deal(random.Random(2), 4)
    m2.add("hand_started", dealer=3, table=t, hands=hands)
    m2.refuse("hand_started", "common.hand_in_progress", dealer=0)


# --------------------------------------------------------------------------- turns and cards


def dealt(seed: int = 3, **options: Any) -> tuple[Match, list[str], list[list[str]]]:
    m = Match(options=options)
    t, hands = deal(random.Random(seed), 4)
    m.add("hand_started", dealer=D, table=t, hands=hands)
    return m, t, hands


def test_turns_go_anticlockwise_from_the_dealers_right() -> None:
    m, t, hands = dealt()
    assert m.hand.turn == A
    err = m.refuse("play", "common.not_your_turn", seat=B, card=hands[B][0])
    assert "A's turn" in err.message
    m.play(A, hands[A][0])
    assert m.hand.turn == B
    m.refuse("play", "common.not_your_turn", seat=A, card=hands[A][1])


def test_cards_must_be_in_the_hand() -> None:
    m, t, hands = dealt()
    m.refuse("play", "common.card_unavailable", seat=A, card=hands[B][0])  # known to be B's
    m.refuse("play", "common.card_unavailable", seat=A, card=t[0])  # on the table
    m.refuse("play", "common.card_not_in_deck", seat=A, card="KS")
    m.refuse("play", "common.bad_card", seat=A, card="9o")
    m.refuse("play", "common.card_hidden", seat=A, card=U)
    m.refuse("play", "common.bad_seat", seat=4, card=hands[A][0])


def test_a_fifth_card_of_a_rank_is_refused() -> None:
    m = c3()
    for seat, card in [(A, "12o"), (B, "12c"), (C, "12e"), (D, "12b")]:
        m.play(seat, card)
    err = m.refuse("play", "common.card_unavailable", seat=A, card="12c")
    assert "all four 12s" in err.message


def test_the_hand_ends_when_every_card_is_played() -> None:
    m, t, hands = dealt()
    plays, piles, left = reference_hand(4, D, t, hands, random.Random(9))
    for seat, card in plays[:-1]:
        m.play(seat, card)
    m.play(*plays[-1])
    assert m.hand.over and "the hand is over" in m.texts[-1]
    m.refuse("play", "cau-robat.hand_over", seat=A, card=hands[A][0])
    assert m.piles() == piles


@pytest.mark.parametrize("seed", range(40))
def test_random_hands_match_the_reference_card_for_card(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([3, 4, 5])
    players = [f"P{i}" for i in range(n)]
    dealer = rng.randrange(n)
    t, hands = deal(rng, n)
    plays, piles, left = reference_hand(n, dealer, t, hands, rng)
    m = Match(players)
    m.add("hand_started", dealer=dealer, table=t, hands=hands)
    for seat, card in plays:
        before = m.hand
        m.play(seat, card)
        if not m.hand.over:
            conserved = sum(len(p) for p in m.hand.piles) + len(m.hand.table) + sum(m.hand.size(s) for s in range(n))
            assert conserved == 40 and len(before.located | m.hand.located) <= 40
    assert m.piles() == piles and sorted(m.table()) == sorted(left)
    hand = m.score()["hands"][0]
    assert sum(hand["points"]) + hand["result"]["table"] == 40
    best = max(len(p) for p in piles)
    assert hand["result"]["winners"] == [s for s, p in enumerate(piles) if len(p) == best]


# --------------------------------------------------------------------------- capture and the run


def pos(table: list[str], piles: list[list[str]], plays: dict[int, list[str]], turn: int = A, **options: Any) -> Match:
    """A position whose hands hold ``plays`` plus unknown cards filling the deck."""
    placed = len(table) + sum(map(len, piles)) + sum(map(len, plays.values()))
    rest = 40 - placed
    hands: list[Any] = []
    for s in range(4):
        extra = rest // 4 + (1 if s < rest % 4 else 0)
        hands.append(unknowns(plays.get(s, []), len(plays.get(s, [])) + extra))
    return Match.at(PLAYERS, table=table, piles=piles, hands=hands, turn=turn, options=options)


def test_matching_a_table_card_captures_it_compulsorily() -> None:
    m = pos(["5e", "1o"], [[], [], [], []], {A: ["5o", "6c"]})
    m.play(A, "5o")
    assert (
        m.piles()[A] == ["5e", "5o"] and m.table() == ["1o"] and m.texts[-1] == "A plays 5 de oros: takes 5 de espadas"
    )


def test_a_card_matching_only_a_pile_top_stays_unless_direct_pile_capture() -> None:
    piles = [[], ["3c", "5o"], [], []]
    m = pos(["1o"], piles, {A: ["5e"]})
    m.play(A, "5e")
    assert m.table() == ["1o", "5e"] and m.piles()[B] == ["3c", "5o"] and m.hand.chain.seats == (A,)
    m = pos(["1o", "4c"], piles, {A: ["5e"]}, directPileCapture=True)
    m.play(A, "5e")
    assert m.piles()[A] == ["3c", "5o", "4c", "5e"] and m.table() == ["1o"] and m.hand.chain is None
    # one's own pile top never counts, even with directPileCapture
    m = pos(["1o"], [["3c", "5o"], [], [], []], {A: ["5e"]}, directPileCapture=True)
    m.play(A, "5e")
    assert m.table() == ["1o", "5e"] and m.piles()[A] == ["3c", "5o"]


@pytest.mark.parametrize(
    "direction, taken",
    [("both", ["7o", "6o", "10o", "11o", "7c"]), ("up", ["7o", "10o", "11o", "7c"]), ("down", ["7o", "6o", "7c"])],
)
def test_run_direction(direction: str, taken: list[str]) -> None:
    m = pos(["6o", "7o", "10o", "11o", "3o"], [[], [], [], []], {A: ["7c"]}, runDirection=direction)
    m.play(A, "7c")
    assert m.piles()[A] == taken


def test_run_wraps_from_12_to_1_and_stops_where_it_started() -> None:
    m = pos(["12o", "1o", "2o"], [[], [], [], []], {A: ["1c"]})
    m.play(A, "1c")
    assert m.piles()[A] == ["1o", "12o", "2o", "1c"]
    # every rank linked: the run goes once round the cycle and stops
    table = ["1o", "2o", "3o", "4o", "5o", "6o", "7o", "10o", "11o", "12o"]
    m = pos(table, [[], [], [], []], {A: ["5c"]})
    m.play(A, "5c")
    assert m.piles()[A] == ["5o", "4o", "3o", "2o", "1o", "12o", "11o", "10o", "7o", "6o", "5c"] and m.table() == []


def test_piles_topped_with_the_matched_rank_are_taken_in_turn_order() -> None:
    m = pos(["5e", "1o"], [[], ["2c", "5o"], ["4c"], ["3c", "5c"]], {A: ["5b"]})
    m.play(A, "5b")
    # level 0: the table 5, then B's and D's piles topped with 5; walk down: C's pile on 4 (its top), 3 none
    assert m.piles()[A] == ["5e", "2c", "5o", "3c", "5c", "4c", "5b"]
    assert m.piles()[B:] == [[], [], []]
    cap = m.hand.last.captures[0]
    assert [owner for owner, _ in cap.blocks] == [B, D, C]


def test_several_piles_at_one_rank_and_table_card_first() -> None:
    m = pos(["7o", "6o"], [[], ["1c", "6c"], ["6e"], []], {D: ["7c"]}, turn=D)
    m.play(D, "7c")
    # walk down 6: the table 6, then the piles topped with 6 in turn order after D: A (empty), B, C
    assert m.piles()[D] == ["7o", "6o", "1c", "6c", "6e", "7c"]


# --------------------------------------------------------------------------- chains


def test_a_lone_starter_is_closed_and_its_card_stays() -> None:
    m = pos(["1o"], [[], [], [], []], {A: ["7o"], B: ["3c"], C: ["7c"]})
    m.play(A, "7o")
    m.play(B, "3c")
    assert m.hand.chain.seats == (B,) and m.table() == ["1o", "7o", "3c"]
    m.play(C, "7c")  # not a Cau any more: an ordinary capture of the table 7
    assert m.piles()[C] == ["7o", "7c"] and not m.hand.calls


def test_cau_is_paid_one_card_and_only_the_final_caller_captures() -> None:
    m = pos(["1o"], [[], [], [], ["3c", "4c"]], {A: ["7o"], B: ["7c"], C: ["2e"]})
    m.play(A, "7o")
    m.play(B, "7c", call=True)
    assert m.piles()[B] == []  # deferred: nothing yet
    m.play(C, "2e")
    assert m.piles()[B] == ["7o", "7c"] and m.hand.calls[0].call == "cau"
    assert m.piles()[A] == [] and m.table() == ["1o", "2e"]
    # 2e went down after the resolution: it links 1 for the next capture only


def test_cau_payment_from_a_non_empty_pile() -> None:
    m = pos(["1o"], [["3c", "4c"], [], [], []], {A: ["7o"], B: ["7c"], C: ["2e"]})
    m.play(A, "7o")
    m.play(B, "7c")
    m.play(C, "2e")
    assert m.piles()[B] == ["7o", "7c", "4c"] and m.piles()[A] == ["3c"]
    assert "A pays 4" in m.texts[-1]


def test_three_players_chain_stops_at_recau_and_the_starter_cannot_reenter() -> None:
    players = ["A", "B", "C"]
    m = Match.at(
        players,
        table=["1o"],
        piles=[[], [], []],
        hands=[unknowns(["7o", "7b"], 13), unknowns(["7c"], 13), unknowns(["7e"], 13)],
    )
    m.play(A, "7o")
    m.play(B, "7c")
    m.play(C, "7e")
    assert m.hand.chain.seats == (A, B, C)
    m.refuse("play", "cau-robat.mismatch", seat=A, card="7b", call=True)  # A is already in the chain
    m.play(A, "7b")
    # the Recau resolves first (C takes the three 7s), then A's 7 finds no table 7 and opens a new chain
    assert m.piles()[C] == ["7o", "7c", "7e"] and m.table() == ["1o", "7b"] and m.hand.chain.seats == (A,)


def test_call_is_a_checked_field() -> None:
    m = pos(["1o"], [[], [], [], []], {A: ["7o", "8o"[:0] or "2o"], B: ["7c", "3c"]})
    m.refuse("play", "cau-robat.mismatch", seat=A, card="7o", call=True)
    m.play(A, "7o", call=False)
    m.refuse("play", "cau-robat.mismatch", seat=B, card="7c", call=False)
    err = m.refuse("play", "cau-robat.mismatch", seat=B, card="3c", call=True)
    assert "chain is of 7s" in err.message
    m.play(B, "7c", call=True)


def test_require_announcement() -> None:
    plays = {A: ["7o"], B: ["7c", "3c"], C: ["7e"]}
    m = pos(["1o"], [[], [], [], ["2c"]], plays, requireAnnouncement=True)
    m.play(A, "7o")
    m.refuse("play", "cau-robat.bad_call", seat=B, card="3c", call=True)
    m.play(B, "7c")  # not announced: an ordinary play that captures A's 7, no payment
    assert m.piles()[B] == ["7o", "7c"] and not m.hand.calls and m.hand.chain is None
    m = pos(["1o"], [["2c"], [], [], []], plays, requireAnnouncement=True)
    m.play(A, "7o")
    m.play(B, "7c", call=True)
    assert m.hand.chain.seats == (A, B)
    m.play(C, "7e", call=True)
    assert m.hand.chain.seats == (A, B, C)
    assert {"type": "play", "data": {"seat": D, "card": "4o"}} not in cau_robat.legal_moves(m.state)


def test_immediate_chain_mode() -> None:
    m = pos(
        ["1o", "6o"],
        [["3c", "4c"], ["2b"], [], []],
        {A: ["7o"], B: ["7c"], C: ["7e"], D: ["2e"]},
        chainMode="immediate",
    )
    m.play(A, "7o")
    m.play(B, "7c")  # Cau captures at once: A's 7 with the run (6), and A pays 1
    assert m.piles()[B] == ["2b", "7o", "6o", "7c", "4c"] and m.piles()[A] == ["3c"]
    m.play(C, "7e", captures=[{"seat": C, "cards": ["7o", "6o", "7c", "7e"]}])
    # Recau takes B's capture back off B's pile (B keeps the card A paid), then A and B pay one each
    assert m.piles()[C] == ["7o", "6o", "7c", "7e", "3c", "4c"]
    assert m.piles()[B] == ["2b"] and m.piles()[A] == []
    assert "back 3 cards from B" in m.texts[-1]
    m.play(D, "2e")
    assert m.hand.calls[0].call == "recau" and m.hand.chain.seats == (D,)


def test_any_one_may_call_out_of_turn() -> None:
    m = pos(["1o"], [["3c", "4c"], [], [], []], {A: ["7o"], B: ["2o"], C: ["7c", "5c"], D: ["7e"]}, anyoneMayCall=True)
    m.play(A, "7o")
    m.refuse("play", "common.not_your_turn", seat=C, card="5c")  # out of turn only to call
    m.play(C, "7c")  # Cau out of turn: B keeps the turn
    assert (
        m.hand.turn == B and m.hand.last.out_of_turn and m.texts[-1].startswith("C plays 7 de copas out of turn: Cau")
    )
    m.refuse("play", "common.not_your_turn", seat=A, card="7b")  # A is already in the chain
    m.play(B, "2o")  # resolves the Cau: C takes A's 7 and is paid
    assert m.piles()[C] == ["7o", "7c", "4c"] and m.hand.turn == C
    strict = pos(["1o"], [[], [], [], []], {A: ["7o"], C: ["7c"]})
    strict.play(A, "7o")
    strict.refuse("play", "common.not_your_turn", seat=C, card="7c")


def everything_else(*keep: str, top: str) -> list[str]:
    """The deck minus ``keep``, with ``top`` last (a pile whose top links nothing in the test)."""
    rest = [str(c) for c in cau_robat.state.DECK.cards if str(c) not in keep and str(c) != top]
    return rest + [top]


def test_any_one_may_call_skips_an_empty_hand() -> None:
    rest = everything_else("1o", "7o", "2o", "3o", "4o", "7c", top="1c")
    m = Match.at(
        ["A", "B", "C"],
        table=["1o"],
        piles=[rest, [], []],
        hands=[["7o", "2o"], ["3o", "4o"], ["7c"]],
        options={"anyoneMayCall": True},
    )
    m.play(A, "7o")
    m.play(C, "7c")  # out of turn, C's last card
    assert m.hand.turn == B and m.hand.size(C) == 0
    m.play(B, "3o")
    assert m.piles()[C][:2] == ["7o", "7c"] and m.hand.turn == A  # C is skipped
    m.refuse("play", "cau-robat.empty_hand", seat=C, card="3c")  # C may not call: no cards left
    m.play(A, "2o")
    m.play(B, "4o")
    assert m.hand.over


@pytest.mark.parametrize("clears", [True, False])
def test_last_play_clears(clears: bool) -> None:
    rest = everything_else("5o", "5c", "12c", "2c", top="1o")
    m = Match.at(
        ["A", "B", "C"],
        table=["5o"],
        piles=[rest[:10], ["12c", "2c"], rest[10:]],
        hands=[["5c"], [], []],
        options={"lastPlayClears": clears},
    )
    m.play(A, "5c")
    assert m.hand.over and m.table() == []
    assert m.piles()[A][-3:] == (["5c", "2c", "1o"] if clears else [rest[9], "5o", "5c"])
    assert ("nobody pays" in m.texts[-1]) is (not clears)


# --------------------------------------------------------------------------- stated captures and pile order


def test_stated_captures_are_checked() -> None:
    m = c1()
    right = ["11o", "10o", "7o", "6o", "12c", "12e", "5o", "4o", "3o", "11c"]
    err = m.refuse(
        "play", "cau-robat.mismatch", seat=A, card="11c", captures=[{"seat": A, "cards": right[:-2] + ["11c"]}]
    )
    assert "missing 3 de oros" in err.message
    err = m.refuse("play", "cau-robat.mismatch", seat=A, card="11c", captures=[{"seat": A, "cards": [*right, "1c"]}])
    assert "not taken: as de copas" in err.message
    m.refuse("play", "cau-robat.mismatch", seat=A, card="11c", captures=[{"seat": B, "cards": right}])
    m.refuse("play", "cau-robat.mismatch", seat=A, card="11c", captures=[])
    m.play(A, "11c", captures=[{"seat": A, "cards": list(reversed(right))}])  # a multiset: any order
    m2 = pos(["1o"], [[], [], [], []], {A: ["7o"]})
    m2.refuse("play", "cau-robat.mismatch", seat=A, card="7o", captures=[{"seat": A, "cards": ["1o", "7o"]}])
    m2.play(A, "7o", captures=[])


def test_recorded_pile_order() -> None:
    m = c1(pileOrder="recorded")
    err = m.refuse("play", "cau-robat.captures_required", seat=A, card="11c")
    assert "caballo de oros" in err.message
    order = ["12c", "12e", "5o", "3o", "4o", "6o", "7o", "10o", "11o", "11c"]
    m.refuse("play", "cau-robat.pile_order", seat=A, card="11c", captures=[{"seat": A, "cards": ["11c", *order[:-1]]}])
    m.refuse("play", "cau-robat.mismatch", seat=A, card="11c", captures=[{"seat": A, "cards": order[1:]}])
    m.play(A, "11c", captures=[{"seat": A, "cards": order}])
    assert m.piles()[A] == ["12o", "2o", *order, "1c"]
    # a trail needs no captures
    m2 = pos(["1o"], [[], [], [], []], {A: ["7o"]}, pileOrder="recorded")
    m2.play(A, "7o")


# --------------------------------------------------------------------------- hidden cards


def test_hidden_hands_bind_when_played() -> None:
    m = Match()
    m.add("hand_started", dealer=D, table=["1o", "3c", "5e", "11b"], hands=hidden())
    m.play(A, "5o")
    assert m.piles()[A] == ["5e", "5o"] and m.hand.unknown == (8, 9, 9, 9)
    m.refuse("play", "common.card_unavailable", seat=B, card="5o")  # already played
    m.refuse("play", "common.card_unavailable", seat=B, card="1o")  # on the table
    m.add("reveal", cards=[{"seat": B, "card": "6c"}])
    assert m.hand.known[B] == frozenset({cau_robat.state.CARDS["6c"]})
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": C, "card": "6c"}])
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": C, "card": "3c"}])
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 3, "index": 0, "card": "6e"}])
    m.refuse("reveal", "common.bad_seat", cards=[{"seat": 7, "card": "6e"}])
    m.play(B, "6c")
    assert m.hand.unknown[B] == 8


def test_a_known_hand_cannot_bind() -> None:
    m = Match()
    hands = [VOCAB_DEAL[0], hidden()[0], hidden()[0], hidden()[0]]
    m.add("hand_started", dealer=D, table=["1o", "3c", "5e", "11b"], hands=hands)
    err = m.refuse("play", "common.card_unavailable", seat=A, card="6c")
    assert "A's hand is known" in err.message
    reveal = Match()
    reveal.add("hand_started", dealer=D, table=["1o", "3c", "5e", "11b"], hands=hands)
    reveal.refuse("reveal", "common.bad_reveal", cards=[{"seat": A, "card": "6c"}])


def test_whole_hidden_hand_scores_like_the_known_one() -> None:
    rng = random.Random(11)
    t, hands = deal(rng, 4)
    plays, piles, left = reference_hand(4, D, t, hands, rng)
    m = Match()
    m.add("hand_started", dealer=D, table=t, hands=hidden())
    for seat, card in plays:
        m.play(seat, card)
    assert m.piles() == piles and m.score()["hands"][0]["status"] == "scored"


# --------------------------------------------------------------------------- results, leftovers, the match


@pytest.mark.parametrize(
    "data, words",
    [
        ({"piles": [8, 12, 12, 6], "table": 3}, "41"),
        ({"piles": [8, 12, 12], "table": 8}, "4 card counts"),
        ({"piles": [0, 0, 0, 29], "table": 11}, "at most 10"),
        ({"piles": [8, 12, 12, 6], "table": ["1o", "1c"]}, "different ranks"),
        ({"piles": [8, 12, 12, 6], "table": ["1o", "1o"]}, "twice"),
        ({"piles": [1, 12, 12, 13], "table": 2, "lastCapturer": 0}, "at least 2"),
    ],
)
def test_result_only_checks(data: dict[str, Any], words: str) -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    err = m.refuse("hand_result", "cau-robat.bad_result", **data)
    assert words in err.message


def test_result_with_a_table_list_and_a_cross_check() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    m.add("hand_result", piles=[8, 12, 12, 6], table=["1o", "2o"], lastCapturer=1)
    m.refuse("hand_result", "cau-robat.mismatch", piles=[8, 12, 11, 7], table=2)
    m.refuse("hand_result", "cau-robat.mismatch", piles=[8, 12, 12, 6], table=["1o", "3o"])
    m.add("hand_result", piles=[8, 12, 12, 6], table=2)
    assert m.score()["hands"][0]["totals"] == [0, 1, 1, 0]


def test_move_by_move_hand_cross_checked_by_hand_result() -> None:
    m, t, hands = dealt(seed=4)
    plays, piles, left = reference_hand(4, D, t, hands, random.Random(4))
    for seat, card in plays:
        m.play(seat, card)
    counts = [len(p) for p in piles]
    wrong = list(counts)
    big = counts.index(max(counts))
    wrong[big] -= 1
    wrong[(big + 1) % 4] += 1
    err = m.refuse("hand_result", "cau-robat.mismatch", piles=wrong, table=len(left))
    assert err.message.startswith("piles:")
    other = next(s for s in range(4) if s != m.hand.last_capturer and counts[s] >= 2)
    err = m.refuse("hand_result", "cau-robat.mismatch", piles=counts, table=len(left), lastCapturer=other)
    assert err.message.startswith("lastCapturer:")
    m.add("hand_result", piles=counts, table=left)
    assert cau_robat.legal_moves(m.state)[1]["data"]["piles"] == counts


@pytest.mark.parametrize("leftovers", ["nobody", "lastCapturer"])
def test_leftovers(leftovers: str) -> None:
    m = Match(options={"leftovers": leftovers})
    m.add("hand_started", dealer=0)
    if leftovers == "lastCapturer":
        m.refuse("hand_result", "cau-robat.bad_result", piles=[8, 12, 11, 6], table=3)
        m.add("hand_result", piles=[8, 12, 11, 6], table=3, lastCapturer=2)
        assert m.score()["hands"][0]["points"] == [8, 12, 14, 6] and m.score()["hands"][0]["result"]["winners"] == [2]
    else:
        m.add("hand_result", piles=[8, 12, 11, 6], table=3, lastCapturer=2)
        assert m.score()["hands"][0]["points"] == [8, 12, 11, 6] and m.score()["hands"][0]["result"]["winners"] == [1]
    # move by move: the last capturer takes the table
    mm, t, hands = dealt(seed=6, leftovers=leftovers)
    plays, piles, left = reference_hand(4, D, t, hands, random.Random(6))
    for seat, card in plays:
        mm.play(seat, card)
    got = mm.score()["hands"][0]["points"]
    expect = [len(p) for p in piles]
    if leftovers == "lastCapturer":
        expect[mm.hand.last_capturer] += len(left)
    assert got == expect


def result(m: Match, dealer: int, piles: list[int]) -> None:
    m.add("hand_started", dealer=dealer)
    m.add("hand_result", piles=piles, table=40 - sum(piles))


def test_match_to_the_target_share() -> None:
    m = Match(target={"wins": 2})
    result(m, 0, [20, 10, 6, 4])
    result(m, 1, [10, 20, 6, 4])
    assert not m.state.over
    result(m, 2, [15, 15, 6, 4])  # A and B reach 2 in the same hand: they share
    sheet = m.score()
    assert (
        sheet["end"]["over"]
        and sheet["end"]["winners"] == [0, 1]
        and sheet["end"]["rule"] == "/rules/cau-robat#scoring-match"
    )
    assert [s["status"] for s in sheet["standings"]] == ["winner", "winner", "out", "out"]
    assert cau_robat.is_over(m.state) and cau_robat.legal_moves(m.state) == []
    m.refuse("hand_started", "common.match_over", dealer=3)


def test_match_play_on_until_one_leads_alone() -> None:
    m = Match(target={"wins": 1, "tie": "playOn"})
    result(m, 0, [15, 15, 6, 4])
    assert not m.state.over
    result(m, 1, [15, 14, 6, 4])
    assert m.state.over and m.score()["end"]["winners"] == [0]


def test_initial_wins() -> None:
    m = Match(target={"wins": 3}, initial={"wins": [2, 0, 1, 0]})
    assert [s["total"] for s in m.score()["standings"]] == [2, 0, 1, 0]
    result(m, 3, [20, 10, 6, 4])
    assert m.state.over and m.score()["end"]["winners"] == [0]


# --------------------------------------------------------------------------- legal moves, views, purity


def test_every_legal_move_applies_and_templates_for_hidden_hands() -> None:
    m, t, hands = dealt(requireAnnouncement=True)
    *moves, close = cau_robat.legal_moves(m.state)
    assert {mv["data"]["card"] for mv in moves} == set(hands[A]) and close == {"type": "hand_result", "data": {}}
    for mv in moves:
        cau_robat.apply(m.state, Event(m.seq, mv["type"], mv["data"]))
    h = Match()
    h.add("hand_started", dealer=D, table=t, hands=hidden())
    assert cau_robat.legal_moves(h.state) == [{"type": "play", "data": {"seat": A}}, close]
    assert cau_robat.legal_moves(Match().state) == [{"type": "hand_started", "data": {}}]


def test_views_show_only_ones_own_hand() -> None:
    m, t, hands = dealt()
    public = json.dumps(cau_robat.view(m.state))
    assert not any(f'"{c}"' in public for h in hands for c in h)
    mine = cau_robat.view(m.state, B)
    assert sorted(mine["cards"]) == sorted(hands[B]) and not any(f'"{c}"' in json.dumps(mine) for c in hands[A])
    everything = cau_robat.view(m.state, "all")
    assert sorted(everything["hands"][C]["cards"]) == sorted(hands[C])
    with pytest.raises(ValueError):
        cau_robat.view(m.state, 4)


def test_apply_never_changes_its_input_and_replay_rebuilds() -> None:
    m, t, hands = dealt()
    plays, _, _ = reference_hand(4, D, t, hands, random.Random(3))
    for seat, card in plays[:20]:
        before = m.state
        frozen = pickle.dumps(before)
        m.play(seat, card)
        assert pickle.dumps(before) == frozen
    assert replay(cau_robat, m.events) == m.state


# --------------------------------------------------------------------------- the event schemas


SCHEMA_VALID: list[tuple[str, Any]] = [
    ("match_started", {"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 3}, "options": {}}),
    (
        "match_started",
        {
            "game": "cau-robat",
            "players": ["A", "B"],
            "target": {"wins": 2, "tie": "playOn"},
            "options": {
                "players": "2-6",
                "dealerRotation": "left",
                "dupFix": "redealAll",
                "requireAnnouncement": True,
                "runDirection": "down",
                "directPileCapture": True,
                "pileOrder": "recorded",
                "chainMode": "immediate",
                "anyoneMayCall": True,
                "lastPlayClears": False,
                "leftovers": "lastCapturer",
            },
            "initial": {"wins": [1, 0]},
        },
    ),
    ("hand_started", {"dealer": 2}),
    ("hand_started", {"dealer": 3, "table": ["1o", "3c", "5e", "11b"], "hands": VOCAB_DEAL}),
    ("hand_started", {"dealer": 4, "table": ["1o", "3c", "5e", "11b", "7o"], "hands": hidden(5, 7)}),
    ("hand_result", {"piles": [8, 12, 12, 6], "table": 2}),
    ("hand_result", {"piles": [8, 12, 12, 6], "table": ["1o", "2o"], "lastCapturer": 1}),
    ("score_claimed", {"hand": 1, "points": [8, 12, 12, 6], "totals": [0, 1, 1, 0]}),
    ("score_claimed", {"winners": [1, 2], "totals": [3, 3, None, 0]}),
    ("play", {"seat": 0, "card": "5o"}),
    ("play", {"seat": 1, "card": "7c", "call": True}),
    (
        "play",
        {
            "seat": 3,
            "card": "4b",
            "captures": [{"seat": 2, "cards": ["7o", "7c", "6c", "5e", "5o", "10c", "11b", "11o", "12o", "7e"]}],
        },
    ),
    ("reveal", {"cards": [{"seat": 2, "card": "7e"}]}),
    ("void", {"target": 4, "reason": "claim written for the wrong hand"}),
    ("note", {"text": "Cau!", "target": 15}),
]

SCHEMA_BAD: list[tuple[str, Any, str]] = [
    ("play", {"seat": 0, "card": "8o"}, "$.card"),
    ("play", {"seat": 0, "card": "AS"}, "$.card"),
    ("play", {"seat": 0, "card": "??"}, "$.card"),
    ("play", {"seat": 6, "card": "5o"}, "$.seat"),
    ("play", {"card": "5o"}, "$.seat"),
    ("play", {"seat": 0, "card": "5o", "call": "yes"}, "$.call"),
    ("play", {"seat": 0, "card": "5o", "captures": [{"seat": 0, "cards": ["5o"]}]}, "$.captures[0].cards"),
    ("play", {"seat": 0, "card": "5o", "captures": [{"seat": 0, "cards": ["5o", "5o"]}]}, "$.captures[0].cards"),
    ("play", {"seat": 0, "card": "5o", "extra": 1}, "$.extra"),
    ("hand_started", {"dealer": 0, "table": ["1o", "2o", "3o"], "hands": hidden()}, "$.table"),
    ("hand_started", {"dealer": 0, "table": ["1o", "2o", "3o", "??"], "hands": hidden()}, "$.table[3]"),
    ("hand_started", {"dealer": 0, "table": ["1o", "2o", "3o", "4o"]}, "$.hands"),
    ("hand_started", {"dealer": 0, "hands": hidden()}, "$.table"),
    ("hand_started", {"dealer": 0, "table": ["1o", "2o", "3o", "4o"], "hands": [["13o"] * 9] * 4}, "$.hands[0][0]"),
    ("hand_result", {"table": 2}, "$.piles"),
    ("hand_result", {"piles": [8, 12, 12, 6], "table": 11}, "$.table"),
    ("hand_result", {"piles": [8, 12, 12, 6], "table": 2, "cards": 3}, "$.cards"),
    ("reveal", {"cards": [{"seat": 1, "card": "??"}]}, "$.cards[0].card"),
    ("score_claimed", {"hand": 1}, "$"),
    ("score_claimed", {"points": [8]}, "$.points"),
    (
        "match_started",
        {"game": "cau-robat", "players": ["A", "B", "C"], "options": {"chainMode": "now"}},
        "$.options.chainMode",
    ),
    ("match_started", {"game": "cau-robat", "players": ["A", "B", "C"], "target": {"wins": 0}}, "$.target.wins"),
    (
        "match_started",
        {"game": "cau-robat", "players": ["A", "B", "C"], "initial": {"lossPoints": [0, 0]}},
        "$.initial.lossPoints",
    ),
]


@pytest.mark.parametrize("type_, data", SCHEMA_VALID)
def test_schemas_accept_the_vocabulary_payloads(type_: str, data: Any) -> None:
    from schemas import validate_event

    validate_event("cau-robat", type_, data)


@pytest.mark.parametrize("type_, data, path", SCHEMA_BAD)
def test_schemas_refuse_bad_shapes_with_a_path(type_: str, data: Any, path: str) -> None:
    from schemas import SchemaError, validate_event

    with pytest.raises(SchemaError) as info:
        validate_event("cau-robat", type_, data)
    assert info.value.code == "schema.invalid" and info.value.path == path, info.value


def test_the_vocabulary_log_validates() -> None:
    from schemas import validate_event
    from tests.api.cau_robat_logs import LOG

    for event in LOG:
        validate_event("cau-robat", event["type"], event["data"])


# --------------------------------------------------------------------------- each variant, refused when misread


def test_variants_refuse_a_capture_stated_under_the_other_reading() -> None:
    # runDirection = up: the 6 below is not taken
    m = pos(["6o", "7o", "10o"], [[], [], [], []], {A: ["7c"]}, runDirection="up")
    err = m.refuse(
        "play", "cau-robat.mismatch", seat=A, card="7c", captures=[{"seat": A, "cards": ["7o", "6o", "10o", "7c"]}]
    )
    assert "not taken: 6 de oros" in err.message
    # default: a pile top alone is not matched
    m = pos(["1o"], [[], ["3c", "5o"], [], []], {A: ["5e"]})
    m.refuse("play", "cau-robat.mismatch", seat=A, card="5e", captures=[{"seat": A, "cards": ["3c", "5o", "5e"]}])
    # directPileCapture: it is, and the record must say so
    m = pos(["1o"], [[], ["3c", "5o"], [], []], {A: ["5e"]}, directPileCapture=True)
    m.refuse("play", "cau-robat.mismatch", seat=A, card="5e", captures=[])
    # immediate: the Recau's capture includes what it took back
    m = pos(["1o", "6o"], [[], [], [], []], {A: ["7o"], B: ["7c"], C: ["7e"]}, chainMode="immediate")
    m.play(A, "7o")
    m.play(B, "7c")
    err = m.refuse("play", "cau-robat.mismatch", seat=C, card="7e", captures=[{"seat": C, "cards": ["7c", "7e"]}])
    assert "missing" in err.message
    # deferred (default): the Cau captures nothing yet
    m = pos(["1o", "6o"], [[], [], [], []], {A: ["7o"], B: ["7c"]})
    m.play(A, "7o")
    m.refuse("play", "cau-robat.mismatch", seat=B, card="7c", captures=[{"seat": B, "cards": ["7o", "6o", "7c"]}])


def test_last_play_clears_false_cross_checked() -> None:
    rest = everything_else("5o", "5c", "12c", "2c", top="1o")
    m = Match.at(
        ["A", "B", "C"],
        table=["5o"],
        piles=[rest[:10], ["12c", "2c"], rest[10:]],
        hands=[["5c"], [], []],
        options={"lastPlayClears": False},
    )
    m.play(A, "5c")
    m.refuse("hand_result", "cau-robat.mismatch", piles=[14, 0, 26], table=0)  # as if B and C had paid
    m.add("hand_result", piles=[12, 2, 26], table=0)


def test_the_chain_is_resolved_after_the_last_card() -> None:
    rest = everything_else("1o", "7o", "7c", "2b", "3b", top="1c")
    m = Match.at(["A", "B", "C"], table=["1o"], piles=[["2b", "3b"], [], rest], hands=[["7o"], ["7c"], []])
    m.play(A, "7o")
    m.play(B, "7c")  # Cau with the hand's last card: resolved at once, A pays
    assert m.hand.over and m.piles()[B] == ["7o", "7c", "3b"] and m.hand.calls[0].call == "cau"
    assert m.table() == ["1o"] and m.score()["hands"][0]["result"]["calls"][0]["seats"] == [A, B]
    # a lone starter at the end simply stays on the table, and so does the last card
    rest = everything_else("1o", "7o", "4c", "2b", "3b", top="1c")
    m = Match.at(["A", "B", "C"], table=["1o"], piles=[["2b", "3b"], [], rest], hands=[["4c"], ["7o"], []], turn=B)
    m.play(B, "7o")
    m.refuse("play", "common.not_your_turn", seat=B, card="4c")  # C has no cards: A is next
    m.play(A, "4c")
    assert m.hand.over and m.table() == ["1o", "7o", "4c"] and not m.hand.calls and m.hand.chain is None


# --------------------------------------------------------------------------- closing a hand from the sheet (VOCABULARY.md §4)


def test_a_hand_in_play_closed_from_the_sheet_scores_from_the_facts() -> None:
    m, t, hands = dealt()
    plays, piles, left = reference_hand(4, D, t, hands, random.Random(9))
    for seat, card in plays[:20]:
        m.play(seat, card)
    counts = [len(p) for p in piles]
    m.add("hand_result", piles=counts)  # the sheet form: the rest was left on the table
    hand = m.score()["hands"][0]
    assert hand["status"] == "scored" and hand["points"] == counts and hand["result"]["table"] == len(left)
    assert hand["closedFromSheet"] == {"afterMove": 20, "seq": 23}
    assert m.texts[-1].startswith("Hand 1 closed from the score sheet after move 20: ")
    m.refuse(
        "play", "cau-robat.hand_over", seat=plays[20][0], card=plays[20][1]
    )  # the rest of the plays are not recorded any more
    m.add("hand_started", dealer=0)


def test_the_sheet_form_leaves_the_rest_on_the_table() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    err = m.refuse("hand_result", "cau-robat.bad_result", piles=[8, 8, 8, 5])
    assert "the other 11 cannot all be left on the table" in err.message
    err = m.refuse("hand_result", "cau-robat.bad_result", piles=[8, 12, 12, 9])
    assert "more than the 40 cards" in err.message
    m.add("hand_result", piles=[8, 12, 12, 6])
    assert m.score()["hands"][0]["result"]["table"] == 2


def _late_position(**kwargs: Any) -> Match:
    """Late in a hand: D alone holds a card (12b); A 6 cards, B 10, C 12, D 9; the table 10c 5o."""
    deck = [str(c) for c in SPANISH_40.cards if str(c) not in ("12b", "10c", "5o")]
    piles = [deck[:6], deck[6:16], deck[16:28], deck[28:]]
    return Match.at(PLAYERS, table=["10c", "5o"], piles=piles, hands=[[], [], [], ["12b"]], turn=D, **kwargs)


def test_closing_from_the_sheet_refuses_facts_the_plays_rule_out() -> None:
    m = _late_position()
    err = m.refuse("hand_result", "cau-robat.result_conflict", piles=[6, 10, 12, 4], table=8)
    assert err.message == "the piles already hold 37 cards and cards never leave them; the sheet gives 32"
    err = m.refuse("hand_result", "cau-robat.result_conflict", piles=[8, 10, 12, 8], table=2)
    assert err.message == "A has no card left to play and holds 6 cards in the pile: it cannot grow to 8"
    pile_card = next(c for c in m.hand.piles[A] if c.rank not in ("10", "5"))
    err = m.refuse(
        "hand_result", "cau-robat.result_conflict", piles=[5, 10, 12, 10], table=["10c", "5o", str(pile_card)]
    )
    assert (
        err.message
        == f"{pile_card.pretty()} is already in A's pile and cards never leave the piles; the sheet leaves it on the table"
    )
    err = m.refuse("hand_result", "cau-robat.result_conflict", piles=[6, 10, 12, 9], table=3, lastCapturer=B)
    assert err.message == "B has no card left to play and did not capture last so far; the sheet says B captured last"
    m.add("hand_result", piles=[6, 10, 12, 9], table=3)  # D's 12 captures nothing
    assert m.score()["hands"][0]["points"] == [6, 10, 12, 9] and m.score()["hands"][0]["result"]["winners"] == [C]


def test_a_pile_shrinks_only_when_someone_else_can_take_from_it() -> None:
    # B is the chain's last caller (A, B played 7s): D's last play resolves it, A pays B; D's own pile cannot shrink
    deck = [str(c) for c in SPANISH_40.cards if str(c) not in ("7o", "7c", "12b", "10c")]
    piles = [deck[:6], deck[6:16], deck[16:28], deck[28:36]]
    m = Match.at(
        PLAYERS,
        table=["10c"],
        piles=piles,
        hands=[[], [], [], ["12b"]],
        turn=D,
        chain={"seats": [A, B], "cards": ["7o", "7c"]},
    )
    err = m.refuse("hand_result", "cau-robat.result_conflict", piles=[6, 13, 12, 7], table=2)
    assert (
        err.message
        == "D already captured 8 cards and nobody else has a card left to take any of them; the sheet says 7"
    )
    m.add("hand_result", piles=[5, 13, 12, 8], table=2)  # A paid B one card for the Cau
