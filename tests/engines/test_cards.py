"""Cards are values: equal and ordered by (rank, suit), one object per value.

``Card`` returns the one object of its rank and suit, so that hashing and ``==`` are the
object's own (engines hash cards on every move); these tests pin that nothing else about a
card changed with it.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from engines.cards import CABO, FRENCH_104, LA_CABRA, Card, parse

REPO = Path(__file__).resolve().parents[2]


def test_a_card_built_again_is_the_decks_own_object() -> None:
    card = parse("10H", LA_CABRA)
    assert card is parse("10H", LA_CABRA)
    fresh = Card("10", "H")
    assert fresh is card and fresh == card and not fresh != card and hash(fresh) == hash(card)
    assert Card(suit="H", rank="10") is card and Card("7") is Card("7", None)
    assert {fresh: 1}[card] == 1 and card in frozenset([fresh])
    assert Card("10", "C") != card and Card("10", "C") not in {card}


def test_repr_str_ordering_and_fields_are_those_of_the_plain_dataclass() -> None:
    card = Card("10", "H")
    assert repr(card) == "Card(rank='10', suit='H')" and str(card) == "10H"
    assert repr(Card("7")) == "Card(rank='7', suit=None)" and str(Card("7")) == "7"
    assert sorted([Card("A", "S"), Card("10", "H"), Card("10", "C")]) == [
        Card("10", "C"),
        Card("10", "H"),
        Card("A", "S"),
    ]
    assert Card("10", "C") < Card("10", "H") <= Card("10", "H") and Card("A", "S") > Card("10", "H")
    assert Card.__match_args__ == ("rank", "suit")
    match card:
        case Card("10", suit):
            assert suit == "H"
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = "J"  # type: ignore[misc]


def test_a_card_is_never_equal_to_what_is_not_a_card() -> None:
    card = Card("10", "H")
    assert card != ("10", "H") and card != "10H" and card != None  # noqa: E711
    with pytest.raises(TypeError):
        card < ("10", "H")  # type: ignore[operator]  # noqa: B015


def test_copies_in_a_deck_are_one_card_counted_twice() -> None:
    twos = [c for c in CABO.cards if c.rank == "0"]
    assert len(twos) == 2 and twos[0] is twos[1] and len(set(twos)) == 1
    assert FRENCH_104.count(Card("A", "S")) == 2


def test_replace_copy_and_pickle_give_the_one_card_of_the_value() -> None:
    card = parse("QS", LA_CABRA)
    other = dataclasses.replace(card, suit="H")
    assert other is Card("Q", "H") and other is parse("QH", LA_CABRA)
    for clone in (copy.copy(card), copy.deepcopy(card), pickle.loads(pickle.dumps(card))):
        assert clone is card and clone == card and hash(clone) == hash(card) and clone in {card}


def test_a_pickled_card_is_rebuilt_in_another_process() -> None:
    """A pickled card is rebuilt from its rank and suit: it is the other process's own card object."""
    payload = pickle.dumps([parse("10H", LA_CABRA), Card("7")])
    code = (
        "import pickle, sys\n"
        "from engines.cards import LA_CABRA, Card, parse\n"
        "ten, seven = pickle.loads(sys.stdin.buffer.read())\n"
        "assert ten is parse('10H', LA_CABRA) and ten in {parse('10H', LA_CABRA)}, 'ten'\n"
        "assert seven is Card('7') and seven in {Card('7')}, 'seven'\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", code], input=payload, cwd=REPO, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
