"""Issue 23: a figure for every real-valued sweep, numbered equations, breakable URLs."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID, METRE, row
from hypothesis import given
from hypothesis import strategies as st
from test_template_and_audit import engine_record

from reckoner.articles.audit import audit
from reckoner.articles.compiler import compile_pdf
from reckoner.articles.facts import collect_facts
from reckoner.articles.figures import MAX_POINTS, Axis, Figure, pgfplots, svg
from reckoner.articles.latex import BodyRefusal, check_body, shell
from reckoner.articles.markup import markup_for
from reckoner.articles.writers.template import render

SVG = "{http://www.w3.org/2000/svg}"

SWEEP_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("record_start", {"title": "Pendulum periods"}),
    ("set", {"name": "g", "value": {"num": 9.81, "unit": "m/s^2"}}),
    ("set", {"name": "L", "value": {"array": [0.25, 0.5, 1, 2], "dim": "metre"}}),
    ("eval", {"formula": "2*$pi*$sqrt(@L/@g)", "target": "T"}),
    ("eval", {"formula": "$seq_{k=1}^{30}(k^2*1)", "target": "q"}),
    ("eval", {"formula": "$seq_{k=0}^{3}(k + 1j)", "target": "z"}),
    ("record_end", {"text": "The period grows as the square root of the length."}),
]


@pytest.fixture(scope="module")
def sweep_facts(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return engine_record(tmp_path_factory.mktemp("home"), SWEEP_CALLS)[1]


def svgs(body: str) -> list[ET.Element]:
    return [ET.fromstring(block) for block in re.findall(r"^<svg .*?^</svg>$", body, re.S | re.M)]


def texts(element: ET.Element) -> list[str]:
    return [node.text or "" for node in element.iter(f"{SVG}text")]


def points(element: ET.Element) -> int:
    line = element.find(f"{SVG}polyline")
    assert line is not None
    return len(line.attrib["points"].split())


def test_a_seq_sweep_and_an_indexed_array_get_svg_figures_with_units(sweep_facts: Any) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    body = render(sweep_facts, "en", "md")
    figures = svgs(body)
    assert len(figures) == 2  # T against L, q against k; the complex z gets none
    period, squares = figures
    assert period.attrib["viewBox"] == "0 0 480 300"
    assert "L / m" in texts(period) and "T / s" in texts(period)
    assert points(period) == 4
    assert "k" in texts(squares) and "q" in texts(squares)
    assert points(squares) == 30
    for figure in figures:
        assert not any(node.tag.endswith("script") for node in figure.iter())
        assert not any(name.startswith("on") for node in figure.iter() for name in node.attrib)
    assert audit(body, sweep_facts) == []
    assert render(sweep_facts, "en", "md") == body  # the same facts, the same bytes


def test_a_figure_the_record_does_not_draw_is_audited_like_any_text(sweep_facts: Any) -> None:
    """Only the figures drawn from the record's sweeps are read as pictures: an SVG or a
    plot a model wrote itself, with a number of its own, is flagged.
    Spec: docs/guide/articles.md (issue 23)."""
    svg_body = render(sweep_facts, "en", "md") + (
        '\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9">\n<text>98765</text>\n</svg>\n'
    )
    flagged = [found.text for found in audit(svg_body, sweep_facts)]
    assert "98765" in flagged
    tex_body = render(sweep_facts, "en", "tex").replace("(1, 1)", "(1, 98765)")
    assert "98765" in [found.text for found in audit(tex_body, sweep_facts)]


def test_a_complex_or_a_non_sweep_array_gets_no_figure(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    rows = [
        row(1, "record_start", {"title": "No sweeps"}),
        row(2, "set", {"name": "w", "value": {"array": [1, 2, 3], "dim": METRE}}),
        row(
            3,
            "eval",
            {
                "formula": "@w[0]",
                "target": "one",
                "vars": {},
                "result": {"array": [5], "dim": METRE},
            },
        ),
        row(
            4,
            "eval",
            {
                "formula": "@w",
                "target": "nested",
                "vars": {},
                "result": {"array": [[1, 2], [3, 4]], "dim": METRE},
            },
        ),
        row(
            5,
            "eval",
            {
                "formula": "@w * 1j",
                "target": "c",
                "vars": {},
                "result": {"array": [{"re": 0, "im": 1}, {"re": 0, "im": 2}], "dim": METRE},
            },
        ),
        row(6, "record_end", {"text": "done"}),
    ]
    facts = collect_facts(HAND_ID, rows, is_open=False)
    for fmt in ("md", "tex"):
        body = render(facts, "en", fmt)
        assert "<svg" not in body and "addplot" not in body


def test_a_long_sweep_is_thinned_to_a_bounded_figure(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("record_start", {"title": "Long sweep"}),
        ("eval", {"formula": "$seq_{k=0}^{99999}($sin(k/1000))", "target": "s"}),
        ("record_end", {"text": "done"}),
    ]
    facts = engine_record(tmp_path / "home", calls)[1]
    (figure,) = svgs(render(facts, "en", "md"))
    assert points(figure) == MAX_POINTS
    assert render(facts, "en", "tex").count(") (") == MAX_POINTS - 1  # points, not pairs


HOSTILE = Figure(
    x=Axis('</svg><script>alert(1)</script>"&', (0, 0, 0, 0, 0, 0, 0), (0.0, 1.0)),
    y=Axis("%}\\input{/etc/passwd}$#_^~", (1, 0, 0, 0, 0, 0, 0), (1.0, 2.0)),
)


def test_a_hostile_label_is_escaped_in_svg_and_tex() -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    drawn = ET.fromstring(svg(HOSTILE, "en"))
    assert not any(node.tag.endswith("script") for node in drawn.iter())
    assert '</svg><script>alert(1)</script>"&' in texts(drawn)
    tex = pgfplots(HOSTILE, "en", markup_for("tex"))
    assert "\\input" not in tex.replace("\\textbackslash{}input", "")
    check_body(tex)  # passes the allow-list: nothing in a label is live TeX
    controls = Figure(x=Axis("a\x1b\ufffeb", HOSTILE.x.dim, (0.0, 1.0)), y=HOSTILE.y)
    assert "ab" in texts(ET.fromstring(svg(controls, "en")))  # still well-formed XML


@pytest.mark.parametrize(
    "body",
    [
        "\\begin{tikzpicture}\\begin{axis}\\addplot table {/etc/passwd};"
        "\\end{axis}\\end{tikzpicture}",
        "\\begin{tikzpicture}\\begin{axis}\\addplot gnuplot {x};\\end{axis}\\end{tikzpicture}",
        "\\begin{tikzpicture}\\begin{axis}[every axis/.code={x}]\\end{axis}\\end{tikzpicture}",
        "\\begin{tikzpicture}\\begin{axis}[xticklabels from table={/etc/passwd}{0}]"
        "\\end{axis}\\end{tikzpicture}",
        "\\begin{tikzpicture}[execute at begin picture={x}]\\end{tikzpicture}",
        "\\begin{tikzpicture}\\begin{axis}\\addplot[/.code={x}] coordinates {(0,1)};"
        "\\end{axis}\\end{tikzpicture}",
    ],
)
def test_a_plot_that_reads_a_file_or_runs_code_is_refused(body: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    with pytest.raises(BodyRefusal, match="LaTeX body"):
        check_body(body)


def pdf_text(pdf: Path) -> str:
    done = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def compiled(body: str, language: str, folder: Path) -> str:
    check_body(body)
    tex = folder / "article.tex"
    tex.write_text(shell(body, language), encoding="utf-8")
    outcome = compile_pdf(tex, lambda: False)
    assert outcome.ok, outcome.log_tail
    return pdf_text(folder / "article.pdf")


@pytest.mark.tex
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_latex_article_draws_a_pgfplots_figure_with_unit_labels_and_numbers_equations(
    sweep_facts: Any, tmp_path: Path, language: str
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    body = render(sweep_facts, language, "tex")
    assert body.count("\\addplot") == 2
    assert audit(body, sweep_facts) == []
    text = compiled(body, language, tmp_path)
    assert re.search(r"L\s*/\s*m\b", text) and re.search(r"T\s*/\s*s\b", text)
    assert "(1)" in text and "(2)" in text and "(3)" in text  # one per step's display


@pytest.mark.tex
def test_a_long_url_in_a_lookup_source_breaks_inside_the_margin(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    url = "https://example.org/" + "/".join(f"segment{n:02d}-of-a-very-long-path" for n in range(8))
    rows = [
        row(1, "record_start", {"title": "A long source"}),
        row(
            2,
            "search",
            {
                "question": "What is the answer?",
                "outcome": "answered",
                "synthesis": {"answer": "Forty-two.", "used": [0]},
                "used": [{"title": "A page", "url": url}],
            },
        ),
        row(3, "record_end", {"text": "done"}),
    ]
    facts = collect_facts(HAND_ID, rows, is_open=False)
    body = render(facts, "en", "tex")
    assert "segment07" in body
    text = compiled(body, "en", tmp_path)
    lines = [line for line in text.splitlines() if "segment" in line]
    assert len(lines) > 1  # the address is split across lines
    assert max(len(line) for line in text.splitlines()) <= 110  # and stays within the page


@given(
    st.lists(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e308, max_value=1e308),
        min_size=2,
        max_size=60,
    ),
    st.sampled_from(["en", "zh-CN"]),
)
def test_any_sweep_draws_a_well_formed_bounded_svg(ys: list[float], language: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    figure = Figure(
        x=Axis(None, (0, 0, 0, 0, 0, 0, 0), tuple(float(i) for i in range(len(ys)))),
        y=Axis("y", (1, 0, 0, 0, 0, 0, 0), tuple(ys)),
    )
    drawn = ET.fromstring(svg(figure, language))
    assert points(drawn) == len(ys)
    for line in drawn.iter(f"{SVG}polyline"):
        for pair in line.attrib["points"].split():
            x, y = (float(part) for part in pair.split(","))
            assert 0 <= x <= 480 and 0 <= y <= 300
    assert 1 <= len(texts(drawn)) <= 40  # ticks stay few whatever the range
