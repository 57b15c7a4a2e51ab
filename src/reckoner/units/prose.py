"""Numbers in prose: which numbers a text claims, and whether known numbers back each one.

The one reader of numbers written in prose, for the engine (a record's message checked as it
is written) and for the article audit (an article and the record's prose checked against the
record). A number is read in any form a writer uses (``0.25``, ``2.5e-4``,
``2.5 \\times 10^{-4}``, ``2.5 × 10⁻⁴``) with the precision its digits claim; a unit written
after it may convert it (``2.948 mA`` is backed by 0.002948 A). What is no quantity claim is
passed over: digits inside a name or a subscript, an exponent, code type holding an
identifier, a hash, the numbering of figures, sections, steps and list items, and a year
(docs/decisions/prose-numbers.md). No I/O here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext
from fractions import Fraction

from reckoner.core.errors import EngineError

from .catalogue import resolve_unit

WIDE = Context(Emax=MAX_EMAX, Emin=MIN_EMIN)
"""The arithmetic of shown numbers: a text may quote what reads as a number no double
reaches (a run id such as ``0000e3000000``), and reading it must never trap."""
_EXPONENT_DIGITS = 15  # a longer exponent is clamped: far past every fact either way
_CLAMPED_EXPONENT = 1_000_000_000_000_000  # 10**_EXPONENT_DIGITS

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")

# A number not glued to a name (R1, x_2, atan2) or to a preceding decimal point; thousands
# groups (10,000) read as one number. The optional tail is the exponent in any spelling.
_SHOWN = re.compile(
    r"(?<![A-Za-z_0-9.,])"
    r"(?P<mantissa>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:"
    r"[eE](?P<e>[+\-−]?\d+)"
    r"|\s*(?:×|\\times|\\cdot|·|\*)\s*10\s*"
    r"(?:\^\s*\{?\s*(?P<caret>[+\-−]?\s*\d+)\s*\}?|(?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
    r")?"
)


@dataclass(frozen=True, slots=True)
class ShownNumber:
    """One number a text shows: where it starts, its text, its magnitude and its grain."""

    start: int
    end: int
    text: str
    magnitude: Decimal
    # Half a unit of the last digit shown: a fact within this distance rounds to the text.
    half_unit: Decimal


def _exponent(text: str) -> int:
    """A written exponent (``-12``, ``+3``, ``3000000``), clamped where no context holds it."""
    digits = text.lstrip("+-")
    if len(digits) <= _EXPONENT_DIGITS:
        return int(text)
    return -_CLAMPED_EXPONENT if text.startswith("-") else _CLAMPED_EXPONENT


def shown_numbers(text: str) -> list[ShownNumber]:
    """Every number in ``text``, in order, with the precision its digits claim."""
    found: list[ShownNumber] = []
    for match in _SHOWN.finditer(text):
        mantissa = match.group("mantissa").replace(",", "")
        exponent_text = match.group("e") or match.group("caret")
        if exponent_text is not None:
            exponent = _exponent(exponent_text.replace("−", "-").replace(" ", ""))
        elif match.group("sup") is not None:
            exponent = _exponent(match.group("sup").translate(_SUPERSCRIPTS))
        else:
            exponent = 0
        decimals = len(mantissa.partition(".")[2])
        value = WIDE.scaleb(Decimal(mantissa), exponent)
        found.append(
            ShownNumber(
                start=match.start(),
                end=match.end(),
                text=match.group(0),
                magnitude=value,
                half_unit=WIDE.scaleb(Decimal(5), exponent - decimals - 1),
            )
        )
    return found


_PLAIN = re.compile(r"\d+(?:\.\d+)?")


def digit_runs(text: str) -> list[Decimal]:
    """Every run of digits in ``text`` read plainly, whatever surrounds it: escaping prose for
    a format may change what a run is glued to, never its digits."""
    return [Decimal(run) for run in _PLAIN.findall(text)]


def text_numbers(text: str) -> set[Decimal]:
    """Every number a quoted text holds: each shown number and each plain run of digits."""
    found = {shown.magnitude.copy_abs() for shown in shown_numbers(text)}
    found.update(digit_runs(text))
    return found


def exact(x: float) -> tuple[Decimal, ...]:
    """A stored double as the decimals a writer may have rounded: its exact binary value and
    its shortest repr (they differ in the last place, which decides a tie)."""
    magnitude = abs(x)
    exact_value = Decimal(magnitude)
    shortest = Decimal(repr(magnitude))
    return (exact_value,) if exact_value == shortest else (exact_value, shortest)


# -- the numbers a stored value or a reading shows ---------------------------------------

# Keys of a stored value or a reading that hold no number the value shows.
_NOT_SHOWN = frozenset({"dim", "digits", "unit", "form"})


def leaves(raw: object, lengths: list[int] | None = None) -> Iterator[float]:
    """Every number a stored value or a reading shows (not its vector, digits or unit);
    each array's length goes to ``lengths``, a count a text may state."""
    if type(raw) is bool:
        return
    if type(raw) is int or type(raw) is float:
        yield raw
    elif isinstance(raw, list):
        if lengths is not None:
            lengths.append(len(raw))
        for item in raw:
            yield from leaves(item, lengths)
    elif isinstance(raw, dict):
        for key, item in raw.items():
            if key not in _NOT_SHOWN:
                yield from leaves(item, lengths)


def decimals(numbers: Iterable[float]) -> set[Decimal]:
    """Each double as the decimals a writer may have rounded (``exact``)."""
    found: set[Decimal] = set()
    for x in numbers:
        found.update(exact(x))
    return found


def in_unit(numbers: Iterable[float], unit: object) -> set[Decimal]:
    """Stored SI numbers as the unit they were given in shows them (4070 -> 4.07 for kOhm)."""
    return _converted(numbers, unit, lambda x, factor, offset: (x - offset) / factor)


def in_si(numbers: Iterable[float], unit: object) -> set[Decimal]:
    """Numbers read in ``unit`` as the SI numbers they are (72.02 mA -> 0.07202)."""
    return _converted(numbers, unit, lambda x, factor, offset: x * factor + offset)


def _converted(
    numbers: Iterable[float],
    unit: object,
    convert: Callable[[Fraction, Fraction, Fraction], Fraction],
) -> set[Decimal]:
    """Each number converted exactly through ``unit``'s factor and offset, as a decimal."""
    spec = unit_spec(unit)
    if spec is None:
        return set()
    factor, offset = spec
    found: set[Decimal] = set()
    with localcontext() as context:
        context.prec = 28
        for x in numbers:
            value = convert(Fraction(x), factor, offset)
            found.add(abs(Decimal(value.numerator) / Decimal(value.denominator)))
    return found


_SPECS: dict[str, tuple[Fraction, Fraction] | None] = {}


def unit_spec(unit: object) -> tuple[Fraction, Fraction] | None:
    """(factor, offset) of a unit text the catalogue knows, SI = x * factor + offset; None
    for anything else (remembered either way: a text repeats its units)."""
    if not isinstance(unit, str) or not unit:
        return None
    if unit in _SPECS:
        return _SPECS[unit]
    try:
        spec = resolve_unit(unit)
        known: tuple[Fraction, Fraction] | None = (spec.exact_factor, spec.exact_offset)
    except EngineError:
        # Any word after a number is tried as a unit; one the catalogue refuses (a50, a year
        # to the 50th, a size no double holds) is simply no unit in prose.
        known = None
    if len(_SPECS) < 4096:
        _SPECS[unit] = known
    return known


# -- what in a text is no quantity claim -------------------------------------------------

# A TeX subscript, braced one level deep or a single character: names, not numbers.
_SUBSCRIPT = re.compile(r"_(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9])")
# Code type holding an identifier (a receipt id, a path, a run's name): no number in it is
# a value. Code type holding a bare number (`0.25`) is still read.
_CODE = re.compile(r"(`+)(?P<a>[^`\n]+?)\1|\\texttt\{(?P<b>(?:[^{}\n]|\{[^{}\n]*\})*)\}")
# A hash or a receipt id written bare (``3f0a9c21b7d4``): a name, not numbers.
# One that also reads as a number (0001e3000000, 1.6954210069444445e-05) stays a number.
_HEX_NAME = re.compile(
    r"\b(?![0-9]+(?:e[-+]?[0-9]+)?\b)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,64}\b"
)
# What is no prose: a link's or an image's target, a reference or label, a URL.
_NOT_PROSE = re.compile(
    r"\]\([^)\n]*\)|<img\b[^>]*>"
    r"|\\(?:includegraphics|label|ref|eqref|url|href|tag|input)\s*(?:\[[^\]\n]*\])?\{[^{}\n]*\}",
    re.DOTALL,
)
_IDENTIFIER_MARK = re.compile(r"[A-Za-z/_\\-]")
_EXPONENT_BEFORE = re.compile(r"(?:\^|\*\*)[\s{]*[-−+]?\s*$")
# A text's own numbering of its figures, tables, equations, sections, parts and steps.
_NUMBERING_BEFORE = re.compile(
    r"(?:Figure|Fig\.|Table|Equation|Eq\.|图|表|式"
    r"|\b(?i:section|sec\.|chapter|appendix|part|step|item|no\.)|§|#)\s*\(?$"
)
# A list item's number: first on its line (after a parenthesis, if any), then a point or a
# parenthesis and a space.
_LIST_ITEM_AFTER = re.compile(r"[.)](?:[ \t]|$)")
# A year: four plain digits from 1600 to 2099 (see _is_year).
_YEAR = re.compile(r"(?:1[6-9]|20)\d\d")
_EQUALS_BEFORE = re.compile(r"[=≈＝]\s*\$?\s*$")
# What makes a number a constant of a relation: pi after it, or an operator beside it.
_PI_AFTER = re.compile(r"\s*(?:π|\$?pi\b|\\pi(?![A-Za-z]))")
_OPERATOR_AFTER = re.compile(r"\s*(?:[*/·×]|\\(?:cdot|times)(?![A-Za-z]))|\(")
_OPERATOR_BEFORE = re.compile(r"[*/·×]\s*\(?\s*$")

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


def _blank(match: re.Match[str]) -> str:
    # Underscores, not spaces: a digit right after a subscript still belongs to the name.
    return "_" * len(match.group(0))


def _blank_identifier(match: re.Match[str]) -> str:
    inside = match.group("a") or match.group("b") or ""
    if " " in inside.strip() or not _IDENTIFIER_MARK.search(inside):
        return match.group(0)
    return "_" * len(match.group(0))


def without_code(text: str) -> str:
    """``text`` without code type, link targets and drawings, where words may stand as
    names (a receipt path, a file name), every offset kept."""
    return _NOT_PROSE.sub(_blank, _CODE.sub(lambda m: " " * len(m.group(0)), text))


def scannable(text: str, names: Iterable[str] = ()) -> str:
    """``text`` with names, subscripts and identifiers blanked, every offset kept."""
    for name in names:
        text = text.replace(name, "_" * len(name))
    text = _NOT_PROSE.sub(_blank, text)
    return _HEX_NAME.sub(_blank, _SUBSCRIPT.sub(_blank, _CODE.sub(_blank_identifier, text)))


def values_shown(scanned: str, *, record_prose: bool = False) -> Iterator[ShownNumber]:
    """The numbers of a ``scannable`` text that claim a quantity, in order. In a record's
    prose (``record_prose``) a year is no claim either, nor a bare constant of a relation
    written out (the 2 of ``w = 2*pi*f``, the 1 of ``1/(w*C)``): a message states the step
    before its eval puts the relation on record. An article's years and constants are facts
    it must hold."""
    for shown in shown_numbers(scanned):
        before = scanned[max(0, shown.start - 12) : shown.start]
        if _EXPONENT_BEFORE.search(before) or _NUMBERING_BEFORE.search(before):
            continue
        if shown.text.isdigit() and _is_list_item(scanned, shown):
            continue
        if record_prose and (_is_year(scanned, shown) or _is_constant(scanned, shown, before)):
            continue
        yield shown


def _is_list_item(scanned: str, shown: ShownNumber) -> bool:
    """A whole number first on its line and followed by a point or a parenthesis."""
    line_start = scanned.rfind("\n", 0, shown.start) + 1
    first = scanned[line_start : shown.start].strip(" \t") in ("", "(")
    return first and _LIST_ITEM_AFTER.match(scanned, shown.end) is not None


def _is_constant(scanned: str, shown: ShownNumber, before: str) -> bool:
    """A multiple of pi, or a number with no unit that an operator joins to the symbols
    of a relation."""
    if _PI_AFTER.match(scanned, shown.end):
        return True
    joined = _OPERATOR_AFTER.match(scanned, shown.end) or _OPERATOR_BEFORE.search(before)
    return joined is not None and unit_after(scanned, shown.end) is None


def _is_year(scanned: str, shown: ShownNumber) -> bool:
    """Four plain digits from 1600 to 2099, with no equals sign before and no unit after."""
    if not shown.text.isdigit() or _YEAR.fullmatch(shown.text) is None:
        return False
    if unit_after(scanned, shown.end) is not None:
        return False
    return _EQUALS_BEFORE.search(scanned, max(0, shown.start - 8), shown.start) is None


def unit_after(text: str, end: int) -> tuple[Fraction, Fraction] | None:
    """(factor, offset) of the unit written right after a number, if the catalogue knows it
    (``mA``, ``kΩ``, ``°C``, ``\\mathrm{m}^{3}``); None for a word that is no unit."""
    match = _UNIT_AFTER.match(text, end)
    if match is None:
        return None
    return unit_spec(_unit_text(match.group("unit")))


def _unit_text(written: str) -> str:
    """A unit as a text writes it, in the catalogue's spelling: ``kΩ`` -> ``kohm``."""
    unit = written
    for symbol, name in _UNIT_SPELLINGS:
        unit = unit.replace(symbol, name)
    unit = unit.replace("{", "").replace("}", "").replace("\\", "")
    if unit_spec(unit) is not None:
        return unit
    return re.sub(r"[^A-Za-z].*$", "", unit)  # a unit glued to punctuation: mA.


def unit_word(text: str, end: int, unit: tuple[Fraction, Fraction] | None) -> str:
    """The unit written after a number, as written, when it is one (for a sentence)."""
    written = _UNIT_AFTER.match(text, end)
    return f" {written.group('unit')}" if unit is not None and written is not None else ""


# -- holding a shown number against known numbers ----------------------------------------


def _within(reference: tuple[Decimal, ...], magnitude: Decimal, half: Decimal) -> bool:
    # Inclusive at both ends: a fact exactly half a unit away rounds to the shown text under
    # half-up, and writers differ in how they break that tie.
    low = WIDE.subtract(magnitude, half)
    index = bisect_left(reference, low)
    return index < len(reference) and reference[index] <= WIDE.add(magnitude, half)


def matches_any(
    reference: tuple[Decimal, ...],
    shown: ShownNumber,
    unit: tuple[Fraction, Fraction] | None,
) -> bool:
    """Whether a number of the sorted ``reference`` rounds to ``shown`` at its digits, as
    written or converted to SI by the unit written after it."""
    magnitude = shown.magnitude.copy_abs()
    if _within(reference, magnitude, shown.half_unit):
        return True
    if unit is None or (unit[0] == 1 and unit[1] == 0):
        return False
    si, half = _to_si(magnitude, shown.half_unit, unit)
    return _within(reference, si, half)


def _to_si(
    magnitude: Decimal, half: Decimal, unit: tuple[Fraction, Fraction]
) -> tuple[Decimal, Decimal]:
    factor, offset = unit
    as_decimal = WIDE.divide(Decimal(factor.numerator), Decimal(factor.denominator))
    shift = WIDE.divide(Decimal(offset.numerator), Decimal(offset.denominator))
    si = WIDE.add(WIDE.multiply(magnitude, as_decimal), shift)
    return si.copy_abs(), WIDE.multiply(half, as_decimal.copy_abs())


def near_miss(
    reference: tuple[Decimal, ...],
    shown: ShownNumber,
    unit: tuple[Fraction, Fraction] | None,
    *,
    as_recorded: bool = False,
) -> str | None:
    """The reference number nearest the shown one within 2 %, in the shown unit and digits;
    ``as_recorded``, in its own digits instead (a receipt's 2.553, not 2.55 beside a shown
    2.56), for a reference of numbers as they were shown rather than as they were stored."""
    magnitude = shown.magnitude.copy_abs()
    if magnitude == 0:
        return None
    best: tuple[Decimal, Decimal] | None = None
    candidates = [(magnitude, Fraction(1), Fraction(0))]
    if unit is not None:
        si, _ = _to_si(magnitude, shown.half_unit, unit)
        candidates.append((si, unit[0], unit[1]))
    for target, factor, offset in candidates:
        index = bisect_left(reference, target)
        for value in reference[max(0, index - 1) : index + 1]:
            # In the wide context: a text may show 1e999999999999, past the default's range
            # (and past what a Fraction of it could hold).
            distance = (
                WIDE.divide(WIDE.subtract(value, target).copy_abs(), target)
                if target
                else Decimal(1)
            )
            if distance <= Decimal("0.02") and (best is None or distance < best[0]):
                best = (distance, _from_si(value, factor, offset))
    if best is None:
        return None
    if as_recorded:
        return _spelled(best[1])
    digits = max(0, -shown.half_unit.adjusted() - 1) if shown.half_unit < 1 else 0
    if digits > _PLAIN_DIGITS:
        return _spelled(best[1])  # 1.01e-999999999999 is not spelled with its zeros
    return f"{abs(best[1]):.{digits}f}"


# A recorded number spelled back: its own digits, past a conversion's last-place noise.
_RECORDED = Context(prec=12, Emax=MAX_EMAX, Emin=MIN_EMIN)
_PLAIN_DIGITS = 40  # the most decimals a nearest number is spelled with at a shown grain


def _from_si(value: Decimal, factor: Fraction, offset: Fraction) -> Decimal:
    """An SI number in the unit of ``factor`` and ``offset`` (no conversion for SI)."""
    if factor == 1 and offset == 0:
        return value
    as_decimal = WIDE.divide(Decimal(factor.numerator), Decimal(factor.denominator))
    shift = WIDE.divide(Decimal(offset.numerator), Decimal(offset.denominator))
    return WIDE.divide(WIDE.subtract(value, shift), as_decimal)


def _spelled(number: Decimal) -> str:
    """A number in its own digits, at most 12 figures: plain in the usual range."""
    rounded = _RECORDED.plus(number.copy_abs()).normalize(_RECORDED)
    return format(rounded, "f") if -7 <= rounded.adjusted() < 16 else format(rounded, "e")


@dataclass(frozen=True, slots=True)
class Unbacked:
    """A number a text claims that no reference number gives: its text with the unit
    written after it, and the nearest reference number (with that unit)."""

    text: str
    near: str | None


def unbacked(
    prose: str, reference: tuple[Decimal, ...], *, as_recorded: bool = False
) -> list[Unbacked]:
    """Each quantity claim of a record's ``prose`` (a message, a closing text) that no
    number of the sorted ``reference`` backs; ``as_recorded`` as for ``near_miss``."""
    found: list[Unbacked] = []
    for shown in values_shown(scannable(prose), record_prose=True):
        unit = unit_after(prose, shown.end)
        if matches_any(reference, shown, unit):
            continue
        near = near_miss(reference, shown, unit, as_recorded=as_recorded)
        written = _UNIT_AFTER.match(prose, shown.end)
        if near is not None and unit is not None and written is not None:
            near = f"{near} {written.group('unit')}"
        text = (shown.text + unit_word(prose, shown.end, unit)).strip()
        found.append(Unbacked(text, near))
    return found


def stated_numbers(text: str) -> set[Decimal]:
    """Every number a text states (``text_numbers``), and in SI too where a unit the
    catalogue knows is written after it (``4.7 kOhm`` states 4.7 and 4700)."""
    found = text_numbers(text)
    for shown in shown_numbers(text):
        unit = unit_after(text, shown.end)
        if unit is not None and (unit[0] != 1 or unit[1] != 0):
            found.add(_to_si(shown.magnitude.copy_abs(), shown.half_unit, unit)[0])
    return found
