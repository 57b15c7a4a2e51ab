"""The quotable spelling of a rounded reading: its significant digits, trailing zeros kept.

A JSON number cannot say that 68 was read to four digits, so a reading with `digits` carries
`text` beside `num` ("68.00"): the string a model quotes, which `set` takes back unchanged.
"""

from __future__ import annotations

import math
import re

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_TEXT_LENGTH

from .errors import fail

# Every decimal of 15 significant digits survives a double (DBL_DIG), so zeros up to 15
# are digits the number has; past 15 they could claim digits it lacks (1/3 is
# 0.33333333333333331...), so a longer reading keeps its shortest spelling.
_MOST_DIGITS = 15
# Plain notation between 1e-4 and 10**digits, scientific outside (as C's %#g chooses).
_SMALLEST_PLAIN_EXPONENT = -4
_NUMERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?")


def quoted(x: float, digits: int) -> str:
    """`x` (already rounded to `digits`) spelled with exactly that many significant digits:
    68 -> "68.00" and 74700 -> "7.470e4" at 4; 0.0003 -> "0.0003000"."""
    wanted = min(digits, _MOST_DIGITS)
    if not math.isfinite(x):
        return repr(x)
    mantissa, exponent = _shortest(x)
    if len(mantissa) > wanted:  # a value rounding would have pushed past the doubles
        wanted = len(mantissa)
    figures = mantissa.ljust(wanted, "0")
    sign = "-" if math.copysign(1.0, x) < 0 and x != 0 else ""
    if exponent < _SMALLEST_PLAIN_EXPONENT or exponent >= wanted:
        tail = f".{figures[1:]}" if len(figures) > 1 else ""
        return f"{sign}{figures[0]}{tail}e{exponent}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{figures}"
    whole, fraction = figures[: exponent + 1], figures[exponent + 1 :]
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


def _shortest(x: float) -> tuple[str, int]:
    """The significant digits of x's shortest spelling and the power of ten of the first."""
    if x == 0:
        return "0", 0
    text = repr(abs(x))
    power = 0
    if "e" in text:
        text, raised = text.split("e")
        power = int(raised)
    whole, _, fraction = text.partition(".")
    digits = (whole + fraction).lstrip("0")
    leading = len(whole + fraction) - len((whole + fraction).lstrip("0"))
    exponent = len(whole) - 1 - leading + power
    return digits.rstrip("0") or "0", exponent


def check_text(text: object, num: float, where: str) -> None:
    """`set`'s `text` beside `num`: a reading's spelling, which must spell the same number."""
    if type(text) is not str or len(text) > MAX_TEXT_LENGTH or not _NUMERAL.fullmatch(text):
        shown = repr(text)[:40] if type(text) is str else type(text).__name__
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.text is {shown}, but text is a reading's decimal spelling of num of at "
            f'most {MAX_TEXT_LENGTH} characters (MAX_TEXT_LENGTH), such as "68.00"; copy it '
            f"from the reading or leave it out",
        )
    if float(text) != num:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.text {text!r} spells {float(text)!r} but num is {num!r}; text must spell "
            f"num as a reading gives it, so send the reading unchanged or leave text out",
        )
