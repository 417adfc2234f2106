"""The shortcuts the fold takes give the answers of the long way (engines/common.py, cards.py, history.py).

Each shortcut (a look-up instead of a parse, a count instead of comparisons, a field
written by index, a check skipped where it cannot refuse) is checked against the plain
computation, including the cases where the shortcut must step aside: copies of a card,
text that is no card, an unknown field name, a card the hand does not hold.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest
from tests.engines.deals import HIDDEN, Match, E, N, S, W, hands
from tests.engines.playouts import play

from engines import ENGINES
from engines.base import Event, RuleViolation, Step, walk
from engines.cards import FRENCH_104, LA_CABRA, Card, at_least, parse, text
from engines.common import card_reader, quick_replace, read_all, read_cards, read_seat, set_field
from engines.history import History
from engines.la_cabra.scoring import rescore
from engines.la_cabra.rules import (
    _cards,
    _check_turn,
    _end_trick,
    _HandCards,
    _plain_deal,
    _read_deal,
    _take,
    _take_checked,
    _trump_barred,
)
from engines.common import set_item
from engines.la_cabra.state import BY_TEXT, VALUES, beats, can_beat, Play, Trick, TrickDone, points, sum_masks, team_of


def test_at_least_counts_copies_of_a_card() -> None:
    first, second = [c for c in FRENCH_104.cards if c.rank == "A" and c.suit == "S"]
    assert first is second
    cards = (first, parse("KH", FRENCH_104), Card("A", "S"))
    assert at_least(cards, second, 2) and not at_least(cards, second, 3)
    assert at_least(cards, parse("KH", FRENCH_104), 1) and not at_least(cards, Card("Q", "D"), 1)
    assert at_least((), Card("Q", "D"), 0) and not at_least((), Card("Q", "D"), 1)


def test_deck_count_finds_a_parsed_card_and_a_fresh_one() -> None:
    assert FRENCH_104.count(parse("AS", FRENCH_104)) == FRENCH_104.count(Card("A", "S")) == 2
    assert FRENCH_104.count(Card("A", "X")) == 0


def test_read_all_falls_back_to_the_reader_for_what_is_not_a_card_of_the_deck() -> None:
    read = card_reader(LA_CABRA, "10H, AS or ??")
    assert read_all(["AS", "10H"], read) == [parse("AS", LA_CABRA), parse("10H", LA_CABRA)]
    assert read_all(["AS", "??"], read, hidden_ok=True) == [parse("AS", LA_CABRA), None]
    for texts, code in (
        (["AS", "??"], "common.card_hidden"),
        (["2S"], "common.card_not_in_deck"),
        ([["AS"]], "common.bad_card"),
        ([7], "common.bad_card"),
    ):
        with pytest.raises(RuleViolation) as refused:
            read_all(texts, read)
        assert refused.value.code == code
    with pytest.raises(RuleViolation) as twice:
        read_cards({"cards": ["AS", "AS"]}, read, unique=True)
    assert twice.value.code == "common.card_duplicate"


def test_read_seat_takes_good_seats_and_refuses_bools_and_strangers() -> None:
    assert read_seat({"seat": 3}, 4) == 3
    for bad in (4, -1, True, "1", None, 1.0):
        with pytest.raises(RuleViolation) as refused:
            read_seat({"seat": bad}, 4)
        assert refused.value.code == "common.bad_seat"


@quick_replace
class Point(NamedTuple):
    x: int
    y: int = 0
    z: int = 0


def test_quick_replace_and_set_field_are_replace() -> None:
    p = Point(1, 2, 3)
    assert p._replace(z=9, x=7) == Point(7, 2, 9) and type(p._replace(y=1)) is Point and p == Point(1, 2, 3)
    assert set_field(p, 1, 5) == Point(1, 5, 3) and type(set_field(p, 1, 5)) is Point
    with pytest.raises(ValueError):
        p._replace(w=1)


def test_history_last_and_truth_without_counting() -> None:
    empty: History[int] = History()
    assert not empty and not History(()) and History((0,))
    h = History() + (1,) + (2,)
    assert h[-1] == 2 and h[:-1][-1] == 1 and h[-2] == 1
    with pytest.raises(IndexError):
        empty[-1]


def test_sum_masks_are_the_same_whatever_the_order_of_the_values() -> None:
    values = [11, 0, 10, 4, 3, 2, 0, 11]
    assert sum_masks(values, 4) == sum_masks(reversed(values), 4) == sum_masks(sorted(values), 4)
    assert sum_masks(values, 4)[1] == sum(1 << v for v in set(values))


# --------------------------------------------------------------------------- La Cabra's rule fold


def _la_cabra_plays() -> list[tuple[Any, Event]]:
    """(state before, move) of every lead, beat, discard and tira of a few whole series."""
    out = []
    for seed in range(6):
        events, states = play("la-cabra", seed)
        out += [
            (state, event)
            for state, event in zip(states, events[1:])
            if event.type in ("lead", "beat", "discard", "tira")
        ]
    return out


def test_la_cabra_take_of_cards_known_in_the_hand_is_the_checked_take() -> None:
    """Playing cards the record places in the seat's hand skips the checks that cannot refuse them: same fields."""
    shortcut = 0
    for state, event in _la_cabra_plays():
        hand, seat = state.current, event.data["seat"]
        cards = [BY_TEXT[t] for t in event.data["cards"] if t != "??"]
        hidden = len(event.data["cards"]) - len(cards)
        assert hand._replace(**_take(state, hand, seat, cards, hidden)) == hand._replace(
            **_take_checked(state, hand, seat, cards, hidden)
        )
        shortcut += not hidden and frozenset(cards) <= hand.known[seat]
    assert shortcut > 500


def test_la_cabra_take_steps_aside_for_unknown_cards_and_cards_held_elsewhere() -> None:
    m = Match()
    m.deal(W, hands("9H KH ?? ??", "10H 6S ?? ??", "AH 7S JC 10C", "?? ?? ?? ??"), "QS")
    state, hand = m.state, m.hand
    taken = _take(state, hand, N, [BY_TEXT["9H"], BY_TEXT["8D"]])  # 8♦ binds an unknown card of North
    assert taken == _take_checked(state, hand, N, [BY_TEXT["9H"], BY_TEXT["8D"]])
    assert taken["unknown"][N] == 1 and BY_TEXT["8D"] in taken["located"]
    assert _take(state, hand, N, [BY_TEXT["9H"]]) == {
        "moves": 1,
        "known": (frozenset([BY_TEXT["KH"]]), *hand.known[1:]),
    }
    assert _take(state, hand, N, [BY_TEXT["9H"]], 1)["unknown"][N] == 1  # and a face-down one
    for cards, code in ((["AH"], "common.card_unavailable"), (["9H", "9H", "KH", "KH", "9H"], "la-cabra.hand_size")):
        picked = [BY_TEXT[t] for t in cards]
        with pytest.raises(RuleViolation) as fast:
            _take(state, hand, N, picked)
        with pytest.raises(RuleViolation) as checked:
            _take_checked(state, hand, N, picked)
        assert fast.value.code == checked.value.code == code and str(fast.value) == str(checked.value)


def test_la_cabra_trick_end_piles_face_down_cards_and_only_them() -> None:
    """A trick without face-down cards leaves the hidden piles as they are; with them, it adds their references."""
    m = Match()
    m.deal(W, hands("9H KH 6C 7C", "10H 6S 8C ??", "AH 7S JC 10C", "6D QC 8S ??"), "QS")
    m.add("lead", seat=N, cards=["9H"])
    m.add("discard", seat=E, cards=["??"])
    m.add("discard", seat=S, cards=["JC"])
    m.add("discard", seat=W, cards=["??"])
    assert m.hand.pile_hidden == (((4, 0), (6, 0)), ()) and m.hand.unknown == (1, 1, 1, 1)
    m.add("lead", seat=N, cards=["KH"])
    for seat, card in ((E, "10H"), (S, "AH"), (W, "QC")):
        m.add("discard" if seat == W else "beat", seat=seat, cards=[card])
    assert (
        m.hand.pile_hidden == (((4, 0), (6, 0)), ()) and m.hand.pile_count == (8, 0) and m.hand.unknown == (2, 2, 2, 2)
    )


def test_la_cabra_plain_deal_is_the_card_by_card_reading() -> None:
    """A deal read in a few set operations gives what reading it card by card gives, or steps aside."""
    state = Match().state
    deals = [
        (event.data["hands"], BY_TEXT[event.data["trump"]])
        for seed in range(6)
        for event in play("la-cabra", seed)[0]
        if event.type == "hand_started" and "hands" in event.data
    ]
    deals.append((hands("9H ?? ?? ??", "?? ?? ?? ??", "AH ?? KS ??", "?? ?? ?? ??"), BY_TEXT["QS"]))
    assert len(deals) > 20
    for dealt, trump in deals:
        assert _plain_deal(dealt, trump) == _read_deal(state, dealt, trump)
    z1 = hands("9H KH 6C 7C", "10H 6S 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S")
    for seat, i, written, code in (
        (1, 2, "9H", "common.card_duplicate"),
        (0, 1, "9H", "common.card_duplicate"),
        (2, 3, "QS", "common.card_duplicate"),
        (3, 0, "2S", "common.card_not_in_deck"),
        (3, 0, None, "common.bad_card"),
        (3, 0, ["6D"], "common.bad_card"),
    ):
        wrong = [list(h) for h in z1]
        wrong[seat][i] = written
        assert _plain_deal(wrong, BY_TEXT["QS"]) is None
        with pytest.raises(RuleViolation) as refused:
            _read_deal(state, wrong, BY_TEXT["QS"])
        assert refused.value.code == code


def test_la_cabra_reveal_reads_the_barred_trump_card_once_as_trump_barred_does() -> None:
    """A reveal's hand cards are checked against the returned trump card read once per reveal, not per card."""
    checked = 0
    for seed in range(6):
        events, states = play("la-cabra", seed)
        for state, event in zip(states, events[1:]):
            hand = state.current
            if event.type != "reveal" or hand is None or hand.over:
                continue
            pending = _HandCards(hand, state.options)
            for card in LA_CABRA.distinct():
                assert (pending.barred is not None and pending.barred == card) == _trump_barred(state, hand, card)
                checked += 1
    m = Match()
    m.deal(W, HIDDEN, "QS")
    assert _HandCards(m.hand, m.state.options).barred == BY_TEXT["QS"] and _trump_barred(m.state, m.hand, BY_TEXT["QS"])
    assert checked > 1000


def _end_trick_long(state: Any, hand: Any, changes: dict[str, Any], trick: Any, seq: int) -> Any:
    """The end of a trick as it was written before it named only the fields that change: every field, every time."""
    winner = trick.winner
    team = team_of(winner)
    cards = [c for p in trick.plays for c in p.cards]
    refs = tuple((p.seq, i) for p in trick.plays for i, c in enumerate(p.cards) if c is None)
    pile_known = set_item(hand.pile_known, team, hand.pile_known[team] | frozenset(c for c in cards if c is not None))
    pile_hidden = set_item(hand.pile_hidden, team, hand.pile_hidden[team] + refs)
    pile_count = set_item(hand.pile_count, team, hand.pile_count[team] + len(cards))
    tricks = set_item(hand.tricks, team, hand.tricks[team] + 1)
    known, unknown, shown = changes["known"], changes["unknown"], changes["shown"]
    held = len(known[0]) + unknown[0]
    drawn = min(4 * (4 - held), hand.stock)
    each = drawn // 4
    unknown = tuple(u + each for u in unknown)
    stock = hand.stock - drawn
    if drawn and stock == 0 and state.options.trumpCard == "bottomFaceUp" and hand.trump is not None:
        last = (winner + drawn - 1) % 4
        known = set_item(known, last, known[last] | {hand.trump})
        shown = set_item(shown, last, shown[last] | {hand.trump})
        unknown = set_item(unknown, last, unknown[last] - 1)
    refill_seq = hand.refill_seq if hand.refill_seq is not None or not drawn else seq
    over = stock == 0 and held + each == 0
    return hand._replace(
        **{
            **changes,
            "trick": None,
            "to_lead": winner,
            "pile_known": pile_known,
            "pile_hidden": pile_hidden,
            "pile_count": pile_count,
            "tricks": tricks,
            "played": hand.played + (TrickDone(winner, trick.plays),),
            "last_winner": winner,
            "known": known,
            "unknown": unknown,
            "shown": shown,
            "stock": stock,
            "refill_seq": refill_seq,
            "over": over,
        }
    )


def _fourth_plays() -> list[tuple[Any, Any, Any, int, list[Card | None]]]:
    """(state, hand, trick with its fourth play, seq, cards) of the trick ends of a few series and of a hand with face-down discards."""
    m = Match({"trumpCard": "bottomFaceUp"})
    m.deal(W, hands("9H KH 6C 7C", "10H 6S 8C ??", "AH 7S JC 10C", "6D QC 8S ??"), "QS")
    for seat, kind, cards in ((N, "lead", ["9H"]), (E, "discard", ["??"]), (S, "discard", ["JC"])):
        m.add(kind, seat=seat, cards=cards)
    log = [(m.state, Event(m.seq, "discard", {"seat": W, "cards": ["??"]}))] + [
        (state, event)
        for state, event in _la_cabra_plays()
        if event.type != "lead" and len(state.current.trick.plays) == 3
    ]
    out = []
    for state, event in log:
        hand, seat = state.current, event.data["seat"]
        cards = [None if t == "??" else BY_TEXT[t] for t in event.data["cards"]]
        trick = hand.trick
        play = Play(event.seq, seat, event.type, tuple(cards), event.type != "discard" or state.options.discardFaceUp)
        if event.type == "beat":
            trick = trick._replace(plays=trick.plays + (play,), winner=seat, winning=tuple(cards))
        else:
            trick = trick._replace(plays=trick.plays + (play,))
        out.append((state, hand, trick, event.seq, cards))
    return out


def test_la_cabra_trick_end_names_only_what_changes_and_gives_the_hand_of_the_long_way() -> None:
    ends = _fourth_plays()
    refills = overs = hidden = 0
    for state, hand, trick, seq, cards in ends:
        known = [c for c in cards if c is not None]
        args = (state, hand, trick.plays[-1].seat, known, len(cards) - len(known))
        after = _end_trick(state, hand, _take(*args), trick, seq)
        assert after == _end_trick_long(state, hand, _take_checked(*args), trick, seq)
        refills += after.stock < hand.stock
        overs += after.over
        hidden += after.pile_hidden != hand.pile_hidden
    assert len(ends) > 100 and refills > 30 and overs > 10 and hidden >= 1


def test_la_cabra_plays_and_tricks_built_from_their_fields_are_the_records_their_constructors_build() -> None:
    seen = 0
    for seed in range(3):
        events, states = play("la-cabra", seed)
        for state in states:
            hand = state.current
            trick = hand.trick if hand is not None else None
            if trick is None:
                continue
            assert type(trick) is Trick and len(trick) == len(Trick._fields) and Trick(*trick) == trick
            first = trick.plays[0]
            assert (trick.leader, trick.k, trick.tira) == (
                first.seat,
                len(first.cards),
                first.seq if first.kind == "tira" else None,
            )
            winning = [p for p in trick.plays if p.kind != "discard"][-1]
            assert (trick.winner, trick.winning) == (winning.seat, winning.cards)
            for p in trick.plays:
                event = events[p.seq - 1]
                assert type(p) is Play and len(p) == len(Play._fields) and Play(*p) == p
                assert (p.seq, p.seat, p.kind, p.face_up) == (
                    event.seq,
                    event.data["seat"],
                    event.type,
                    event.type != "discard" or state.options.discardFaceUp,
                )
                assert [text(c) for c in p.cards] == event.data["cards"]
                seen += 1
    assert seen > 100


def test_a_walk_step_is_the_step_its_constructor_builds() -> None:
    events = play("la-cabra", 0)[0]
    steps = list(walk(ENGINES["la-cabra"], list(events)))
    assert len(steps) == len(events)
    for step, event in zip(steps, events):
        assert type(step) is Step and Step(*step) == step and step.event is event and step.status == "played"


def test_la_cabra_points_are_the_sum_of_the_rank_values() -> None:
    def long_way(cards: Any) -> int:
        return sum(VALUES.get(c.rank, 0) for c in cards if c is not None)

    piles = [
        pile
        for seed in range(3)
        for state in play("la-cabra", seed)[1]
        if state.current is not None
        for pile in state.current.pile_known
    ]
    assert sum(map(len, piles)) > 1000
    for cards in [*piles, LA_CABRA.cards, [None, BY_TEXT["AS"], None], [Card("A"), Card("K", "X"), Card("7", "H")], []]:
        assert points(cards) == long_way(cards)
    assert points(LA_CABRA.cards) == 120


def test_la_cabra_rescore_keeps_the_scores_whole_when_it_starts_after_them() -> None:
    """rescore skips ``scores[:start]`` when ``start`` is past the end: that slice is the history itself."""
    h: History[int] = History() + (1,) + (2,)
    assert h[:2] is h and h[:5] is h and tuple(h[:1]) == (1,)
    ends = 0
    for seed in range(3):
        for before, after in zip(*[iter(play("la-cabra", seed)[1])] * 2):
            for state in (before, after):
                if state.scores:
                    assert rescore(state, len(state.scores)) == state._replace(scores=state.scores)
                    assert rescore(state, len(state.scores) - 1) == state
                    ends += 1
    assert ends > 50


def test_la_cabra_cards_of_a_move_read_by_look_up_are_the_checked_reading() -> None:
    read = card_reader(LA_CABRA, "10H, AS or ??")
    texts: list[list[Any]] = [[str(c)] for c in LA_CABRA.cards] + [
        ["AS", "KS"],
        ["AS", "AS"],
        ["??"],
        ["AS", "??"],
        ["2S"],
        [7],
        [["AS"]],
        [],
    ]
    for cards in texts:
        for hidden_ok in (False, True):
            try:
                want: Any = read_cards({"cards": cards}, read, hidden_ok=hidden_ok, unique=True)
            except RuleViolation as e:
                want = (e.code, str(e))
            try:
                got: Any = _cards({"cards": cards}, hidden_ok=hidden_ok)
            except RuleViolation as e:
                got = (e.code, str(e))
            assert got == want


def test_la_cabra_a_one_card_beat_is_its_one_pairing() -> None:
    from itertools import permutations

    def long_way(cards: tuple[Card, ...], winning: tuple[Card, ...], trump: str) -> bool:
        return len(cards) == len(winning) and any(
            all(beats(x, y, trump) for x, y in zip(order, winning)) for order in permutations(cards)
        )

    deck = LA_CABRA.distinct()
    wins = 0
    for trump in "CDHS":
        for x in deck:
            for y in deck:
                assert can_beat((x,), (y,), trump) == long_way((x,), (y,), trump)
                wins += can_beat((x,), (y,), trump)
        assert can_beat((deck[0],), (deck[1], deck[2]), trump) is False
    assert 0 < wins < 4 * len(deck) ** 2


def test_la_cabra_an_answer_in_turn_is_exactly_what_check_turn_lets_pass() -> None:
    """Beats and discards skip _check_turn when the seat answers in turn: it must refuse every other case."""
    checked = 0
    for seed in range(3):
        for state in play("la-cabra", seed)[1]:
            hand = state.current
            if hand is None or hand.trump is None:
                continue
            for seat in range(4):
                for kind in ("beat", "discard"):
                    trick = hand.trick
                    in_turn = trick is not None and seat == (trick.leader + len(trick.plays)) % 4
                    try:
                        _check_turn(state, hand, seat, kind)
                        passes = True
                    except RuleViolation:
                        passes = False
                    assert passes == in_turn
                    checked += in_turn
    assert checked > 100


@pytest.mark.parametrize("seed", range(6))
def test_la_cabra_tells_a_hand_in_play_as_its_score_marks_it(seed: int) -> None:
    """La Cabra's ``hand_in_play`` (no scoring) agrees with its score sheet at every step of a
    series: dealt and playing, result in, next deal, end; a state with no hand yet has none."""
    engine = ENGINES["la-cabra"]
    events, states = play("la-cabra", seed)
    seen = set()
    for state in states:
        hands = engine.score(state)["hands"]
        marked = bool(hands) and hands[-1].get("status") == "playing"
        assert engine.hand_in_play(state) is marked
        seen.add(marked)
    assert seen == {True, False}  # the playout went through both
