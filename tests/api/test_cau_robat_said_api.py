"""Cau Robat through the API in the reader's language (issue 28): the replay's narration, the
state and the game's description are said in Catalan, Spanish and German, the same facts (codes,
numbers, names, cards, event types) in every language. (A refusal's detail is built by
api/errors.py, which another area converts; the engine's refusals are held in
tests/engines/test_cau_robat_said.py.)"""

from __future__ import annotations

from typing import Any

from tests.api.cau_robat_logs import LOG
from tests.conftest import Scorer
from tests.languages import english_left

from engines.base import COMMON_EVENTS, MATCH_OPTIONS
from engines.common import COMMON_WORDS


def _read(scorer: Scorer, path: str, lang: str) -> Any:
    answer = scorer.client.get(f"{path}?lang={lang}")
    assert answer.status_code == 200 and answer.headers["Content-Language"] == lang
    return answer.get_json()


def _engines(body: dict[str, Any]) -> dict[str, Any]:
    """A replay, state or audit without what other areas word: the events every game shares
    (``score_claimed``, ``note``…: replays/steps.py) and the audit's rules-version notes, so what is
    left is Cau Robat's own words."""
    if "frames" in body:
        body = {**body, "frames": [f for f in body["frames"] if f["type"] not in COMMON_EVENTS]}
    return {k: v for k, v in body.items() if k != "rules"}


def test_a_replay_and_its_audit_say_no_english_in_another_language(scorer: Scorer) -> None:
    scorer.start(LOG[0]["data"])
    scorer.record(*LOG[1:])
    for path in (f"/matches/{scorer.id}/replay", f"/matches/{scorer.id}/state", f"/matches/{scorer.id}/audit"):
        english = _engines(_read(scorer, path, "en"))
        for lang in ("ca", "es", "de"):
            assert english_left(english, _engines(_read(scorer, path, lang)), lang) == [], (path, lang)
    frames = _read(scorer, f"/matches/{scorer.id}/replay", "ca")["frames"]
    assert "B juga 7 de copes: Cau" in [f["text"] for f in frames]
    lines = _read(scorer, f"/matches/{scorer.id}/audit", "es")["hands"][0]["lines"]
    assert lines[0]["reason"] == "8 cartas; más cartas: B y C (12); no gana la mano"


def test_the_game_is_described_in_the_readers_language(client: Any) -> None:
    english = client.get("/games/cau-robat?lang=en").get_json()
    for lang in ("ca", "es", "de"):
        other = client.get(f"/games/cau-robat?lang={lang}").get_json()
        # left out, another area's: engines/common.py's COMMON_WORDS (the words every game's forms
        # share) and the match options every game shares (engines/base.py MATCH_OPTIONS)
        for shared in MATCH_OPTIONS:
            english["options"].pop(shared, None), other["options"].pop(shared, None)
        left = english_left(english, other, lang)
        assert [found for found in left if found.split(": ", 1)[1] not in COMMON_WORDS.values()] == [], lang
        assert other["deck"] != english["deck"] and other["forms"]["moves"] != english["forms"]["moves"]
