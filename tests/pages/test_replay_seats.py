"""Seat perspective in the replay of a Cabo round in play: each view shows exactly what the API
gives that reader, the public sees no face-down card, and a seat given the write key sees its
own peeks and nothing it has not seen."""

from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.pages.screenshots import MATCHES
from tests.pages.replay_helpers import shown
from tests.server.conftest import Server


def rows_of(state: dict[str, Any]) -> dict[str, list[str]]:
    return {row["name"]: row["cards"] for row in state["rows"]}


def page_rows(page: Page) -> dict[str, list[str]]:
    return {name: cards for name, cards in shown(page).items() if name in ("Anna", "Ben", "Carl", "Dora")}


def api_rows(live: Server, match_id: str, at: int, seat: str, token: str | None) -> dict[str, list[str]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    status, body = live.call(
        "GET", f"/matches/{match_id}/state?at={at}" + (f"&seat={seat}" if seat else ""), headers=headers
    )
    assert status == 200, body
    return rows_of(body["state"])


def test_seat_perspective_in_a_cabo_round_in_play(open_page: Callable[..., Page], live: Server) -> None:
    body, events = MATCHES["cabo"]
    match_id, token = new_match(live, body)
    record(live, match_id, token, *events)
    # round 2: Ben looks at his slots 1 and 3 (9, 9), Carl at his 1 and 2 (11, 1), Dora peeks at her slot 3 (1)
    at = 9  # after Anna replaced her slot 4 (a 12, now on the discard pile) with the card she drew
    page = open_page(f"/m/{match_id}/replay?at={at}")
    expect(page.locator("#table")).to_have_attribute("data-seq", str(at))
    public = page_rows(page)
    assert public == api_rows(live, match_id, at, "", None)
    assert {card for cards in public.values() for card in cards} == {"??"}, "the public sees no face-down card"

    # Ben's view without the key: what the API gives an open reader of a match in play
    page.get_by_label("Seen by").select_option("1")
    expect(page.locator("#move")).to_contain_text("seen by Ben")
    assert "seat=1" in page.url
    assert page_rows(page) == api_rows(live, match_id, at, "1", None)
    assert page_rows(page)["Ben"] == ["??"] * 4, "a seat's peeks stay hidden without the write key"
    expect(page.locator("#access")).to_contain_text("write key")

    # the key given: Ben sees his own peeks, and still nothing he has not seen
    page.get_by_label("Write key").fill(token)
    page.get_by_role("button", name="Use this key").click()
    expect(page.locator("#table [data-card='9']")).to_have_count(2)
    ben = page_rows(page)
    assert ben == api_rows(live, match_id, at, "1", token)
    assert ben["Ben"] == ["9", "??", "9", "??"]
    assert ben["Carl"] == ["??"] * 4 and ben["Dora"] == ["??"] * 4 and ben["Anna"] == ["??"] * 4

    # the key kept in this browser: a shared address with #token= or without it opens the same view
    page.get_by_label("Seen by").select_option("all")
    expect(page.locator("#move")).to_contain_text("seen by everyone")
    everyone = page_rows(page)
    # the omniscient replay shows each card where it lay, as later moves revealed it (in hindsight)
    status, replay = live.call(
        "GET", f"/matches/{match_id}/replay?seat=all&start={at}&stop={at}", headers={"Authorization": f"Bearer {token}"}
    )
    assert status == 200, replay
    assert everyone == rows_of(replay["frames"][0]["state"])
    assert everyone["Carl"][:2] == ["11", "1"] and everyone["Dora"][2] == "1" and everyone["Anna"][3] == "12"
