"""The template writer: a readable article from the facts alone, no model (issue 10).

Deterministic: the same facts give the same bytes. It shows the title, the givens as a
table (each in the unit it was given in, each revision a step used, the SI value beside it
where a step read it), the steps in order (a step overwritten before anything read it folded
into its correction) with the record's own explanations beside them and each formula
typeset from its syntax tree, each answered lookup (question, answer quoted verbatim, the
sources it credits), each archived compute run (engine and version, run and attempt, how it
ended, its output verbatim and its receipt cited by a short id with its path in a
footnote; a failed run as a failure, never a result), a figure for each sweep, the results
(as the eval read them), and the closing text. Hidden messages are the author's notes and
never appear. Every number it writes is a fact as given, as read or cut to four significant
figures, so it audits clean.
No I/O here.
"""

from __future__ import annotations

from collections.abc import Callable

from reckoner.articles.citation import receipt_id
from reckoner.articles.fact_model import (
    Entry,
    Facts,
    Message,
    Num,
    ObjectValue,
    Scalar,
    Step,
    Value,
)
from reckoner.articles.figures import figure_blocks
from reckoner.articles.markup import Markup, markup_for
from reckoner.articles.mathtex import formula_latex, identifier
from reckoner.articles.quantities import Given
from reckoner.articles.writers.base import Draft
from reckoner.compute.fact import ComputeFact, Ending
from reckoner.host.collector import collector_paused
from reckoner.lookup.fact import LookupFact

_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "given": "Given",
        "quantity": "Quantity",
        "value": "Value",
        "unit": "Unit",
        "si": "SI value",
        "revision": "{name} (revision {revision} of {revisions})",
        "solution": "Solution",
        "results": "Results",
        "conclusion": "Conclusion",
        "substituting": "Substituting {reads} gives {result}.",
        "gives": "This gives {result}.",
        "and": " and ",
        "comma": ", ",
        "lookup": "Looked up: {question}",
        "open_web": "Looked up on the open web and not verified.",
        "sources": "Sources:",
        "computed": "Computed with {engine} (computation receipt {run}, attempt {attempt}): it "
        "exited with status {exit}.",
        "compute_failed": "A computation with {engine} (computation receipt {run}, attempt "
        "{attempt}) failed: {how}, so it gave no result.",
        Ending.EXITED.value: "it exited with status {exit}",
        Ending.TIMED_OUT.value: "it passed its time limit and was stopped",
        Ending.NOT_STARTED.value: "the engine could not be started",
        "unversioned": "{engine} (version not reported)",
        "output": "Its output:",
        "partial_output": "What it printed before it stopped, which is not a result:",
        "no_output": "It printed nothing.",
        "receipt": "Receipt file: {receipt}",
    },
    "zh-CN": {
        "given": "已知条件",
        "quantity": "量",
        "value": "数值",
        "unit": "单位",
        "si": "国际单位制数值",
        "revision": "{name}（第 {revision} 版，共 {revisions} 版）",
        "solution": "求解过程",
        "results": "结果",
        "conclusion": "结论",
        "substituting": "代入 {reads}，得 {result}。",
        "gives": "得 {result}。",
        "and": " 和 ",
        "comma": "、",
        "lookup": "查询：{question}",
        "open_web": "此答案查自开放网络，未经核实。",
        "sources": "来源：",
        "computed": "用 {engine} 计算（计算回执 {run}，第 {attempt} 次尝试）：退出状态为 {exit}。",
        "compute_failed": "用 {engine} 的计算（计算回执 {run}，第 {attempt} 次尝试）失败：{how}，"
        "没有给出结果。",
        Ending.EXITED.value: "退出状态为 {exit}",
        Ending.TIMED_OUT.value: "超出时间限制而被终止",
        Ending.NOT_STARTED.value: "引擎未能启动",
        "unversioned": "{engine}（未报告版本）",
        "output": "输出：",
        "partial_output": "终止前的输出（不是结果）：",
        "no_output": "没有输出。",
        "receipt": "回执文件：{receipt}",
    },
}


class TemplateWriter:
    """The default writer, and the one that runs offline."""

    name = "template"

    def write(
        self,
        facts: Facts,
        language: str,
        format_name: str,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Draft:
        return Draft(body=render(facts, language, format_name), writer=self.name)


@collector_paused()
def render(facts: Facts, language: str, format_name: str) -> str:
    """The article body for ``format_name`` (``md`` or ``tex``) in ``language``."""
    labels = _LABELS[language]
    # "$j" cannot straddle two formulas: the newline between them is no formula character.
    imaginary = "j" if "$j" in "\n".join([step.formula for step in facts.steps]) else "i"
    markup = markup_for(format_name, imaginary)
    blocks = [markup.heading(facts.title, 1)]
    header = (labels["quantity"], labels["value"], labels["unit"])
    if facts.givens:
        blocks.append(markup.heading(labels["given"], 2))
        blocks.append(_given_table(markup, labels, facts.givens))
    visible = [e for e in facts.entries if not (isinstance(e, Message) and e.hidden)]
    if visible:
        blocks.append(markup.heading(labels["solution"], 2))
        figures = figure_blocks(facts, markup, language)
        blocks.extend(_solution(markup, labels, visible, facts, figures))
    results = _results(facts)
    if results:
        blocks.append(markup.heading(labels["results"], 2))
        blocks.append(_result_table(markup, header, results))
    if facts.closing:
        blocks.append(markup.heading(labels["conclusion"], 2))
        blocks.append(markup.paragraph(facts.closing))
    return "\n\n".join(blocks) + "\n"


def _around(label: str, *fields: str) -> list[str]:
    """A label's text around its fields, in their order: ``Substituting {reads} gives
    {result}.`` -> ``["Substituting ", " gives ", "."]`` (joined with the values in between,
    without parsing the label again for every step)."""
    pieces: list[str] = []
    rest = label
    for name in fields:
        head, _, rest = rest.partition("{" + name + "}")
        pieces.append(head)
    pieces.append(rest)
    return pieces


def _solution(
    markup: Markup,
    labels: dict[str, str],
    entries: list[Entry],
    facts: Facts,
    figure: Callable[[Step], list[str]],
) -> list[str]:
    """The blocks of the solution: each message as a paragraph, each step as its typeset
    relation and the sentence substituting what it read (and its ``figure`` when it is a
    sweep), each lookup with its sources, each computation with its receipt."""
    blocks: list[str] = []
    add, paragraph = blocks.append, markup.paragraph
    write_step = _step_writer(markup, labels, blocks)
    folded = facts.folded
    for step in entries:
        if type(step) is Step:
            if step.seq not in folded:  # else overwritten before anything read it: shown there
                write_step(step)
                blocks.extend(figure(step))  # issue 23: a sweep's figure
        elif type(step) is Message:
            add(paragraph(step.text))
        elif isinstance(step, LookupFact):
            blocks.extend(_lookup(markup, labels, step))
        elif isinstance(step, ComputeFact):
            blocks.extend(_computation(markup, labels, step))
    return blocks


def _step_writer(
    markup: Markup, labels: dict[str, str], blocks: list[str]
) -> Callable[[Step], None]:
    """What adds one step's blocks: its typeset relation, then the sentence substituting
    what it read into it (or giving its result, when it read nothing)."""
    add, paragraph = blocks.append, markup.paragraph
    opening, closing = markup.display_marks
    # A step is most of an article: each value's tail is looked up in the markup's dict
    # (made on first sight), and the target's name is typeset once for the relation and
    # its sentence. The closure keeps all of it in fast local cells.
    tail_of, known_tail = markup.tail, markup.tails.get
    before, between, after = _around(labels["substituting"], "reads", "result")
    alone, alone_after = _around(labels["gives"], "result")
    comma, last = labels["comma"], labels["and"]

    def write(step: Step) -> None:
        target = identifier(step.target)
        tex = formula_latex(step.formula)
        if tex is not None:
            add(f"{opening}{target} = {tex}{closing}")
        else:
            # A formula an older build wrote and this parser refuses: shown as written.
            add(paragraph(step.formula))
        value = step.result
        if step.reading is not None:
            # The result as the model read it (2.948 mA), not its SI value.
            number, unit = markup.reading(step.reading.number, step.reading.unit)
            result = f"${target} = {markup.after(number, unit)}"
        else:
            result = f"${target}{known_tail(id(value)) or tail_of(value)}"
        reads = step.reads
        if not reads:
            add(f"{alone}{result}{alone_after}")
            return
        shown = [f"${identifier(name)}{known_tail(id(v)) or tail_of(v)}" for name, v in reads]
        joined = shown[0] if len(shown) == 1 else f"{comma.join(shown[:-1])}{last}{shown[-1]}"
        add(f"{before}{joined}{between}{result}{after}")

    return write


def _lookup(markup: Markup, labels: dict[str, str], lookup: LookupFact) -> list[str]:
    """The question, the answer quoted verbatim and uncut, the open-web mark, the sources."""
    blocks = [
        markup.paragraph(labels["lookup"].format(question=lookup.question)),
        markup.quote(lookup.answer),
    ]
    if lookup.open_web:
        blocks.append(markup.paragraph(labels["open_web"]))
    if lookup.sources:
        blocks.append(markup.paragraph(labels["sources"]))
        blocks.append(markup.bullets([markup.source(source) for source in lookup.sources]))
    return blocks


def _computation(markup: Markup, labels: dict[str, str], run: ComputeFact) -> list[str]:
    """How the run ended, its output verbatim (a failed run's as not a result), and its
    receipt as the citation: its short id in the sentence, its path in a footnote (the run
    id is the tool's own naming and is not shown)."""
    engine = markup.text(f"{run.engine} {run.version}" if run.version else run.engine)
    if run.version is None:
        engine = labels["unversioned"].format(engine=engine)
    cited = receipt_id(run.receipt)
    path = labels["receipt"].format(receipt=markup.code(run.receipt))
    if markup.format == "tex":
        mark, note = f"{markup.code(cited)}\\footnote{{{path}}}", None
    else:
        mark, note = f"{markup.code(cited)}[^{cited}]", f"[^{cited}]: {path}"
    shown = {"engine": engine, "run": mark, "attempt": run.attempt}
    if run.failed:
        how = labels[run.ending.value].format(exit=run.exit)
        blocks = [labels["compute_failed"].format(how=how, **shown)]
        if run.output:
            blocks += [labels["partial_output"], markup.code_block(run.output)]
    else:
        blocks = [labels["computed"].format(exit=run.exit, **shown)]
        if run.output:
            blocks += [labels["output"], markup.code_block(run.output)]
        else:
            blocks.append(labels["no_output"])
    if note is not None:
        blocks.append(note)
    return blocks


def _results(facts: Facts) -> tuple[Step, ...]:
    """Each target's last step, in the order the targets first appeared."""
    latest: dict[str, Step] = {}
    for step in facts.steps:
        latest[step.target] = step
    return tuple(latest.values())


def _result_table(markup: Markup, header: tuple[str, ...], results: tuple[Step, ...]) -> str:
    """Each result as the model read it, else its value in SI (an object a row per field)."""
    rows: list[tuple[str, ...]] = []
    for step in results:
        if step.reading is None:
            rows.extend(markup.rows(step.target, step.result))
            continue
        number, unit = markup.reading(step.reading.number, step.reading.unit)
        rows.append(
            (markup.math(identifier(step.target)), markup.math(number), markup.unit_cell(unit))
        )
    return markup.table(header, rows)


def _number_text(value: Value) -> str | None:
    if isinstance(value, Scalar) and isinstance(value.number, Num):
        return value.number.text
    return None


def _given_table(markup: Markup, labels: dict[str, str], givens: tuple[Given, ...]) -> str:
    """Each given as it was given (4.07 kΩ, 15 °C); its SI value beside it where a step read
    it in SI; a slot's values a row each, numbered, where it was revised."""
    rows: list[list[str]] = []
    any_si = False
    for given in givens:
        name = markup.math(identifier(given.name))
        if given.revisions > 1:
            name = labels["revision"].format(
                name=name, revision=given.revision, revisions=given.revisions
            )
        if isinstance(given.value, ObjectValue) or given.shown is None:
            for quantity, shown, unit in markup.rows(given.name, given.value):
                rows.append(
                    [
                        name if quantity == markup.math(identifier(given.name)) else quantity,
                        shown,
                        unit,
                        "—",
                    ]
                )
            continue
        number, unit = markup.reading(given.shown.number, given.shown.unit)
        si = "—"
        if given.used and _number_text(given.value) != given.shown.number:
            # A step reads the SI value: it stands beside the given where it differs.
            si = markup.si(given.value)
            any_si = True
        rows.append([name, markup.math(number), markup.unit_cell(unit), si])
    header = (labels["quantity"], labels["value"], labels["unit"])
    if any_si:
        return markup.table((*header, labels["si"]), [tuple(row) for row in rows])
    return markup.table(header, [tuple(row[:3]) for row in rows])
