"""Every move type of every game has a way in from the pages (issue 25, item 6).

For each game a random legal playout (tests/engines/drivers.py) is cut at the points where the
legal moves first offer each (move type, seat); each cut is recorded into a real server, and the
score page, opened with the write key, must show a control for every template that
``GET /matches/{id}/legal-moves`` (with the key) returns: a button marked ``data-move-type`` (and
``data-seat`` when the template names a seat) among the next moves, or, for ``hand_result``, the
sheet form that closes or enters a hand.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import Page, expect

from engines import get_engine
from tests.engines.drivers import playout
from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

# seeds whose playouts reach every move type the game has (kabu 0: end = time, buys and leaves;
# el-roby 1: a re-buy; cabo 2: a reveal)
PLAYOUTS = {"kabu": 0, "cabo": 2, "el-roby": 1, "la-cabra": 0, "cau-robat": 2}
MOST_CUTS = 8


def _cuts(game: str, events: list[Any]) -> list[int]:
    """Prefix lengths at which each (type, seat) of the legal moves is first offered, fewest first."""
    engine = get_engine(game)
    state = engine.start(events[0].data)
    first: dict[tuple[str, Any], int] = {}
    for n in range(1, len(events) + 1):
        for move in engine.legal_moves(state):
            first.setdefault((move["type"], move["data"].get("seat")), n)
        if n < len(events):
            state = engine.apply(state, events[n])
    cuts = sorted(set(first.values()))
    if len(cuts) > MOST_CUTS:  # keep the ones that bring new move types first, then spread the rest
        by_type: dict[str, int] = {}
        for (kind, _), n in sorted(first.items(), key=lambda kv: kv[1]):
            by_type.setdefault(kind, n)
        chosen = sorted(set(by_type.values()))
        rest = [c for c in cuts if c not in chosen]
        step = max(1, len(rest) // max(1, MOST_CUTS - len(chosen)))
        cuts = sorted(set(chosen + rest[::step][: max(0, MOST_CUTS - len(chosen))]))
    return cuts


def control_for(page: Page, move: dict[str, Any], moves: list[dict[str, Any]]) -> Any:
    if move["type"] == "hand_result":
        if any(m["type"] == "hand_started" for m in moves):  # between hands: the table's result of the last one
            return page.locator("#legal [data-move-type='hand_result']").first
        return page.locator("[data-move-type='hand_result']:visible").first
    selector = f"#legal [data-move-type='{move['type']}']"
    seat = move["data"].get("seat")
    if seat is not None:
        selector += f"[data-seat='{seat}']"
    return page.locator(selector).first


@pytest.mark.parametrize("game", sorted(PLAYOUTS))
def test_each_legal_move_has_a_control(game: str, open_page: Callable[..., Page], live: Server) -> None:
    events, _ = playout(game, PLAYOUTS[game])
    seen: set[tuple[str, Any]] = set()
    for cut in _cuts(game, events):
        match_id, token = new_match(live, events[0].data)
        if cut > 1:
            record(live, match_id, token, *({"type": e.type, "data": e.data} for e in events[1:cut]))
        status, legal = live.call(
            "GET", f"/matches/{match_id}/legal-moves", headers={"Authorization": f"Bearer {token}"}
        )
        assert status == 200 and legal["disclosed"], legal
        page = open_page(f"/m/{match_id}/score#token={token}")
        expect(page.locator("#access")).to_contain_text(f"{cut} {'entry' if cut == 1 else 'entries'} recorded")
        for move in legal["moves"]:
            where = f"{game}, after entry {cut}: {move}"
            expect(control_for(page, move, legal["moves"]), where).to_be_visible()
            seen.add((move["type"], move["data"].get("seat")))
        page.context.close()
    types = {t for t, _ in seen}
    expected = {
        "kabu": {"keep", "take", "stand", "showdown", "buy_chips", "leave", "time_up", "hand_started", "hand_result"},
        "cabo": {
            "initial_peek",
            "take_discard",
            "draw",
            "replace",
            "discard",
            "peek",
            "spy",
            "swap",
            "call_cabo",
            "showdown",
            "reveal",
            "hand_started",
            "hand_result",
        },
        "el-roby": {"draw", "meld", "lay_off", "discard", "rebuy", "hand_started", "hand_result"},
        "la-cabra": {"lead", "beat", "discard", "tira", "hand_started", "hand_result"},
        "cau-robat": {"play", "hand_started", "hand_result"},
    }[game]
    assert expected <= types, expected - types


def _between_hands(game: str, events: list[Any]) -> int:
    """The first prefix after which the legal moves offer a new deal and the last hand's result."""
    engine = get_engine(game)
    state = engine.start(events[0].data)
    for n in range(1, len(events)):
        types = {m["type"] for m in engine.legal_moves(state)}
        if {"hand_started", "hand_result"} <= types:
            return n
        state = engine.apply(state, events[n])
    raise AssertionError(f"{game}: the playout never stops between hands")


@pytest.mark.parametrize("game", ["cau-robat", "kabu", "la-cabra"])
def test_the_tables_result_between_hands_is_recorded_move_by_move(
    game: str, open_page: Callable[..., Page], live: Server
) -> None:
    events, _ = playout(game, PLAYOUTS[game])
    cut = _between_hands(game, events)
    match_id, token = new_match(live, events[0].data)
    record(live, match_id, token, *({"type": e.type, "data": e.data} for e in events[1:cut]))
    hands = len(live.call("GET", f"/matches/{match_id}/audit")[1]["hands"])
    page = open_page(f"/m/{match_id}/score#token={token}")
    button = page.locator("#legal").get_by_role("button", name=f"What the table wrote for hand {hands}")
    expect(button).to_have_attribute("data-move-type", "hand_result")
    button.click()
    form = page.locator("#move-form")
    expect(form.get_by_role("heading", name=f"What the table wrote for hand {hands}")).to_be_focused()
    form.get_by_role("button", name="Record").click()
    expect(page.locator("#access")).to_contain_text(f"{cut + 1} entries recorded")
    log = live.call("GET", f"/matches/{match_id}/events", headers={"Authorization": f"Bearer {token}"})[1]
    assert log["events"][-1]["type"] == "hand_result"
    narrated = live.call("GET", f"/matches/{match_id}/replay?from={cut + 1}")[1]["frames"][-1]["text"]
    assert narrated == f"The table's result for hand {hands} agrees with the record"
