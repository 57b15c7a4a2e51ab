"""Debian's Chromium, as every browser test, screenshot script and panel benchmark drives it.

The one place for the executable and its flags. It is never a downloaded browser; and without
the background-networking flags Chromium keeps opening connections that this machine's
closed network refuses, which slows every page and fills the log.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_installed() -> bool:
    return Path(CHROMIUM).exists()


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless, through a started Playwright."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(LAUNCH_ARGS))


@contextmanager
def page_of(
    browser: Any, *, locale: str = "en-US", size: tuple[int, int] = (1100, 900)
) -> Iterator[Any]:
    """A page in a context of its own; leaving raises if a script on the page threw."""
    context = browser.new_context(locale=locale, viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        context.close()
    assert errors == [], f"the page raised: {errors}"


def open_panel(page: Any, url: str) -> None:
    """Go to a panel URL and wait for the panel's first render (it marks body[data-ready])."""
    page.goto(url)
    page.wait_for_selector("body[data-ready]")


def wait_until_true(page: Any, expression: str, timeout_ms: float = 5000) -> None:
    """Poll ``expression`` in the page until it is truthy. Playwright's own wait_for_function
    polls by compiling the expression inside the page, which the panel's Content Security
    Policy (script-src 'self') refuses whenever the first check is not already true;
    ``page.evaluate`` runs through the DevTools protocol, which the policy does not govern."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"{expression!r} still false after {timeout_ms:.0f} ms")
        time.sleep(0.05)
