"""Engine states survive a trip through JSON (the stored snapshots), for every game.

Over random playouts of each game, every state of the match is dumped, sent through
``json``, loaded, and must equal the original, show the same views and score, and fold the
rest of the match to the same end.
"""

from __future__ import annotations

import json

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
    for event in events[middle + 1:]:
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
