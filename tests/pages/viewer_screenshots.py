"""Screenshots of the readers' pages (replay per game, match page, dispute desk) at phone and
desktop size, to be looked at.

    python -m tests.pages.viewer_screenshots [OUT_DIR]    (default: screenshots/)

Records the example matches of ``tests.pages.screenshots`` through the JSON API, plus a Cabo
series whose written sheet is wrong in hand 1, and photographs the pages with Debian's chromium.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.pages.screenshots import ARGS, MATCHES, _e
from tests.server.conftest import CHROMIUM, Server

SIZES = (("phone", {"width": 390, "height": 844}), ("desktop", {"width": 1280, "height": 900}))

WRONG_SHEET: tuple[dict[str, Any], list[dict[str, Any]]] = (
    {"game": "cabo", "players": ["Anna", "Ben", "Carl", "Dora"]},
    [
        _e("hand_started", dealer=0),
        _e(
            "hand_result",
            layouts=[["1", "2", "3", "4"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]],
            caller=0,
        ),
        _e("score_claimed", hand=1, points=[10, 0, 15, 7], totals=[10, 0, 15, 7]),
        _e("hand_started", dealer=1),
        _e("hand_result", layouts=[["1", "2"], ["0", "2", "5"], ["2", "3", "4", "6"], ["1", "1", "5"]], caller=0),
        _e("score_claimed", hand=2, points=[0, 7, 15, 7]),
        _e("hand_started", dealer=0),
        _e("hand_result", layouts=[["9", "9"], ["0", "1"], ["12", "3", "4", "6"], ["1", "1", "5"]], caller=1),
        _e("note", text="Ben called early and it worked", target=8),
    ],
)


def recorded(server: Server, start: dict[str, Any], events: list[dict[str, Any]]) -> tuple[str, str]:
    status, created = server.call("POST", "/matches", start)
    assert status == 201, created
    status, body = server.call(
        "POST",
        f"/matches/{created['id']}/events",
        {"events": events},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert status == 201, body
    return created["id"], created["token"]


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "shots.db")
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                shots: list[tuple[str, str, str]] = []
                for game, (start, events) in MATCHES.items():
                    match_id, token = recorded(server, start, events)
                    shots.append((f"replay-{game}", f"/m/{match_id}/replay?seat=all#token={token}", "#table .seatrow"))
                match_id, token = recorded(server, *WRONG_SHEET)
                shots.append(("match-cabo", f"/m/{match_id}", "#audit-sheet"))
                shots.append(("replay-cabo-note", f"/m/{match_id}/replay?at=8", "#move strong"))
                shots.append(("desk-cabo", f"/m/{match_id}/dispute?hand=1#token={token}", "h1"))
                for name, path, ready in shots:
                    for size, viewport in SIZES:
                        context = browser.new_context(viewport=viewport, locale="en-US")
                        page = context.new_page()
                        page.goto(server.url + path)
                        page.wait_for_selector(ready)
                        page.wait_for_timeout(300)
                        page.screenshot(path=str(out / f"{name}-{size}.png"), full_page=size == "phone")
                        page.goto("about:blank")  # lets go of the live stream now (pagehide)
                        context.close()
                browser.close()
        finally:
            server.stop()
    print(f"screenshots in {out}/")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
