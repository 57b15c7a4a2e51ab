"""The article UI in a real browser (docs/guide/panel.md; issue 10): Debian's Chromium driven by
Playwright against a real panel on loopback, over real record files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID, row, write_record
from fake_providers import FakeProvider, Reply
from panel_jobs import wait_for

from chromium import open_panel
from panel_access import http_client
from reckoner.panel.background import BackgroundPanel

WAIT_MS = 60_000


@pytest.fixture
def out(out: Path) -> Path:
    (out / "sub-a").mkdir()
    return out


def open_record(page: Any, panel: BackgroundPanel, record_id: str = HAND_ID) -> None:
    open_panel(page, f"{panel.login_url}#/records/{record_id}")
    page.wait_for_selector("#generate-markdown")


def start_model_job(page: Any, out: Path, fake: FakeProvider) -> None:
    """A Markdown job with the OpenAI writer on ``fake``, once it waits on the model (a fake
    that holds its reply: one that answers at once may pass the phase between two polls)."""
    submit_model_job(page, out, fake)
    page.wait_for_selector("#gen-phase:has-text('Writing the article')", timeout=WAIT_MS)


def submit_model_job(page: Any, out: Path, fake: FakeProvider) -> None:
    """A Markdown job with the OpenAI writer on ``fake``, submitted."""
    page.click("#generate-markdown")
    page.fill("#gen-directory", str(out))
    page.select_option("#gen-writer", "openai")
    page.fill("#gen-model", "fake-model")
    page.fill("#gen-base", fake.openai_url)
    page.fill("#gen-key", "sk-typed-for-the-fake")
    page.click("#gen-start")


def test_generate_markdown_dialog_browser_progress_result_and_preview(
    panel: BackgroundPanel, page: Any, out: Path
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    open_record(page, panel)
    page.click("#generate-markdown")
    dialog = page.locator("#generate-dialog")
    assert dialog.locator("#generate-title").inner_text() == "Generate a Markdown article"
    # The directory browser walks directories only, and fills the field.
    page.fill("#gen-directory", str(out))
    page.click("#gen-browse")
    page.wait_for_selector("#gen-browser .dir:has-text('sub-a')")
    page.click("#gen-browser .dir:has-text('sub-a')")
    page.wait_for_selector(f"#gen-use-folder[data-dir='{out / 'sub-a'}']")
    page.click("#gen-use-folder")
    assert page.input_value("#gen-directory") == str(out / "sub-a")
    page.fill("#gen-name", "heat")
    page.click("#gen-start")
    page.wait_for_selector("#gen-outcome", timeout=WAIT_MS)
    assert page.inner_text("#gen-outcome") == "The article is written."
    assert page.inner_text("#gen-path") == str(out / "sub-a" / "heat.md")
    assert (out / "sub-a" / "heat.md").is_file()
    assert page.inner_text("#gen-audit-clean") == "Every number in the article matches the record."
    # The preview is rendered: a heading, a table and mathematics typeset by KaTeX.
    preview = page.locator("#gen-preview")
    assert preview.locator("h2").first.inner_text() == "Heating a 4.7 kOhm resistor"
    assert preview.locator("table").count() == 2
    page.wait_for_selector("#gen-preview .math[data-ready] .katex")
    assert preview.locator(".math[data-failed]").count() == 0
    # The directory was remembered for the next Markdown article.
    page.click("#gen-close")
    page.click("#generate-markdown")
    assert page.input_value("#gen-directory") == str(out / "sub-a")


@pytest.mark.tex
def test_generate_latex_compiles_and_shows_the_pdf(
    panel: BackgroundPanel, page: Any, out: Path
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    open_record(page, panel)
    page.click("#generate-latex")
    page.fill("#gen-directory", str(out))
    page.select_option("#gen-language", "zh-CN")
    page.check("#gen-compile")
    page.click("#gen-start")
    page.wait_for_selector("#gen-outcome", timeout=WAIT_MS)
    assert page.inner_text("#gen-pdf") == str(out / "reckoner-17000000" / "reckoner-17000000.pdf")
    assert page.locator("#gen-compile-error").count() == 0


def test_the_open_record_has_its_buttons_disabled(
    home: Path, panel: BackgroundPanel, page: Any
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    write_record(
        home, "1800000000000", [row(1, "record_start", {"title": "t", "record": "1800000000000"})],
        open_=True,
    )  # fmt: skip
    open_record(page, panel, "1800000000000")
    assert page.locator("#generate-markdown").is_disabled()
    assert page.locator("#generate-latex").is_disabled()


@pytest.fixture
def model_taking(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[float], FakeProvider]]:
    """OpenAI fakes that take the given seconds to answer; the panel has the key."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-browser-test")
    made: list[FakeProvider] = []

    def make(delay: float) -> FakeProvider:
        made.append(FakeProvider([Reply("# Heating\n\nThe probe gives 12 V.\n", delay=delay)]))
        return made[-1]

    yield make
    for fake in made:
        fake.close()


def test_progress_bar_and_cancel_while_the_model_writes(
    panel: BackgroundPanel, page: Any, out: Path, model_taking: Callable[[float], FakeProvider]
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    open_record(page, panel)
    start_model_job(page, out, model_taking(30))
    assert page.get_attribute("#gen-progress", "value") == "10"
    page.click("#gen-cancel")
    page.wait_for_selector("#gen-outcome", timeout=WAIT_MS)
    assert page.inner_text("#gen-outcome") == "The job was cancelled; nothing was written."
    assert sorted(p.name for p in out.iterdir()) == ["sub-a"]


@pytest.mark.parametrize("closing", ["Escape", "#gen-x"])
def test_closing_the_dialog_while_the_model_writes_cancels_the_job_and_writes_nothing(
    panel: BackgroundPanel,
    page: Any,
    out: Path,
    model_taking: Callable[[float], FakeProvider],
    closing: str,
) -> None:
    """Escape and the dialog's × take one path (docs/decisions/panel-articles.md).
    Spec: docs/guide/articles.md (issue 23)."""
    open_record(page, panel)
    start_model_job(page, out, model_taking(30))
    job_id = page.get_attribute("#generate-dialog", "data-job")
    if closing == "Escape":
        page.keyboard.press("Escape")
    else:
        page.click(closing)
    page.wait_for_selector("#generate-dialog", state="hidden")
    with http_client(panel, timeout=30) as http:
        ended = wait_for(http, job_id)
    assert ended["status"] == "cancelled", ended
    page.wait_for_selector(
        "#status:has-text('The dialog was closed, so its job was cancelled')", timeout=WAIT_MS
    )
    assert sorted(p.name for p in out.iterdir()) == ["sub-a"]
    # It did not wait for the model's 30 s reply to learn that.
    assert ended["percent"] < 70


def close_losing_the_cancel(
    page: Any, panel: BackgroundPanel, out: Path, fake: FakeProvider
) -> None:
    """Start a model job and close its dialog; the cancel never reaches the server (the
    route drops it), so the job writes its file after the dialog closed."""
    open_record(page, panel)
    start_model_job(page, out, fake)
    page.route("**/generate-cancel", lambda route: route.abort())
    page.keyboard.press("Escape")


def test_a_job_the_closing_cancel_came_too_late_for_is_shown_again_not_left_unseen(
    panel: BackgroundPanel, page: Any, out: Path, model_taking: Callable[[float], FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    close_losing_the_cancel(page, panel, out, model_taking(2))
    page.wait_for_selector("#generate-dialog[open] #gen-path", timeout=WAIT_MS)
    assert page.inner_text("#gen-note") == (
        "The job finished before the dialog closed, so here is its result."
    )
    assert [str(p) for p in out.glob("*.md")] == [page.inner_text("#gen-path")]


def test_a_late_job_of_a_reopened_dialog_is_named_without_taking_the_form(
    panel: BackgroundPanel, page: Any, out: Path, model_taking: Callable[[float], FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    close_losing_the_cancel(page, panel, out, model_taking(2))
    page.click("#generate-latex")  # another dialog, open before the first job ends
    page.wait_for_selector("#status:has-text('finished before its cancel')", timeout=WAIT_MS)
    [written] = out.glob("*.md")
    assert str(written) in page.inner_text("#status")
    assert page.locator("#generate-dialog[open] #gen-form").count() == 1
    assert page.inner_text("#generate-title") == "Generate a LaTeX article"


def test_a_failed_job_shows_its_sentence_and_an_invented_number_its_warning(
    panel: BackgroundPanel, page: Any, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    fake = FakeProvider([Reply("# Heat\n\nThe answer is 42.5 W.\n")])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-browser-test")
    try:
        open_record(page, panel)
        page.click("#generate-markdown")
        page.fill("#gen-directory", str(out / "missing"))
        page.click("#gen-start")
        page.wait_for_selector("#gen-error", timeout=WAIT_MS)
        assert "does not exist" in page.inner_text("#gen-error")
        page.click("#gen-close")
        page.click("#generate-markdown")
        page.fill("#gen-directory", str(out))
        page.select_option("#gen-writer", "anthropic")
        page.fill("#gen-base", fake.anthropic_url)
        page.fill("#gen-key", "sk-typed-for-the-fake")
        page.click("#gen-start")
        page.wait_for_selector("#gen-warnings", timeout=WAIT_MS)
        assert "'42.5' matches no number in the record" in page.inner_text("#gen-warnings")
    finally:
        fake.close()


def test_settings_generation_block_saves_each_format_on_its_own(
    home: Path, panel: BackgroundPanel, page: Any, out: Path
) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    import json

    page.goto(f"{panel.login_url}#/settings")
    page.wait_for_selector("#gen-tex-block")
    page.fill("#gen-tex-directory", str(out))
    page.check("#gen-tex-compile")
    page.click("#gen-tex-save")
    page.wait_for_selector("#gen-tex-line[data-kind='ok']")
    stored = json.loads((home / "state.json").read_text())["generation"]
    assert stored == {"latex": {"directory": str(out), "language": "auto", "compile": True}}
    page.select_option("#gen-set-writer", "openai")
    assert page.locator("#gen-set-provider").is_visible()
    page.fill("#gen-set-model", "gpt-test")
    page.click("#gen-writer-save")
    page.wait_for_selector("#gen-writer-line[data-kind='ok']")
    stored = json.loads((home / "state.json").read_text())["generation"]
    assert stored["writer"] == {"kind": "openai", "model": "gpt-test"}
    assert stored["latex"]["directory"] == str(out)
    page.fill("#gen-md-directory", "relative/path")
    page.click("#gen-md-save")
    page.wait_for_selector("#gen-md-line[data-kind='ok']")


@pytest.mark.tex
def test_a_compile_failure_shows_its_sentence_and_the_log_tail(
    panel: BackgroundPanel, page: Any, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body that passes the allow-list but not TeX (a list with no item): the .tex is kept,
    the log's tail is shown. An unknown command would not do: the allow-list refuses it.
    Spec: docs/guide/panel.md (the Records tab)."""
    body = "\\section*{Heat}\nThe current is $0.0025$ A.\n\\begin{itemize}No item.\\end{itemize}\n"
    fake = FakeProvider([Reply(body)])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-browser-test")
    try:
        open_record(page, panel)
        page.click("#generate-latex")
        page.fill("#gen-directory", str(out))
        page.check("#gen-compile")
        page.select_option("#gen-writer", "openai")
        page.fill("#gen-base", fake.openai_url)
        page.fill("#gen-key", "sk-typed-for-the-fake")
        page.click("#gen-start")
        page.wait_for_selector("#gen-compile-error", timeout=WAIT_MS)
        assert "the .tex is kept" in page.inner_text("#gen-compile-error")
        assert "missing \\item" in page.inner_text("#gen-log")
        tex = out / "reckoner-17000000" / "reckoner-17000000.tex"
        assert page.inner_text("#gen-path") == str(tex) and tex.is_file()
        assert page.locator("#gen-pdf").count() == 0
    finally:
        fake.close()


def test_i18n_the_article_ui_speaks_simplified_chinese(
    panel: BackgroundPanel, browser: Any, out: Path
) -> None:
    context = browser.new_context(locale="zh-CN", viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    try:
        open_record(page, panel)
        assert page.inner_text("#generate-markdown") == "生成 Markdown"
        page.click("#generate-markdown")
        assert page.inner_text("#generate-title") == "生成 Markdown 文章"
        page.fill("#gen-directory", str(out))
        page.click("#gen-start")
        page.wait_for_selector("#gen-outcome")
        assert page.inner_text("#gen-outcome") == "文章已写好。"
        assert page.inner_text("#gen-audit-clean") == "文章中的每个数字都与记录一致。"
    finally:
        context.close()
