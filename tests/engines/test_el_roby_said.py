"""El Roby in the players' languages (issue 28): everything the engine says is a message id.

The narration of random legal matches, their score sheets and views, the engine's description
(forms, options) and its refusals are walked in Catalan, Spanish and German with
``tests.languages.untranslated``: every message id must be translated, and no plain English
prose may be said outside one. The English stays exactly what it was. A last check reads the
engine's source: every ``RuleViolation`` is given a :class:`~engines.said.Said` (never an
f-string), and every id is one Babel extracts (a ``Said`` nested in a call inside another is not).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

import pytest

from api import catalogs, i18n
from engines import el_roby
from engines.base import RuleViolation
from tests.engines.el_roby_helpers import ANA, BEA, CARLOS, DANI, PLAYERS, Match, cards
from tests.engines.playouts import play
from tests.languages import untranslated

LANGS = ("ca", "es", "de")
SOURCE = Path(el_roby.__file__).parent
MARKERS = {"Said", "Counted", "Joined", "Listed"}

COMMON_WORDS = {
    # engines/common.py (COMMON_WORDS, turned_up_discard) is converted by another engineer: until
    # then its plain English reaches describe()["forms"] of every game, El Roby's too
    "(not said from a message id) Reveal cards",
    "(not said from a message id) {move} ({details})",
    "(not said from a message id) slot {slots}",
    "(not said from a message id) slots {slots}",
    "(not said from a message id) slot {slots} showing {cards}",
    "(not said from a message id) slots {slots} showing {cards}",
    "(not said from a message id) {seat} card {n}: {card}",
    "(not said from a message id) Pick the {places} first.",
    "(not said from a message id) turned-up discard",
    "(not said from a message id) Turned-up discard",
    "(not said from a message id) turned-up discard card {n}: {card}",
}


def lacking(value: Any, lang: str, allowed: frozenset[str] | set[str] = frozenset()) -> list[str]:
    return [found for found in untranslated(value, lang) if found not in allowed]


# --------------------------------------------------------------------------- what a match says


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_match_is_said_in_every_language(seed: int) -> None:
    events, states = play("el-roby", seed)
    assert len(events) > 50, "a whole match"
    lines = [el_roby.narrate(states[i - 1] if i else None, e, states[i]) for i, e in enumerate(events)]
    sheets = [el_roby.score(s) for s in states[::10]] + [el_roby.score(states[-1])]
    middle = [states[len(states) // 3], states[len(states) // 2], states[-1]]
    views = [el_roby.view(s, seat) for s in middle for seat in (None, "all", 0, 1)]
    said = {"narration": lines, "scores": sheets, "views": views}
    assert any(" melds " in line for line in lines) and any("Roby" in line for line in lines)
    assert any(line["reason"] for sheet in sheets for hand in sheet["hands"] for line in hand["lines"])
    for lang in LANGS:
        assert lacking(said, lang) == [], lang
        # said again, no sentence reads as its English
        again = [i18n.say(line, lang) for line in lines]
        assert [a for a, line in zip(again, lines) if a == str(line) and " " in line.strip()] == [], lang


def test_the_description_is_said_in_every_language() -> None:
    described = el_roby.describe()
    assert described["deck"] == "French 104 (2 x 52)" and described["forms"]["words"]["draw.stock"] == (
        "{seat} draws from the stock"
    )
    for lang in LANGS:
        assert lacking(described, lang, COMMON_WORDS) == [], lang
    spanish = i18n.say(described["forms"]["words"]["draw.stock"], "es")
    assert spanish == "{seat} roba del mazo"  # the page fills {seat}: the placeholder stays
    assert i18n.say(described["options"]["stake"]["description"], "de").startswith("Geld, das jeder Gegner")


def test_a_score_line_names_the_game_s_own_words() -> None:
    m = Match(options={"entry": 10, "stake": 2}, initial={"scores": [40, 70, 75, 97]})
    m.add("hand_started", dealer=DANI)
    m.add("hand_result", out=ANA, hands=[[], cards("AS KH 7D 7C"), cards("5H 6H 7H QS"), cards("2C")])
    m.add("rebuy", seat=BEA)
    lines = m.hand_score()["lines"]
    bea = next(line["reason"] for line in lines if line["seat"] == BEA and line["points"])
    assert bea == "Bea keeps 7♣ 7 + 7♦ 7 + K♥ 10 + A♠ 11 = 35: 70 + 35 = 105 (100 or more: over the limit)"
    assert i18n.say(bea, "es") == (
        "a Bea le quedan 7 de tréboles (7) + 7 de diamantes (7) + rey de corazones (10) + as de picas (11) = 35: "
        "70 + 35 = 105 (100 o más: se pasa del límite)"
    )
    rebuy = next(line["reason"] for line in lines if line["money"] < 0 and line["seat"] == BEA)
    assert "es reenganxa" in i18n.say(rebuy, "ca") and "kauft sich wieder ein" in i18n.say(rebuy, "de")
    assert i18n.say(m.texts[-1], "es").startswith("Bea se reengancha por ")
    for lang in LANGS:
        assert lacking(m.score(), lang) == [] and lacking(m.texts, lang) == [], lang


# --------------------------------------------------------------------------- refusals

DEAL = [
    cards("2C 2D 9H 9S JC QD KS 3H 5D 6S"),
    cards("4H 5H 6H 8C 8D 8S KC QH JS AC"),
    cards("7H 7C 10D 2S 3S 4C 9D JD QC AS"),
    cards("3C 5C 6C 10C KD KH 2H 4S 8H AD"),
]


def dealt(options: dict[str, Any] | None = None) -> Match:
    m = Match(options)
    m.add("hand_started", dealer=ANA, hands=DEAL, discard="10H")
    return m


def r2(options: dict[str, Any] | None = None) -> Match:
    """Carlos has 72 (limit 27) after his stock draw (docs/RULES.md §4.8 R2)."""
    return Match.at(
        hands=[cards("2C 3C"), cards("4D 5D"), cards("8S 8H 8D 4C 5C 6C KD 2H 3S 9H JC"), cards("AD KC")],
        turn=CARLOS,
        drew="stock",
        scores=[10, 20, 72, 30],
        options=options,
    )


def fits() -> Match:
    """Bea owns 4♥ 5♥ 6♥; Carlos owns 9♣ 10♣ J♣ and holds 8♣ 7♥ Q♠ 2♣ 3♦ after his stock draw."""
    return Match.at(
        hands=[cards("AC AD"), cards("2S 3S"), cards("8C 7H QS 2C 3D"), cards("KC KD")],
        melds=[(BEA, cards("4H 5H 6H")), (CARLOS, cards("9C 10C JC"))],
        turn=CARLOS,
        drew="stock",
    )


def not_your_turn() -> RuleViolation:
    return dealt().refuse("draw", "common.not_your_turn", seat=CARLOS, **{"from": "stock"})


def draw_first() -> RuleViolation:
    return dealt().refuse("meld", "el-roby.draw_first", seat=BEA, id=1, cards=cards("4H 5H 6H"))


def both_copies_placed() -> RuleViolation:
    m = dealt()
    m.draw(BEA, "10H", "discard")
    m.add("discard", seat=BEA, card="KC")
    m.draw(CARLOS)
    m.add("discard", seat=CARLOS, card="AS")
    m.draw(DANI, "2H")
    m.add("discard", seat=DANI, card="2H")
    return m.refuse("draw", "common.card_unavailable", seat=ANA, card="2H", **{"from": "stock"})


def discard_fits() -> RuleViolation:
    return fits().refuse("discard", "el-roby.discard_fits", seat=CARLOS, card="7H")


def bad_meld() -> RuleViolation:
    return r2().refuse("meld", "el-roby.bad_meld", seat=CARLOS, id=1, cards=cards("8S 8H 9H"))


def bad_lay_off() -> RuleViolation:
    return fits().refuse("lay_off", "el-roby.bad_lay_off", seat=CARLOS, meld=2, cards=["QS"])


def pile_empty() -> RuleViolation:
    m = Match.at(
        hands=[cards(f"2{s} 3{s} 4{s} 5{s} 6{s} 7{s} 8{s} 9{s} 10{s} J{s}") for s in "CDHS"], discard=[], turn=ANA
    )
    return m.refuse("draw", "el-roby.pile_empty", seat=ANA, **{"from": "discard"})


def over_the_limit() -> RuleViolation:
    m = r2({"limitCheck": "beforeDiscard"})
    m.add("meld", seat=CARLOS, id=1, cards=cards("8S 8H 8D"))
    m.add("meld", seat=CARLOS, id=2, cards=cards("4C 5C 6C"))
    return m.refuse("discard", "el-roby.limit", seat=CARLOS, card="KD")


def first_round() -> RuleViolation:
    m = dealt()
    m.draw(BEA, "9C")
    return m.refuse("meld", "el-roby.first_round", seat=BEA, id=1, cards=cards("4H 5H 6H"))


def rediscard() -> RuleViolation:
    m = dealt({"noImmediateRediscard": True})
    m.draw(BEA, "10H", "discard")
    return m.refuse("discard", "el-roby.rediscard", seat=BEA, card="10H")


def not_busted() -> RuleViolation:
    m = Match(options={"entry": 10, "stake": 2}, initial={"scores": [40, 70, 75, 97]})
    m.add("hand_started", dealer=DANI)
    m.add("hand_result", out=ANA, hands=[[], cards("AS KH 7D 7C"), cards("5H 6H 7H QS"), cards("2C")])
    return m.refuse("rebuy", "el-roby.not_busted", seat=DANI)


def hand_in_progress() -> RuleViolation:
    return dealt().refuse("hand_started", "common.hand_in_progress", dealer=BEA)


def too_few_players() -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        el_roby.start({"game": "el-roby", "players": PLAYERS[:3]})
    assert info.value.code == "el-roby.players"
    return info.value


REFUSALS: dict[str, tuple[Callable[[], RuleViolation], str | None]] = {
    "not your turn": (not_your_turn, "it is Bea's turn, not Carlos's"),
    "draw first": (draw_first, "Bea must first draw (from the stock or the discard pile)"),
    "both copies placed": (
        both_copies_placed,
        "Ana cannot draw 2♥ from the stock: both copies are placed (Dani's hand, the discard pile)",
    ),
    "discard fits": (discard_fits, "Carlos cannot discard 7♥: it fits another player's meld, meld 1 (Bea's 4♥ 5♥ 6♥)"),
    "bad meld": (bad_meld, "8♠ 8♥ 9♥ is neither a set nor a run: a run is one suit, a set one rank"),
    "bad lay-off": (
        bad_lay_off,
        "Q♠ cannot go on meld 2 (Carlos's 9♣ 10♣ J♣): 9♣ 10♣ J♣ Q♠ is not a valid run: a run is one suit, a set one rank",
    ),
    "pile empty": (pile_empty, "the discard pile is empty: Ana must draw from the stock"),
    "over the limit": (
        over_the_limit,
        "Carlos exposed this turn, so the cards kept before the discard may be worth at most 99 − 72 = 27: "
        "J♣ K♦ 2♥ 9♥ 3♠ are worth 34",
    ),
    "first round": (first_round, None),
    "rediscard": (rediscard, "Bea took 10♥ from the discard pile this turn and cannot discard it again"),
    "not busted": (
        not_busted,
        "Dani did not reach 100 in hand 1: only a player who just went over may re-buy",
    ),
    "hand in progress": (
        hand_in_progress,
        "hand 1 is not finished (waiting for Bea's turn and the rest of the hand)",
    ),
    "too few players": (
        too_few_players,
        'El Roby is played by 4 to 8 players (2 or 3 need the option players = "2-8"); got 3',
    ),
}


@pytest.mark.parametrize("kind", sorted(REFUSALS))
def test_a_refusal_is_said_in_every_language(kind: str) -> None:
    provoke, english = REFUSALS[kind]
    err = provoke()
    if english is not None:
        assert err.message == english  # the English reads as it always did
    assert str(err) == f"{err.code}: {err.message}"
    for lang in LANGS:
        assert untranslated(err.message, lang) == [], lang
        assert i18n.say(err.message, lang) != str(err.message), lang


def test_a_refusal_in_spanish_says_the_game_s_words() -> None:
    assert i18n.say(discard_fits().message, "es") == (
        "Carlos no puede descartar 7 de corazones: liga con una combinación de otro jugador, "
        "la combinación 1 (4 de corazones, 5 de corazones, 6 de corazones de Bea)"
    )
    assert i18n.say(pile_empty().message, "ca") == "la pila de descarts és buida: Ana ha de robar de la pila"
    assert i18n.say(not_your_turn().message, "de") == "Bea ist am Zug, nicht Carlos"


# --------------------------------------------------------------------------- the source


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def _is_said(node: ast.expr | None, scope: ast.FunctionDef | None, functions: dict[str, ast.FunctionDef]) -> bool:
    """Whether ``node`` is what an engine says: a Said/Counted/Joined/Listed, a choice of two, a
    variable every assignment of which is one, or a call of a helper that only returns one."""
    if isinstance(node, ast.IfExp):
        return _is_said(node.body, scope, functions) and _is_said(node.orelse, scope, functions)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in MARKERS:
            return True
        helper = functions.get(node.func.id)
        if helper is None:
            return False
        returns = [r.value for r in ast.walk(helper) if isinstance(r, ast.Return)]
        return bool(returns) and all(_is_said(r, helper, functions) for r in returns)
    if isinstance(node, ast.Name) and scope is not None:
        values = [
            a.value
            for a in ast.walk(scope)
            if isinstance(a, (ast.Assign, ast.AnnAssign))
            and any(
                isinstance(t, ast.Name) and t.id == node.id
                for t in (a.targets if isinstance(a, ast.Assign) else [a.target])
            )
        ]
        return bool(values) and all(_is_said(v, scope, functions) for v in values)
    return False


def _rule_violations(tree: ast.Module) -> list[tuple[ast.Call, ast.FunctionDef | None]]:
    found = []
    for scope in [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]:
        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "RuleViolation":
                found.append((node, scope))
    return found


def test_every_refusal_of_the_engine_is_said_from_a_message_id() -> None:
    problems = []
    count = 0
    for path in sorted(SOURCE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = _functions(tree)
        seen: set[int] = set()
        for call, scope in _rule_violations(tree):
            if id(call) in seen:
                continue
            seen.add(id(call))
            count += 1
            message = (
                call.args[1]
                if len(call.args) > 1
                else next((k.value for k in call.keywords if k.arg == "message"), None)
            )
            if not _is_said(message, scope, functions):
                problems.append(f"{path.name}:{call.lineno}: {ast.unparse(message) if message else '(none)'}")
    assert count > 80, "the engine's refusals were found"
    assert problems == [], "\n".join(problems)


def test_the_check_catches_an_english_refusal() -> None:
    tree = ast.parse(
        "def f(name):\n"
        "    raise RuleViolation('x.y', f'{name} cannot')\n"
        "def g(name):\n"
        "    words = 'plain ' + name\n"
        "    raise RuleViolation('x.y', words)\n"
        "def h(name):\n"
        "    raise RuleViolation('x.y', Said('%(player)s cannot', player=name))\n"
    )
    functions = _functions(tree)
    verdicts = [_is_said(call.args[1], scope, functions) for call, scope in _rule_violations(tree)]
    assert verdicts == [False, False, True]


def test_every_message_id_of_the_engine_is_extracted() -> None:
    """A Said whose id Babel does not extract never reaches a catalog (it stays English)."""
    used = {catalogs.key(m) for m in catalogs.used()}
    missing = []
    for path in sorted(SOURCE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Said", "Counted"):
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    missing.append(f"{path.name}:{node.lineno}: not a string literal")
                elif first.value not in used:
                    missing.append(f"{path.name}:{node.lineno}: {first.value}")
    assert missing == []
