"""Issue 27, "no call takes more than 2 s": a `get` with `digits` of a million elements
rounds and spells them in whole-array passes, and those passes answer, number for number
and text for text, what the scalar rule answers for each number alone
(docs/decisions/engine-readings.md, docs/performance.md).

The numbers drawn are the ones where the array passes could part from the scalar rule:
ties of the shortest spelling (2.5, 0.15, k + 0.5), numbers next to a power of ten, -0.0,
subnormals, the largest doubles, and numbers rounded past them.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reckoner.core import rendering
from reckoner.core.api import parse_value, render_value
from reckoner.core.errors import Failure
from reckoner.core.quoting import quoted, shaped
from reckoner.core.rendering import round_significant

PROPERTY = settings(max_examples=300, deadline=None)


def _decimal(mantissa: int, exponent: int) -> float:
    return float(f"{mantissa}e{exponent}")


# Numbers whose shortest spelling ends in 5 at some digit (the ties), next to powers of
# ten, and at the edges of the doubles, beside any double at all.
_EDGES = st.sampled_from(
    [0.0, -0.0, 5e-324, -2.5e-308, sys.float_info.min, sys.float_info.max, -1e308, 9.995e307]
)
_NUMBERS = st.one_of(
    st.builds(
        _decimal, st.integers(-(10**13), 10**13).map(lambda m: 10 * m + 5), st.integers(-320, 300)
    ),
    st.builds(lambda k: k + 0.5, st.integers(-(10**9), 10**9)),
    st.builds(
        _decimal, st.sampled_from([1, -1, 9999999, 99995, 10**12 - 1]), st.integers(-320, 300)
    ),
    st.builds(
        lambda e, n: math.nextafter(10.0**e, n),
        st.integers(-300, 300),
        st.sampled_from([0.0, math.inf]),
    ),
    _EDGES,
    st.floats(allow_nan=False, allow_infinity=False),
).filter(math.isfinite)


@given(st.lists(_NUMBERS, min_size=1, max_size=80), st.integers(min_value=1, max_value=17))
@PROPERTY
def test_an_array_rounds_and_spells_each_number_as_the_scalar_rule(
    xs: list[float], digits: int
) -> None:
    """The array's rounding (C's, with the ties the numpy filter finds redone by the scalar
    rule) and its texts are `round_significant` and `quoted` of each number alone."""
    rounded, texts = rendering._rounded_spelled(np.array(xs), digits)
    for x, got, text in zip(xs, rounded.tolist(), texts, strict=True):
        want = x if x == 0 else round_significant(x, digits)
        want = want if math.isfinite(want) else x  # rounded past the largest double
        want = 0.0 if want == 0 else want
        assert (got, math.copysign(1.0, got)) == (want, math.copysign(1.0, want)), x
        assert text == quoted(want, digits), x


@given(st.lists(_NUMBERS, min_size=1, max_size=80), st.integers(min_value=1, max_value=12))
@PROPERTY
def test_the_numpy_tie_filter_keeps_every_tie(xs: list[float], digits: int) -> None:
    """The filter may keep more numbers than the ties, never fewer: the ties it keeps are
    the ties spelling every number finds."""
    numbers = tuple(xs)
    assert rendering._ties(numbers, digits, np.array(xs)) == rendering._ties(numbers, digits)


@given(
    st.lists(_NUMBERS, min_size=1, max_size=30),
    st.integers(min_value=1, max_value=15),
    st.sampled_from([None, "rect", "polar"]),
    st.sampled_from([1, 2, 3]),
)
@PROPERTY
def test_a_nested_real_array_reads_as_its_elements_alone(
    xs: list[float], digits: int, form: str | None, width: int
) -> None:
    """Rows of a real array are built flat and nested once: each element and text is what
    a get of that number alone answers, in the array's nesting."""
    rows = [xs[i : i + width] for i in range(0, len(xs) - len(xs) % width, width)] or [xs[:1]]
    array = parse_value({"array": rows})
    assert not isinstance(array, Failure)
    shown = render_value(array, form, digits, None)
    assert not isinstance(shown, Failure)
    assert shown["text"] == [[_alone(x, form, digits)[0] for x in row] for row in rows]
    assert shown["array"] == [[_alone(x, form, digits)[1] for x in row] for row in rows]


def _alone(element: object, form: str | None, digits: int) -> tuple[object, object]:
    """The text and the number a get of this one element answers."""
    value = parse_value(element if isinstance(element, dict) else {"num": element})  # type: ignore[arg-type]
    assert not isinstance(value, Failure)
    one = render_value(value, form, digits, None)
    assert not isinstance(one, Failure)
    number = {k: v for k, v in one.items() if k not in ("text", "dim")}
    return one["text"], number.get("num", number)


def test_flat_items_nest_as_numpy_nests_them() -> None:
    flat = [f"t{i}" for i in range(24)]
    for shape in [(24,), (4, 6), (2, 3, 4), (1, 24), (24, 1)]:
        assert shaped(flat, shape) == np.array(flat, dtype=object).reshape(shape).tolist()
    pairs = [{"re": i, "im": 0} for i in range(6)]
    assert shaped(pairs, (3, 2)) == [pairs[0:2], pairs[2:4], pairs[4:6]]


@given(
    st.lists(st.tuples(_NUMBERS, _NUMBERS), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=17),
    st.sampled_from([None, "rect"]),
    st.booleans(),
)
@PROPERTY
def test_a_complex_array_reads_as_its_elements_alone(
    pairs: list[tuple[float, float]], digits: int, form: str | None, with_a_real: bool
) -> None:
    """Both parts are rounded and spelled in one C pass (the imaginary sign by C's `+`
    flag): each element's parts and text are a get of that complex number alone, -0.0,
    ties, subnormals and a real beside the complexes included."""
    elements: list[object] = [{"re": x, "im": y} for x, y in pairs]
    if with_a_real:
        elements.append(pairs[0][0])
    array = parse_value({"array": elements})
    assert not isinstance(array, Failure)
    shown = render_value(array, form, digits, None)
    assert not isinstance(shown, Failure)
    alone = [_alone(element, form, digits) for element in elements]
    assert shown["text"] == [text for text, _ in alone]
    assert shown["array"] == [number for _, number in alone]


@given(
    st.lists(st.floats(width=64), min_size=1, max_size=60),
    st.integers(min_value=1, max_value=15),
)
@PROPERTY
def test_c_text_is_read_back_as_each_number_alone(xs: list[float], digits: int) -> None:
    """numpy's one-call reading of C's text gives float() of each spelling, inf and nan
    included; a text it cannot read to the end is read number by number."""
    text = (f"%#.{digits}g\t" * len(xs)) % tuple(xs)
    got = rendering._read_back(text, len(xs))
    assert np.array_equal(got, np.array([float(t) for t in text.split()]), equal_nan=True)
    assert rendering._read_back("1_5 2.5", 2).tolist() == [15.0, 2.5]
