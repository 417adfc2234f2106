"""One copy of the form controls: the score page builds its buttons, card pickers and number fields with
forms.js's ``kit``, as the dispute desk does; score.js and its modules in score/ keep no copies of them (issue 25)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server

STATIC = Path(__file__).resolve().parents[2] / "api" / "static"
SHARED = ("segmented", "cardList", "numberField", "fieldProblem", "moveData")


def test_score_js_defines_none_of_the_kits_controls() -> None:
    score = "\n".join(p.read_text() for p in [STATIC / "score.js", *sorted((STATIC / "score").glob("*.js"))])
    forms = (STATIC / "forms.js").read_text()
    for name in SHARED:
        assert re.search(rf"function {name}\(", forms), name
        assert not re.search(rf"function {name}\(|const {name} = ", score), f"score.js keeps its own {name}"


def test_the_score_page_draws_its_forms_with_the_kit(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {"game": "kabu", "players": ["Ana", "Bea", "Carlos", "Dani"]})
    loaded: list[str] = []
    page = open_page(f"/m/{match_id}/score#token={token}", on_response=lambda r: loaded.append(r.url))
    value = page.get_by_label("Ana's value (0–9)")
    expect(value).to_be_visible()
    assert any(u.endswith("/static/forms.js") for u in loaded)
    # the kit's number field: a number input with its range, labelled by its wrapping label
    assert value.get_attribute("type") == "number" and value.get_attribute("max") == "9"
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#sheet-refusal")).to_contain_text("Write Ana's value (0–9) first.")  # the kit's fieldProblem
    expect(value).to_be_focused()
    dealer = page.get_by_role("group", name="Dealer")  # the kit's segmented buttons
    dealer.get_by_role("button", name="Bea").click()
    expect(dealer.get_by_role("button", name="Bea")).to_have_attribute("aria-pressed", "true")


def test_score_js_is_split_by_job() -> None:
    """The scorer's page is one small entry point over a module per job, each under 400 lines
    (issue 27: score.js was 1,000 lines with one mutable global)."""
    modules = sorted((STATIC / "score").glob("*.js"))
    assert {m.stem for m in modules} >= {"match", "load", "sheet", "entry", "moves", "history", "queue"}
    assert len((STATIC / "score.js").read_text().splitlines()) < 60
    for module in modules:
        assert len(module.read_text().splitlines()) < 400, module.name
