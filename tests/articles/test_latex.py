"""The LaTeX format (docs/guide/articles.md, issue 10): body checks, the XeLaTeX shell, real
PDFs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from article_helpers import HAND_ID, hand_rows

from reckoner.articles.compiler import capability, compile_pdf
from reckoner.articles.fact_model import Facts
from reckoner.articles.facts import collect_facts
from reckoner.articles.latex import BodyRefusal, check_body, shell
from reckoner.articles.writers.template import render


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("\\documentclass{article}\nhi", "\\\\documentclass"),
        ("\\begin{document}hi", "document environment"),
        ("hi\\end{document}", "document environment"),
        ("\\usepackage{hyperref}", "\\\\usepackage"),
        ("\\input{/etc/passwd}", "\\\\input"),
        ("\\include{chapter}", "\\\\include"),
        ("\\immediate\\write18{rm -rf ~}", "\\\\immediate"),
        ("\\write18{ls}", "\\\\write"),
        ("\\openout1=x.tex", "\\\\openout"),
        ("\\catcode`\\^^5c=0", "\\^\\^"),
        ("\\def\\x{1}", "\\\\def"),
        ("$x$ and {unclosed", "brace"),
        ("closed} too early", "never opened"),
        ("$a$ and $b", "odd number"),
    ],
)
def test_a_body_that_restructures_or_reaches_out_is_refused(body: str, reason: str) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    with pytest.raises(BodyRefusal, match=reason) as refusal:
        check_body(body)
    assert str(refusal.value).count(". ") == 0  # one sentence


@pytest.mark.parametrize(
    "body",
    [
        "a literal \\$5 and \\{braces\\} and 50\\% % a comment with $ and {",
        "$$x^2$$ and \\[ y \\] and \\textbf{bold}",
    ],
)
def test_escaped_signs_and_comments_do_not_count(body: str) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    check_body(body)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_template_body_passes_the_checks(language: str) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    check_body(render(collect_facts(HAND_ID, hand_rows(), is_open=False), language, "tex"))


def test_the_shell_is_ctexart_for_zh_and_article_with_fontspec_for_en() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    english = shell("BODY", "en")
    assert english.startswith("\\documentclass[11pt,a4paper]{article}\n\\usepackage{fontspec}")
    chinese = shell("BODY", "zh-CN")
    assert chinese.startswith("\\documentclass[11pt,a4paper]{ctexart}")
    assert "fontspec" not in chinese  # ctex loads it through xeCJK
    for whole in (english, chinese):
        assert "\\begin{document}\nBODY\n\\end{document}\n" in whole


def pdf_text(pdf: Path) -> str:
    done = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def article_pdf_text(facts: Facts, language: str, folder: Path, stem: str = "article") -> str:
    """The template's LaTeX article of ``facts`` in its shell, compiled for real; its text."""
    tex = folder / f"{stem}.tex"
    tex.write_text(shell(render(facts, language, "tex"), language), encoding="utf-8")
    outcome = compile_pdf(tex, lambda: False)
    assert outcome.ok, outcome.log_tail
    return pdf_text(folder / f"{stem}.pdf")


@pytest.mark.tex
def test_capability_finds_the_toolchain_and_both_shells() -> None:
    """.ci/run installs latexmk, XeLaTeX and ctex; the probe must see them.
    Spec: docs/guide/articles.md (article generation)."""
    found = capability()
    assert found["latexmk"] and found["xelatex"] and found["ctex"] and found["fontspec"]
    assert found["shells"] == {"en": True, "zh-CN": True}


@pytest.mark.tex
@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["Heating a 4.7 kOhm resistor", "Given", "4712", "Ω"]),
        ("zh-CN", ["已知条件", "代入"]),
    ],
)
def test_a_real_pdf_compiles_and_carries_the_articles_text(
    tmp_path: Path, language: str, expected: list[str]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    tex = tmp_path / "article.tex"
    tex.write_text(shell(render(facts, language, "tex"), language), encoding="utf-8")
    outcome = compile_pdf(tex, lambda: False)
    assert outcome.ok, outcome.log_tail
    assert outcome.driver == "latexmk"
    text = pdf_text(tmp_path / "article.pdf")
    for piece in expected:
        assert piece in text


@pytest.mark.tex
def test_a_compile_failure_reports_the_log_tail_and_keeps_the_tex(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    tex = tmp_path / "broken.tex"
    tex.write_text(shell("\\undefinedcommandhere", "en"), encoding="utf-8")
    outcome = compile_pdf(tex, lambda: False)
    assert not outcome.ok and tex.is_file()
    assert "the .tex is kept" in outcome.sentence
    assert "undefinedcommandhere" in outcome.log_tail


@pytest.mark.tex
def test_plain_xelatex_is_the_fallback_without_latexmk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    from reckoner.articles import compiler

    real_which = compiler.processes.which
    monkeypatch.setattr(
        compiler.processes, "which", lambda name: None if name == "latexmk" else real_which(name)
    )
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    tex = tmp_path / "fallback.tex"
    tex.write_text(shell(render(facts, "en", "tex"), "en"), encoding="utf-8")
    outcome = compile_pdf(tex, lambda: False)
    assert outcome.ok and outcome.driver == "xelatex", outcome.log_tail
    assert "4712" in pdf_text(tmp_path / "fallback.pdf")


@pytest.mark.tex
def test_a_message_whose_lines_start_blank_or_with_a_bracket_still_compiles(
    tmp_path: Path,
) -> None:
    """docs/guide/articles.md (the record's words reach the article as written): a line break before
    a
    line starting with [ is not read as \\\\'s optional argument, and an empty first line is
    still a line to end.
    Spec: docs/guide/articles.md (article generation)."""
    from article_helpers import row

    rows = [
        row(1, "record_start", {"title": "Brackets", "record": HAND_ID}),
        row(2, "record_message", {"text": "\nfirst line after a blank one\n[1] an index\n*star"}),
        row(3, "record_end", {"text": "[2] closing\n[3] words", "record": HAND_ID}),
    ]
    facts = collect_facts(HAND_ID, rows, is_open=False)
    check_body(render(facts, "en", "tex"))
    text = article_pdf_text(facts, "en", tmp_path)
    for piece in ("first line after a blank one", "[1] an index", "*star", "[3] words"):
        assert piece in text
