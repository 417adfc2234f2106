"""Following a match in play: the replay and the match page of a reader follow
GET /matches/{id}/stream; a move recorded from another page shows up, and after a dropped
connection (the server killed and started again) nothing is lost and nothing shown twice."""

from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.screenshots import MATCHES
from tests.server.conftest import Server

RECORD_FROM_PAGE = """async ([id, token, events]) => (await fetch(`/matches/${id}/events`, {method: "POST",
  headers: {"Content-Type": "application/json", "Authorization": `Bearer ${token}`}, body: JSON.stringify({events})})).status"""


def seqs(page: Page) -> list[int]:
    return [int(s) for s in page.locator("#moves li").evaluate_all("items => items.map(i => i.dataset.seq)")]


def test_a_reader_follows_the_match_live(open_page: Callable[..., Page], live: Server) -> None:
    body, events = MATCHES["cau-robat"]
    plays: list[dict[str, Any]] = events[-4:]  # A 5o, B 6c, C 1c, D 11o
    match_id, token = new_match(live, body)
    record(live, match_id, token, *events[:-4])  # up to the deal of hand 2 (seq 4)

    follower = open_page(f"/m/{match_id}/replay")
    expect(follower.locator("#live")).to_be_visible()
    expect(follower.locator("#moves li")).to_have_count(4)
    match_page = open_page(f"/m/{match_id}")
    expect(match_page.locator("#live")).to_be_visible()

    scorer = open_page(f"/m/{match_id}/score#token={token}")
    assert scorer.evaluate(RECORD_FROM_PAGE, [match_id, token, [plays[0]]]) == 201
    # the follower at the latest step moves on with the match: within a second, bounded, not timed
    expect(follower.locator("#moves li[data-seq='5']")).to_be_visible(timeout=1000)
    expect(follower.locator("#table")).to_have_attribute("data-seq", "5")
    expect(follower.locator("#move")).to_contain_text("A plays 5 de oros")
    expect(match_page.locator("#match")).to_have_attribute("data-version", "5", timeout=1000)

    # the connection drops: the server dies and comes back; moves recorded meanwhile arrive once
    live.kill()
    live.start()
    record(live, match_id, token, plays[1])
    record(live, match_id, token, plays[2], plays[3])
    expect(follower.locator("#moves li")).to_have_count(8, timeout=10000)
    assert seqs(follower) == [1, 2, 3, 4, 5, 6, 7, 8]
    expect(follower.locator("#table")).to_have_attribute("data-seq", "8")
    state = live.call("GET", f"/matches/{match_id}/state?at=8")[1]["state"]
    assert (
        follower.locator("#table .seatrow")
        .first.locator("[data-card]")
        .evaluate_all("cards => cards.map(c => c.dataset.card)")
        == state["table"]
    )
    expect(match_page.locator("#match")).to_have_attribute("data-version", "8", timeout=10000)
