"""The number audit (issues 10 and 23): every number an article shows, held against the record.

A shown number matches a value when the value, rounded to the digits shown, gives it; the
shown form may be plain or exponential, and the sign is not compared (a minus in text may be
a subtraction). A number beside a quantity (after ``symbol =`` in a sentence or on a side of
an equation, or in the quantity's table row) must match one of *that* quantity's values
(``articles.ties``); a number beside none must match some number of the record. A unit after
a number may convert it (``2.948 mA`` matches 0.002948 A). Not numbers: digits inside a name
or a subscript (``R1``, ``R_{1}``), an exponent (``m^{-3}``, a footnote mark ``[^1]``), and
an identifier in code type (a receipt id or path). Counts written as words carry no digits,
so they are the only counts that need no fact. The record's own prose (its messages and
closing text) is held against the engine's answers (``prose_findings``); a model's article
is searched for the tool's words too (``articles.wording``). No I/O here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import ClassVar

from reckoner.articles.fact_model import Facts, Message
from reckoner.articles.figures import without_figures
from reckoner.articles.findings import Finding, Located, locator
from reckoner.articles.numbers import WIDE, ShownNumber, cut, shown_numbers
from reckoner.articles.ties import Ties, normal, read_ties, unit_spec
from reckoner.articles.wording import ToolWord, tool_words

# A TeX subscript, braced one level deep or a single character: names, not numbers.
_SUBSCRIPT = re.compile(r"_(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9])")
# Code type holding an identifier (a receipt id, a path, a run's name): no number in it is
# a value. Code type holding a bare number (`0.25`) is still read.
_CODE = re.compile(r"(`+)(?P<a>[^`\n]+?)\1|\\texttt\{(?P<b>(?:[^{}\n]|\{[^{}\n]*\})*)\}")
# A hash or a receipt id written bare (``3f0a9c21b7d4``): a name, not numbers.
# One that also reads as a number (0001e3000000) stays a number.
_HEX_NAME = re.compile(
    r"\b(?![0-9]+(?:e[0-9]+)?\b)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,64}\b"
)
# What is no prose: a link's or an image's target, a reference or label, a URL. A figure's
# drawing is blanked only where it is one the record's own sweep draws
# (``figures.without_figures``): a drawing a model wrote itself is audited as text.
_NOT_PROSE = re.compile(
    r"\]\([^)\n]*\)|<img\b[^>]*>"
    r"|\\(?:includegraphics|label|ref|eqref|url|href|tag|input)\s*(?:\[[^\]\n]*\])?\{[^{}\n]*\}",
    re.DOTALL,
)
_IDENTIFIER_MARK = re.compile(r"[A-Za-z/_\\-]")
_EXPONENT_BEFORE = re.compile(r"\^[\s{]*[-−+]?\s*$")
# The article's own numbering of its figures, tables and equations is no value.
_NUMBERING_BEFORE = re.compile(r"(?:Figure|Fig\.|Table|Equation|Eq\.|图|表|式)\s*\(?$")
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
_UNIT_AFTER = re.compile(
    r"\$?(?:\s|~|\\[,;: ]|\u2009|\u202f)*(?:\\(?:mathrm|text|unit|si)\{)?"
    r"(?P<unit>(?:\\Omega|\\mu|\^\\circ|\^\{\\circ\}|[^\s$}{,;:.()\[\]|&，。、；：]){1,32})"
)
_UNIT_SPELLINGS = (
    ("\\Omega", "ohm"),
    ("Ω", "ohm"),
    ("\\mu", "u"),
    ("µ", "u"),
    ("μ", "u"),
    ("^{\\circ}", "deg"),
    ("^\\circ", "deg"),
    ("°", "deg"),
    ("²", "^2"),
    ("³", "^3"),
    ("⁻¹", "^-1"),
    ("·", "*"),
)


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
        words: list[ToolWord] = tool_words(_without_code(text))
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
        scanned = _scannable(prose)
        for shown in _values_shown(scanned):
            unit = _unit_after(prose, shown.end)
            if _matches_any(receipts, shown, unit):
                continue
            near = _near_miss(receipts, shown, unit)
            written = _UNIT_AFTER.match(prose, shown.end)
            if near is not None and unit is not None and written is not None:
                near = f"{near} {written.group('unit')}"
            found.append(
                ProseNumber((shown.text + _unit_word(prose, shown.end, unit)).strip(), where, near)
            )
    return found


def _offset(finding: Finding) -> int:
    offset = finding.as_json().get("offset")
    return offset if isinstance(offset, int) else 0


def _blank(match: re.Match[str]) -> str:
    # Underscores, not spaces: a digit right after a subscript still belongs to the name.
    return "_" * len(match.group(0))


def _blank_identifier(match: re.Match[str]) -> str:
    inside = match.group("a") or match.group("b") or ""
    if " " in inside.strip() or not _IDENTIFIER_MARK.search(inside):
        return match.group(0)
    return "_" * len(match.group(0))


def _without_code(text: str) -> str:
    """``text`` without code type, link targets and drawings, where the tool's words may
    stand as names (a receipt path, a file name), every offset kept."""
    return _NOT_PROSE.sub(_blank, _CODE.sub(lambda m: " " * len(m.group(0)), text))


def _scannable(text: str, names: Iterable[str] = ()) -> str:
    """``text`` with names, subscripts and identifiers blanked, every offset kept."""
    for name in names:
        text = text.replace(name, "_" * len(name))
    text = _NOT_PROSE.sub(_blank, text)
    return _HEX_NAME.sub(_blank, _SUBSCRIPT.sub(_blank, _CODE.sub(_blank_identifier, text)))


def _values_shown(scanned: str) -> Iterable[ShownNumber]:
    for shown in shown_numbers(scanned):
        before = scanned[max(0, shown.start - 12) : shown.start]
        if not _EXPONENT_BEFORE.search(before) and not _NUMBERING_BEFORE.search(before):
            yield shown


def _numbers(text: str, ties: Ties) -> Iterable[Unmatched | Mismatched]:
    scanned = _scannable(text, ties.names)
    free = tuple(sorted(ties.free))
    sorted_values: dict[str, tuple[Decimal, ...]] = {}
    rows: dict[int, tuple[int, list[str]] | None] = {}
    locate = locator(text)
    for shown in _values_shown(scanned):
        line, column = locate(shown.start)
        start = shown.start - column + 1
        unit = _unit_after(text, shown.end)
        names = (
            []
            if _EXPRESSION_AFTER.match(text, shown.end)
            else _tied(text, start, shown.start, ties, rows)
        )
        if names:
            values = [_sorted(sorted_values, ties, name) for name in names]
            if any(_matches_any(v, shown, unit) for v in values):
                continue
            owner = [
                n
                for n in ties.quantities
                if _matches_any(_sorted(sorted_values, ties, n), shown, unit)
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
        elif not _matches_any(free, shown, unit):
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


def _unit_after(text: str, end: int) -> tuple[Fraction, Fraction] | None:
    """(factor, offset) of the unit written right after a number, if the catalogue knows it
    (``mA``, ``kΩ``, ``°C``, ``\\mathrm{m}^{3}``); None for a word that is no unit."""
    match = _UNIT_AFTER.match(text, end)
    if match is None:
        return None
    return unit_spec(_unit_text(match.group("unit")))


def _unit_text(written: str) -> str:
    """A unit as an article writes it, in the catalogue's spelling: ``kΩ`` -> ``kohm``."""
    unit = written
    for symbol, name in _UNIT_SPELLINGS:
        unit = unit.replace(symbol, name)
    unit = unit.replace("{", "").replace("}", "").replace("\\", "")
    if unit_spec(unit) is not None:
        return unit
    return re.sub(r"[^A-Za-z].*$", "", unit)  # a unit glued to punctuation: mA.


def _unit_word(text: str, end: int, unit: tuple[Fraction, Fraction] | None) -> str:
    """The unit written after a number, as written, when it is one (for a sentence)."""
    written = _UNIT_AFTER.match(text, end)
    return f" {written.group('unit')}" if unit is not None and written is not None else ""


def _within(reference: tuple[Decimal, ...], magnitude: Decimal, half: Decimal) -> bool:
    # Inclusive at both ends: a fact exactly half a unit away rounds to the shown text under
    # half-up, and writers differ in how they break that tie.
    low = WIDE.subtract(magnitude, half)
    index = bisect_left(reference, low)
    return index < len(reference) and reference[index] <= WIDE.add(magnitude, half)


def _matches_any(
    reference: tuple[Decimal, ...],
    shown: ShownNumber,
    unit: tuple[Fraction, Fraction] | None,
) -> bool:
    magnitude = shown.magnitude.copy_abs()
    if _within(reference, magnitude, shown.half_unit):
        return True
    if unit is None or (unit[0] == 1 and unit[1] == 0):
        return False
    si, half = _in_si(magnitude, shown.half_unit, unit)
    return _within(reference, si, half)


def _in_si(
    magnitude: Decimal, half: Decimal, unit: tuple[Fraction, Fraction]
) -> tuple[Decimal, Decimal]:
    factor, offset = unit
    as_decimal = WIDE.divide(Decimal(factor.numerator), Decimal(factor.denominator))
    shift = WIDE.divide(Decimal(offset.numerator), Decimal(offset.denominator))
    si = WIDE.add(WIDE.multiply(magnitude, as_decimal), shift)
    return si.copy_abs(), WIDE.multiply(half, as_decimal.copy_abs())


def _near_miss(
    receipts: tuple[Decimal, ...], shown: ShownNumber, unit: tuple[Fraction, Fraction] | None
) -> str | None:
    """The engine's value nearest the shown one within 2 %, in the shown unit and digits."""
    magnitude = shown.magnitude.copy_abs()
    if magnitude == 0:
        return None
    best: tuple[Decimal, Decimal] | None = None
    candidates = [(magnitude, Fraction(1), Fraction(0))]
    if unit is not None:
        si, _ = _in_si(magnitude, shown.half_unit, unit)
        candidates.append((si, unit[0], unit[1]))
    for target, factor, offset in candidates:
        index = bisect_left(receipts, target)
        for value in receipts[max(0, index - 1) : index + 1]:
            distance = abs(value - target) / target if target else Decimal(1)
            if distance <= Decimal("0.02") and (best is None or distance < best[0]):
                given = (Fraction(value) - offset) / factor
                best = (distance, Decimal(given.numerator) / Decimal(given.denominator))
    if best is None:
        return None
    digits = max(0, -shown.half_unit.adjusted() - 1) if shown.half_unit < 1 else 0
    return f"{abs(best[1]):.{digits}f}"


__all__ = ["Finding", "Mismatched", "ProseNumber", "ToolWord", "Unmatched", "audit", "normal"]
