"""Issue 8 (speed) against docs/guide/records.md: a float64 array written straight from numpy, and
an
embedded part (``wire.Encoded``), give exactly the bytes the plain value gives.

The record format does not change: a row carrying a numpy array or an embedded part is
byte for byte the row its stored form (Python lists, whole doubles as integers, -0.0 kept)
writes, on every path the writer takes (short, long, too deep for orjson, lone surrogates).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner import wire

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
_LAST_64_BIT_WHOLE = math.nextafter(2.0**63, 0.0)
special = st.sampled_from(
    [0.0, -0.0, 1.0, -3.0, 0.5, 2.0**53, 2.0**63, -(2.0**63), 1e16, 1e21, 1e300, 5e-324, 0.1]
) | st.sampled_from([_LAST_64_BIT_WHOLE, -_LAST_64_BIT_WHOLE])
elements = finite | special


def _spelled_double(x: float) -> bytes:
    """One double as the stored form spells it, decided here element by element rather than
    by either implementation under test (the writer's numpy route, the core's stored form,
    whose many-whole-doubles branches are the same numpy mask): -0.0 keeps its sign, a whole
    double within orjson's 64-bit integers is its digits, any other double is spelled as
    orjson spells a Python float."""
    if x == 0.0 and math.copysign(1.0, x) < 0.0:
        return b"-0.0"
    if x.is_integer() and abs(x) < 2.0**63:
        return b"%d" % int(x)
    return orjson.dumps(x)


def _expected(array: np.ndarray[Any, Any]) -> bytes:
    """The JSON text an array of doubles must be written as, any shape, built per element."""
    if array.ndim == 0:
        return _spelled_double(float(array))
    return b"[" + b",".join(_expected(part) for part in array) + b"]"


@given(st.lists(elements, min_size=1, max_size=80), st.sampled_from([1, 2, 4]))
def test_a_float64_array_is_spelled_as_its_stored_list(values: list[float], columns: int) -> None:
    """7.3: orjson's numpy output, the runs written around a few whole doubles, and the
    mixed list for many, all equal the stored form's spelling built per element, 1-D and
    2-D.
    Spec: docs/guide/records.md (issue 8)."""
    array = np.array(values, dtype=np.float64)
    assert wire.dumps({"array": array}) == b'{"array":' + _expected(array) + b"}"
    usable = len(values) - len(values) % columns
    if usable:
        matrix = array[:usable].reshape(-1, columns)
        assert wire.dumps(matrix) == _expected(matrix)


@pytest.mark.parametrize("size", [1, 17, 1_000, 10_000])
@pytest.mark.parametrize("whole_at", [(), (0,), (0, 500), (3, 4), (16, 999, 9999), "every"])
def test_sweeps_with_few_or_many_whole_doubles_read_back_exactly(
    size: int, whole_at: tuple[int, ...] | str
) -> None:
    """7.3 and issue 8's round trip: the text reads back as the same doubles, in order,
    whatever mix of whole and fractional values the array holds.
    Spec: docs/guide/records.md (issue 8)."""
    array = np.sin(np.arange(size) * 0.37) * 230.0
    if whole_at == "every":
        array = np.round(array)
    else:
        for i in whole_at:
            if i < size:
                array[i] = float(i)
    text = wire.dumps(array)
    assert text == _expected(array)
    back = np.array(wire.loads(text), dtype=np.float64)
    assert back.tobytes() == array.tobytes()


def test_a_strided_or_non_float_array_is_spelled_through_its_list() -> None:
    """7.3: a view that is not contiguous, and an integer array, take the list path.
    Spec: docs/guide/records.md (issue 8)."""
    array = np.arange(12, dtype=np.float64).reshape(3, 4) / 3.0
    assert wire.dumps(array.T) == _expected(array.T)
    assert wire.dumps(np.arange(4)) == b"[0,1,2,3]"


def _deep(levels: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(levels):
        value = {"o": value}
    return value


@pytest.mark.parametrize(
    "skeleton",
    [
        lambda part: {"vars": {"x": part}, "n": 2.0, "t": "a .0, in text"},
        lambda part: [part, part, -0.0, 3.0],
        lambda part: _deep(300, [part, 1.0]),  # deeper than orjson writes
        lambda part: {"s": "\ud800", "p": part, "w": 4.0},  # a lone surrogate
    ],
)
def test_an_embedded_part_writes_the_bytes_of_the_plain_value(skeleton: Any) -> None:
    """7.3: an Encoded part is copied as it was spelled; the rest of the row is checked for
    whole doubles as before; the standard library's path (depth, surrogates) reads it back
    first. The bytes equal those of the same row with the plain value in place.
    Spec: docs/guide/records.md (issue 8)."""
    plain = {"array": [0.25, 3.0, -0.0, 1e300], "dim": [2, 1, -3, -2, 0, 0, 0]}
    embedded = wire.preencoded(plain)
    assert wire.dumps(skeleton(embedded)) == wire.dumps(skeleton(plain))
    assert wire.dumps_line(skeleton(embedded)) == wire.dumps(skeleton(plain)) + b"\n"
    numpy_form = {"array": np.array([0.25, 3.0, -0.0, 1e300]), "dim": plain["dim"]}
    assert wire.dumps(skeleton(numpy_form)) == wire.dumps(skeleton(plain))


def test_an_unknown_type_is_still_refused() -> None:
    """The writer spells only what it knows: an object of another type is an error, as
    before, never silently written as null.
    Spec: docs/guide/records.md (issue 8)."""
    with pytest.raises(TypeError):
        wire.dumps({"x": object()})
    with pytest.raises(TypeError):
        wire.dumps({"x": object(), "y": wire.preencoded([1.5])})


def test_non_finite_numbers_inside_an_array_are_written_as_orjson_writes_them() -> None:
    """The writer's spelling of inf and NaN (null) is the same from numpy as from a list.
    Spec: docs/guide/records.md (issue 8)."""
    array = np.array([1.5, math.inf, math.nan, -math.inf])
    assert wire.dumps(array) == wire.dumps(array.tolist()) == b"[1.5,null,null,null]"
