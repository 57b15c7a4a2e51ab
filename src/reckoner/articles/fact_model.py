"""What an article may use of a record, as frozen data: numbers with their cut texts, values,
messages, steps and the whole ``Facts`` (built by reckoner.articles.facts). No I/O here."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Any

from reckoner.articles.quantities import Given, Reading
from reckoner.compute.fact import ComputeFact
from reckoner.lookup.fact import LookupFact

if TYPE_CHECKING:
    from reckoner.articles.fact_values import Collector

Dim = tuple[int, int, int, int, int, int, int]
ZERO_DIM: Dim = (0, 0, 0, 0, 0, 0, 0)


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
    _sources: Collector = field(repr=False, compare=False)
    # The rows themselves, for the audit's quantities (``articles.ties``): which number
    # belongs to which name, every revision and reading included. Read only by the audit.
    rows: Sequence[Mapping[str, Any]] = field(default=(), repr=False, compare=False)

    @cached_property
    def reference(self) -> tuple[Decimal, ...]:
        """Every number the record holds that a writer may show, at full precision, sorted:
        stored values, dimension exponents, array lengths, formula literals and the prose."""
        return self._sources.reference()

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
