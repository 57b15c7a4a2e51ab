"""Issue 23: the article dialog's Markdown preview draws the article's figures, and draws
them safely: an <svg> block is shown as an image of its bytes, so nothing in it can run.
Debian's Chromium driven by Playwright against a real panel on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_providers import FakeProvider, Reply
from test_browser_articles import WAIT_MS, open_record, submit_model_job
from test_figures import SWEEP_CALLS
from test_template_and_audit import engine_record

from chromium import wait_until_true
from reckoner.panel.background import BackgroundPanel

HOSTILE = (
    "# Heat\n\nThe probe gives 12 V.\n\n"
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9" onload="window.__pwned = 1">\n'
    "<script>window.__pwned = 2</script>\n"
    '<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" '
    'onerror="window.__pwned = 3"/></foreignObject>\n'
    '<rect width="9" height="9" fill="red"/>\n'
    "</svg>\n\n"
    'Inline, it is text: <svg onload="window.__pwned = 4"></svg> '
    '<img src=x onerror="window.__pwned = 5">\n'
)


def _images(page: Any) -> list[dict[str, Any]]:
    """Each preview image once loaded: its source scheme and natural width."""
    wait_until_true(
        page, "[...document.querySelectorAll('#gen-preview img')].every(i => i.complete)", WAIT_MS
    )
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        "#gen-preview img",
        "imgs => imgs.map(i => ({src: i.src.split(',')[0], width: i.naturalWidth, alt: i.alt}))",
    )


def test_the_preview_draws_a_seq_sweeps_figure_as_an_image(
    tmp_path: Path, page: Any, out: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    home = tmp_path / "sweep-home"
    record_id, _ = engine_record(home, SWEEP_CALLS)
    with BackgroundPanel(home, poll_ms=300) as panel:
        open_record(page, panel, record_id)
        page.click("#generate-markdown")
        page.fill("#gen-directory", str(out))
        page.click("#gen-start")
        page.wait_for_selector("#gen-preview", timeout=WAIT_MS)
        images = _images(page)
        # T against L, q against k (the sweep of $seq): as many figures as the file holds.
        written = next(out.glob("*.md")).read_text("utf-8")
        assert len(images) == written.count("<svg ") == 2
        for image in images:
            assert image["src"] == "data:image/svg+xml;base64"
            assert image["width"] > 0
        assert "q" in images[1]["alt"] and "k" in images[1]["alt"]
        # Drawn, not shown as source, and never inserted as markup (KaTeX draws its own
        # radicals as SVG; those are the only ones).
        assert page.locator("#gen-preview svg:not(.katex svg)").count() == 0
        assert "<svg" not in page.inner_text("#gen-preview")


def test_a_hostile_svg_in_an_article_runs_nothing_in_the_preview(
    panel: BackgroundPanel, page: Any, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-browser-test")
    fake = FakeProvider([Reply(HOSTILE)])
    try:
        open_record(page, panel)
        page.evaluate("window.__pwned = 0")
        # The fake answers at once: wait for the preview, not for a phase it may skip past.
        submit_model_job(page, out, fake)
        page.wait_for_selector("#gen-preview", timeout=WAIT_MS)
        images = _images(page)
        assert [image["src"] for image in images] == ["data:image/svg+xml;base64"]
        assert images[0]["width"] > 0  # drawn, as an image, with its script inert
        page.wait_for_timeout(500)  # time for an onload or onerror that should never run
        assert page.evaluate("window.__pwned") == 0
        preview = page.locator("#gen-preview")
        assert preview.locator("svg, script, foreignObject, [onload], [onerror]").count() == 0
        assert '<svg onload="window.__pwned = 4"></svg>' in preview.inner_text()
    finally:
        fake.close()
