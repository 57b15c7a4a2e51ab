"""How a number looks in an article: the cut (manual 10) and the reading of shown numbers.

The cut is the one rule for every number a writer receives: four significant figures (never
fewer than a plain number's whole digits), and the exponential form below ``1e-3`` or at or
above ``1e6``; a reading keeps the digits it was asked for (docs/decisions/articles-numbers.md).
The reader finds the numbers an article shows, in any of the forms a writer may use
(``0.25``, ``2.5e-4``, ``2.5 \\times 10^{-4}``, ``2.5 × 10⁻⁴``), so the audit can hold each
one against the facts. No I/O here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal

SIGNIFICANT = 4
SMALLEST_PLAIN = 1e-3
LARGEST_PLAIN = 1e6

WIDE = Context(Emax=MAX_EMAX, Emin=MIN_EMIN)
"""The arithmetic of shown numbers: an article may quote text that reads as a number no
double reaches (a run id such as ``0000e3000000``), and reading it must never trap."""
_EXPONENT_DIGITS = 15  # a longer exponent is clamped: far past every fact either way
_CLAMPED_EXPONENT = 1_000_000_000_000_000  # 10**_EXPONENT_DIGITS


def cut(x: float, figures: int = SIGNIFICANT) -> str:
    """``x`` as a writer receives it, to ``figures`` significant figures (closing zeros of a
    fraction dropped): ``0.002948``, ``266.7``, ``4070``, ``3.24e-4``, ``1.235e6``. A plain
    number never loses a digit of its whole part (``123457``, not ``123500``, which would
    claim digits it does not have); below ``1e-3`` and from ``1e6`` it is exponential."""
    magnitude = abs(x)
    if SMALLEST_PLAIN <= magnitude < LARGEST_PLAIN:
        if magnitude >= 1 and x == int(x):
            return str(int(x))  # a whole number: the commonest case
        # %g keeps ``figures`` significant figures and drops the closing zeros; where it
        # would turn exponential (the whole part has more digits) the whole part is shown.
        text = f"{x:.{figures}g}"
        if "e" in text:
            text = f"{x:.0f}"
            if len(text.lstrip("-")) > 6:
                return cut(math.copysign(LARGEST_PLAIN, x), figures)  # 999999.99 rounds to 1e6
        return "0" if text == "-0" else text
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return repr(x)
    mantissa, _, exponent = f"{x:.{figures - 1}e}".partition("e")
    return f"{_trim(mantissa)}e{int(exponent)}"


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


# cut_all's one format per number: %g below the magnitude where it would turn exponential,
# the whole part above it, and a marker for the rest (exponential forms, zero, inf and NaN),
# which ``cut`` settles one by one; they are rare in a record.
_G_BELOW = 10**SIGNIFICANT - 0.5  # %.4g of 9999.5 is 1e+04
_WHOLE_BELOW = LARGEST_PLAIN - 0.5  # %.0f of 999999.5 is 1000000
_G_FORMAT = f"%.{SIGNIFICANT}g\n"
_WHOLE_FORMAT = "%.0f\n"
_OTHER = "\x00%.0s\n"


def cut_all(xs: list[float]) -> list[str]:
    """``[cut(x) for x in xs]``, in one formatting pass: a record holds thousands of
    numbers, and a call per number costs more than the conversion itself."""
    low, g_below, whole_below = SMALLEST_PLAIN, _G_BELOW, _WHOLE_BELOW
    formats = "".join(
        [
            _G_FORMAT
            if low <= (m := abs(x)) < g_below
            else _WHOLE_FORMAT
            if g_below <= m < whole_below
            else _OTHER
            for x in xs
        ]
    )
    texts = (formats % tuple(xs)).split("\n")
    texts.pop()  # after the last newline
    if "\x00" in formats:
        texts = [cut(x) if text == "\x00" else text for x, text in zip(xs, texts, strict=True)]
    return texts


def shown_reading(x: float) -> str:
    """A reading's number as the engine answered it. A reading asked with ``digits`` was
    rounded by the engine, so its shortest spelling is the digits asked for (``2.948``); a
    reading without carries a double's full 16 or 17 figures and is cut to ``SIGNIFICANT``.
    A spelling of up to ``READING_FIGURES`` figures counts as one the engine rounded."""
    if not math.isfinite(x) or x == 0:
        return cut(x)
    shortest = repr(float(x))
    mantissa = shortest.lower().partition("e")[0].lstrip("-").replace(".", "").strip("0")
    if len(mantissa) <= READING_FIGURES:
        return cut(x, max(len(mantissa), 1)) if len(mantissa) > SIGNIFICANT else cut(x)
    return cut(x)


READING_FIGURES = 12


def shown_given(x: float) -> str:
    """A given's number with the digits it was written with: the conversion's last-place
    noise (15 degC is stored 288.15 K and reads back 14.999999999999977 degC) is rounded away
    at ``READING_FIGURES`` figures, so the number shows as it was written (``4712.123456``,
    ``15``), exponential outside the plain range as ``cut`` writes it."""
    magnitude = abs(x)
    if SMALLEST_PLAIN <= magnitude < LARGEST_PLAIN:
        text = f"{x:.{READING_FIGURES}g}"  # plain in this range, its closing zeros dropped
        return "0" if text == "-0" else text
    if x == 0 or not math.isfinite(x):
        return cut(x)
    mantissa, _, exponent = f"{x:.{READING_FIGURES - 1}e}".partition("e")
    return f"{_trim(mantissa)}e{int(exponent)}"


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
