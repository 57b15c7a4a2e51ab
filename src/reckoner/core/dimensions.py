"""SI vector arithmetic over the name table of reckoner.contract.dimensions
(docs/reference/units.md).

A vector is a tuple of 7 exponents in the order m, kg, s, A, K, mol, cd. Whole exponents
are ``int``; an intermediate may carry a ``Fraction`` after a root or a fractional power.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from reckoner.contract.dimensions import (
    ROW_BY_VECTOR,
    ZERO,
    Exponent,
    Vector,
)
from reckoner.contract.limits import MAX_DIMENSION_EXPONENT

# A real power's exponent becomes an exact fraction with at most this denominator, so
# (x^(1/3))^3 returns to x's vector instead of drifting by a rounding error.
_POWER_DENOMINATOR_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class AffineMap:
    """``SI = x*factor + offset``; the offset applies to a real part only."""

    factor: float
    offset: float

    @property
    def is_identity(self) -> bool:
        return self.factor == 1.0 and self.offset == 0.0


IDENTITY = AffineMap(1.0, 0.0)

# degC is the one name whose map is not the identity (docs/reference/units.md).
AFFINE_MAPS: dict[str, AffineMap] = {"degC": AffineMap(1.0, 273.15)}


def affine_map(name: str) -> AffineMap:
    """The map a table name carries (identity for all but degC)."""
    return AFFINE_MAPS.get(name, IDENTITY)


# Formulas reuse a handful of vectors, so vector arithmetic is memoised: a hit costs one
# hash of two 7-tuples instead of building and normalising a new tuple.
_VECTOR_CACHE = 4096


@lru_cache(maxsize=_VECTOR_CACHE)
def multiply(a: Vector, b: Vector) -> Vector:
    if a == ZERO:
        return b
    if b == ZERO:
        return a
    return _normal(tuple(x + y for x, y in zip(a, b, strict=True)))


@lru_cache(maxsize=_VECTOR_CACHE)
def divide(a: Vector, b: Vector) -> Vector:
    if b == ZERO:
        return a
    return _normal(tuple(x - y for x, y in zip(a, b, strict=True)))


@lru_cache(maxsize=_VECTOR_CACHE)
def power(a: Vector, exponent: float) -> Vector:
    """Scale every component by a real exponent (docs/reference/units.md)."""
    if a is ZERO or a == ZERO:
        return ZERO
    if exponent.is_integer():
        whole = int(exponent)
        return _normal(tuple(x * whole for x in a))
    scale = Fraction(exponent).limit_denominator(_POWER_DENOMINATOR_LIMIT)
    return _normal(tuple(x * scale for x in a))


def halve(a: Vector) -> Vector:
    """The vector of a square root."""
    if a is ZERO or a == ZERO:
        return ZERO
    return _normal(tuple(Fraction(x, 2) for x in a))


@lru_cache(maxsize=_VECTOR_CACHE)
def is_whole(a: Vector) -> bool:
    return all(type(x) is int for x in a)


@lru_cache(maxsize=_VECTOR_CACHE)
def is_storable(a: Vector) -> bool:
    """Whole, and every exponent within MAX_DIMENSION_EXPONENT, so it fits any JSON reader."""
    return all(type(x) is int and -MAX_DIMENSION_EXPONENT <= x <= MAX_DIMENSION_EXPONENT for x in a)


def exponent_in_range(x: int) -> bool:
    return -MAX_DIMENSION_EXPONENT <= x <= MAX_DIMENSION_EXPONENT


def _normal(v: tuple[Exponent, ...]) -> Vector:
    """Whole fractions become ints so equal vectors compare and hash equal."""
    if all(type(x) is int for x in v):
        return ZERO if not any(v) else v
    out = tuple(int(x) if isinstance(x, Fraction) and x.denominator == 1 else x for x in v)
    return ZERO if not any(out) else out


def first_name(v: Vector) -> str | None:
    """The name the engine mentions for a vector, or None when no row holds it."""
    row = ROW_BY_VECTOR.get(v)
    return row.names[0] if row else None


def kind(v: Vector) -> str:
    row = ROW_BY_VECTOR.get(v)
    return row.kind if row else "unnamed"


def integers(v: Vector) -> list[int]:
    """The 7 integers of a whole vector, as stored and echoed (a fresh list)."""
    return list(integer_tuple(v))


@lru_cache(maxsize=_VECTOR_CACHE)
def integer_tuple(v: Vector) -> tuple[int, ...]:
    """The 7 integers of a whole vector, shared: copy it before handing it out."""
    return tuple(int(x) for x in v)


def spell(v: Vector) -> str:
    """A vector for a message: its first table name with the integers, or the integers."""
    text = short_vector(v)
    name = first_name(v)
    return f"{name} {text}" if name else f"unnamed {text}"


def short_vector(v: Vector) -> str:
    """A vector for a message, an exponent past 12 characters in 3 digits."""
    return "[" + ",".join(_short_exponent(x) for x in v) + "]"


def _short_exponent(x: Exponent) -> str:
    if -(10**11) < x < 10**11:
        return str(x)
    whole = abs(int(x))
    if whole.bit_length() < 1000:
        return f"{float(x):.3g}"
    # An intermediate may pass any double's range (@m^1e300^1e300): never through float,
    # and never spelled in full (Python refuses to print an int of over 4,300 digits).
    sign = "-" if x < 0 else ""
    return f"{sign}1e{whole.bit_length() * 30103 // 100000}"


def from_integers(components: Sequence[int]) -> Vector:
    vector = _normal(tuple(int(x) for x in components))
    row = ROW_BY_VECTOR.get(vector)
    return row.vector if row is not None else vector
