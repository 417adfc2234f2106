"""Recording moves at the table, from the h6 scorer's audit: each test is a defect a scorer hit
while entering a real hand move by move on a phone, and what the page does now."""

from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match, record
from tests.server.conftest import Server


def _e(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


def events(live: Server, match_id: str, token: str) -> list[dict[str, Any]]:
    return list(
        live.call("GET", f"/matches/{match_id}/events", headers={"Authorization": f"Bearer {token}"})[1]["events"]
    )


def test_a_move_typed_wrong_is_corrected_with_its_own_form(open_page: Callable[..., Page], live: Server) -> None:
    """South beat with A♥ 8♠, the scorer tapped 7♠. Voiding the beat breaks West's discard after it, so
    only an amend fixes it: the history offers it for a move, with the move's cards already chosen."""
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(
        live,
        match_id,
        token,
        _e("hand_started", dealer=3, trump="QS", hands=[["??"] * 4] * 4),
        _e("lead", seat=0, cards=["9H", "KH"]),
        _e("discard", seat=1, cards=["??", "??"]),
        _e("beat", seat=2, cards=["AH", "7S"]),
        _e("discard", seat=3, cards=["??", "??"]),
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_role("button", name="Correct entry 5").click()
    box = page.locator("#correction")
    expect(box.get_by_role("heading")).to_have_text("Correct entry 5: South: beat — cards A♥ 7♠")
    box.get_by_role("button", name="Cards played: 7 of spades, press to remove").click()
    box.get_by_role("button", name="Cards played: add 8 of spades").click()
    box.get_by_role("button", name="Show what changes").click()
    expect(box.locator(".preview")).to_contain_text("If you save this")
    box.get_by_role("button", name="Save the correction").click()
    expect(page.locator("#access")).to_contain_text("7 entries recorded")
    expect(page.locator("#history li[data-seq='7']")).to_contain_text(
        "entry 5 corrected (entered by mistake): South: beat — cards A♥ 8♠"
    )
    expect(page.locator("#table .seatrow", has_text="South beats").get_by_role("img")).to_have_text(["A♥", "8♠"])
    last = events(live, match_id, token)[-1]
    assert last["type"] == "amend" and last["data"]["target"] == 5
    assert last["data"]["data"] == {"seat": 2, "cards": ["AH", "8S"]}


def test_el_roby_draws_say_where_the_card_comes_from(open_page: Callable[..., Page], live: Server) -> None:
    """The stock and the discard pile were two buttons both reading 'Bea draws'."""
    match_id, token = new_match(live, {"game": "el-roby", "players": ["Ana", "Bea", "Carlos", "Dani"]})
    record(live, match_id, token, _e("hand_started", dealer=0, hands=[["??"] * 10] * 4, discard="5H"))
    page = open_page(f"/m/{match_id}/score#token={token}")
    legal = page.locator("#legal")
    expect(legal.get_by_role("button")).to_have_text(["Bea draws from the stock", "Bea takes the discard (5♥)"])
    legal.get_by_role("button", name="Bea takes the discard (5♥)").click()  # the card is known: one tap
    page.locator("#held").get_by_role("button", name="Save now").click()  # one tap, held with Undo until saved
    expect(page.locator("#access")).to_contain_text("3 entries recorded")
    assert events(live, match_id, token)[-1]["data"] == {"seat": 1, "from": "discard", "card": "5H"}


def test_a_cabo_draw_recorded_as_a_three_offers_only_what_a_three_allows(
    open_page: Callable[..., Page], live: Server
) -> None:
    """The page read the legal moves without its key, so after 'Anna drew a 3' it still offered the
    7/8 peek, the 9/10 spy and the 11/12 swap, and asked again for the card she discards."""
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]})
    record(
        live,
        match_id,
        token,
        _e("hand_started", dealer=0, layouts=[["??"] * 4] * 4, discard="5"),
        _e("draw", seat=0, card="3"),
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    legal = page.locator("#legal")
    expect(legal.get_by_role("button")).to_have_text(["Anna replaces", "Anna discards (3)"])
    legal.get_by_role("button", name="Anna discards (3)").click()
    page.locator("#held").get_by_role("button", name="Save now").click()  # one tap, held with Undo until saved
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    last = events(live, match_id, token)[-1]
    assert (last["type"], last["data"]) == ("discard", {"seat": 0, "card": "3"})

    # a reader without the key still sees the public moves (it cannot know the card)
    reader = open_page(f"/m/{match_id}/score")
    expect(reader.locator("#moves")).to_be_hidden()


def test_a_showdown_row_with_a_card_missing_names_the_player(open_page: Callable[..., Page], live: Server) -> None:
    """P4 stood on two cards and the scorer picked one: the API's words were 'the 4th entry of hands
    must hold 2 to 4 entries, not 1'. The page says whose row and how many, and sends nothing."""
    match_id, token = new_match(live, {"game": "kabu", "players": ["P1", "P2", "P3", "P4"]})
    record(
        live,
        match_id,
        token,
        _e("hand_started", dealer=3, hands=[["??", "??"]] * 4),
        *[_e("stand", seat=s) for s in range(4)],
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal").get_by_role("button", name="Showdown: cards shown").click()
    form = page.locator("#move-form")
    for name, cards in (
        ("P1", ["5 of hearts", "4 of spades"]),
        ("P2", ["7 of diamonds", "8 of clubs"]),
        ("P3", ["10 of spades", "3 of diamonds"]),
        ("P4", ["6 of clubs"]),
    ):
        for card in cards:
            form.get_by_role("button", name=f"{name}'s cards: add {card}", exact=True).click()
    form.get_by_role("button", name="Record", exact=True).click()
    expect(page.locator("#move-refusal")).to_have_text("P4 holds 2 cards; 1 picked.")
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == 6
    form.get_by_role("button", name="P4's cards: add A of diamonds", exact=True).click()
    form.get_by_role("button", name="Record", exact=True).click()
    expect(page.locator("#access")).to_contain_text("7 entries recorded")
    expect(page.locator("#sheet tbody tr[data-hand='1'] .pts")).to_have_text(
        ["+12", "-4", "-12", "+4"]
    )  # chips won carry their sign
