"""Unit expressions: a small grammar of our own over the names of pint's default registry.

`kg/m^3`, `mPa*s`, `km/h`, `degF`: products and quotients of unit names (SI prefixes
included), each with an optional integer power, and at most one level of parentheses. The
registry is built on the first unit (it reads its definition file), and every expression is
resolved once: later calls with the same text cost one dictionary lookup.
"""

from __future__ import annotations

import difflib
import re
import sys
import threading
from fractions import Fraction
from functools import lru_cache
from typing import Any

from reckoner.contract.checks import describe_json
from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import Vector
from reckoner.contract.limits import MAX_UNIT_LENGTH, MAX_UNIT_POWER
from reckoner.core import dimensions as dims
from reckoner.core.conversion import UnitSpec
from reckoner.core.errors import fail

from .meanings import ALIASES, MEANINGS, REFUSED, Meaning

# pint's base dimensions, in the order of our vectors (m, kg, s, A, K, mol, cd).
_BASE_DIMENSIONS = (
    "[length]",
    "[mass]",
    "[time]",
    "[current]",
    "[temperature]",
    "[substance]",
    "[luminosity]",
)
_SI_BASE_UNITS = ("meter", "kilogram", "second", "ampere", "kelvin", "mole", "candela")

_TOKEN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXPONENT = re.compile(
    r"\s*(?P<paren>\()?\s*(?P<num>[+-]?\d+(?:\.\d*)?(?:/\d+)?)(?(paren)\s*(?P<close>\)))"
)

# What sources print that the grammar takes as written (issue 26): a dot for the product
# (W/(m·K), N⋅m), superscript powers (cm³, m⁻¹) and a power glued to its name (cm3, kg/m3).
_PRODUCT_DOTS = "·⋅"
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_GLUED_POWER = re.compile(r"([A-Za-z_]+?)(\d{1,2})")

# A few non-ASCII symbols people paste, with the ASCII spelling the grammar takes.
_ASCII_HINTS = {
    "µ": "u",
    "μ": "u",
    "Ω": "ohm",
    "°": "deg",
    "‰": "permille",
}
# ASCII signs written for a unit that the grammar spells as a name.
_SIGN_NAMES = {"%": "percent"}

_lock = threading.Lock()
_registry: Any = None


def _catalogue() -> Any:
    """pint's default registry with exact rational factors, built once on first use."""
    global _registry
    with _lock:
        if _registry is None:
            import pint  # the only import of pint in reckoner

            registry: Any = pint.UnitRegistry(non_int_type=Fraction)
            for alias in ALIASES:
                registry.define(alias)
            _registry = registry
        return _registry


_resolved: dict[str, UnitSpec] = {}  # every expression resolved once; a hit is one lookup
_MAX_RESOLVED = 4096


def resolve_unit(raw: object, where: str = "unit") -> UnitSpec:
    """A unit expression as the core applies it; refuses with one sentence (raises)."""
    if type(raw) is str:
        hit = _resolved.get(raw)
        if hit is not None:
            return hit
    else:
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} is {describe_json(raw)}, but a unit is a string such as 'kOhm', "
            f"'km/h' or 'kg/m^3'",
        )
    spec = _resolve(raw, where)
    if len(_resolved) < _MAX_RESOLVED:
        _resolved[raw] = spec
    return spec


def _resolve(text: str, where: str) -> UnitSpec:
    terms = _parse(text, where)
    registry = _catalogue()
    factor = Fraction(1)
    vector: list[int] = [0] * 7
    resolved = [_unit_of(registry, name, text, where) for name, _ in terms]
    offset_units = [
        (name, power) for (name, power), (_, _, off) in zip(terms, resolved, strict=True) if off
    ]
    if offset_units and (len(terms) != 1 or terms[0][1] != 1):
        name = offset_units[0][0]
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text!r} puts {name}, a scale whose zero is offset, inside a product or "
            f"power, where the offset has no meaning; write delta_{name.removeprefix('delta_')}"
            f" for a temperature difference (delta_degC/s) or use kelvin",
        )
    for (unit_factor, unit_vector, _), (_, power) in zip(resolved, terms, strict=True):
        factor *= unit_factor**power
        for i in range(7):
            vector[i] += unit_vector[i] * power
    offset = resolved[0][2] if offset_units else Fraction(0)
    if any(not dims.exponent_in_range(x) for x in vector) or factor == 0:
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text[:60]!r} has a power beyond what a stored vector holds; write a "
            f"unit with small integer powers",
        )
    if not _fits_a_double(factor):
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text[:60]!r} is a size no double holds (its SI factor is above 1e308 or "
            f"below 1e-308); write a unit with smaller powers or prefixes",
        )
    return UnitSpec.of(text, dims.from_integers(vector), factor, offset)


def _fits_a_double(factor: Fraction) -> bool:
    """Whether the unit's exact SI factor is a finite, non-subnormal double (``a50``, a year
    to the 50th, is 1e375 and none)."""
    try:
        return abs(float(factor)) >= sys.float_info.min
    except OverflowError:
        return False


def _parse(text: str, where: str) -> list[tuple[str, int]]:
    """The expression as (name, integer power) pairs; `/` negates the term after it."""
    if not text.strip():
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} is empty; write a unit such as 'kOhm', 'km/h' or 'kg/m^3', or omit unit",
        )
    if len(text) > MAX_UNIT_LENGTH:
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} is {len(text)} characters long, over the limit of {MAX_UNIT_LENGTH} "
            f"(MAX_UNIT_LENGTH); write the unit shorter, such as 'kg/m^3'",
        )
    text = _as_printed(text, where)
    for c in text:
        if ord(c) > 127:
            hint = _ASCII_HINTS.get(c)
            fix = f"write {hint!r} for it" if hint else "write the unit in ASCII"
            raise fail(
                ErrorCode.INVALID_DIMENSION,
                f"{where} {text!r} contains the character {c!r} (U+{ord(c):04X}), and a unit "
                f"is ASCII; {fix} (kOhm, um, degC)",
            )
    terms = _Reader(text, where).expression()
    return [(name, power) for name, power in terms if power != 0]


def _as_printed(text: str, where: str) -> str:
    """The spellings sources print, rewritten into the grammar: ``·`` and ``⋅`` as ``*``,
    a superscript run as its power (``m⁻³`` is ``m^-3``). A dot after a ``/`` outside
    parentheses is refused: sources mean W/m·K as W/(m·K), the grammar would read W*K/m."""
    if not any(c in _PRODUCT_DOTS or c in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺" for c in text):
        return text
    depth, divided = 0, False
    for c in text:
        depth += (c == "(") - (c == ")")
        divided = divided or (c == "/" and depth == 0)
        if c in _PRODUCT_DOTS and divided and depth == 0:
            fixed = text.replace("·", "*").replace("⋅", "*").translate(_SUPERSCRIPTS)
            head, _, tail = fixed.partition("/")
            raise fail(
                ErrorCode.INVALID_DIMENSION,
                f"{where} {text!r} is ambiguous: a dot after / multiplies the divisor in print "
                f"but the numerator in a formula; write the divisor in parentheses, as in "
                f"{head}/({tail})",
            )
    for dot in _PRODUCT_DOTS:
        text = text.replace(dot, "*")
    return _SUPERSCRIPT_RUN.sub(lambda run: "^" + run.group().translate(_SUPERSCRIPTS), text)


def _is_registry_name(name: str) -> bool:
    try:
        _catalogue().parse_units(name)
    except Exception:  # pint's undefined-unit and parse errors alike: not one of its names
        return False
    return True


class _Reader:
    """Recursive descent over: expr = term (('*'|'/') term)*; term = atom ('^' int)?;
    atom = name | '1' | '(' expr ')', with one level of parentheses."""

    def __init__(self, text: str, where: str) -> None:
        self.text, self.where, self.pos, self.depth = text, where, 0, 0

    def _refuse(self, sentence: str) -> Exception:
        return fail(ErrorCode.INVALID_DIMENSION, f"{self.where} {self.text!r} {sentence}")

    def _peek(self) -> str:
        rest = self.text[self.pos :].lstrip()
        self.pos = len(self.text) - len(rest)
        return rest[:2] if rest.startswith("**") else rest[:1]

    def expression(self) -> list[tuple[str, int]]:
        terms = self._term()
        while True:
            op = self._peek()
            if op not in ("*", "/"):
                break
            self.pos += 1
            following = self._term()
            terms += [(n, -p) for n, p in following] if op == "/" else following
        found = self._peek()
        if found and not (found == ")" and self.depth):
            if found == ")":
                raise self._refuse("closes a parenthesis it never opened; remove the ')'")
            if _TOKEN_NAME.match(found) or found.isdigit():
                raise self._refuse(
                    f"has {found!r} where * or / belongs; multiply units with *, as in N*m"
                )
            raise self._refuse(
                f"uses {found!r}, which a unit expression does not have; join unit names "
                f"with * and /, and write powers as ^2 or ^-1 (kg*m^2/s^2)"
            )
        return terms

    def _term(self) -> list[tuple[str, int]]:
        terms = self._atom()
        op = self._peek()
        if op in ("^", "**"):
            self.pos += len(op)
            power = self._exponent()
            terms = [(n, p * power) for n, p in terms]
        return terms

    def _atom(self) -> list[tuple[str, int]]:
        found = self._peek()
        if found == "(":
            if self.depth:
                raise self._refuse(
                    "nests parentheses; a unit takes one level at most, as in kg/(m*s^2)"
                )
            self.pos += 1
            self.depth = 1
            terms = self.expression()
            if self._peek() != ")":
                raise self._refuse("opens a parenthesis it never closes; add the ')'")
            self.pos += 1
            self.depth = 0
            return terms
        match = _TOKEN_NAME.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            glued = _GLUED_POWER.fullmatch(match.group())
            if glued and not _is_registry_name(match.group()):
                # cm3, kg/m3: a power glued to its name, as tables and sources print it.
                return [(glued.group(1), int(glued.group(2)))]
            return [(match.group(), 1)]
        after = self.text[self.pos + 1 : self.pos + 2]
        if found == "1" and not after.isdigit() and after != ".":
            self.pos += 1
            return []  # the 1 of 1/s
        if not found:
            raise self._refuse("ends where a unit name belongs; complete it, as in kg/m^3")
        if found in _SIGN_NAMES:
            name = _SIGN_NAMES[found]
            raise self._refuse(
                f"has {found!r} where a unit name belongs; a unit spells it {name} "
                f"(as in {name} or {name}/s)"
            )
        raise self._refuse(
            f"has {found!r} where a unit name belongs; write unit names joined by * and /, "
            f"such as kg/m^3 (numbers other than the 1 of 1/s belong in the value)"
        )

    def _exponent(self) -> int:
        match = _EXPONENT.match(self.text, self.pos)
        raw = match.group("num") if match else None
        if match is None or raw is None or "." in raw or "/" in raw:
            shown = raw or self.text[self.pos :].strip()[:10] or "nothing"
            raise self._refuse(
                f"raises a unit to the power {shown}, and a unit takes whole powers only "
                f"(m^2, s^-1); a fractional power has no whole SI vector"
            )
        self.pos = match.end()
        power = int(raw)
        if abs(power) > MAX_UNIT_POWER:
            raise self._refuse(
                f"raises a unit to the power {power}, beyond the limit of {MAX_UNIT_POWER} "
                f"(MAX_UNIT_POWER); a unit takes small whole powers such as m^3 or s^-2"
            )
        return power


def _unit_of(
    registry: Any, name: str, text: str, where: str
) -> tuple[Fraction, list[int], Fraction]:
    """One unit name's exact SI factor, integer vector and offset (zero unless affine)."""
    refused = REFUSED.get(name)
    if refused is not None:
        raise fail(ErrorCode.INVALID_DIMENSION, f"{where} {text!r}: {name!r} {refused}")
    candidates = registry.parse_unit_name(name, case_sensitive=True)
    if not candidates:
        loose = registry.parse_unit_name(name, case_sensitive=False)
        if len({p + u for p, u, _ in loose}) == 1:
            candidates = loose
    plain = [c for c in candidates if c[0] == "" and c[2] == ""]
    if plain:
        candidates = plain[:1]
    if not candidates:
        close = difflib.get_close_matches(name, _names(registry), n=3, cutoff=0.7)
        nearby = f"; close spellings: {', '.join(close)}" if close else ""
        meant = "".join(f"; {meaning_sentence(m)}" for m in _meanings_near(close))
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text!r}: {name!r} is no unit of the catalogue{nearby} (SI prefixes "
            f"go straight before the name, as in kOhm, mW, uF){meant}",
        )
    try:
        resolutions = {_exact(registry, p + u) for p, u, _ in candidates}
    except Exception:  # pint's own refusal of a unit with no linear map (dB, neper, octave)
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text!r}: {name!r} has no linear conversion to SI (a logarithmic or "
            f"otherwise non-linear unit); write the quantity in a linear unit and take "
            f"logarithms in eval",
        ) from None
    if len(resolutions) > 1:
        spelled = " or ".join(f"{p}{u}" for p, u, _ in candidates[:3])
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text!r}: {name!r} is ambiguous ({spelled}); write the unit's full name",
        )
    factor, vector, offset = resolutions.pop()
    if vector is None:
        raise fail(
            ErrorCode.INVALID_DIMENSION,
            f"{where} {text!r}: {name!r} measures something outside the 7 SI base dimensions; "
            f"use a unit of physical quantities",
        )
    return factor, list(vector), offset


def meaning_size(meaning: Meaning) -> str:
    """The size of the unit a name stands for, from the catalogue: 3.785 L for gal."""
    size = resolve_unit(meaning.name).exact_factor / resolve_unit(meaning.size_in).exact_factor
    return f"{float(size):.4g} {meaning.size_in}"


def meaning_sentence(meaning: Meaning) -> str:
    """What an ambiguous name means, with its size from the catalogue, and how to write
    the other things it is used for: gal is the US liquid gallon (3.785 L); ..."""
    said = [", ".join(f"{what} is {spelling}" for what, spelling in meaning.others)]
    said = [part for part in (*said, meaning.note) if part]
    head = f"{meaning.name} is {meaning.means} ({meaning_size(meaning)})"
    return "; ".join((head, *said))


def _meanings_near(spellings: list[str]) -> list[Meaning]:
    """The table's entries a refused name was probably meant as: the one whose name a close
    spelling converts exactly as (gallon as gal), else one whose other meanings it does
    (UK_gallon as gal's imperial gallon)."""
    found: list[Meaning] = []
    for spelling in spellings:
        unit = _same_unit(spelling)
        if unit is None:
            continue
        own = [m for m in MEANINGS if _same_unit(m.name) == unit]
        other = [m for m in MEANINGS if unit in [_same_unit(o) for _, o in m.others]]
        for meaning in own or other:
            if meaning not in found:
                found.append(meaning)
    return found[:2]


def _same_unit(name: str) -> tuple[Fraction, Vector, Fraction] | None:
    try:
        spec = resolve_unit(name)
    except Exception:  # a close spelling that is no linear unit: nothing to compare
        return None
    return spec.exact_factor, spec.vector, spec.exact_offset


@lru_cache(maxsize=512)
def _exact(registry: Any, unit_name: str) -> tuple[Fraction, tuple[int, ...] | None, Fraction]:
    unit = registry.Unit(unit_name)
    dimensionality = dict(registry.get_dimensionality(unit))
    if any(d not in _BASE_DIMENSIONS for d in dimensionality):
        return Fraction(1), None, Fraction(0)
    exponents = [Fraction(dimensionality.get(d, 0)) for d in _BASE_DIMENSIONS]
    if any(e.denominator != 1 for e in exponents):
        return Fraction(1), None, Fraction(0)
    vector = tuple(int(e) for e in exponents)
    target = registry.Unit("dimensionless")
    for base, exponent in zip(_SI_BASE_UNITS, vector, strict=True):
        if exponent:
            target = target * registry.Unit(base) ** exponent
    one = Fraction(registry.Quantity(Fraction(1), unit).to(target).magnitude)
    zero = Fraction(registry.Quantity(Fraction(0), unit).to(target).magnitude)
    return one - zero, vector, zero


@lru_cache(maxsize=1)
def _names_cached(registry: Any) -> tuple[str, ...]:
    return tuple(n for n in dir(registry) if n.isascii() and not n.startswith("_"))


def _names(registry: Any) -> tuple[str, ...]:
    return _names_cached(registry)


def symbol_of(name: str) -> str:
    """A unit name's SI symbol as the registry spells it (``kOhm`` -> ``kΩ``); a name the
    registry lacks is returned as written."""
    registry = _catalogue()
    # The aliases people write (Ohm, Ohms) carry no symbol of their own.
    canonical = re.sub(r"Ohms?$", "ohm", name)
    try:
        return str(registry.get_symbol(canonical))
    except Exception:  # any name pint refuses is shown as written
        return name
