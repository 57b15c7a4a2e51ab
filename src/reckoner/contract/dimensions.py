"""SI vectors' shape and the 24-row name table: the one place a dimension is spelled.

A vector is a tuple of 7 exponents in the order m, kg, s, A, K, mol, cd. Whole exponents
are ``int``; an intermediate may carry a ``Fraction`` after a root or a fractional power."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

Exponent = int | Fraction
Vector = tuple[Exponent, ...]

BASE_SYMBOLS: tuple[str, ...] = ("m", "kg", "s", "A", "K", "mol", "cd")
ZERO: Vector = (0, 0, 0, 0, 0, 0, 0)

DIMENSIONLESS = "dim-less"
"""The name table's name of the zero vector."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of the name table: a vector, its kind label and its accepted names."""

    vector: Vector
    kind: str
    names: tuple[str, ...]


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

ROW_BY_NAME: dict[str, TableRow] = {name: row for row in NAME_TABLE for name in row.names}
ROW_BY_VECTOR: dict[Vector, TableRow] = {row.vector: row for row in NAME_TABLE}
ALL_NAMES: tuple[str, ...] = tuple(name for row in NAME_TABLE for name in row.names)
