"""The quotable spelling of a rounded reading: its significant digits, trailing zeros kept.

A JSON number cannot say that 68 was read to four digits, so a reading with `digits` carries
`text` beside its tag: the string a model quotes, which `set` takes back unchanged. A real
is "68.00"; a complex is spelled in the formula language's notation, "3.000+4.000i", and a
polar one as magnitude and angle, "5.000∠0.9273"; an array carries a text per element, in
its own nesting (docs/decisions/engine-readings.md).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_TEXT_LENGTH

from .errors import fail
from .forms import JSON, ArrayForm, JSONNumber, Tagged, TextForm
from .values import RealArray

# Every decimal of 15 significant digits survives a double (DBL_DIG), so zeros up to 15
# are digits the number has; past 15 they could claim digits it lacks (1/3 is
# 0.33333333333333331...), so a longer reading keeps its shortest spelling.
QUOTED_DIGITS = 15
# Plain notation between 1e-4 and 10**digits, scientific outside (as C's %#g chooses).
_SMALLEST_PLAIN_EXPONENT = -4
_UNSIGNED = r"(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?"
_NUMERAL = re.compile(f"-?{_UNSIGNED}")
# The imaginary unit as the formula language writes it (it reads i and j alike), and the
# sign between magnitude and angle of a polar reading.
IMAGINARY = "i"
ANGLE = "\u2220"
_COMPLEX = re.compile(f"(-?{_UNSIGNED})([+-])({_UNSIGNED}){IMAGINARY}")
_POLAR = re.compile(f"(-?{_UNSIGNED}){ANGLE}(-?{_UNSIGNED})")
# A complex text holds two numerals and the sign or angle between them.
MAX_PAIR_TEXT_LENGTH = 2 * MAX_TEXT_LENGTH + 2
# %#g keeps trailing zeros and picks plain or scientific notation as `quoted` does; its
# exponent ("e+04", "e-05": a sign and at least two digits) and a point with no digit after
# it ("3.") are respelled with plain string replacements, each one C pass over the text.
_C_RESPELLINGS = (("e+0", "e"), ("e+", "e"), ("e-0", "e-"), (".e", "e"), (".\n", "\n"))
# The parts of a complex number are one line, a tab between them (see c_complex_spellings).
_C_PAIR_RESPELLINGS = (*_C_RESPELLINGS, (".\t", "\t"))
_SMALLEST_NORMAL = sys.float_info.min


def quoted(x: float, digits: int) -> str:
    """`x` (already rounded to `digits`) spelled with exactly that many significant digits:
    68 -> "68.00" and 74700 -> "7.470e4" at 4; 0.0003 -> "0.0003000"."""
    wanted = min(digits, QUOTED_DIGITS)
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


def quoted_complex(re: float, im: float, digits: int) -> str:
    """A rounded complex in the formula language's notation, each part `quoted`: 3+4j read
    to 4 digits is "3.000+4.000i"."""
    return spelled_complex([quoted(re, digits)], [quoted(abs(im), digits)], [im < 0])[0]


def quoted_polar(mag: float, ang: float, digits: int) -> str:
    """A rounded polar reading, magnitude and angle each `quoted`: "5.000∠0.9273"."""
    return spelled_polar([quoted(mag, digits)], [quoted(ang, digits)])[0]


def spelled_complex(real: list[str], imaginary: list[str], negative: list[bool]) -> list[str]:
    """Complex texts from the spellings of their real parts and of the magnitudes of their
    imaginary parts, and which imaginary parts are negative."""
    return [
        f"{x}{'-' if minus else '+'}{y}{IMAGINARY}"
        for x, y, minus in zip(real, imaginary, negative, strict=True)
    ]


def spelled_polar(magnitude: list[str], angle: list[str]) -> list[str]:
    """Polar texts from the spellings of their magnitudes and angles."""
    return [f"{m}{ANGLE}{a}" for m, a in zip(magnitude, angle, strict=True)]


def quoted_form(form: Tagged, digits: int) -> TextForm:
    """The text of a rendered {num}, {re, im}, {mag, ang} or {array} (its numbers rounded)."""
    if "num" in form:
        return quoted(float(form["num"]), digits)
    if "re" in form:
        return quoted_complex(float(form["re"]), float(form["im"]), digits)
    if "mag" in form:
        return quoted_polar(float(form["mag"]), float(form["ang"]), digits)
    return quoted_elements(form["array"], digits)


def quoted_elements(items: ArrayForm, digits: int) -> list[TextForm]:
    """A text per rendered element, in the array's nesting: every number of the array is
    gathered and spelled together in C (`quoted_many`), then the texts are nested again,
    so a million elements are a few passes, not a million calls."""
    first: list[JSONNumber] = []
    second: list[JSONNumber] = []
    kinds: list[str] = []  # "" a real, "+" or "-" a complex (its imaginary sign), ANGLE polar
    _gather(items, first, second, kinds)
    firsts = quoted_many(np.array(first, dtype=np.float64), digits)
    texts = firsts
    if any(kinds):
        seconds = quoted_many(np.array(second, dtype=np.float64), digits)
        complex_texts = spelled_complex(firsts, seconds, [k == "-" for k in kinds])
        polar_texts = spelled_polar(firsts, seconds) if ANGLE in kinds else firsts
        texts = [
            x if not k else p if k == ANGLE else c
            for x, c, p, k in zip(firsts, complex_texts, polar_texts, kinds, strict=True)
        ]
    return _nest(items, iter(texts))


def _gather(
    items: ArrayForm, first: list[JSONNumber], second: list[JSONNumber], kinds: list[str]
) -> None:
    for e in items:
        if isinstance(e, list):
            _gather(e, first, second, kinds)
        elif isinstance(e, dict):
            if "re" in e:
                im = e["im"]
                first.append(e["re"])
                second.append(abs(im))
                kinds.append("-" if im < 0 else "+")
            else:
                first.append(e["mag"])
                second.append(e["ang"])
                kinds.append(ANGLE)
        else:
            first.append(e)
            second.append(0)
            kinds.append("")


def _nest(items: ArrayForm, texts: Iterator[str]) -> list[TextForm]:
    return [_nest(e, texts) if isinstance(e, list) else next(texts) for e in items]


def shaped(items: Sequence[Any], shape: tuple[int, ...]) -> list[Any]:
    """Flat texts (or rendered elements) nested as a rectangular array of this shape
    (row-major, as numpy), in one numpy reshape rather than a call per row."""
    if len(shape) == 1:
        return list(items)
    holder = np.empty(len(items), dtype=object)
    holder[:] = items
    nested: list[Any] = holder.reshape(shape).tolist()
    return nested


def quoted_many(values: RealArray, digits: int) -> list[str]:
    """`quoted` over a flat float64 array, the same strings: formatted by one C-level `%`,
    checked by reading each back, and any that does not read back as its number (a longer
    spelling than the digits asked, past 15) spelled by `quoted` itself."""
    flat = np.where(values == 0, 0.0, values).ravel()  # -0 reads as 0, unsigned
    numbers = tuple(flat.tolist())
    spelled = c_spellings(numbers, digits)
    if not spelled:
        return spelled
    with np.errstate(all="ignore"):
        agrees = np.array(spelled, dtype=np.float64) == flat
    # A subnormal double holds fewer than 15 digits: C's digits of its binary value may read
    # back as it and still differ from its shortest spelling's (4.9e-324 for 5e-324).
    agrees &= ~is_subnormal(flat)
    for i in np.flatnonzero(~agrees).tolist():
        spelled[i] = quoted(numbers[i], digits)
    return spelled


def c_spellings(numbers: tuple[float, ...], digits: int) -> list[str]:
    """Each number rounded by C to `digits` (at most 15) significant digits and spelled as
    `quoted` spells a rounded number: one `%#g` pass and a few replacements over its text.
    For a number already so rounded this is `quoted` itself, but for a subnormal or a -0."""
    text = (f"%#.{min(digits, QUOTED_DIGITS)}g\n" * len(numbers)) % numbers
    for c_spelling, ours in _C_RESPELLINGS:
        text = text.replace(c_spelling, ours)
    spelled = text.split("\n")
    spelled.pop()  # the empty text after the last newline (a slice would copy the list)
    return spelled


def c_complex_spellings(parts: tuple[float, ...], digits: int) -> tuple[str, list[str]]:
    """`c_spellings` of complex numbers given as their parts in turn (re, im, re, im, ...):
    one `%#g` pass, the imaginary part written with C's `+` flag, so its sign is the one a
    complex text puts between the parts. Answers the parts' text, whitespace between the
    numbers, for reading them back, and each number's complex text ("3.50+1.50i")."""
    wanted = min(digits, QUOTED_DIGITS)
    text = (f"%#.{wanted}g\t%+#.{wanted}g\n" * (len(parts) // 2)) % parts
    for c_spelling, ours in _C_PAIR_RESPELLINGS:
        text = text.replace(c_spelling, ours)
    texts = text.replace("\t", "").replace("\n", f"{IMAGINARY}\n").split("\n")
    texts.pop()  # the empty text after the last newline
    return text, texts


def is_subnormal(values: RealArray) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Which numbers are subnormal doubles (nonzero, below the smallest normal one)."""
    subnormal: np.ndarray[Any, np.dtype[np.bool_]] = (np.abs(values) < _SMALLEST_NORMAL) & (
        values != 0
    )
    return subnormal


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
    if not _is_numeral(text):
        shown = repr(text)[:40] if type(text) is str else type(text).__name__
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.text is {shown}, but text is a reading's decimal spelling of num of at "
            f'most {MAX_TEXT_LENGTH} characters (MAX_TEXT_LENGTH), such as "68.00"; copy it '
            f"from the reading or leave it out",
        )
    if float(str(text)) != num:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.text {text!r} spells {float(str(text))!r} but num is {num!r}; text must "
            f"spell num as a reading gives it, so send the reading unchanged or leave text out",
        )


def _is_numeral(text: object) -> bool:
    return type(text) is str and len(text) <= MAX_TEXT_LENGTH and bool(_NUMERAL.fullmatch(text))


def check_pair_text(
    text: object, pair: tuple[str, str], parts: tuple[float, float], where: str
) -> None:
    """`set`'s `text` beside {re, im} ("3.000+4.000i") or {mag, ang} ("5.000∠0.9273"):
    it must spell both parts as a reading gives them."""
    _check_pair(text, pair, parts, f"{where}.text")


def _check_pair(text: object, pair: tuple[str, str], parts: tuple[float, float], path: str) -> None:
    first, second = pair
    polar = first == "mag"
    example = f'"5.000{ANGLE}0.9273"' if polar else f'"3.000+4.000{IMAGINARY}"'
    spelled = _pair_parts(text, polar)
    if spelled is None:
        shown = repr(text)[:60] if type(text) is str else type(text).__name__
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{path} is {shown}, but beside {first} and {second} text is a reading's "
            f"spelling of both parts, such as {example}, of at most {MAX_PAIR_TEXT_LENGTH} "
            f"characters; copy it from the reading or leave it out",
        )
    if spelled != parts:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{path} {text!r} spells {first} {spelled[0]!r} and {second} "
            f"{spelled[1]!r} but the value holds {parts[0]!r} and {parts[1]!r}; text must "
            f"spell them as a reading gives them, so send the reading unchanged or leave "
            f"text out",
        )


def _pair_parts(text: object, polar: bool) -> tuple[float, float] | None:
    """The two numbers a complex or polar text spells, or None when it is no such text."""
    if type(text) is not str or len(text) > MAX_PAIR_TEXT_LENGTH:
        return None
    match = (_POLAR if polar else _COMPLEX).fullmatch(text)
    if match is None:
        return None
    if polar:
        return float(match[1]), float(match[2])
    imaginary = float(match[3])
    return float(match[1]), -imaginary if match[2] == "-" else imaginary


def check_array_text(text: JSON, items: list[JSON], where: str) -> None:
    """`set`'s `text` beside {array}: a text per element in the array's nesting, each
    spelling its element as a reading gives it (the elements already checked)."""
    _check_texts(text, items, f"{where}.text")


def _check_texts(text: JSON, items: list[JSON], path: str) -> None:
    if type(text) is not list or len(text) != len(items):
        count = f"{len(items)} element{'' if len(items) == 1 else 's'}"
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{path} is {_described(text)}, but beside an array of {count} text is a "
            f"reading's list of one spelling per element, nested as the array is; copy it "
            f"from the reading or leave it out",
        )
    for i, (spelling, item) in enumerate(zip(text, items, strict=True)):
        spot = f"{path}[{i}]"
        if type(item) is list:
            _check_texts(spelling, item, spot)
        elif type(item) is dict:
            pair = ("re", "im") if "re" in item else ("mag", "ang")
            _check_pair(spelling, pair, (item[pair[0]], item[pair[1]]), spot)
        elif not _is_numeral(spelling) or float(str(spelling)) != item:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{spot} is {_described(spelling)}, but the element it spells is {item!r}; "
                f"each text spells its element as a reading gives it, so send the reading "
                f"unchanged or leave text out",
            )


def _described(text: JSON) -> str:
    if type(text) is str:
        return repr(text)[:40]
    if type(text) is list:
        return f"a list of {len(text)}"
    return type(text).__name__
