"""Screenshots of the scoring page, one per game, at phone size (and desktop), to be looked at.

    python -m tests.pages.screenshots [OUT_DIR]    (default: screenshots/)

Starts a real ``tanteo serve`` on a temporary database, records a short match per game
through the JSON API (the example logs of VOCABULARY.md §7: a hand from the sheet, then a
hand in progress move by move), and photographs /m/{id}/score with Debian's chromium at
390×844 and 1280×900, plus a La Cabra match between deals (the sheet form open) and the
printable sheet of the La Cabra match, and the home page after importing a text file with a mistake.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.server.conftest import CHROMIUM, Server

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _e(type_: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data}


MATCHES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "la-cabra": (
        {"game": "la-cabra", "players": ["North", "East", "South", "West"], "teams": [[0, 2], [1, 3]]},
        [
            _e("hand_started", dealer=3),
            _e("hand_result", cardPoints=[72, 48], tricks=[5, 2], lastTrick=0),
            _e("score_claimed", hand=1, points=[0, 4], totals=[0, 4]),
            _e("hand_started", dealer=0, trump="QS", hands=[["??"] * 4] * 4),
            _e("lead", seat=0, cards=["9H", "KH"]),
            _e("beat", seat=1, cards=["10H", "6S"]),
            _e("beat", seat=2, cards=["AH", "7S"]),
            _e("discard", seat=3, cards=["??", "??"]),
            _e("lead", seat=2, cards=["JD"]),
        ],
    ),
    "cabo": (
        {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"], "initial": {"totals": [20, 93, 85, 40]}},
        [
            _e("hand_started", dealer=0),
            _e(
                "hand_result",
                layouts=[["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]],
                caller=0,
            ),
            _e("hand_started", dealer=3, layouts=[["??"] * 4] * 4, discard="5"),
            _e("initial_peek", seat=1, slots=[1, 3], cards=["9", "9"]),
            _e("initial_peek", seat=2, slots=[1, 2], cards=["11", "1"]),
            _e("draw", seat=3),
            _e("peek", seat=3, card="8", slot=3, value="1"),
            _e("draw", seat=0),
            _e("replace", seat=0, slots=[4], cards=["12"]),
            _e("draw", seat=1),
        ],
    ),
    "cau-robat": (
        {"game": "cau-robat", "players": ["A", "B", "C", "D"], "target": {"wins": 3}, "options": {}},
        [
            _e("hand_started", dealer=2),
            _e("hand_result", piles=[8, 12, 12, 6], table=2),
            _e(
                "hand_started",
                dealer=3,
                table=["1o", "3c", "5e", "11b"],
                hands=[
                    ["5o", "12o", "7o", "7b", "1e", "2o", "4o", "6o", "10o"],
                    ["6c", "3o", "7c", "1b", "2c", "4c", "6e", "10e", "12c"],
                    ["1c", "2e", "7e", "2b", "3e", "5c", "11c", "12e", "10b"],
                    ["11o", "10c", "4b", "3b", "4e", "5b", "6b", "11e", "12b"],
                ],
            ),
            _e("play", seat=0, card="5o"),
            _e("play", seat=1, card="6c"),
            _e("play", seat=2, card="1c"),
            _e("play", seat=3, card="11o"),
        ],
    ),
    "kabu": (
        {"game": "kabu", "players": ["P1", "P2", "P3", "P4"], "options": {}},
        [
            _e("hand_started", dealer=3, hands=[["??", "??"]] * 4),
            _e("stand", seat=0),
            _e("take", seat=1),
            _e("take", seat=2),
            _e("stand", seat=3),
            _e("stand", seat=1),
            _e("take", seat=2),
            _e("showdown", hands=[["5H", "4S"], ["7D", "8C", "2H"], ["10S", "3D", "9C", "8H"], ["6C", "AD"]]),
            _e("hand_started", dealer=3, hands=[["??", "??"]] * 4),
            _e("take", seat=0),
        ],
    ),
    "el-roby": (
        {
            "game": "el-roby",
            "players": ["Ana", "Bea", "Carlos", "Dani"],
            "options": {"entry": 10, "stake": 2},
            "initial": {"scores": [40, 70, 75, 97]},
        },
        [
            _e("hand_started", dealer=3),
            _e("hand_result", out=0, hands=[[], ["AS", "KH", "7D", "7C"], ["5H", "6H", "7H", "QS"], ["2C"]]),
            _e("rebuy", seat=1),
            _e("hand_started", dealer=0, hands=[["??"] * 10, ["??"] * 10, None, ["??"] * 10], discard="5H"),
            _e("draw", seat=1, **{"from": "stock"}),
            _e("discard", seat=1, card="9C"),
            _e("draw", seat=3, **{"from": "stock"}),
            _e("discard", seat=3, card="9D"),
            _e("draw", seat=0, **{"from": "stock"}),
            _e("discard", seat=0, card="KC"),
            _e("draw", seat=1, **{"from": "stock"}),
            _e("meld", seat=1, id=1, cards=["7S", "7H", "7D"]),
        ],
    ),
}


def home_after_import(browser: Any, server: Server, out: Path) -> None:
    """The home page after importing a hand-written text with a mistake (the import report)."""
    from tests.pages.club_night import CLUB_NIGHT

    for name, size in (("phone", {"width": 390, "height": 844}), ("desktop", {"width": 1280, "height": 900})):
        context = browser.new_context(viewport=size, locale="en-US")
        page = context.new_page()
        page.goto(f"{server.url}/")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "club-night.tnt"
            path.write_text(CLUB_NIGHT, encoding="utf-8")
            page.get_by_label("Import a file").set_input_files(str(path))
        page.wait_for_selector("#import-report .summary")
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"home-import-{name}.png"), full_page=name == "phone")
        context.close()


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "shots.db")
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                shots = [(game, start, events) for game, (start, events) in MATCHES.items()]
                start, events = MATCHES["la-cabra"]
                shots.append(("la-cabra-sheet", start, events[:3]))  # between deals: the sheet form is open
                for game, start, events in shots:
                    status, created = server.call("POST", "/matches", start)
                    assert status == 201, created
                    status, body = server.call(
                        "POST",
                        f"/matches/{created['id']}/events",
                        {"events": events},
                        headers={"Authorization": f"Bearer {created['token']}"},
                    )
                    assert status == 201, (game, body)
                    for name, size in (
                        ("phone", {"width": 390, "height": 844}),
                        ("desktop", {"width": 1280, "height": 900}),
                    ):
                        context = browser.new_context(viewport=size, locale="en-US")
                        page = context.new_page()
                        page.goto(f"{server.url}/m/{created['id']}/score#token={created['token']}")
                        page.wait_for_selector("#history li")
                        page.wait_for_timeout(300)
                        page.screenshot(path=str(out / f"score-{game}-{name}.png"), full_page=name == "phone")
                        if game == "la-cabra" and name == "phone":
                            page.goto(f"{server.url}/m/{created['id']}/sheet")
                            page.screenshot(path=str(out / "sheet-la-cabra-phone.png"), full_page=True)
                            page.goto(f"{server.url}/")
                            page.screenshot(path=str(out / "home-phone.png"), full_page=True)
                        context.close()
                home_after_import(browser, server, out)
                browser.close()
        finally:
            server.stop()
    print(f"screenshots in {out}/")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
