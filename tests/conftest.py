"""What every test folder shares: the hypothesis profiles, one Chromium per test module and a
page on it, the `chromium` marker on every test that drives it, and the rule that `slow`
tests (the long variants of a promise whose short variant runs by default) run only when
`-m` names them.

A test that asks for ``browser`` or ``page`` is marked `chromium`, and skipped, with the
reason, on a machine without Debian's Chromium. The other markers of the external programs
(`tex`, `engines`, `node`) are set by the modules and tests that need them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from chromium import CHROMIUM, chromium_installed, launch, page_of

# One place for how hard hypothesis searches. No deadline and no too_slow check in either:
# the machine is shared, so an example's time says nothing about the code (speed is measured
# in bench/). `ci` (CI=true) is reproducible: the same examples on every run, nothing read
# from or written to a local example database. `dev` is the quick everyday search. A test
# that needs its own health-check list starts it from settings.default's, since a list
# given replaces the profile's; a test's own max_examples says in a comment why.
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")


# First, so that `-m "not chromium"` deselects by the marker set here.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_slow = "slow" in (config.getoption("markexpr") or "")
    no_browser = pytest.mark.skip(reason=f"Debian's Chromium is not installed at {CHROMIUM}")
    not_slow = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if not run_slow and "slow" in item.keywords:
            item.add_marker(not_slow)
        # The marker follows the fixture, so no browser test can miss it.
        if {"browser", "page"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.chromium)
            if not chromium_installed():
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
