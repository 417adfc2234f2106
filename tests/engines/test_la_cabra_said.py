"""La Cabra in the players' languages (issue 28): everything the engine says a person reads — the
replay's narration, the score sheet's lines, the refusals — is said from message ids with named
parts (engines/said.py), English exactly as before, and every id has its Catalan, Spanish and
German in the catalogs."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.engines.deals import PLAYERS, E, Match, N, S, W, cards, hands
from tests.engines.playouts import play
from tests.languages import untranslated

from api import i18n
from engines import la_cabra
from engines.base import RuleViolation
from engines.said import Said

LANGUAGES = ("ca", "es", "de")
ENGINE = Path(la_cabra.__file__).parent


def said_everywhere(value: Any) -> list[str]:
    """What ``value`` (what the engine said, at any depth) lacks in any of the three languages."""
    return [f"{lang}: {missing}" for lang in LANGUAGES for missing in untranslated(value, lang)]


# --------------------------------------------------------------------------- whole matches


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_played_match_is_said_in_every_language(seed: int) -> None:
    events, states = play("la-cabra", seed)
    before = None
    lines = []
    for event, after in zip(events, states):
        lines.append(la_cabra.narrate(before, event, after))
        before = after
    assert len(lines) > 20 and all(lines)
    assert said_everywhere(lines) == []
    sheets = [la_cabra.score(state) for state in states[::7] + (states[-1],)]
    assert any(line["reason"] for sheet in sheets for hand in sheet["hands"] for line in hand["lines"])
    assert said_everywhere(sheets) == []
    views = [la_cabra.view(state, seat) for state in states[:: len(states) // 5] for seat in (None, "all", N, W)]
    assert said_everywhere(views + [la_cabra.view(states[-1], "all")]) == []


def test_the_narration_reads_in_each_language() -> None:
    """A trick's words in each language's own order: the same facts, the players' terms."""
    m = Match()
    m.deal(W, hands("9H KH 6C 7C", "10H 6S 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S"), "QS")
    m.add("lead", seat=N, cards=["9H", "KH"])
    m.add("beat", seat=E, cards=["10H", "6S"])
    m.add("beat", seat=S, cards=["AH", "7S"])
    m.add("discard", seat=W, cards=["6D", "QC"])
    end = m.texts[-1]
    assert end == (
        "West discards 2 cards face down; South takes the trick (25 points face up and 2 face-down cards); "
        "South, West, North and East draw 2 cards each (stock 20 → 12); South leads next"
    )
    assert i18n.say(end, "es") == (
        "West se descarta de 2 cartas boca abajo; South se lleva la baza (25 puntos a la vista y 2 cartas "
        "tapadas); South, West, North y East roban 2 cartas cada uno (mazo 20 → 12); South sale en la siguiente"
    )
    assert i18n.say(end, "ca").startswith("West es descarta de 2 cartes tapades; South s'endú la basa")
    assert i18n.say(end, "de").startswith("West wirft 2 Karten verdeckt ab; South bekommt den Stich (25 Augen offen")
    assert i18n.say(m.texts[0], "es").startswith("Reparto 1: reparte West; triunfo ♠ (se enseña dama de picas")
    assert i18n.say(m.texts[1], "de") == "North spielt Herz-9, Herz-König aus"
    assert i18n.say(la_cabra.narrate(None, m.events[0], m.state), "ca") == (
        "La Cabra: North i South contra East i West; la parella que arriba a 12 punts de derrota perd la sèrie"
    )


def test_the_games_description_and_forms_are_said() -> None:
    described = la_cabra.describe()
    words = [described["deck"], *(o["description"] for o in described["options"].values())]
    forms = described["forms"]
    words += [f["label"] for fields in forms["moves"].values() for f in fields]
    words += [forms["words"][t] for t in ("lead", "beat", "discard", "tira")]
    words += [v for entry in forms["sheet"].values() for v in entry.values() if isinstance(v, str)]
    words += [v for extra in forms["deal"]["extras"] for v in extra.values() if isinstance(v, str) and v != "trump"]
    assert all(isinstance(w, Said) for w in words), [w for w in words if not isinstance(w, Said)]
    assert said_everywhere(words) == []
    assert i18n.say(forms["words"]["tira"], "es") == "{seat} echa tira (cuatro cartas de un palo, fuera de turno)"
    assert i18n.say(forms["sheet"]["cardPoints"]["other"], "de") == "{team}: {points} Augen"


# --------------------------------------------------------------------------- refusals


def _z1() -> Match:
    m = Match()
    m.deal(W, hands("9H KH 6C 7C", "10H 6S 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S"), "QS")
    return m


def _z2() -> Match:
    m = Match()
    m.deal(W, hands("6C 8H 9H 6D", "6S 8S 9S JH", "7D 8D KD AD", "6H 7H 8C 9C"), "QS")
    return m


def _led() -> Match:
    m = Match()
    m.deal(W, hands("9H KH 6C 7C", "10H AC 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S"), "QS")
    m.add("lead", seat=N, cards=["9H", "KH"])
    return m


def _result_only() -> Match:
    m = Match()
    m.add("hand_started", dealer=W)
    return m


def _hidden() -> Match:
    m = Match()
    m.deal(W, hands("9H ?? ?? ??", "10H 6S 8C 9C", "?? ?? ?? ??", "?? ?? ?? ??"), "QS")
    return m


Setup = Callable[[], Match]
REFUSALS: list[tuple[Setup, str, dict[str, Any], str, str]] = [
    (_z1, "lead", {"seat": E, "cards": ["10H"]}, "common.not_your_turn", "it is North's turn to lead, not East's"),
    (
        _led,
        "beat",
        {"seat": S, "cards": ["AH", "7S"]},
        "common.not_your_turn",
        "it is East's turn to play, not South's",
    ),
    (
        _z1,
        "beat",
        {"seat": N, "cards": ["9H"]},
        "la-cabra.wrong_move",
        "North leads this trick: record a lead (or a tira)",
    ),
    (
        _led,
        "lead",
        {"seat": E, "cards": ["10H"]},
        "la-cabra.wrong_move",
        "East answers the lead with 2 cards: beat or discard",
    ),
    (
        _z1,
        "lead",
        {"seat": N, "cards": ["9H", "6C"]},
        "la-cabra.one_suit",
        "a lead is cards of one suit: 9♥ 6♣ mixes suits",
    ),
    (
        _z1,
        "lead",
        {"seat": N, "cards": cards("9H KH 6C 7C AS")},
        "la-cabra.lead_size",
        "North can lead 1 to 4 cards, not 5",
    ),
    (
        _z1,
        "lead",
        {"seat": N, "cards": ["10H"]},
        "common.card_unavailable",
        "North cannot play 10♥: it is in East's hand",
    ),
    (
        _z1,
        "lead",
        {"seat": N, "cards": ["JH"]},
        "common.card_unavailable",
        "North's hand is known (6♣ 7♣ 9♥ K♥): it holds no J♥",
    ),
    (
        _led,
        "beat",
        {"seat": E, "cards": ["10H", "AC"]},
        "la-cabra.cannot_beat",
        "East cannot beat 9♥ K♥ with 10♥ A♣: A♣ beats nothing (trump is ♠)",
    ),
    (
        _led,
        "beat",
        {"seat": E, "cards": ["10H"]},
        "la-cabra.wrong_count",
        "East must play exactly 2 cards to this trick, not 1",
    ),
    (
        _z2,
        "tira",
        {"seat": S, "cards": cards("7D 8D KD")},
        "la-cabra.tira_cards",
        "a tira is four cards of one suit, not 7♦ 8♦ K♦",
    ),
    (
        _z2,
        "tira",
        {"seat": N, "cards": cards("6C 8H 9H 6D")},
        "la-cabra.tira_cards",
        "a tira is four cards of one suit, not 6♣ 8♥ 9♥ 6♦",
    ),
    (
        _z1,
        "hand_started",
        {"dealer": N, "hands": hands("9H KH 6C 7C", "10H 6S 8C 9C", "AH 7S JC 10C", "6D QC 8S 9S"), "trump": "QS"},
        "common.hand_in_progress",
        "hand 1 is not finished (waiting for its last trick)",
    ),
    (Match, "lead", {"seat": N, "cards": ["9H"]}, "common.no_hand", "no hand has been dealt yet (hand_started first)"),
    (
        _result_only,
        "lead",
        {"seat": N, "cards": ["9H"]},
        "common.no_deal",
        "hand 1 is recorded by its result only: moves cannot be recorded in it",
    ),
    (
        _result_only,
        "hand_result",
        {"lossPoints": [0, 8]},
        "la-cabra.bad_result",
        "lossPoints are the deal's own 2, 4 or 6; the doubling after eggs is counted by the engine: write 4 for a doubled 8",
    ),
    (
        _result_only,
        "hand_result",
        {"cardPoints": [0, 120]},
        "la-cabra.bad_result",
        "North and South have 0 card points: say whether they took only blank tricks (4 loss points) or no trick at "
        "all (6) by giving both teams' tricks, for example North and South 1 and East and West 8, or North and South "
        "0 and East and West 9",
    ),
    (
        _result_only,
        "hand_result",
        {"cardPoints": [72, 48], "tricks": [5]},
        "la-cabra.bad_result",
        "tricks is two numbers, one per team (NS, EW)",
    ),
    (
        _result_only,
        "hand_result",
        {"cards": [["AS"]]},
        "la-cabra.bad_result",
        "cards is two lists, each team's trick cards",
    ),
    (
        _hidden,
        "reveal",
        {"cards": [{"seat": E, "card": "AS"}]},
        "common.bad_reveal",
        "East holds no unknown card (hand: 8♣ 9♣ 10♥ 6♠)",
    ),
    (
        _hidden,
        "reveal",
        {"cards": [{"seq": "x", "index": 0, "card": "AS"}]},
        "common.bad_reveal",
        "seq must be an event number, not 'x'",
    ),
    (
        _hidden,
        "reveal",
        {"cards": [{"seat": N, "seq": 2, "card": "AS"}]},
        "common.bad_reveal",
        "a binding is {seq, index, card} (a face-down card) or {seat, card} (a hand card)",
    ),
    (
        Match,
        "reveal",
        {"cards": [{"seat": N, "card": "AS"}]},
        "common.bad_reveal",
        "no hand is being played: North holds no cards to reveal",
    ),
    (
        _z1,
        "discard",
        {"seat": N, "cards": ["9H"]},
        "la-cabra.wrong_move",
        "North leads this trick: record a lead (or a tira)",
    ),
]


@pytest.mark.parametrize(("setup", "kind", "data", "code", "english"), REFUSALS)
def test_a_refusal_is_said_in_every_language(
    setup: Setup, kind: str, data: dict[str, Any], code: str, english: str
) -> None:
    err = setup().refuse(kind, code, **data)
    assert err.message == english  # the English, word for word as before
    assert said_everywhere(err.message) == []
    for lang in LANGUAGES:
        assert i18n.say(err.message, lang) != str(err.message), lang


def test_refusals_of_a_start_are_said() -> None:
    refused = []
    for data in (
        {"game": "la-cabra", "players": PLAYERS[:3]},
        {"game": "la-cabra", "players": PLAYERS, "teams": [[0, 1], [2, 3]]},
        {"game": "la-cabra", "players": PLAYERS, "initial": {"lossPoints": [0, 0], "doubleNext": 1}},
        {"game": "kabu", "players": PLAYERS},
    ):
        with pytest.raises(RuleViolation) as info:
            la_cabra.start(data)
        refused.append(info.value.message)
    assert refused[0] == "La Cabra is played by exactly 4 players in two teams; got 3"
    assert refused[2] == "initial doubleNext must be true or false"
    assert said_everywhere(refused) == []
    assert i18n.say(refused[0], "es") == "a La Cabra juegan exactamente 4 jugadores en dos parejas; hay 3"


def test_the_spanish_of_a_refusal() -> None:
    err = _led().refuse("beat", "la-cabra.cannot_beat", seat=E, cards=["10H", "AC"])
    assert i18n.say(err.message, "es") == (
        "East no puede matar 9 de corazones, rey de corazones con 10 de corazones, as de tréboles: "
        "as de tréboles no mata ninguna carta (el triunfo es ♠)"
    )
    assert i18n.say(err.message, "de") == (
        "East kann Herz-9, Herz-König nicht mit Herz-10, Kreuz-Ass schlagen: Kreuz-Ass schlägt nichts (Trumpf ist ♠)"
    )


# --------------------------------------------------------------------------- every refusal, in the code


WORDS = {"Said", "Counted", "Joined", "Listed"}


def _said_call(node: ast.expr | None, assigned: dict[str, list[ast.expr]]) -> bool:
    """Whether ``node`` is words said from a message id: a call of Said, Counted, Joined or Listed,
    a choice between such calls, or a name only ever assigned such calls in its function."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in WORDS
    if isinstance(node, ast.IfExp):
        return _said_call(node.body, assigned) and _said_call(node.orelse, assigned)
    if isinstance(node, ast.Name):
        values = assigned.get(node.id, [])
        return bool(values) and all(_said_call(v, {}) for v in values)
    return False


def test_every_refusal_is_said_from_a_message_id() -> None:
    checked, wrong = 0, []
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            assigned: dict[str, list[ast.expr]] = {}
            for node in ast.walk(function):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            assigned.setdefault(target.id, []).append(node.value)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                    assigned.setdefault(node.target.id, []).append(node.value)
            for node in ast.walk(function):
                if not (
                    isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "RuleViolation"
                ):
                    continue
                message = (
                    node.args[1]
                    if len(node.args) > 1
                    else next((k.value for k in node.keywords if k.arg == "message"), None)
                )
                checked += 1
                if not _said_call(message, assigned):
                    wrong.append(f"{path.name}:{node.lineno}")
    sources = "".join(path.read_text(encoding="utf-8") for path in ENGINE.glob("*.py"))
    assert checked == sources.count("RuleViolation(") > 80  # every refusal the engine raises
    assert wrong == []
