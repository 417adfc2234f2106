"""A La Cabra series entered from the score sheet by clicks, at phone size, as a scorer would."""

from __future__ import annotations

from typing import Callable

from playwright.sync_api import Page, expect

from tests.pages.conftest import new_match
from tests.server.conftest import Server

NS, EW = "Anna + Carl", "Ben + Dora"


def enter_hand(page: Page, points: int, tricks: tuple[int, int] | None, dealer: str | None = None) -> None:
    if dealer is not None:
        page.get_by_role("group", name="Dealer").get_by_role("button", name=dealer).click()
    page.get_by_label(f"Card points of {NS}").fill(str(points))
    if tricks is not None:
        page.get_by_role("group", name=f"Tricks of {NS}").get_by_role("button", name=str(tricks[0]), exact=True).click()
        page.get_by_role("group", name=f"Tricks of {EW}").get_by_role("button", name=str(tricks[1]), exact=True).click()
    page.get_by_role("button", name="Check the result").click()


def enter_loss(page: Page, loss: tuple[int, int]) -> None:
    page.get_by_role("group", name="The sheet holds").get_by_role("button", name="loss points only").click()
    page.get_by_role("group", name=f"Loss points of {NS}").get_by_role("button", name=str(loss[0]), exact=True).click()
    page.get_by_role("group", name=f"Loss points of {EW}").get_by_role("button", name=str(loss[1]), exact=True).click()
    page.get_by_role("button", name="Check the result").click()


def save(page: Page, hands: int) -> None:
    expect(page.locator("#preview .box")).to_be_visible()
    page.get_by_role("button", name="Save the hand").click()
    expect(page.locator("#sheet tbody tr[data-hand]:not(.status-playing)")).to_have_count(hands)


def test_a_series_entered_from_the_sheet(open_page: Callable[..., Page], live: Server) -> None:
    page = open_page("/new")
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.get_by_label("La Cabra").check()
    expect(page.locator("#players input[type=text]")).to_have_count(4)
    page.get_by_label("deals first").nth(1).check()
    expect(page.locator("#diagram-caption")).to_contain_text("Ben deals first")
    page.get_by_role("button", name="Create the match").click()
    expect(page.locator("#token")).not_to_be_empty()
    token = page.locator("#token").inner_text()
    expect(page.locator("#handover-qr svg")).to_be_visible()
    page.get_by_role("link", name="Start scoring").click()
    match_id = page.url.split("/m/")[1].split("/")[0]
    dealers = page.get_by_role("group", name="Dealer")
    expect(dealers.get_by_role("button", name="Ben")).to_have_attribute("aria-pressed", "true")  # as seated

    enter_hand(page, 72, (5, 2), dealer="Anna")
    expect(page.locator("#preview")).to_contain_text(f"{EW} 2")
    expect(page.locator("#preview")).to_contain_text("Ben deals")
    # a team is its two players, as the table says it, never initials ("BD took 48")
    expect(page.locator("#preview")).to_contain_text("Ben and Dora took 48 card points")
    expect(page.locator("#preview")).not_to_contain_text("BD ")
    save(page, 1)
    expect(page.locator("#history")).to_contain_text(
        "hand result — card points 72–48, tricks 5–2"
    )  # as a sheet writes it
    enter_hand(page, 50, None)  # card points alone, the shortest entry
    save(page, 2)
    enter_loss(page, (4, 0))  # a sheet that kept only the loss points
    save(page, 3)

    before = live.call("GET", f"/matches/{match_id}")[1]["version"]
    enter_hand(page, 1, (1, 6))  # 1 card point is no possible sum of card values
    refusal = page.locator("#sheet-refusal")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("la-cabra.")
    expect(refusal).not_to_contain_text("event of the batch")  # the page says where itself (entry 2 of what was sent)
    expect(page.get_by_label(f"Card points of {NS}")).to_have_value("1")  # nothing typed is lost
    expect(page.get_by_role("button", name="Save the hand")).to_be_disabled()
    assert live.call("GET", f"/matches/{match_id}")[1]["version"] == before

    enter_hand(page, 100, (6, 1))
    save(page, 4)
    expect(page.locator("[data-total='1']")).to_have_text("6")

    page.get_by_role("button", name="Undo the last entry").click()  # the last hand_result: 100 should have been 85
    correction = page.locator("#correction")
    expect(correction).to_contain_text("If you save this")
    page.get_by_role("button", name="Void it").click()
    expect(page.locator("#entry-title")).to_have_text("Close this hand from the sheet")
    enter_hand(page, 85, (6, 1))
    expect(page.locator("#preview")).to_contain_text(f"{EW} 2")
    save(page, 4)

    summary = live.call("GET", f"/matches/{match_id}")[1]
    shown = [int(page.locator(f"[data-total='{i}']").inner_text()) for i in range(2)]
    assert shown == [s["total"] for s in summary["standings"]] == [6, 4]
    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert [h["points"] for h in audit["hands"]] == [[0, 2], [2, 0], [4, 0], [0, 2]]
    results = [
        e["data"] for e in live.call("GET", f"/matches/{match_id}/events")[1]["events"] if e["type"] == "hand_result"
    ]
    assert results[1] == {"cardPoints": [50, 70]} and results[2] == {"lossPoints": [4, 0]}
    assert [c["type"] for c in audit["corrections"]] == ["void"]
    assert not any(token in url for url in urls)  # the token never travels in a URL the server sees
    assert page.evaluate(f"localStorage.getItem('tanteo:token:{match_id}')") == token


def test_a_hand_entered_with_the_keyboard_alone(open_page: Callable[..., Page], live: Server) -> None:
    """Focus order follows the form: dealer, points, tricks, last trick, check, save."""
    match_id, token = new_match(live, {"game": "la-cabra", "players": ["Anna", "Ben", "Carl", "Dora"]})
    page = open_page(f"/m/{match_id}/score#token={token}")
    page.get_by_role("group", name="Dealer").get_by_role("button", name="Anna").focus()
    keys = page.keyboard

    def tab(times: int) -> None:
        for _ in range(times):
            keys.press("Tab")

    tab(3)
    keys.press("Enter")  # Dora deals
    tab(3)  # past what the sheet holds (card points / loss points only)
    keys.type("72")
    tab(6)
    keys.press("Enter")  # North + South took 5 tricks
    tab(7)
    keys.press("Enter")  # East + West took 2
    tab(12)
    expect(page.get_by_role("button", name="Check the result")).to_be_focused()
    keys.press("Enter")
    expect(page.locator("#preview .box")).to_contain_text("Anna deals")
    keys.press("Tab")
    expect(page.get_by_role("button", name="Save the hand")).to_be_focused()
    keys.press("Enter")
    expect(page.locator("#sheet-title")).to_be_focused()
    first = live.call("GET", f"/matches/{match_id}/events")[1]["events"][1:]
    assert first[0]["data"] == {"dealer": 3}
    assert first[1]["data"] == {"cardPoints": [72, 48], "tricks": [5, 2]}


def test_a_named_match_is_found_again(open_page: Callable[..., Page], live: Server) -> None:
    """Title, date, place and tags typed on the new-match page show on home, the scorer and the sheet."""
    page = open_page("/new")
    page.get_by_label("Cabo").check()
    page.get_by_label("Title").fill("Friday final")
    page.get_by_label("Date").fill("2026-11-21")
    page.get_by_label("Place").fill("Casal Gràcia")
    page.get_by_label("Tags (separated by commas)").fill("league-2026, finals")
    page.get_by_role("button", name="Create the match").click()
    page.get_by_role("link", name="Start scoring").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Friday final")
    expect(page.locator("main .meta").first).to_contain_text("Nov 21, 2026 · Casal Gràcia")
    match_id = page.url.split("/m/")[1].split("/")[0]
    summary = live.call("GET", f"/matches/{match_id}")[1]
    assert (summary["title"], summary["date"], summary["place"], summary["tags"]) == (
        "Friday final",
        "2026-11-21",
        "Casal Gràcia",
        ["league-2026", "finals"],
    )
    home = open_page("/?place=casal gràcia&tag=finals")
    expect(home.locator(".match")).to_have_count(1)
    expect(home.locator(".match").first).to_contain_text("Friday final")
    expect(home.locator(".match").first).to_contain_text("tags: league-2026, finals")
    sheet = open_page(f"/m/{match_id}/sheet")
    expect(sheet.locator(".printable .meta").nth(1)).to_contain_text("Date: Nov 21, 2026 · Place: Casal Gràcia")
