"""The moves the pages could not record (issue 25, item 6), each recorded from the pages now:
Kabú's starting chips, agreed end time, buying chips, leaving; La Cabra's leader after a deal
from the sheet; El Roby's re-buy with its price shown first; Cau Robat's captures; and the
words a player uses for the options and the Spanish cards."""

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


def group(page: Page, label: str) -> Any:
    return page.get_by_role("group", name=label, exact=True)


def test_kabu_starting_chips_end_time_buying_and_leaving(open_page: Callable[..., Page], live: Server) -> None:
    """New match never asked the starting chips (70 each) nor the agreed end; no page recorded a buy,
    a player leaving or the time being up."""
    page = open_page("/new")
    page.get_by_label("Kabú").check()
    expect(page.locator("#chips")).to_be_visible()
    expect(page.get_by_label("Anna: chips")).to_have_value("70")
    page.get_by_label("Anna: chips").fill("1")
    page.get_by_label("When the game ends").select_option("time")
    with page.expect_response(lambda r: r.url.endswith("/matches") and r.request.method == "POST") as created:
        page.get_by_role("button", name="Create the match").click()
    sent = created.value.request.post_data_json
    assert sent["target"] == {"end": "time"} and sent["initial"] == {"chips": [1, 70, 70, 70]}
    match_id, token = created.value.json()["id"], page.locator("#token").inner_text()
    record(
        live, match_id, token, _e("hand_started", dealer=0), _e("hand_result", values=[0, 9, 9, 9])
    )  # Anna cannot pay

    page.get_by_role("link", name="Start scoring").click()
    legal = page.locator("#legal")
    buy = legal.locator("[data-move-type='buy_chips'][data-seat='0']")
    expect(buy).to_have_text("Anna buys chips")
    buy.click()
    form = page.locator("#move-form")
    group(form, "Buys from").get_by_role("button", name="Ben").click()
    form.get_by_label("Chips").fill("20")
    form.get_by_role("button", name="Record").click()
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    assert events(live, match_id, token)[-1]["data"] == {"seat": 0, "from": 1, "chips": 20}

    legal.locator("[data-move-type='buy_chips']:not([data-seat])").click()  # between hands: anyone buys
    form = page.locator("#move-form")
    group(form, "Who buys").get_by_role("button", name="Carl").click()
    group(form, "Buys from").get_by_role("button", name="Dora").click()
    form.get_by_label("Chips").fill("5")
    form.get_by_role("button", name="Record").click()
    expect(page.locator("#access")).to_contain_text("5 entries recorded")
    assert events(live, match_id, token)[-1]["data"] == {"seat": 2, "from": 3, "chips": 5}

    leave = legal.locator("[data-move-type='leave'][data-seat='3']")
    expect(leave).to_have_text("Dora leaves the game")
    leave.click()
    page.locator("#held").get_by_role("button", name="Save now").click()  # one tap, held with Undo until saved
    expect(page.locator("#access")).to_contain_text("6 entries recorded")
    legal.locator("[data-move-type='time_up']").click()
    page.locator("#held").get_by_role("button", name="Save now").click()
    expect(page.locator("#access")).to_contain_text("The match is over")
    assert [e["type"] for e in events(live, match_id, token)[-2:]] == ["leave", "time_up"]


def test_la_cabra_deal_after_a_sheet_deal_asks_who_leads(open_page: Callable[..., Page], live: Server) -> None:
    """A deal from the sheet with loss points only does not say who won the last trick: the next deal
    move by move was refused for a leader the deal form had no field for."""
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(live, match_id, token, _e("hand_started", dealer=0), _e("hand_result", lossPoints=[0, 2]))
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal [data-move-type='hand_started']").click()
    deal = page.locator("#deal-area")
    deal.get_by_role("button", name="put 6 of hearts there").click()  # the trump card; the hands stay unseen
    deal.get_by_role("button", name="Record the deal").click()
    expect(deal.locator(".refusal")).to_have_text("Pick who leads the first trick first.")
    assert len(events(live, match_id, token)) == 3
    leader = deal.locator("[data-field='leader']")
    leader.get_by_role("button", name="South").click()
    deal.get_by_role("button", name="Record the deal").click()
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    last = events(live, match_id, token)[-1]
    assert last["type"] == "hand_started" and last["data"]["leader"] == 2 and last["data"]["dealer"] == 1
    expect(page.locator("#legal [data-move-type='lead'][data-seat='2']")).to_be_visible()


def test_el_roby_rebuy_shows_its_price_first_and_the_sheets_mark_it(
    open_page: Callable[..., Page], live: Server
) -> None:
    """A re-buy recorded on one tap with no price shown; the sheet then read '40 = 36' with no marker;
    the printed sheet showed no pot nor re-buy money."""
    match_id, token = new_match(
        live,
        {
            "game": "el-roby",
            "players": ["Ana", "Bea", "Carl", "Dani"],
            "options": {"entry": 10, "stake": 2},
            "initial": {"scores": [90, 10, 20, 30]},
        },
    )
    record(live, match_id, token, _e("hand_started", dealer=0), _e("hand_result", out=1, hands=[40, 0, 5, 6]))
    page = open_page(f"/m/{match_id}/score#token={token}")
    cell = page.locator("#sheet tr[data-hand='1'] td").first
    expect(cell.locator(".rebuy")).to_have_text("over 99: may re-buy")
    page.locator("#legal [data-move-type='rebuy'][data-seat='0']").click()
    form = page.locator("#move-form")
    expect(form.locator(".rebuy-price")).to_contain_text("Ana re-buys: pays 14 into the pot")
    expect(form.locator(".rebuy-price")).to_contain_text("re-enters at 36")
    assert len(events(live, match_id, token)) == 3  # shown, not recorded
    form.get_by_role("button", name="Record the re-buy").click()
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    expect(cell.locator(".rebuy")).to_have_text("over 99: re-bought for 14, back in at 36")
    expect(cell.locator(".tot")).to_have_text("= 36")

    sheet = open_page(f"/m/{match_id}/sheet")
    expect(sheet.locator(".sheet tbody tr").first.locator(".rebuy").first).to_have_text(
        "over 99: re-bought for 14, back in at 36"
    )
    expect(sheet.locator("#pot")).to_have_text("Pot: 54")
    expect(sheet.locator("#money tr", has_text="Ana")).to_contain_text("re-buy into the pot -14")
    expect(sheet.locator("#money tr", has_text="Ana").locator(".total")).to_have_text("-26")


CAU_DEAL = _e(
    "hand_started",
    dealer=3,
    table=["1o", "3c", "5e", "11b"],
    hands=[
        ["5o", "12o", "7o", "7b", "1e", "2o", "4o", "6o", "10o"],
        ["6c", "3o", "7c", "1b", "2c", "4c", "6e", "10e", "12c"],
        ["1c", "2e", "7e", "2b", "3e", "5c", "11c", "12e", "10b"],
        ["11o", "10c", "4b", "3b", "4e", "5b", "6b", "11e", "12b"],
    ],
)


def test_cau_robat_captures_asked_and_the_sheet_says_cards_and_hands_won(
    open_page: Callable[..., Page], live: Server
) -> None:
    """The optional captures were never asked; the sheet's cell '12 = 1' mixed cards and hands won;
    the Spanish cards read 1o, 12b."""
    match_id, token = new_match(live, {"game": "cau-robat", "players": ["A", "B", "C", "D"]})
    record(
        live, match_id, token, _e("hand_started", dealer=2), _e("hand_result", piles=[8, 12, 12, 6], table=2), CAU_DEAL
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    cell = page.locator("#sheet tr[data-hand='1'] td").nth(1)
    expect(cell.locator(".pts")).to_have_text("12 cards")
    expect(cell.locator(".tot")).to_have_text("1 hand won")
    page.locator("#legal [data-move-type='play'][data-seat='0']").click()
    form = page.locator("#move-form")
    five = form.get_by_role("button", name="Card played: add 5 de oros")
    expect(five.locator("svg.suit")).to_have_count(1)
    five.click()
    expect(form.get_by_role("button", name="Card played: add rey de bastos")).to_contain_text("rey")
    form.get_by_role("button", name="Add a capture").click()
    group(form, "Capture 1: whose pile").get_by_role("button", name="A").click()
    form.get_by_role("button", name="Capture 1: cards, bottom to top: add 5 de espadas").click()
    form.get_by_role("button", name="Capture 1: cards, bottom to top: add 5 de oros").click()
    form.get_by_role("button", name="Record").click()
    expect(page.locator("#access")).to_contain_text("5 entries recorded")
    assert events(live, match_id, token)[-1]["data"] == {
        "seat": 0,
        "card": "5o",
        "captures": [{"seat": 0, "cards": ["5e", "5o"]}],
    }
    expect(page.locator("#history li[data-seq='5']")).to_contain_text("card 5 de oros")


def test_options_have_a_players_name_and_the_code_in_details(open_page: Callable[..., Page], live: Server) -> None:
    page = open_page("/new")
    page.get_by_label("La Cabra").check()
    trump = page.locator(".option", has=page.get_by_label("The trump card after the deal"))
    expect(trump).to_contain_text("goes back into the stock")
    expect(trump.locator("details code")).to_have_text("trumpCard")
    expect(trump.locator("details")).not_to_have_attribute("open", "")
    window = page.locator(".option", has=page.get_by_label("Time to correct after the end"))
    expect(window.locator("> .note")).not_to_contain_text("null")
    expect(window.locator("details")).to_contain_text("blank: no limit")
    for code in ("trumpCard", "tiraInterruptsTira", "correctionWindow"):
        expect(page.locator("#option-list label", has_text=code)).to_have_count(0)


def test_cau_robat_target_is_asked_on_new_match(open_page: Callable[..., Page], live: Server) -> None:
    page = open_page("/new")
    page.get_by_label("Cau Robat").check()
    page.get_by_label("Hands to win the game").fill("2")
    expect(page.get_by_label("Two players reach it together")).to_have_value("share")
    with page.expect_response(lambda r: r.url.endswith("/matches") and r.request.method == "POST") as created:
        page.get_by_role("button", name="Create the match").click()
    assert created.value.request.post_data_json["target"] == {"wins": 2, "tie": "share"}
    assert created.value.status == 201


def test_a_rebuy_and_a_leader_by_keyboard(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(
        live,
        {
            "game": "el-roby",
            "players": ["Ana", "Bea", "Carl", "Dani"],
            "options": {"entry": 10},
            "initial": {"scores": [90, 10, 20, 30]},
        },
    )
    record(live, match_id, token, _e("hand_started", dealer=0), _e("hand_result", out=1, hands=[40, 0, 5, 6]))
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal [data-move-type='rebuy']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#move-form .rebuy-price")).to_contain_text("pays 14")
    expect(page.get_by_role("button", name="Record the re-buy")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#access")).to_contain_text("4 entries recorded")

    match_id, token = new_match(live, {"game": "la-cabra", "players": ["North", "East", "South", "West"]})
    record(live, match_id, token, _e("hand_started", dealer=0), _e("hand_result", lossPoints=[0, 2]))
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.locator("#legal [data-move-type='hand_started']").focus()
    page.keyboard.press("Enter")
    page.get_by_role(
        "button", name="put 6 of hearts there"
    ).focus()  # the picker waits on the one open place: the trump card
    page.keyboard.press("Enter")
    leader = page.locator("[data-field='leader']")
    leader.get_by_role("button", name="West").focus()
    page.keyboard.press("Space")
    expect(leader.get_by_role("button", name="West")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Record the deal").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#access")).to_contain_text("4 entries recorded")
    assert events(live, match_id, token)[-1]["data"]["leader"] == 3


def test_cabo_history_says_which_cards_were_shown_from_the_slots(open_page: Callable[..., Page], live: Server) -> None:
    """'Anna: replace — cards 0' read as if she drew the 0; the 0 left slot 2, the drawn 6 went in."""
    match_id, token = new_match(live, {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]})
    record(
        live,
        match_id,
        token,
        _e("hand_started", dealer=0, layouts=[["??"] * 4] * 4, discard="5"),
        _e("draw", seat=0, card="6"),
        _e("replace", seat=0, slots=[2], cards=["0"]),
        _e("draw", seat=1),
        _e("replace", seat=1, slots=[1, 3], cards=["4", "4"]),
    )
    page = open_page(f"/m/{match_id}/score#token={token}")
    expect(page.locator("#history li[data-seq='4']")).to_contain_text("Anna: replace — slot 2, cards shown 0")
    expect(page.locator("#history li[data-seq='6']")).to_contain_text("Ben: replace — slots 1 + 3, cards shown 4 4")
