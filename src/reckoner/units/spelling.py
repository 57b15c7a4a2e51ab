"""How a unit is spelled for a reader: SI symbols, one table for every place that shows one.

Two questions, one answer each. A unit *as written* (``kOhm``, ``degC``, ``W/(m*K)``, the
ASCII the engine's grammar takes) is spelled with the registry's symbols in the order it was
written (``kΩ``, ``°C``, ``W/(m·K)``). A *vector* (what the record holds when no unit was
written) is spelled from ``DERIVED``: a named vector by its SI symbol (Ω, V, W), a common
unnamed one by its conventional derived unit (W/(m·K), Ω·m, kg/m³, m/s²), anything else from
the base symbols with Unicode powers (``m²·kg·s⁻³``). Each ``DERIVED`` row carries the ASCII
the engine parses, so a test holds each spelling against the vector it stands for.

The article, the panel and ``reckoner show`` all spell units here. No I/O beyond the
registry's first read (``catalogue``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from reckoner.core.dimensions import BASE_SYMBOLS


@dataclass(frozen=True, slots=True)
class Spelling:
    """A vector's spelling for a reader (``shown``) and the ASCII the engine parses back."""

    shown: str
    ascii: str


Vec = tuple[int, int, int, int, int, int, int]

# The vector s⁻¹ is the table's hertz, but the record cannot tell a frequency from an
# angular frequency (ω in rad/s has the same vector): it is spelled s⁻¹, which is true of
# both, and a value given or read in Hz or rad/s keeps that unit (docs/decisions/units.md).
DERIVED: dict[Vec, Spelling] = {
    (0, 0, 1, 0, 0, 0, 0): Spelling("s", "s"),
    (1, 0, 0, 0, 0, 0, 0): Spelling("m", "m"),
    (0, 1, 0, 0, 0, 0, 0): Spelling("kg", "kg"),
    (0, 0, 0, 1, 0, 0, 0): Spelling("A", "A"),
    (0, 0, 0, 0, 1, 0, 0): Spelling("K", "K"),
    (0, 0, 0, 0, 0, 1, 0): Spelling("mol", "mol"),
    (0, 0, 0, 0, 0, 0, 1): Spelling("cd", "cd"),
    (0, 0, -1, 0, 0, 0, 0): Spelling("s⁻¹", "1/s"),
    (1, 1, -2, 0, 0, 0, 0): Spelling("N", "N"),
    (-1, 1, -2, 0, 0, 0, 0): Spelling("Pa", "Pa"),
    (2, 1, -2, 0, 0, 0, 0): Spelling("J", "J"),
    (2, 1, -3, 0, 0, 0, 0): Spelling("W", "W"),
    (0, 0, 1, 1, 0, 0, 0): Spelling("C", "C"),
    (2, 1, -3, -1, 0, 0, 0): Spelling("V", "V"),
    (-2, -1, 4, 2, 0, 0, 0): Spelling("F", "F"),
    (2, 1, -3, -2, 0, 0, 0): Spelling("Ω", "ohm"),
    (-2, -1, 3, 2, 0, 0, 0): Spelling("S", "S"),
    (2, 1, -2, -2, 0, 0, 0): Spelling("H", "H"),
    (2, 1, -2, -1, 0, 0, 0): Spelling("Wb", "Wb"),
    (0, 1, -2, -1, 0, 0, 0): Spelling("T", "T"),
    (-2, 0, 0, 0, 0, 0, 1): Spelling("lx", "lx"),
    (2, 0, -2, 0, 0, 0, 0): Spelling("Gy", "Gy"),
    (0, 0, -1, 0, 0, 1, 0): Spelling("kat", "kat"),
    # Unnamed vectors with a conventional derived unit.
    (2, 0, 0, 0, 0, 0, 0): Spelling("m²", "m^2"),
    (3, 0, 0, 0, 0, 0, 0): Spelling("m³", "m^3"),
    (1, 0, -1, 0, 0, 0, 0): Spelling("m/s", "m/s"),
    (1, 0, -2, 0, 0, 0, 0): Spelling("m/s²", "m/s^2"),
    (3, 0, -1, 0, 0, 0, 0): Spelling("m³/s", "m^3/s"),
    (-3, 1, 0, 0, 0, 0, 0): Spelling("kg/m³", "kg/m^3"),
    (0, 1, -1, 0, 0, 0, 0): Spelling("kg/s", "kg/s"),
    (1, 1, -1, 0, 0, 0, 0): Spelling("kg·m/s", "kg*m/s"),
    (-1, 1, -1, 0, 0, 0, 0): Spelling("Pa·s", "Pa*s"),
    (2, 0, -1, 0, 0, 0, 0): Spelling("m²/s", "m^2/s"),
    (1, 1, -3, 0, -1, 0, 0): Spelling("W/(m·K)", "W/(m*K)"),
    (0, 1, -3, 0, -1, 0, 0): Spelling("W/(m²·K)", "W/(m^2*K)"),
    (2, 1, -3, 0, -1, 0, 0): Spelling("W/K", "W/K"),
    (-2, -1, 3, 0, 1, 0, 0): Spelling("K/W", "K/W"),
    (2, 0, -2, 0, -1, 0, 0): Spelling("J/(kg·K)", "J/(kg*K)"),
    (2, 1, -2, 0, -1, 0, 0): Spelling("J/K", "J/K"),
    (0, 1, -3, 0, 0, 0, 0): Spelling("W/m²", "W/m^2"),
    (3, 1, -3, -2, 0, 0, 0): Spelling("Ω·m", "ohm*m"),
    (-3, -1, 3, 2, 0, 0, 0): Spelling("S/m", "S/m"),
    (1, 1, -3, -1, 0, 0, 0): Spelling("V/m", "V/m"),
    (-1, 0, 0, 1, 0, 0, 0): Spelling("A/m", "A/m"),
    (-2, 0, 0, 1, 0, 0, 0): Spelling("A/m²", "A/m^2"),
    (-3, -1, 4, 2, 0, 0, 0): Spelling("F/m", "F/m"),
    (1, 1, -2, -2, 0, 0, 0): Spelling("H/m", "H/m"),
    (1, 0, 0, 0, -1, 0, 0): Spelling("m/K", "m/K"),
    (0, 0, 0, 0, -1, 0, 0): Spelling("K⁻¹", "1/K"),
    (-3, 0, 0, 0, 0, 1, 0): Spelling("mol/m³", "mol/m^3"),
    (2, 1, -2, 0, 0, -1, 0): Spelling("J/mol", "J/mol"),
    (2, 1, -2, 0, -1, -1, 0): Spelling("J/(mol·K)", "J/(mol*K)"),
    (2, 1, -1, 0, 0, 0, 0): Spelling("J·s", "J*s"),
}

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _power(symbol: str, exponent: int) -> str:
    return symbol if exponent == 1 else symbol + str(exponent).translate(_SUPERSCRIPT)


def spell_vector(dim: Sequence[int]) -> str:
    """A vector for a reader: ``Ω``, ``W/(m·K)``, else ``m²·kg·s⁻³``; ``""`` for a number."""
    key: Vec = tuple(int(x) for x in dim)  # type: ignore[assignment]
    known = DERIVED.get(key)
    if known is not None:
        return known.shown
    if not any(key):
        return ""
    return "·".join(
        _power(symbol, exponent)
        for symbol, exponent in zip(BASE_SYMBOLS, key, strict=True)
        if exponent
    )


# A name of the grammar, a power after ^ or **, or one of the signs between them.
_WRITTEN = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?:\^|\*\*)\s*\(?\s*(?P<power>[+-]?\d+)\s*\)?|(?P<sign>\S)"
)
# Symbols the registry spells as a word where SI has a sign.
_SYMBOL_OVERRIDES = {"deg": "°", "degree": "°", "degrees": "°", "arcdeg": "°"}


@lru_cache(maxsize=1024)
def spell_written(text: str) -> str:
    """A unit as written (ASCII, the engine's grammar) in SI symbols, in its written order:
    ``kOhm`` -> ``kΩ``, ``degC`` -> ``°C``, ``W/(m*K)`` -> ``W/(m·K)``, ``deg`` -> ``°``."""
    out: list[str] = []
    for match in _WRITTEN.finditer(text):
        name, power, sign = match.group("name"), match.group("power"), match.group("sign")
        if name is not None:
            out.append(_symbol(name))
        elif power is not None:
            out.append(str(int(power)).translate(_SUPERSCRIPT))
        elif sign == "*":
            out.append("·")
        else:
            out.append(sign)
    return "".join(out)


def _symbol(name: str) -> str:
    override = _SYMBOL_OVERRIDES.get(name)
    if override is not None:
        return override
    from reckoner.units.catalogue import symbol_of

    return symbol_of(name)


def is_angle_sign(shown: str) -> bool:
    """True for a unit written right after its number, with no space (42.67°, SI 5.4.3)."""
    return shown in ("°", "′", "″")
