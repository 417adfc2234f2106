"""The scorer's page as it is used at a real table: keyboard only, a double tap, a dropped connection.

Each test is a mistake or a habit of a person scoring live (found by the h4 audit of the pages),
and what the page must do about it.
"""

from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server

CABRA = {"game": "la-cabra", "players": ["North", "East", "South", "West"]}


def _e(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def cabra_trick_open(live: Server) -> tuple[str, str]:
    """A La Cabra match where South has led J♦ and West is to play (trump spades)."""
    match_id, token = new_match(live, CABRA)
    record(
        live,
        match_id,
        token,
        _e("hand_started", dealer=1, trump="QS", hands=[["??"] * 4] * 4),
        _e("lead", seat=2, cards=["JD"]),
    )
    return match_id, token


def version(live: Server, match_id: str) -> int:
    return int(live.call("GET", f"/matches/{match_id}")[1]["version"])


def test_picking_cards_by_keyboard_keeps_the_place_in_the_picker(open_page: Callable[..., Page], live: Server) -> None:
    """Enter on a card of the picker redraws it; focus stays on that card, not back at the top of the page."""
    match_id, token = cabra_trick_open(live)
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal").get_by_role("button", name="West beats").click()  # South led J♦: West answers
    form = page.locator("#move-form")
    queen = form.get_by_role("button", name="Cards played: add Q of diamonds")
    queen.focus()
    page.keyboard.press("Enter")
    expect(form.get_by_role("button", name="Cards played: Q of diamonds, press to remove")).to_be_visible()
    expect(queen).to_be_focused()
    page.keyboard.press("Tab")  # on to the next card of the picker, as a keyboard user goes on
    expect(form.get_by_role("button", name="Cards played: add K of diamonds")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # a second press adds it again (the API judges), and the place stays
    expect(queen).to_be_focused()

    # the deal's picker: a card put in a place moves on to the next place, the focus stays in the picker
    fresh, fresh_token = new_match(live, CABRA)
    page = open_page(f"/m/{fresh}/score#token={fresh_token}")
    page.get_by_role("button", name="Deal cards").click()
    deal = page.locator("#deal-area")
    deal.get_by_role("button", name="put Q of spades there").focus()
    page.keyboard.press("Enter")
    expect(deal.get_by_role("button", name="trump card card 1: Q of spades")).to_be_visible()
    deal.get_by_role("button", name="North card 1: unseen card").click()
    deal.get_by_role("button", name="put A of hearts there").focus()
    page.keyboard.press("Enter")  # no place is left to fill: the picker closes, the place filled keeps the focus
    expect(deal.get_by_role("button", name="North card 1: A of hearts")).to_be_focused()
    page.keyboard.press("Tab")
    expect(deal.get_by_role("button", name="North card 2: unseen card")).to_be_focused()


def test_a_double_tap_on_record_writes_the_move_once_and_says_nothing_wrong(
    open_page: Callable[..., Page], live: Server
) -> None:
    """A second tap while the first is on its way is not sent: no false 'another phone recorded' refusal."""
    match_id, token = cabra_trick_open(live)
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal").get_by_role("button", name="West beats").click()
    page.locator("#move-form").get_by_role("button", name="Cards played: add Q of diamonds").click()
    page.locator("#move-form").get_by_role("button", name="Record", exact=True).dblclick()
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    expect(page.locator("#legal").get_by_role("button", name="North beats")).to_be_focused()
    expect(page.locator("#move-refusal")).to_be_hidden()
    assert version(live, match_id) == 4


def test_a_move_recorded_without_connection_waits_once(open_page: Callable[..., Page], live: Server) -> None:
    """Offline, Record queues the move and closes its form: the scorer cannot queue the same move twice."""
    match_id, token = cabra_trick_open(live)
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal").get_by_role("button", name="West beats").click()
    form = page.locator("#move-form")
    form.get_by_role("button", name="Cards played: add Q of diamonds").click()
    page.context.set_offline(True)
    form.get_by_role("button", name="Record", exact=True).click()
    queue = page.locator("#queue")
    expect(queue).to_contain_text("1 entry is waiting for the connection")
    expect(queue).to_be_focused()
    expect(form).to_be_hidden()
    page.context.set_offline(False)
    expect(queue).to_be_hidden()  # sent once the connection is back (the page retries every 3 s)
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    events = live.call("GET", f"/matches/{match_id}/events", headers={"Authorization": f"Bearer {token}"})[1]["events"]
    assert [e["type"] for e in events] == ["match_started", "hand_started", "lead", "beat"]


def test_a_sheet_number_left_empty_or_mistyped_is_named_by_its_label(
    open_page: Callable[..., Page], live: Server
) -> None:
    """The scorer typed in 'Anna's card total'; the refusal names that field, not the batch's JSON path
    ('the 1st entry of sums … entry 2 of what was sent'), and the cursor goes back to it. Nothing is sent."""
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]})
    page = open_page(f"/m/{match_id}/score#token={token}")
    for seat, value in ((1, "12"), (2, "30"), (3, "8")):
        page.fill(f"#sum-{seat}", value)
    page.locator("#sheet-form").get_by_role("group", name="Called CABO").get_by_role("button", name="Anna").click()
    refusal = page.locator("#sheet-refusal")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "dryRun" in r.url else None)

    page.get_by_role("button", name="Check the result").click()
    expect(refusal).to_have_text("Write Anna's card total first.")
    expect(page.locator("#sum-0")).to_be_focused()

    page.fill("#sum-0", "-5")
    page.get_by_role("button", name="Check the result").click()
    expect(refusal).to_have_text("Anna's card total: write a whole number from 0 to 663.")
    assert requests == []

    page.fill("#sum-0", "5")
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#preview")).to_contain_text("Hand 1: Anna 0 · Ben 12 · Carl 30 · Dora 8")
    expect(refusal).to_be_hidden()
    page.get_by_role("button", name="Save the hand").click()
    expect(page.locator("#access")).to_contain_text("3 entries recorded")
    assert version(live, match_id) == 3

    # La Cabra's own check of its form said 'Write the card points first.null': a refusal without a
    # rule code appended null, which the page wrote out as the word
    cabra, cabra_token = new_match(live, CABRA)
    page = open_page(f"/m/{cabra}/score#token={cabra_token}")
    page.get_by_role("button", name="Check the result").click()
    expect(page.locator("#sheet-refusal")).to_have_text("Write the card points first.")
