"""SI vectors and the 24-row name table (manual 6.1); the one place a dimension is spelled.

A vector is a tuple of 7 exponents in the order m, kg, s, A, K, mol, cd. Whole exponents
are ``int``; an intermediate may carry a ``Fraction`` after a root or a fractional power.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .limits import MAX_DIMENSION_EXPONENT

Exponent = int | Fraction
Vector = tuple[Exponent, ...]

BASE_SYMBOLS: tuple[str, ...] = ("m", "kg", "s", "A", "K", "mol", "cd")
ZERO: Vector = (0, 0, 0, 0, 0, 0, 0)

# A real power's exponent becomes an exact fraction with at most this denominator, so
# (x^(1/3))^3 returns to x's vector instead of drifting by a rounding error.
_POWER_DENOMINATOR_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of the name table: a vector, its kind label and its accepted names."""

    vector: Vector
    kind: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AffineMap:
    """``SI = x*factor + offset``; the offset applies to a real part only."""

    factor: float
    offset: float

    @property
    def is_identity(self) -> bool:
        return self.factor == 1.0 and self.offset == 0.0


IDENTITY = AffineMap(1.0, 0.0)

NAME_TABLE: tuple[TableRow, ...] = (
    TableRow(ZERO, "dim-less", ("dim-less", "radian", "steradian")),
    TableRow((0, 0, 1, 0, 0, 0, 0), "time", ("second",)),
    TableRow((1, 0, 0, 0, 0, 0, 0), "length", ("metre",)),
    TableRow((0, 1, 0, 0, 0, 0, 0), "mass", ("kilogram",)),
    TableRow((0, 0, 0, 1, 0, 0, 0), "current", ("ampere",)),
    TableRow((0, 0, 0, 0, 1, 0, 0), "temperature", ("kelvin", "degC")),
    TableRow((0, 0, 0, 0, 0, 1, 0), "amount-of-substance", ("mole",)),
    TableRow((0, 0, 0, 0, 0, 0, 1), "luminous-intensity", ("candela", "lumen")),
    TableRow((0, 0, -1, 0, 0, 0, 0), "frequency", ("hertz", "becquerel")),
    TableRow((1, 1, -2, 0, 0, 0, 0), "force", ("newton",)),
    TableRow((-1, 1, -2, 0, 0, 0, 0), "pressure", ("pascal",)),
    TableRow((2, 1, -2, 0, 0, 0, 0), "energy", ("joule",)),
    TableRow((2, 1, -3, 0, 0, 0, 0), "power", ("watt",)),
    TableRow((0, 0, 1, 1, 0, 0, 0), "charge", ("coulomb",)),
    TableRow((2, 1, -3, -1, 0, 0, 0), "voltage", ("volt",)),
    TableRow((-2, -1, 4, 2, 0, 0, 0), "capacitance", ("farad",)),
    TableRow((2, 1, -3, -2, 0, 0, 0), "resistance", ("ohm",)),
    TableRow((-2, -1, 3, 2, 0, 0, 0), "conductance", ("siemens",)),
    TableRow((2, 1, -2, -2, 0, 0, 0), "inductance", ("henry",)),
    TableRow((2, 1, -2, -1, 0, 0, 0), "magnetic-flux", ("weber",)),
    TableRow((0, 1, -2, -1, 0, 0, 0), "flux-density", ("tesla",)),
    TableRow((-2, 0, 0, 0, 0, 0, 1), "illuminance", ("lux",)),
    TableRow((2, 0, -2, 0, 0, 0, 0), "absorbed-dose", ("gray", "sievert")),
    TableRow((0, 0, -1, 0, 0, 1, 0), "catalytic-activity", ("katal",)),
)

# degC is the one name whose map is not the identity (manual 6.1).
AFFINE_MAPS: dict[str, AffineMap] = {"degC": AffineMap(1.0, 273.15)}

ROW_BY_NAME: dict[str, TableRow] = {name: row for row in NAME_TABLE for name in row.names}
ROW_BY_VECTOR: dict[Vector, TableRow] = {row.vector: row for row in NAME_TABLE}
ALL_NAMES: tuple[str, ...] = tuple(name for row in NAME_TABLE for name in row.names)


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
    """Scale every component by a real exponent (manual 6.2)."""
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
