"""How a number looks in an article: the cut (docs/guide/articles.md).

The cut is the one rule for every number a writer receives: four significant figures (never
fewer than a plain number's whole digits), and the exponential form below ``1e-3`` or at or
above ``1e6``; a reading keeps the digits it was asked for (docs/decisions/articles-numbers.md).
The numbers an article shows are read back by ``reckoner.units.prose``. No I/O here.
"""

from __future__ import annotations

import math

SIGNIFICANT = 4
SMALLEST_PLAIN = 1e-3
LARGEST_PLAIN = 1e6


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
