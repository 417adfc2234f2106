"""Engine states survive a trip through JSON (the stored snapshots), for every game.

Over random playouts of each game, every state of the match is dumped, sent through
``json``, loaded, and must equal the original, show the same views and score, and fold the
rest of the match to the same end.
"""

from __future__ import annotations

import gc
import json
import pickle

import pytest
from tests.engines.playouts import play

from engines import ENGINES, la_cabra
from engines.cards import Card
from engines.codec import CodecError, dump_state, load_state
from engines.history import History

SEEDS = range(4)


def trip(engine: object, state: object) -> object:
    return load_state(engine, json.loads(json.dumps(dump_state(state))))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_state_of_a_playout_round_trips(game: str, seed: int) -> None:
    engine = ENGINES[game]
    events, states = play(game, seed)
    for i, state in enumerate(states):
        back = trip(engine, state)
        assert back == state
        if i % 5 == 0:
            assert engine.view(back, "all") == engine.view(state, "all")
    middle = len(states) // 2
    state = trip(engine, states[middle])
    for event in events[middle + 1 :]:
        state = engine.apply(state, event)  # a loaded state folds on exactly like the original
    assert state == states[-1]
    assert engine.score(state) == engine.score(states[-1])


def test_loaded_cards_are_the_decks_own_objects_and_histories_stay_histories() -> None:
    events, states = play("la-cabra", 0)
    state = trip(la_cabra, states[-1])
    assert isinstance(state.past, History) and isinstance(state.scores, History)
    hand = state.past[0]
    card = next(iter(hand.pile_known[0] | hand.pile_known[1]))
    assert isinstance(card, Card) and card is la_cabra.state.DECK._by_text[str(card)]


def test_data_naming_a_value_the_game_does_not_have_is_refused() -> None:
    with pytest.raises(CodecError):
        load_state(la_cabra, {"@": "Round", "v": []})  # a Cabo value
    with pytest.raises(CodecError):
        load_state(la_cabra, {"@": "Hand", "v": [1]})  # the wrong shape


def test_wide_ints_survive_any_json_reader() -> None:
    import orjson

    wide = (1 << 120) | 5
    data = dump_state((wide, -wide, 7))
    assert load_state(la_cabra, orjson.loads(orjson.dumps(data))) == (wide, -wide, 7)


def test_a_loaded_history_decodes_earlier_items_only_when_read() -> None:
    import orjson

    events, states = play("la-cabra", 0)
    state = states[-1]
    data = orjson.loads(orjson.dumps(dump_state(state)))
    loaded = load_state(la_cabra, data)
    held = list(loaded.past.stored_items())
    assert all(type(item) is str for item in held[:-1]) and held[-1] == state.past[-1]
    again = dump_state(loaded)
    assert all(type(item) is str for item in list(loaded.past.stored_items())[:-1])  # dumping decoded nothing
    past = la_cabra.State._fields.index("past")
    assert again["v"][past]["hj"][:-1] == data["v"][past]["hj"][:-1]  # stored back as they came
    assert loaded.past[0] == state.past[0]  # read: decoded
    assert next(iter(loaded.past.stored_items())) == state.past[0]
    assert loaded == state and len(loaded.past) == len(state.past)


def test_a_history_of_strings_is_stored_whole() -> None:
    names = History(("ana", "ben"))
    assert load_state(la_cabra, json.loads(json.dumps(dump_state(names)))) == names


def test_deck_cards_are_written_as_text_and_read_back_as_the_decks_own_objects() -> None:
    import orjson
    from engines.cards import SPANISH_40

    ace, seven = la_cabra.state.DECK._by_text["AS"], SPANISH_40.cards[6]
    state = ((ace, seven), frozenset({ace, seven}), ace, (ace, 3, "AS"))
    data = dump_state(state)
    assert data[0] == {"tc": [str(ace), str(seven)]} and data[2] == {"c": str(ace)}
    assert set(data[1]["fc"]) == {str(ace), str(seven)}
    assert data[3] == [{"c": str(ace)}, 3, "AS"]  # a text that is not a card stays a text
    back = load_state(la_cabra, orjson.loads(orjson.dumps(data)))
    assert back == state and back[0][0] is ace and back[2] is ace and next(c for c in back[1] if c == seven) is seven


def test_a_card_no_deck_has_round_trips_by_rank_and_suit() -> None:
    odd = Card("Z", "Q")
    data = dump_state((odd, frozenset({odd})))
    assert data == [{"c": ["Z", "Q"]}, {"fs": [{"c": ["Z", "Q"]}]}]
    assert load_state(la_cabra, json.loads(json.dumps(data))) == (odd, frozenset({odd}))


@pytest.mark.parametrize("data", [{"c": "ZZ"}, {"tc": ["AS", "nope"]}, {"fc": [1]}, {"c": "AS", "x": 1}, {"what": []}])
def test_data_in_no_stored_form_is_refused_not_misread(data: object) -> None:
    with pytest.raises(CodecError):
        load_state(la_cabra, data)


def test_a_change_to_the_codec_changes_every_rules_version() -> None:
    """Snapshots are refused when their rules version differs: the version digests this codec's source."""
    from api.service import snapshots

    assert "codec.py" in snapshots._SHARED


def test_history_items_are_written_and_read_with_the_callers_json_functions() -> None:
    """Engines import only the standard library; the service hands the codec a faster JSON encoder
    and parser for the items of histories (the bulk of a long match's state)."""
    events, states = play("la-cabra", 0)
    state = states[-1]
    past = la_cabra.State._fields.index("past")
    written: list[object] = []

    def encode(data: object) -> str:
        written.append(data)
        return json.dumps(data) + " "  # still JSON: proves which encoder wrote the text

    state = pickle.loads(pickle.dumps(state))  # histories of its own, whose items no dump has written yet
    data = json.loads(json.dumps(dump_state(state, encode=encode)))
    items = data["v"][past]["hj"]
    assert written and all(text.endswith(" ") for text in items)
    parsed: list[str] = []
    loaded = load_state(la_cabra, data, parse=lambda text: parsed.append(text) or json.loads(text))
    assert items[-1] in parsed and items[0] not in parsed  # each history's last item at once, the others when read
    assert loaded.past[0] == state.past[0] and parsed[-1] == items[0]
    assert (
        dump_state(state)["v"][past]["hj"][:-1] == items[:-1]
    )  # earlier items' texts are reused (the last is held apart)


def _fresh_fold(game: str, seed: int) -> list[object]:
    """The states of a seeded playout, folded here (``play``'s are shared with other tests)."""
    events, _ = play(game, seed)
    engine = ENGINES[game]
    states = [engine.start(events[0].data)]
    for event in events[1:]:
        states.append(engine.apply(states[-1], event))
    return states


def test_a_later_snapshot_encodes_only_the_items_added_since() -> None:
    """A long match's snapshot is stored every few hundred events: what its earlier hands encode to
    is remembered beside the history they share, so each store encodes only what is new."""
    events, _ = play("la-cabra", 4)  # six hands
    past = la_cabra.State._fields.index("past")
    early = la_cabra.start(events[0].data)
    rest = iter(events[1:])
    for event in rest:  # up to the third hand, then a snapshot, as the service stores one
        early = la_cabra.apply(early, event)
        if len(early.past) == 3:
            break
    dump_state(early)
    late = early
    for event in rest:  # the play goes on from the state just stored
        late = la_cabra.apply(late, event)
    assert len(late.past) == 6
    written: list[object] = []

    def encode(data: object) -> str:
        written.append(data)
        return json.dumps(data)

    again = dump_state(late, encode=encode)
    assert load_state(la_cabra, json.loads(json.dumps(again))) == late  # remembered texts and new ones read back whole
    hands_written = [d for d in written if d in [json.loads(t) for t in again["v"][past]["hj"]]]
    # early's last hand was held apart (it could still change) and the hands after it are new
    assert 0 < len(hands_written) <= len(late.past) - len(early.past) + 1


def test_dumping_a_state_keeps_nothing_beside_it() -> None:
    """What items encode to lives in the state's own histories and goes with the state: nothing a
    dump remembers may outlive it (a table beside every state ever stored held 100,000 hands past
    the memory cache's budget after an upgrade had every snapshot rebuilt)."""
    states = _fresh_fold("la-cabra", 3)
    kind = type(states[-1].past[0])
    del states
    gc.collect()
    before = sum(type(o) is kind for o in gc.get_objects())
    state = _fresh_fold("la-cabra", 3)[-1]
    assert sum(type(o) is kind for o in gc.get_objects()) > before
    dump_state(state)
    del state
    gc.collect()
    assert sum(type(o) is kind for o in gc.get_objects()) == before
