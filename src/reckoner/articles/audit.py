"""The number audit (issue 10): every number an article shows, held against the facts.

A shown number matches a fact when the fact, rounded to the digits shown, gives it; the
shown form may be plain or exponential, and the sign is not compared (a minus in text may be
a subtraction). Digits inside a name or a subscript (``R1``, ``R_{1}``) are part of the name,
not numbers. What matches nothing is listed with its line and column. No I/O here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from decimal import Decimal

from reckoner.articles.facts import Facts
from reckoner.articles.figures import without_figures
from reckoner.articles.numbers import WIDE, shown_numbers

# A TeX subscript, braced one level deep or a single character: names, not numbers.
_SUBSCRIPT = re.compile(r"_(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9])")


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A number the article shows that no fact gives."""

    text: str
    line: int
    column: int
    offset: int

    def as_json(self) -> dict[str, object]:
        return {"text": self.text, "line": self.line, "column": self.column, "offset": self.offset}

    def sentence(self) -> str:
        return (
            f"line {self.line}, column {self.column}: {self.text!r} matches no number in the record"
        )


def _blank(match: re.Match[str]) -> str:
    # Underscores, not spaces: a digit right after a subscript still belongs to the name.
    return "_" * len(match.group(0))


def audit(text: str, facts: Facts) -> list[Unmatched]:
    """The numbers in ``text`` that match no fact, in order."""
    # What a figure draws is a picture of a step's result, shown as numbers beside it.
    scanned = _SUBSCRIPT.sub(_blank, without_figures(text, facts))
    reference = facts.reference
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    found: list[Unmatched] = []
    for shown in shown_numbers(scanned):
        if _matches(reference, shown.magnitude.copy_abs(), shown.half_unit):
            continue
        line = bisect_left(line_starts, shown.start + 1)
        column = shown.start - line_starts[line - 1] + 1
        found.append(Unmatched(shown.text.strip(), line, column, shown.start))
    return found


def _matches(reference: tuple[Decimal, ...], magnitude: Decimal, half: Decimal) -> bool:
    # Inclusive at both ends: a fact exactly half a unit away rounds to the shown text under
    # half-up, and writers differ in how they break that tie.
    low = WIDE.subtract(magnitude, half)
    index = bisect_left(reference, low)
    return index < len(reference) and reference[index] <= WIDE.add(magnitude, half)
