"""The input form: `set`'s tagged JSON value (a number, a complex pair, an array, an object,
each with its `dim` or `unit`) checked and converted to an SI value, with one sentence for
whatever is wrong in it; `dim` spellings are read here for `get` too."""

from __future__ import annotations

import math

import numpy as np

from reckoner.contract.checks import describe_json
from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ALL_NAMES, BASE_SYMBOLS, ROW_BY_NAME, ZERO, Vector
from reckoner.contract.limits import MAX_ARRAY_ELEMENTS, MAX_DIMENSION_EXPONENT, MAX_VALUE_DEPTH

from . import dimensions as dims
from .conversion import NumberMap, UnitResolver, UnitSpec, map_in
from .errors import fail
from .forms import JSON
from .names import is_name
from .quoting import check_array_text, check_pair_text, check_text
from .scalars import Scalar
from .values import Element, Obj, Quantity, RealArray, Value, is_rectangular, make_array

TAGS = ("num", "re", "mag", "array", "object")
KEYS = frozenset({"num", "re", "im", "mag", "ang", "array", "object", "dim", "unit", "text"})
TAG_VOCABULARY = (
    "{num}, {re, im}, {mag, ang}, {array} or {object}, each with an optional dim or unit "
    "(not beside object)"
)


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


def parse_tagged(
    raw: JSON, where: str = "value", depth: int = 0, units: UnitResolver | None = None
) -> Value:
    """`set`'s value: exactly one tag plus an optional `dim` or `unit`, converted to SI."""
    if depth > MAX_VALUE_DEPTH:
        raise _too_deep(where)
    tag = _the_tag(raw, where)
    if tag == "object":
        _no_dim_beside_object(raw, where)
        return _object(raw["object"], where, depth, units)
    mapping: NumberMap
    if raw.get("unit") is None:
        vector, mapping, _ = parse_dim(raw.get("dim"), f"{where}.dim")
    else:
        mapping = _unit_in(raw, where, units)
        vector = mapping.vector
    if tag == "array":
        return Quantity(_array(raw, where, mapping, depth), vector)
    return Quantity(map_in(_scalar(raw, tag, where), mapping), vector)


def _the_tag(raw: JSON, where: str) -> str:
    """The one tag of a tagged object, its keys checked (the pair tags named by their first
    half: `re` for {re, im}, `mag` for {mag, ang})."""
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
    if "text" in raw and tag == "object":
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where} puts text beside object, but text is a reading's spelling of a number, "
            f"a complex or an array, and an object's fields carry their own; leave it out",
        )
    return tag


def _no_dim_beside_object(raw: dict[str, JSON], where: str) -> None:
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


def _scalar(raw: dict[str, JSON], tag: str, where: str) -> Scalar:
    """The written scalar of a {num}, {re, im} or {mag, ang} value (not yet in SI)."""
    if tag == "num":
        x = number(raw["num"], f"{where}.num")
        if "text" in raw:  # a reading given back: its spelling must be num's (issue 27)
            check_text(raw["text"], x, where)
        return x
    pair = ("re", "im") if tag == "re" else ("mag", "ang")
    first, second = pair
    _both(raw, first, second, where)
    a = number(raw[first], f"{where}.{first}")
    b = number(raw[second], f"{where}.{second}")
    if "text" in raw:  # a complex reading given back (issue 27)
        check_pair_text(raw["text"], pair, (a, b), where)
    return complex(a, b) if tag == "re" else _polar(a, b)


def _array(
    raw: dict[str, JSON], where: str, mapping: NumberMap, depth: int
) -> RealArray | list[Element]:
    """The payload of an {array} value, in SI; a reading's text beside it checked against
    the elements as written."""
    items = raw["array"]
    if type(items) is not list:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"{where}.array must be a JSON array of bare elements, but it is "
            f"{describe_json(items)}",
        )
    flat = _flat_real(items, mapping)
    payload = flat if flat is not None else _careful_array(items, where, mapping, depth)
    if "text" in raw:  # an array reading given back (issue 27)
        check_array_text(raw["text"], items, where)
    return payload


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


def _flat_real(items: list[JSON], mapping: NumberMap) -> RealArray | None:
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
        exact = mapping.reals_into_si(array.ravel().tolist())
        return np.array(exact, dtype=np.float64).reshape(array.shape)
    table = mapping.table_map if type(mapping) is UnitSpec else mapping
    assert table is not None
    return array * table.factor + table.offset


def _careful_array(
    items: list[JSON], where: str, mapping: NumberMap, depth: int
) -> RealArray | list[Element]:
    """An array off the one-pass numpy path: element by element, each refusal worded."""
    counter = [0]
    return make_array(_elements(items, f"{where}.array", mapping, counter, depth + 1))


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


_FAST_INT = 10**300  # an int this small always converts to a finite double


def _elements(
    items: list[JSON],
    where: str,
    mapping: NumberMap,
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
                out.append(item if identity else map_in(item, mapping))
                continue
            if kind is int and -_FAST_INT < item < _FAST_INT:
                counter[0] += 1
                x = float(item)
                out.append(x if identity else map_in(x, mapping))
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
                    out.append(z if identity else map_in(z, mapping))
                    continue
        spot = f"{where}[{i}]"
        if kind is list:
            out.append(_elements(item, spot, mapping, counter, depth + 1))
        else:
            out.append(_careful_element(item, spot, mapping, counter))
    return out


def _careful_element(item: JSON, spot: str, mapping: NumberMap, counter: list[int]) -> Scalar:
    """One scalar element off the fast path: counted, checked, worded if refused."""
    counter[0] += 1
    if counter[0] > MAX_ARRAY_ELEMENTS:
        raise fail(
            ErrorCode.INVALID_ARGS,
            f"the array holds more than {MAX_ARRAY_ELEMENTS} scalar elements "
            f"(MAX_ARRAY_ELEMENTS); split it into smaller arrays",
        )
    kind = type(item)
    if kind is float or kind is int:
        return map_in(number(item, spot), mapping)
    if kind is dict:
        return map_in(_bare_complex(item, spot), mapping)
    raise fail(
        ErrorCode.INVALID_ARGS,
        f"{spot} is {describe_json(item)}; an array element is a bare number, "
        f"{{re, im}}, {{mag, ang}} or a nested array",
    )


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
