"""The pitfalls memory's JSON text (issue 13: the hook "starts fast", and malformed input
is refused, never fatal): exactly what the ``json`` package reads and writes, without
importing it."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner.pitfalls.lean_json import dumps, loads

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(codec=None), max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to itself."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(_VALUES)
def test_dumps_writes_what_json_dumps_writes_compact(value: Any) -> None:
    for ascii_only in (False, True):
        expected = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
        assert dumps(value, ascii_only=ascii_only) == expected


@given(_VALUES, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_loads_reads(value: Any, space: str) -> None:
    text = space + json.dumps(value, ensure_ascii=False) + space
    assert _same(loads(text), json.loads(text))
    data = text.encode("utf-8", "surrogatepass")
    assert _same(loads(data), json.loads(data))
    assert _same(loads(b"\xef\xbb\xbf" + data), json.loads(b"\xef\xbb\xbf" + data))  # a BOM


@given(st.text(max_size=40))
def test_loads_refuses_exactly_what_json_loads_refuses(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            loads(text)
    else:
        assert _same(loads(text), expected)


@pytest.mark.parametrize(
    "text", ["", "  ", "{", '{"a" 1}', "[1,]", '"\\x"', "nul", "1 2", '{"a": 1}}', "\ufeff{}"]
)
def test_malformed_text_raises_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


def test_malformed_text_raises_value_error_in_a_fresh_interpreter() -> None:
    """Python 3.11's C scanner reports its error only once json.decoder is loaded; the hook's
    process has not loaded it, and must still see a ValueError, never a SystemError."""
    code = (
        "import sys\n"
        "from reckoner.pitfalls.lean_json import loads\n"
        "assert 'json' not in sys.modules\n"
        "for text in ['{\"a\" 1}', '[1,]', '\"\\\\x\"', b'\\xff{']:\n"
        "    try:\n"
        "        loads(text)\n"
        "    except ValueError:\n"
        "        print('refused')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["refused"] * 4


def test_dumps_refuses_what_it_cannot_spell() -> None:
    with pytest.raises(TypeError):
        dumps({1: "a"})
    with pytest.raises(TypeError):
        dumps({"a": {1, 2}})
