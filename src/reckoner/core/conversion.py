"""A written number into SI and back: a resolved unit (`UnitSpec`, exact on the decimal
spelling) or a table name's affine map, applied to one scalar.

The catalogue outside the core resolves unit text into a `UnitSpec`; the core only applies
it, on the way in (`set`) and out (`get`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from reckoner.contract.dimensions import Vector

from . import dimensions as dims
from .forms import JSON
from .scalars import Scalar, is_complex


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A resolved unit expression: ``SI = x*factor + offset``, exact, with its vector.

    Built by the unit catalogue outside the core; the core only applies it. A unit whose map
    equals a table name's (identity, degC) applies that map in floats, exactly as `dim`.
    Otherwise a number is taken at its shortest decimal spelling and converted with exact
    integers, rounded once: 4.7 kOhm is 4700 and 1.002 mPa*s is 0.001002, as written."""

    text: str
    vector: Vector
    exact_factor: Fraction
    exact_offset: Fraction
    factor: float
    offset: float
    table_map: dims.AffineMap | None
    # The k of a factor that is exactly 10**k with no offset (kOhm, mm, mPa*s, kJ), else
    # None: such a conversion only moves the decimal point of the written spelling.
    decimal_shift: int | None = None

    @classmethod
    def of(cls, text: str, vector: Vector, factor: Fraction, offset: Fraction) -> UnitSpec:
        table_map = None
        for name in ("dim-less", "degC"):
            candidate = dims.affine_map(name)
            if factor == Fraction(candidate.factor) and offset == Fraction(str(candidate.offset)):
                table_map = candidate
        shift = _power_of_ten(factor) if offset == 0 else None
        return cls(text, vector, factor, offset, float(factor), float(offset), table_map, shift)

    @property
    def is_identity(self) -> bool:
        return self.table_map is not None and self.table_map.is_identity

    def into_si(self, x: float, *, scale_only: bool = False) -> float:
        """A written number into SI (scale_only: an imaginary part, which takes no offset)."""
        if self.table_map is not None:
            m = self.table_map
            return x * m.factor if scale_only else x * m.factor + m.offset
        if self.decimal_shift is not None:
            return _shifted(x, self.decimal_shift)
        return _exactly(x, *self._into_terms(scale_only))

    def _into_terms(self, scale_only: bool) -> tuple[int, int, int]:
        """x*p/q + r/s over one denominator, as (p*s, r*q, q*s); an imaginary part (scale
        only) takes no offset."""
        p, q = self.exact_factor.numerator, self.exact_factor.denominator
        r, s = (
            (0, 1) if scale_only else (self.exact_offset.numerator, self.exact_offset.denominator)
        )
        return p * s, r * q, q * s

    def reals_into_si(self, xs: list[float]) -> list[float]:
        """`into_si` of each real of a list, the unit's integers read once (a million-element
        `set` in km/h): the same arithmetic, so the same doubles."""
        if self.table_map is not None or self.decimal_shift is not None:
            into_si = self.into_si
            return [into_si(x) for x in xs]
        ps, rq, qs = self._into_terms(False)
        return [_exactly(x, ps, rq, qs) for x in xs]

    def out_of_si(self, x: float, *, scale_only: bool = False) -> float:
        """An SI number in this unit, converted the same exact way."""
        if self.table_map is not None:
            m = self.table_map
            return x / m.factor if scale_only else (x - m.offset) / m.factor
        if self.decimal_shift is not None:
            return _shifted(x, -self.decimal_shift)
        mantissa, shift = shortest_decimal(x)
        p, q = self.exact_factor.numerator, self.exact_factor.denominator
        r, s = (
            (0, 1) if scale_only else (self.exact_offset.numerator, self.exact_offset.denominator)
        )
        # (x - r/s) * q/p over one denominator.
        if shift >= 0:
            return _ratio((mantissa * 10**shift * s - r) * q, s * p)
        scale = 10**-shift
        return _ratio((mantissa * s - r * scale) * q, s * p * scale)


def shortest_decimal(x: float) -> tuple[int, int]:
    """A finite double's shortest decimal spelling as ``mantissa * 10**shift``."""
    text = repr(x)
    exponent = 0
    if "e" in text:
        text, power = text.split("e")
        exponent = int(power)
    whole, _, fraction = text.partition(".")
    return int(whole + fraction), exponent - len(fraction)


def _exactly(x: float, ps: int, rq: int, qs: int) -> float:
    """(x*p*s + r*q) / (q*s) with x at its shortest decimal spelling, in integers, rounded
    once (int / int is correctly rounded)."""
    mantissa, shift = shortest_decimal(x)
    if shift >= 0:
        return _ratio(mantissa * 10**shift * ps + rq, qs)
    scale = 10**-shift
    return _ratio(mantissa * ps + rq * scale, qs * scale)


def _power_of_ten(factor: Fraction) -> int | None:
    """k when ``factor`` is exactly 10**k (k of either sign), else None."""
    p, q = factor.numerator, factor.denominator
    if q == 1:
        whole, sign = p, 1
    elif p == 1:
        whole, sign = q, -1
    else:
        return None
    digits = str(whole)
    return sign * (len(digits) - 1) if digits == "1" + "0" * (len(digits) - 1) else None


def _shifted(x: float, k: int) -> float:
    """The double nearest ``x``'s shortest decimal spelling times 10**k: what the exact
    integer conversion gives, with the decimal point moved and parsed (correctly rounded)
    instead of a big division. A zero spelling comes out as +0.0, as the integer route gives
    it; a product too small for a double keeps its sign, as that route's division does."""
    if x == 0:
        return 0.0
    text = repr(x)
    if "e" in text:
        text, power = text.split("e")
        k += int(power)
    return float(f"{text}e{k}")


def _ratio(numerator: int, denominator: int) -> float:
    try:
        return numerator / denominator
    except OverflowError:
        return math.inf if numerator > 0 else -math.inf  # refused later as not finite


UnitResolver = Callable[[JSON, str], UnitSpec]
"""Resolves `unit` text (or refuses with a raised failure); supplied from outside the core."""

NumberMap: TypeAlias = "dims.AffineMap | UnitSpec"
"""How written numbers map into SI: a table name's affine map or a resolved unit."""


def map_in(x: Scalar, mapping: NumberMap) -> Scalar:
    """A written scalar into SI (an imaginary part takes the scale, never the offset)."""
    if mapping.is_identity:
        return x
    if type(mapping) is UnitSpec:
        if is_complex(x):
            return complex(mapping.into_si(x.real), mapping.into_si(x.imag, scale_only=True))
        return mapping.into_si(x)
    if is_complex(x):
        return complex(x.real * mapping.factor + mapping.offset, x.imag * mapping.factor)
    return x * mapping.factor + mapping.offset


def map_out(x: Scalar, mapping: NumberMap) -> Scalar:
    """An SI scalar in the written unit: `map_in` undone."""
    if mapping.is_identity:
        return x
    if type(mapping) is UnitSpec:
        if is_complex(x):
            return complex(mapping.out_of_si(x.real), mapping.out_of_si(x.imag, scale_only=True))
        return mapping.out_of_si(float(x))
    if is_complex(x):
        return complex((x.real - mapping.offset) / mapping.factor, x.imag / mapping.factor)
    return (x - mapping.offset) / mapping.factor
