"""A closed record reduced to the facts an article may use (docs/guide/articles.md). No I/O here.

The title, the conditions (accepted ``set`` rows accumulated per slot; a deletion removes
the name), the messages, the steps, the answered lookups and the archived compute runs
interleaved by ``seq``, and the closing text. Every number is cut before a writer sees it;
the record keeps the stored numbers. Refused rows and ``get`` rows carry nothing, except a
compute run that failed after it was archived: its receipt says it failed, and an article
says so too. A row whose content does not have the shape its tool writes is skipped like a
refused one, so a damaged record still yields what it holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from operator import itemgetter
from typing import Any

from reckoner.articles.fact_model import ArticleRefusal, Facts, Message, Num, Scalar, Step, Value
from reckoner.articles.fact_values import (
    Collector,
    bare,
    cut_numbers,
    put_message_hidden,
    put_message_seq,
    put_message_text,
    put_step_formula,
    put_step_reading,
    put_step_reads,
    put_step_result,
    put_step_seq,
    put_step_target,
    read_reading,
    read_value,
    written_reading,
)
from reckoner.articles.quantities import folded, givens
from reckoner.compute.fact import ComputeFact, compute_fact
from reckoner.host.collector import collector_paused
from reckoner.lookup.fact import lookup_fact


def _read_start(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    title = content.get("title")
    if facts.title is None and isinstance(title, str):
        facts.title = title
        facts.texts.append(title)


def _read_message(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    text = content.get("text")
    if not isinstance(text, str):
        return
    hidden = content.get("hide") is True
    message: Message = bare(Message)
    put_message_seq(message, seq)
    put_message_text(message, text)
    put_message_hidden(message, hidden)
    facts.entries.append(message)
    if not hidden:
        # An author's note must not put a number into the article, so its numbers are not facts.
        facts.texts.append(text)


def _read_set(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    name = content.get("name")
    if not isinstance(name, str):
        return
    raw = content.get("value")
    if raw is None:
        facts.conditions.pop(name, None)
        facts.current.pop(name, None)
        return
    value = read_value(raw, facts)
    if value is not None:
        # A re-set keeps the slot's place in the table, with its latest value.
        facts.conditions[name] = value
        if type(value) is Scalar and type(value.number) is Num and type(raw) is dict:
            facts.given_numbers.add(float(raw["num"]))
        # The unit it was given in first; a given stored as SI shows its reading, if any
        # (a phase set in radians and read in degrees).
        unit, reading = content.get("unit"), content.get("reading")
        shown = None
        if unit is not None:
            shown = written_reading(value, raw, unit, facts)
        if shown is None and reading is not None:
            shown = read_reading(reading, facts)
        history = facts.revisions.get(name)
        if history is None:
            history = facts.revisions[name] = []
        history.append((value, shown))
        facts.current[name] = len(history)
    else:
        facts.current.pop(name, None)


def _read_eval(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    formula, target = content.get("formula"), content.get("target")
    if not isinstance(formula, str) or not formula or not isinstance(target, str):
        return
    result = read_value(content.get("result"), facts)
    if result is None:
        return
    raw_vars = content.get("vars")
    reads: list[tuple[str, Value]] = []
    if isinstance(raw_vars, dict):
        reals = facts.reals
        for name, raw in raw_vars.items():
            if type(name) is not str:
                name = str(name)
            # Most reads are a real an earlier row stored, found here by its number and dim
            # list as ``read_value`` would find it, without the call.
            if type(raw) is dict and len(raw) == 2:
                number = raw.get("num")
                if type(number) is float or type(number) is int:
                    seen = reals.get(number)
                    if seen is not None and seen[0] == raw.get("dim"):
                        reads.append((name, seen[1]))
                        continue
            value = read_value(raw, facts)
            if value is not None:
                reads.append((name, value))
    facts.texts.append(formula)
    current = facts.current
    if current:
        used = [(name, current[name]) for name, _ in reads if name in current]
        if used:
            facts.step_reads[seq] = used
        current.pop(target, None)  # a step wrote over the given
    step: Step = bare(Step)
    put_step_seq(step, seq)
    put_step_formula(step, formula)
    put_step_target(step, target)
    put_step_reads(step, tuple(reads))
    put_step_result(step, result)
    reading = content.get("value")  # an eval row keeps its reading under value
    put_step_reading(step, None if reading is None else read_reading(reading, facts))
    facts.entries.append(step)


def _read_search(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    found = lookup_fact(seq, content)
    if found is None:
        return  # refused, insufficient or failed: nothing was learned
    facts.entries.append(found)
    # The answer is quoted as written (never cut), so its numbers, and those of the question
    # and the source lines an article credits, are facts the audit accepts.
    facts.texts.extend([found.question, found.answer, *(source.line() for source in found.sources)])


def _read_compute(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    _add_run(facts, compute_fact(seq, content, ok=True))


def _read_failed_compute(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    _add_run(facts, compute_fact(seq, content, ok=False))


def _add_run(facts: Collector, run: ComputeFact | None) -> None:
    if run is None:
        return  # refused before the archive: nothing ran
    facts.entries.append(run)
    # The run's own words are quoted as they are (never cut), so the numbers of its output,
    # its engine's version, its id and its receipt's path are facts the audit accepts.
    facts.texts.extend([run.output, run.version or "", run.run_id, run.receipt])
    facts.integers.add(run.attempt)
    if run.exit is not None:
        facts.integers.add(run.exit)


def _read_end(facts: Collector, seq: int, content: Mapping[str, Any]) -> None:
    text = content.get("text")
    # The last accepted end row wins; an empty or blank text counts as absent
    # (docs/guide/records.md).
    facts.closing = text if isinstance(text, str) and text.strip() else None


RowReader = Callable[[Collector, int, Mapping[str, Any]], None]


# The place where a row kind adds its facts. ``get`` rows carry nothing; a later kind adds
# its reader here and its entry type beside Message, Step, LookupFact and ComputeFact.
ROW_READERS: dict[str, RowReader] = {
    "record_start": _read_start,
    "record_message": _read_message,
    "set": _read_set,
    "eval": _read_eval,
    "search": _read_search,
    "compute": _read_compute,
    "record_end": _read_end,
}

# Refused rows carry nothing, except where the refusal is itself on record as a fact: a
# compute run that was archived and then failed.
REFUSED_ROW_READERS: dict[str, RowReader] = {"compute": _read_failed_compute}


@collector_paused()
def collect_facts(record_id: str, rows: Iterable[Mapping[str, Any]], *, is_open: bool) -> Facts:
    """The facts of a closed record; the open record is refused with one sentence."""
    if is_open:
        raise ArticleRefusal(
            f"Record {record_id} is still open, so it has no article yet; end it with "
            "record_end and generate again."
        )
    rows = rows if isinstance(rows, list | tuple) else list(rows)
    facts = Collector()
    if not _read_in_order(rows, facts):
        # A record is written in seq order; a file edited out of it is read sorted (stably,
        # so rows sharing a seq keep their order in the file).
        ordered = [
            row
            for row in rows
            if type(row.get("seq")) is int and (row.get("ok") is True or _read_refused(row))
        ]
        ordered.sort(key=_seq_of)
        facts = Collector()
        _read_in_order(ordered, facts)
    cut_numbers(facts)
    if facts.title is None:
        raise ArticleRefusal(
            f"Record {record_id} has no accepted record_start row, so it has no title to "
            "write about; it cannot become an article."
        )
    entries = tuple(facts.entries)
    replaced = folded(entry for entry in entries if type(entry) is Step)
    listed = givens(facts.revisions, facts.current, facts.step_reads, replaced)
    for given in listed:
        if given.revisions > 1:  # the article numbers them: "revision 1 of 2"
            facts.integers.update((given.revision, given.revisions))
    return Facts(
        record_id=record_id,
        title=facts.title,
        conditions=tuple(facts.conditions.items()),
        entries=entries,
        closing=facts.closing,
        givens=listed,
        folded=replaced,
        _sources=facts,
        rows=rows,
    )


def _read_in_order(rows: Iterable[Mapping[str, Any]], facts: Collector) -> bool:
    """Read the accepted rows (and the refused ones a reader is kept for) into ``facts``;
    False (and ``facts`` half read) as soon as one comes before the row read last in seq
    order."""
    readers = ROW_READERS
    refused_readers = REFUSED_ROW_READERS
    fields = _ROW_FIELDS
    last: float = -math.inf
    for row in rows:
        try:
            ok, seq, tool, content = fields(row)  # one call for the four a reader needs
        except KeyError:  # a row the engine did not write whole: field by field
            ok, seq, tool, content = (row.get(key) for key in _ROW_KEYS)
        if type(seq) is not int:
            continue
        if ok is True:
            reader = readers.get(tool if type(tool) is str else str(tool))
        elif ok is False and type(tool) is str and tool in refused_readers:
            reader = refused_readers[tool]  # a failed run that was archived
        else:
            continue
        if seq < last:
            return False
        last = seq
        if reader is not None and (type(content) is dict or isinstance(content, dict)):
            reader(facts, seq, content)
    return True


_ROW_KEYS = ("ok", "seq", "tool", "content")
_ROW_FIELDS = itemgetter(*_ROW_KEYS)
_seq_of = itemgetter("seq")


def _read_refused(row: Mapping[str, Any]) -> bool:
    tool = row.get("tool")
    return row.get("ok") is False and type(tool) is str and tool in REFUSED_ROW_READERS
