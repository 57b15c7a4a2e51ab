"""Values at the tool boundary: `set`'s tagged structure in (manual 3.2, 3.3), the stored
form out, and `get`'s rendering with `form`, `digits` and `dim` (3.4)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from reckoner.contract.checks import describe_json
from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ALL_NAMES, BASE_SYMBOLS, ROW_BY_NAME, ZERO, Vector
from reckoner.contract.limits import MAX_ARRAY_ELEMENTS, MAX_DIMENSION_EXPONENT, MAX_VALUE_DEPTH

from . import dimensions as dims
from .errors import fail
from .names import is_name
from .quoting import check_text, quoted
from .values import (
    Element,
    Obj,
    Payload,
    Quantity,
    RealArray,
    Scalar,
    Value,
    as_list,
    is_array_payload,
    is_rectangular,
    make_array,
    show_number,
)

TAGS = ("num", "re", "mag", "array", "object")
KEYS = frozenset({"num", "re", "im", "mag", "ang", "array", "object", "dim", "unit", "text"})
TAG_VOCABULARY = (
    "{num}, {re, im}, {mag, ang}, {array} or {object}, each with an optional dim or unit "
    "(not beside object)"
)
JSON = Any


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
        mantissa, shift = _decimal(x)
        p, q = self.exact_factor.numerator, self.exact_factor.denominator
        r, s = (
            (0, 1) if scale_only else (self.exact_offset.numerator, self.exact_offset.denominator)
        )
        # x*p/q + r/s over one denominator; int / int is correctly rounded.
        if shift >= 0:
            return _ratio(mantissa * 10**shift * p * s + r * q, q * s)
        scale = 10**-shift
        return _ratio(mantissa * p * s + r * q * scale, q * s * scale)

    def out_of_si(self, x: float, *, scale_only: bool = False) -> float:
        """An SI number in this unit, converted the same exact way."""
        if self.table_map is not None:
            m = self.table_map
            return x / m.factor if scale_only else (x - m.offset) / m.factor
        if self.decimal_shift is not None:
            return _shifted(x, -self.decimal_shift)
        mantissa, shift = _decimal(x)
        p, q = self.exact_factor.numerator, self.exact_factor.denominator
        r, s = (
            (0, 1) if scale_only else (self.exact_offset.numerator, self.exact_offset.denominator)
        )
        # (x - r/s) * q/p over one denominator.
        if shift >= 0:
            return _ratio((mantissa * 10**shift * s - r) * q, s * p)
        scale = 10**-shift
        return _ratio((mantissa * s - r * scale) * q, s * p * scale)


def _decimal(x: float) -> tuple[int, int]:
    """A finite double's shortest decimal spelling as ``mantissa * 10**shift``."""
    text = repr(x)
    exponent = 0
    if "e" in text:
        text, power = text.split("e")
        exponent = int(power)
    whole, _, fraction = text.partition(".")
    return int(whole + fraction), exponent - len(fraction)


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


# -- numbers and dims in -------------------------------------------------------------------


def number(raw: JSON, where: str) -> float:
    """A JSON number in a numeric position: a finite double, never a bool or string."""
    if type(raw) is float:
        if math.isfinite(raw):
            return raw
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where} is {raw!r}, which is not a finite number; JSON holds finite doubles only",
        )
    if type(raw) is int:
        try:
            return float(raw)
        except OverflowError:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{where} is an integer beyond the largest double (about 1.8e308); scale it "
                f"into range",
            ) from None
    raise fail(
        ErrorCode.INVALID_ARGS,
        f"{where} must be a JSON number, but it is {describe_json(raw)}; write the number "
        f"without quotes",
    )


def parse_dim(raw: JSON, where: str = "dim") -> tuple[Vector, dims.AffineMap, str | None]:
    """A `dim` spelling: a table name (with its map), 7 integers, or null for the zero vector."""
    if raw is None:
        return ZERO, dims.IDENTITY, None
    if type(raw) is str:
        row = ROW_BY_NAME.get(raw)
        if row is None:
            raise fail(
                ErrorCode.INVALID_DIMENSION,
                f"{where} {raw[:60]!r} names no row of the SI table; use one of "
                f"{', '.join(ALL_NAMES)}, or 7 integers in the order m,kg,s,A,K,mol,cd "
                f"({_unit_hint(where, raw[:60])})",
            )
        return row.vector, dims.affine_map(raw), raw
    if type(raw) is list:
        if len(raw) != 7:
            raise fail(
                ErrorCode.INVALID_DIMENSION,
                f"{where} has {len(raw)} components, but a vector has exactly 7 integers in "
                f"the order m,kg,s,A,K,mol,cd",
            )
        components: list[int] = []
        for i, c in enumerate(raw):
            if type(c) is int:
                whole = c
            elif type(c) is float and math.isfinite(c) and c.is_integer() and abs(c) < 2**53:
                whole = int(c)
            else:
                raise fail(
                    ErrorCode.INVALID_DIMENSION,
                    f"component {i} ({BASE_SYMBOLS[i]}) of {where} is "
                    f"{describe_json(c) if not isinstance(c, int | float) else repr(c)}, "
                    f"not an integer; a vector holds 7 integers",
                )
            if not dims.exponent_in_range(whole):
                raise fail(
                    ErrorCode.INVALID_DIMENSION,
                    f"component {i} ({BASE_SYMBOLS[i]}) of {where} is {_big(whole)}, "
                    f"beyond the limit of {MAX_DIMENSION_EXPONENT} (MAX_DIMENSION_EXPONENT); "
                    f"a vector holds small integer exponents",
                )
            components.append(whole)
        return dims.from_integers(components), dims.IDENTITY, None
    raise fail(
        ErrorCode.INVALID_DIMENSION,
        f"{where} is {describe_json(raw)}; write a table name such as 'ohm' or 7 integers "
        f"in the order m,kg,s,A,K,mol,cd",
    )


def _unit_hint(where: str, spelled: str) -> str:
    """The way to other units: `unit`, on the reading side and the writing side alike."""
    if where.startswith(("get's", "eval's")):
        return f"to read another unit, ask with unit instead of dim, as in unit: {spelled!r}"
    return f"for another unit, write unit instead of dim, as in unit: {spelled!r}"


def _big(x: int) -> str:
    """An integer for a message; a huge one by its size (str() of it may even refuse)."""
    if abs(x) < 10**15:
        return str(x)
    return f"{'-' if x < 0 else ''}an integer of about {x.bit_length() * 0.30103:.0f} digits"


# -- set's tagged value --------------------------------------------------------------------


def parse_tagged(
    raw: JSON, where: str = "value", depth: int = 0, units: UnitResolver | None = None
) -> Value:
    """`set`'s value: exactly one tag plus an optional `dim` or `unit`, converted to SI."""
    if depth > MAX_VALUE_DEPTH:
        raise _too_deep(where)
    if type(raw) is not dict:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f'{where} must be a tagged JSON object such as {{"num": 4.7e3, "dim": "ohm"}}, '
            f"but it is {describe_json(raw)}; the tags are {TAG_VOCABULARY}",
        )
    unknown = [key for key in raw if key not in KEYS]
    if unknown:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where} has the unknown key {str(unknown[0])[:40]!r}; the tags are {TAG_VOCABULARY}",
        )
    present = [tag for tag in TAGS if tag in raw]
    if "im" in raw and "re" not in raw:
        present.append("re")
    if "ang" in raw and "mag" not in raw:
        present.append("mag")
    if len(present) != 1:
        found = "no tag" if not present else "the tags " + " and ".join(present)
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where} carries {found}, but exactly one tag is required: {TAG_VOCABULARY}",
        )
    tag = present[0]
    if "text" in raw and tag != "num":
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where} puts text beside {tag}, but text is the spelling of a real reading and "
            f"goes beside num only; leave text out",
        )
    if tag == "object":
        if "dim" in raw:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{where} puts dim beside object, but an object takes its dimensions per "
                f"field; move dim into each field's value",
            )
        if raw.get("unit") is not None:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{where} puts unit beside object, but an object takes its units per "
                f"field; move unit into each field's value",
            )
        return _object(raw["object"], where, depth, units)
    mapping: dims.AffineMap | UnitSpec
    if raw.get("unit") is None:
        vector, mapping, _ = parse_dim(raw.get("dim"), f"{where}.dim")
    else:
        mapping = _unit_in(raw, where, units)
        vector = mapping.vector
    if tag == "num":
        x = number(raw["num"], f"{where}.num")
        if "text" in raw:  # a reading given back: its spelling must be num's (issue 27)
            check_text(raw["text"], x, where)
        return Quantity(_map_in(x, mapping), vector)
    if tag == "re":
        _both(raw, "re", "im", where)
        z = complex(number(raw["re"], f"{where}.re"), number(raw["im"], f"{where}.im"))
        return Quantity(_map_in(z, mapping), vector)
    if tag == "mag":
        _both(raw, "mag", "ang", where)
        z = _polar(number(raw["mag"], f"{where}.mag"), number(raw["ang"], f"{where}.ang"))
        return Quantity(_map_in(z, mapping), vector)
    items = raw["array"]
    if type(items) is not list:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.array must be a JSON array of bare elements, but it is "
            f"{describe_json(items)}",
        )
    flat = _flat_real(items, mapping)
    if flat is not None:
        return Quantity(flat, vector)
    counter = [0]
    elements = _elements(items, f"{where}.array", mapping, counter, depth + 1)
    return Quantity(make_array(elements), vector)


def _unit_in(raw: dict[str, JSON], where: str, units: UnitResolver | None) -> UnitSpec:
    """The value's unit; a dim beside it may only repeat its vector (a get receipt's echo)."""
    if units is None:
        raise fail(ErrorCode.INVALID_ARGS, f"{where}.unit is not accepted here; use dim")
    spec = units(raw["unit"], f"{where}.unit")
    if raw.get("dim") is not None:
        vector, mapping, name = parse_dim(raw["dim"], f"{where}.dim")
        if vector != spec.vector or not mapping.is_identity:
            shown = name or str(dims.integers(vector))
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{where} gives both dim {shown} and unit {spec.text!r} "
                f"({dims.spell(spec.vector)}), which disagree; give unit alone, it carries "
                f"the dimension",
            )
    return spec


_JSON_REALS = frozenset({float, int})  # not bool: type(True) is bool


def _flat_real(
    items: list[JSON], mapping: dims.AffineMap | UnitSpec
) -> np.ndarray[Any, Any] | None:
    """A rectangular array of finite JSON numbers (a list, a matrix, ...) in one numpy pass
    (what `_elements` builds element by element, bit for bit); None sends anything else
    down the careful path that words the refusal."""
    if not items or len(items) > MAX_ARRAY_ELEMENTS:
        return None
    if not is_rectangular(items, _JSON_REALS):
        return None  # bools, strings, ragged or empty rows, complexes, objects
    try:
        array = np.array(items, dtype=np.float64)
    except OverflowError:
        return None
    if array.size > MAX_ARRAY_ELEMENTS or not bool(np.isfinite(array).all()):
        return None
    if mapping.is_identity:
        return array
    if type(mapping) is UnitSpec and mapping.table_map is None:
        # A unit converts each written number exactly, as it converts a scalar: the same
        # number stores the same double in an array and alone (98.6 degF is 310.15 K).
        into_si = mapping.into_si
        exact = [into_si(x) for x in array.ravel().tolist()]
        return np.array(exact, dtype=np.float64).reshape(array.shape)
    table = mapping.table_map if type(mapping) is UnitSpec else mapping
    assert table is not None
    return array * table.factor + table.offset


def _too_deep(where: str) -> Exception:
    return fail(
        ErrorCode.INVALID_ARGS,
        f"{where} nests deeper than {MAX_VALUE_DEPTH} levels (MAX_VALUE_DEPTH); flatten the value",
    )


def _both(raw: dict[str, JSON], first: str, second: str, where: str) -> None:
    for key in (first, second):
        if key not in raw:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{where} has {first if key == second else second} without {key}; a complex "
                f"needs both halves of the pair {{{first}, {second}}}",
            )


def _polar(mag: float, ang: float) -> complex:
    return complex(mag * math.cos(ang), mag * math.sin(ang))


def _map_in(x: Scalar, mapping: dims.AffineMap | UnitSpec) -> Scalar:
    if mapping.is_identity:
        return x
    if type(mapping) is UnitSpec:
        if type(x) is complex:
            return complex(mapping.into_si(x.real), mapping.into_si(x.imag, scale_only=True))
        return mapping.into_si(x)  # type: ignore[arg-type]
    if type(x) is complex:
        return complex(x.real * mapping.factor + mapping.offset, x.imag * mapping.factor)
    return x * mapping.factor + mapping.offset


def _map_out(x: Scalar, mapping: dims.AffineMap | UnitSpec) -> Scalar:
    if mapping.is_identity:
        return x
    if type(mapping) is UnitSpec:
        if type(x) is complex:
            return complex(mapping.out_of_si(x.real), mapping.out_of_si(x.imag, scale_only=True))
        return mapping.out_of_si(float(x))  # type: ignore[arg-type]
    if type(x) is complex:
        return complex((x.real - mapping.offset) / mapping.factor, x.imag / mapping.factor)
    return (x - mapping.offset) / mapping.factor


_FAST_INT = 10**300  # an int this small always converts to a finite double


def _elements(
    items: list[JSON],
    where: str,
    mapping: dims.AffineMap | UnitSpec,
    counter: list[int],
    depth: int,
) -> list[Element]:
    if depth > MAX_VALUE_DEPTH:
        raise _too_deep(where)
    out: list[Element] = []
    identity = mapping.is_identity
    isfinite = math.isfinite
    for i, item in enumerate(items):
        kind = type(item)
        # The common elements first, with no message text built: a finite double, a
        # {re, im} pair of finite doubles.
        if counter[0] < MAX_ARRAY_ELEMENTS:
            if kind is float and isfinite(item):
                counter[0] += 1
                out.append(item if identity else _map_in(item, mapping))
                continue
            if kind is int and -_FAST_INT < item < _FAST_INT:
                counter[0] += 1
                x = float(item)
                out.append(x if identity else _map_in(x, mapping))
                continue
            if kind is dict and len(item) == 2:
                first, second = item.get("re"), item.get("im")
                polar = first is None
                if polar:
                    first, second = item.get("mag"), item.get("ang")
                if (
                    type(first) is float
                    and type(second) is float
                    and isfinite(first)
                    and isfinite(second)
                ):
                    counter[0] += 1
                    z = _polar(first, second) if polar else complex(first, second)
                    out.append(z if identity else _map_in(z, mapping))
                    continue
        spot = f"{where}[{i}]"
        if kind is list:
            out.append(_elements(item, spot, mapping, counter, depth + 1))
            continue
        counter[0] += 1
        if counter[0] > MAX_ARRAY_ELEMENTS:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"the array holds more than {MAX_ARRAY_ELEMENTS} scalar elements "
                f"(MAX_ARRAY_ELEMENTS); split it into smaller arrays",
            )
        if kind is float or kind is int:
            out.append(_map_in(number(item, spot), mapping))
        elif kind is dict:
            out.append(_map_in(_bare_complex(item, spot), mapping))
        else:
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"{spot} is {describe_json(item)}; an array element is a bare number, "
                f"{{re, im}}, {{mag, ang}} or a nested array",
            )
    return out


def _bare_complex(item: dict[str, JSON], where: str) -> complex:
    keys = set(item)
    if keys == {"re", "im"}:
        return complex(number(item["re"], f"{where}.re"), number(item["im"], f"{where}.im"))
    if keys == {"mag", "ang"}:
        return _polar(number(item["mag"], f"{where}.mag"), number(item["ang"], f"{where}.ang"))
    if "object" in keys:
        reason = "an object can never be an element of an array"
    elif "dim" in keys or "num" in keys or "array" in keys:
        reason = "an element carries no tag and no dim of its own (the array shares one vector)"
    else:
        reason = "its keys must be exactly {re, im} or {mag, ang}"
    raise fail(
        ErrorCode.INVALID_ARGS,
        f"{where} is not a bare array element: {reason}; an element is a bare number, "
        f"{{re, im}}, {{mag, ang}} or a nested array",
    )


def _object(fields: JSON, where: str, depth: int, units: UnitResolver | None) -> Obj:
    if type(fields) is not dict:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.object must be a JSON object mapping field names to tagged values, but "
            f"it is {describe_json(fields)}",
        )
    parsed: dict[str, Value] = {}
    for name, field_value in fields.items():
        if not is_name(name):
            raise fail(
                ErrorCode.INVALID_IDENTIFIER,
                f"the field name {str(name)[:40]!r} in {where}.object breaks the name rule: a "
                f"letter or underscore, then ASCII letters, digits or underscores",
            )
        parsed[name] = parse_tagged(field_value, f"{where}.object.{name}", depth + 1, units)
    return Obj(parsed)


# -- out: the stored form and get's rendering ------------------------------------------

# JavaScript writes a whole double below 1e21 as digits; so do our receipts and rows, up to
# the 64 bits orjson can write as an integer.
_LARGEST_JSON_INT = 2.0**63


def json_number(x: float) -> float | int:
    """A double as JSON spells it: a whole value without a fractional part, -0 as 0."""
    # orjson writes integers only within 64 bits; a larger whole double stays a double.
    if x.is_integer() and -_LARGEST_JSON_INT < x < _LARGEST_JSON_INT:
        return int(x)
    return x


def stored_number(x: float) -> float | int:
    """A double as a row stores it: like `json_number`, but -0.0 keeps its sign, so a replay
    reads back the very double the live slot holds (issue 8: `$sqrt` of -4-0j is -2j)."""
    if x.is_integer() and -_LARGEST_JSON_INT < x < _LARGEST_JSON_INT:
        if x == 0.0 and math.copysign(1.0, x) < 0.0:
            return x
        return int(x)
    return x


def stored_form(value: Value) -> dict[str, JSON]:
    """The value as `set` echoes it and a row stores it: `dim` as 7 integers."""
    if type(value) is Quantity:
        x = value.payload
        if type(x) is float:  # the commonest value, built here without another call
            return {
                "num": stored_number(x) if x.is_integer() else x,
                "dim": list(dims.integer_tuple(value.vector)),
            }
    return _stored_form(value, _bare)


def row_form(value: Value) -> dict[str, JSON]:
    """`stored_form`, but a float64 array stays the numpy array it is, for a JSON writer
    that spells such an array itself (the record's writes it straight from numpy)."""
    return _stored_form(value, _bare_but_numpy)


def _stored_form(value: Value, bare: Callable[[Payload], JSON]) -> dict[str, JSON]:
    if isinstance(value, Obj):
        return {"object": {name: _stored_form(v, bare) for name, v in value.fields.items()}}
    dim = dims.integers(value.vector)
    payload = value.payload
    if is_array_payload(payload):
        return {"array": bare(payload), "dim": dim}
    if type(payload) is complex:
        return {"re": stored_number(payload.real), "im": stored_number(payload.imag), "dim": dim}
    return {"num": stored_number(payload), "dim": dim}  # type: ignore[arg-type]


def _bare(payload: Payload) -> list[JSON]:
    if isinstance(payload, np.ndarray):
        return _json_numbers(payload)
    return _bare_items(payload)  # type: ignore[arg-type]


def _bare_but_numpy(payload: Payload) -> JSON:
    if isinstance(payload, np.ndarray):
        return payload
    return _bare_items(payload)  # type: ignore[arg-type]


def _bare_items(items: list[Element]) -> list[JSON]:
    """The stored form of array elements; a plain loop, as a complex array may hold a million."""
    out: list[JSON] = []
    append = out.append
    for e in items:
        kind = type(e)
        if kind is complex:
            append({"re": stored_number(e.real), "im": stored_number(e.imag)})  # type: ignore[union-attr]
        elif kind is list:
            append(_bare_items(e))  # type: ignore[arg-type]
        else:
            append(stored_number(e))  # type: ignore[arg-type]
    return out


def _json_numbers(
    array: np.ndarray[Any, np.dtype[np.float64]], *, keep_zero_sign: bool = True
) -> list[JSON]:
    """`stored_number` over a whole float64 array (`json_number` when `keep_zero_sign` is
    off), decided in numpy rather than per element."""
    with np.errstate(invalid="ignore"):
        whole = (np.trunc(array) == array) & (np.abs(array) < _LARGEST_JSON_INT)
    if keep_zero_sign:
        whole &= ~((array == 0) & np.signbit(array))  # -0.0 stays a double (issue 8)
    if not whole.any():
        return array.tolist()  # type: ignore[no-any-return]
    if whole.all():
        return array.astype(np.int64).tolist()  # type: ignore[no-any-return]
    mixed = array.astype(object)
    mixed[whole] = array[whole].astype(np.int64).astype(object)
    return mixed.tolist()  # type: ignore[no-any-return]


class RenderOptions:
    """`get`'s validated `form`, `digits`, `dim` and (resolved outside the core) `unit`."""

    __slots__ = ("digits", "dim_raw", "form", "mapping", "name", "rounding", "unit", "vector")

    def __init__(
        self,
        form: JSON,
        digits: JSON,
        dim: JSON,
        unit: UnitSpec | None = None,
        where: str = "get's",
    ) -> None:
        if form is not None and form not in ("rect", "polar"):
            raise fail(
                ErrorCode.INVALID_ARGS,
                f"form is {describe_json(form)}; "
                f'it must be "rect" or "polar", or omitted for the stored form',
            )
        self.form: str | None = form
        self.digits: int | None = None
        if digits is not None:
            ok = (type(digits) is int and digits > 0) or (
                type(digits) is float and digits.is_integer() and 0 < digits < 1e6
            )
            if not ok:
                raise fail(
                    ErrorCode.INVALID_ARGS,
                    f"digits is {describe_json(digits)}; "
                    f"it must be a positive integer count of significant digits, such as 4",
                )
            self.digits = int(digits)
        # The format that rounds to the asked significant digits (17 is every double).
        self.rounding = None if self.digits is None else f".{min(self.digits, 17) - 1}e"
        self.dim_raw = dim
        self.vector: Vector | None = None
        self.mapping: dims.AffineMap | UnitSpec = dims.IDENTITY
        self.name: str | None = None
        self.unit = unit
        if dim is not None:
            self.vector, self.mapping, self.name = parse_dim(dim, f"{where} dim")
            if unit is not None:
                raise fail(
                    ErrorCode.INVALID_ARGS,
                    f"{where} dim {str(dim)[:60]!r} and unit {unit.text!r} both ask for a "
                    f"spelling; keep unit alone (it reads any unit of the stored vector)",
                )
        elif unit is not None:
            self.vector, self.mapping = unit.vector, unit


def render(value: Value, options: RenderOptions) -> dict[str, JSON]:
    """The `get` receipt's value (manual 3.4): the tagged shape `set` accepts back."""
    if isinstance(value, Obj):
        return {"object": {name: render(v, options) for name, v in value.fields.items()}}
    if options.vector is not None and options.vector != value.vector:
        if options.unit is not None:
            raise fail(
                ErrorCode.INCOMPATIBLE_DIMENSION,
                f"the unit {options.unit.text!r} is the vector {dims.spell(options.vector)}, "
                f"but the value holds {dims.spell(value.vector)}; ask for a unit of the "
                f"stored vector or omit unit (nothing was converted)",
            )
        claimed = options.name or str(dims.integers(options.vector))
        raise fail(
            ErrorCode.INCOMPATIBLE_DIMENSION,
            f"get's dim {claimed} is the vector {dims.spell(options.vector)}, but the value "
            f"holds {dims.spell(value.vector)}; ask for a dim of the stored vector, use unit "
            f"to read another unit of it, or omit dim (nothing was converted)",
        )
    unit_out: dict[str, JSON] = {}
    if options.unit is not None:
        unit_out = {"unit": options.unit.text}
        dim_out: JSON = dims.first_name(value.vector) or dims.integers(value.vector)
    elif options.name is not None:
        dim_out = options.name
    elif options.vector is not None:
        dim_out = options.dim_raw
    else:
        dim_out = dims.first_name(value.vector) or dims.integers(value.vector)
    payload = value.payload
    if is_array_payload(payload):
        if isinstance(payload, np.ndarray):
            items = _render_real_array(payload, options)
        else:
            items = _render_items(as_list(payload), options)  # type: ignore[arg-type]
        return {"array": items, **unit_out, "dim": dim_out}
    rendered = _render_scalar(payload, options)  # type: ignore[arg-type]
    if isinstance(rendered, dict):
        return {**rendered, **unit_out, "dim": dim_out}
    if options.digits is None:
        return {"num": rendered, **unit_out, "dim": dim_out}
    # The number as rounded, trailing zeros kept, for quoting (issue 27).
    spelled = quoted(float(rendered), options.digits)
    return {"num": rendered, "text": spelled, **unit_out, "dim": dim_out}


def _render_real_array(array: RealArray, options: RenderOptions) -> list[JSON]:
    """`_render_scalar` over a float64 array, decided in numpy: a million elements are one
    pass, not a million calls."""
    values = _mapped_out(array, options)
    if options.form == "polar":
        magnitudes = _json_numbers(_rounded(np.abs(values), options))
        angles = _json_numbers(_rounded(np.where(values < 0, math.pi, 0.0), options))
        return _zip_leaves(magnitudes, angles, "mag", "ang")
    numbers = _json_numbers(_rounded(values, options))
    if options.form == "rect":
        return _zip_leaves(numbers, None, "re", "im")
    return numbers


def _zip_leaves(first: list[JSON], second: list[JSON] | None, a: str, b: str) -> list[JSON]:
    """Pair two nested lists of the same shape leaf by leaf into {a, b} objects (b is 0 when
    `second` is None: the imaginary part of a real)."""
    if second is None:
        return [_zip_leaves(x, None, a, b) if type(x) is list else {a: x, b: 0} for x in first]
    return [
        _zip_leaves(x, y, a, b) if type(x) is list else {a: x, b: y}
        for x, y in zip(first, second, strict=True)
    ]


def _mapped_out(array: RealArray, options: RenderOptions, *, scale_only: bool = False) -> RealArray:
    """`_map_out` over a real array: numpy's - and / round exactly as Python's
    (``scale_only``: imaginary parts, which take the scale and never the offset)."""
    mapping = options.mapping
    if mapping.is_identity:
        return array
    if type(mapping) is UnitSpec:
        if mapping.table_map is None:
            # An exact unit converts each number through integers, as a scalar does.
            out_of_si = mapping.out_of_si
            out = [out_of_si(x, scale_only=scale_only) for x in array.ravel().tolist()]
            return np.array(out, dtype=np.float64).reshape(array.shape)
        mapping = mapping.table_map
    if scale_only:
        return array / mapping.factor
    return (array - mapping.offset) / mapping.factor


def _rounded(array: RealArray, options: RenderOptions) -> RealArray:
    """`_cut`'s rounding over a real array: every element formatted in one C-level `%`
    (the same conversion `format` does) and read back by numpy."""
    spec, digits = options.rounding, options.digits
    if spec is None or digits is None or array.size == 0:
        return array
    flat = array.ravel()
    numbers = tuple(flat.tolist())
    text = ("%" + spec + " ") * flat.size % numbers
    with np.errstate(over="ignore"):
        rounded = np.array(text.split(), dtype=np.float64)
    # C's rounding of the binary value agrees with `round_significant` on the shortest
    # spelling except where that spelling is an exact tie: one digit more, ending in 5.
    longer = (("%." + str(min(digits, 17)) + "e ") * flat.size % numbers).split()
    # A spelling has one "e", so "5e" is exactly a mantissa that ends in 5.
    for i in [i for i, spelled in enumerate(longer) if "5e" in spelled]:
        if float(longer[i]) == numbers[i]:
            rounded[i] = round_significant(numbers[i], digits)
    # Zero reads as 0; a value rounded past the largest double keeps its own digits.
    keep = ~np.isfinite(rounded)
    return np.where(flat == 0, 0.0, np.where(keep, flat, rounded)).reshape(array.shape)


def _render_items(items: list[Element], options: RenderOptions) -> list[JSON]:
    """`_render_element` over a whole array, the per-element choices made once (a get of a
    million elements runs this loop a million times)."""
    if options.form == "polar":
        return [_render_element(e, options) for e in items]
    if options.digits is not None and list not in map(type, items):
        return _render_flat_rounded(items, options)
    return _render_list(items, options.form == "rect", options.mapping, _cutter(options))


def _render_flat_rounded(items: list[Element], options: RenderOptions) -> list[JSON]:
    """`_render_list` with digits over a flat list of scalars (a complex array), its parts
    mapped and rounded in numpy as a real array's are: per element, `round_significant`
    costs microseconds, and a million complex elements hold two million parts."""
    values = np.array(items, dtype=np.complex128)
    real_parts = _mapped_out(values.real.copy(), options)
    imag_parts = _mapped_out(values.imag.copy(), options, scale_only=True)
    real, imag = (
        _json_numbers(_rounded(real_parts, options)),
        _json_numbers(_rounded(imag_parts, options)),
    )
    if options.form == "rect":
        return [{"re": x, "im": y} for x, y in zip(real, imag, strict=True)]
    return [
        {"re": x, "im": y} if type(e) is complex else x
        for e, x, y in zip(items, real, imag, strict=True)
    ]


def _render_list(
    items: list[Element],
    rect: bool,
    mapping: dims.AffineMap | UnitSpec,
    cut: Callable[[float], JSON],
) -> list[JSON]:
    identity = mapping.is_identity
    out: list[JSON] = []
    append = out.append
    for e in items:
        if type(e) is list:
            append(_render_list(e, rect, mapping, cut))
            continue
        x = e if identity else _map_out(e, mapping)  # type: ignore[arg-type]
        if rect or type(x) is complex:
            append({"re": cut(x.real), "im": cut(x.imag)})  # type: ignore[union-attr]
        else:
            append(cut(x))  # type: ignore[arg-type]
    return out


def _cutter(options: RenderOptions) -> Callable[[float], float | int]:
    """`_cut` with the options bound."""
    digits = options.digits
    isfinite = math.isfinite
    if digits is None:
        return stored_number

    def cut(x: float) -> float | int:
        if x == 0 or not isfinite(x):
            return json_number(x)
        rounded = round_significant(x, digits)
        return json_number(rounded if isfinite(rounded) else x)

    return cut


def _render_element(e: Element, options: RenderOptions) -> JSON:
    if type(e) is list:
        return [_render_element(x, options) for x in e]
    return _render_scalar(e, options)  # type: ignore[arg-type]


def _render_scalar(x: Scalar, options: RenderOptions) -> JSON:
    x = _map_out(x, options.mapping)
    form = options.form
    if form == "polar":
        if type(x) is complex:
            # atan2 of the parts, as $arg: cmath.phase raises on an angle that underflows.
            mag, ang = math.hypot(x.real, x.imag), math.atan2(x.imag, x.real)
            if math.isinf(mag):
                raise fail(
                    ErrorCode.UNDEFINED_RESULT,
                    f"the magnitude of {show_number(x)} overflows the largest double (about "
                    f"1.8e308), so it has no polar form; get it in the rect form instead",
                )
        else:
            mag, ang = abs(x), (math.pi if x < 0 else 0.0)  # type: ignore[operator]
        return {"mag": _cut(mag, options), "ang": _cut(ang, options)}
    if form == "rect" or type(x) is complex:
        return {"re": _cut(x.real, options), "im": _cut(x.imag, options)}
    return _cut(x, options)  # type: ignore[arg-type]


def _cut(x: float, options: RenderOptions) -> float | int:
    if type(x) is not float:
        x = float(x)
    if options.digits is None:
        # An exact reading stores back exactly (manual 3.4), -0.0 included (issue 8).
        return stored_number(x)
    if x == 0 or not math.isfinite(x):
        return json_number(x)
    rounded = round_significant(x, options.digits)
    # Near the largest double, rounding up can leave the doubles: keep the value as it is.
    return json_number(rounded if math.isfinite(rounded) else x)


def round_significant(x: float, digits: int) -> float:
    """`x` to `digits` significant digits, half away from zero, on its shortest decimal
    spelling (repr): 2.5 -> 3, 0.15 -> 0.2, 2.5e-7 -> 3e-7 alike, whatever the binary value."""
    mantissa, shift = _decimal(x)
    size = abs(mantissa)
    drop = len(str(size)) - digits
    if drop <= 0:
        return x  # already as short as asked: nothing to cut
    kept, rest = divmod(size, 10**drop)
    if 2 * rest >= 10**drop:
        kept += 1  # a tie goes away from zero
    return float(f"{'-' if mantissa < 0 else ''}{kept}e{shift + drop}")
