"""What an engine says, said again in the reader's language (issue 28): the replay's narration
comes from message ids with named parts (engines/said.py), so ``?lang=`` changes the words and
nothing else — the same frames, states, codes and numbers in every language."""

from __future__ import annotations

import pickle

from engines.said import Counted, Joined, Listed, Said
from api import i18n
from tests.api.cabo_logs import vocabulary_log
from tests.conftest import Scorer


def test_said_reads_as_english_and_keeps_its_parts() -> None:
    said = Said("%(player)s draws a card", player="Ben")
    assert said == "Ben draws a card" and said.msgid == "%(player)s draws a card" and said.parts == {"player": "Ben"}
    assert Listed(["Anna", "Ben", "Dora"]) == "Anna, Ben and Dora" and Listed([]) == "nobody"
    assert Counted("%(n)s final turn left", "%(n)s final turns left", 2) == "2 final turns left"
    assert Joined([said, Said("the round is over")]) == "Ben draws a card; the round is over"
    for value in (said, Listed(["Anna", "Ben"]), Counted("%(n)s card", "%(n)s cards", 1), Joined([said])):
        again = pickle.loads(pickle.dumps(value))
        assert again == value and type(again) is type(value)


def test_said_again_in_each_language() -> None:
    said = Joined(
        [
            Said("%(player)s draws a card", player="Ben"),
            Counted("%(n)s final turn left", "%(n)s final turns left", 3),
            Said(
                "Cabo (edition %(edition)s): %(players)s; lowest total wins, the game ends when a total goes over 100",
                edition=2,
                players=Listed(["Anna", "Ben", "Dora"]),
            ),
        ]
    )
    assert i18n.say(said, "de").startswith(
        "Ben zieht eine Karte; noch 3 letzte Züge; Cabo (Ausgabe 2): Anna, Ben und Dora;"
    )
    assert i18n.say(said, "ca").startswith(
        "Ben roba una carta; queden 3 torns finals; Cabo (edició 2): Anna, Ben i Dora;"
    )
    assert i18n.say(said, "es").startswith(
        "Ben roba una carta; quedan 3 turnos finales; Cabo (edición 2): Anna, Ben y Dora;"
    )
    assert i18n.say(said, "en") == str(said)
    assert i18n.say("plain words", "de") == "plain words"  # only what an engine said is said again


def test_a_cabo_replay_narrates_in_the_language_asked(scorer: Scorer) -> None:
    log = vocabulary_log()
    scorer.start(log[0]["data"])
    scorer.record(*log[1:])

    def replay(lang: str) -> tuple[str, dict]:
        answer = scorer.client.get(f"/matches/{scorer.id}/replay?lang={lang}")
        assert answer.status_code == 200 and answer.headers["Content-Language"] == lang
        return answer.get_data(as_text=True), answer.get_json()

    english_text, english = replay("en")
    german_text, german = replay("de")
    catalan_text, catalan = replay("ca")
    assert "deals four face-down cards" in english_text
    assert "teilt jedem vier verdeckte Karten aus" in german_text and "deals four" not in german_text
    assert "reparteix quatre cartes tapades" in catalan_text
    # the same facts: every frame's state and event alike, only the words differ

    def facts(body: dict) -> list:
        return [
            {k: v for k, v in frame.items() if not isinstance(v, str) or k in ("type",)} for frame in body["frames"]
        ]

    assert facts(german) == facts(english) == facts(catalan)


def test_catalan_elides_de_before_a_name_said_into_a_sentence() -> None:
    from api.languages import _elided

    assert _elided("el torn de Anna", "ca") == "el torn d'Anna"
    assert _elided("la pila de Èric i de Hug", "ca") == "la pila d'Èric i d'Hug"
    assert _elided("de Joan, de Iuri, de 11", "ca") == "de Joan, de Iuri, de 11"  # a consonant, a semivowel, a number
    assert _elided("de Anna", "es") == "de Anna"  # Spanish does not elide
