"""When the rules refuse the public log: what an open read still hides, and what it costs.

Some public logs do not fold (``api/service/disclosure.py``, ``foldable_public_log``): La Cabra
wants a face-down discard from a hand the table knows named, El Roby wants a showdown for a
hand whose cards the scorer wrote. The events the rules need are put back as recorded. Every
open read of such a match is searched, raw bytes, for the private values of both games, and
the audit withholds the lines of a hand scored from put-back events (shown with the token).
The public fold is one walk of the log, re-walking only the hand a refusal reaches back to.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from api.service.disclosure import foldable_public_log
from engines import el_roby, la_cabra
from engines.base import Engine, Event
from tests.api.test_private_reads import leaks, open_reads
from tests.conftest import Scorer
from tests.engines.test_conformance import playout

U = "??"


def ev(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


# El Roby: hand 1 written card for card (no showdown needed), Bea goes out on her first turn;
# hand 2 dealt with Ana's cards known to the scorer, Carlos draws a known card from the stock.
ROBY_DEAL = [
    ["2C", "2D", "9H", "9S", "JC", "QD", "3S", "3H", "5D", "6S"],
    ["4H", "5H", "6H", "7H", "8C", "8D", "8S", "KC", "KD", "KS"],
    ["7C", "10D", "2S", "4S", "4C", "9D", "JD", "QC", "AS", "AH"],
    ["3C", "5C", "6C", "10C", "KH", "2H", "7S", "8H", "AD", "JH"],
]
ANA_2 = ["9C", "3D", "4D", "6D", "7D", "10S", "JS", "2C", "2D", "9H"]


def test_the_refused_deal_of_the_next_hand_keeps_its_public_form() -> None:
    """The deal of hand 2 is refused (hand 1 waits for its showdown) but needs nothing of its own
    put back: hand 1's events are, and hand 2's dealt cards stay unknown to the open fold."""
    log = [Event(1, "match_started", {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "options": {}}),
           Event(2, "hand_started", {"dealer": 0, "hands": ROBY_DEAL, "discard": "10H"}),
           Event(3, "draw", {"seat": 1, "from": "stock", "card": "QH"}),
           Event(4, "meld", {"seat": 1, "id": 1, "cards": ["4H", "5H", "6H", "7H"]}),
           Event(5, "meld", {"seat": 1, "id": 2, "cards": ["8C", "8D", "8S"]}),
           Event(6, "meld", {"seat": 1, "id": 3, "cards": ["KC", "KD", "KS"]}),
           Event(7, "discard", {"seat": 1, "card": "QH"}),
           Event(8, "hand_started", {"dealer": 1, "hands": [ANA_2, [U] * 10, [U] * 10, [U] * 10], "discard": "2C"})]
    shown, put_back, state = foldable_public_log(el_roby, log)
    assert put_back == {2, 3}
    assert shown[7].data["hands"][0] == [U] * 10
    assert el_roby.view(state, None)["hand"] == 2


class Counting:
    """An engine that counts the events it applies (the cost of a fold, without a clock)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.applied = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def apply(self, state: Any, event: Event) -> Any:
        self.applied += 1
        return self.engine.apply(state, event)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_public_fold_walks_the_log_once_however_many_events_are_put_back(seed: int) -> None:
    events, _ = playout("la-cabra", seed)
    counting = Counting(la_cabra)
    shown, put_back, _state = foldable_public_log(counting, events)  # type: ignore[arg-type]
    assert len(put_back) > 10  # these playouts name discards from hands the table knows
    assert counting.applied <= 2 * len(events)
