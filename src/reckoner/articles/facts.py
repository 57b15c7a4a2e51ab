"""A closed record reduced to the facts an article may use (manual 10). No I/O here.

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
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from functools import cached_property
from itertools import starmap
from operator import itemgetter
from typing import Any

from reckoner.articles.numbers import cut_all, shown_given
from reckoner.articles.pause import collector_paused
from reckoner.articles.quantities import Given, Reading, as_written, folded, givens, reading_of
from reckoner.compute.fact import ComputeFact, compute_fact
from reckoner.lookup.fact import LookupFact, lookup_fact
from reckoner.units.prose import decimals, text_numbers

Dim = tuple[int, int, int, int, int, int, int]
ZERO_DIM: Dim = (0, 0, 0, 0, 0, 0, 0)

LANGUAGES = ("auto", "en", "zh-CN")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef]")


class ArticleRefusal(ValueError):
    """A record or a request that cannot become an article; the message is one sentence."""


@dataclass(frozen=True, slots=True)
class Num:
    """A cut real: the text a writer shows."""

    text: str


@dataclass(frozen=True, slots=True)
class Cplx:
    """A cut complex, rectangular."""

    re: str
    im: str


Element = Num | Cplx | tuple["Element", ...]


@dataclass(frozen=True, slots=True)
class Scalar:
    number: Num | Cplx
    dim: Dim


@dataclass(frozen=True, slots=True)
class ArrayValue:
    items: tuple[Element, ...]
    dim: Dim


@dataclass(frozen=True, slots=True)
class ObjectValue:
    fields: tuple[tuple[str, Value], ...]


Value = Scalar | ArrayValue | ObjectValue


@dataclass(frozen=True, slots=True)
class Message:
    seq: int
    text: str
    hidden: bool


@dataclass(frozen=True, slots=True)
class Step:
    seq: int
    formula: str
    target: str
    reads: tuple[tuple[str, Value], ...]
    result: Value
    # The eval's reading (the first, where it asked for several), None without one.
    reading: Reading | None


# A lookup's entry is the lookup's own fact (``reckoner.lookup.fact``): question, answer
# verbatim, the sources it relied on and whether it came from the open web. A compute run's
# is the run's own fact (``reckoner.compute.fact``): engine, run, ending, receipt, output.
Entry = Message | Step | LookupFact | ComputeFact


@dataclass(frozen=True)
class Facts:
    """What an article may say, and the stored numbers behind it (for the audit)."""

    record_id: str
    title: str
    conditions: tuple[tuple[str, Value], ...]
    entries: tuple[Entry, ...]
    closing: str | None
    # Each value of a given slot a step used, with its revision, and each slot's last value.
    givens: tuple[Given, ...]
    # The seqs of the steps a later one overwrote before any step read them (``_folded``).
    folded: frozenset[int]
    # What the reference is built from, kept raw: only the audit needs it, so it is built
    # on first use rather than with every article.
    _sources: _Collector = field(repr=False, compare=False)
    # The rows themselves, for the audit's quantities (``articles.ties``): which number
    # belongs to which name, every revision and reading included. Read only by the audit.
    rows: Sequence[Mapping[str, Any]] = field(default=(), repr=False, compare=False)

    @cached_property
    def reference(self) -> tuple[Decimal, ...]:
        """Every number the record holds that a writer may show, at full precision, sorted:
        stored values, dimension exponents, array lengths, formula literals and the prose."""
        return _reference(self._sources)

    @cached_property
    def _stored(self) -> dict[int, float]:
        """Each cut real's stored number, by the cut's identity (one Num per number)."""
        return {id(num): x for x, num in self._sources.numbers.items()}

    def series(self, value: Value) -> tuple[float, ...] | None:
        """The stored numbers of a sweep (a flat array of at least two finite reals, the
        panel's ``realSeries``), else None: a figure draws them (issue 23)."""
        if type(value) is not ArrayValue or len(value.items) < 2:
            return None
        stored = self._stored
        numbers = []
        for item in value.items:
            x = stored.get(id(item)) if type(item) is Num else None
            if x is None or not math.isfinite(x):
                return None
            numbers.append(float(x))
        return tuple(numbers)

    @cached_property
    def steps(self) -> tuple[Step, ...]:
        return tuple(entry for entry in self.entries if type(entry) is Step)

    @property
    def prose(self) -> Iterable[str]:
        """The record's own visible words: the title, every message not hidden, the closing
        text (a hidden note is the author's, never the article's)."""
        yield self.title
        for entry in self.entries:
            if isinstance(entry, Message) and not entry.hidden:
                yield entry.text
        if self.closing:
            yield self.closing


class _Collector:
    """The facts as rows are read, in seq order."""

    def __init__(self) -> None:
        self.title: str | None = None
        self.conditions: dict[str, Value] = {}
        self.entries: list[Entry] = []
        self.closing: str | None = None
        # Every distinct stored number. Its text is cut for all of them at once when the
        # rows are read (``_cut_numbers``); until then a Num has no text.
        self.numbers: dict[float, Num] = {}
        # The complex numbers made meanwhile, each with the two numbers it shows.
        self.pairs: list[tuple[Cplx, Num, Num]] = []
        self.texts: list[str] = []
        self.integers: set[int] = set()
        # Every distinct dim list seen, checked once: a record repeats a few vectors.
        self.dims: dict[tuple[object, ...], Dim] = {}
        # A real's Scalar by its number alone, with the first dim list it came with: a
        # step's reads repeat the stored values, and a number and a list compare cheaper
        # than an 8-tuple is built and hashed. The same number with another dim list is
        # found by the whole key in ``scalars``.
        self.reals: dict[float, tuple[list[Any], Scalar]] = {}
        self.scalars: dict[tuple[object, ...], Scalar] = {}
        # Complex numbers and arrays by their content (``_value``).
        self.shared: dict[tuple[object, ...], Scalar | ArrayValue] = {}
        # Every value each given slot held, in order, as (value, as given); the revision
        # (1-based) each slot holds now (none once deleted or written by a step); per step
        # the (slot, revision) pairs it read; the numbers readings show, for the reference.
        self.revisions: dict[str, list[tuple[Value, Reading | None]]] = {}
        self.current: dict[str, int] = {}
        self.step_reads: dict[int, list[tuple[str, int]]] = {}
        self.shown: set[float] = set()
        # The numbers a set row stored as a real: a given keeps the digits it was written
        # with (4.7 kOhm is 4700 ohm, 15 degC is 288.15 K), not the cut's four figures.
        self.given_numbers: set[float] = set()


# A frozen dataclass's __init__ routes every field through object.__setattr__, which costs
# more than the rest of reading a row; facts build their own instances (of classes without
# defaults or __post_init__) through the slots' own setters instead.
_new = object.__new__


def _slot_setters(cls: type) -> tuple[Callable[[object, object], None], ...]:
    """The slots' own setters of a dataclass's fields, in the fields' order."""
    return tuple(getattr(cls, item.name).__set__ for item in fields(cls))


(_put_num_text,) = _slot_setters(Num)
_put_cplx_re, _put_cplx_im = _slot_setters(Cplx)
_put_scalar_number, _put_scalar_dim = _slot_setters(Scalar)
_put_message_seq, _put_message_text, _put_message_hidden = _slot_setters(Message)
(
    _put_step_seq,
    _put_step_formula,
    _put_step_target,
    _put_step_reads,
    _put_step_result,
    _put_step_reading,
) = _slot_setters(Step)


def _scalar(number: Num | Cplx, dim: Dim) -> Scalar:
    made: Scalar = _new(Scalar)
    _put_scalar_number(made, number)
    _put_scalar_dim(made, dim)
    return made


def _number(x: float, facts: _Collector) -> Num:
    """The one Num of a stored number; its text comes with the others' (``_cut_numbers``)."""
    known = facts.numbers.get(x)
    if known is None:
        known = facts.numbers[float(x)] = _new(Num)
    return known


def _cut_numbers(facts: _Collector) -> None:
    """Every distinct number's text, cut in one pass, then the complex numbers' texts."""
    # Thousands of setter calls: made from C (starmap), not from a loop of bytecode.
    given = facts.given_numbers
    others = [x for x in facts.numbers if x not in given] if given else list(facts.numbers)
    numbers = facts.numbers
    texts = zip([numbers[x] for x in others], cut_all(others), strict=True)
    deque(starmap(_put_num_text, texts), maxlen=0)
    for x in given:
        _put_num_text(numbers[x], shown_given(x))
    for pair, re_part, im_part in facts.pairs:
        _put_cplx_re(pair, re_part.text)
        _put_cplx_im(pair, im_part.text)


RowReader = Callable[[_Collector, int, Mapping[str, Any]], None]


def _read_start(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    title = content.get("title")
    if facts.title is None and isinstance(title, str):
        facts.title = title
        facts.texts.append(title)


def _read_message(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    text = content.get("text")
    if not isinstance(text, str):
        return
    hidden = content.get("hide") is True
    message: Message = _new(Message)
    _put_message_seq(message, seq)
    _put_message_text(message, text)
    _put_message_hidden(message, hidden)
    facts.entries.append(message)
    if not hidden:
        # An author's note must not put a number into the article, so its numbers are not facts.
        facts.texts.append(text)


def _read_set(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    name = content.get("name")
    if not isinstance(name, str):
        return
    raw = content.get("value")
    if raw is None:
        facts.conditions.pop(name, None)
        facts.current.pop(name, None)
        return
    value = _value(raw, facts)
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
            shown = _as_written(value, raw, unit, facts)
        if shown is None and reading is not None:
            shown = _reading(reading, facts)
        history = facts.revisions.get(name)
        if history is None:
            history = facts.revisions[name] = []
        history.append((value, shown))
        facts.current[name] = len(history)
    else:
        facts.current.pop(name, None)


def _read_eval(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    formula, target = content.get("formula"), content.get("target")
    if not isinstance(formula, str) or not formula or not isinstance(target, str):
        return
    result = _value(content.get("result"), facts)
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
            # list as ``_value`` would find it, without the call.
            if type(raw) is dict and len(raw) == 2:
                number = raw.get("num")
                if type(number) is float or type(number) is int:
                    seen = reals.get(number)
                    if seen is not None and seen[0] == raw.get("dim"):
                        reads.append((name, seen[1]))
                        continue
            value = _value(raw, facts)
            if value is not None:
                reads.append((name, value))
    facts.texts.append(formula)
    current = facts.current
    if current:
        used = [(name, current[name]) for name, _ in reads if name in current]
        if used:
            facts.step_reads[seq] = used
        current.pop(target, None)  # a step wrote over the given
    step: Step = _new(Step)
    _put_step_seq(step, seq)
    _put_step_formula(step, formula)
    _put_step_target(step, target)
    _put_step_reads(step, tuple(reads))
    _put_step_result(step, result)
    reading = content.get("value")  # an eval row keeps its reading under value
    _put_step_reading(step, None if reading is None else _reading(reading, facts))
    facts.entries.append(step)


def _read_search(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    found = lookup_fact(seq, content)
    if found is None:
        return  # refused, insufficient or failed: nothing was learned
    facts.entries.append(found)
    # The answer is quoted as written (never cut), so its numbers, and those of the question
    # and the source lines an article credits, are facts the audit accepts.
    facts.texts.extend([found.question, found.answer, *(source.line() for source in found.sources)])


def _read_compute(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    _add_run(facts, compute_fact(seq, content, ok=True))


def _read_failed_compute(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    _add_run(facts, compute_fact(seq, content, ok=False))


def _add_run(facts: _Collector, run: ComputeFact | None) -> None:
    if run is None:
        return  # refused before the archive: nothing ran
    facts.entries.append(run)
    # The run's own words are quoted as they are (never cut), so the numbers of its output,
    # its engine's version, its id and its receipt's path are facts the audit accepts.
    facts.texts.extend([run.output, run.version or "", run.run_id, run.receipt])
    facts.integers.add(run.attempt)
    if run.exit is not None:
        facts.integers.add(run.exit)


def _read_end(facts: _Collector, seq: int, content: Mapping[str, Any]) -> None:
    text = content.get("text")
    # The last accepted end row wins; an empty or blank text counts as absent (manual 7.1).
    facts.closing = text if isinstance(text, str) and text.strip() else None


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
    facts = _Collector()
    if not _read_in_order(rows, facts):
        # A record is written in seq order; a file edited out of it is read sorted (stably,
        # so rows sharing a seq keep their order in the file).
        ordered = [
            row
            for row in rows
            if type(row.get("seq")) is int and (row.get("ok") is True or _read_refused(row))
        ]
        ordered.sort(key=_seq_of)
        facts = _Collector()
        _read_in_order(ordered, facts)
    _cut_numbers(facts)
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


def _read_in_order(rows: Iterable[Mapping[str, Any]], facts: _Collector) -> bool:
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


def _reference(facts: _Collector) -> tuple[Decimal, ...]:
    numbers = decimals((*facts.numbers, *facts.shown))
    numbers.update(Decimal(abs(n)) for n in facts.integers)
    for text in [*facts.texts, facts.closing or ""]:
        numbers.update(text_numbers(text))
    return tuple(sorted(numbers))


# -- values ------------------------------------------------------------------------------


def _dim(raw: object, facts: _Collector) -> Dim | None:
    if raw is None:
        return ZERO_DIM
    if type(raw) is not list or len(raw) != 7:
        return None
    key = tuple(raw)
    try:
        known = facts.dims.get(key)
    except TypeError:
        return None  # an unhashable component is no integer either
    if known is not None:
        return known
    if not all(type(x) is int or (type(x) is float and x.is_integer()) for x in key):
        return None
    dim: Dim = tuple(int(x) for x in key)  # type: ignore[assignment]
    facts.dims[key] = dim
    facts.integers.update(dim)
    return dim


def _real(x: object, facts: _Collector) -> Num | None:
    kind = type(x)
    if kind is not float and kind is not int:
        return None
    # A step reads the values earlier rows stored, so most numbers come round again.
    return _number(x, facts)  # type: ignore[arg-type]  # checked above: float or int


def _element(raw: object, facts: _Collector) -> Element | None:
    kind = type(raw)
    if kind is float or kind is int:
        return _number(raw, facts)  # type: ignore[arg-type]  # checked above
    if isinstance(raw, list):
        items: list[Element] = []
        for item in raw:
            element = _element(item, facts)
            if element is None:
                return None
            items.append(element)
        facts.integers.add(len(items))
        return tuple(items)
    if isinstance(raw, dict):
        return _complex(raw, facts)
    return None


def _complex(raw: Mapping[str, Any], facts: _Collector) -> Cplx | None:
    re_part, im_part = _real(raw.get("re"), facts), _real(raw.get("im"), facts)
    if re_part is None or im_part is None:
        return None
    pair: Cplx = _new(Cplx)
    facts.pairs.append((pair, re_part, im_part))
    return pair


def _value(raw: object, facts: _Collector) -> Value | None:
    """A stored value (manual 3.2's tagged shape with ``dim`` as 7 integers), cut."""
    if type(raw) is not dict:
        return None
    number, dim_list = raw.get("num"), raw.get("dim")
    if len(raw) == 2 and type(dim_list) is list and (type(number) is float or type(number) is int):
        # The commonest value, a real: the same number in the same unit recurs row after row.
        seen = facts.reals.get(number)
        if seen is None:
            return _first_real(number, dim_list, facts)
        if seen[0] == dim_list:
            return seen[1]
        return _other_real(number, dim_list, facts)
    if "object" in raw:
        fields = raw["object"]
        if not isinstance(fields, dict):
            return None
        out: list[tuple[str, Value]] = []
        for name, sub in fields.items():
            value = _value(sub, facts)
            if value is None:
                return None
            out.append((str(name), value))
        return ObjectValue(tuple(out))
    dim = _dim(raw.get("dim"), facts)
    if dim is None:
        return None
    if "num" in raw:
        real = _real(raw["num"], facts)
        return None if real is None else _scalar(real, dim)
    # A complex or an array recurs as a real does (a step reads what a set stored): it is
    # found by its content, so it is read, and an article typesets it, once.
    if "re" in raw:
        re_part, im_part = raw.get("re"), raw.get("im")
        key: tuple[object, ...] | None = None
        if type(re_part) in (float, int) and type(im_part) in (float, int):
            key = ("re", re_part, im_part, dim)
            known = facts.shared.get(key)
            if known is not None:
                return known
        pair = _complex(raw, facts)
        if pair is None:
            return None
        made: Scalar | ArrayValue = _scalar(pair, dim)
    elif "array" in raw and isinstance(raw["array"], list):
        key = ("array", repr(raw["array"]), dim)
        known = facts.shared.get(key)
        if known is not None:
            return known
        items = _element(raw["array"], facts)
        if not isinstance(items, tuple):
            return None
        made = ArrayValue(items, dim)
    else:
        return None
    if key is not None:
        facts.shared[key] = made
    return made


def _first_real(number: float, dim_list: list[Any], facts: _Collector) -> Scalar | None:
    """A real whose number no value had before."""
    try:
        dim = facts.dims.get(tuple(dim_list)) or _dim(dim_list, facts)
    except TypeError:
        return None  # a component that is a list or an object: not a vector
    if dim is None:
        return None
    shown = facts.numbers.get(number)  # _number and _scalar, inlined: this runs per new value
    if shown is None:
        shown = facts.numbers[float(number)] = _new(Num)
    made: Scalar = _new(Scalar)
    _put_scalar_number(made, shown)
    _put_scalar_dim(made, dim)
    facts.reals[number] = (dim_list, made)
    return made


def _other_real(number: float, dim_list: list[Any], facts: _Collector) -> Scalar | None:
    """A real whose number came before with another dim list: found by its whole key (the
    first list's Scalar stays with ``reals``), or made."""
    key = (number, *dim_list)
    try:
        known = facts.scalars.get(key)
    except TypeError:
        return None
    if known is None:
        dim = facts.dims.get(key[1:]) or _dim(dim_list, facts)
        if dim is None:
            return None
        known = facts.scalars[key] = _scalar(_number(float(number), facts), dim)
    return known


# -- quantities as given and read (``quantities``) -----------------------------------------


def _reading(raw: object, facts: _Collector) -> Reading | None:
    found = reading_of(raw)
    if found is None:
        return None
    facts.shown.add(found[1])  # the number the reading shows is a fact for the audit
    return found[0]


def _as_written(value: Value, raw: object, unit: object, facts: _Collector) -> Reading | None:
    if type(value) is not Scalar or type(raw) is not dict:
        return None
    stored = raw.get("num")
    if not isinstance(stored, int | float):
        return None
    found = as_written(stored, unit, value.dim)
    if found is None:
        return None
    facts.shown.add(found[1])
    return found[0]


# -- language ----------------------------------------------------------------------------


def resolve_language(requested: str, facts: Facts) -> str:
    """``en`` or ``zh-CN``; ``auto`` looks for CJK ideographs in the record's own prose."""
    if requested not in LANGUAGES:
        raise ArticleRefusal(
            f"The language {requested!r} is not one of auto, en or zh-CN; pick one of those."
        )
    if requested != "auto":
        return requested
    return "zh-CN" if any(_CJK.search(text) for text in facts.prose) else "en"
