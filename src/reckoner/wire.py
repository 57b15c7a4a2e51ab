"""The JSON wire form shared by record files, receipts and HTTP bodies.

One decision lives here: how a value is spelled as JSON text. Output is compact, and a
double that holds a whole number is written without a fractional part (``4700``, not
``4700.0``), so files read the same as the reference implementation's, which writes numbers
the way JavaScript does. Two departures keep every value the engine accepts writable and
read back bit for bit (issue 8): ``-0.0`` keeps its sign, and a value nested deeper than
orjson writes (255 levels) is written by the standard library in the same spelling.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import orjson

# JavaScript prints a whole double below 1e21 as digits, but orjson writes integers only
# within 64 bits; a larger whole double stays a double (the same number when read back).
_LARGEST_JSON_INT = 2.0**63


_NEEDS_WALK = (float, dict, list, tuple)


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        if value.is_integer() and -_LARGEST_JSON_INT < value < _LARGEST_JSON_INT:
            # -0.0 stays a double ("-0.0"): as "0" it would read back as +0.0.
            return int(value) if value or math.copysign(1.0, value) > 0 else value
        return value
    # Leaves that need nothing (str, int, bool, None) are passed without a call each.
    if kind is dict:
        return {k: _plain(v) if type(v) in _NEEDS_WALK else v for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_plain(v) if type(v) in _NEEDS_WALK else v for v in value]
    return value


# orjson spells a whole double with a trailing ".0". Most data (rows built from the core's
# stored forms) has none, so serialise first and walk the value only when the text shows
# ".0" before a delimiter; the walk is exact even for such text in strings. The pattern
# starts with a literal so the regex engine scans for it at C speed.
_WHOLE_FLOAT_TEXT = re.compile(rb"\.0(?:[,\]}]|$)")


# Past this length the scan runs in numpy: a row carrying arrays holds hundreds of KB of
# numbers, where the regex engine's candidate checks cost milliseconds.
_LONG_TEXT = 4096
_DOT, _ZERO, _COMMA, _BRACKET, _BRACE = (ord(c) for c in ".0,]}")


def _shows_whole_float(text: bytes) -> bool:
    if len(text) < _LONG_TEXT:
        return _WHOLE_FLOAT_TEXT.search(text) is not None
    if text.endswith(b".0"):
        return True
    b = np.frombuffer(text, dtype=np.uint8)
    after = b[np.flatnonzero((b[:-2] == _DOT) & (b[1:-1] == _ZERO)) + 2]
    return bool(((after == _COMMA) | (after == _BRACKET) | (after == _BRACE)).any())


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, whole doubles written as integers."""
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError as error:
        if "recursion" not in str(error).lower():
            raise
        return _dumps_deep(value)
    if not _shows_whole_float(text):
        return text
    return orjson.dumps(_plain(value))


def _dumps_deep(value: Any) -> bytes:
    """What orjson refuses only for its depth: the standard library's encoder, same spelling
    (orjson reads such text back, up to 1,024 levels)."""
    return json.dumps(
        _plain(value), ensure_ascii=False, allow_nan=False, separators=(",", ":")
    ).encode()


def preencoded(value: Any) -> Any:
    """`value` encoded once, to embed as it is in later `dumps` output (large values that
    many rows repeat). The embedded text is already in this module's spelling."""
    return orjson.Fragment(dumps(value))


def dumps_text(value: Any) -> str:
    """Compact JSON text, whole doubles written as integers."""
    return dumps(value).decode()


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse JSON text; raises ``ValueError`` (``orjson.JSONDecodeError``) on bad input."""
    return orjson.loads(data)
