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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from reckoner.articles.citation import receipt_id
from reckoner.articles.fact_model import Facts, Message
from reckoner.articles.mathtex import identifier
from reckoner.compute.fact import ComputeFact
from reckoner.lookup.fact import LookupFact
from reckoner.units.prose import decimals, in_unit, leaves, text_numbers


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
            stored = list(leaves(content.get("value")))
            given = in_unit(stored, content.get("unit"))
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
                ties.free.update(text_numbers(formula))
                ties.receipts.update(text_numbers(formula))
    for entry in facts.entries:
        if isinstance(entry, Message) and not entry.hidden:
            ties.free.update(text_numbers(entry.text))
        elif isinstance(entry, LookupFact):
            quoted = [entry.question, entry.answer, *(s.line() for s in entry.sources)]
            for text in quoted:
                ties.free.update(text_numbers(text))
            ties.receipts.update(text_numbers(entry.answer))
        elif isinstance(entry, ComputeFact):
            printed = text_numbers(entry.output)
            ties.free.update(printed)
            ties.receipts.update(printed)
            ties.free.update(text_numbers(entry.version or ""))
            ties.names.add(receipt_id(entry.receipt))
            ties.free.add(Decimal(entry.attempt))
            if entry.exit is not None:
                ties.free.add(Decimal(abs(entry.exit)))
    for text in (facts.title, facts.closing or ""):
        ties.free.update(text_numbers(text))
    # A given's revision may be shown beside it (rev 2): 1 to the most a slot was set.
    ties.free.update(Decimal(n) for n in range(1, max(revisions.values(), default=0) + 1))
    return ties


def _add_value(ties: Ties, name: str, value: object, reading: object) -> None:
    lengths: list[int] = []
    numbers = decimals(leaves(value, lengths)) | decimals(leaves(reading))
    ties.add(name, numbers)
    ties.free.update(numbers)
    ties.free.update(Decimal(n) for n in lengths)
    ties.receipts.update(numbers)
