"""How a unit is spelled for a reader: SI symbols, one table for every place that shows one.

Two questions, one answer each. A unit *as written* (``kOhm``, ``degC``, ``W/(m*K)``, the
ASCII the engine's grammar takes) is spelled with the registry's symbols in the order it was
written (``kΩ``, ``°C``, ``W/(m·K)``). A *vector* (what the record holds when no unit was
written) is spelled from ``DERIVED``: a named vector by its SI symbol (Ω, V, W), a common
unnamed one by its conventional derived unit (W/(m·K), Ω·m, kg/m³, m/s²), anything else from
the base symbols with Unicode powers (``m²·kg·s⁻³``). ``grammar_of`` turns any spelling back
into the ASCII the engine parses, so a test holds each spelling against its vector.

The article, the panel and ``reckoner show`` all spell units here. No I/O beyond the
registry's first read (``catalogue``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from reckoner.contract.dimensions import BASE_SYMBOLS

Vec = tuple[int, int, int, int, int, int, int]

# The vector s⁻¹ is the table's hertz, but the record cannot tell a frequency from an
# angular frequency (ω in rad/s has the same vector): it is spelled s⁻¹, which is true of
# both, and a value given or read in Hz or rad/s keeps that unit (docs/decisions/units.md).
DERIVED: dict[Vec, str] = {
    (0, 0, 1, 0, 0, 0, 0): "s",
    (1, 0, 0, 0, 0, 0, 0): "m",
    (0, 1, 0, 0, 0, 0, 0): "kg",
    (0, 0, 0, 1, 0, 0, 0): "A",
    (0, 0, 0, 0, 1, 0, 0): "K",
    (0, 0, 0, 0, 0, 1, 0): "mol",
    (0, 0, 0, 0, 0, 0, 1): "cd",
    (0, 0, -1, 0, 0, 0, 0): "s⁻¹",
    (1, 1, -2, 0, 0, 0, 0): "N",
    (-1, 1, -2, 0, 0, 0, 0): "Pa",
    (2, 1, -2, 0, 0, 0, 0): "J",
    (2, 1, -3, 0, 0, 0, 0): "W",
    (0, 0, 1, 1, 0, 0, 0): "C",
    (2, 1, -3, -1, 0, 0, 0): "V",
    (-2, -1, 4, 2, 0, 0, 0): "F",
    (2, 1, -3, -2, 0, 0, 0): "Ω",
    (-2, -1, 3, 2, 0, 0, 0): "S",
    (2, 1, -2, -2, 0, 0, 0): "H",
    (2, 1, -2, -1, 0, 0, 0): "Wb",
    (0, 1, -2, -1, 0, 0, 0): "T",
    (-2, 0, 0, 0, 0, 0, 1): "lx",
    (2, 0, -2, 0, 0, 0, 0): "Gy",
    (0, 0, -1, 0, 0, 1, 0): "kat",
    # Unnamed vectors with a conventional derived unit.
    (2, 0, 0, 0, 0, 0, 0): "m²",
    (3, 0, 0, 0, 0, 0, 0): "m³",
    (1, 0, -1, 0, 0, 0, 0): "m/s",
    (1, 0, -2, 0, 0, 0, 0): "m/s²",
    (3, 0, -1, 0, 0, 0, 0): "m³/s",
    (-3, 1, 0, 0, 0, 0, 0): "kg/m³",
    (0, 1, -1, 0, 0, 0, 0): "kg/s",
    (1, 1, -1, 0, 0, 0, 0): "kg·m/s",
    (-1, 1, -1, 0, 0, 0, 0): "Pa·s",
    (2, 0, -1, 0, 0, 0, 0): "m²/s",
    (1, 1, -3, 0, -1, 0, 0): "W/(m·K)",
    (0, 1, -3, 0, -1, 0, 0): "W/(m²·K)",
    (2, 1, -3, 0, -1, 0, 0): "W/K",
    (-2, -1, 3, 0, 1, 0, 0): "K/W",
    (2, 0, -2, 0, -1, 0, 0): "J/(kg·K)",
    (2, 1, -2, 0, -1, 0, 0): "J/K",
    (0, 1, -3, 0, 0, 0, 0): "W/m²",
    (3, 1, -3, -2, 0, 0, 0): "Ω·m",
    (-3, -1, 3, 2, 0, 0, 0): "S/m",
    (1, 1, -3, -1, 0, 0, 0): "V/m",
    (-1, 0, 0, 1, 0, 0, 0): "A/m",
    (-2, 0, 0, 1, 0, 0, 0): "A/m²",
    (-3, -1, 4, 2, 0, 0, 0): "F/m",
    (1, 1, -2, -2, 0, 0, 0): "H/m",
    (1, 0, 0, 0, -1, 0, 0): "m/K",
    (0, 0, 0, 0, -1, 0, 0): "K⁻¹",
    (-3, 0, 0, 0, 0, 1, 0): "mol/m³",
    (2, 1, -2, 0, 0, -1, 0): "J/mol",
    (2, 1, -2, 0, -1, -1, 0): "J/(mol·K)",
    (2, 1, -1, 0, 0, 0, 0): "J·s",
}

_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"  # 0-9, then the minus sign
_SUPERSCRIPT = str.maketrans("0123456789-", _SUPERSCRIPT_DIGITS)
_JOIN = "·"  # between the factors of a product (SI's half-high dot)


def _power(symbol: str, exponent: int) -> str:
    return symbol if exponent == 1 else symbol + str(exponent).translate(_SUPERSCRIPT)


def spell_vector(dim: Sequence[int]) -> str:
    """A vector for a reader: ``Ω``, ``W/(m·K)``, else ``m²·kg·s⁻³``; ``""`` for a number."""
    m, kg, s, a, k, mol, cd = (int(x) for x in dim)
    key: Vec = (m, kg, s, a, k, mol, cd)
    known = DERIVED.get(key)
    if known is not None:
        return known
    if not any(key):
        return ""
    return _JOIN.join(
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


# The symbols a spelling holds that the grammar writes otherwise (``_ASCII_HINTS`` there).
_GRAMMAR = {"Ω": "ohm", "µ": "u", "°C": "degC", "°F": "degF", "°": "deg", "·": "*", "Δ": "delta_"}
_GRAMMAR_SIGNS = re.compile("|".join(map(re.escape, sorted(_GRAMMAR, key=len, reverse=True))))
_SUPERSCRIPT_RUN = re.compile(r"[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_PLAIN = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def grammar_of(spelled: str) -> str:
    """A reader's spelling back in the engine's unit grammar: ``Ω·m`` -> ``ohm*m``,
    ``m/s²`` -> ``m/s^2``, ``°C`` -> ``degC``."""
    text = _GRAMMAR_SIGNS.sub(lambda match: _GRAMMAR[match.group()], spelled)
    return _SUPERSCRIPT_RUN.sub(lambda match: "^" + match.group().translate(_PLAIN), text)


def spelling_data() -> dict[str, object]:
    """The table as data for a page that spells vectors itself (the panel): each known
    vector (its 7 integers joined by commas) with its spelling, and the pieces of the
    fallback (base symbols, the join, the superscript digits then minus)."""
    return {
        "derived": {",".join(map(str, vector)): shown for vector, shown in DERIVED.items()},
        "base": list(BASE_SYMBOLS),
        "join": _JOIN,
        "superscripts": _SUPERSCRIPT_DIGITS,
    }


def is_angle_sign(shown: str) -> bool:
    """True for a unit written right after its number, with no space (42.67°, SI 5.4.3)."""
    return shown in ("°", "′", "″")
