"""Regenerate docs/screenshots/compute-card.png: a record with a real R run, in the panel.

Run: ``uv run python scripts/compute_screenshot.py`` (needs Rscript and Debian's Chromium).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from chromium import launch
from reckoner import Engine  # type: ignore[attr-defined]
from reckoner.compute.context import ComputeOptions
from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise
from reckoner.panel.background import BackgroundPanel

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "compute-card.png"
SCRIPT = (
    "# 4x + y = 1, 2x + 3y = 2\nA <- matrix(c(4, 2, 1, 3), 2)\nb <- c(1, 2)\nprint(solve(A, b))\n"
)


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        project = root / "demo-proj"
        project.mkdir()
        home = root / "home"
        with Engine(home=home) as engine:
            engine.call("record_start", {"title": "A 2x2 linear system"})
            engine.call("record_message", {"text": "Solve the system in R; keep the receipt."})
            service = ComputeService(
                project,
                normalise({}),
                ComputeOptions(row_sink=lambda ok, c: engine.append_preset_row("compute", ok, c)),
            )
            run = service.call({"op": "run", "engine": "r", "code": SCRIPT})
            if run.get("ok") is not True:
                raise SystemExit(f"compute_screenshot: the run failed: {run}")
            engine.call("set", {"name": "x", "value": {"num": 0.1}})
            record_id = engine.open_record_id
        with BackgroundPanel(home) as panel, sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 900, "height": 700})
            page.goto(f"{panel.url}#/records/{record_id}")
            page.wait_for_selector(".card.compute")
            page.locator(".card.compute").screenshot(path=str(OUT))
            browser.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
