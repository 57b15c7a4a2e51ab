"""The number audit (issues 10 and 23): every number an article shows, held against the record.

A shown number matches a value when the value, rounded to the digits shown, gives it; the
shown form may be plain or exponential, and the sign is not compared (a minus in text may be
a subtraction). The numbers are read, and what is no number is passed over, by the one
prose reader (``reckoner.units.prose``). A number beside a quantity (after ``symbol =`` in a
sentence or on a side of an equation, or in the quantity's table row) must match one of
*that* quantity's values (``articles.ties``); a number beside none must match some number
of the record. A unit after a number may convert it (``2.948 mA`` matches 0.002948 A). Not
numbers: digits inside a name or a subscript (``R1``, ``R_{1}``), an exponent (``m^{-3}``,
a footnote mark ``[^1]``), an identifier in code type (a receipt id or path), and the
numbering of figures, sections, steps and list items. Counts written as words carry no
digits, so they are the only counts that need no fact. The record's own prose (its
messages and closing text) is held against the engine's answers (``prose_findings``); a
model's article is searched for the tool's words too (``articles.wording``). No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from reckoner.articles.fact_model import Facts, Message
from reckoner.articles.figures import without_figures
from reckoner.articles.findings import Finding, Located, locator
from reckoner.articles.numbers import cut
from reckoner.articles.ties import Ties, normal, read_ties
from reckoner.articles.wording import ToolWord, tool_words
from reckoner.units.prose import (
    matches_any,
    scannable,
    unbacked,
    unit_after,
    values_shown,
    without_code,
)

# What ties a number to the symbol before it: an equals sign (or approximately equals).
_EQUALS_BEFORE = re.compile(
    r"(?:=|＝|≈|\\approx|\\simeq)\s*(?:\\left\s*)?\$?\s*(?:\\(?:qty|SI|num)\s*\{\s*)?$"
)
_LOOK_BACK = 160
_SYMBOL_TAIL = re.compile(r"[A-Za-z0-9_{}\\|'\s\u0370-\u03ff]*$")
# Where a chain of equals signs (A = ... = 3) is broken: the next number is not A's.
_CHAIN_BREAK = re.compile(r"[$,;:，；：、。()（）]|\\\[|\\\]|\\\(|\\\)")
# A number that an operator follows is a term of an expression (the 2 of w = 2 pi f), not
# the value of the side it stands on.
_EXPRESSION_AFTER = re.compile(
    r"\s*(?:[+\-−*/·×^(]|\\(?:cdot|times|pi|frac|sqrt|left)(?![A-Za-z]))"
)
_MD_CELL = re.compile(r"(?<!\\)\|")
_TEX_CELL = re.compile(r"(?<!\\)&")


@dataclass(frozen=True, slots=True)
class Unmatched(Located):
    """A number the article shows that no number of the record gives."""

    kind: ClassVar[str] = "unmatched"

    def sentence(self) -> str:
        return (
            f"line {self.line}, column {self.column}: {self.text!r} matches no number in the record"
        )


@dataclass(frozen=True, slots=True)
class Mismatched(Located):
    """A number shown beside a quantity that is none of that quantity's values."""

    kind: ClassVar[str] = "mismatched"

    quantity: str
    values: tuple[str, ...]
    belongs_to: str | None

    def details(self) -> dict[str, object]:
        return {
            "quantity": self.quantity,
            "values": list(self.values),
            "belongsTo": self.belongs_to,
        }

    def sentence(self) -> str:
        held = ", ".join(self.values) if self.values else "no number"
        other = f"; it is {self.belongs_to}'s value" if self.belongs_to else ""
        return (
            f"line {self.line}, column {self.column}: {self.text!r} is shown for "
            f"{self.quantity}, but {self.quantity} is {held} in the record (SI or as given, "
            f"rounded to the digits shown){other}; show {self.quantity}'s own value"
        )


@dataclass(frozen=True, slots=True)
class ProseNumber:
    """A number in the record's own prose that no value the engine answered gives."""

    text: str
    where: str
    near: str | None

    def as_json(self) -> dict[str, object]:
        return {"kind": "prose", "text": self.text, "where": self.where, "near": self.near}

    def sentence(self) -> str:
        near = f"; the record computed {self.near}" if self.near else ""
        return (
            f"{self.where} writes {self.text!r}, which no value the engine computed or was "
            f"given shows{near}; correct the text to the computed value"
        )


def audit_job(text: str, facts: Facts, *, model: bool = False) -> list[Finding]:
    """Every finding of an article job: the record's prose (``prose_findings``) first, then
    the article's (``audit``), over one reading of the record's numbers."""
    ties = read_ties(facts)
    return [*prose_findings(facts, ties), *audit(text, facts, model=model, ties=ties)]


def audit(
    text: str, facts: Facts, *, model: bool = False, ties: Ties | None = None
) -> list[Finding]:
    """What ``text`` shows that the record does not, in order: numbers that match no fact,
    numbers beside a quantity that are not its values, and (for a model's article) the
    tool's words."""
    ties = read_ties(facts) if ties is None else ties
    # What a figure of the record draws is a picture of a step's result (same offsets).
    found: list[Finding] = list(_numbers(without_figures(text, facts), ties))
    if model:
        words: list[ToolWord] = tool_words(without_code(text))
        found.extend(words)
        found.sort(key=_offset)
    return found


def prose_findings(facts: Facts, ties: Ties | None = None) -> list[ProseNumber]:
    """Each number in the record's messages and closing text that no engine answer shows."""
    ties = read_ties(facts) if ties is None else ties
    receipts = tuple(sorted(ties.receipts))
    found: list[ProseNumber] = []
    places: list[tuple[str, str]] = [
        (f"The message at seq {entry.seq}", entry.text)
        for entry in facts.entries
        if isinstance(entry, Message) and not entry.hidden
    ]
    if facts.closing:
        places.append(("The closing text", facts.closing))
    for where, prose in places:
        found.extend(ProseNumber(n.text, where, n.near) for n in unbacked(prose, receipts))
    return found


def _offset(finding: Finding) -> int:
    offset = finding.as_json().get("offset")
    return offset if isinstance(offset, int) else 0


def _numbers(text: str, ties: Ties) -> Iterable[Unmatched | Mismatched]:
    scanned = scannable(text, ties.names)
    free = tuple(sorted(ties.free))
    sorted_values: dict[str, tuple[Decimal, ...]] = {}
    rows: dict[int, tuple[int, list[str]] | None] = {}
    locate = locator(text)
    for shown in values_shown(scanned):
        line, column = locate(shown.start)
        start = shown.start - column + 1
        unit = unit_after(text, shown.end)
        names = (
            []
            if _EXPRESSION_AFTER.match(text, shown.end)
            else _tied(text, start, shown.start, ties, rows)
        )
        if names:
            values = [_sorted(sorted_values, ties, name) for name in names]
            if any(matches_any(v, shown, unit) for v in values):
                continue
            owner = [
                n
                for n in ties.quantities
                if matches_any(_sorted(sorted_values, ties, n), shown, unit)
            ]
            yield Mismatched(
                shown.text.strip(),
                line,
                column,
                shown.start,
                names[0],
                tuple(cut(float(v)) for v in sorted(set().union(*values))[:4]),
                owner[0] if owner else None,
            )
        elif not matches_any(free, shown, unit):
            yield Unmatched(shown.text.strip(), line, column, shown.start)


def _sorted(cache: dict[str, tuple[Decimal, ...]], ties: Ties, name: str) -> tuple[Decimal, ...]:
    known = cache.get(name)
    if known is None:
        known = cache[name] = tuple(sorted(ties.quantities.get(name, ())))
    return known


def _tied(
    text: str,
    line_start: int,
    start: int,
    ties: Ties,
    rows: dict[int, tuple[int, list[str]] | None],
) -> list[str]:
    """The quantity a number at ``start`` stands beside: its table row's, else the symbol
    its equals sign (or the chain of them it closes) names; none when it is beside none."""
    if line_start not in rows:
        line_end = text.find("\n", start)
        rows[line_start] = _row_name(
            text[line_start : len(text) if line_end < 0 else line_end], ties
        )
    row = rows[line_start]
    if row is not None and start - line_start >= row[0]:
        return row[1]
    # A symbol and its equals sign are short: a bounded look back keeps a long line linear.
    rest = text[max(line_start, start - _LOOK_BACK) : start]
    match = _EQUALS_BEFORE.search(rest)
    if match is None:
        return []
    rest = rest[: match.start()]
    while True:
        names = _symbol_before(rest, ties)
        if names:
            return names
        equals = max(rest.rfind("="), rest.rfind("≈"), rest.rfind("＝"))
        if equals < 0 or _CHAIN_BREAK.search(rest, equals):
            return []
        rest = rest[:equals]


def _symbol_before(rest: str, ties: Ties) -> list[str]:
    tail = _SYMBOL_TAIL.search(rest)
    words = tail.group(0).split() if tail else []
    for first in range(max(0, len(words) - 6), len(words)):
        names = ties.named(" ".join(words[first:]))
        if names:
            return names
    return []


def _row_name(line: str, ties: Ties) -> tuple[int, list[str]] | None:
    """Where a table row's (Markdown pipes, LaTeX ampersands) second cell starts and the
    quantity its first cell names; None for a line that is no row of a quantity."""
    stripped = line.strip()
    if stripped.startswith("|"):
        cells = list(_MD_CELL.finditer(line))
        if len(cells) < 3:
            return None
        first, second = cells[0].end(), cells[1].start()
    elif stripped.endswith("\\\\") and "&" in stripped:
        cells = list(_TEX_CELL.finditer(line))
        if not cells:
            return None
        first, second = 0, cells[0].start()
    else:
        return None
    names = ties.named(line[first:second])
    return (second, names) if names else None


__all__ = ["Finding", "Mismatched", "ProseNumber", "ToolWord", "Unmatched", "audit", "normal"]
