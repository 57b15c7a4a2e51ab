"""Issue 23: the audit ties each number to its quantity, holds the record's prose against
the engine's answers, and finds the tool's words in a model's article.

Records are written by the real engine on a temporary home; the model's article comes
through the model writer and a loopback fake that speaks the provider's protocol.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_providers import FakeProvider, Reply
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_template_and_audit import CASES

from reckoner.articles.audit import Mismatched, ProseNumber, Unmatched, audit, prose_findings
from reckoner.articles.fact_model import Facts
from reckoner.articles.facts import collect_facts
from reckoner.articles.jobs import Job, JobRequest, JobRunner
from reckoner.articles.wording import tool_words
from reckoner.articles.writers.choose import writer_for
from reckoner.articles.writers.template import _LABELS, render
from reckoner.service import Engine
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

KEY = "sk-test-audit-23"

# A series RC circuit at 1 kHz: X_C = 159.15 ohm, |Z| = 175.94 ohm, I = 72.02 mA.
RC_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("record_start", {"title": "A series RC circuit at 1 kHz"}),
    ("set", {"name": "R", "value": {"num": 75, "unit": "ohm"}}),
    ("set", {"name": "C", "value": {"num": 1, "unit": "uF"}}),
    ("set", {"name": "f", "value": {"num": 1, "unit": "kHz"}}),
    ("set", {"name": "V", "value": {"num": 12.671, "unit": "V"}}),
    ("record_message", {"text": "The reactance of the capacitor comes first."}),
    ("eval", {"formula": "1 / (2 * $pi * @f * @C)", "target": "XC"}),
    ("eval", {"formula": "$sqrt(@R^2 + @XC^2)", "target": "Z"}),
    ("eval", {"formula": "@V / @Z", "target": "I", "read": {"unit": "mA", "digits": 4}}),
]


def rc_record(home: Path, closing: str = "The current is 72.02 mA.") -> tuple[str, Facts]:
    with Engine(home=str(home)) as engine:
        for tool, args in RC_CALLS:
            receipt = engine.call(tool, args)
            assert receipt["ok"] is True, receipt
        assert receipt["value"]["num"] == 72.02  # the reading the closing text quotes
        engine.call("record_end", {"text": closing})
    archive = RecordArchive(HomeLayout(home))
    record_id = archive.index().closed[0].id
    view = archive.read(record_id)
    assert view is not None
    return record_id, collect_facts(record_id, view.rows, is_open=view.is_open)


@pytest.fixture
def rc(tmp_path: Path) -> Facts:
    return rc_record(tmp_path / "home")[1]


# -- numbers tied to quantities -------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "The impedance is $Z = 159.15$ ohm.",
        "The impedance is |Z| = 159.15 Ω.",
        "$$\nZ = \\sqrt{R^{2} + X_{C}^{2}} = 159.15\n$$",
        "| $Z$ | $159.15$ | Ω |",
        "$Z$ & $159.15$ & ohm \\\\",
    ],
)
def test_a_swapped_quantity_is_a_finding_naming_whose_value_it_is(rc: Facts, sentence: str) -> None:
    """159.15 ohm is X_C's value: beside Z (a sentence, an equation's side, a table row) it
    is wrong, though some fact holds it.
    Spec: docs/guide/articles.md (issue 23)."""
    (found,) = audit(sentence, rc)
    assert isinstance(found, Mismatched)
    assert (found.text, found.quantity, found.belongs_to) == ("159.15", "Z", "XC")
    assert "'159.15' is shown for Z, but Z is 175.9" in found.sentence()
    assert "it is XC's value" in found.sentence()


@pytest.mark.parametrize(
    "sentence",
    [
        "The impedance is $Z = 175.94$ ohm and $X_{C} = 159.15$ ohm.",
        "The impedance is |Z| = 175.9 Ω, the reactance XC = 159.2 Ω.",
        "$$\nZ = \\sqrt{R^{2} + X_{C}^{2}} = 175.94\n$$",
        "| $Z$ | $175.94$ | Ω |",
        "$Z$ & $175.94$ & ohm \\\\",
    ],
)
def test_each_quantity_beside_its_own_value_passes(rc: Facts, sentence: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit(sentence, rc) == []


def test_an_invented_digit_count_is_a_finding(rc: Facts) -> None:
    """No fact holds 3: not a vector's exponent (ohm is kg m^2 s^-3 A^-2), not a digit of
    a receipt path; the count is invented.
    Spec: docs/guide/articles.md (issue 23)."""
    found = audit("The circuit has 3 capacitors.", rc)
    assert [(type(f), f.as_json()["text"]) for f in found] == [(Unmatched, "3")]


def test_a_count_written_as_a_word_passes(rc: Facts) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit("The circuit has three capacitors; the second step adds them.", rc) == []
    assert audit("The circuit has one capacitor and 2 pi f C in its reactance.", rc) == []


def test_an_exponent_of_a_unit_is_no_number(rc: Facts) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit("$\\mathrm{kg}\\,\\mathrm{m}^{2}\\,\\mathrm{s}^{-3}$ and m^-3 and s⁻³", rc) == []


def test_the_articles_own_numbering_of_figures_and_equations_is_no_value(rc: Facts) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit("Figure 7 plots it; see Equation (9), Table 8 and 图 6.", rc) == []


@pytest.mark.parametrize(
    "figure",
    [
        "![Figure 1: the sweep](reckoner-1796-fig-3.svg)",
        "\\includegraphics[width=0.8\\linewidth]{fig-3.pdf} \\label{eq:7} \\eqref{eq:7}",
    ],
)
def test_a_figures_targets_are_no_prose(rc: Facts, figure: str) -> None:
    """A figure's file name and the article's labels are names. (A drawing is blanked only
    where the record's own sweep draws it, byte for byte: ``test_figures``.)
    Spec: docs/guide/articles.md (issue 23)."""
    assert audit(figure, rc, model=True) == []


def test_a_drawing_the_record_does_not_make_is_audited_as_text(rc: Facts) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    drawn = "\\begin{tikzpicture}\\begin{axis}\\addplot coordinates {(1,777)};\\end{axis}"
    found = [str(f.as_json()["text"]) for f in audit(drawn + "\\end{tikzpicture}", rc)]
    assert found and all("777" in text for text in found)


def test_a_siunitx_quantity_is_tied_to_its_symbol(rc: Facts) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit("$Z = \\qty{175.9}{\\ohm}$", rc) == []
    assert [type(f) for f in audit("$Z = \\qty{159.2}{\\ohm}$", rc)] == [Mismatched]


def test_a_coarse_rounding_of_a_quantity_is_a_finding(rc: Facts) -> None:
    """|Z| is 175.94 ohm: 175 is no rounding of it at any number of figures.
    Spec: docs/guide/articles.md (issue 23)."""
    (found,) = audit("So $Z = 175$ ohm.", rc)
    assert isinstance(found, Mismatched) and found.text == "175"


@pytest.mark.parametrize("shown", ["176", "175.9", "175.94", "1.759e2", "0.1759 kΩ"])
def test_a_quantity_rounded_to_the_figures_shown_passes(rc: Facts, shown: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit(f"So $Z = {shown}$.", rc) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "C = 1 uF",
        "$C = 1\\,\\mathrm{\\mu F}$",
        "C = 1 µF",
        "$f = 1\\ \\mathrm{kHz}$",
        "I = 72.02 mA",
        "I = 0.07202 A",
        "$I = 72.02\\,\\mathrm{mA}$",
        "| $I$ | $72.02$ | mA |",
    ],
)
def test_a_value_in_the_unit_given_or_read_matches_its_quantity(rc: Facts, sentence: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert audit(sentence, rc) == []


@pytest.mark.parametrize("sentence", ["C = 2 uF", "I = 72.05 mA", "$f = 1.5\\,\\mathrm{kHz}$"])
def test_a_wrong_value_in_a_unit_is_a_finding(rc: Facts, sentence: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    assert [type(f) for f in audit(sentence, rc)] == [Mismatched]


# -- the record's own prose -----------------------------------------------------------------


def run_template_job(home: Path, record_id: str, out: Path, fmt: str = "markdown") -> Job:
    out.mkdir(exist_ok=True)
    runner = JobRunner(RecordArchive(HomeLayout(home)), writer_for)
    return runner.run(JobRequest(record_id=record_id, format=fmt, directory=str(out)))


def test_a_prose_typo_in_the_closing_text_is_a_job_warning(tmp_path: Path) -> None:
    """The closing text typed 72.05 mA where the engine read 72.02 mA: the job warns, so the
    panel's "every number matches" line (shown only for an empty list) is not shown.
    Spec: docs/guide/articles.md (issue 23)."""
    home = tmp_path / "home"
    record_id, facts = rc_record(home, closing="The current is 72.05 mA.")
    assert prose_findings(facts) == [ProseNumber("72.05 mA", "The closing text", "72.02 mA")]
    job = run_template_job(home, record_id, tmp_path / "out")
    assert job.status == "done"
    snapshot = job.snapshot()
    assert snapshot["warnings"] == [
        "The closing text writes '72.05 mA', which no value the engine computed or was given "
        "shows; the record computed 72.02 mA; correct the text to the computed value"
    ]
    assert snapshot["audit"] == [
        {"kind": "prose", "text": "72.05 mA", "where": "The closing text", "near": "72.02 mA"}
    ]
    sidecar = json.loads(Path(job.path or "").with_suffix(".audit.json").read_text())
    assert sidecar["unmatched"] == snapshot["audit"]


def test_a_closing_text_that_quotes_the_reading_passes(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    home = tmp_path / "home"
    record_id, facts = rc_record(home, closing="The current is 72.02 mA, about 0.07202 A.")
    assert prose_findings(facts) == []
    job = run_template_job(home, record_id, tmp_path / "out")
    assert job.status == "done" and job.snapshot()["warnings"] == []


def test_the_cli_prints_the_prose_warning(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    from test_cli_article import reckoner

    home = tmp_path / "home"
    record_id, _ = rc_record(home, closing="The current is 72.05 mA.")
    (tmp_path / "o").mkdir()
    done = reckoner("article", record_id, "--home", str(home), "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    assert "warning: The closing text writes '72.05 mA'" in " ".join(done.stderr.split())


# -- no word of the tool --------------------------------------------------------------------


def test_a_receipt_path_in_code_type_is_no_tool_word_nor_a_number(rc: Facts) -> None:
    """A footnote cites the receipt's path, which may spell the tool's name and hold digits.
    Spec: docs/guide/articles.md (issue 23)."""
    cited = "Computation/reckoner-with-compute-p-31337-0a1b/attempts/3/receipt.json"
    md = (
        "Computed (computation receipt `3f0a9c21b7d4`[^3f0a9c21b7d4]).\n\n"
        f"[^3f0a9c21b7d4]: `{cited}`"
    )
    breakable = cited.replace("/", "/\\allowbreak{}")
    tex = f"Computed\\footnote{{Receipt file: \\texttt{{{breakable}}}}}."
    assert audit(md, rc, model=True) == []
    assert audit(tex, rc, model=True) == []
    # A receipt id written bare is a name too.
    assert audit("see computation receipt 123a9c21b7d4.", rc) == []
    # Outside code type the same words are the tool's, and the digits numbers.
    assert [f.as_json()["kind"] for f in audit("the record 31337", rc, model=True)] == [
        "toolWord",
        "unmatched",
    ]


def test_a_receipt_id_of_digits_alone_is_still_a_name() -> None:
    """About one receipt id in 300 has no hex letter; the record's own ids are names.
    Spec: docs/guide/articles.md (issue 23)."""
    from article_helpers import HAND_ID, hand_rows, row

    from reckoner.articles.citation import receipt_id

    receipt = next(
        f"Computation/run-{n}/receipt.json"
        for n in range(100_000)
        if receipt_id(f"Computation/run-{n}/receipt.json").isdigit()
    )
    content = {"engine": "python", "runId": "run", "attempt": 1, "exit": 0}
    content |= {"timedOut": False, "receipt": receipt, "stdoutTail": ""}
    rows = [*hand_rows()[:-1], row(90, "compute", content), hand_rows()[-1]]
    facts = collect_facts(HAND_ID, rows, is_open=False)
    cited = receipt_id(receipt)
    assert audit(f"receipt `{cited}` and {cited}", facts) == []
    assert [f.as_json()["text"] for f in audit("receipt `104032198245`", facts)] == ["104032198245"]


def test_a_hidden_notes_number_is_no_fact_and_no_prose_finding() -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    from article_helpers import HAND_ID, hand_rows

    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    assert [f.as_json()["text"] for f in audit("about 999.5", facts)] == ["999.5"]
    assert audit("and 77777", facts) == []  # a stored number, even of a deleted slot
    assert all("999.5" not in f.text for f in prose_findings(facts))


def test_the_template_labels_say_no_word_of_the_tool() -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    for language, labels in _LABELS.items():
        for key, label in labels.items():
            assert tool_words(label) == [], (language, key, label)


@pytest.mark.parametrize(("fmt", "lang"), CASES)
def test_the_template_article_says_no_word_of_the_tool(rc: Facts, fmt: str, lang: str) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    body = render(rc, lang, fmt)
    assert tool_words(body) == [], body
    assert audit(body, rc, model=True) == []


TOOL_WORD_MD = (
    "# A series RC circuit at 1 kHz\n\nFrom the record, the slot $Z = 175.94$ ohm follows "
    "from the formula of the last derivation step.\n"
)
CLEAN_MD = (
    "# A series RC circuit at 1 kHz\n\nFrom the given values, the impedance $Z = 175.94$ "
    "ohm follows from the relation above; the current is $I = 72.02$ mA.\n"
)
TOOL_WORD_ZH = "# 串联 RC 电路\n\n由记录中的公式得 $Z = 175.94$ 欧姆。\n"


def run_model_job(home: Path, record_id: str, out: Path, reply: str) -> Job:
    fake = FakeProvider([Reply(reply)])
    try:
        out.mkdir(exist_ok=True)
        runner = JobRunner(RecordArchive(HomeLayout(home)), writer_for)
        request = JobRequest(
            record_id=record_id,
            format="markdown",
            directory=str(out),
            writer="openai",
            model="fake-model",
            configured_base_url=fake.url_for("openai"),
        )
        return runner.run(request)
    finally:
        fake.close()


@pytest.fixture
def model_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def model_jobs(tmp_path: Path, *replies: str) -> list[Job]:
    """The model writer's job for each reply, over one engine-made record."""
    home = tmp_path / "home"
    record_id, _ = rc_record(home)
    jobs = [run_model_job(home, record_id, tmp_path / "out", reply) for reply in replies]
    assert all(job.status == "done" for job in jobs), [job.error for job in jobs]
    return jobs


@pytest.mark.usefixtures("model_keys")
def test_a_tool_word_in_a_models_prose_is_a_job_warning(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    job, chinese = model_jobs(tmp_path, TOOL_WORD_MD, TOOL_WORD_ZH)
    words = [f["text"] for f in job.snapshot()["audit"] if f["kind"] == "toolWord"]
    assert words == ["record", "slot", "formula", "derivation step"]
    assert any(
        "the article says 'slot', a word of the tool" in w for w in job.snapshot()["warnings"]
    )
    # The version travels in the job result, not in the article.
    assert job.snapshot()["promptVersion"] == "reckoner-article-prompt/4"

    assert [f["text"] for f in chinese.snapshot()["audit"]] == ["记录", "公式"]


@pytest.mark.usefixtures("model_keys")
def test_a_models_article_without_tool_words_audits_clean(tmp_path: Path) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    (job,) = model_jobs(tmp_path, CLEAN_MD)
    assert job.snapshot()["warnings"] == []


# -- the template always audits clean ------------------------------------------------------

UNITS = {
    "ohm": ["ohm", "kOhm", "MOhm"],
    "V": ["V", "mV", "kV"],
    "A": ["A", "mA", "uA"],
    "s": ["s", "ms", "min", "h"],
    "m": ["m", "mm", "km"],
    "K": ["K", "degC", "degF"],
    "W/(m*K)": ["W/(m*K)"],
    "kg/m^3": ["kg/m^3", "g/cm^3"],
}
magnitudes = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False).map(
    lambda x: float(f"{x:.4g}")
)


@st.composite
def engine_calls(draw: st.DrawFn) -> list[tuple[str, dict[str, Any]]]:
    """Givens with units (re-set now and then), evals over them with readings, messages
    and a closing text quoting the last reading."""
    calls: list[tuple[str, dict[str, Any]]] = [("record_start", {"title": "Generated"})]
    kinds = draw(st.lists(st.sampled_from(sorted(UNITS)), min_size=1, max_size=4))
    names: list[str] = []
    kind_of: dict[str, str] = {}
    for index, kind in enumerate(kinds):
        name = f"q{index}"
        unit = draw(st.sampled_from(UNITS[kind]))
        calls.append(("set", {"name": name, "value": {"num": draw(magnitudes), "unit": unit}}))
        if draw(st.booleans()):
            calls.append(("set", {"name": name, "value": {"num": draw(magnitudes), "unit": unit}}))
        names.append(name)
        kind_of[name] = kind
    calls.append(("record_message", {"text": "Each result follows from the givens."}))
    for index in range(draw(st.integers(1, 4))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        formula = draw(st.sampled_from([f"@{a} * @{b}", f"@{a} / @{b}", f"@{a} * 2"]))
        args: dict[str, Any] = {"formula": formula, "target": f"r{index}"}
        if draw(st.booleans()):
            args["read"] = {"digits": draw(st.integers(2, 6))}
            if formula.endswith("* 2") and kind_of[a] != "K":
                # A reading in another unit of the same quantity (2.948 mA for 0.002948 A).
                args["read"]["unit"] = draw(st.sampled_from(UNITS[kind_of[a]]))
        calls.append(("eval", args))
    return calls


# Each example runs the real engine on a fresh home and writes a record: fewer than the
# profile's examples keep it to seconds.
@settings(
    max_examples=60,
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(engine_calls())
def test_the_template_article_of_an_engine_record_always_audits_clean(
    tmp_path_factory: pytest.TempPathFactory, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    home = tmp_path_factory.mktemp("home")
    with Engine(home=str(home)) as engine:
        last: Any = None
        for tool, args in calls:
            receipt = engine.call(tool, args)
            assert receipt.get("ok") is True, (tool, args, receipt)
            if tool == "eval" and receipt.get("ok") and "value" in receipt:
                last = receipt["value"]
        closing = "Done."
        if isinstance(last, dict) and "num" in last:
            closing = f"The last result reads {last['num']} {last.get('unit') or ''}".strip()
        engine.call("record_end", {"text": closing})
    archive = RecordArchive(HomeLayout(home))
    record_id = archive.index().closed[0].id
    view = archive.read(record_id)
    assert view is not None
    facts = collect_facts(record_id, view.rows, is_open=False)
    assert prose_findings(facts) == []
    for fmt, lang in CASES:
        body = render(facts, lang, fmt)
        assert audit(body, facts) == [], body
        assert tool_words(body) == []


# -- the panel's line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("closing", "warned"),
    [("The current is 72.05 mA.", True), ("The current is 72.02 mA.", False)],
)
def test_the_panel_api_reports_a_prose_warning_so_every_number_matches_is_not_shown(
    tmp_path: Path, closing: str, warned: bool
) -> None:
    """The panel shows "Every number in the article matches the record" exactly when the
    job's warnings are empty (articles.js); over real HTTP, a prose typo fills them.
    Spec: docs/guide/articles.md (issue 23)."""
    from test_panel_articles import API, wait_for

    from panel_access import http_client
    from reckoner.panel.background import BackgroundPanel

    home = tmp_path / "home"
    record_id, _ = rc_record(home, closing=closing)
    (tmp_path / "out").mkdir()
    with BackgroundPanel(home) as panel, http_client(panel, timeout=30) as http:
        started = http.post(
            f"{API}/generate", json={"recordId": record_id, "directory": str(tmp_path / "out")}
        )
        assert started.status_code == 202, started.text
        job = wait_for(http, started.json()["jobId"])
    assert job["status"] == "done", job
    assert bool(job["warnings"]) is warned
    assert [f["kind"] for f in job["audit"]] == (["prose"] if warned else [])
