"""Reading a row's tagged values into facts: one Num per distinct stored number (its text cut
for all at once), dims checked once, shared scalars and arrays. No I/O here."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import fields
from decimal import Decimal
from itertools import starmap
from typing import Any

from reckoner.articles.fact_model import (
    ZERO_DIM,
    ArrayValue,
    Cplx,
    Dim,
    Element,
    Entry,
    Message,
    Num,
    ObjectValue,
    Scalar,
    Step,
    Value,
)
from reckoner.articles.numbers import cut_all, shown_given
from reckoner.articles.quantities import Reading, as_written, reading_of
from reckoner.units.prose import decimals, text_numbers


class Collector:
    """The facts as rows are read, in seq order."""

    def __init__(self) -> None:
        self.title: str | None = None
        self.conditions: dict[str, Value] = {}
        self.entries: list[Entry] = []
        self.closing: str | None = None
        # Every distinct stored number. Its text is cut for all of them at once when the
        # rows are read (``cut_numbers``); until then a Num has no text.
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
        # Complex numbers and arrays by their content (``read_value``).
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

    def reference(self) -> tuple[Decimal, ...]:
        """Every number the facts hold at full precision, sorted (``Facts.reference``)."""
        numbers = decimals((*self.numbers, *self.shown))
        numbers.update(Decimal(abs(n)) for n in self.integers)
        for text in [*self.texts, self.closing or ""]:
            numbers.update(text_numbers(text))
        return tuple(sorted(numbers))


# A frozen dataclass's __init__ routes every field through object.__setattr__, which costs
# more than the rest of reading a row; facts build their own instances (of classes without
# defaults or __post_init__) through the slots' own setters instead.
bare = object.__new__


def _slot_setters(cls: type) -> tuple[Callable[[object, object], None], ...]:
    """The slots' own setters of a dataclass's fields, in the fields' order."""
    return tuple(getattr(cls, item.name).__set__ for item in fields(cls))


(_put_num_text,) = _slot_setters(Num)
_put_cplx_re, _put_cplx_im = _slot_setters(Cplx)
_put_scalar_number, _put_scalar_dim = _slot_setters(Scalar)
put_message_seq, put_message_text, put_message_hidden = _slot_setters(Message)
(
    put_step_seq,
    put_step_formula,
    put_step_target,
    put_step_reads,
    put_step_result,
    put_step_reading,
) = _slot_setters(Step)


def _scalar(number: Num | Cplx, dim: Dim) -> Scalar:
    made: Scalar = bare(Scalar)
    _put_scalar_number(made, number)
    _put_scalar_dim(made, dim)
    return made


def _number(x: float, facts: Collector) -> Num:
    """The one Num of a stored number; its text comes with the others' (``cut_numbers``)."""
    known = facts.numbers.get(x)
    if known is None:
        known = facts.numbers[float(x)] = bare(Num)
    return known


def cut_numbers(facts: Collector) -> None:
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


# -- values ------------------------------------------------------------------------------


def _dim(raw: object, facts: Collector) -> Dim | None:
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
    m, kg, s, a, k, mol, cd = (int(x) for x in key)
    dim: Dim = (m, kg, s, a, k, mol, cd)
    facts.dims[key] = dim
    facts.integers.update(dim)
    return dim


def _real(x: object, facts: Collector) -> Num | None:
    if isinstance(x, bool) or not isinstance(x, float | int):
        return None
    # A step reads the values earlier rows stored, so most numbers come round again.
    return _number(x, facts)


def _element(raw: object, facts: Collector) -> Element | None:
    if isinstance(raw, float | int) and not isinstance(raw, bool):
        return _number(raw, facts)
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


def _complex(raw: Mapping[str, Any], facts: Collector) -> Cplx | None:
    re_part, im_part = _real(raw.get("re"), facts), _real(raw.get("im"), facts)
    if re_part is None or im_part is None:
        return None
    pair: Cplx = bare(Cplx)
    facts.pairs.append((pair, re_part, im_part))
    return pair


def read_value(raw: object, facts: Collector) -> Value | None:
    """A stored value (the tagged shape of docs/guide/formulas.md, ``dim`` as 7 integers), cut."""
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
            value = read_value(sub, facts)
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


def _first_real(number: float, dim_list: list[Any], facts: Collector) -> Scalar | None:
    """A real whose number no value had before."""
    try:
        dim = facts.dims.get(tuple(dim_list)) or _dim(dim_list, facts)
    except TypeError:
        return None  # a component that is a list or an object: not a vector
    if dim is None:
        return None
    shown = facts.numbers.get(number)  # _number and _scalar, inlined: this runs per new value
    if shown is None:
        shown = facts.numbers[float(number)] = bare(Num)
    made: Scalar = bare(Scalar)
    _put_scalar_number(made, shown)
    _put_scalar_dim(made, dim)
    facts.reals[number] = (dim_list, made)
    return made


def _other_real(number: float, dim_list: list[Any], facts: Collector) -> Scalar | None:
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


def read_reading(raw: object, facts: Collector) -> Reading | None:
    found = reading_of(raw)
    if found is None:
        return None
    facts.shown.add(found[1])  # the number the reading shows is a fact for the audit
    return found[0]


def written_reading(value: Value, raw: object, unit: object, facts: Collector) -> Reading | None:
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
