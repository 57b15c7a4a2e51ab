"""Issue 12 in the panel: a compute run of the open record shows as a compute card.

A real engine appends the row through a real compute run (this interpreter's Python); the
panel's real server shows the card in Debian's Chromium, and its link opens the receipt.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import httpx
from test_browser import WAIT_MS

from chromium import open_panel
from reckoner.compute.context import ComputeOptions
from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise
from reckoner.panel.background import BackgroundPanel

# The first card waits for a page load on a loaded machine, not for a poll: more room.
FIRST_CARD_MS = 3 * WAIT_MS

SCRIPT = (
    "# the determinant of a 2x2 matrix\n"
    "import numpy as np\n"
    "a = np.array([[1.0, 2.0], [3.0, 4.0]])\n"
    "print('det =', round(float(np.linalg.det(a)), 9))\n"
)

# This interpreter's Python first: no version-manager shim between the test and the engine.
SEARCH_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    return project


def test_compute_card_shows_the_run_and_links_its_receipt(
    home: Path,
    panel: BackgroundPanel,
    page: Any,
    tmp_path: Path,
) -> None:
    """Issue 12: engine, version, exit, duration, highlighted script, stdout, receipt link."""
    from reckoner import Engine  # type: ignore[attr-defined]

    project = _project(tmp_path)
    with Engine(home=home) as engine:
        engine.call("record_start", {"title": "A determinant"})
        service = ComputeService(
            project,
            normalise({}),
            ComputeOptions(
                row_sink=lambda ok, content: engine.append_preset_row("compute", ok, content),
                search_path=SEARCH_PATH,
            ),
        )
        run = service.call({"op": "run", "engine": "python", "code": SCRIPT})
        assert run["ok"] is True
        failed = service.call({"op": "run", "engine": "python", "code": "raise SystemExit(2)"})
        assert failed["code"] == "MATH_NONZERO_EXIT"
        open_panel(page, f"{panel.login_url}#/records/{engine.open_record_id}")
        page.wait_for_selector(".card.compute", timeout=FIRST_CARD_MS)

        card = page.locator(".card.compute").first
        facts = card.locator(".compute-facts").inner_text()
        assert "python" in facts and run["engineInfo"]["version"] in facts
        # The receipt rounds to a tenth (249.0 in JSON); the page prints it as a JavaScript
        # number does, without a trailing .0, so a whole tenth reads "249 ms".
        duration = run["durationMs"]
        shown = str(int(duration)) if duration == int(duration) else str(duration)
        assert f"{shown} ms" in facts
        assert card.locator(".compute-facts dd").nth(1).inner_text() == "0"
        script = card.locator("pre.script")
        assert script.inner_text() == SCRIPT.rstrip("\n") or script.inner_text() == SCRIPT
        assert script.locator(".tok-com").first.inner_text() == (
            "# the determinant of a 2x2 matrix"
        )
        assert "import" in script.locator(".tok-kw").all_inner_texts()
        assert "'det ='" in script.locator(".tok-str").all_inner_texts()
        assert "1.0" in script.locator(".tok-num").all_inner_texts()
        assert card.locator("pre.stdout").inner_text() == "det = -2.0"
        assert run["receipt"] in card.locator(".receipt-line").inner_text()

        # A failed run is a refusal: shown, with its receipt, once Display all is on.
        assert page.locator(".card.compute").count() == 1
        page.locator("#show-all").check()
        second = page.locator(".card.compute").nth(1)
        assert "failed-run" in (second.get_attribute("class") or "")
        assert "MATH_NONZERO_EXIT" in second.inner_text()

        href = card.locator("a.receipt-link").get_attribute("href")
        assert href
        answer = httpx.get(f"{panel.url.rstrip('/')}{href}", headers=panel.headers)
        assert answer.status_code == 200
        assert run["scriptHash"] in answer.text and answer.text.startswith("# Compute receipt")
        with page.expect_popup() as popup_info:
            card.locator("a.receipt-link").click()
        popup = popup_info.value
        popup.wait_for_load_state()
        assert run["scriptHash"] in popup.content()
        popup.close()


def test_the_receipt_link_reads_only_receipts(
    home: Path,
    panel: BackgroundPanel,
    tmp_path: Path,
) -> None:
    """Issue 12 (hostile request): a hand-edited row cannot make the panel read another file."""
    from panel_records import RowBuilder, write_closed

    secret = tmp_path / "secret" / "receipt.json"
    secret.parent.mkdir()
    secret.write_text('{"key": "secret"}')
    fake_run = tmp_path / "Computation" / "not a run id!" / "receipt.json"
    fake_run.parent.mkdir(parents=True)
    fake_run.write_text("{}")
    builder = RowBuilder("1700000000000", "hostile", 1_700_000_000_000)
    for path in ("/etc/passwd", str(secret), str(fake_run), 5):
        builder.add("compute", {"runId": "x", "receiptAbs": path})
    builder.add("set", {"name": "x", "value": {"num": 1}})
    write_closed(home, builder)
    base = panel.url.rstrip("/")
    for seq in (2, 3, 4, 5, 6, 99):
        answer = httpx.get(
            f"{base}/api/reckoner/compute-receipt/1700000000000/{seq}", headers=panel.headers
        )
        assert answer.status_code == 404, seq
        assert "secret" not in answer.text and "root:" not in answer.text
    climbing = httpx.get(f"{base}/api/reckoner/compute-receipt/..%2Fx/2", headers=panel.headers)
    assert climbing.status_code in (400, 404)


def test_a_run_over_mcp_appears_in_the_panel(
    home: Path,
    panel: BackgroundPanel,
    page: Any,
    tmp_path: Path,
) -> None:
    """Issue 12 (tests): a real MCP client runs compute with a record open; the panel shows it."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    project = _project(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "reckoner",
            "serve",
            "--home",
            str(home),
            "--preset",
            "reckoner-with-compute",
            "--project",
            str(project),
        ],
        env={**os.environ, "PATH": SEARCH_PATH},
    )

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            await client.call_tool("record_start", {"title": "Over MCP"})
            result = await client.call_tool(
                "compute", {"op": "run", "engine": "python", "code": "print(7 * 6)"}
            )
            run = result.structured_content
            assert isinstance(run, dict) and run["ok"] is True
            return run

    # Playwright's sync API holds this thread's event loop: the client gets a thread of its own.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(anyio.run, main).result(timeout=120)
    open_panel(page, panel.login_url)
    page.locator(".open-record .record-link").click()
    page.wait_for_selector(".card.compute", timeout=FIRST_CARD_MS)
    card = page.locator(".card.compute")
    assert card.locator("pre.stdout").inner_text() == "42"
    assert run["receipt"] in card.inner_text()
