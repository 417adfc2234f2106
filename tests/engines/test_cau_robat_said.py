"""Cau Robat in the players' languages (issue 28): every word the engine says is a message id.

* random legal playouts: every narration line, every score sheet and views of the match say
  nothing that the Catalan, Spanish and German catalogs lack, and no plain English prose;
* the common refusals, each provoked as at the table: the English reads as before, and each
  language says it in its own words;
* every ``RuleViolation`` of the engine is raised with a sentence built from a message id
  (``Said``, ``Counted``, ``Joined``, ``Listed``), never a plain string or an f-string.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from tests.engines.cau_robat_helpers import PLAYERS, A, B, D, Match
from tests.engines.playouts import play
from tests.languages import untranslated

from api import i18n
from engines import cau_robat
from engines.base import RuleViolation
from engines.common import COMMON_WORDS as COMMON

LANGS = ("ca", "es", "de")
ENGINE = Path(cau_robat.__file__).parent
SAYING = {"Said", "Counted", "Joined", "Listed"}


# --------------------------------------------------------------------------- what a match says


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_playout_says_every_word_in_each_language(seed: int) -> None:
    events, states = play("cau-robat", seed)
    said: list[Any] = []
    for i, event in enumerate(events):
        said.append(cau_robat.narrate(states[i - 1] if i else None, event, states[i]))
        said.append(cau_robat.score(states[i]))
    for state in (states[len(states) // 3], states[len(states) // 2], states[-1]):
        said += [cau_robat.view(state), cau_robat.view(state, "all"), cau_robat.view(state, 0)]
    assert len(said) > 50
    for lang in LANGS:
        assert untranslated(said, lang) == [], lang


def test_a_playout_reads_differently_in_each_language() -> None:
    events, states = play("cau-robat", 1)
    lines = [cau_robat.narrate(states[i - 1] if i else None, e, states[i]) for i, e in enumerate(events)]
    plays = [line for line, e in zip(lines, events) if e.type == "play"]
    for lang in LANGS:
        again = [i18n.say(line, lang) for line in plays]
        assert all(a != str(line) for a, line in zip(again, plays)), lang
    assert i18n.say(plays[0], "ca").split()[1] == "juga"  # "A juga 7 d'oros", the player first
    assert i18n.say(plays[0], "de").split()[1] == "spielt"


def test_the_worked_example_c1_in_catalan_spanish_and_german() -> None:
    m = Match.at(
        PLAYERS,
        table=["3o", "4o", "6o", "7o", "10o", "11o"],
        piles=[["12o", "2o"], ["12c", "12e", "5o"], ["1o", "1c"], []],
        hands=[["11c", "??", "??", "??", "??", "??", "??", "??", "??"], 6, 6, 6],
    )
    m.play(A, "11c")
    text = m.texts[-1]
    assert text == (
        "A plays caballo de copas: takes caballo-sota-7-6-4-3 and B's pile on 5; clears the table; "
        "C pays 1, B and D have nothing to pay"
    )
    assert i18n.say(text, "ca") == (
        "A juga cavall de copes: s'endú cavall-sota-7-6-4-3 i el munt de B (5 a dalt); buida la taula; "
        "C paga un 1, B i D no tenen res per pagar"
    )
    assert i18n.say(text, "es") == (
        "A juega caballo de copas: se lleva caballo-sota-7-6-4-3 y el montón de B (5 encima); limpia la mesa; "
        "C paga un 1, B y D no tienen nada que pagar"
    )
    assert i18n.say(text, "de") == (
        "A spielt Copas-Reiter: nimmt Reiter-Bube-7-6-4-3 und den Stapel von B (5 oben); räumt den Tisch ab; "
        "C zahlt eine 1, B und D haben nichts zu zahlen"
    )


def test_the_description_and_the_forms_are_said_in_each_language() -> None:
    described = cau_robat.describe()
    words = described["forms"]["words"]
    # left out: engines/common.py's COMMON_WORDS, the words every game's forms share (another area's)
    described["forms"]["words"] = {k: v for k, v in words.items() if k not in COMMON}
    assert described["forms"]["words"] == {"play": "{seat} plays"}
    for lang in LANGS:
        assert untranslated(described, lang) == [], lang
    assert i18n.say(described["forms"]["words"]["play"], "es") == "juega {seat}"
    assert i18n.say(described["options"]["chainMode"]["description"], "ca").startswith("la cadena la resol")


# --------------------------------------------------------------------------- refusals


def _dealt() -> Match:
    m = Match()
    m.add(
        "hand_started",
        dealer=D,
        table=["1o", "3c", "5e", "11b"],
        hands=[
            ["2o", "4o", "6o", "7o", "10o", "12o", "2c", "4c", "6c"],
            ["??"] * 9,
            ["??"] * 9,
            ["??"] * 9,
        ],
    )
    return m


def _at(table: list[str], hands: dict[int, list[str]], **kwargs: Any) -> Match:
    """A position whose hands hold ``hands`` plus unknown cards filling the 40-card deck."""
    chain = kwargs.get("chain") or {"cards": []}
    rest = 40 - len(table) - len(chain["cards"]) - sum(map(len, hands.values()))
    held = [hands.get(s, []) + ["??"] * (rest // 4 + (1 if s < rest % 4 else 0)) for s in range(4)]
    return Match.at(PLAYERS, table=table, piles=[[], [], [], []], hands=held, **kwargs)


def _chain() -> Match:
    """A opened a chain of 7s beside an as; B holds the next 7, and a 3."""
    return _at(["1o"], {A: ["2o"], B: ["7c", "3c"]}, turn=B, chain={"seats": [A], "cards": ["7o"]})


def _refusals() -> list[tuple[str, RuleViolation]]:
    out = []
    m = _dealt()
    out.append(("it is A's turn, not B's", m.refuse("play", "common.not_your_turn", seat=B, card="1c")))
    out.append(
        (
            "A's hand is known (2 de oros, 2 de copas, 4 de oros, 4 de copas, 6 de oros, 6 de copas, 7 de oros, "
            "sota de oros, rey de oros): it holds no 3 de oros",
            m.refuse("play", "common.card_unavailable", seat=A, card="3o"),
        )
    )
    out.append(
        ("A cannot play as de oros: it is on the table", m.refuse("play", "common.card_unavailable", seat=A, card="1o"))
    )
    out.append(
        (
            "the deal passes to the dealer's right (ACW): D dealt hand 1, so A deals now, not B",
            _ended().refuse("hand_started", "cau-robat.wrong_dealer", dealer=B),
        )
    )
    c = _chain()
    out.append(
        (
            "call: the open chain is of 7s: B's 3 de copas cannot extend it",
            c.refuse("play", "cau-robat.mismatch", seat=B, card="3c", call=True),
        )
    )
    out.append(
        (
            "call: B's 7 de copas extends the open chain of 7s",
            c.refuse("play", "cau-robat.mismatch", seat=B, card="7c", call=False),
        )
    )
    announced = _at(["1o"], {B: ["7c", "3c"]}, turn=B, options={"requireAnnouncement": True})
    out.append(
        (
            "no chain is open: B's 7 de copas cannot be a Cau",
            announced.refuse("play", "cau-robat.bad_call", seat=B, card="7c", call=True),
        )
    )
    out.append(("captures: this play causes 1 capture, not 0: A takes as de oros, as de copas", _capture_count()))
    result = Match()
    result.add("hand_started", dealer=0)
    out.append(
        (
            "the piles (8 + 12 + 12 + 6) and the 3 table cards make 41, not the 40 cards of the deck",
            result.refuse("hand_result", "cau-robat.bad_result", piles=[8, 12, 12, 6], table=3),
        )
    )
    out.append(
        (
            "piles: the hand result of entry 3 gives C 12 not 11, D 6 not 7",
            _ended().refuse("hand_result", "cau-robat.mismatch", piles=[8, 12, 11, 7], table=2),
        )
    )
    out.append(
        (
            "hand 1 is not finished (waiting for its hand_result)",
            result.refuse("hand_started", "common.hand_in_progress", dealer=A),
        )
    )
    out.append(
        (
            'Cau Robat is played by 3 to 5 players, not 2 (2 and 6 need the option players = "2-6")',
            _start_refused(["A", "B"]),
        )
    )
    return out


def _ended() -> Match:
    m = Match()
    m.add("hand_started", dealer=D)
    m.add("hand_result", piles=[8, 12, 12, 6], table=2)
    return m


def _capture_count() -> RuleViolation:
    return _at(["1o", "5e"], {A: ["1c", "2o"]}).refuse("play", "cau-robat.mismatch", seat=A, card="1c", captures=[])


def _start_refused(players: list[str]) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        cau_robat.start({"game": "cau-robat", "players": players})
    assert info.value.code == "cau-robat.players"
    return info.value


def test_the_common_refusals_keep_their_english_and_are_said_in_each_language() -> None:
    refusals = _refusals()
    assert len({err.code for _, err in refusals}) >= 6
    for english, err in refusals:
        assert err.message == english
        for lang in LANGS:
            assert untranslated(err.message, lang) == [], (lang, english)
            assert i18n.say(err.message, lang) != str(err.message), (lang, english)


def test_a_difference_from_the_record_in_catalan_spanish_and_german() -> None:
    err = _ended().refuse("hand_result", "cau-robat.mismatch", piles=[8, 12, 11, 7], table=2)
    assert i18n.say(err.message, "ca") == (
        "munts: segons el resultat de la mà de l'anotació 3, C 12 en lloc de 11, D 6 en lloc de 7"
    )
    assert i18n.say(err.message, "es") == (
        "montones: según el resultado de la mano de la anotación 3, C 12 en vez de 11, D 6 en vez de 7"
    )
    assert i18n.say(err.message, "de") == "Stapel: laut dem Rundenergebnis aus Eintrag 3: C 12 statt 11, D 6 statt 7"


def test_a_refusal_in_catalan_spanish_and_german() -> None:
    err = _chain().refuse("play", "cau-robat.mismatch", seat=B, card="3c", call=True)
    assert i18n.say(err.message, "ca") == "cant: la cadena oberta és de 7: amb 3 de copes, B no hi pot entrar"
    assert i18n.say(err.message, "es") == "cante: la cadena abierta es de 7: con 3 de copas, B no puede entrar"
    assert i18n.say(err.message, "de") == (
        "Ansage: die offene Kette ist eine 7er-Kette: mit Copas-3 kann B nicht einsteigen"
    )


# --------------------------------------------------------------------------- the code itself


def _saying_functions(tree: ast.Module) -> set[str]:
    """The module's functions that return what they say from a message id (or None): ``_no_call_reason``."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            returns = [
                r.value
                for r in ast.walk(node)
                if isinstance(r, ast.Return) and r.value is not None and not _is_none(r.value)
            ]
            if returns and all(_is_saying(r, set(), set()) for r in returns):
                out.add(node.name)
    return out


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_saying(node: ast.AST, names: set[str], functions: set[str]) -> bool:
    """A call of Said/Counted/Joined/Listed (or of a function that returns one), a name assigned
    from one, or a conditional whose branches are all such."""
    if isinstance(node, ast.Call):
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return called in SAYING or called in functions
    if isinstance(node, ast.IfExp):
        return _is_saying(node.body, names, functions) and _is_saying(node.orelse, names, functions)
    if isinstance(node, ast.Name):
        return node.id in names
    return False


def _assigned_from_saying(tree: ast.AST, functions: set[str]) -> set[str]:
    """Names every assignment of which (in the module) is from a saying call."""
    values: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            values.setdefault(node.target.id, []).append(node.value)
    return {name for name, vs in values.items() if all(_is_saying(v, set(), functions) for v in vs)}


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_every_refusal_is_built_from_a_message_id(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = _saying_functions(tree)
    names = _assigned_from_saying(tree, functions)
    found, bad = 0, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "RuleViolation":
            found += 1
            message = node.args[1] if len(node.args) > 1 else next(k.value for k in node.keywords if k.arg == "message")
            if not _is_saying(message, names, functions):
                bad.append(f"{path.name}:{node.lineno}: {ast.unparse(message)[:80]}")
    assert bad == []
    if path.name == "rules.py":
        assert found > 50 and {"_no_call_reason", "_match_over", "_facts_differ"} <= functions


def test_the_code_check_finds_a_plain_message() -> None:
    """The check above can fail: a str literal, an f-string or a name assigned from one is caught."""
    tree = ast.parse(
        "def f(n):\n"
        "    raise RuleViolation('x.y', f'{n} cards')\n"
        "def g():\n"
        "    raise RuleViolation('x.y', 'no')\n"
        "def h(n):\n"
        "    why = 'plain'\n"
        "    raise RuleViolation('x.y', why)\n"
        "def k(n):\n"
        "    raise RuleViolation('x.y', Said('%(n)s cards', n=n))\n"
    )
    functions = _saying_functions(tree)
    names = _assigned_from_saying(tree, functions)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "RuleViolation"]
    assert [_is_saying(c.args[1], names, functions) for c in calls] == [False, False, False, True]
