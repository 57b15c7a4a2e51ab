"""The article dialog's preview in a real browser (issue 23) (closing the dialog while its
job runs: test_browser_articles.py): a LaTeX job shows its first PDF page
as an image, or its source when it was not compiled. Debian's Chromium via Playwright
against a real panel on loopback, the model writer against the loopback fake provider."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID

from chromium import open_panel
from reckoner.panel.background import BackgroundPanel

WAIT_MS = 60_000


def open_dialog(page: Any, panel: BackgroundPanel, format_name: str, out: Path) -> None:
    open_panel(page, f"{panel.login_url}#/records/{HAND_ID}")
    page.click(f"#generate-{format_name}")
    page.fill("#gen-directory", str(out))


def start_latex(page: Any, panel: BackgroundPanel, out: Path, *, compile_pdf: bool) -> None:
    open_dialog(page, panel, "latex", out)
    page.set_checked("#gen-compile", compile_pdf)
    page.click("#gen-start")


@pytest.mark.tex
def test_a_compiled_latex_job_shows_the_pdfs_first_page_as_an_image(
    panel: BackgroundPanel, page: Any, out: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    start_latex(page, panel, out, compile_pdf=True)
    page.wait_for_selector("#gen-preview-image", timeout=WAIT_MS)
    deadline = time.monotonic() + 60
    while not page.eval_on_selector("#gen-preview-image", "img => img.complete"):
        assert time.monotonic() < deadline, "the preview image never loaded"
        time.sleep(0.1)
    assert page.eval_on_selector("#gen-preview-image", "img => img.naturalWidth") > 0
    assert page.locator("#gen-preview-error").is_hidden()
    assert (out / "reckoner-17000000" / "reckoner-17000000.preview.png").is_file()


def test_a_latex_job_without_compile_shows_its_source(
    panel: BackgroundPanel, page: Any, out: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    start_latex(page, panel, out, compile_pdf=False)
    page.wait_for_selector("#gen-source", timeout=WAIT_MS)
    source = (out / "reckoner-17000000" / "reckoner-17000000.tex").read_text(encoding="utf-8")
    assert page.inner_text("#gen-source").strip() == source.strip()
    assert page.locator("#gen-preview-image").count() == 0


@pytest.mark.tex
def test_a_preview_that_cannot_be_drawn_shows_the_endpoints_sentence(
    panel: BackgroundPanel, page: Any, out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    broken = tmp_path / "bin"
    broken.mkdir()
    (broken / "pdftoppm").write_text("#!/bin/sh\necho 'Syntax Error: broken' >&2\nexit 1\n")
    (broken / "pdftoppm").chmod(0o755)
    # Only pdftoppm is shadowed: XeLaTeX still compiles, the drawing fails.
    monkeypatch.setenv("PATH", f"{broken}{os.pathsep}{os.environ['PATH']}")
    start_latex(page, panel, out, compile_pdf=True)
    page.wait_for_selector("#gen-preview-error:not([hidden])", timeout=WAIT_MS)
    line = page.inner_text("#gen-preview-error")
    assert line.startswith("The PDF's first page could not be drawn: pdftoppm could not draw")
    assert "Syntax Error: broken" in line
    assert page.locator("#gen-preview-image").count() == 0
