"""Cabo in the players' languages (issue 28): every word the engine says (its narration, its score
sheet, its views, its refusals) comes from message ids the Catalan, Spanish and German catalogs
translate, and every refusal of Cabo and of the engines' shared code is said from one (an AST check
over the source, so a new English f-string cannot slip in)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

import pytest

from api import i18n
from engines import cabo
from engines.base import Event, RuleViolation
from engines.said import Counted, Joined, Listed, Said
from tests.engines.playouts import play
from tests.engines.cabo_helpers import Match, cb4
from tests.languages import untranslated

LANGS = ("ca", "es", "de")
ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- what a playout says


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_playout_is_said_in_every_language(seed: int) -> None:
    events, states = play("cabo", seed)
    assert len(events) > 20  # a real match, with rounds and scores
    said: list[Any] = []
    for i, event in enumerate(events[1:], start=1):
        said.append(cabo.narrate(states[i - 1], event, states[i]))
    middle = [states[len(states) * k // 4] for k in (1, 2, 3)]
    for state in (*middle, states[-1]):
        said.append(cabo.score(state))
        said.extend(cabo.view(state, seat) for seat in (None, 0, "all"))
    said.append(cabo.describe())
    for lang in LANGS:
        assert untranslated(said, lang) == [], lang
    # and the words do change: a score line and the end of the game read otherwise in each language
    final = cabo.score(states[-1])
    reasons = [line["reason"] for hand in final["hands"] for line in hand["lines"]]
    assert reasons and final["end"]["over"]
    for lang in LANGS:
        assert all(i18n.say(reason, lang) != str(reason) for reason in reasons), lang
        assert i18n.say(final["end"]["reason"], lang) != str(final["end"]["reason"])


def test_the_forms_and_options_are_said_in_every_language() -> None:
    described = cabo.describe()
    words = [
        *described["forms"]["words"].values(),
        *(field["label"] for fields in described["forms"]["moves"].values() for field in fields),
        *(entry["label"] for entry in described["forms"]["sheet"].values()),
        *(option["description"] for option in described["options"].values()),
        described["deck"],
    ]
    for lang in LANGS:
        assert untranslated(words, lang) == [], lang
        assert i18n.say(described["forms"]["words"]["draw"], lang) != "{seat} draws"
    assert i18n.say(described["forms"]["words"]["draw"], "de") == "{seat} zieht"


# --------------------------------------------------------------------------- refusals


def _refusals() -> list[RuleViolation]:
    """The refusals a scorer meets most, each recorded as test_cabo.py records them."""
    out: list[RuleViolation] = []
    m = Match()
    out.append(m.refuse("draw", "common.no_hand", seat=0))
    m.deal(3)
    out.append(m.refuse("draw", "common.not_your_turn", seat=0))
    out.append(m.refuse("discard", "cabo.no_draw", seat=3, card="5"))
    out.append(m.refuse("draw", "common.bad_seat", seat=7))
    m.add("draw", seat=3)
    out.append(m.refuse("draw", "cabo.finish_turn", seat=3))
    out.append(m.refuse("discard", "common.card_hidden", seat=3, card="??"))
    out.append(m.refuse("peek", "cabo.wrong_action", seat=3, card="3", slot=1))
    m.add("discard", seat=3, card="3")
    m.add("call_cabo", seat=0)
    out.append(m.refuse("call_cabo", "cabo.second_call", seat=1))
    c = cb4()
    out.append(c.refuse("replace", "cabo.bad_slots", seat=1, slots=[1, 1], cards=["9", "9"]))
    out.append(c.refuse("replace", "cabo.bad_claim", seat=1, slots=[1, 3], cards=["9"]))
    out.append(c.refuse("replace", "common.card_unavailable", seat=1, slots=[2], cards=["5"]))
    out.append(c.refuse("replace", "cabo.bad_slot", seat=1, slots=[9], cards=["5"]))
    with pytest.raises(RuleViolation) as players:
        cabo.start({"game": "cabo", "players": ["Anna"]})
    out.append(players.value)
    with pytest.raises(RuleViolation) as unknown:
        cabo.apply(m.state, Event(m.seq, "play", {"seat": 0}))
    out.append(unknown.value)
    return out


def test_the_common_refusals_are_said_in_every_language() -> None:
    refusals = _refusals()
    assert len({r.code for r in refusals}) >= 12
    for refusal in refusals:
        for lang in LANGS:
            assert untranslated(refusal.message, lang) == [], (refusal.code, lang)
            assert i18n.say(refusal.message, lang) != str(refusal.message), (refusal.code, lang)


def test_a_refusal_keeps_its_english_and_its_code() -> None:
    """The English is the sentence the tests always read; the code is the same in every language."""
    m = Match()
    m.deal(3)
    refused = m.refuse("draw", "common.not_your_turn", seat=0)
    assert refused.message == "it is Dora's turn, not Anna's" and isinstance(refused.message, Said)
    assert i18n.say(refused.message, "de") == "Dora ist am Zug, nicht Anna"
    assert i18n.say(refused.message, "es") == "le toca a Dora, no a Anna"
    assert i18n.say(refused.message, "ca") == "li toca a Dora, no a Anna"


# --------------------------------------------------------------------------- no English f-string left


SAYS = frozenset({"Said", "Counted", "Joined", "Listed"})
CHECKED = [
    *sorted((ROOT / "engines" / "cabo").glob("*.py")),
    ROOT / "engines" / "base.py",
    ROOT / "engines" / "common.py",
    ROOT / "engines" / "codec.py",
]
GAME_SAYS = {("engines/common.py", "problem")}
"""A message that is not said here: ``check_options`` raises what a game's own option check
(``checks``, written in the game's package) returns."""


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def _said(node: ast.expr | None, scope: ast.AST, functions: dict[str, ast.FunctionDef], seen: frozenset[str]) -> bool:
    """Whether ``node`` is words said from a message id: a Said, Counted, Joined or Listed (or a
    choice of them), a name only ever assigned one, a card error's message, or a call of a
    function of the module that only returns one."""
    if isinstance(node, ast.IfExp):
        return _said(node.body, scope, functions, seen) and _said(node.orelse, scope, functions, seen)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in SAYS:
            return True
        function = functions.get(node.func.id)
        if function is None or function.name in seen:
            return False
        returns = [r.value for r in ast.walk(function) if isinstance(r, ast.Return)]
        values = [v for v in returns if not (isinstance(v, ast.Constant) and v.value is None)]
        return bool(values) and all(_said(v, function, functions, seen | {function.name}) for v in values)
    if isinstance(node, ast.Attribute) and node.attr == "message":  # a CardError's, checked below
        return True
    if isinstance(node, ast.Name):
        assigned = [
            a.value
            for a in ast.walk(scope)
            if isinstance(a, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in a.targets)
        ]
        return bool(assigned) and all(_said(v, scope, functions, seen) for v in assigned)
    return False


def _unsaid(path: Path, raised: str, argument: int) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = _functions(tree)
    where = str(path.relative_to(ROOT))
    scopes: dict[ast.Call, ast.AST] = {}
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]:  # outer scopes first
        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == raised:
                scopes[node] = scope  # an inner function's call ends with that function as its scope
    out = []
    for node, scope in scopes.items():
        message = node.args[argument] if len(node.args) > argument else None
        if isinstance(message, ast.Name) and (where, message.id) in GAME_SAYS:
            continue
        if not _said(message, scope, functions, frozenset()):
            out.append(f"{where}:{node.lineno}: {ast.unparse(message) if message else '(no message)'}")
    return sorted(out)


def test_every_refusal_is_said_from_a_message_id() -> None:
    found = [line for path in CHECKED for line in _unsaid(path, "RuleViolation", 1)]
    found += _unsaid(ROOT / "engines" / "cards.py", "CardError", 1)
    assert found == [], "\n".join(found)


def test_the_check_finds_an_english_refusal(tmp_path: Path) -> None:
    """The AST check above can fail: an f-string, a plain literal, a name assigned one."""
    source = tmp_path / "engine.py"
    source.write_text(
        "def f(n, name):\n"
        '    raise RuleViolation("x.y", f"{name} has {n} cards")\n'
        "def g():\n"
        '    raise RuleViolation("x.y", Said("fine"))\n'
        "def h(ok):\n"
        '    why = Said("fine") if ok else "plain English"\n'
        '    raise RuleViolation("x.y", why)\n',
        encoding="utf-8",
    )
    global ROOT
    root, ROOT = ROOT, tmp_path
    try:
        found = _unsaid(source, "RuleViolation", 1)
    finally:
        ROOT = root
    assert [line.split(":")[1] for line in found] == ["2", "7"]


# --------------------------------------------------------------------------- the shared helpers


@pytest.mark.parametrize(
    ("said", "english", "german"),
    [
        (lambda: cabo.rules.how_many(1, "card"), "1 card", "1 Karte"),
        (lambda: cabo.rules.how_many(3, "named slot"), "3 named slots", "3 genannten Plätze"),
        (lambda: cabo.rules.seat_names(["Anna", "Ben", "Dora"], [0, 1, 2]), "Anna, Ben and Dora", "Anna, Ben und Dora"),
        (lambda: cabo.rules.slot_words([1, 3]), "slots 1 and 3", "die Plätze 1 und 3"),
        (lambda: cabo.state.plural(8), "an 8", "eine 8"),
    ],
)
def test_the_shared_words_keep_their_english(said: Callable[[], str], english: str, german: str) -> None:
    value = said()
    assert value == english and isinstance(value, (Said, Counted, Joined, Listed))
    assert i18n.say(value, "de") == german
