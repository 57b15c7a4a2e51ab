"""The model writer: the facts go to a model in a context of its own (docs/guide/articles.md).

The prompt carries the manual's rules and a version string the job result reports. Facts
over the providers' token budget are refused before anything is sent. A LaTeX body is
checked by the host, and a reply cut off at its output limit is no article: either gets one
retry with the reason, then the job fails with that sentence. The provider itself is behind
``Asker`` (``reckoner.providers.chat``), so this module builds prompts and judges answers
and never touches the network.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from reckoner.articles.citation import receipt_id
from reckoner.articles.fact_model import (
    ArrayValue,
    Cplx,
    Dim,
    Element,
    Facts,
    Message,
    Num,
    Scalar,
    Value,
)
from reckoner.articles.latex import BodyRefusal, check_body
from reckoner.articles.markup import unit_name, unit_tex
from reckoner.articles.mathtex import formula_latex, identifier
from reckoner.articles.writers.base import Draft, WriterCancelled, WriterFailure
from reckoner.compute.fact import ComputeFact, Ending
from reckoner.lookup.fact import LookupFact
from reckoner.providers.budget import BYTES_PER_TOKEN, FACTS_TOKEN_BUDGET, estimated_tokens
from reckoner.providers.failures import ProviderFailure
from reckoner.providers.replies import Reply, Turn

# Travels in the job result and the audit sidecar, never in the prompt: a model echoes what
# it is shown, and the name would put the tool's word into the article.
PROMPT_VERSION = "reckoner-article-prompt/4"
_POLL_S = 0.1
_FENCE = re.compile(r"^\s*```[A-Za-z-]*\s*\n(?P<body>.*?)\n\s*```\s*$", re.DOTALL)


class Asker(Protocol):
    """A provider: a label for the job result, its output-token limit, one blocking request."""

    @property
    def label(self) -> str: ...

    @property
    def output_tokens(self) -> int: ...

    def ask(self, system: str, turns: Sequence[Turn]) -> Reply: ...


_LANGUAGE_NAMES = {"en": "English", "zh-CN": "Simplified Chinese"}


def system_prompt(language: str, format_name: str) -> str:
    """The rules every article is written under (docs/guide/articles.md), for one language and
    format."""
    if format_name == "tex":
        shape = (
            "Write the body of a LaTeX document only: no \\documentclass, no \\usepackage, no "
            "\\begin{document} or \\end{document}, no \\input or \\include, no file or shell "
            "commands. Use \\section*, \\subsection*, paragraphs, $...$ and \\[...\\] math, and "
            "the longtable, booktabs and amsmath environments, which are loaded. Escape literal "
            "$, %, #, &, _ as \\$, \\%, \\#, \\&, \\_."
        )
    else:
        shape = (
            "Write Markdown: # for the title, ## for sections, $...$ and $$...$$ for "
            "mathematics, tables in pipe syntax."
        )
    return "\n".join(
        [
            "You write a standalone solution article for a student, a reviewer or a client, "
            f"in {_LANGUAGE_NAMES[language]}, from the facts given as JSON.",
            "Rules:",
            "- Present the question (the title), the given conditions with their values and "
            "units, the solution steps in order with the explanations beside them, the results "
            "and the conclusion (the closing text).",
            "- Every number you write must be one of the numbers in the facts, exactly as given "
            "or rounded from it. Never invent, recompute, convert or derive a number.",
            "- Show each relation as mathematics (the facts give it in LaTeX), never as code.",
            "- An entry of kind lookup is a fact looked up from outside sources: state its "
            "question and quote its answer with each number and unit exactly as written, never "
            "recomputed or converted, and credit every one of its sources (title, date and URL) "
            "in the article. When openWebUnverified is true, say that the answer was looked up "
            "on the open web and is not verified.",
            "- An entry of kind computation is a program run whose archived receipt backs it: "
            "name its engine and version, cite it as computation receipt <receiptId> (in "
            "typewriter type) with its receipt path in a footnote (\\footnote in LaTeX, a "
            "[^1] footnote in Markdown) as the source of what it shows, and quote its output "
            "verbatim in a code block (Markdown) "
            "or a verbatim-looking typewriter block with every special character escaped "
            "(LaTeX). Never recompute, rerun, round or convert its numbers. When its outcome is "
            "failed, say that the run failed and how (failure), and never present its output "
            "as a result.",
            "- An entry of kind authorNote is guidance from the author: do not copy or quote "
            "it, and never let it change a number.",
            "- Apart from a computation's engine and receipt, do not mention any calculation "
            "engine, tool, harness, record, trace, slot, formula syntax, derivation steps as a "
            "process, or how this article was generated; call a relation an equation or a "
            "relation, never a formula.",
            f"- {shape}",
            "- Answer with the article alone, with no preamble and no code fence around it.",
        ]
    )


def _element_text(element: Element) -> str:
    if isinstance(element, tuple):
        return "[" + ", ".join(_element_text(item) for item in element) + "]"
    if isinstance(element, Num):
        return element.text
    return _complex_text(element)


def _complex_text(number: Cplx) -> str:
    sign = "-" if number.im.startswith("-") else "+"
    return f"{number.re} {sign} {number.im.lstrip('-')}j"


def _unit(dim: Dim) -> str:
    if not any(dim):
        return ""
    name = unit_name(dim)
    return name if name else unit_tex(dim)


def value_json(value: Value) -> object:
    """A cut value as the model receives it: ``{"value": "6875", "unit": "ohm", "dim": [...]}``;
    the ``dim`` keeps its 7 integers, uncut (docs/guide/articles.md)."""
    if isinstance(value, Scalar):
        number = value.number
        shown = number.text if isinstance(number, Num) else _complex_text(number)
        return {"value": shown, "unit": _unit(value.dim), "dim": list(value.dim)}
    if isinstance(value, ArrayValue):
        return {
            "value": _element_text(value.items),
            "unit": _unit(value.dim),
            "dim": list(value.dim),
        }
    return {name: value_json(sub) for name, sub in value.fields}


def facts_json(facts: Facts) -> str:
    """The facts as the model's user message: cut numbers, unit names, LaTeX relations."""
    sequence: list[dict[str, object]] = []
    for entry in facts.entries:
        if isinstance(entry, Message):
            kind = "authorNote" if entry.hidden else "explanation"
            sequence.append({"kind": kind, "text": entry.text})
            continue
        if isinstance(entry, LookupFact):
            sequence.append(
                {
                    "kind": "lookup",
                    "question": entry.question,
                    "answer": entry.answer,  # verbatim: the four-decimal cut does not apply
                    "openWebUnverified": entry.open_web,
                    "sources": [source.line() for source in entry.sources],
                }
            )
            continue
        if isinstance(entry, ComputeFact):
            sequence.append(_computation_json(entry))
            continue
        tex = formula_latex(entry.formula)
        relation = f"{identifier(entry.target)} = {tex}" if tex else entry.formula
        sequence.append(
            {
                "kind": "step",
                "quantity": entry.target,
                "symbol": identifier(entry.target),
                "relation": relation,
                "inputs": {name: value_json(value) for name, value in entry.reads},
                "result": value_json(entry.result),
            }
        )
    document = {
        "title": facts.title,
        "conditions": {name: value_json(value) for name, value in facts.conditions},
        "sequence": sequence,
        "closing": facts.closing,
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


_FAILURES = {
    Ending.EXITED: "exited with a nonzero status",
    Ending.TIMED_OUT: "passed its time limit and was stopped",
    Ending.NOT_STARTED: "the engine could not be started",
}


def _computation_json(run: ComputeFact) -> dict[str, object]:
    """A run as the model receives it: what ran, how it ended, its receipt, its output."""
    entry: dict[str, object] = {
        "kind": "computation",
        "engine": run.engine,
        "version": run.version,
        # The run id is left out: it is the tool's own naming (it may spell the tool's name),
        # and the receipt id cites the run uniquely.
        "receiptId": receipt_id(run.receipt),
        "attempt": run.attempt,
        "outcome": "failed" if run.failed else "result",
        "exitStatus": run.exit,
        "receipt": run.receipt,
        "output": run.output,  # verbatim: the four-decimal cut does not apply
    }
    if run.failed:
        entry["failure"] = _FAILURES[run.ending]
    return entry


def _unfence(text: str) -> str:
    match = _FENCE.match(text)
    return match.group("body") if match else text


def refuse_oversized(facts_text: str) -> None:
    """WriterFailure, before any request, when the facts would not fit the token budget."""
    tokens = estimated_tokens(facts_text)
    if tokens <= FACTS_TOKEN_BUDGET:
        return
    size = len(facts_text.encode("utf-8"))
    raise WriterFailure(
        f"The record's facts are {size:,} bytes of JSON, about {tokens:,} tokens (bytes / "
        f"{BYTES_PER_TOKEN}), over the {FACTS_TOKEN_BUDGET:,}-token budget of one model call, "
        "so nothing was sent; use the template writer, or write the article from a record "
        "with fewer rows."
    )


class ModelWriter:
    """Writes through one provider; one retry when a reply is cut off at its output limit
    or the host refuses a LaTeX body."""

    def __init__(self, asker: Asker) -> None:
        self.asker = asker
        self.name = asker.label

    def write(
        self, facts: Facts, language: str, format_name: str, cancelled: Callable[[], bool]
    ) -> Draft:
        system = system_prompt(language, format_name)
        user = facts_json(facts)
        refuse_oversized(user)
        turns: list[Turn] = [("user", user)]
        for attempt in (1, 2):
            reply = self._ask(system, turns, cancelled)
            # A reply's line ends may be CRLF; the body the check and the file see has LF.
            text = reply.text.replace("\r\n", "\n").replace("\r", "\n")
            body = _unfence(text).strip()
            problem = self._problem(reply, body, format_name)
            if problem is None:
                return Draft(body + "\n", self.name, PROMPT_VERSION, attempt)
            failure, retry = problem
            if attempt == 2:
                raise WriterFailure(failure)
            turns.append(("assistant", body or "..."))
            turns.append(("user", retry))
        raise AssertionError("unreachable")  # pragma: no cover

    def _problem(self, reply: Reply, body: str, format_name: str) -> tuple[str, str] | None:
        """Why a reply is no article: (the job's failure if it happens twice, the retry's
        request); None for a body to keep."""
        limit = self.asker.output_tokens
        if reply.cut_off:
            return (
                f"The model {self.asker.label} stopped at its output limit of {limit:,} tokens "
                "twice, so its article was unfinished and nothing was written; write from a "
                "record with fewer rows, choose another model, or use the template writer.",
                f"That reply stopped at the output limit of {limit:,} tokens before the "
                "article was finished. Write the whole article again, shorter, so that it "
                "ends well within the limit; send the article alone.",
            )
        if not any(ch.isalpha() for ch in body):
            raise WriterFailure(
                f"The model {self.asker.label} answered with no article text; try again or "
                "use the template writer."
            )
        if format_name != "tex":
            return None
        try:
            check_body(body)
        except BodyRefusal as refusal:
            return (
                f"The model's LaTeX body was refused twice; the second time: {refusal}",
                f"The host refused that body: {refusal} Send the corrected body alone.",
            )
        return None

    def _ask(self, system: str, turns: Sequence[Turn], cancelled: Callable[[], bool]) -> Reply:
        """The provider's reply, asked on a helper thread so a cancel need not wait for it."""
        outcome: dict[str, object] = {}

        def run() -> None:
            try:
                outcome["reply"] = self.asker.ask(system, list(turns))
            except Exception as failure:
                outcome["failure"] = failure

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(_POLL_S)
            if cancelled():
                # The reply, whenever it comes, is dropped with the thread.
                raise WriterCancelled
        failure = outcome.get("failure")
        if isinstance(failure, ProviderFailure):
            raise WriterFailure(failure.sentence) from None
        if isinstance(failure, Exception):
            # Its text is not quoted: an SDK's message may carry the request, key and all.
            raise WriterFailure(
                f"The model {self.asker.label} could not be asked ({type(failure).__name__}); "
                "check the writer settings, or use the template writer."
            ) from None
        reply = outcome.get("reply")
        return reply if isinstance(reply, Reply) else Reply("")
