"""Whether every number of an answer appears in the material it was drawn from. Pure.

The extractive prompt forbids computing and converting; this is the check that it did not.
Two spellings are the same number when their digits are: thousands separators (a comma, a
space, a thin or no-break space, an apostrophe between groups of three), leading zeros of
the whole part and trailing zeros of the fraction aside, so "8,960" = "8960" = "8 960" and
"0.50" = ".5". A sign is not compared (a hyphen may as well be a dash), and a digit glued to
a letter is part of a word or a unit (``m3``, ``H2O``, ``ISO9001``), not a number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_GROUP = "[,'\u00a0\u2009\u202f ]"
"""A thousands separator: one character between a group and the next three digits."""

_MINUS = "-\u2212"

_NUMBER = re.compile(
    rf"(?<![\w.])(?:(?P<whole>\d{{1,3}}(?:{_GROUP}\d{{3}})+|\d+)(?:\.(?P<frac>\d+))?"
    rf"|\.(?P<bare>\d+))(?:[eE](?P<exp>[+\-\u2212]?\d+))?(?![\w])"
)
"""A number not glued to a word: a whole part (maybe grouped) with an optional fraction, or
a bare fraction (".5"), with an optional exponent ("1.2e-5")."""


def _canonical(match: re.Match[str]) -> str:
    whole = re.sub(_GROUP, "", match["whole"] or "").lstrip("0") or "0"
    fraction = (match["frac"] or match["bare"] or "").rstrip("0")
    text = f"{whole}.{fraction}" if fraction else whole
    exponent = match["exp"]
    if exponent:
        sign = "-" if exponent[0] in _MINUS else ""
        digits = exponent.lstrip("+" + _MINUS).lstrip("0") or "0"
        text += f"e{sign}{digits}"
    return text


def numbers(text: str) -> list[tuple[str, str]]:
    """Each number of ``text`` as (its canonical digits, as written), in order."""
    return [(_canonical(m), m.group(0)) for m in _NUMBER.finditer(text)]


def unsupported(answer: str, material: Iterable[str]) -> list[str]:
    """The canonical form of each number of ``answer`` that no text of ``material`` holds,
    once each, in the answer's order."""
    held = {canonical for text in material for canonical, _ in numbers(text)}
    missing: list[str] = []
    for canonical, _ in numbers(answer):
        if canonical not in held and canonical not in missing:
            missing.append(canonical)
    return missing
