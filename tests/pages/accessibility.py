"""Helpers shared by tests (moved out of tests.pages.test_offline_sheet_a11y, so that no test module imports another)."""

from __future__ import annotations
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page


def serious(page: Page) -> list[str]:
    violations = Axe().run(page).response["violations"]
    return [
        f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
