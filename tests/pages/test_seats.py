"""Seat keys and signed confirmations in the browser (issue 31): the scorer's phone gives a seat a
key by QR code, the player's phone (another browser context, its own storage) opens the link the
code holds, makes its own ECDSA key pair, confirms hand 1 and contests hand 2; the scorer rules on
the contest at the dispute desk; the match page and the printed sheet show who confirmed, and
``tanteo verify`` checks the player's signature."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from playwright.sync_api import Page, expect

from ledger import canonical_json
from tests.pages import qr_read
from tests.pages.accessibility import serious
from tests.pages.conftest import PHONE, new_match, record
from tests.server.conftest import Server

DESK = {"width": 1280, "height": 900}
SHOTS = Path("/work/tr/shots31")
CABRA = {"game": "la-cabra", "players": ["Núria", "Ben", "Carme", "Dora"], "options": {"confirmation": "all"}}
HAND_1 = [
    {"type": "hand_started", "data": {"dealer": 3}},
    {"type": "hand_result", "data": {"cardPoints": [72, 48], "tricks": [5, 2], "lastTrick": 0}},
]
HAND_2 = [
    {"type": "hand_started", "data": {"dealer": 0}},
    {"type": "hand_result", "data": {"cardPoints": [40, 80], "tricks": [2, 5], "lastTrick": 1}},
]


def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """A photo of the page to be looked at: /work/tr/shots31/seatpages-<name>.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"seatpages-{name}.png"), full_page=full_page)


TRICKY: list[Any] = [
    {"match": "abc", "hand": 2, "seat": 1, "head": "00ff", "result": {"cardPoints": [72, 48], "multiplier": 1}},
    {"b": 1, "a": {"z": [1, -2, 0, 9007199254740991], "é": "Núria", "ä": "Straße"}, "": None},
    {"quote": 'say "hi" \\ there\n\ttab \u0001 \u001f \u007f / \u2028', "ok": True, "no": False},
    {"\uffff": 1, "😀": 2, "\ue000": 3, "Z": 4, "a": 5},  # beyond U+FFFF: UTF-16 order differs from the server's
    [[], {}, [{"y": {"x": []}}], "🂡 Ès", -0, 0],
]


@pytest.mark.parametrize("value", TRICKY)
def test_the_pages_canonical_json_is_the_servers(open_page: Callable[..., Page], value: Any) -> None:
    """What a phone signs is what the server checks: the same bytes, key order and all."""
    page = open_page("/")
    ours = page.evaluate(
        "async (v) => { const m = await import('/static/canonical.js'); return Array.from(m.canonicalBytes(v)); }",
        value,
    )
    assert bytes(ours) == canonical_json(value)


def test_the_seat_page_refuses_to_work_without_its_key(open_page: Callable[..., Page], live: Server) -> None:
    match_id, token = new_match(live, {**CABRA, "options": {}})
    record(live, match_id, token, *HAND_1)
    page = open_page(f"/m/{match_id}/seat/1")
    expect(page.locator("#seat-state")).to_contain_text("This page needs the seat key")
    expect(page.get_by_role("button", name=re.compile("Confirm|Contest"))).to_have_count(0)
    assert serious(page) == []
    assert page.evaluate("() => localStorage.length") == 0
    # a seat the match does not have is not a page
    status, _ = live.call("GET", f"/m/{match_id}/seat/7")
    assert status == 404


def drawn_link(page: Page, seat: int) -> str | None:
    """The link the seat's QR code holds, read module by module as a phone camera would."""
    svg = page.locator(f"#seats li[data-seat='{seat}'] .seat-qr svg")
    size = int((svg.get_attribute("viewBox") or "").split()[2]) - 4
    path = svg.locator("path").get_attribute("d") or ""
    return qr_read.read({(int(y) - 2, int(x) - 2) for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", path)}, size)


def test_a_player_confirms_hand_1_and_contests_hand_2_from_their_phone(
    open_page: Callable[..., Page], live: Server
) -> None:
    match_id, token = new_match(live, CABRA)
    record(live, match_id, token, *HAND_1, *HAND_2)

    # the scorer's phone gives Ben (seat 1) a key
    scorer = open_page(f"/m/{match_id}/score#token={token}")
    seats = scorer.locator("#seats")
    expect(seats).to_be_visible()
    expect(seats.locator("#seats-last")).to_contain_text("Nobody has confirmed hand 2 yet.")
    scorer.get_by_role("button", name="Give Ben a seat key").click()
    link = seats.locator("li[data-seat='1'] .seat-link a")
    expect(link).to_have_attribute("href", re.compile(rf"/m/{match_id}/seat/1#key="))
    href = link.get_attribute("href") or ""
    assert drawn_link(scorer, 1) == href  # the code and the link under it are the same
    assert href.startswith(live.url)
    seats.scroll_into_view_if_needed()
    shot(scorer, "scorer-key-390", full_page=False)
    assert serious(scorer) == []

    # the player's phone: another context, its own storage, opens what the code holds
    player = open_page(href.removeprefix(live.url))
    expect(player.locator("#seat-state")).to_contain_text("This phone signs for Ben (seat 2)")
    assert "key=" not in player.url  # the key is kept, and gone from the address bar
    key = href.split("#key=", 1)[1]
    assert player.evaluate(f"() => localStorage.getItem('tanteo:seatkey:{match_id}:1')") == key
    hand1 = player.locator("#seat-hand-1")
    expect(hand1).to_contain_text("Núria–Carme")  # the hand explained, as the audit says it
    shot(player, "player-before-390")
    assert serious(player) == []
    summary = live.call("GET", f"/matches/{match_id}")[1]
    assert [s["hasSigner"] for s in summary["seats"]] == [False, True, False, False]

    hand1.get_by_role("button", name="Confirm hand 1").click()
    expect(hand1).to_contain_text("You confirmed this hand.")
    expect(hand1.get_by_role("button", name="Confirm hand 1")).to_have_count(0)
    expect(hand1.locator(".confirmed")).to_contain_text("✓ Ben")

    hand2 = player.locator("#seat-hand-2")
    hand2.get_by_role("button", name="Contest hand 2").click()
    hand2.get_by_label("What is wrong with this hand?").fill("East took the last trick, not Núria")
    hand2.get_by_role("button", name="Send the contest").click()
    expect(hand2.locator(".contested")).to_contain_text("“East took the last trick, not Núria” — open")
    shot(player, "player-after-390")
    assert serious(player) == []

    audit = live.call("GET", f"/matches/{match_id}/audit")[1]
    assert [(c["seat"], c["valid"]) for c in audit["hands"][0]["confirmations"]] == [(1, True)]
    assert 1 not in audit["hands"][0]["needs"]
    assert [(d["hand"], d["seat"], d["state"]) for d in audit["disputes"]] == [(2, 1, "open")]

    # the scorer sees Ben's confirmation arrive (live) and rules on the contest at the desk
    expect(seats.locator("li[data-seat='1']")).to_contain_text("this player's phone signs for the seat")
    scorer.goto(f"{live.url}/m/{match_id}/dispute")
    dispute = scorer.locator("#disputes li.dispute")
    expect(dispute).to_contain_text("East took the last trick, not Núria")
    ruling = scorer.get_by_role("form", name=f"Ruling on the dispute of entry {dispute.get_attribute('data-seq')}")
    ruling.get_by_label("Rejected").check()
    ruling.get_by_label("Reason for the ruling").fill("Núria showed the last trick")
    ruling.get_by_role("button", name="Check the ruling").click()
    ruling.get_by_role("button", name="Record the ruling").click()
    expect(dispute).to_contain_text("rejected")
    # the player's page follows the match: the ruling reaches it without a reload
    expect(hand2.locator(".contested")).to_contain_text("rejected")

    # the match page and the printed sheet: who confirmed, who is still needed
    match = open_page(f"/m/{match_id}")
    confirmed = match.locator("[data-confirmations='1']")
    expect(confirmed).to_contain_text("Confirmed: ✓ Ben.")
    expect(confirmed).to_contain_text("Still to confirm: Núria, Carme and Dora.")
    match.locator("#hand-1").scroll_into_view_if_needed()
    shot(match, "match-390", full_page=False)
    sheet = open_page(f"/m/{match_id}/sheet", DESK)
    expect(sheet.locator("#sheet-confirmations [data-confirmations='1']")).to_contain_text("✓ Ben")

    # the signature verifies without the server's word for it
    verified = subprocess.run(
        [sys.executable, "-m", "api.cli", "verify", "--url", live.url, match_id],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # the pages number seats from 1 (Ben is "seat 2"); verify prints the API's seat index (S1)
    assert re.search(r"hand 1: Ben \(seat [12]\) signed ✓", verified.stdout), verified.stdout


@pytest.mark.parametrize("viewport", [PHONE, DESK], ids=["390x844", "1280x900"])
def test_the_seat_pages_read_well_at_each_size(
    open_page: Callable[..., Page], live: Server, viewport: dict[str, int]
) -> None:
    """Axe-clean, and photographed: the scorer's section with a code, the player's page with a
    contest form open, the match page's confirmations."""
    match_id, token = new_match(live, CABRA)
    record(live, match_id, token, *HAND_1)
    size = f"{viewport['width']}"
    scorer = open_page(f"/m/{match_id}/score#token={token}", viewport)
    scorer.get_by_role("button", name="Give Dora a seat key").click()
    expect(scorer.locator("#seats li[data-seat='3'] .seat-qr svg")).to_be_visible()
    assert serious(scorer) == []
    scorer.locator("#seats").scroll_into_view_if_needed()
    shot(scorer, f"scorer-{size}", full_page=False)
    href = scorer.locator("#seats li[data-seat='3'] .seat-link a").get_attribute("href") or ""

    player = open_page(href.removeprefix(live.url), viewport)
    expect(player.locator("#seat-state")).to_contain_text("This phone signs for Dora")
    player.bring_to_front()  # two pages open: focus belongs to the one in front (else "inactive" now and then)
    player.get_by_role("button", name="Contest hand 1").click()
    expect(player.get_by_label("What is wrong with this hand?")).to_be_focused()
    assert serious(player) == []
    shot(player, f"player-contest-{size}")
    player.get_by_role("button", name="Confirm hand 1").click()
    expect(player.locator("#seat-hand-1")).to_contain_text("You confirmed this hand.")
    assert serious(player) == []
    shot(player, f"player-confirmed-{size}")
    player.context.close()  # its event stream holds one of the server's threads

    match = open_page(f"/m/{match_id}", viewport)
    expect(match.locator("[data-confirmations='1']")).to_contain_text("✓ Dora")
    assert serious(match) == []
    shot(match, f"match-{size}")
