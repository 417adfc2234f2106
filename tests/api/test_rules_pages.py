"""Every rule reference resolves: score lines, refusals and ``GET /games`` link to an anchor of /rules/{game}.

The references are collected where they are made, not from a list kept beside them: every
rule code and ``/rules/…`` link in the source of the engines and the service (a grep), every
``rule`` of the score sheets of random playouts of every game, and every ``rule`` of
``GET /games``. Each must name an element id of the page the server serves.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient

from api import rulebook
from engines import ENGINES
from tests.conftest import Scorer
from tests.engines.drivers import SEEDS, playout

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(ENGINES)
CODE = re.compile(r"""["']((?:common|%s)\.(?!py["'])[a-z_]+)["']""" % "|".join(map(re.escape, GAMES)))
"""A rule code in a string literal (a file name such as "common.py" is not one)."""
LINK = re.compile(r"""/rules/([a-z-]+)#([a-z0-9-]+)""")


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids |= {v for k, v in attrs if k == "id" and v}


@pytest.fixture
def served(client: FlaskClient) -> dict[str, set[str]]:
    """The element ids of every served rules page (the games' and /rules/common)."""
    out = {}
    for game in [*GAMES, "common"]:
        response = client.get(f"/rules/{game}")
        assert response.status_code == 200 and response.mimetype == "text/html"
        parser = Ids()
        parser.feed(response.get_data(as_text=True))
        out[game] = parser.ids
    return out


def resolves(link: str, served: dict[str, set[str]]) -> bool:
    found = LINK.fullmatch(link)
    return bool(found) and found.group(2) in served.get(found.group(1), set())


def source_files() -> Iterator[Path]:
    for folder in ("engines", "api/service", "replays"):
        yield from (ROOT / folder).rglob("*.py")


def rule_values(obj: Any) -> Iterator[str]:
    """Every value of a ``rule`` key, anywhere in a JSON document."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "rule" and isinstance(value, str):
                yield value
            else:
                yield from rule_values(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from rule_values(value)


def test_every_rule_code_the_source_can_raise_has_its_rule(served: dict[str, set[str]]) -> None:
    codes = {code for path in source_files() for code in CODE.findall(path.read_text(encoding="utf-8"))}
    assert len(codes) > 100 and "cabo.second_call" in codes and "common.match_final" in codes
    missing = []
    for code in sorted(codes):
        game = code.split(".")[0]
        for page in [game] if game != "common" else [*GAMES, "common"]:
            link = rulebook.rule_link(code, page)
            if link is None or not resolves(link, served) or not link.startswith(f"/rules/{page}#"):
                missing.append(f"{code} on /rules/{page}")
    assert not missing, missing


def test_every_rules_link_written_in_the_source_resolves(served: dict[str, set[str]]) -> None:
    links = {m.group(0) for path in source_files() for m in LINK.finditer(path.read_text(encoding="utf-8"))}
    assert len(links) > 40
    assert [link for link in sorted(links) if not resolves(link, served)] == []
    leftovers = [
        str(p.relative_to(ROOT))
        for p in source_files()
        if re.search(r'"rule": "RULES|= "RULES\.md', p.read_text(encoding="utf-8"))
    ]
    assert leftovers == []


@pytest.mark.parametrize("game", GAMES)
def test_score_lines_of_random_playouts_link_to_rules(game: str, served: dict[str, set[str]]) -> None:
    seen: set[str] = set()
    for seed in SEEDS:
        _, state = playout(game, seed)
        sheet = ENGINES[game].score(state)
        seen |= set(rule_values(sheet))
    assert seen, "the playouts produced score lines with rules"
    assert {link for link in seen if not resolves(link, served)} == set()
    assert all(link.startswith(f"/rules/{game}#") for link in seen)


def test_every_rule_of_get_games_resolves(client: FlaskClient, served: dict[str, set[str]]) -> None:
    games = client.get("/games").get_json()["games"]
    links = set(rule_values(games))
    assert len(links) > 40
    assert {link for link in links if not resolves(link, served)} == set()
    for game in games:  # every option of every game is explained on its page
        for key, option in game["options"].items():
            assert option["rule"] == f"/rules/{game['game']}#option-{key.lower()}"


def test_a_refusal_links_to_the_rule_it_applies(
    scorer: Scorer, client: FlaskClient, served: dict[str, set[str]]
) -> None:
    scorer.start({"game": "cabo", "players": ["Anna", "Ben"]})
    scorer.record(
        {"type": "hand_started", "data": {"dealer": 0, "layouts": [["??"] * 4] * 2, "discard": "5"}},
        {"type": "call_cabo", "data": {"seat": 0}},
    )
    second = scorer.post({"type": "call_cabo", "data": {"seat": 1}}).get_json()
    assert second["code"] == "cabo.second_call" and second["rule"] == "/rules/cabo#calling-cabo"
    turn = scorer.post({"type": "draw", "data": {"seat": 0}}).get_json()
    assert turn["code"] == "common.not_your_turn" and turn["rule"] == "/rules/cabo#recording-turns"
    assert resolves(second["rule"], served) and resolves(turn["rule"], served)
    page = client.get("/rules/cabo").get_data(as_text=True)
    assert "<code>cabo.second_call</code>" in page  # the paragraph names the codes it explains


def test_rules_pages_and_their_index(client: FlaskClient) -> None:
    index = client.get("/rules").get_data(as_text=True)
    for game in GAMES:
        assert f'href="/rules/{game}"' in index
    assert client.get("/rules/chess").status_code == 404
    cabo = client.get("/rules/cabo").get_data(as_text=True)
    assert '<h3 id="scoring-kamikaze">Kamikaze</h3>' in cabo
    assert "{#" not in cabo  # every anchor marker was turned into an id


def test_each_code_is_explained_once() -> None:
    for game in [*GAMES, "common"]:
        rulebook.page.cache_clear()
        rulebook.page(game)  # raises when a code is listed under two rules
