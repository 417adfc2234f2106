"""Kabú in the players' languages (issue 28): every word the engine says is a message id the
catalogs translate, so a Catalan, a Spanish and a German reader record, replay and dispute a
match without meeting an English word; the English stays what it was."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.engines.kabu_helpers import U, Match
from tests.engines.playouts import play
from tests.languages import untranslated

from api import i18n
from engines import kabu
from engines.base import RuleViolation
from engines.said import Counted, Joined, Listed, Said

LANGS = ("ca", "es", "de")
KABU = Path(kabu.__file__).parent
SAYERS = {"Said", "Counted", "Joined", "Listed"}


# --------------------------------------------------------------------------- what a playout says


def _said_by_a_playout(seed: int) -> Iterator[tuple[str, Any]]:
    """Every narration line, the score sheet and the views of some states of a seeded playout."""
    events, states = play("kabu", seed)
    for i, event in enumerate(events):
        yield f"narrate #{event.seq} {event.type}", kabu.narrate(states[i - 1] if i else None, event, states[i])
    middle = states[len(states) // 3], states[len(states) // 2], states[2 * len(states) // 3]
    for state in (*middle, states[-1]):
        yield "score", kabu.score(state)
        for seat in (None, "all", 0):
            yield f"view {seat}", kabu.view(state, seat)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("lang", LANGS)
def test_a_playout_says_nothing_untranslated(seed: int, lang: str) -> None:
    left = [f"{where}: {found}" for where, value in _said_by_a_playout(seed) for found in untranslated(value, lang)]
    assert left == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_description_and_forms_say_nothing_untranslated(lang: str) -> None:
    described = kabu.describe()
    assert untranslated(described["options"], lang) == []
    assert untranslated(described["target"], lang) == [] and untranslated(described["initial"], lang) == []
    assert (
        untranslated(described["forms"]["moves"], lang) == [] and untranslated(described["forms"]["sheet"], lang) == []
    )
    words = {k: v for k, v in described["forms"]["words"].items() if k in kabu.views.forms.WORDS}
    assert untranslated(words, lang) == [] and all(isinstance(w, Said) for w in words.values())
    assert untranslated(described["decks"], lang) == []


def test_a_replay_reads_in_the_players_words() -> None:
    """A few sentences said again, as players of each language say them."""
    m = Match(["Montse", "Pau", "Jordi"])
    m.direct(0)
    m.decide(("take", 1), ("stand", 2), ("stand", 0))
    spoken = {lang: [i18n.say(text, lang) for text in m.texts] for lang in LANGS}
    assert m.texts[1] == "Pau asks for a third card"
    assert spoken["es"][1] == "Pau pide tercera carta" and spoken["ca"][1] == "Pau demana tercera carta"
    assert spoken["de"][1] == "Pau nimmt eine dritte Karte"
    assert spoken["es"][2] == "Jordi se planta con dos cartas" and spoken["ca"][2] == "Jordi es planta amb dues cartes"
    assert spoken["de"][0] == "Runde 1: Montse gibt jedem Spieler zwei Karten; Pau entscheidet zuerst"
    assert spoken["es"][3].startswith("Montse se planta con dos cartas; el que da sirve la tercera carta a Pau")


# --------------------------------------------------------------------------- refusals


def _deck_too_small() -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        kabu.start(
            {"game": "kabu", "players": [f"p{i}" for i in range(9)], "options": {"openSix": True, "maxPlayers": 10}}
        )
    return info.value


def _players() -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        kabu.start({"game": "kabu", "players": ["Ana", "Ana"]})
    return info.value


def _match(**options: Any) -> Match:
    m = Match(options=options)
    m.direct(3)
    return m


def _insolvent() -> RuleViolation:
    m = Match(["A", "B", "C"], target={"end": "time"}, initial={"chips": [20, 20, 3]})
    m.result(0, values=[9, 5, 0])
    return m.refuse("kabu.insolvent", "hand_started", dealer=0)


def _stood() -> RuleViolation:
    m = _match()
    m.decide(("stand", 0))
    return m.refuse("kabu.stood", "take", seat=0)


def _max_cards() -> RuleViolation:
    m = _match()
    m.decide(("take", 0), ("stand", 1), ("stand", 2), ("stand", 3), ("take", 0))
    return m.refuse("kabu.max_cards", "take", seat=0)


def _result_conflict() -> RuleViolation:
    m = Match()
    m.direct(3, [["5H", "4S"], [U, U], [U, U], [U, U]])
    m.decide(("stand", 0))
    return m.refuse("kabu.result_conflict", "hand_result", values=[3, 1, 1, 1])


def _rotate() -> RuleViolation:
    m = Match(options={"dealerMode": "rotate"})
    m.result(0, values=[1, 1, 1, 1])
    return m.refuse("kabu.wrong_dealer", "hand_started", dealer=3, hands=[[U, U]] * 4)


def _result_only_bad_value() -> RuleViolation:
    m = Match()
    m.add("hand_started", dealer=0)
    return m.refuse("kabu.bad_result", "hand_result", values=[1, 12, 1, 1])


def _timed(initial: list[int]) -> Match:
    m = Match(["A", "B", "C"], target={"end": "time"}, initial={"chips": initial})
    m.result(0, values=[1, 1, 1])
    return m


REFUSALS: dict[str, tuple[Callable[[], RuleViolation], str, str]] = {
    "not your turn": (
        lambda: _match().refuse("common.not_your_turn", "take", seat=1),
        "common.not_your_turn",
        "P1 decides on a third card now, not P2",
    ),
    "a card dealt twice": (
        lambda: Match().refuse(
            "common.card_duplicate", "hand_started", dealer=0, hands=[["AH", "2H"], ["AH", U], [U, U], [U, U]]
        ),
        "common.card_duplicate",
        "A♥ is dealt to P1 and to P2",
    ),
    "buying chips when not allowed": (
        lambda: _match().refuse("kabu.time_only", "buy_chips", seat=0, **{"from": 1}, chips=1),
        "kabu.time_only",
        "buying chips belongs to the timed game (target end = time); this game ends by insolvency",
    ),
    "a wrong value": (
        _result_only_bad_value,
        "kabu.bad_result",
        "a hand's value is a digit from 0 to 9; P2's is 12",
    ),
    "drawing after standing": (_stood, "kabu.stood", "P1 stood with 2 cards and can never draw again"),
    "a fifth card": (
        _max_cards,
        "kabu.max_cards",
        "P1 holds 4 cards: the fourth card is the last, there is no fifth",
    ),
    "a keep in a direct match": (
        lambda: _match().refuse("kabu.no_keep", "keep", seat=0, card=U),
        "kabu.no_keep",
        "this match deals two cards directly (start = direct): nobody keeps a card",
    ),
    "the deal rotates": (
        _rotate,
        "kabu.wrong_dealer",
        "the deal rotates: P1 dealt hand 1, so P2 deals now, not P4",
    ),
    "a deck too small": (
        _deck_too_small,
        "kabu.deck_too_small",
        "impossible set-up: 9 players holding four cards each need 36 plus the six open cards = 42 cards; "
        "the French A-10 (40 cards) deck has 40",
    ),
    "two players with one name": (_players, "kabu.players", "every player needs a different name"),
    "an insolvent player must buy or leave": (
        _insolvent,
        "kabu.insolvent",
        "C could not pay at hand 1: buy chips from another player (buy_chips) or leave the game before the next hand",
    ),
    "selling chips one does not hold": (
        lambda: _timed([5, 5, 5]).refuse("kabu.not_enough_chips", "buy_chips", seat=0, **{"from": 1}, chips=9),
        "kabu.not_enough_chips",
        "B holds 5 chips and cannot sell 9",
    ),
    "a value the known cards cannot make": (
        _result_conflict,
        "kabu.result_conflict",
        "P1 holds 4♠ 5♥ (4 + 5 = 9), value 9; the sheet says 3",
    ),
}


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_a_refusal_is_said_in_each_language(kind: str) -> None:
    provoke, code, english = REFUSALS[kind]
    err = provoke()
    assert err.code == code and str(err.message) == english  # the English as it always read
    assert isinstance(err.message, (Said, Counted, Joined, Listed))
    for lang in LANGS:
        assert untranslated(err.message, lang) == [], lang
        assert i18n.say(err.message, lang) != str(err.message), lang


def test_a_refusal_in_spanish_and_german_reads_as_players_say_it() -> None:
    assert i18n.say(_stood().message, "es") == "P1 se plantó con 2 cartas y ya no puede pedir ninguna más"
    assert i18n.say(_stood().message, "de") == "P1 ist mit 2 Karten geblieben und darf keine mehr nehmen"
    several = Match(["A", "B", "C"], target={"end": "time"}, initial={"chips": [1, 1, 30]})
    several.result(0, values=[0, 0, 9])
    err = several.refuse("kabu.insolvent", "hand_started", dealer=0)
    assert str(err.message).startswith("A, B could not pay at hand 1")
    assert i18n.say(err.message, "es").startswith("A, B no pudieron pagar en la mano 1")  # the verb agrees
    assert i18n.say(_insolvent().message, "es").startswith("C no pudo pagar en la mano 1")


# --------------------------------------------------------------------------- the source: every refusal said from an id


def _sources() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(KABU.glob("*.py"))}


def _functions(trees: dict[Path, ast.Module]) -> dict[str, ast.FunctionDef]:
    return {node.name: node for tree in trees.values() for node in tree.body if isinstance(node, ast.FunctionDef)}


def _said(
    expr: ast.expr, scope: ast.AST, functions: dict[str, ast.FunctionDef], seen: frozenset[str] = frozenset()
) -> bool:
    """Whether ``expr`` is words said from a message id: a call of Said, Counted, Joined or Listed;
    either branch of a conditional being one; a name every assignment in ``scope`` gives one; or a
    call of a Kabú function every ``return`` of which gives one."""
    if isinstance(expr, ast.IfExp):
        return _said(expr.body, scope, functions, seen) and _said(expr.orelse, scope, functions, seen)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        name = expr.func.id
        if name in SAYERS:
            return True
        if name in functions and name not in seen:
            returns = [n.value for n in ast.walk(functions[name]) if isinstance(n, ast.Return) and n.value is not None]
            return bool(returns) and all(_said(r, functions[name], functions, seen | {name}) for r in returns)
        return False
    if isinstance(expr, ast.Name):
        values = [
            node.value
            for node in ast.walk(scope)
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets)
        ]
        return bool(values) and all(_said(v, scope, functions, seen) for v in values)
    return False


def _refusals(trees: dict[Path, ast.Module]) -> Iterator[tuple[str, ast.expr | None, ast.AST]]:
    for path, tree in trees.items():
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", "")) == "RuleViolation"
                ):
                    message = (
                        node.args[1]
                        if len(node.args) > 1
                        else next((k.value for k in node.keywords if k.arg == "message"), None)
                    )
                    yield f"{path.name}:{node.lineno}", message, function


def test_every_refusal_of_kabu_is_said_from_a_message_id() -> None:
    trees = _sources()
    functions = _functions(trees)
    found = list(_refusals(trees))
    assert len(found) > 90  # every refusal of the rules is looked at
    plain = [where for where, message, scope in found if message is None or not _said(message, scope, functions)]
    assert plain == []


def test_the_source_check_catches_plain_words() -> None:
    """The check above can fail: a str literal, an f-string, a concatenation or a variable holding
    one are plain English."""
    source = """
def words(n):
    return f"{n} cards"

def f(state, name):
    raise RuleViolation("kabu.x", "plain words")
    raise RuleViolation("kabu.x", f"{name} stands")
    raise RuleViolation("kabu.x", Said("%(player)s stands", player=name) + " again")
    why = "plain"
    raise RuleViolation("kabu.x", why)
    raise RuleViolation("kabu.x", words(3))
    raise RuleViolation("kabu.x", Said("%(player)s stands", player=name))
"""
    trees = {Path("x.py"): ast.parse(source)}
    verdicts = [_said(m, scope, _functions(trees)) for _, m, scope in _refusals(trees) if m is not None]
    assert verdicts == [False, False, False, False, False, True]
