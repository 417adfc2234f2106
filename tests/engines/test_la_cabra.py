"""La Cabra engine: every rule of docs/RULES.md §5 and VOCABULARY.md §5.5, legal and illegal."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from tests.engines.deals import HIDDEN, PLAYERS, E, Match, N, S, W, cards, hands, loss_points, play_out, shuffled
from tests.engines.drivers import DRIVERS, run

from engines import la_cabra
from engines.base import Event, RuleViolation, replay

# Z1 (docs/RULES.md §5.7): trump ♠ (Q♠ shown), West deals so North leads.
Z1 = hands("9H KH 6C 7C", "10H 6S 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S")
# Z2: only South holds four of one suit.
Z2 = hands("6C 8H 9H 6D", "6S 8S 9S JH", "7D 8D KD AD", "6H 7H 8C 9C")


def z1(options: dict[str, Any] | None = None, dealt: list[list[str]] = Z1) -> Match:
    m = Match(options)
    m.deal(W, dealt, "QS")
    return m


# --------------------------------------------------------------------------- describe and start


def test_describe_lists_options_events_and_teams() -> None:
    d = la_cabra.describe()
    assert d["game"] == la_cabra.GAME == "la-cabra"
    assert d["name"] == "La Cabra" and d["deck"] == "French 36 (6-A)"
    assert d["players"] == {"min": 4, "max": 4} and d["direction"] == "CW"
    assert d["teams"] == [[0, 2], [1, 3]] and d["target"] == {"lossPoints": 12}
    opts = d["options"]
    assert opts["trumpCard"]["values"] == ["returned", "bottomFaceUp"] and opts["trumpCard"]["default"] == "returned"
    assert opts["discardFaceUp"] == {**opts["discardFaceUp"], "type": "boolean", "default": False}
    assert opts["tiraInterruptsTira"]["default"] is False
    assert opts["eggs"]["values"] == ["none", "doubleNext"] and opts["eggs"]["default"] == "none"
    assert all(o["rule"].startswith("/rules/la-cabra#option-") and o["description"] for o in opts.values())
    assert set(d["events"]) == {
        "match_started",
        "hand_started",
        "lead",
        "beat",
        "discard",
        "tira",
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


def test_start_defaults() -> None:
    s = la_cabra.start(
        {"game": "la-cabra", "players": PLAYERS, "teams": [[0, 2], [1, 3]], "target": {"lossPoints": 12}}
    )
    assert s.options == la_cabra.Options("returned", False, False, "none")
    assert s.totals == (0, 0) and not s.over
    assert la_cabra.score(s)["standings"][1] == {
        "team": 1,
        "seats": [1, 3],
        "names": ["East", "West"],
        "total": 0,
        "status": "playing",
    }


@pytest.mark.parametrize(
    "data, code",
    [
        ({"players": ["A", "B", "C"]}, "la-cabra.players"),
        ({"players": ["A", "B", "C", "D", "E"]}, "la-cabra.players"),
        ({"players": ["A", "B", "A", "D"]}, "la-cabra.players"),
        ({"teams": [[0, 1], [2, 3]]}, "la-cabra.teams"),
        ({"target": {"lossPoints": 10}}, "common.bad_target"),
        ({"options": {"trumps": "returned"}}, "common.bad_option"),
        ({"options": {"trumpCard": "middle"}}, "common.bad_option"),
        ({"options": {"discardFaceUp": "yes"}}, "common.bad_option"),
        ({"options": {"eggs": "triple"}}, "common.bad_option"),
        ({"initial": {"lossPoints": [12, 0]}}, "common.bad_initial"),
        ({"initial": {"lossPoints": [2]}}, "common.bad_initial"),
        ({"initial": {"lossPoints": [0, 0], "doubleNext": True}}, "common.bad_initial"),
        ({"game": "cabo"}, "common.wrong_game"),
    ],
)
def test_start_refuses(data: dict[str, Any], code: str) -> None:
    with pytest.raises(RuleViolation) as info:
        la_cabra.start({"game": "la-cabra", "players": PLAYERS, **data})
    assert info.value.code == code


def test_start_options_non_default() -> None:
    opts = {"trumpCard": "bottomFaceUp", "discardFaceUp": True, "tiraInterruptsTira": True, "eggs": "doubleNext"}
    s = la_cabra.start(
        {
            "game": "la-cabra",
            "players": PLAYERS,
            "options": opts,
            "initial": {"lossPoints": [4, 10], "doubleNext": True},
        }
    )
    assert s.options == la_cabra.Options("bottomFaceUp", True, True, "doubleNext")
    assert s.totals == (4, 10) and s.initial_double


def test_unknown_event_type() -> None:
    m = Match()
    m.refuse("play", "common.unknown_event", seat=0, card="AS")


# --------------------------------------------------------------------------- hand_started


def test_first_hand_any_dealer_leader_is_left_neighbour_by_default() -> None:
    m = Match()
    m.deal(E, HIDDEN, "QS")
    assert (m.hand.dealer, m.hand.leader, m.hand.to_lead, m.hand.stock) == (E, S, S, 20)
    m2 = Match()
    m2.deal(E, HIDDEN, "QS", leader=N)  # a series carried in from paper: free in the first hand
    assert m2.hand.leader == N


def test_dealer_rotates_clockwise_and_leader_is_last_trick_winner() -> None:
    m = Match()
    m.result(N, [72, 48], [5, 2], last=W)
    m.refuse("hand_started", "la-cabra.wrong_dealer", dealer=S, hands=HIDDEN, trump="QS")
    err = m.refuse("hand_started", "la-cabra.mismatch", dealer=E, hands=HIDDEN, trump="QS", leader=N)
    assert "leader" in err.message and "West" in err.message
    m.deal(E, HIDDEN, "QS")
    assert m.hand.leader == W
    m2 = Match()
    m2.result(N, [72, 48], [5, 2], last=W)
    m2.deal(E, HIDDEN, "QS", leader=W)
    assert m2.hand.leader == W


def test_leader_required_after_result_only_hand_without_last_trick() -> None:
    m = Match()
    m.result(N, [72, 48], [5, 2])
    m.refuse("hand_started", "la-cabra.leader_required", dealer=E, hands=HIDDEN, trump="QS")
    m.add("hand_started", dealer=E)  # another result-only hand does not need it
    m.add("hand_result", cardPoints=[60, 60], tricks=[4, 4], lastTrick=S)
    m.deal(S, HIDDEN, "QS")
    assert m.hand.leader == S
    m3 = Match()
    m3.result(N, [72, 48], [5, 2])
    m3.deal(E, HIDDEN, "QS", leader=N)
    assert m3.hand.leader == N


def test_hand_started_refused_while_hand_unfinished() -> None:
    m = z1()
    m.refuse("hand_started", "common.hand_in_progress", dealer=N)
    m2 = Match()
    m2.add("hand_started", dealer=N)
    m2.refuse("hand_started", "common.hand_in_progress", dealer=E)


@pytest.mark.parametrize(
    "data, code",
    [
        ({"hands": HIDDEN}, "la-cabra.bad_deal"),
        ({"trump": "QS"}, "la-cabra.bad_deal"),
        ({"hands": HIDDEN[:3], "trump": "QS"}, "la-cabra.bad_deal"),
        ({"hands": [["??"] * 5] + HIDDEN[1:], "trump": "QS"}, "la-cabra.bad_deal"),
        (
            {"hands": hands("AS ?? ?? ??", "AS ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??"), "trump": "QS"},
            "common.card_duplicate",
        ),
        (
            {"hands": hands("AS AS ?? ??", "?? ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??"), "trump": "QS"},
            "common.card_duplicate",
        ),
        (
            {"hands": hands("QS ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??"), "trump": "QS"},
            "common.card_duplicate",
        ),
        (
            {"hands": hands("5S ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??"), "trump": "QS"},
            "common.card_not_in_deck",
        ),
        (
            {"hands": hands("XX ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??"), "trump": "QS"},
            "common.bad_card",
        ),
        ({"hands": HIDDEN, "trump": "??"}, "common.card_hidden"),
        ({"dealer": 4, "hands": HIDDEN, "trump": "QS"}, "common.bad_seat"),
    ],
)
def test_hand_started_checks_the_deal(data: dict[str, Any], code: str) -> None:
    m = Match()
    m.refuse("hand_started", code, **{"dealer": W, **data})


# --------------------------------------------------------------------------- leading and turns


def test_moves_need_a_dealt_hand() -> None:
    m = Match()
    m.refuse("lead", "common.no_hand", seat=N, cards=["9H"])
    m.refuse("hand_result", "common.no_hand", cardPoints=[60, 60], tricks=[4, 4])
    m.add("hand_started", dealer=W)
    m.refuse("lead", "common.no_deal", seat=N, cards=["9H"])
    m.refuse("tira", "common.no_deal", seat=E, cards=cards("6S 8S 9S JS"))


def test_lead_checks() -> None:
    m = z1()
    m.refuse("lead", "common.not_your_turn", seat=E, cards=["10H"])
    m.refuse("beat", "la-cabra.wrong_move", seat=N, cards=["9H"])
    m.refuse("discard", "la-cabra.wrong_move", seat=N, cards=["9H"])
    m.refuse("lead", "la-cabra.one_suit", seat=N, cards=["9H", "6C"])
    m.refuse("lead", "la-cabra.lead_size", seat=N, cards=cards("9H KH 6C 7C AS"))
    m.refuse("lead", "common.card_hidden", seat=N, cards=["??"])
    m.refuse("lead", "common.card_duplicate", seat=N, cards=["9H", "9H"])
    m.refuse("lead", "common.card_not_in_deck", seat=N, cards=["5H"])
    err = m.refuse("lead", "common.card_unavailable", seat=N, cards=["10H"])
    assert "East's hand" in err.message
    err = m.refuse("lead", "common.card_unavailable", seat=N, cards=["JH"])
    assert "North's hand is known" in err.message
    m.add("lead", seat=N, cards=["9H", "KH"])
    assert m.texts[-1] == "North leads 9♥ K♥"
    m.refuse("lead", "la-cabra.wrong_move", seat=E, cards=["10H"])
    m.refuse("beat", "common.not_your_turn", seat=S, cards=["AH", "7S"])


@pytest.mark.parametrize("lead", [["6C"], ["6C", "7C"], ["9H", "KH"], ["KH"]])
def test_any_one_suit_lead_of_one_to_four_cards(lead: list[str]) -> None:
    m = z1()
    m.add("lead", seat=N, cards=lead)
    assert m.hand.trick is not None and m.hand.trick.k == len(lead)


def test_four_card_lead_by_the_leader() -> None:
    m = Match()
    m.deal(W, hands("6C 7C 8C 9C", "?? ?? ?? ??", "?? ?? ?? ??", "?? ?? ?? ??"), "QS")
    m.add("lead", seat=N, cards=cards("6C 7C 8C 9C"))
    assert m.hand.trick.k == 4


# --------------------------------------------------------------------------- beating: Z1


def test_z1_double_beat_and_face_down_discard() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.add("beat", seat=E, cards=["10H", "6S"])
    assert m.texts[-1] == "East beats with 10♥ 6♠"
    m.add("beat", seat=S, cards=["AH", "7S"])
    moves = la_cabra.legal_moves(m.state)
    assert {"type": "beat", "data": {"seat": W, "cards": ["8S", "9S"]}} in moves  # W could take it…
    assert {"type": "discard", "data": {"seat": W, "cards": ["QC", "6D"]}} in moves
    m.add("discard", seat=W, cards=["6D", "QC"])  # …but need not
    hand = m.hand
    assert hand.tricks == (1, 0) and hand.pile_count == (8, 0) and hand.to_lead == S
    assert la_cabra.view(m.state, "all")["lastTrick"]["points"] == 28
    assert hand.stock == 12 and all(hand.size(s) == 4 for s in range(4))
    assert m.texts[-1] == (
        "West discards 2 cards face down; South takes the trick (25 points face up and 2 face-down cards); "
        "South, West, North and East draw 2 cards each (stock 20 → 12); South leads next"
    )
    m.refuse("lead", "common.not_your_turn", seat=W, cards=["8S"])


def test_z1_counter_example_ace_of_clubs_beats_nothing() -> None:
    m = z1(dealt=hands("9H KH 6C 7C", "10H AC 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S"))
    m.add("lead", seat=N, cards=["9H", "KH"])
    err = m.refuse("beat", "la-cabra.cannot_beat", seat=E, cards=["10H", "AC"])
    assert err.message == "East cannot beat 9♥ K♥ with 10♥ A♣: A♣ beats nothing (trump is ♠)"
    assert [mv for mv in la_cabra.legal_moves(m.state) if mv["type"] == "beat"] == []
    m.add("discard", seat=E, cards=["10H", "AC"])
    assert m.hand.trick.winner == N


def test_beat_needs_a_one_to_one_pairing() -> None:
    m = Match()
    m.deal(W, hands("9H KH 6C 7C", "QH JH 8C 9C", "?? ?? ?? ??", "?? ?? ?? ??"), "QS")
    m.add("lead", seat=N, cards=["9H", "KH"])
    err = m.refuse("beat", "la-cabra.cannot_beat", seat=E, cards=["QH", "JH"])
    assert "different one" in err.message
    m.refuse("beat", "la-cabra.wrong_count", seat=E, cards=["QH"])
    m.refuse("discard", "la-cabra.wrong_count", seat=E, cards=["QH", "JH", "8C"])


def test_beating_a_partner_is_allowed_and_last_beater_wins() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.add("discard", seat=E, cards=["8C", "9C"])
    m.add("beat", seat=S, cards=["AH", "7S"])  # South beats his partner North
    m.add("discard", seat=W, cards=["6D", "QC"])
    assert m.hand.played[-1].winner == S and m.hand.tricks == (1, 0)


def test_trick_to_leader_when_nobody_beats() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["6C"])
    m.add("discard", seat=E, cards=["6S"])
    m.add("discard", seat=S, cards=["JC"])
    m.add("discard", seat=W, cards=["8S"])
    assert m.hand.played[-1].winner == N and m.hand.to_lead == N
    assert m.hand.stock == 16


def test_trump_beats_any_plain_card_and_higher_trump_beats_lower() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["KH"])
    m.add("beat", seat=E, cards=["6S"])
    m.refuse("beat", "la-cabra.cannot_beat", seat=S, cards=["AH"])
    m.add("beat", seat=S, cards=["7S"])
    m.refuse("beat", "la-cabra.cannot_beat", seat=W, cards=["6D"])
    m.add("beat", seat=W, cards=["8S"])
    assert m.hand.played[-1].winner == W and m.hand.tricks == (0, 1)


def test_ten_ranks_between_king_and_ace() -> None:
    m = Match()
    m.deal(W, hands("KD 6C 7C 8C", "10D 9C JC QC", "AD ?? ?? ??", "?? ?? ?? ??"), "QS")
    m.add("lead", seat=N, cards=["KD"])
    m.add("beat", seat=E, cards=["10D"])
    m.add("beat", seat=S, cards=["AD"])
    assert m.hand.trick.winner == S


# --------------------------------------------------------------------------- discards and unknown cards


def test_face_down_discards_stay_hidden_from_other_seats() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.add("discard", seat=E, cards=["8C", "9C"])
    public = json.dumps(la_cabra.view(m.state, None))
    assert "8C" not in public and "9C" not in public
    for seat in (N, S, W):
        assert "8C" not in json.dumps(la_cabra.view(m.state, seat))
    own = la_cabra.view(m.state, E)
    assert own["trick"]["plays"][1]["cards"] == ["8C", "9C"] and own["faceDown"] == ["8C", "9C"]
    assert la_cabra.view(m.state, None)["trick"]["plays"][1]["cards"] == ["??", "??"]


def test_discard_face_up_option() -> None:
    m = z1({"discardFaceUp": True})
    m.add("lead", seat=N, cards=["9H", "KH"])
    err = m.refuse("discard", "common.card_hidden", seat=E, cards=["??", "??"])
    assert "discardFaceUp" in err.message
    m.add("discard", seat=E, cards=["8C", "9C"])
    assert m.texts[-1] == "East discards 8♣ 9♣ face up"
    assert la_cabra.view(m.state, S)["trick"]["plays"][1]["cards"] == ["8C", "9C"]
    m.add("beat", seat=S, cards=["AH", "7S"])
    m.add("discard", seat=W, cards=["6D", "QC"])
    assert "South takes the trick (18 points); " in m.texts[-1]  # K♥ 4 + A♥ 11 + Q♣ 3, all face up
    assert la_cabra.view(m.state, None)["piles"][0]["faceUp"] == ["8C", "9C", "QC", "6D", "9H", "KH", "AH", "7S"]


def test_hidden_discard_from_a_known_hand_must_name_the_cards() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["9H", "KH"])
    err = m.refuse("discard", "la-cabra.name_discard", seat=E, cards=["??", "??"])
    assert err.message == "East's hand is known (8♣ 9♣ 10♥ 6♠); name the discarded cards"
    m2 = Match()
    m2.deal(W, hands("9H KH 6C 7C", "10H 6S 8C ??", "?? ?? ?? ??", "?? ?? ?? ??"), "QS")
    m2.add("lead", seat=N, cards=["9H", "KH"])
    m2.refuse("discard", "la-cabra.name_discard", seat=E, cards=["??", "??"])
    m2.add("discard", seat=E, cards=["8C", "??"])
    assert m2.hand.unknown[E] == 0 and m2.hand.known[E] == frozenset(la_cabra.rules.read_card(c) for c in ["10H", "6S"])


def test_implicit_binding_of_unknown_cards() -> None:
    m = Match()
    m.deal(W, hands("9H ?? ?? ??", "?? ?? ?? ??", "AH ?? ?? ??", "?? ?? ?? ??"), "QS")
    m.add("lead", seat=N, cards=["9H", "KH"])  # K♥ binds one of North's unknown cards
    assert m.hand.unknown[N] == 2
    err = m.refuse("beat", "common.card_unavailable", seat=E, cards=["AH", "6S"])
    assert "South's hand" in err.message
    m.refuse("beat", "common.card_unavailable", seat=E, cards=["KH", "AS"])  # K♥ is on the table
    m.add("beat", seat=E, cards=["10H", "6S"])
    assert m.hand.unknown[E] == 2
    m.add("discard", seat=S, cards=["??", "AH"])
    assert m.hand.unknown[S] == 2 and m.hand.known[S] == frozenset()


def test_returned_trump_card_cannot_be_played_before_the_first_refill() -> None:
    m = Match()
    m.deal(W, HIDDEN, "QS")
    err = m.refuse("lead", "common.card_unavailable", seat=N, cards=["QS"])
    assert "put back into the stock" in err.message
    m.refuse("reveal", "common.card_unavailable", cards=[{"seat": N, "card": "QS"}])
    m.add("lead", seat=N, cards=["9H"])
    m.add("discard", seat=E, cards=["??"])
    m.add("discard", seat=S, cards=["??"])
    m.add("discard", seat=W, cards=["??"])
    m.refuse("reveal", "common.card_unavailable", cards=[{"seq": 6, "index": 0, "card": "QS"}])
    m.add("lead", seat=N, cards=["QS"])  # now North may have drawn it
    assert la_cabra.rules.read_card("QS") in m.hand.located


def test_bottom_face_up_trump_is_drawn_last_by_a_known_seat() -> None:
    rng = random.Random(7)
    dealt, trump, stock = shuffled(rng, bottom=True)
    m = Match({"trumpCard": "bottomFaceUp"})
    m.deal(W, dealt, trump)
    blind = Match({"trumpCard": "bottomFaceUp"})
    blind.deal(W, HIDDEN, trump)
    err = blind.refuse("reveal", "common.card_duplicate", cards=[{"seat": N, "card": trump}])
    assert "bottom of the stock" in err.message
    blind.refuse("lead", "common.card_unavailable", seat=N, cards=[trump])
    play_out(m, stock, until=lambda st: st.current.stock == 0)
    hand = m.hand
    winner = hand.played[-1].winner
    holder = (winner + 3) % 4
    t = la_cabra.rules.read_card(trump)
    assert t in hand.known[holder] and t in hand.shown[holder]
    assert trump in la_cabra.view(m.state, (holder + 1) % 4)["hands"][holder]["shown"]
    assert f"taking the face-up {t.pretty()} last" in [x for x in m.texts if "→ 0" in x][0]


# --------------------------------------------------------------------------- tira: Z2


def z2(options: dict[str, Any] | None = None, dealt: list[list[str]] = Z2) -> Match:
    m = Match(options)
    m.deal(W, dealt, "QS")
    m.add("lead", seat=N, cards=["6C"])
    m.add("beat", seat=E, cards=["6S"])
    return m


def test_z2_tira_out_of_turn() -> None:
    m = z2()
    tira = [mv for mv in la_cabra.legal_moves(m.state) if mv["type"] == "tira"]
    assert tira == [{"type": "tira", "data": {"seat": S, "cards": ["7D", "8D", "KD", "AD"]}}]
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    assert m.texts[-1] == "South declares a tira: 7♦ 8♦ K♦ A♦; North's 6♣ and East's 6♠ go back"
    hand = m.hand
    assert hand.size(N) == 4 and hand.size(E) == 4 and hand.trick.k == 4 and hand.trick.leader == S
    assert la_cabra.view(m.state, W)["hands"][N]["shown"] == ["6C"]  # everyone saw it
    m.refuse("discard", "common.not_your_turn", seat=N, cards=cards("6C 8H 9H 6D"))
    m.add("discard", seat=W, cards=cards("6H 7H 8C 9C"))
    m.add("discard", seat=N, cards=cards("6C 8H 9H 6D"))
    m.refuse("beat", "la-cabra.cannot_beat", seat=E, cards=cards("6S 8S 9S JH"))
    m.add("discard", seat=E, cards=cards("6S 8S 9S JH"))
    assert m.hand.played[-1].winner == S and m.hand.tricks == (1, 0)
    assert la_cabra.view(m.state, "all")["lastTrick"]["points"] == 17
    assert m.hand.stock == 4 and m.hand.to_lead == S
    assert (
        "South takes the trick (15 points face up and 12 face-down cards); "
        "South, West, North and East draw 4 cards each (stock 20 → 4)"
    ) in m.texts[-1]


def test_z2_variation_spade_jack_beats_all_four() -> None:
    m = z2(dealt=hands("6C 8H 9H 6D", "6S 8S 9S JS", "7D 8D KD AD", "6H 7H 8C 9C"))
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    m.add("discard", seat=W, cards=cards("6H 7H 8C 9C"))
    m.add("discard", seat=N, cards=cards("6C 8H 9H 6D"))
    m.add("beat", seat=E, cards=cards("6S 8S 9S JS"))
    assert m.hand.played[-1].winner == E and m.hand.tricks == (0, 1)
    assert la_cabra.view(m.state, "all")["piles"][1]["knownPoints"] == 17


def test_z2_priority_nearest_clockwise_from_the_original_leader() -> None:
    dealt = hands("6C 8H 9H 6D", "6S 8S 9S JH", "7D 8D KD AD", "7C 8C 9C 10C")
    m = z2(dealt=dealt)
    err = m.refuse("tira", "la-cabra.tira_priority", seat=W, cards=cards("7C 8C 9C 10C"), rivals=[S])
    assert "South" in err.message and "North" in err.message
    m.refuse("tira", "la-cabra.bad_rivals", seat=S, cards=cards("7D 8D KD AD"), rivals=[E])  # East has played
    m.refuse("tira", "la-cabra.bad_rivals", seat=S, cards=cards("7D 8D KD AD"), rivals=[S])
    m.refuse("tira", "la-cabra.bad_rivals", seat=S, cards=cards("7D 8D KD AD"), rivals=[W, W])
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"), rivals=[W])
    assert m.hand.trick.leader == S and m.hand.trick.origin == N


def test_tira_checks() -> None:
    m = z2()
    m.refuse("tira", "la-cabra.tira_cards", seat=S, cards=cards("7D 8D KD"))
    m.refuse("tira", "la-cabra.tira_cards", seat=W, cards=cards("6H 7H 8C 9C"))
    m.refuse("tira", "la-cabra.tira_played", seat=E, cards=cards("6S 8S 9S JS"))
    m.refuse("tira", "common.card_unavailable", seat=W, cards=cards("6H 7H 10H QH"))
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    err = m.refuse("tira", "la-cabra.tira_again", seat=W, cards=cards("6H 7H 8H 9H"))
    assert "entry 5" in err.message


def test_tira_interrupts_tira_option() -> None:
    dealt = hands("6C 8H 9H 6D", "6S 8S 9S JS", "7D 8D KD AD", "6H 7H 8C 9C")
    m = z2({"tiraInterruptsTira": True}, dealt=dealt)
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    assert {"type": "tira", "data": {"seat": E, "cards": ["6S", "8S", "9S", "JS"]}} in la_cabra.legal_moves(m.state)
    m.add("tira", seat=E, cards=cards("6S 8S 9S JS"))  # East's 6♠ came back: he has not played to it now
    hand = m.hand
    assert hand.trick.leader == E and hand.trick.origin == N and hand.size(S) == 4
    assert hand.shown[S] == frozenset(la_cabra.rules.read_card(c) for c in cards("7D 8D KD AD"))
    m.refuse("tira", "la-cabra.tira_played", seat=E, cards=cards("6S 8S 9S JS"))


def test_tira_before_anyone_led() -> None:
    m = Match()
    m.deal(W, hands("6C 7C 8C 9C", "6S 8S 9S JH", "7D 8D KD AD", "6H 7H 8H 9H"), "QS")
    m.refuse("tira", "la-cabra.tira_leader", seat=N, cards=cards("6C 7C 8C 9C"))
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    assert m.hand.trick.leader == S and m.hand.trick.origin == N and m.hand.trick.turn == W


def test_tira_returns_a_written_face_down_discard_still_hidden() -> None:
    m = Match()
    m.deal(W, Z2, "QS")
    m.add("lead", seat=N, cards=["6C"])
    m.add("discard", seat=E, cards=["JH"])
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    assert m.texts[-1] == "South declares a tira: 7♦ 8♦ K♦ A♦; North's 6♣ and East's face-down card go back"
    assert la_cabra.view(m.state, None)["hands"][E]["shown"] == []
    assert la_cabra.view(m.state, None)["hands"][N]["shown"] == ["6C"]
    for seat in (N, S, W):
        assert "JH" not in json.dumps(la_cabra.view(m.state, seat))
    assert "JH" in la_cabra.view(m.state, E)["cards"] and la_cabra.view(m.state, E)["faceDown"] == []


def test_tira_returns_face_down_discards_as_they_were_recorded() -> None:
    m = Match()
    m.deal(W, hands("6C ?? ?? ??", "?? ?? ?? ??", "7D 8D KD AD", "?? ?? ?? ??"), "QS")
    m.add("lead", seat=N, cards=["6C"])
    m.add("discard", seat=E, cards=["??"])
    m.add("tira", seat=S, cards=cards("7D 8D KD AD"))
    assert m.hand.unknown[E] == 4 and m.hand.withdrawn == ((4, 5),)
    err = m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 4, "index": 0, "card": "9C"}])
    assert "tira of entry 5" in err.message


# --------------------------------------------------------------------------- a whole deal


def full_deal(seed: int, options: dict[str, Any] | None = None) -> Match:
    rng = random.Random(seed)
    m = Match(options)
    dealt, trump, stock = shuffled(rng, bottom=(options or {}).get("trumpCard") == "bottomFaceUp")
    m.deal(W, dealt, trump)
    play_out(m, stock, pick=lambda moves: rng.choice(moves))
    return m


@pytest.mark.parametrize("seed", range(6))
def test_whole_deal_scores_120_and_loss_points(seed: int) -> None:
    m = full_deal(seed)
    h = m.hand_score(1)
    assert h["status"] == "scored"
    r = h["result"]
    assert sum(r["cardPoints"]) == 120 and sum(m.hand.pile_count) == 36
    assert 3 <= sum(r["tricks"]) <= 9
    assert r["lossPoints"] == h["points"] == loss_points(r["cardPoints"], r["tricks"]) == h["totals"]
    assert sum(line["points"] for line in h["lines"]) == sum(h["points"])
    assert all(line["rule"].startswith("/rules/la-cabra#") for line in h["lines"])
    last = m.hand.last_winner
    m.refuse("lead", "la-cabra.deal_over", seat=last, cards=["6C"])
    assert la_cabra.legal_moves(m.state)[0] == {"type": "hand_started", "data": {"dealer": N, "leader": last}}
    check = la_cabra.legal_moves(m.state)[1]
    assert check == {
        "type": "hand_result",
        "data": {"tricks": r["tricks"], "lastTrick": last, "cardPoints": r["cardPoints"]},
    }
    m.add("hand_result", **check["data"])
    m.deal(N, HIDDEN, "QS")
    assert m.hand.leader == last
    assert replay(la_cabra, m.events) == m.state


def test_hand_size_when_the_stock_is_empty() -> None:
    rng = random.Random(3)
    m = Match()
    dealt, trump, stock = shuffled(rng)
    m.deal(W, dealt, trump)
    play_out(m, stock, until=lambda st: st.current.stock == 0 and st.current.size(0) < 4 and st.current.trick is None)
    hand = m.hand
    leader = hand.to_lead
    held = sorted(hand.known[leader], key=str)
    suit = held[0].suit
    four = [str(c) for c in la_cabra.state.DECK.distinct() if c.suit == suit][:4]
    m.refuse("lead", "la-cabra.hand_size", seat=leader, cards=four)


# --------------------------------------------------------------------------- VOCABULARY §7


LOG7 = """{"type":"match_started","data":{"game":"la-cabra","players":["North","East","South","West"],"teams":[[0,2],[1,3]],"options":{}}}
{"type":"hand_started","data":{"dealer":3}}
{"type":"hand_result","data":{"cardPoints":[72,48],"tricks":[5,2],"lastTrick":0}}
{"type":"score_claimed","data":{"hand":1,"points":[0,2],"totals":[0,2]}}
{"type":"hand_started","data":{"dealer":0,"trump":"QS","hands":[["??","??","??","??"],["??","??","??","??"],["??","??","??","??"],["??","??","??","??"]]}}
{"type":"lead","data":{"seat":0,"cards":["9H","KH"]}}
{"type":"beat","data":{"seat":1,"cards":["10H","6S"]}}
{"type":"beat","data":{"seat":2,"cards":["AH","7S"]}}
{"type":"discard","data":{"seat":3,"cards":["??","??"]}}
{"type":"reveal","data":{"cards":[{"seq":9,"index":0,"card":"6D"},{"seq":9,"index":1,"card":"QC"}]}}"""


def test_vocabulary_example_log() -> None:
    events = [Event(i + 1, **json.loads(line)) for i, line in enumerate(LOG7.splitlines())]
    after9 = replay(la_cabra, events[:9])
    sheet = la_cabra.score(after9)
    first, second = sheet["hands"]
    assert first["status"] == "scored" and first["points"] == [0, 2] and first["totals"] == [0, 2]
    assert first["lines"][1] == {
        "team": 1,
        "points": 2,
        "reason": "East and West took 48 card points (31–59): 2 loss points",
        "rule": "/rules/la-cabra#scoring-deal",
    }
    hand = after9.current
    assert (hand.dealer, hand.leader) == (N, N)
    assert second["status"] == "playing" and second["missing"] == [{"seq": 9, "index": 0}, {"seq": 9, "index": 1}]
    last = la_cabra.view(after9, "all")["lastTrick"]
    assert last["winner"] == S and last["points"] is None and last["knownPoints"] == 25
    assert hand.stock == 12 and hand.to_lead == S and hand.pile_count == (8, 0)
    final = replay(la_cabra, events)
    assert la_cabra.view(final, "all")["lastTrick"]["points"] == 28
    assert "missing" not in la_cabra.score(final)["hands"][1]
    assert la_cabra.legal_moves(final)[0] == {"type": "lead", "data": {"seat": S}}


# --------------------------------------------------------------------------- scoring: Z3 and eggs


Z3 = [
    ([72, 48], [5, 2]),
    ([25, 95], [2, 5]),
    ([60, 60], [4, 4]),
    ([0, 120], [1, 6]),
    ([120, 0], [6, 0]),
    ([30, 90], [3, 4]),
]


def test_z3_series_default_eggs() -> None:
    m = Match()
    totals = []
    for i, (pts, tricks) in enumerate(Z3):
        m.result(i % 4, pts, tricks, last=0 if tricks[0] else 1)
        totals.append(m.hand_score()["totals"])
    assert totals == [[0, 2], [4, 2], [4, 2], [8, 2], [8, 8], [12, 8]]
    sheet = m.score()
    assert [h["points"] for h in sheet["hands"]] == [[0, 2], [4, 0], [0, 0], [4, 0], [0, 6], [4, 0]]
    assert sheet["hands"][2]["result"]["eggs"] is True and sheet["hands"][2]["result"]["multiplier"] == 1
    assert sheet["hands"][4]["lines"][-1]["reason"] == "East and West took no trick: 6 loss points"
    assert (
        sheet["hands"][3]["lines"][-1]["reason"]
        == "North and South took 0 card points (30 or fewer, with a trick): 4 loss points"
    )
    assert sheet["end"]["over"] is True and sheet["end"]["winners"] == [1] and sheet["end"]["goat"] == 0
    assert sheet["end"]["rule"] == "/rules/la-cabra#scoring-series" and "North and South" in sheet["end"]["reason"]
    assert [s["status"] for s in sheet["standings"]] == ["out", "winner"]
    assert [s["total"] for s in sheet["standings"]] == [12, 8]
    m.refuse("hand_started", "common.match_over", dealer=2)
    assert la_cabra.legal_moves(m.state) == []
    m.add("hand_result", cardPoints=[30, 90], tricks=[3, 4])  # a cross-check still comes
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[31, 89], tricks=[3, 4])
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[30, 90], tricks=[4, 3])


def test_state_hand_reads_one_hand_of_hands() -> None:
    m = Match()
    with pytest.raises(IndexError):
        m.state.hand(0)
    for i, (pts, tricks) in enumerate(Z3[:3]):
        m.result(i % 4, pts, tricks, last=0 if tricks[0] else 1)
    s = m.state
    assert [s.hand(i) for i in range(len(s.hands))] == list(s.hands) and s.hand(len(s.past)) is s.current
    for i in (-1, len(s.hands)):
        with pytest.raises(IndexError):
            s.hand(i)


def test_moves_and_reveals_in_the_current_hand_leave_the_earlier_hands_alone() -> None:
    """Only the current hand is rebuilt per event: a move costs the same in hand 3 as in hand 3,000."""
    m = Match()
    for i, (pts, tricks) in enumerate(Z3[:2]):
        m.result(i % 4, pts, tricks, last=0 if tricks[0] else 1)
    dealt, trump, stock = shuffled(random.Random(7))
    m.deal(2, dealt, trump)
    states, add = [m.state], m.add

    def tracked(type: str, **data: Any) -> la_cabra.State:
        states.append(add(type, **data))
        return states[-1]

    m.add = tracked  # type: ignore[method-assign]
    play_out(m, stock, until=lambda st: st.current is not None and st.current.stock == 0)
    assert {e.type for e in m.events[-len(states) + 1 :]} >= {"lead", "beat", "discard", "reveal"}
    for before, after in zip(states, states[1:]):
        assert after.past is before.past and after.scores is before.scores


def test_z3_series_double_next() -> None:
    m = Match({"eggs": "doubleNext"})
    for i, (pts, tricks) in enumerate(Z3[:4]):
        m.result(i % 4, pts, tricks, last=0 if tricks[0] else 1)
    sheet = m.score()
    assert sheet["hands"][3]["points"] == [8, 0] and sheet["hands"][3]["result"]["multiplier"] == 2
    assert sheet["hands"][3]["totals"] == [12, 2]
    assert "doubled after the eggs of hand 3: 8" in sheet["hands"][3]["lines"][-1]["reason"]
    assert "doubled" in sheet["hands"][2]["lines"][0]["reason"]
    assert sheet["end"]["over"] and sheet["end"]["goat"] == 0
    m.refuse("hand_started", "common.match_over", dealer=0)


def test_double_next_never_compounds() -> None:
    m = Match({"eggs": "doubleNext"})
    m.result(0, [60, 60], [4, 4], last=0)
    m.result(1, [60, 60], [4, 4], last=0)
    m.result(2, [50, 70], [3, 3], last=0)
    m.result(3, [50, 70], [3, 3], last=0)
    assert [h["points"] for h in m.score()["hands"]] == [[0, 0], [0, 0], [4, 0], [2, 0]]
    assert [h["result"]["multiplier"] for h in m.score()["hands"]] == [1, 2, 2, 1]


def test_initial_standings_and_double_next() -> None:
    m = Match({"eggs": "doubleNext"}, initial={"lossPoints": [6, 10], "doubleNext": True})
    m.result(2, [50, 70], [3, 3], last=1)  # carried in: any dealer
    assert m.hand_score()["points"] == [4, 0] and m.hand_score()["totals"] == [10, 10]
    assert "the paper sheet" in m.hand_score()["lines"][-1]["reason"]
    m.result(3, [70, 50], [3, 3], last=0)
    assert m.score()["end"]["goat"] == 1 and m.score()["standings"][1]["total"] == 12


@pytest.mark.parametrize(
    "pts, tricks, expected",
    [
        ([61, 59], [4, 3], [0, 2]),
        ([59, 61], [4, 3], [2, 0]),
        ([90, 30], [4, 3], [0, 4]),
        ([89, 31], [4, 3], [0, 2]),
        ([120, 0], [7, 1], [0, 4]),
        ([120, 0], [4, 0], [0, 6]),
        ([0, 120], [0, 5], [6, 0]),
        ([60, 60], [2, 5], [0, 0]),
    ],
)
def test_loss_point_bands(pts: list[int], tricks: list[int], expected: list[int]) -> None:
    m = Match()
    m.result(0, pts, tricks)
    assert m.hand_score()["points"] == expected


# --------------------------------------------------------------------------- result-only checks


@pytest.mark.parametrize(
    "data, words",
    [
        ({"cardPoints": [72, 50], "tricks": [5, 2]}, "add up to 120"),
        ({"cardPoints": [119, 1], "tricks": [5, 2]}, "worth 119"),
        ({"cardPoints": [1, 119], "tricks": [5, 2]}, "worth 1"),
        ({"cardPoints": [72, 48], "tricks": [1, 1]}, "3 to 9 tricks"),
        ({"cardPoints": [72, 48], "tricks": [5, 5]}, "3 to 9 tricks"),
        ({"cardPoints": [110, 10], "tricks": [5, 0]}, "no trick"),
        ({"cardPoints": [120, 0], "tricks": [5, 0], "lastTrick": 1}, "lastTrick"),
        ({"tricks": [5, 2]}, "cardPoints, cards or lossPoints"),
        ({"cardPoints": [60, 60], "tricks": [1, 8]}, "cannot be worth 60"),
        ({"cardPoints": [72, 48], "tricks": [5]}, "two numbers"),
        # the score-sheet forms
        (
            {"cardPoints": [0, 120]},
            "for example North and South 1 and East and West 8, or North and South 0 and East and West 9",
        ),
        (
            {"cardPoints": [120, 0]},
            "by giving both teams' tricks, for example North and South 8 and East and West 1, or North and South 9 and East and West 0",
        ),
        ({"cardPoints": [119, 1]}, "worth 1"),
        ({"lossPoints": [2, 2]}, "the losing team gets 2, 4 or 6"),
        ({"lossPoints": [0, 3]}, "not 0 and 3"),
        ({"lossPoints": [0, 8]}, "write 4 for a doubled 8"),
        ({"lossPoints": [0, 2], "cardPoints": [72, 48]}, "lossPoints stands alone"),
        ({"lossPoints": [6, 0], "tricks": [1, 5]}, "6 loss points mean North and South took no trick"),
        ({"lossPoints": [0, 2], "tricks": [7, 0]}, "East and West took no trick: that loses with 6"),
        (
            {"lossPoints": [6, 0], "lastTrick": 2},
            "lastTrick: North and South took no trick, so South cannot have won the last one",
        ),
    ],
)
def test_result_only_checks(data: dict[str, Any], words: str) -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    err = m.refuse("hand_result", "la-cabra.bad_result", **data)
    assert words in err.message


def _split(rng: random.Random, n0: int) -> list[list[str]]:
    deck = [str(c) for c in la_cabra.state.DECK.distinct()]
    rng.shuffle(deck)
    return [deck[:n0], deck[n0:]]


def test_result_only_with_card_lists() -> None:
    rng = random.Random(1)
    lists = _split(rng, 12)
    pts = [la_cabra.state.points(la_cabra.rules.read_card(c) for c in lst) for lst in lists]
    m = Match()
    m.add("hand_started", dealer=0)
    m.refuse("hand_result", "la-cabra.bad_result", cards=[lists[0][:-1], lists[1]], tricks=[2, 4])  # a card missing
    m.refuse("hand_result", "la-cabra.bad_result", cards=[lists[0] + [lists[1][0]], lists[1]], tricks=[2, 4])
    m.refuse(
        "hand_result", "la-cabra.bad_result", cards=[lists[0][:-1], lists[1] + lists[0][-1:]], tricks=[2, 4]
    )  # 11 cards
    m.refuse("hand_result", "la-cabra.bad_result", cards=lists, tricks=[4, 3])  # 12 cards cannot be 4 tricks
    m.refuse("hand_result", "la-cabra.bad_result", cards=lists, tricks=[2, 4], cardPoints=[pts[0] + 1, pts[1] - 1])
    m.add("hand_result", cards=lists, tricks=[2, 4], lastTrick=1)
    h = m.hand_score()
    assert h["result"]["cardPoints"] == pts and h["status"] == "scored"
    assert any("'s tricks: " in line["reason"] for line in h["lines"])
    m.refuse("hand_result", "la-cabra.mismatch", cards=_split(random.Random(2), 12), tricks=[2, 4])
    m.refuse("hand_result", "la-cabra.mismatch", cards=lists, tricks=[2, 4], lastTrick=3)
    m.add("hand_result", cardPoints=pts, tricks=[2, 4], lastTrick=1)


ALL_CARDS = [str(c) for c in la_cabra.state.DECK.distinct()]
BLANKS = ["6C", "7C", "8C", "9C"]  # one trick's worth of cards worth nothing


def check_templates(m: Match) -> None:
    """Every complete template ``legal_moves`` offers applies (the conformance drivers' cross-check)."""
    for move in la_cabra.legal_moves(m.state):
        if move["type"] == "hand_result" and move["data"]:
            la_cabra.apply(m.state, Event(m.seq, move["type"], move["data"]))


@pytest.mark.parametrize("team", [0, 1])
def test_an_empty_card_list_is_a_team_that_took_no_trick(team: int) -> None:
    """Each trick puts cards in its winner's pile and the lists name all 36 cards: an empty list took no trick (6)."""
    lists = [ALL_CARDS, []] if team == 1 else [[], ALL_CARDS]
    m = Match()
    m.add("hand_started", dealer=0)
    m.add("hand_result", cards=lists)
    h = m.hand_score()
    pts = [120, 0] if team == 1 else [0, 120]
    assert h["status"] == "scored" and h["result"]["cardPoints"] == pts and h["result"]["tricks"] is None
    assert h["points"] == ([0, 6] if team == 1 else [6, 0])
    assert any(
        line["reason"] == f"{'East and West' if team == 1 else 'North and South'} took no trick: 6 loss points"
        for line in h["lines"]
    )
    check = la_cabra.legal_moves(m.state)[1]
    assert check == {"type": "hand_result", "data": {"cardPoints": pts}}
    check_templates(m)
    m.add("hand_result", cardPoints=pts)  # the record already says the team took no trick: tricks not needed
    m.add("hand_result", cardPoints=pts, tricks=[9, 0] if team == 1 else [0, 9])
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=pts, tricks=[8, 1] if team == 1 else [1, 8])  # 4, not 6
    m.refuse("hand_result", "la-cabra.mismatch", cards=[lists[1], lists[0]])


def test_a_list_of_blank_cards_is_a_team_that_took_blank_tricks() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    m.add("hand_result", cards=[BLANKS, [c for c in ALL_CARDS if c not in BLANKS]])
    h = m.hand_score()
    assert h["status"] == "scored" and h["result"]["cardPoints"] == [0, 120] and h["points"] == [4, 0]
    check_templates(m)
    m.add("hand_result", cardPoints=[0, 120])  # the record shows NS taking a trick
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[0, 120], tricks=[0, 9])


def test_card_lists_name_every_card() -> None:
    """A ``"??"`` in a sheet's card lists is refused: the lists are the piles, so a list's length is its pile's size."""
    m = Match()
    m.add("hand_started", dealer=0)
    m.refuse("hand_result", "common.card_hidden", cards=[ALL_CARDS[:-4] + ["??"], ALL_CARDS[-4:]])
    m.refuse("hand_result", "la-cabra.bad_result", cards=[ALL_CARDS, []], tricks=[8, 1])
    m.refuse("hand_result", "la-cabra.bad_result", cards=[ALL_CARDS, []], lastTrick=1)


def test_zero_card_points_alone_still_need_tricks_when_the_record_does_not_say() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    m.refuse("hand_result", "la-cabra.bad_result", cardPoints=[120, 0])
    m.add("hand_result", cardPoints=[120, 0], tricks=[9, 0])
    m.add("hand_result", cardPoints=[120, 0])  # now the record says
    assert m.hand_score()["points"] == [0, 6]
    n = z1()  # a dealt hand closed before any move: nobody has a trick yet
    n.refuse("hand_result", "la-cabra.bad_result", cardPoints=[0, 120])
    n.add("hand_result", cards=[[], ALL_CARDS])
    assert n.hand_score()["points"] == [6, 0] and n.hand_score()["closedFromSheet"] == {"afterMove": 0, "seq": 3}
    check_templates(n)
    n.add("hand_result", cardPoints=[0, 120])


def test_a_deal_played_to_its_end_says_who_took_no_trick() -> None:
    """The moves show East and West taking no trick: a cross-check of 0 card points needs no tricks (it could not say otherwise)."""
    dealt, trump, stock = shuffled(random.Random(0))
    m = Match()
    m.deal(W, dealt, trump)

    def ns_beat_ew_discard(moves: list[dict[str, Any]]) -> dict[str, Any]:
        wanted = "beat" if moves[0]["data"]["seat"] % 2 == 0 else "discard"
        return next((mv for mv in moves if mv["type"] == wanted), moves[0])

    play_out(m, list(stock), ns_beat_ew_discard)
    assert m.hand.tricks == (9, 0) and m.hand_score()["points"] == [0, 6]
    check_templates(m)
    m.add("hand_result", cardPoints=[120, 0])
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[120, 0], tricks=[8, 1])
    m.refuse("hand_result", "la-cabra.bad_result", cardPoints=[120, 0], tricks=[9, 0], lastTrick=1)


@pytest.mark.parametrize("seed", [999, 1657, 1927, 2123, 2462, 2603])
def test_playouts_with_a_team_listed_without_cards(seed: int) -> None:
    """The conformance playouts that wrote a sheet with one team's card list empty (every template cross-checked)."""
    events, state = run(la_cabra, DRIVERS["la-cabra"](random.Random(seed)))
    assert replay(la_cabra, events) == state and la_cabra.score(state)["end"]["over"]
    emptied = [e for e in events if e.type == "hand_result" and "cards" in e.data and not all(e.data["cards"])]
    assert emptied and all("tricks" not in e.data for e in emptied)


def test_result_only_hand_refuses_moves_and_second_result_adds_last_trick() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    m.add("hand_result", cardPoints=[72, 48], tricks=[5, 2])
    m.refuse("lead", "common.no_deal", seat=1, cards=["6C"])
    m.add("hand_result", cardPoints=[72, 48], tricks=[5, 2], lastTrick=2)
    m.deal(1, HIDDEN, "QS")
    assert m.hand.leader == 2


# --------------------------------------------------------------------------- hidden discards, reveals, cross-checks


def hidden_deal(seed: int, options: dict[str, Any] | None = None) -> tuple[Match, Match]:
    """The same random deal twice: fully known, and recorded with hidden hands and discards."""
    known = full_deal(seed, options)
    m = Match(options)
    slots: list[tuple[int, int, str]] = []
    for event in known.events[1:]:
        data = dict(event.data)
        if event.type == "reveal":
            continue
        if event.type == "hand_started":
            data["hands"] = HIDDEN
        if event.type == "discard" and not m.state.options.discardFaceUp:
            seat = data["seat"]
            written = []
            for i, c in enumerate(data["cards"]):
                if la_cabra.rules.read_card(c) in m.hand.known[seat]:
                    written.append(c)
                else:
                    written.append("??")
                    slots.append((m.seq, i, c))
            data["cards"] = written
        m.add(event.type, **data)
    m.slots = slots  # type: ignore[attr-defined]
    return known, m


def test_hidden_deal_incomplete_then_scored_by_reveals() -> None:
    for seed in range(20):
        known, m = hidden_deal(seed)
        refs = sorted(m.hand.pile_hidden[0] + m.hand.pile_hidden[1])
        if m.hand.pile_hidden[0] and m.hand.pile_hidden[1]:
            break
    else:
        pytest.fail("no deal with face-down cards in both piles")
    h = m.hand_score()
    assert h["status"] == "incomplete" and h["points"] is None and h["totals"] == [0, 0]
    assert h["missing"] == [{"seq": s, "index": i} for s, i in refs]
    assert all(
        line["points"] == 0 and "incomplete" in line["reason"]
        for line in h["lines"]
        if "'s tricks" not in line["reason"]
    )
    assert la_cabra.legal_moves(m.state)[1]["data"].get("cardPoints") is None
    m.add("reveal", cards=[{"seq": s, "index": i, "card": c} for s, i, c in m.slots])
    assert m.score() == known.score()
    m.refuse(
        "reveal", "common.bad_reveal", cards=[{"seq": m.slots[0][0], "index": m.slots[0][1], "card": m.slots[0][2]}]
    )


def test_hidden_cards_in_one_pile_only_are_scored_exactly() -> None:
    for seed in range(60):
        known, m = hidden_deal(seed)
        hidden = m.hand.pile_hidden
        if bool(hidden[0]) != bool(hidden[1]):
            break
    else:
        pytest.fail("no deal with face-down cards in one pile only")
    h = m.hand_score()
    assert h["status"] == "scored" and "missing" not in h
    assert h["result"] == known.hand_score()["result"] and h["points"] == known.hand_score()["points"]
    assert not any("as the table counted" in line["reason"] for line in h["lines"])


def test_cross_check_with_hidden_discards_and_later_reveal() -> None:
    for seed in range(40):
        known, m = hidden_deal(seed)
        facts = m.hand.facts
        if facts.points is None and len(la_cabra.state.bits(facts.sums)) > 1:
            break
    else:
        pytest.fail("no suitable deal")
    true = known.hand_score()["result"]
    r = true["cardPoints"]
    wrong = next(p for p in range(121) if not facts.sums >> p & 1 and p not in (1, 119))
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[wrong, 120 - wrong], tricks=true["tricks"])
    other = next(p for p in la_cabra.state.bits(facts.sums) if p != r[0] and p not in (1, 119))
    assert true["tricks"][0] != true["tricks"][1]
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=r, tricks=[true["tricks"][1], true["tricks"][0]])
    m.refuse(
        "hand_result", "la-cabra.mismatch", cardPoints=r, tricks=true["tricks"], lastTrick=(m.hand.last_winner + 1) % 4
    )
    # the table counted a total the cards allow but that is not the truth
    fork = Match.__new__(Match)
    fork.__dict__.update(m.__dict__)
    fork.events = list(m.events)
    fork.add("hand_result", cardPoints=[other, 120 - other], tricks=true["tricks"])
    h = fork.hand_score()
    assert h["status"] == "scored" and h["result"]["cardPoints"] == [other, 120 - other]
    assert any("as the table counted" in line["reason"] for line in h["lines"])
    claim_seq = fork.seq - 1
    err = fork.refuse("reveal", "la-cabra.mismatch", cards=[{"seq": s, "index": i, "card": c} for s, i, c in m.slots])
    assert err.seq == claim_seq
    # the true count is accepted, and the reveals then agree
    m.add("hand_result", cardPoints=r, tricks=true["tricks"])
    assert m.hand_score()["status"] == "scored" and m.hand_score()["points"] == true["lossPoints"]
    m.add("reveal", cards=[{"seq": s, "index": i, "card": c} for s, i, c in m.slots])
    assert m.hand_score()["result"] == true


def test_cross_check_with_card_lists() -> None:
    known, m = hidden_deal(4)
    piles = [sorted(str(c) for c in known.hand.pile_known[t]) for t in (0, 1)]
    tricks = list(known.hand.tricks)
    swapped = [piles[0][:-1] + piles[1][-1:], piles[1][:-1] + piles[0][-1:]]
    assert swapped != piles
    m.refuse("hand_result", "la-cabra.mismatch", cards=swapped, tricks=tricks)
    m.add("hand_result", cards=piles, tricks=tricks)
    assert m.hand_score()["result"]["cardPoints"] == known.hand_score()["result"]["cardPoints"]
    assert m.hand_score()["status"] == "scored"


def test_hand_result_before_the_deal_ends_closes_it_from_the_sheet() -> None:
    m = z1()
    m.add("hand_result", cardPoints=[60, 60], tricks=[4, 4])
    h = m.hand_score()
    assert h["status"] == "scored" and h["result"]["eggs"] and h["closedFromSheet"] == {"afterMove": 0, "seq": 3}


def test_reveal_checks() -> None:
    m = Match()
    m.deal(W, hands("9H ?? ?? ??", "10H 6S 8C 9C", "?? ?? ?? ??", "?? ?? ?? ??"), "QS")
    m.refuse("reveal", "common.bad_reveal", cards=[{"seat": E, "card": "AS"}])  # East's hand is known
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": N, "card": "10H"}])
    m.refuse("reveal", "common.card_duplicate", cards=[{"seat": N, "card": "AS"}, {"seat": S, "card": "AS"}])
    m.refuse("reveal", "common.bad_reveal", cards=[{"seat": N, "slot": 1, "card": "AS"}])
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 3, "card": "AS"}])
    m.refuse("reveal", "common.bad_reveal", cards=[])
    # a binding withheld from the reader (an open read's fold of a match in play writes the card
    # as ??) binds nothing; the API's schema refuses ?? in a reveal the scorer sends
    withheld = Event(m.seq, "reveal", {"cards": [{"seat": N, "card": "??"}]})
    assert la_cabra.apply(m.state, withheld) is m.state
    partly = Event(m.seq, "reveal", {"cards": [{"seat": N, "card": "??"}, {"seat": N, "card": "KH"}]})
    assert la_cabra.apply(m.state, partly).current.unknown[N] == m.hand.unknown[N] - 1
    m.add("reveal", cards=[{"seat": N, "card": "KH"}, {"seat": N, "card": "AS"}])
    assert m.hand.unknown[N] == 1
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 3, "index": 0, "card": "AH"}])  # a lead has no hidden card
    m.add("beat", seat=E, cards=["10H", "6S"])
    m.add("discard", seat=S, cards=["??", "??"])
    m.refuse("reveal", "common.bad_reveal", cards=[{"seq": 6, "index": 2, "card": "AH"}])
    m.refuse("reveal", "common.card_duplicate", cards=[{"seq": 6, "index": 0, "card": "AS"}])  # in North's hand
    m.add("reveal", cards=[{"seq": 6, "index": 0, "card": "AH"}])
    assert la_cabra.view(m.state, S)["trick"]["plays"][2]["cards"] == ["AH", "??"]
    assert la_cabra.view(m.state, N)["trick"]["plays"][2]["cards"] == ["??", "??"]
    assert "Revealed: card 0 of entry 6 is A♥" in m.texts[-1]


def test_a_late_reveal_cannot_end_the_series_before_later_hands() -> None:
    for seed in range(40):
        known, m0 = hidden_deal(seed)
        if m0.hand.facts.points is None and known.hand_score()["points"] != [0, 0]:
            break
    else:
        pytest.fail("no suitable deal")
    lp = known.hand_score()["points"]
    loser = 0 if lp[0] else 1
    start = [0, 0]
    start[loser] = 12 - lp[loser]
    rec = Match(initial={"lossPoints": start})
    for event in m0.events[1:]:
        rec.add(event.type, **event.data)
    assert rec.hand_score()["status"] == "incomplete" and not rec.state.over
    rec.deal(N, HIDDEN, "QS")
    err = rec.refuse("reveal", "common.match_over", cards=[{"seq": s, "index": i, "card": c} for s, i, c in m0.slots])
    assert err.seq == rec.hand.seq
    rec2 = Match(initial={"lossPoints": start})
    for event in m0.events[1:]:
        rec2.add(event.type, **event.data)
    rec2.add("reveal", cards=[{"seq": s, "index": i, "card": c} for s, i, c in m0.slots])
    assert rec2.state.over and rec2.score()["end"]["goat"] == loser
    rec2.refuse("lead", "common.match_over", seat=0, cards=["6C"])


def test_double_next_waits_for_an_incomplete_hand() -> None:
    for seed in range(40):
        known, m0 = hidden_deal(seed, {"eggs": "doubleNext"})
        if m0.hand.facts.eggs is None:
            break
    else:
        pytest.fail("no deal where 60-60 is still possible")
    m0.add("hand_started", dealer=N, leader=m0.hand.last_winner)
    m0.add("hand_result", cardPoints=[50, 70], tricks=[3, 3])
    h = m0.hand_score()
    assert h["status"] == "incomplete" and h["points"] is None and h["result"]["multiplier"] is None
    assert h["missing"] == m0.hand_score(1)["missing"]
    m0.add("reveal", cards=[{"seq": s, "index": i, "card": c} for s, i, c in m0.slots])
    eggs = known.hand_score()["result"]["eggs"]
    assert m0.hand_score()["points"] == [4 if eggs else 2, 0]


# --------------------------------------------------------------------------- legal moves and views


def test_legal_moves_enumerate_known_hands_and_template_unknown_ones() -> None:
    m = z1()
    leads = la_cabra.legal_moves(m.state)
    # North 9♥ K♥ 6♣ 7♣: 2 hearts → 3 leads, 2 clubs → 3 leads
    assert len([mv for mv in leads if mv["type"] == "lead"]) == 6
    m2 = Match()
    m2.deal(W, HIDDEN, "QS")
    assert la_cabra.legal_moves(m2.state)[0] == {"type": "lead", "data": {"seat": N}}
    m2.add("lead", seat=N, cards=["9H"])
    assert la_cabra.legal_moves(m2.state)[:2] == [
        {"type": "beat", "data": {"seat": E}},
        {"type": "discard", "data": {"seat": E}},
    ]
    assert la_cabra.legal_moves(Match().state) == [{"type": "hand_started", "data": {}}]
    m3 = Match()
    m3.add("hand_started", dealer=0)
    assert la_cabra.legal_moves(m3.state) == [{"type": "hand_result", "data": {}}]


def test_every_legal_move_applies() -> None:
    m = z2()
    moves = la_cabra.legal_moves(m.state)
    assert {"type": "hand_result", "data": {}} in moves  # the deal may be closed from the score sheet
    for mv in moves:
        if mv["type"] != "hand_result":
            la_cabra.apply(m.state, Event(m.seq, mv["type"], mv["data"]))


def test_views() -> None:
    m = z1()
    public = la_cabra.view(m.state)
    assert public["hand"] == 1 and public["dealer"] == W and public["turn"] == N and public["trump"] == "QS"
    assert public["stock"] == 20 and [h["size"] for h in public["hands"]] == [4, 4, 4, 4]
    assert "cards" not in public and "cards" not in public["hands"][0]
    seat = la_cabra.view(m.state, E)
    assert seat["cards"] == ["8C", "9C", "10H", "6S"]
    text = json.dumps(seat)
    assert all(c not in text for c in ("9H", "KH", "AH", "7S", "6D", "QC"))
    everything = la_cabra.view(m.state, "all")
    assert everything["hands"][0]["cards"] == ["6C", "7C", "9H", "KH"]
    with pytest.raises(ValueError):
        la_cabra.view(m.state, 4)
    assert la_cabra.view(Match().state)["hand"] == 0


def test_apply_never_changes_its_input() -> None:
    m = z2()
    before = m.state
    snapshot = hash(before)
    la_cabra.apply(before, Event(m.seq, "tira", {"seat": S, "cards": cards("7D 8D KD AD")}))
    with pytest.raises(RuleViolation):
        la_cabra.apply(before, Event(m.seq, "tira", {"seat": W, "cards": cards("6H 7H 8H 9H")}))
    assert hash(before) == snapshot and m.state is before


def test_narration_of_a_whole_deal_ends_with_loss_points() -> None:
    m = full_deal(1)
    assert "the deal is over" in m.texts[-1] or "the deal is over" in m.texts[-2]
    lp = m.hand_score()["points"]
    loser = 0 if lp[0] else 1
    end = next(t for t in m.texts if "the deal is over" in t)
    assert f"{['North and South', 'East and West'][loser]} {lp[loser]} loss points" in end
    assert la_cabra.narrate(None, m.events[0], la_cabra.start(m.events[0].data)).startswith("La Cabra: North and South")


# --------------------------------------------------------------------------- score-sheet forms (VOCABULARY.md §5.5)

Z3_FULL = [
    {"cardPoints": [72, 48], "tricks": [5, 2]},
    {"cardPoints": [25, 95], "tricks": [2, 5]},
    {"cardPoints": [60, 60], "tricks": [4, 4]},
    {"cardPoints": [0, 120], "tricks": [1, 6]},  # NS took one zero-point trick
    {"cardPoints": [120, 0], "tricks": [7, 0]},  # EW took no trick
    {"cardPoints": [30, 90], "tricks": [3, 4]},
]
Z3_CARD_POINTS = [{"cardPoints": r["cardPoints"]} if 0 not in r["cardPoints"] else r for r in Z3_FULL]
Z3_LOSS = [{"lossPoints": lp} for lp in ([0, 2], [4, 0], [0, 0], [4, 0], [0, 6], [4, 0])]


def _series(results: list[dict[str, Any]], options: dict[str, Any] | None = None) -> Match:
    m = Match(options)
    for i, result in enumerate(results):
        m.add("hand_started", dealer=i % 4)
        m.add("hand_result", **result)
    return m


def _scores(m: Match) -> dict[str, Any]:
    """What a sheet form must score exactly as the full form: loss points, totals, standings, the end."""
    sheet = m.score()
    hands = [
        {k: h[k] for k in ("hand", "status", "points", "totals")}
        | {
            "eggs": h["result"]["eggs"],
            "multiplier": h["result"]["multiplier"],
            "lossPoints": h["result"]["lossPoints"],
        }
        for h in sheet["hands"]
    ]
    return {"hands": hands, "standings": sheet["standings"], "end": sheet["end"]}


@pytest.mark.parametrize("options", [{}, {"eggs": "doubleNext"}])
def test_z3_from_card_points_alone_and_from_loss_points_alone_scores_as_the_full_form(options: dict[str, Any]) -> None:
    deals = 4 if options else 6  # with doubleNext the series ends after deal 4
    full = _series(Z3_FULL[:deals], options)
    for form in (Z3_CARD_POINTS, Z3_LOSS):
        assert _scores(_series(form[:deals], options)) == _scores(full)
    if not options:
        assert [h["totals"] for h in full.score()["hands"]] == [[0, 2], [4, 2], [4, 2], [8, 2], [8, 8], [12, 8]]
        assert full.score()["end"]["over"] and full.score()["end"]["goat"] == 0
    else:  # docs/RULES.md §5.7: with doubleNext deal 4 gives NS 8 and ends the series
        m = _series(Z3_LOSS[:4], options)
        assert m.score()["hands"][3]["points"] == [8, 0] and m.score()["end"]["over"]
        assert "doubled after the eggs of hand 3: 8" in m.score()["hands"][3]["lines"][-1]["reason"]


def test_loss_points_form_facts_and_lines() -> None:
    m = _series(Z3_LOSS[:3])
    h1, h3 = m.score()["hands"][0], m.score()["hands"][2]
    assert h1["result"] == {"cardPoints": None, "tricks": None, "lossPoints": [0, 2], "eggs": False, "multiplier": 1}
    assert h1["lines"][-1] == {
        "team": 1,
        "points": 2,
        "rule": "/rules/la-cabra#scoring-deal",
        "reason": "East and West lost the deal (31–59): 2 loss points as the score sheet says",
    }
    assert h3["result"]["eggs"] and h3["points"] == [0, 0]
    assert (
        m.texts[1]
        == "Hand 1 result: loss points North and South 0, East and West 2 as written: East and West 2 loss points (totals 0–2)"
    )


def test_card_points_alone_leaves_tricks_unknown_and_the_next_dealt_hand_names_its_leader() -> None:
    m = _series([{"cardPoints": [72, 48]}])
    h = m.hand_score()
    assert h["result"]["tricks"] is None and h["points"] == [0, 2]
    m.refuse("hand_started", "la-cabra.leader_required", dealer=1, trump="QS", hands=HIDDEN)
    m.add("hand_started", dealer=1, trump="QS", hands=HIDDEN, leader=E)
    assert m.hand.to_lead == E


def test_zero_card_points_take_tricks_from_the_sheet() -> None:
    m = _series([{"cardPoints": [0, 120], "tricks": [1, 6]}, {"cardPoints": [0, 120], "tricks": [0, 6]}])
    assert [h["points"] for h in m.score()["hands"]] == [[4, 0], [6, 0]]


def test_sheet_form_cross_checks() -> None:
    m = Match()
    m.add("hand_started", dealer=0)
    m.add("hand_result", cardPoints=[72, 48])
    m.add("hand_result", lossPoints=[0, 2])  # agrees
    m.refuse("hand_result", "la-cabra.mismatch", lossPoints=[0, 4])
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[70, 50])
    m.add("hand_result", cardPoints=[72, 48], tricks=[5, 2], lastTrick=0)  # adds tricks and the last trick
    assert m.hand_score()["result"]["tricks"] == [5, 2] and m.hand.last_winner == 0
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[72, 48], tricks=[4, 2])
    loss = _series([{"lossPoints": [0, 2]}])
    loss.refuse("hand_result", "la-cabra.mismatch", cardPoints=[20, 100])  # 4 loss points, not 2
    loss.refuse("hand_result", "la-cabra.mismatch", cardPoints=[59, 61])  # NS would lose
    loss.add("hand_result", cardPoints=[61, 59])
    assert loss.hand_score()["result"]["cardPoints"] == [61, 59] and loss.hand_score()["points"] == [0, 2]


def test_loss_points_cross_check_a_finished_dealt_hand() -> None:
    rng = random.Random(3)
    dealt, trump, stock = shuffled(rng)
    m = Match()
    m.deal(W, dealt, trump)
    play_out(m, stock)
    base = m.hand_score()["result"]["lossPoints"]
    wrong = [0, 6] if base != [0, 6] else [6, 0]
    m.refuse("hand_result", "la-cabra.mismatch", lossPoints=wrong)
    m.add("hand_result", lossPoints=base)


# --------------------------------------------------------------------------- closing a hand from the sheet (VOCABULARY.md §4)


def _z1_trick(discard: list[str] | None = None) -> Match:
    """Z1's first trick: South takes 9♥ K♥ 10♥ 6♠ A♥ 7♠ and West's two discards for North and South."""
    m = z1(dealt=Z1 if discard is None else hands("9H KH 6C 7C", "10H 6S 8C 9C", "AH 7S JC 10C", "?? ?? ?? ??"))
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.add("beat", seat=E, cards=["10H", "6S"])
    m.add("beat", seat=S, cards=["AH", "7S"])
    m.add("discard", seat=W, cards=discard or ["6D", "QC"])
    return m


def test_close_from_the_sheet_keeps_the_moves_and_scores_the_facts() -> None:
    m = _z1_trick()
    before = m.hand
    m.add("hand_result", cardPoints=[72, 48])
    h = m.hand_score()
    assert h["status"] == "scored" and h["points"] == [0, 2] and h["closedFromSheet"] == {"afterMove": 4, "seq": 7}
    assert h["result"]["cardPoints"] == [72, 48] and h["result"]["tricks"] is None
    assert m.hand.played == before.played and m.hand.pile_known == before.pile_known  # the moves stay
    assert (
        m.texts[-1]
        == "Hand 1 closed from the score sheet after move 4: North and South 72, East and West 48 card points: East and West 2 loss points (totals 0–2)"
    )
    assert "closed from the sheet after move 4" in h["lines"][-1]["reason"]
    assert la_cabra.view(m.state)["closedFromSheet"] == {"afterMove": 4, "seq": 7}
    err = m.refuse("lead", "la-cabra.deal_over", seat=S, cards=["JC"])
    assert "closed from the score sheet" in err.message
    m.add("hand_result", lossPoints=[0, 2])  # a cross-check of the sheet agrees
    m.refuse("hand_result", "la-cabra.mismatch", cardPoints=[80, 40])
    m.refuse("hand_started", "la-cabra.leader_required", dealer=N, trump="QS", hands=HIDDEN)
    m.add("hand_started", dealer=N, trump="QS", hands=HIDDEN, leader=W)


def test_close_with_the_last_trick_sets_the_next_leader() -> None:
    m = _z1_trick()
    m.add("hand_result", cardPoints=[72, 48], tricks=[4, 3], lastTrick=E)
    m.refuse("hand_started", "la-cabra.mismatch", dealer=N, trump="QS", hands=HIDDEN, leader=S)
    m.add("hand_started", dealer=N, trump="QS", hands=HIDDEN)
    assert m.hand.to_lead == E


@pytest.mark.parametrize(
    "data, words",
    [
        (
            {"cardPoints": [20, 100]},
            "North and South already hold 28 card points in tricks after move 4; the sheet says 20",
        ),
        (
            {"cardPoints": [0, 120], "tricks": [0, 6]},
            "North and South already took 1 trick after move 4; the sheet says 0",
        ),
        (
            {"lossPoints": [6, 0]},
            "North and South already took 1 trick after move 4; the sheet's 6 loss points say they took none",
        ),
        (
            {"cardPoints": [72, 48], "tricks": [5, 4]},
            "28 cards are left to play after move 4, so at most 7 more tricks; the sheet's tricks need 8",
        ),
        (
            {"cardPoints": [28, 92], "tricks": [1, 6], "lastTrick": S},
            "the last trick is still to be played after move 4, but the sheet gives North and South no more trick, so South cannot win it",
        ),
        ({"cards": [["6D"], []]}, "already went to North and South's trick pile"),
    ],
)
def test_a_close_that_contradicts_the_moves_is_refused(data: dict[str, Any], words: str) -> None:
    m = _z1_trick()
    if "cards" in data:  # every card listed, but West's discards on the wrong side
        deck = [str(c) for c in la_cabra.state.DECK.distinct()]
        ns = ["9H", "KH", "10H", "6S", "AH", "7S", "QC"] + [
            c for c in deck if c not in ("9H", "KH", "10H", "6S", "AH", "7S", "QC", "6D")
        ][:1]
        data = {"cards": [ns, [c for c in deck if c not in ns]]}
    err = m.refuse("hand_result", "la-cabra.result_conflict", **data)
    assert words in err.message and err.message.startswith("hand 1: ")
    assert m.hand.closed_seq == 0 and not m.hand.over


def test_a_close_with_face_down_cards_and_a_later_reveal() -> None:
    m = _z1_trick(["??", "??"])
    # NS holds 25 known points and two face-down cards: 25 is possible, 20 is not
    m.refuse("hand_result", "la-cabra.result_conflict", cardPoints=[20, 100])
    m.add("hand_result", cardPoints=[25, 95], tricks=[1, 6])
    assert m.hand_score()["points"] == [4, 0]
    err = m.refuse("reveal", "la-cabra.mismatch", cards=[{"seq": 6, "index": 0, "card": "QC"}])
    assert err.seq == m.hand.closed_seq and "North and South already hold 28 card points" in err.message
    m.add("reveal", cards=[{"seq": 6, "index": 0, "card": "6D"}])
    assert m.hand_score()["points"] == [4, 0]


def test_a_close_before_any_move() -> None:
    m = z1()
    m.add("hand_result", lossPoints=[0, 6])
    assert m.texts[-1].startswith(
        "Hand 1 closed from the score sheet before any move: loss points North and South 0, East and West 6 as written"
    )
    assert m.hand_score()["points"] == [0, 6]


def test_a_close_in_the_middle_of_a_trick() -> None:
    m = z1()
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.add("beat", seat=E, cards=["10H", "6S"])
    m.add("hand_result", cardPoints=[30, 90])
    assert m.hand_score()["points"] == [4, 0] and m.hand_score()["closedFromSheet"] == {"afterMove": 2, "seq": 5}
    assert la_cabra.legal_moves(m.state) == [
        {"type": "hand_started", "data": {"dealer": N}},
        {"type": "hand_result", "data": {"cardPoints": [30, 90]}},
    ]


def test_hands_with_the_same_result_share_their_values() -> None:
    """A replay keeps every frame's state alive: equal results, facts and scores are one object, not one per hand."""
    m = Match()
    m.result(W, [60, 60], [4, 3])
    m.result(N, [60, 60], [4, 3])
    m.result(E, [70, 50], [5, 4])
    m.result(S, [70, 50], [5, 4])
    past, scores = m.state.hands, m.state.scores
    assert past[0].claim.points is past[1].claim.points and past[0].claim.tricks is past[1].claim.tricks
    assert past[0].facts is past[1].facts and scores[0] is scores[1]
    assert scores[2].points is scores[3].points and scores[2].totals is not scores[3].totals
    assert [h["totals"] for h in m.score()["hands"]] == [[0, 0], [0, 0], [0, 2], [0, 4]]
