"""Which numbers belong to which quantity, read from the record's rows (issue 23).

A quantity is a name the record gave a value (``set``) or computed (``eval``'s target) or
read (``eval``'s ``vars``). Its values are every one of those numbers: each revision, each
reading the engine answered (``2.948`` for a reading in mA), and a given in the unit it was
given in (``4.07`` for ``4.07 kOhm``, stored as 4070). Beside them: the numbers any sentence
may show without naming a quantity (``free``), and the numbers the engine itself answered
(``receipts``), which the record's own prose is held against. No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from reckoner.articles.citation import receipt_id
from reckoner.articles.fact_model import Facts, Message
from reckoner.articles.mathtex import identifier
from reckoner.articles.numbers import digit_runs, exact, shown_numbers
from reckoner.compute.fact import ComputeFact
from reckoner.core.errors import EngineError
from reckoner.lookup.fact import LookupFact
from reckoner.units.catalogue import resolve_unit

# Keys of a stored value or a reading that hold no number the value shows.
_NOT_SHOWN = frozenset({"dim", "digits", "unit", "form"})


@dataclass
class Ties:
    """The numbers of a record, sorted by what they may stand beside."""

    quantities: dict[str, set[Decimal]] = field(default_factory=dict)
    # A symbol as an article spells it, normalized (``normal``), to the names it may be.
    symbols: dict[str, set[str]] = field(default_factory=dict)
    free: set[Decimal] = field(default_factory=set)
    receipts: set[Decimal] = field(default_factory=set)
    # The receipt ids an article cites the record's runs by: names, even when all digits.
    names: set[str] = field(default_factory=set)

    def add(self, name: str, numbers: Iterable[Decimal]) -> None:
        values = self.quantities.setdefault(name, set())
        values.update(numbers)
        for spelling in (name, identifier(name)):
            self.symbols.setdefault(normal(spelling), set()).add(name)

    def named(self, symbol: str) -> list[str]:
        return sorted(self.symbols.get(normal(symbol), ()))


_SPELLING = re.compile(
    r"\\(?:mathrm|mathit|mathbf|mathsf|text|textit|operatorname|mbox|left|right|lvert|rvert"
    r"|vert|big|Big)(?![A-Za-z])|\\[,;! ]|[{}_$\s|*]"
)


def normal(symbol: str) -> str:
    """A symbol without its typesetting: ``R_{\\mathrm{in}}``, ``R_in`` and ``Rin`` all read
    ``Rin``; ``\\omega`` reads ``omega``; ``|Z|`` reads ``Z``."""
    return _SPELLING.sub("", symbol).replace("\\", "")


def _leaves(raw: object, lengths: list[int] | None = None) -> Iterator[float]:
    """Every number a stored value or a reading shows (not its vector, digits or unit);
    each array's length goes to ``lengths``, a count an article may state."""
    if type(raw) is bool:
        return
    if type(raw) is int or type(raw) is float:
        yield raw
    elif isinstance(raw, list):
        if lengths is not None:
            lengths.append(len(raw))
        for item in raw:
            yield from _leaves(item, lengths)
    elif isinstance(raw, dict):
        for key, item in raw.items():
            if key not in _NOT_SHOWN:
                yield from _leaves(item, lengths)


def _decimals(numbers: Iterable[float]) -> set[Decimal]:
    found: set[Decimal] = set()
    for x in numbers:
        found.update(exact(x))
    return found


def _in_unit(numbers: Iterable[float], unit: object) -> set[Decimal]:
    """Stored SI numbers as the unit they were given in shows them (4070 -> 4.07 for kOhm)."""
    spec = unit_spec(unit)
    if spec is None:
        return set()
    factor, offset = spec
    found: set[Decimal] = set()
    with localcontext() as context:
        context.prec = 28
        for x in numbers:
            given = (Fraction(x) - offset) / factor
            found.add(abs(Decimal(given.numerator) / Decimal(given.denominator)))
    return found


_SPECS: dict[str, tuple[Fraction, Fraction] | None] = {}


def unit_spec(unit: object) -> tuple[Fraction, Fraction] | None:
    """(factor, offset) of a unit text the catalogue knows, SI = x * factor + offset; None
    for anything else (remembered either way: an article repeats its units)."""
    if not isinstance(unit, str) or not unit:
        return None
    if unit in _SPECS:
        return _SPECS[unit]
    try:
        spec = resolve_unit(unit)
        known: tuple[Fraction, Fraction] | None = (spec.exact_factor, spec.exact_offset)
    except EngineError:
        known = None
    if known is not None and known[0] == 0:
        known = None
    if len(_SPECS) < 4096:
        _SPECS[unit] = known
    return known


def _text_numbers(text: str) -> set[Decimal]:
    found = {shown.magnitude.copy_abs() for shown in shown_numbers(text)}
    found.update(digit_runs(text))
    return found


def read_ties(facts: Facts) -> Ties:
    """The record's numbers by quantity, the free ones and the engine's answers."""
    ties = Ties()
    revisions: dict[str, int] = {}
    for row in facts.rows:
        if row.get("ok") is not True or not isinstance(row.get("content"), dict):
            continue
        content: Mapping[str, Any] = row["content"]
        tool = row.get("tool")
        if tool == "set" and isinstance(content.get("name"), str):
            revisions[content["name"]] = revisions.get(content["name"], 0) + 1
            _add_value(ties, content["name"], content.get("value"), content.get("reading"))
            stored = list(_leaves(content.get("value")))
            given = _in_unit(stored, content.get("unit"))
            ties.add(content["name"], given)
            ties.free.update(given)
            ties.receipts.update(given)
        elif tool == "eval" and isinstance(content.get("target"), str):
            # An eval row keeps its reading (what the engine answered) under "value".
            _add_value(ties, content["target"], content.get("result"), content.get("value"))
            variables = content.get("vars")
            if isinstance(variables, dict):
                for name, value in variables.items():
                    _add_value(ties, str(name), value, None)
            formula = content.get("formula")
            if isinstance(formula, str):
                # A literal of a relation (the 2 of 2*pi*f) is a number the article may show.
                ties.free.update(_text_numbers(formula))
                ties.receipts.update(_text_numbers(formula))
    for entry in facts.entries:
        if isinstance(entry, Message) and not entry.hidden:
            ties.free.update(_text_numbers(entry.text))
        elif isinstance(entry, LookupFact):
            quoted = [entry.question, entry.answer, *(s.line() for s in entry.sources)]
            for text in quoted:
                ties.free.update(_text_numbers(text))
            ties.receipts.update(_text_numbers(entry.answer))
        elif isinstance(entry, ComputeFact):
            printed = _text_numbers(entry.output)
            ties.free.update(printed)
            ties.receipts.update(printed)
            ties.free.update(_text_numbers(entry.version or ""))
            ties.names.add(receipt_id(entry.receipt))
            ties.free.add(Decimal(entry.attempt))
            if entry.exit is not None:
                ties.free.add(Decimal(abs(entry.exit)))
    for text in (facts.title, facts.closing or ""):
        ties.free.update(_text_numbers(text))
    # A given's revision may be shown beside it (rev 2): 1 to the most a slot was set.
    ties.free.update(Decimal(n) for n in range(1, max(revisions.values(), default=0) + 1))
    return ties


def _add_value(ties: Ties, name: str, value: object, reading: object) -> None:
    lengths: list[int] = []
    numbers = _decimals(_leaves(value, lengths)) | _decimals(_leaves(reading))
    ties.add(name, numbers)
    ties.free.update(numbers)
    ties.free.update(Decimal(n) for n in lengths)
    ties.receipts.update(numbers)
