"""A value is written with every whole double as an integer, however its text looks: the
writer serialises first and walks the value only when the text shows ".0" before a
delimiter or at its end (wire._shows_whole_float), and that check may never miss one.
Large readings (a get with digits of a million elements) hold millions of ".0" in their
quoted texts, where only the three endings count."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import orjson
from hypothesis import given
from hypothesis import strategies as st

from reckoner import wire

_TEXT = st.text(alphabet=".0,]}\n1e-", max_size=12)
# Below 1e16, where orjson spells a whole double with ".0" (from 1e16 on it writes "1e16",
# which reads back as the same double either way).
_LEAF = st.one_of(
    st.floats(min_value=-1e16, max_value=1e16, exclude_min=True, exclude_max=True),
    st.sampled_from([0.0, -0.0, 1.0, 10.0, 2.5, 1e15]),
    st.integers(-5, 5),
    _TEXT,
)
_VALUES = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)
# The rule the scan stands for: ".0" followed by a delimiter, or at the end (before at most
# one final newline).
_WHOLE_FLOAT_TEXT = re.compile(rb"\.0(?:[,\]}]|$)")


_PIECES = st.binary(max_size=16).map(
    lambda b: b.translate(bytes(b".0,]}\n1a"[i % 8] for i in range(256)))
)


@given(_PIECES, st.integers(0, 3), _PIECES)
def test_the_scan_sees_exactly_the_texts_that_show_a_whole_double(
    head: bytes, pad: int, tail: bytes
) -> None:
    """Short texts take the regular expression; long ones (a ".0" at an even or an odd
    byte, amid thousands of ".00" as a reading's texts hold them) the numpy scan."""
    for text in (head + tail, head + b"x" * pad + b'".00"' * 1000 + tail):
        assert wire._shows_whole_float(text) == (_WHOLE_FLOAT_TEXT.search(text) is not None)


@given(_VALUES)
def test_every_whole_double_is_written_as_an_integer(value: Any) -> None:
    for written in (value, [["x.00", value]] * 800):  # short, and past the numpy scan's start
        want = orjson.dumps(wire._plain(written))
        assert wire.dumps(written) == want
        assert wire.dumps_line(written) == want + b"\n"


@given(
    st.lists(st.integers(-(2**62), 2**62).map(float), min_size=1, max_size=60),
    st.sampled_from([1, 2, 3]),
)
def test_an_array_of_whole_doubles_is_written_as_its_integers(
    values: list[float], columns: int
) -> None:
    """Every element whole (a sum of whole arrays, `@pairs+@pairs`): the integers come
    straight from numpy, the text the stored form's list of ints writes, in any shape."""
    rows = len(values) // columns or 1
    array = np.array(values[: rows * columns] or values[:1], dtype=np.float64).reshape(rows, -1)
    for shaped in (array, array.ravel()):
        assert wire.dumps(shaped) == orjson.dumps(wire._plain(shaped.tolist()))
