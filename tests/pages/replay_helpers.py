"""Helpers shared by tests (moved out of tests.pages.test_replay, so that no test module imports another)."""

from __future__ import annotations
from playwright.sync_api import Page


def shown(page: Page) -> dict[str, list[str]]:
    """The table as the page draws it: each row's name and the cards in it."""
    rows = {}
    for row in page.locator("#table .seatrow").all():
        name = row.locator(".name").inner_text()
        rows[name] = row.locator("[data-card]").evaluate_all("cards => cards.map(c => c.dataset.card)")
    return rows
