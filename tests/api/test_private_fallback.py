"""When the rules refuse the disclosed log: what an open read still hides, and what it costs.

Some disclosed logs do not fold (``api/service/disclosure.py``, ``foldable``): La Cabra wants a
face-down discard named from a hand the table partly knows. Since a hand's end shows its cards,
only the hand in play can be refused; the open fold then stops before the refusal and withholds
the rest of that hand, so nothing hidden is ever folded. Every open read of such matches is
searched, raw bytes, for the private values, and the disclosed fold is one walk of the log.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from api.service.disclosure import foldable, open_fold
from engines import el_roby, get_engine
from ledger import verify_listing
from engines.base import Engine, Event
from tests.api.open_reads import leaks, open_reads
from tests.conftest import Scorer
from tests.engines.drivers import playout

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


def roby_in_hand_2(scorer: Scorer) -> None:
    scorer.start({"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "options": {"entry": 5, "stake": 1}})
    scorer.record(
        ev("hand_started", dealer=0, hands=ROBY_DEAL, discard="10H"),
        ev("draw", seat=1, **{"from": "stock", "card": "QH"}),
        ev("meld", seat=1, id=1, cards=["4H", "5H", "6H", "7H"]),
        ev("meld", seat=1, id=2, cards=["8C", "8D", "8S"]),
        ev("meld", seat=1, id=3, cards=["KC", "KD", "KS"]),
        ev("discard", seat=1, card="QH"),
    )
    scorer.record(
        ev("hand_started", dealer=1, hands=[ANA_2, [U] * 10, [U] * 10, [U] * 10], discard="2C"),
        ev("draw", seat=2, **{"from": "stock", "card": "JS"}),
    )


def test_el_roby_hand_scored_without_a_showdown_is_shown_once_it_ended_and_the_next_hand_stays_hidden(
    scorer: Scorer,
) -> None:
    roby_in_hand_2(scorer)
    private = ANA_2[:7]  # JS is both Ana's and Carlos's draw (two decks)
    for path, body in open_reads(scorer, 4).items():
        assert not leaks(body, private), f"{path} shows {leaks(body, private)}"
    hand_1 = scorer.get("/audit")["hands"][0]
    assert hand_1 == scorer.read("/audit")["hands"][0]  # hand 1 has ended: the open audit is the scorer's
    assert hand_1["status"] == "scored" and hand_1["points"] == [59, 0, 78, 72] and "withheld" not in hand_1
    assert "2♣ 2" in json.dumps(hand_1["lines"], ensure_ascii=False)
    sheet = scorer.client.get(f"/matches/{scorer.id}/sheet.csv").text.splitlines()
    assert sheet[1].split(",")[:6] == ["1", "scored", "59", "0", "78", "72"]
    texts = [f["text"] for f in scorer.get("/replay")["frames"]]
    assert texts[2] == "Bea draws from the stock"  # seq 3: hand 1's draw, not put back since the hand ended
    assert texts[8] == "Carlos draws from the stock"  # seq 9: hand 2's draw keeps its public form


def test_the_refused_deal_of_the_next_hand_keeps_its_public_form() -> None:
    """The deal of hand 2 is refused (hand 1 waits for its showdown) but needs nothing of its own
    put back: hand 1's events are, and hand 2's dealt cards stay unknown to the open fold."""
    log = [
        Event(1, "match_started", {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"], "options": {}}),
        Event(2, "hand_started", {"dealer": 0, "hands": ROBY_DEAL, "discard": "10H"}),
        Event(3, "draw", {"seat": 1, "from": "stock", "card": "QH"}),
        Event(4, "meld", {"seat": 1, "id": 1, "cards": ["4H", "5H", "6H", "7H"]}),
        Event(5, "meld", {"seat": 1, "id": 2, "cards": ["8C", "8D", "8S"]}),
        Event(6, "meld", {"seat": 1, "id": 3, "cards": ["KC", "KD", "KS"]}),
        Event(7, "discard", {"seat": 1, "card": "QH"}),
        Event(8, "hand_started", {"dealer": 1, "hands": [ANA_2, [U] * 10, [U] * 10, [U] * 10], "discard": "2C"}),
    ]
    _, (shown, put_back, steps) = open_fold(el_roby, log)
    state = steps[-1].state
    assert put_back == frozenset()  # hand 1 has ended: its cards are shown, nothing needs putting back
    assert shown[1] is log[1] and shown[2] is log[2]
    assert shown[7].data["hands"][0] == [U] * 10
    assert el_roby.view(state, None)["hand"] == 2


def test_a_la_cabra_reveal_in_play_stays_hidden_until_the_deal_ends_then_everything_is_shown(scorer: Scorer) -> None:
    """West's hand is revealed to the scorer during the deal. Those cards are still in West's
    hand, which the rules hide: an open read folds the reveal as binding nothing, so the
    face-down discard West makes stays unnamed too, and the disclosed log folds as it is. Once
    the deal is closed from the sheet the piles are counted in the open: every card of the deal,
    the reveal's included, is shown to everyone, and the open audit is the scorer's."""
    scorer.start(
        {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]], "options": {}}
    )
    scorer.record(
        ev(
            "hand_started",
            dealer=3,
            trump="QS",
            hands=[["6C", "8H", "9H", "6D"], ["6S", "8S", "9S", "JH"], ["7D", "8D", "KD", "AD"], [U, U, U, U]],
        ),
        ev("reveal", cards=[{"seat": 3, "card": c} for c in ["7C", "8C", "9C", "10C"]]),
        ev("lead", seat=0, cards=["6C"]),
        ev("beat", seat=1, cards=["6S"]),
        ev("discard", seat=2, cards=["7D"]),
        ev("discard", seat=3, cards=["7C"]),
    )
    private = ["7D", "8D", "KD", "AD", "8H", "9H", "6D", "8S", "9S", "JH", "7C", "8C", "9C", "10C"]
    for path, body in open_reads(scorer, 4).items():
        assert not leaks(body, private), f"{path} shows {leaks(body, private)}"
    frames = scorer.get("/replay")["frames"]
    assert [f["text"] for f in frames].count("discard (its hidden cards are shown when the hand ends)") == 0
    scorer.record(ev("hand_result", cardPoints=[50, 70]), ev("score_claimed", hand=1, points=[2, 0]))
    audit = scorer.get("/audit")
    hand = audit["hands"][0]
    assert hand == scorer.read("/audit")["hands"][0]
    assert hand["status"] == "scored" and hand["points"] == [2, 0] and "withheld" not in hand
    assert hand["lines"] and hand["result"]["cardPoints"] == [50, 70]
    assert [c["agrees"] for c in audit["claims"]] == [True, True]
    shown = json.dumps(scorer.get("/events"))
    assert all(c in shown for c in private), [c for c in private if c not in shown]
    summary = scorer.get()
    assert summary["status"] == "playing"
    assert verify_listing(scorer.id, scorer.get("/events")["events"], summary["version"], summary["head"]).valid


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


@pytest.mark.parametrize(("game", "seed"), [("la-cabra", 0), ("el-roby", 0), ("el-roby", 1)])
def test_the_public_fold_walks_the_log_once_however_many_events_are_put_back(game: str, seed: int) -> None:
    events, _ = playout(game, seed)
    counting = Counting(get_engine(game))
    disclosure, (_, put_back, _) = open_fold(get_engine(game), events)
    for cut in range(2, len(events), max(1, len(events) // 40)):  # mid-hand too: the hand in play is hidden
        prefix = events[:cut]
        disclosure, _ = open_fold(get_engine(game), prefix)
        counting = Counting(get_engine(game))
        foldable(counting, prefix, disclosure.log)  # type: ignore[arg-type]
        assert counting.applied <= 2 * len(prefix)
