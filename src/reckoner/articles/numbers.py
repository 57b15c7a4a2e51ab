"""How a number looks in an article: the cut (manual 10) and the reading of shown numbers.

The cut is the one rule for every number a writer receives: at most four decimals, and the
exponential form below ``1e-3`` or at or above ``1e6``. The reader finds the numbers an
article shows, in any of the forms a writer may use (``0.25``, ``2.5e-4``,
``2.5 \\times 10^{-4}``, ``2.5 × 10⁻⁴``), so the audit can hold each one against the facts.
No I/O here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal

MAX_DECIMALS = 4
SMALLEST_PLAIN = 1e-3
LARGEST_PLAIN = 1e6

WIDE = Context(Emax=MAX_EMAX, Emin=MIN_EMIN)
"""The arithmetic of shown numbers: an article may quote text that reads as a number no
double reaches (a run id such as ``0000e3000000``), and reading it must never trap."""
_EXPONENT_DIGITS = 15  # a longer exponent is clamped: far past every fact either way
_CLAMPED_EXPONENT = 1_000_000_000_000_000  # 10**_EXPONENT_DIGITS


def cut(x: float) -> str:
    """``x`` as a writer receives it: ``7.1274``, ``6875``, ``3.2397e-4``, ``1.2346e6``."""
    magnitude = abs(x)
    # The plain range first: nearly every number an article shows is in it (NaN is not).
    if SMALLEST_PLAIN <= magnitude < LARGEST_PLAIN:
        if magnitude >= 1 and x == int(x):
            return str(int(x))  # a whole number: the commonest case
        text = f"{x:.{MAX_DECIMALS}f}".rstrip("0")
        if text[-1] == ".":
            text = text[:-1]
        return "0" if text == "-0" else text
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return repr(x)
    mantissa, _, exponent = f"{x:.{MAX_DECIMALS}e}".partition("e")
    return f"{_trim(mantissa)}e{int(exponent)}"


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


# cut_all's one format per number: the conversions cut makes, one number to a line. A
# plain form ends its line with a newline, everything else with a carriage return, so only
# a plain fraction's zeros ever stand before a newline (never an exponent's, as in e+10).
_PLAIN_FORMAT = f"%.{MAX_DECIMALS}f\n"
_EXPONENT_FORMAT = f"%.{MAX_DECIMALS}e\r"
_ZERO_FORMAT = "0%.0s\r"  # consumes the number and shows "0", whatever its sign
_OTHER_FORMAT = "%r\r"  # inf, -inf, nan as repr shows them


def _trimmings(end: str, done: str) -> tuple[tuple[str, str], ...]:
    """The replacements that drop the zeros closing a four-digit fraction before ``end``:
    an all-zero fraction goes with its point (the line then ends with ``done``, out of
    the later steps' reach), then three, two and one closing zeros. After each step no
    fraction before ``end`` closes with the zeros the earlier steps took."""
    zeros = "0" * MAX_DECIMALS
    steps = [("." + zeros + end, done)]
    steps.extend((zeros[:count] + end, end) for count in range(MAX_DECIMALS - 1, 0, -1))
    return tuple(steps)


_REPLACEMENTS = (
    *_trimmings("\n", "\r"),
    *_trimmings("e", "e"),
    # An exponent as cut writes it: no plus sign, no leading zero (e+06 -> e6, e-04 ->
    # e-4); %e writes two digits at least, so one leading zero at most.
    ("e+0", "e"),
    ("e-0", "e-"),
    ("e+", "e"),
)


def cut_all(xs: list[float]) -> list[str]:
    """``[cut(x) for x in xs]``, in one formatting pass and a few whole-text replacements:
    a record holds thousands of numbers, and a call per number costs more than the
    conversion itself."""
    low, high = SMALLEST_PLAIN, LARGEST_PLAIN
    isfinite = math.isfinite
    formats = "".join(
        [
            _PLAIN_FORMAT
            if low <= abs(x) < high
            else _ZERO_FORMAT
            if x == 0
            else _EXPONENT_FORMAT
            if isfinite(x)
            else _OTHER_FORMAT
            for x in xs
        ]
    )
    text = formats % tuple(xs)
    for old, new in _REPLACEMENTS:
        text = text.replace(old, new)
    return text.splitlines()


def cut_tex(text: str) -> str:
    """A cut number as TeX math: ``3.2397e-4`` -> ``3.2397\\times 10^{-4}``."""
    if "e" not in text:
        return text
    mantissa, _, exponent = text.partition("e")
    return f"{mantissa}\\times 10^{{{exponent}}}"


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
    """One number an article shows: where it starts, its text, its magnitude and its grain."""

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


def exact(x: float) -> tuple[Decimal, ...]:
    """A stored double as the decimals a writer may have rounded: its exact binary value and
    its shortest repr (they differ in the last place, which decides a tie)."""
    magnitude = abs(x)
    exact_value = Decimal(magnitude)
    shortest = Decimal(repr(magnitude))
    return (exact_value,) if exact_value == shortest else (exact_value, shortest)
