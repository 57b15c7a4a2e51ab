"""Regenerate the lookup's screenshots in docs/screenshots/ from rows a real engine wrote
through the official SDK against the tests' fake Anthropic server on loopback.

Run: ``uv run python scripts/screenshots_search.py`` (needs Debian's Chromium).
Writes lookup-cards.png and search-policy.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "lookup"))
sys.path.insert(0, str(ROOT / "tests"))

from fakes import FakeAnthropic, Source, reply_json  # noqa: E402
from lookup_helpers import Lookups  # noqa: E402

from chromium import launch  # noqa: E402
from reckoner.panel.background import BackgroundPanel  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
ANSWER = "The density of copper near room temperature is 8.96 g/cm3."


def main() -> None:
    from playwright.sync_api import sync_playwright

    anthropic, openai = FakeAnthropic(), None
    with tempfile.TemporaryDirectory() as scratch:
        lookups = Lookups(Path(scratch) / "home", anthropic, openai)  # type: ignore[arg-type]
        anthropic.script.sources = [
            Source(
                "https://en.wikipedia.org/wiki/Copper",
                "Copper - Wikipedia",
                "Density (near r.t.) 8.96 g/cm3",
                "April 30, 2025",
            ),
            Source("https://physics.nist.gov/copper", "NIST: copper", "8.96 g/cm3 at 20 degC"),
            Source("https://blog.example.com/metals", "A metals blog", "copper is about 9 g/cc"),
        ]
        anthropic.script.extract_text = reply_json(ANSWER, [0, 1])
        lookups.override({"maxSearchesPerRecord": 2, "answerMaxChars": 600})
        lookups.start("Mass of a 2 m copper bar, 10 mm x 10 mm")
        lookups.call("set", {"name": "L", "value": {"num": 2, "unit": "m"}})
        lookups.search("What is the density of copper at room temperature?")
        lookups.call("set", {"name": "rho", "value": {"num": 8.96, "unit": "g/cm^3"}})
        anthropic.script.sources = [Source("https://blog.example.com/tin", "A metals blog")]
        lookups.search("What is the thermal expansion coefficient of tin?")
        lookups.search("What is the density of lead?")
        assert lookups.engine is not None
        record_id = lookups.engine.open_record_id
        with BackgroundPanel(lookups.home) as panel, sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1000, "height": 900}, locale="en-US")
            page.goto(f"{panel.url}#/records/{record_id}")
            page.wait_for_selector(".card.search")
            page.locator(".card.search details.used > summary").first.click()
            page.locator(".timeline, main").first.screenshot(path=str(OUT / "lookup-cards.png"))
            page.goto(f"{panel.url}#/settings")
            page.wait_for_selector(".search-policy")
            page.screenshot(path=str(OUT / "search-policy.png"), full_page=True)
            browser.close()
        lookups.close()
    anthropic.close()
    print(f"wrote {OUT / 'lookup-cards.png'} and {OUT / 'search-policy.png'}")


if __name__ == "__main__":
    main()
