"""Compute runs in articles (issue 12 "Into the record": the article cites the receipt): an
archived `compute` row is its own entry in seq order with its engine and version, run id and
attempt, how it ended, its output verbatim and its receipt as the citation; a run that failed
(nonzero exit, time limit, not started) is shown as a failure, never as a result; a run
refused before the archive carries nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID, OHM, row
from test_cli_article import reckoner
from test_latex import article_pdf_text, pdf_text

from reckoner.articles.audit import audit
from reckoner.articles.citation import receipt_id
from reckoner.articles.fact_model import Facts, Message
from reckoner.articles.facts import collect_facts
from reckoner.articles.latex import check_body
from reckoner.articles.writers.model import facts_json, system_prompt
from reckoner.articles.writers.template import render
from reckoner.compute.fact import ComputeFact, Ending

CASES = [(fmt, lang) for fmt in ("md", "tex") for lang in ("en", "zh-CN")]
RUN = "reckoner-with-compute-bar-3fa2b91c0d12"
FAILING = "reckoner-with-compute-bar-9c0d12e4ab77"
SLOW = "reckoner-with-compute-bar-51e0aa7c3b90"
# Verbatim: more than four decimals, an R index in brackets at a line's start, TeX and
# Markdown specials, a tab, an escape character and a run of backticks.
OUTPUT = "[1] 0.1234567 0.6\n  det = -2.0000001 {ok} 50% $x_1 & #2 \\end{quote}\t~^\x1b[0m\n```"


def compute_row(seq: int, run_id: str, ok: bool = True, **content: Any) -> dict[str, Any]:
    """A `compute` row as compute/service.py writes it for a run that reached the archive."""
    attempt = content.pop("attempt", 1)
    directory = f"Computation/{run_id}" + (f"/attempts/{attempt}" if attempt > 1 else "")
    body = {
        "engine": "python",
        "version": "3.11.7",
        "runId": run_id,
        "attempt": attempt,
        "scriptHash": "5" * 64,
        "scriptPath": f"{directory}/script.py",
        "exit": 0,
        "durationMs": 23.4,
        "timedOut": False,
        "receipt": f"{directory}/receipt.json",
        "receiptAbs": f"/home/u/bar/{directory}/receipt.json",
        "language": "py",
        "stdoutTail": OUTPUT,
        "script": "import numpy as np  # 8888\nprint(np.linalg.det([[1, 2], [3, 4]]))\n",
        **content,
    }
    return row(seq, "compute", body, ok=ok)


def compute_rows() -> list[dict[str, Any]]:
    return [
        row(1, "record_start", {"title": "Determinant of a 2x2 matrix", "record": HAND_ID}),
        row(2, "record_message", {"text": "The determinant comes from a numpy run."}),
        compute_row(3, RUN),
        compute_row(
            4,
            FAILING,
            ok=False,
            attempt=2,
            exit=3,
            stdoutTail="partial 4242.5",
            code="MATH_NONZERO_EXIT",
            error="python exited with 3; its stderr and the receipt say why",
        ),
        compute_row(
            5,
            SLOW,
            ok=False,
            exit=None,
            timedOut=True,
            durationMs=1003.1,
            stdoutTail="step 31337",
            code="MATH_TIMEOUT",
            error="the run passed its time limit of 1000 ms",
        ),
        # Refused before the archive: nothing ran, so nothing of it reaches an article.
        row(
            6,
            "compute",
            {
                "code": "MATH_ENGINE_NOT_FOUND",
                "error": "julia 7777 is not installed",
                "engine": "j",
            },
            ok=False,
        ),
        row(7, "set", {"name": "D", "value": {"num": -2.0000001, "dim": [0] * 7}}),
        row(8, "set", {"name": "R1", "value": {"num": 0.5, "dim": OHM}}),
        row(9, "record_end", {"text": "The determinant is -2.", "record": HAND_ID}),
    ]


def compute_facts() -> Facts:
    return collect_facts(HAND_ID, compute_rows(), is_open=False)


def test_facts_hold_each_archived_run_in_seq_order_and_nothing_of_a_refused_one() -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    entries = compute_facts().entries
    assert entries == (
        Message(2, "The determinant comes from a numpy run.", False),
        ComputeFact(
            3, "python", "3.11.7", RUN, 1, Ending.RESULT, 0, f"Computation/{RUN}/receipt.json",
            OUTPUT,
        ),
        ComputeFact(
            4, "python", "3.11.7", FAILING, 2, Ending.EXITED, 3,
            f"Computation/{FAILING}/attempts/2/receipt.json", "partial 4242.5",
        ),
        ComputeFact(
            5, "python", "3.11.7", SLOW, 1, Ending.TIMED_OUT, None,
            f"Computation/{SLOW}/receipt.json", "step 31337",
        ),
    )  # fmt: skip
    assert [e.failed for e in entries if isinstance(e, ComputeFact)] == [False, True, True]


def test_an_engine_that_never_started_is_a_failed_run_and_damaged_rows_carry_nothing() -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    rows = [
        row(1, "record_start", {"title": "t"}),
        compute_row(2, RUN, ok=False, exit=None, stdoutTail="", code="MATH_NO_SUBPROCESS"),
        compute_row(3, RUN, ok=True, exit=1),  # accepted, yet it failed: not a shape it writes
        compute_row(4, RUN, ok=False, exit=0),  # refused, yet it exited 0
        compute_row(5, RUN, attempt=0),
        compute_row(6, RUN, timedOut="no"),
        compute_row(7, RUN, receipt=None),
        {**compute_row(8, RUN), "ok": None},
    ]
    [only] = collect_facts(HAND_ID, rows, is_open=False).entries
    assert isinstance(only, ComputeFact) and only.seq == 2
    assert only.ending is Ending.NOT_STARTED and only.exit is None and only.failed


@pytest.mark.parametrize(("fmt", "lang"), CASES)
def test_template_cites_each_run_and_shows_failures_as_failures_and_audits_clean(
    fmt: str, lang: str
) -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    body = render(compute_facts(), lang, fmt)
    assert body == render(compute_facts(), lang, fmt)  # the same record, the same bytes
    assert audit(body, compute_facts()) == []
    for receipt in (
        f"Computation/{RUN}/receipt.json",
        f"Computation/{FAILING}/attempts/2/receipt.json",
        f"Computation/{SLOW}/receipt.json",
    ):
        shown = receipt.replace("/", "/\\allowbreak{}") if fmt == "tex" else receipt
        assert shown in body
    cited = [
        receipt_id(path)
        for path in (
            f"Computation/{RUN}/receipt.json",
            f"Computation/{FAILING}/attempts/2/receipt.json",
            f"Computation/{SLOW}/receipt.json",
        )
    ]
    assert "python 3.11.7" in body
    # The output is uncut: every digit the run printed.
    assert "0.1234567" in body and "2.0000001" in body
    # In seq order: the message, then the run, then the failures, then the conclusion.
    order = [body.index(s) for s in ("numpy run", *cited, "The determinant is")]
    assert order == sorted(order)
    words = {
        "en": ("it exited with status 0", "it exited with status 3", "time limit", "no result"),
        "zh-CN": ("退出状态为 0", "退出状态为 3", "超出时间限制", "没有给出结果"),
    }[lang]
    for word in words:
        assert word in body
    # A failed run is never a result: both failures say so, the run before them does not.
    assert body.count(words[3]) == 2 and body.index(words[3]) > body.index(cited[1])
    # Nothing of the refused run, nor of the script or the row's own error sentence.
    for absent in ("julia", "7777", "8888", "MATH_", "23.4"):
        assert absent not in body


def test_markdown_shows_the_output_verbatim_in_a_fence_it_cannot_close() -> None:
    """Issue 21 case 9: the escape character reaches the .md in caret notation, never raw.
    Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    body = render(compute_facts(), "en", "md")
    assert f"````text\n{OUTPUT.replace(chr(0x1B), '^[')}\n````" in body
    assert "\x1b" not in body
    cited = receipt_id(f"Computation/{RUN}/receipt.json")
    assert (
        f"Computed with python 3.11.7 (computation receipt `{cited}`[^{cited}], attempt 1): "
        "it exited with status 0."
    ) in body
    failing = receipt_id(f"Computation/{FAILING}/attempts/2/receipt.json")
    assert f"[^{failing}]: Receipt file: `Computation/{FAILING}/attempts/2/receipt.json`" in body
    # The run id is the tool's own naming: the article cites the receipt instead.
    assert RUN not in body.replace(f"Computation/{RUN}/", "")
    assert "failed: it exited with status 3, so it gave no result." in body
    assert "which is not a result:\n\n```text\npartial 4242.5\n```" in body


def test_latex_escapes_the_output_line_by_line_and_passes_the_checks() -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    body = render(compute_facts(), "en", "tex")
    check_body(body)
    assert "^^" not in body and "\\begin{verbatim}" not in body
    block = body[body.index("\\ttfamily") : body.index("\\end{quote}")]
    lines = block.split("\\\\\n")
    assert lines[0] == "\\ttfamily\n\\mbox{}[1]\\ 0.1234567\\ 0.6"  # [ never an argument of \\
    assert "\\{ok\\}\\ 50\\%\\ \\$x\\_1\\ \\&\\ \\#2\\ \\textbackslash{}end\\{quote\\}" in lines[1]
    assert lines[1].startswith("\\mbox{}\\ \\ det")  # leading spaces kept
    assert "\\textasciitilde{}\\textasciicircum{}\\textasciicircum{}[[0m" in lines[1]  # ESC: ^[
    assert lines[2] == "\\mbox{}```\n"


def test_the_audit_still_flags_a_number_no_run_printed() -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    body = render(compute_facts(), "en", "md") + "\nThe determinant is about -2.31.\n"
    assert [unmatched.text for unmatched in audit(body, compute_facts())] == ["2.31"]


def test_the_model_receives_each_run_and_the_rule_to_cite_and_never_recompute() -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    document = json.loads(facts_json(compute_facts()))
    runs = [entry for entry in document["sequence"] if entry["kind"] == "computation"]
    assert runs == [
        {
            "kind": "computation",
            "engine": "python",
            "version": "3.11.7",
            "receiptId": receipt_id(f"Computation/{RUN}/receipt.json"),
            "attempt": 1,
            "outcome": "result",
            "exitStatus": 0,
            "receipt": f"Computation/{RUN}/receipt.json",
            "output": OUTPUT,
        },
        {
            "kind": "computation",
            "engine": "python",
            "version": "3.11.7",
            "receiptId": receipt_id(f"Computation/{FAILING}/attempts/2/receipt.json"),
            "attempt": 2,
            "outcome": "failed",
            "exitStatus": 3,
            "receipt": f"Computation/{FAILING}/attempts/2/receipt.json",
            "output": "partial 4242.5",
            "failure": "exited with a nonzero status",
        },
        {
            "kind": "computation",
            "engine": "python",
            "version": "3.11.7",
            "receiptId": receipt_id(f"Computation/{SLOW}/receipt.json"),
            "attempt": 1,
            "outcome": "failed",
            "exitStatus": None,
            "receipt": f"Computation/{SLOW}/receipt.json",
            "output": "step 31337",
            "failure": "passed its time limit and was stopped",
        },
    ]
    assert "julia" not in facts_json(compute_facts())
    for fmt in ("md", "tex"):
        rules = system_prompt("en", fmt)
        assert (
            "cite it as computation receipt <receiptId>" in rules
            and "Never recompute, rerun" in rules
        )
        assert "never present its output as a result" in rules


@pytest.mark.tex
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_real_pdf_of_an_article_with_runs_cites_the_receipts_and_the_output(
    tmp_path: Path, language: str
) -> None:
    """Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    text = article_pdf_text(compute_facts(), language, tmp_path)
    flat = re.sub(r"\s+", "", text)
    for shown in (
        "[1] 0.1234567 0.6",
        "{ok} 50% $x_1 & #2 \\end{quote}",
        "partial 4242.5",
        "step 31337",
    ):
        assert shown in text, shown
    assert f"Computation/{FAILING}/attempts/2/receipt.json" in flat
    assert "  det = -2.0000001" in text  # the leading spaces survive typesetting


@pytest.mark.tex
def test_reckoner_article_cites_a_real_python_run_made_with_a_record_open(
    tmp_path: Path, out: Path
) -> None:
    """End to end through the CLI: a record opened with `reckoner call`, a real python run
    and a failing one with `reckoner compute run` (which writes their rows), the record
    closed, then `reckoner article` in Markdown and in LaTeX with a real compile.
    Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    home, project = tmp_path / "home", tmp_path / "bar"
    project.mkdir()
    where = ["--home", str(home)]
    assert reckoner("call", "record_start", '{"title": "A determinant"}', *where).returncode == 0
    runs = []
    for code in (
        "import fractions\nprint(fractions.Fraction(-7, 3) * 3)\nprint(1 / 7)\n",
        "import sys\nprint('half way 0.4375')\nsys.exit(3)\n",
    ):
        done = reckoner(
            "compute", "run", "--engine", "python", "--code", code, "--project", str(project),
            *where,
        )  # fmt: skip
        runs.append(json.loads(done.stdout))
    assert runs[0]["ok"] is True and runs[0]["stdout"] == "-7\n0.14285714285714285\n"
    assert runs[1]["code"] == "MATH_NONZERO_EXIT"
    assert reckoner("call", "set", '{"name": "D", "value": {"num": -7}}', *where).returncode == 0
    assert reckoner("call", "record_end", '{"text": "D is -7."}', *where).returncode == 0
    record_id = json.loads(reckoner("records", "--json", *where).stdout)["closed"][0]["id"]

    done = reckoner("article", record_id, *where, "--out", str(out))
    assert done.returncode == 0, done.stderr
    article = Path(done.stdout.strip()).read_text(encoding="utf-8")
    version = runs[0]["engineInfo"]["version"]
    cited = receipt_id(runs[0]["receipt"])
    assert f"Computed with python {version} (computation receipt `{cited}`[^{cited}]" in article
    assert "```text\n-7\n0.14285714285714285\n```" in article
    assert f"[^{cited}]: Receipt file: `{runs[0]['receipt']}`" in article
    assert (project / runs[0]["receipt"]).is_file()  # the citation names the real receipt
    assert "failed: it exited with status 3, so it gave no result." in article
    assert "half way 0.4375" in article and f"`{runs[1]['receipt']}`" in article
    sidecar = json.loads(next(out.glob("*.audit.json")).read_text(encoding="utf-8"))
    assert sidecar["unmatched"] == []

    done = reckoner("article", record_id, *where, "--out", str(out), "--format", "tex", "--compile")
    assert done.returncode == 0, done.stderr
    tex_path, pdf_path = (Path(p) for p in done.stdout.split())
    assert json.loads(tex_path.with_suffix(".audit.json").read_text())["unmatched"] == []
    text = pdf_text(pdf_path)
    assert "0.14285714285714285" in text and "half way 0.4375" in text
    assert receipt_id(runs[0]["receipt"]) in re.sub(r"\s+", "", text)
    assert runs[0]["receipt"] in re.sub(r"\s+", "", text)  # the footnote


def test_steps_and_runs_interleave_and_results_hold_only_steps() -> None:
    """A run is not a step: it never enters the results table, and seq decides the order.
    Spec: docs/guide/articles.md (issue 12: compute runs in articles)."""
    rows = compute_rows()
    for moved in rows:
        moved["seq"] += moved["seq"] >= 4
    step = {"formula": "@R1 * 2", "target": "R2", "rev": 1, "result": {"num": 1.0, "dim": OHM}}
    rows.insert(3, row(4, "eval", {**step, "vars": {"R1": {"num": 0.5, "dim": OHM}}}))
    facts = collect_facts(HAND_ID, rows, is_open=False)
    kinds = [type(entry).__name__ for entry in facts.entries]
    assert kinds == ["Message", "ComputeFact", "Step", "ComputeFact", "ComputeFact"]
    assert [s.target for s in facts.steps] == ["R2"]
    body = render(facts, "en", "md")
    assert body.index(RUN) < body.index("R_{\\mathrm{2}} = R_") < body.index(FAILING)
    results = body[body.index("## Results") : body.index("## Conclusion")]
    assert (
        "R_{\\mathrm{2}}" in results
        and "Computation/" not in results
        and "0.1234567" not in results
    )
