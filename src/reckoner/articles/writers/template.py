"""The template writer: a readable article from the facts alone, no model (issue 10).

Deterministic: the same facts give the same bytes. It shows the title, the conditions as a
table, the steps in order with the record's own explanations beside them and each formula
typeset from its syntax tree, each answered lookup (question, answer quoted verbatim, the
sources it credits), the results, and the closing text. Hidden messages are the
author's notes and never appear. Every number it writes is a cut fact, so it audits clean.
No I/O here.
"""

from __future__ import annotations

from collections.abc import Callable

from reckoner.articles.facts import Entry, Facts, Message, Value
from reckoner.articles.markup import Markup, markup_for
from reckoner.articles.mathtex import formula_latex, identifier
from reckoner.articles.pause import collector_paused
from reckoner.articles.writers.base import Draft
from reckoner.lookup.fact import LookupFact

_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "given": "Given",
        "quantity": "Quantity",
        "value": "Value",
        "unit": "Unit",
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
    },
    "zh-CN": {
        "given": "已知条件",
        "quantity": "量",
        "value": "数值",
        "unit": "单位",
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
    if facts.conditions:
        blocks.append(markup.heading(labels["given"], 2))
        blocks.append(markup.value_table(header, facts.conditions))
    visible = [e for e in facts.entries if not (isinstance(e, Message) and e.hidden)]
    if visible:
        blocks.append(markup.heading(labels["solution"], 2))
        blocks.extend(_solution(markup, labels, visible))
    results = _results(facts)
    if results:
        blocks.append(markup.heading(labels["results"], 2))
        blocks.append(markup.value_table(header, results))
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


def _solution(markup: Markup, labels: dict[str, str], entries: list[Entry]) -> list[str]:
    """The blocks of the solution: each message as a paragraph, each step as its typeset
    relation and the sentence substituting what it read, each lookup with its sources."""
    blocks: list[str] = []
    add = blocks.append
    paragraph, display, named = markup.paragraph, markup.display, markup.named
    named_each = markup.named_each
    before, between, after = _around(labels["substituting"], "reads", "result")
    alone, alone_after = _around(labels["gives"], "result")
    comma, last = labels["comma"], labels["and"]
    for step in entries:
        if isinstance(step, Message):
            add(paragraph(step.text))
            continue
        if isinstance(step, LookupFact):
            blocks.extend(_lookup(markup, labels, step))
            continue
        target = step.target
        tex = formula_latex(step.formula)
        if tex is not None:
            add(display(f"{identifier(target)} = {tex}"))
        else:
            # A formula an older build wrote and this parser refuses: shown as written.
            add(paragraph(step.formula))
        result = named(target, step.result)
        reads = step.reads
        if not reads:
            add(f"{alone}{result}{alone_after}")
            continue
        shown = named_each(reads)
        joined = shown[0] if len(shown) == 1 else f"{comma.join(shown[:-1])}{last}{shown[-1]}"
        add(f"{before}{joined}{between}{result}{after}")
    return blocks


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


def _results(facts: Facts) -> tuple[tuple[str, Value], ...]:
    """Each target's last result, in the order the targets first appeared."""
    latest: dict[str, Value] = {}
    for step in facts.steps:
        latest[step.target] = step.result
    return tuple(latest.items())
