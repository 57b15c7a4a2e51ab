"""Issue 21 case 9: LaTeX from a model is held to an allow-list read as TeX reads it, every
text the template writes has its control characters escaped or dropped, the compile runs
with shell escape off and file access limited to its folder, and no .tex reaches the user
without passing the allow-list."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID, OHM, row, write_record
from fake_providers import FakeProvider, Reply
from hypothesis import given
from hypothesis import strategies as st

from reckoner.articles.compiler import compile_pdf
from reckoner.articles.escape import CONTROL_CHARACTERS
from reckoner.articles.facts import collect_facts
from reckoner.articles.jobs import Job, JobRequest, JobRunner
from reckoner.articles.latex import BodyRefusal, check_body, shell
from reckoner.articles.mathtex import formula_latex
from reckoner.articles.writers.choose import writer_for
from reckoner.articles.writers.template import render
from reckoner.core.notation import NOTATIONS
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

KEY = "sk-test-allow-list-0909"

# The attacks of issue 21 case 9 (and their neighbours), each with the command or the
# construct the refusal must name. Each of them reads /etc/hostname or runs a program when
# TeX's own settings do not stop it.
BYPASSES = [
    pytest.param("\\UseName{input}{/etc/hostname}", "\\UseName", id="UseName-input"),
    pytest.param(
        "\\ExplSyntaxOn\n\\file_input:n {/etc/hostname}\n\\ExplSyntaxOff",
        "\\ExplSyntaxOn",
        id="expl3-file_input",
    ),
    pytest.param(
        "\\lccode`\\Z=`\\\\\n\\lowercase{\\scantokens{Zinput{/etc/hostname}}}",
        "\\lccode",
        id="lccode-scantokens",
    ),
    pytest.param("\\scantokens{\\input{/etc/hostname}}", "\\scantokens", id="scantokens"),
    pytest.param("\\UseName{write}18{cat /etc/hostname}", "\\UseName", id="UseName-write18"),
    pytest.param("The end.\n\\enddocument\nafter", "\\enddocument", id="enddocument"),
    pytest.param("^^5cinput{/etc/hostname}", "^^ character escape", id="caret-notation"),
    pytest.param("\\^^5cinput{/etc/hostname}", "^^ character escape", id="caret-after-bs"),
    pytest.param("\\csname input\\endcsname{/etc/hostname}", "\\csname", id="csname"),
    pytest.param("\\begin{input}{/etc/hostname}\\end{input}", "input environment", id="begin"),
    pytest.param("\\begin%\n{input}{/etc/hostname}", "environment name in braces", id="begin%"),
    pytest.param("\\begin {input}{/etc/hostname}", "input environment", id="begin-space"),
    pytest.param("\\begin—{itemize}\\end{itemize}", "environment name in braces", id="begin-dash"),
    pytest.param("\\begin{itemize}\\end{document}", "document environment", id="end-document"),
    pytest.param("\\catcode`\\Z=0\nZinput{/etc/hostname}", "\\catcode", id="catcode"),
    pytest.param("\\uccode`\\z=`\\\\ \\uppercase{zinput}", "\\uccode", id="uccode"),
    pytest.param("\\makeatletter\\@@input /etc/hostname", "\\makeatletter", id="makeatletter"),
    pytest.param("\\@@input /etc/hostname", "\\@", id="at-command"),
    pytest.param("\\def\\x{\\input}\\x{/etc/hostname}", "\\def", id="def"),
    pytest.param("\\let\\x=\\relax", "\\let", id="let"),
    pytest.param("\\newcommand{\\x}{y}\\x", "\\newcommand", id="newcommand"),
    pytest.param("\\renewcommand{\\section}{y}", "\\renewcommand", id="renewcommand"),
    pytest.param("\\DeclareRobustCommand{\\x}{y}", "\\DeclareRobustCommand", id="declare"),
    pytest.param("\\expandafter\\input\\relax", "\\expandafter", id="expandafter"),
    pytest.param("\\verb|%| \\input{/etc/hostname}", "\\verb", id="verb-hides-a-line"),
    pytest.param("\\begin{verbatim}%\n\\end{verbatim}", "verbatim environment", id="verbatim"),
    pytest.param("\\usepackage{shellesc}\\ShellEscape{id}", "\\usepackage", id="usepackage"),
    pytest.param("\\directlua{os.execute('id')}", "\\directlua", id="directlua"),
    pytest.param("\\immediate\\write18{id}", "\\immediate", id="write18"),
    pytest.param("\\openin1=/etc/hostname \\read1 to\\x", "\\openin", id="openin"),
    pytest.param("\\includegraphics{/etc/hostname}", "\\includegraphics", id="graphics"),
    pytest.param("a\\\\% the comment\n\\input{/etc/hostname}", "\\input", id="after-bs-bs%"),
    pytest.param("50\\% of it \\input{/etc/hostname}", "\\input", id="escaped-percent"),
    pytest.param("\\quad中\\input{x}", "\\quad中", id="xetex-letters"),
    pytest.param("a\x7fb", "U+007F", id="DEL"),
    pytest.param("a\x0cb", "U+000C", id="active-formfeed"),
]


@pytest.mark.parametrize(("body", "named"), BYPASSES)
def test_a_body_outside_the_allow_list_is_refused_naming_the_command(body: str, named: str) -> None:
    """Issue 21 case 9: the checker itself refuses each bypass, in one sentence that names
    what was refused and says what to use instead.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    with pytest.raises(BodyRefusal) as refusal:
        check_body(body)
    sentence = str(refusal.value)
    assert named in sentence
    assert sentence.count(". ") == 0 and sentence.endswith(".")
    if "commands an article may use" in sentence or "environments an article" in sentence:
        assert "use only text, emphasis, lists, tables, sectioning" in sentence


MODEL_LATEX = r"""\section*{Heating a resistor}
The resistor has $R_{1} = 4712.1235\,\Omega$ and carries \emph{exactly} $I = 0.0025$~A;
50\% of the \textbf{power}, \textit{roughly}\footnote{A note.} -- as given\ldots{} % a comment
\subsection*{Given}
\begin{itemize}
  \item \texttt{R1}: 4712.1235 ohm
  \item[--] the current, 0.0025 A
\end{itemize}
\begin{enumerate}\item one\end{enumerate}
\begin{center}
\begin{tabular}{lr}
\toprule
Quantity & Value \\
\midrule
$I$ & 0.0025 \\
\multicolumn{2}{c}{together} \\
\bottomrule
\end{tabular}
\end{center}
\[ P = I^{2} R_{1} \quad\text{so}\quad P = \frac{V^{2}}{R} \]
\begin{align*}
  P &= \sqrt{x_{1}} \cdot \left( \alpha + \beta \right) \\
    &\approx 30559.123 \times 10^{0}
\end{align*}
\begin{equation*}
  f(x) = \begin{cases} 1 & x \geq 0 \\ 0 & x < 0 \end{cases}
\end{equation*}
\paragraph*{Conclusion} The power is about 30559 watt, \quad，一个中文句子。
"""


def test_the_latex_a_model_is_asked_for_passes() -> None:
    """Text, emphasis, lists, tables, sectioning below the article's own and maths pass.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    check_body(MODEL_LATEX)


# -- through the model writer, against a loopback fake provider -------------------------


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


def model_job(
    home: Path, out: Path, kind: str, replies: list[Reply], **extra: Any
) -> tuple[Job, list[dict[str, Any]]]:
    """The job a model writer ran against a fake provider, and what the provider was sent."""
    fake = FakeProvider(replies)
    try:
        request = JobRequest(
            record_id=HAND_ID,
            format="latex",
            directory=str(out),
            writer=kind,
            model="fake-model",
            configured_base_url=fake.url_for(kind),  # as `--base-url` names it
            **extra,
        )
        return JobRunner(RecordArchive(HomeLayout(home)), writer_for).run(request), fake.requests
    finally:
        fake.close()


def everything_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*"))


@pytest.mark.parametrize(("body", "named"), BYPASSES)
def test_a_model_that_sends_a_bypass_twice_fails_the_job_and_writes_no_tex(
    home: Path, out: Path, body: str, named: str
) -> None:
    """Issue 21 case 9: through the model writer, each bypass is refused, sent back once
    with the reason, and refused again; the job fails with the sentence and no .tex (which
    a user could compile by hand) is left anywhere.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    job, sent = model_job(home, out, "openai", [Reply(body), Reply(body)], compile=True)
    assert job.status == "failed", job.error
    assert "refused twice" in (job.error or "") and named in (job.error or "")
    assert len(sent) == 2 and "The host refused that body" in json.dumps(sent[1]["json"])
    assert everything_under(out) == []


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_bypass_corrected_on_the_retry_gives_a_tex_that_passes_the_allow_list(
    home: Path, out: Path, kind: str
) -> None:
    """The .tex handed to the user holds the corrected body, never the refused one.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    job, _ = model_job(
        home, out, kind, [Reply("\\UseName{input}{/etc/hostname}"), Reply(MODEL_LATEX)]
    )
    assert job.status == "done" and job.attempts == 2, job.error
    tex = Path(job.path or "").read_text(encoding="utf-8")
    assert "UseName" not in tex and "hostname" not in tex
    check_body(document_body(tex))


def document_body(tex: str) -> str:
    return tex[tex.index("\\begin{document}\n") + 16 : tex.rindex("\\end{document}")]


@pytest.mark.tex
@pytest.mark.skipif(shutil.which("xelatex") is None, reason="XeLaTeX is not installed here")
def test_the_tex_a_failed_compile_keeps_is_one_the_allow_list_passed(home: Path, out: Path) -> None:
    """The failure message suggests compiling the kept .tex by hand: that file passed the
    allow-list (an allowed body that TeX still rejects, an unknown column type).
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    broken = "\\section*{Heating}\n\\begin{tabular}{q}x\\end{tabular}\n"
    job, _ = model_job(home, out, "openai", [Reply(broken)], compile=True)
    assert job.status == "done" and job.compile_error, job.error
    assert "the .tex is kept" in job.compile_error
    check_body(document_body(Path(job.path or "").read_text(encoding="utf-8")))


def test_a_model_reply_with_crlf_line_ends_is_not_refused_for_them(home: Path, out: Path) -> None:
    """Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    job, _ = model_job(home, out, "openai", [Reply(MODEL_LATEX.replace("\n", "\r\n"))])
    assert job.status == "done" and job.attempts == 1, job.error
    assert "\r" not in Path(job.path or "").read_text(encoding="utf-8")


# -- the template writer's LaTeX always passes -------------------------------------------

_PLACEHOLDERS = re.compile(r"\b(body|x|y|a|b|M|n|k)\b")


def _written_form(written: str) -> str:
    """A notation's documented spelling with its placeholders filled with slots."""
    first = written.split(" or ")[0]
    fills = {"body": "@x^2", "x": "@x", "y": "@y", "a": "@a", "b": "@b", "M": "@M", "n": "2"}
    filled = _PLACEHOLDERS.sub(lambda match: fills.get(match.group(1), match.group(1)), first)
    return filled.replace("_{@x->", "_{x->").replace("_{k=@a}", "_{k=1}").replace("^{@b}", "^{3}")


@pytest.mark.parametrize("notation", NOTATIONS, ids=lambda notation: notation.name)
def test_every_notation_the_math_renderer_typesets_passes_the_allow_list(
    notation: Any,
) -> None:
    """The list is derived from what the renderer emits: each notation's own spelling,
    typeset inside a display and in running text, passes.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    formula = _written_form(notation.written)
    if notation.kind.value == "constant":
        formula = f"{notation.name} * @x"
    tex = formula_latex(formula)
    assert tex is not None, formula
    check_body(f"\\[\nR_{{1}} = {tex}\n\\]\nand ${tex}$.")


# Text that is mostly hostile: TeX and Markdown specials, control characters (C0, DEL, C1),
# ^^ pairs, commands a model may not use, letters XeTeX reads as part of a command name.
_HOSTILE_PIECES = [
    *"\\{}$&#%_^~`*[]|<>@!:;,.'\"=-/ \n\t()aZ9é中",
    *CONTROL_CHARACTERS[::3],
    "\x7f",
    "\x85",
    "\r\n",
    "^^",
    "^^5c",
    "\\input{/etc/hostname}",
    "\\UseName{write}18",
    "\\enddocument",
    "\\begin{document}",
    "%\n",
    "\\\\",
    "https://example.org/a b",
]
hostile_text = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.lists(st.sampled_from(_HOSTILE_PIECES), max_size=25).map("".join),
)
names = st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True), hostile_text)
dims = st.lists(st.integers(-3, 3), min_size=7, max_size=7)
reals = st.floats(allow_nan=False, allow_infinity=False, width=32)
raw_values = st.one_of(
    st.builds(lambda num, dim: {"num": num, "dim": dim}, reals, dims),
    st.builds(lambda re_, im, dim: {"re": re_, "im": im, "dim": dim}, reals, reals, dims),
    st.builds(lambda items, dim: {"array": items, "dim": dim}, st.lists(reals, max_size=14), dims),
    st.builds(
        lambda fields: {"object": fields},
        st.dictionaries(names, st.builds(lambda n: {"num": n, "dim": OHM}, reals), max_size=3),
    ),
)
formula_atoms = st.one_of(
    names.map(lambda name: "@" + name),
    st.sampled_from(["2", "0.5", "1e-3", "3j", "$pi", "$e", "$i"]),
)
formulas = st.one_of(
    hostile_text,
    st.recursive(
        formula_atoms,
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "^"]), inner).map(" ".join),
            inner.map(lambda body: f"-({body})"),
            st.tuples(
                st.sampled_from(
                    [n.name for n in NOTATIONS if n.kind.value == "function" and 1 in n.arities]
                ),
                inner,
            ).map(lambda pair: f"{pair[0]}({pair[1]})"),
            st.tuples(inner, inner).map(lambda pair: f"$atan2({pair[0]}, {pair[1]})"),
            inner.map(lambda body: f"$sum_{{k=1}}^{{3}}({body})"),
            inner.map(lambda body: f"$integral_{{0}}^{{1}}({body}, x)"),
            inner.map(lambda body: f"$limit_{{x->0}}({body})"),
            inner.map(lambda body: f"$diff({body}, x, 2)"),
            inner.map(lambda body: f"({body})[0]"),
        ),
        max_leaves=6,
    ),
)


def _entry(kind: int, seq: int, draw: Any) -> dict[str, Any]:
    if kind == 0:
        return row(seq, "record_message", {"text": draw(hostile_text), "hide": draw(st.booleans())})
    if kind == 1:
        return row(seq, "set", {"name": draw(names), "value": draw(raw_values)})
    if kind == 2:
        reads = draw(st.dictionaries(names, raw_values, max_size=3))
        content = {"formula": draw(formulas), "target": draw(names), "vars": reads}
        return row(seq, "eval", {**content, "result": draw(raw_values)})
    if kind == 3:
        source = {"url": draw(hostile_text), "title": draw(hostile_text), "publishedAt": "x"}
        synthesis = {"answer": draw(hostile_text), "used": [0]}
        content = {"question": draw(hostile_text), "outcome": "answered", "used": [source]}
        return row(seq, "search", {**content, "tier": "open", "synthesis": synthesis})
    ok = draw(st.booleans())
    run = {
        "engine": draw(hostile_text),
        "version": draw(hostile_text),
        "runId": draw(hostile_text),
        "attempt": 1,
        "exit": 0 if ok else 2,
        "timedOut": False,
        "receipt": draw(hostile_text),
        "stdoutTail": draw(hostile_text),
    }
    return row(seq, "compute", run, ok=ok)


@st.composite
def hostile_records(draw: Any) -> list[dict[str, Any]]:
    rows = [row(1, "record_start", {"title": draw(hostile_text), "record": HAND_ID})]
    for seq, kind in enumerate(draw(st.lists(st.integers(0, 4), max_size=8)), start=2):
        rows.append(_entry(kind, seq, draw))
    rows.append(row(len(rows) + 1, "record_end", {"text": draw(hostile_text)}))
    return rows


@given(hostile_records(), st.sampled_from(["en", "zh-CN"]))
def test_the_template_latex_of_any_record_passes_the_allow_list(
    rows: list[dict[str, Any]], language: str
) -> None:
    """Issue 21 case 9: whatever a record holds (hostile titles, messages, names, formulas,
    units, URLs, program output), the template's LaTeX passes the same allow-list.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    facts = collect_facts(HAND_ID, rows, is_open=False)
    check_body(render(facts, language, "tex"))


@given(hostile_records())
def test_the_template_markdown_of_any_record_carries_no_control_character(
    rows: list[dict[str, Any]],
) -> None:
    """Every text the template writes has its control characters dropped (prose) or shown
    in caret notation (verbatim output) in Markdown too.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    body = render(collect_facts(HAND_ID, rows, is_open=False), "en", "md")
    assert not set(body) & set(CONTROL_CHARACTERS)


# -- the DEL record ------------------------------------------------------------------------

DEL_ROWS = [
    row(1, "record_start", {"title": "Delete\x7f key \x1b[31mred\x1b[0m", "record": HAND_ID}),
    row(2, "record_message", {"text": "Before\x7fafter, bell\x07 and next\x85line."}),
    row(3, "set", {"name": "R\x7f1", "value": {"num": 4700, "dim": OHM}}),
    row(
        4,
        "search",
        {
            "question": "What is\x7f it?",
            "tier": "strict",
            "outcome": "answered",
            "used": [{"url": "https://example.org/\x7fx", "title": "T\x7f"}],
            "synthesis": {"answer": "It is\x7f 12 ohm.", "used": [0]},
        },
    ),
    row(5, "record_end", {"text": "Closing\x7f words.", "record": HAND_ID}),
]


def test_markdown_drops_control_characters_from_every_text_the_template_writes() -> None:
    """Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    body = render(collect_facts(HAND_ID, DEL_ROWS, is_open=False), "en", "md")
    assert not set(body) & set(CONTROL_CHARACTERS)
    assert body.startswith("# Delete key \\[31mred\\[0m\n")
    for piece in ("Beforeafter, bell and next", "What is it?", "It is 12 ohm.", "Closing words."):
        assert piece in body
    assert "https://example.org/x" in body


def reckoner(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reckoner", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "COLUMNS": "300", **(env or {})},
    )


@pytest.mark.tex
@pytest.mark.skipif(
    shutil.which("xelatex") is None or shutil.which("pdftotext") is None,
    reason="XeLaTeX and pdftotext are not installed here (Debian: texlive-xetex, poppler-utils)",
)
def test_a_record_with_del_in_its_texts_compiles_to_a_pdf_that_carries_them(
    tmp_path: Path,
) -> None:
    """Issue 21 case 9: a DEL (U+007F) in a record message broke every compile of that
    record; `reckoner article --format tex --compile` now makes the PDF.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    home = tmp_path / "home"
    write_record(home, HAND_ID, DEL_ROWS)
    done = reckoner(
        "article", HAND_ID, "--home", str(home), "--out", str(tmp_path), "--format", "tex",
        "--name", "del.tex", "--compile",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    pdf = tmp_path / "del" / "del.pdf"
    assert done.stdout.split() == [str(tmp_path / "del" / "del.tex"), str(pdf)]
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, timeout=60
    ).stdout
    for piece in ("Delete key", "Beforeafter", "Closing words", "It is 12 ohm"):
        assert piece in text


# -- the compile's flags and environment ---------------------------------------------------

_FAKE_TEX = """#!{python}
import json, os, sys
with open({log!r}, "a", encoding="utf-8") as log:
    log.write(json.dumps({{"argv": sys.argv, "env": dict(os.environ)}}) + "\\n")
source = [arg for arg in sys.argv[1:] if arg.endswith(".tex")][-1]
with open(source[:-4] + ".pdf", "wb") as pdf:
    pdf.write(b"%PDF-1.4\\n%%EOF\\n")
"""


def fake_toolchain(folder: Path, programs: list[str]) -> Path:
    """A bin folder holding only recording fakes of ``programs``; their calls' log."""
    folder.mkdir()
    log = folder / "calls.jsonl"
    for name in programs:
        program = folder / name
        program.write_text(_FAKE_TEX.format(python=sys.executable, log=str(log)))
        program.chmod(0o755)
    return log


@pytest.mark.parametrize("programs", [["xelatex"], ["latexmk", "xelatex"]])
def test_every_compile_runs_with_shell_escape_off_and_file_access_in_its_folder(
    home: Path, out: Path, tmp_path: Path, programs: list[str]
) -> None:
    """Issue 21 case 9: whatever starts the TeX process, it is told no shell escape on its
    command line and gets shell_escape=f, openin_any=p and openout_any=p (kpathsea's
    paranoid file access) in its environment; with latexmk and with plain xelatex.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    log = fake_toolchain(tmp_path / "bin", programs)
    done = reckoner(
        "article", HAND_ID, "--home", str(home), "--out", str(out),
        "--format", "tex", "--name", "flags.tex", "--compile",
        env={"PATH": str(tmp_path / "bin")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert calls and {Path(call["argv"][0]).name for call in calls} == {programs[0]}
    for call in calls:
        assert "-no-shell-escape" in " ".join(call["argv"])
        assert "-shell-escape" not in call["argv"] and "-enable-write18" not in call["argv"]
        environment = call["env"]
        assert environment.get("shell_escape") == "f"
        assert environment.get("openin_any") == "p"
        assert environment.get("openout_any") == "p"


_NEEDS_TEX = pytest.mark.skipif(
    shutil.which("xelatex") is None or shutil.which("pdftotext") is None,
    reason="XeLaTeX and pdftotext are not installed here (Debian: texlive-xetex, poppler-utils)",
)
HOSTILE = "a\\input{/etc/hostname} ^^5c %x $y$ #&_~ ^ \x7f\x1b\x85 é"
HOSTILE_ROWS = [
    row(1, "record_start", {"title": "Title " + HOSTILE, "record": HAND_ID}),
    row(2, "record_message", {"text": "Message " + HOSTILE + "\n[1] second line"}),
    row(3, "set", {"name": "x}\\input{/etc/hostname}{", "value": {"num": 4700, "dim": OHM}}),
    row(4, "set", {"name": "R1", "value": {"object": {"f^^5c%": {"num": 2, "dim": OHM}}}}),
    row(
        5,
        "eval",
        {
            "formula": "@R1 * 2",
            "target": "P\\UseName{write}18",
            "vars": {"R1": {"num": 4700, "dim": OHM}},
            "result": {"num": 9400, "dim": OHM},
        },
    ),
    row(
        6,
        "compute",
        {
            "engine": "python",
            "runId": "run-" + HOSTILE,
            "attempt": 1,
            "exit": 0,
            "timedOut": False,
            "receipt": "Computation/r/receipt.json",
            "stdoutTail": "Output " + HOSTILE + "\n\tsecond\x00line",
        },
    ),
    row(
        7,
        "search",
        {
            "question": "Question " + HOSTILE,
            "tier": "open",
            "outcome": "answered",
            "used": [{"url": "https://evil.example\\@x.org/" + HOSTILE, "title": HOSTILE}],
            "synthesis": {"answer": "Answer " + HOSTILE, "used": [0]},
        },
    ),
    row(8, "record_end", {"text": "Closing " + HOSTILE, "record": HAND_ID}),
]


@pytest.mark.tex
@_NEEDS_TEX
def test_a_hostile_records_template_latex_passes_and_compiles_showing_its_words(
    tmp_path: Path,
) -> None:
    """The escapes that make the template pass the allow-list also compile: TeX's specials,
    a command in a name, control characters, a backslash in a URL, all shown as text.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    facts = collect_facts(HAND_ID, HOSTILE_ROWS, is_open=False)
    body = render(facts, "en", "tex")
    check_body(body)
    tex = tmp_path / "hostile.tex"
    tex.write_text(shell(body, "en"), encoding="utf-8")
    outcome = compile_pdf(tex, lambda: False)
    assert outcome.ok, outcome.log_tail
    text = subprocess.run(
        ["pdftotext", str(tmp_path / "hostile.pdf"), "-"], capture_output=True, text=True
    ).stdout
    assert text.count("a\\input{/etc/hostname}") >= 5  # shown, never run
    for piece in ("Message a", "Closing a", "x}\\input{/etc/hostname}{", "^?^[", "%x $y$"):
        assert piece in text, piece


@pytest.mark.tex
@_NEEDS_TEX
def test_the_latex_a_model_is_asked_for_compiles(tmp_path: Path) -> None:
    """The allow-list admits what the loaded packages define: a body using its text, list,
    table, sectioning and math commands compiles in both shells.
    Spec: docs/guide/articles.md (issue 21, case 9: the LaTeX allow-list)."""
    for language in ("en", "zh-CN"):
        tex = tmp_path / f"model-{language}.tex"
        tex.write_text(shell(MODEL_LATEX, language), encoding="utf-8")
        outcome = compile_pdf(tex, lambda: False)
        assert outcome.ok, outcome.log_tail
