"""The JSON wire form shared by record files, receipts and HTTP bodies.

One decision lives here: how a value is spelled as JSON text. Output is compact, and a
double that holds a whole number is written without a fractional part (``4700``, not
``4700.0``; ``-0`` as ``0``), so files read the same as the reference implementation's,
which writes numbers the way JavaScript does.
"""

from __future__ import annotations

from typing import Any

import orjson

# JavaScript switches to exponent notation at 1e21; below that a whole double prints as digits.
_LARGEST_PLAIN_WHOLE = 1e21


def _plain(value: Any) -> Any:
    if type(value) is float:
        if value.is_integer() and -_LARGEST_PLAIN_WHOLE < value < _LARGEST_PLAIN_WHOLE:
            return int(value)
        return value
    if type(value) is dict:
        return {key: _plain(item) for key, item in value.items()}
    if type(value) is list or type(value) is tuple:
        return [_plain(item) for item in value]
    return value


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, whole doubles written as integers."""
    return orjson.dumps(_plain(value))


def dumps_text(value: Any) -> str:
    """Compact JSON text, whole doubles written as integers."""
    return dumps(value).decode()


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse JSON text; raises ``ValueError`` (``orjson.JSONDecodeError``) on bad input."""
    return orjson.loads(data)
