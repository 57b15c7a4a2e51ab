"""What every test folder shares: one Chromium per test module and a page on it, and the rule
that `slow` tests (long crash, fuzz and property runs) run only when `-m` names them.

A test that asks for ``browser`` or ``page`` is skipped, with the reason, on a machine
without Debian's Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chromium import CHROMIUM, chromium_installed, launch, page_of


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_slow = "slow" in (config.getoption("markexpr") or "")
    no_browser = pytest.mark.skip(reason=f"Debian's Chromium is not installed at {CHROMIUM}")
    not_slow = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if not run_slow and "slow" in item.keywords:
            item.add_marker(not_slow)
        if not chromium_installed() and {"browser", "page"} & set(
            getattr(item, "fixturenames", ())
        ):
            item.add_marker(no_browser)


# Per module, not per session: while Playwright's sync API runs, its event loop occupies the
# thread, and a later test's asyncio.run would refuse to start.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with page_of(browser) as opened:
        yield opened
