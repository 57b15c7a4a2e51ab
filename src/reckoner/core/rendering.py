"""`get`'s rendering of a stored value: `form` (rect or polar), `digits` (rounded on the
shortest decimal spelling, with the quotable `text` of issue 27), and `dim` or `unit`
(the value read in another spelling of its vector). The result is the tagged shape `set`
accepts back."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np

from reckoner.contract.checks import describe_json
from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import Vector

from . import dimensions as dims
from .conversion import NumberMap, UnitSpec, map_out, shortest_decimal
from .errors import fail
from .forms import JSON, Tagged, TextForm
from .quoting import (
    QUOTED_DIGITS,
    c_complex_spellings,
    c_spellings,
    is_subnormal,
    quoted,
    quoted_complex,
    quoted_form,
    quoted_many,
    shaped,
    spelled_complex,
    spelled_polar,
)
from .scalars import Scalar, is_complex
from .stored_values import json_number, json_numbers, stored_number
from .tagged_input import parse_dim
from .values import Element, Obj, Payload, Quantity, RealArray, Value, show_number


class RenderOptions:
    """`get`'s validated `form`, `digits`, `dim` and (resolved outside the core) `unit`."""

    __slots__ = ("digits", "dim_raw", "form", "mapping", "name", "unit", "vector")

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
        self.dim_raw = dim
        self.vector: Vector | None = None
        self.mapping: NumberMap = dims.IDENTITY
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
    """The `get` receipt's value (docs/guide/formulas.md): the tagged shape `set` accepts back."""
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
    return {**_payload_form(value.payload, options), **unit_out, "dim": dim_out}


_LARGE_ARRAY = 4096


def builds_many_objects(value: Value) -> bool:
    """True when reading the value builds an object per element of a large array: a
    reading of 500,000 rows builds a million lists, none in a cycle, and the collections
    their allocations set off walk them and every slot each time, which cost more than
    building them (a third of such a get). The service pauses the collector for these."""
    payload = value.payload if isinstance(value, Quantity) else None
    return isinstance(payload, np.ndarray | list) and len(payload) >= _LARGE_ARRAY


def _payload_form(payload: Payload, options: RenderOptions) -> Tagged:
    """The tag and its payload, and with digits the quotable text beside it (issue 27)."""
    form: Tagged
    text: list[TextForm] | None = None  # an array's texts, when its fast path spelled them
    if isinstance(payload, np.ndarray):
        items, text = _render_real_array(payload, options)
        form = {"array": items}
    elif isinstance(payload, list):
        items, text = _render_items(payload, options)
        form = {"array": items}
    else:
        rendered = _render_scalar(payload, options)
        form = rendered if isinstance(rendered, dict) else {"num": rendered}
    if options.digits is not None:
        form["text"] = text if text is not None else quoted_form(form, options.digits)
    return form


Rendered: TypeAlias = "tuple[list[JSON], list[TextForm] | None]"
"""An array's rendered elements, and with digits their texts where spelled on the way."""


def _render_real_array(array: RealArray, options: RenderOptions) -> Rendered:
    """`_render_scalar` over a float64 array, decided in numpy: a million elements are one
    pass, not a million calls; with digits the texts are spelled from the same rounded
    numbers in the same few passes. Elements are built flat and nested once at the end."""
    values = _mapped_out(array, options)
    digits, shape = options.digits, array.shape
    flat = values.ravel()
    if options.form == "polar":
        magnitudes, angles = np.abs(flat), np.where(flat < 0, math.pi, 0.0)
        if digits is None:
            return _paired(magnitudes, angles, ("mag", "ang"), shape), None
        magnitudes, mag_texts = _rounded_spelled(magnitudes, digits)
        angles, ang_texts = _rounded_spelled(angles, digits)
        items = _paired(magnitudes, angles, ("mag", "ang"), shape)
        return items, shaped(spelled_polar(mag_texts, ang_texts), shape)
    rect = options.form == "rect"
    if digits is None:
        return (_paired(flat, None, ("re", "im"), shape) if rect else json_numbers(values)), None
    rounded, spelled = _rounded_spelled(flat, digits)
    if not rect:
        return json_numbers(rounded.reshape(shape)), shaped(spelled, shape)
    zeros = [quoted(0.0, digits)] * len(spelled)  # every imaginary part is a zero
    texts = spelled_complex(spelled, zeros, [False] * len(spelled))
    return _paired(rounded, None, ("re", "im"), shape), shaped(texts, shape)


def _paired(
    first: RealArray, second: RealArray | None, keys: tuple[str, str], shape: tuple[int, ...]
) -> list[JSON]:
    """{a: x, b: y} objects of two flat arrays element by element (b is 0 when `second` is
    None: the imaginary part of a real), nested as `shape`."""
    a, b = keys
    xs = json_numbers(first)
    if second is None:
        return shaped([{a: x, b: 0} for x in xs], shape)
    return shaped([{a: x, b: y} for x, y in zip(xs, json_numbers(second), strict=True)], shape)


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


def _rounded_spelled(array: RealArray, digits: int) -> tuple[RealArray, list[str]]:
    """Every number rounded as one scalar's `_cut` rounds it, and its quotable text
    (`quoted`), flat, in a few C-level passes: a million elements are not a million calls.
    Up to 15 digits the pass that rounds also spells: C's %#g rounds the binary value as its
    %e does, and the decimal it writes is then the rounded number's shortest spelling with
    its zeros; ties, zeros, subnormals and numbers rounded past the doubles are redone."""
    flat = array.ravel()
    numbers = tuple(flat.tolist())
    if digits > QUOTED_DIGITS or not numbers:
        rounded = _rounded(flat, numbers, digits)
        return rounded.reshape(array.shape), quoted_many(rounded, digits)
    spelled = c_spellings(numbers, digits)
    with np.errstate(over="ignore"):
        rounded = np.array(spelled, dtype=np.float64)
    rounded, respell = _settled(flat, numbers, rounded, digits)
    for i in respell:
        spelled[i] = quoted(float(rounded[i]), digits)
    return rounded.reshape(array.shape), spelled


def _settled(
    flat: RealArray, numbers: tuple[float, ...], rounded: RealArray, digits: int
) -> tuple[RealArray, list[int]]:
    """C's rounding of each number made `_cut`'s: ties redone on the shortest spelling, a
    zero read as 0, a number rounded past the largest double kept as it is; and where C's
    text is not `quoted`'s (those, -0, subnormals), to be spelled again."""
    redo = _ties(numbers, digits, flat)
    for i in redo:
        rounded[i] = round_significant(numbers[i], digits)
    # `rounded` is this call's own array (read from C's text): changed in place, and the
    # rare cases (rounded past the doubles, zeros) only where they occur.
    finite = np.isfinite(rounded)
    unsure = ~finite
    if not finite.all():
        rounded = np.where(finite, rounded, flat)
    zero = flat == 0
    if zero.any():
        rounded[zero] = 0.0
        unsure |= zero & np.signbit(flat)
    unsure |= is_subnormal(rounded)
    return rounded, [*redo, *np.flatnonzero(unsure).tolist()]


def _rounded_spelled_complex(
    real: RealArray, imag: RealArray, digits: int
) -> tuple[RealArray, RealArray, list[str]]:
    """`_rounded_spelled` of both parts of flat complex numbers, and each number's text
    ("3.50+1.50i", `quoted_complex` of its rounded parts), from one C pass over the parts
    in turn: the imaginary part's sign is C's `+` flag, so the texts need no second pass."""
    parts = np.empty(2 * real.size, dtype=np.float64)
    parts[0::2], parts[1::2] = real, imag
    numbers = tuple(parts.tolist())
    text, texts = c_complex_spellings(numbers, digits)
    rounded = _read_back(text, parts.size)
    rounded, respell = _settled(parts, numbers, rounded, digits)
    for i in sorted({j // 2 for j in respell}):
        x, y = float(rounded[2 * i]), float(rounded[2 * i + 1])
        texts[i] = quoted_complex(x, y, digits)
    return rounded[0::2], rounded[1::2], texts


def _read_back(text: str, count: int) -> RealArray:
    """The `count` numbers of C's text, whitespace between them, read by numpy's C parser
    in one call (no string object per number); were it to refuse the text (it reads C's
    spellings, inf and nan included), each is read alone."""
    with np.errstate(over="ignore"):
        try:
            numbers: RealArray = np.fromstring(text, dtype=np.float64, sep=" ")
        except ValueError:  # a spelling numpy's parser does not read
            numbers = np.array(text.split(), dtype=np.float64)
        if numbers.size != count:
            numbers = np.array(text.split(), dtype=np.float64)
    return numbers


def _rounded(flat: RealArray, numbers: tuple[float, ...], digits: int) -> RealArray:
    """`_cut`'s rounding over a flat real array: every element formatted in one C-level `%`
    (the same conversion `format` does) and read back by numpy."""
    if not numbers:
        return flat
    spec = f".{min(digits, 17) - 1}e "  # rounds to the asked digits (17 is every double)
    text = ("%" + spec) * len(numbers) % numbers
    with np.errstate(over="ignore"):
        rounded = np.array(text.split(), dtype=np.float64)
    for i in _ties(numbers, digits, flat):
        rounded[i] = round_significant(numbers[i], digits)
    # Zero reads as 0; a value rounded past the largest double keeps its own digits.
    keep = ~np.isfinite(rounded)
    return np.where(flat == 0, 0.0, np.where(keep, flat, rounded))


def _ties(numbers: tuple[float, ...], digits: int, flat: RealArray | None = None) -> list[int]:
    """Where C's rounding of the binary value may differ from `round_significant` on the
    shortest spelling: an exact tie, whose spelling has one digit more, ending in 5. With
    `flat` (the numbers as an array), only `_maybe_ties` are spelled to be sure."""
    at: list[int] | range = range(len(numbers))
    if flat is not None and digits <= _FILTERED_DIGITS:
        at = np.flatnonzero(_maybe_ties(flat, digits)).tolist()
        numbers = tuple(numbers[i] for i in at)
    longer = (("%." + str(min(digits, 17)) + "e ") * len(numbers) % numbers).split()
    # A spelling has one "e", so "5e" is exactly a mantissa that ends in 5.
    return [
        i
        for i, x, spelled in zip(at, numbers, longer, strict=True)
        if "5e" in spelled and float(spelled) == x
    ]


# Up to this many digits a tie shows in numpy within _TIE_MARGIN (see _maybe_ties).
_FILTERED_DIGITS = 12
_TIE_MARGIN = 1e-3
# Every power of ten a unit of the last kept digit can be, correctly rounded (from text).
_LOWEST_POWER = -340
_POWERS_OF_TEN = np.array([float(f"1e{k}") for k in range(_LOWEST_POWER, 309)])
# Below this the unit of a kept digit can leave the normal doubles: always spelled.
_TINY = 1e-290


def _maybe_ties(flat: RealArray, digits: int) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Every number that may be a tie at `digits` (a superset, decided in numpy): a tie is
    |x| = (N + 1/2) * 10^k, k the power of ten of its last kept digit. x is the double of
    that decimal (relative error at most 2^-53), the power of ten is correctly rounded and
    so is the quotient, so t = |x| / 10^k is N + 1/2 within 10^digits * 3.4e-16, under
    _TIE_MARGIN up to _FILTERED_DIGITS digits. k comes from log10, whose floor can be off
    by one only for x within 1e-9 of a power of ten in log10: those are kept, as are tiny
    numbers. Zeros and non-finite numbers never spell a tie."""
    a = np.abs(flat)
    # Two million numbers: the passes reuse their arrays rather than allocate each anew.
    with np.errstate(all="ignore"):
        log = np.log10(a)
        power = np.floor(log)
        usable = np.isfinite(power)
        np.subtract(log, power, out=log)  # the fraction of log10, 0 to 1
        maybe: np.ndarray[Any, np.dtype[np.bool_]] = log <= 1e-9  # near a power of ten
        maybe |= log >= 1.0 - 1e-9
        maybe |= a < _TINY
        np.copyto(power, 0.0, where=~usable)
        power += -(digits - 1) - _LOWEST_POWER  # the unit's place in the table
        np.clip(power, 0, _POWERS_OF_TEN.size - 1, out=power)
        t = np.divide(a, _POWERS_OF_TEN[power.astype(np.intp)], out=a)
        np.subtract(t, np.floor(t, out=log), out=t)
        t -= 0.5
        maybe |= np.abs(t, out=t) <= _TIE_MARGIN
    maybe &= usable
    return maybe


def _render_items(items: list[Element], options: RenderOptions) -> Rendered:
    """`_render_element` over a whole array, the per-element choices made once (a get of a
    million elements runs this loop a million times)."""
    if options.form == "polar":
        return [_render_element(e, options) for e in items], None
    if options.digits is not None and list not in map(type, items):
        return _render_flat_rounded(items, options.digits, options)
    rendered = _render_list(items, options.form == "rect", options.mapping, _cutter(options))
    return rendered, None


def _render_flat_rounded(items: list[Element], digits: int, options: RenderOptions) -> Rendered:
    """`_render_list` with digits over a flat list of scalars (a complex array), its parts
    mapped and rounded in numpy as a real array's are: per element, `round_significant`
    costs microseconds, and a million complex elements hold two million parts. The texts
    are spelled from the same rounded parts."""
    values = np.array(items, dtype=np.complex128)
    real_in = _mapped_out(values.real.copy(), options)
    imag_in = _mapped_out(values.imag.copy(), options, scale_only=True)
    rect = options.form == "rect"
    if digits <= QUOTED_DIGITS and (rect or set(map(type, items)) == {complex}):
        re_parts, im_parts, pair_texts = _rounded_spelled_complex(real_in, imag_in, digits)
        real, imag = json_numbers(re_parts), json_numbers(im_parts)
        return [{"re": x, "im": y} for x, y in zip(real, imag, strict=True)], list(pair_texts)
    real_parts, real_texts = _rounded_spelled(real_in, digits)
    imag_parts, imag_texts = _rounded_spelled(imag_in, digits)
    real, imag = json_numbers(real_parts), json_numbers(imag_parts)
    negative = (imag_parts < 0).tolist()
    magnitudes = [t[1:] if minus else t for t, minus in zip(imag_texts, negative, strict=True)]
    complex_texts = spelled_complex(real_texts, magnitudes, negative)
    if rect:
        return [{"re": x, "im": y} for x, y in zip(real, imag, strict=True)], list(complex_texts)
    kinds = [type(e) is complex for e in items]
    rendered: list[JSON] = [
        {"re": x, "im": y} if is_pair else x
        for is_pair, x, y in zip(kinds, real, imag, strict=True)
    ]
    texts: list[TextForm] = [
        c if is_pair else r for is_pair, r, c in zip(kinds, real_texts, complex_texts, strict=True)
    ]
    return rendered, texts


def _render_list(
    items: list[Element],
    rect: bool,
    mapping: NumberMap,
    cut: Callable[[float], JSON],
) -> list[JSON]:
    identity = mapping.is_identity
    out: list[JSON] = []
    append = out.append
    for e in items:  # isinstance narrows as is_complex does, without a call per element
        if isinstance(e, list):
            append(_render_list(e, rect, mapping, cut))
            continue
        x = e if identity else map_out(e, mapping)
        if rect or isinstance(x, complex):
            append({"re": cut(x.real), "im": cut(x.imag)})
        else:
            append(cut(x))
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
    if isinstance(e, list):
        return [_render_element(x, options) for x in e]
    return _render_scalar(e, options)


def _render_scalar(x: Scalar, options: RenderOptions) -> JSON:
    x = map_out(x, options.mapping)
    form = options.form
    if form == "polar":
        if is_complex(x):
            # atan2 of the parts, as $arg: cmath.phase raises on an angle that underflows.
            mag, ang = math.hypot(x.real, x.imag), math.atan2(x.imag, x.real)
            if math.isinf(mag):
                raise fail(
                    ErrorCode.UNDEFINED_RESULT,
                    f"the magnitude of {show_number(x)} overflows the largest double (about "
                    f"1.8e308), so it has no polar form; get it in the rect form instead",
                )
        else:
            mag, ang = abs(x), (math.pi if x < 0 else 0.0)
        return {"mag": _cut(mag, options), "ang": _cut(ang, options)}
    if form == "rect" or is_complex(x):
        return {"re": _cut(x.real, options), "im": _cut(x.imag, options)}
    return _cut(x, options)


def _cut(x: float, options: RenderOptions) -> float | int:
    if type(x) is not float:
        x = float(x)
    if options.digits is None:
        # An exact reading stores back exactly (docs/guide/formulas.md), -0.0 included (issue 8).
        return stored_number(x)
    if x == 0 or not math.isfinite(x):
        return json_number(x)
    rounded = round_significant(x, options.digits)
    # Near the largest double, rounding up can leave the doubles: keep the value as it is.
    return json_number(rounded if math.isfinite(rounded) else x)


def round_significant(x: float, digits: int) -> float:
    """`x` to `digits` significant digits, half away from zero, on its shortest decimal
    spelling (repr): 2.5 -> 3, 0.15 -> 0.2, 2.5e-7 -> 3e-7 alike, whatever the binary value."""
    mantissa, shift = shortest_decimal(x)
    size = abs(mantissa)
    drop = len(str(size)) - digits
    if drop <= 0:
        return x  # already as short as asked: nothing to cut
    kept, rest = divmod(size, 10**drop)
    if 2 * rest >= 10**drop:
        kept += 1  # a tie goes away from zero
    return float(f"{'-' if mantissa < 0 else ''}{kept}e{shift + drop}")
