"""Regenerate the panel screenshots in docs/screenshots/ from a home the real engine writes.

Run: ``uv run python scripts/screenshots.py`` (needs Debian's Chromium at /usr/bin/chromium).
Writes records-list.png, record-detail.png and record-detail-dark.png.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from chromium import CHROMIUM, launch
from reckoner import Engine  # type: ignore[attr-defined]
from reckoner.panel.background import BackgroundPanel

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
# 14 March 2026, 09:30 UTC, and 1.7 s between calls: stable, plausible times.
START_MS = 1_773_480_600_000


def _clock() -> Any:
    ticks = itertools.count()
    return lambda: START_MS + next(ticks) * 1_700


def _ok(receipt: dict[str, Any]) -> None:
    if receipt.get("ok") is not True:
        raise SystemExit(f"screenshots: the engine refused a scripted call: {receipt}")


def build_home(home: Path) -> str:
    """Three closed solves and one still running; returns the id of the detailed one."""
    with Engine(home=home, clock=_clock()) as engine:
        call = engine.call

        _ok(call("record_start", {"title": "Voltage divider: power in the lower resistor"}))
        _ok(call("set", {"name": "V_in", "value": {"num": 12, "dim": "volt"}}))
        _ok(call("set", {"name": "R1", "value": {"num": 4700, "dim": "ohm"}}))
        _ok(call("set", {"name": "R2", "value": {"num": 2200, "dim": "ohm"}}))
        _ok(call("eval", {"formula": "@V_in*@R2/(@R1+@R2)", "target": "V_out"}))
        _ok(call("eval", {"formula": "(@V_out)^2/@R2", "target": "P"}))
        _ok(call("record_end", {"text": "P is about 20.9 mW."}))

        _ok(call("record_start", {"title": "RC low-pass filter: cutoff and response"}))
        _ok(call("set", {"name": "R", "value": {"num": 10_000, "dim": "ohm"}}))
        _ok(call("set", {"name": "C", "value": {"num": 1e-7, "dim": "farad"}}))
        _ok(call("record_message", {"text": "The cutoff of a first-order RC low-pass."}))
        call("eval", {"formula": "1/(2*$pi*R*@C)", "target": "f_c"})
        call("eval", {"formula": "1/(2*$pi*@R*@C", "target": "f_c"})
        _ok(call("eval", {"formula": "1/(2*$pi*@R*@C)", "target": "f_c"}))
        _ok(call("get", {"name": "f_c"}))
        _ok(
            call(
                "record_message",
                {"text": "Quote the cutoff to three figures.", "hide": True},
            )
        )
        _ok(call("eval", {"formula": "$seq_{k=0}^{20}(1/$sqrt(1+(k/5)^2))", "target": "gain"}))
        _ok(call("eval", {"formula": "$sum_{k=0}^{20}(@gain[k])/21", "target": "mean_gain"}))
        _ok(call("set", {"name": "C", "value": {"num": 2.2e-7, "dim": "farad"}}))
        _ok(call("eval", {"formula": "1/(2*$pi*@R*@C)", "target": "f_c"}))
        call("record_start", {"title": "a second title"})
        _ok(call("record_end", {"text": "f_c = 159 Hz with 100 nF, 72.3 Hz with 220 nF."}))
        detail_id = engine.archive.index().closed[0].id

        _ok(call("record_start", {"title": "Projectile range on level ground"}))
        _ok(call("set", {"name": "v", "value": {"num": 25, "dim": [1, 0, -1, 0, 0, 0, 0]}}))
        _ok(call("set", {"name": "theta", "value": {"num": 0.6109, "dim": "radian"}}))
        _ok(call("set", {"name": "g", "value": {"num": 9.80665, "dim": [1, 0, -2, 0, 0, 0, 0]}}))
        _ok(call("eval", {"formula": "(@v)^2*$sin(2*@theta)/@g", "target": "range"}))
        _ok(call("record_end", {}))

        _ok(call("record_start", {"title": "Heat sink sizing for the regulator"}))
        _ok(call("set", {"name": "P_loss", "value": {"num": 3.4, "dim": "watt"}}))
        _ok(call("set", {"name": "T_max", "value": {"num": 125, "dim": "degC"}}))
        # Left open: the list pins it with the incomplete badge.
    return detail_id


def shoot(url: str, path: Path, scheme: str, width: int, height: int, ready: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(
            viewport={"width": width, "height": height},
            color_scheme=scheme,  # type: ignore[arg-type]
            locale="en-US",
            timezone_id="UTC",
            device_scale_factor=1,
        )
        page.goto(url)
        page.wait_for_selector("body[data-ready]")
        page.wait_for_function(f"() => {ready}")
        page.evaluate("document.fonts.ready")
        # Rendered in a tall window so every lazy formula and plot is drawn; shot at the
        # content's own height.
        content = page.evaluate("document.getElementById('main').getBoundingClientRect().bottom")
        page.set_viewport_size({"width": width, "height": min(height, int(content) + 24)})
        page.screenshot(path=str(path), full_page=True)
        browser.close()


def main() -> None:
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"screenshots: {CHROMIUM} is missing; install Debian's chromium")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reckoner-shots-") as tmp:
        home = Path(tmp) / "home"
        detail_id = build_home(home)
        (home / "state.json").write_text('{"schema":1,"panel":{"showAll":true}}')
        with BackgroundPanel(home) as panel:
            shoot(panel.url, OUT / "records-list.png", "light", 1000, 560, "true")
            typeset = (
                "document.querySelectorAll('.fx[data-latex]').length > 0 && "
                "document.querySelectorAll('.fx[data-latex]').length === "
                "document.querySelectorAll('.fx[data-ready]').length && "
                "document.querySelectorAll('.plot svg').length > 0"
            )
            detail = f"{panel.url}#/records/{detail_id}"
            for scheme, name in (
                ("light", "record-detail.png"),
                ("dark", "record-detail-dark.png"),
            ):
                shoot(detail, OUT / name, scheme, 1000, 2600, typeset)
    for name in ("records-list.png", "record-detail.png", "record-detail-dark.png"):
        print(f"wrote {OUT / name}", file=sys.stderr)


if __name__ == "__main__":
    main()
