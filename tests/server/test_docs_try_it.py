""" "Try it out" in /docs records a real deal: in headless Chromium, POST a game's /matches
example, authorize with the token the page shows, POST the same game's events example, and
find the deal in the log. One game here (Kabú's move-by-move hand); every game's examples are
recorded through the test client in tests/api/test_openapi.py."""

from __future__ import annotations

import json
from typing import Any

from api.openapi import EXAMPLES
from tests.server.conftest import Server


def _operation(page: Any, path: str) -> Any:
    return page.locator(".opblock-post").filter(has=page.locator(f'.opblock-summary-path[data-path="{path}"]'))


def _try(page: Any, path: str, game: str, **parameters: str) -> tuple[int, dict[str, Any]]:
    """Open an operation, pick the game's example, fill the parameters, execute; return the answer."""
    operation = _operation(page, path)
    if not operation.locator(".try-out__btn").is_visible():
        operation.locator(".opblock-summary").click()
    if operation.locator(".try-out__btn.cancel").count() == 0:
        operation.locator(".try-out__btn").click()
    for name, value in parameters.items():
        operation.locator(f'input[placeholder="{name}"]').fill(value)
    select = operation.locator(".examples-select select")
    label = next(o for o in select.locator("option").all_inner_texts() if o.startswith(f"{game}:"))
    select.select_option(label=label)
    operation.locator(".execute").click()
    status = operation.locator(".live-responses-table .response .response-col_status")
    status.wait_for(timeout=15000)
    code = int(status.inner_text().strip())
    body = json.loads(
        operation.locator(".live-responses-table .response .response-col_description pre").first.inner_text()
    )
    operation.locator(".btn-clear").click()
    return code, body


def test_try_it_out_records_a_deal(browser: Any, server: Server) -> None:  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    page.goto(server.url + "/docs")
    page.wait_for_selector(".opblock", timeout=15000)
    for game in ("kabu",):
        events = EXAMPLES[game][1]
        status, created = _try(page, "/matches", game)
        assert status == 201, created
        page.locator(".auth-wrapper .authorize").click()
        if page.locator(".modal-ux .auth-btn-wrapper button", has_text="Logout").count():
            page.locator(".modal-ux .auth-btn-wrapper button", has_text="Logout").click()
        page.locator(".modal-ux input").first.fill(created["token"])
        page.locator(".modal-ux .auth-btn-wrapper .authorize").click()
        page.locator(".modal-ux .btn-done").click()
        status, appended = _try(page, "/matches/{match_id}/events", game, match_id=created["id"])
        assert status == 201, appended
        assert appended["version"] == 1 + len(events)
        code, log = server.call("GET", f"/matches/{created['id']}/events")
        assert code == 200 and [e["type"] for e in log["events"][1:]] == [e["type"] for e in events]
    page.close()
