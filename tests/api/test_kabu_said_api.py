"""A Kabú match through the API in the reader's language (issue 28): the replay's narration and a
refusal's message come out in Catalan, Spanish or German, the facts the same as in English."""

from __future__ import annotations

import pytest

from tests.conftest import Scorer
from tests.engines.playouts import play
from tests.languages import english_left


@pytest.mark.parametrize("lang", ["ca", "es", "de"])
def test_a_recorded_match_replays_without_english(scorer: Scorer, lang: str) -> None:
    events, _ = play("kabu", 1)
    scorer.start(events[0].data)
    scorer.record(*[{"type": e.type, "data": e.data} for e in events[1:]])
    english, other = scorer.read("/replay", lang="en"), scorer.read("/replay", lang=lang)
    assert english_left(english, other, lang, "replay") == []
    said = [frame["text"] for frame in other["frames"] if isinstance(frame.get("text"), str)]
    assert said and said != [frame["text"] for frame in english["frames"] if isinstance(frame.get("text"), str)]


def test_a_refusal_is_said_in_spanish(scorer: Scorer) -> None:
    scorer.start({"game": "kabu", "players": ["Ana", "Berta", "Carles"]})
    scorer.record({"type": "hand_started", "data": {"dealer": 2, "hands": [["??", "??"]] * 3}})
    scorer.record({"type": "stand", "data": {"seat": 0}})
    answer = scorer.client.post(
        f"/matches/{scorer.id}/events?lang=es",
        json={"events": [{"type": "take", "data": {"seat": 0}}]},
        headers={"Authorization": f"Bearer {scorer.token}"},
    ).get_json()
    assert answer["code"] == "kabu.stood"  # the code stays the same in every language
    assert answer["message"] == "Ana se plantó con 2 cartas y ya no puede pedir ninguna más"
