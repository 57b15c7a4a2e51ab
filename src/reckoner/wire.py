r"""The JSON wire form shared by record files, receipts and HTTP bodies.

One decision lives here: how a value is spelled as JSON text. Output is compact, and a
double that holds a whole number is written without a fractional part (``4700``, not
``4700.0``), so files read the same as the reference implementation's, which writes numbers
the way JavaScript does. Two departures keep every value the engine accepts writable and
read back bit for bit (issue 8): ``-0.0`` keeps its sign, and a value nested deeper than
orjson writes (255 levels) is written by the standard library in the same spelling.

Text is any JSON string, lone UTF-16 surrogates included (``"\ud800"`` is legal JSON, and
the reference implementation writes such a character as that escape). UTF-8 cannot carry a
lone surrogate, so it is written as its ``\uXXXX`` escape and read back as the same
character. The one string JSON cannot spell is a Python string holding a high and a low
surrogate as two characters (JSON reads ``"\ud83d\ude00"`` as one character), so it is
refused with ``UnstorableText`` rather than changed.
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


class UnstorableText(ValueError):
    """A string JSON cannot spell as it is; the message is the sentence a caller shows."""


SPLIT_PAIR_SENTENCE = (
    "holds a UTF-16 surrogate pair as two separate characters, which JSON cannot keep apart "
    "from the one character they spell; send that character itself"
)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SPLIT_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")
# A line orjson refused that holds an escaped surrogate is worth a second, stdlib reading.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, whole doubles written as integers, lone surrogates escaped.

    Raises ``UnstorableText`` for a surrogate pair held as two characters.
    """
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError as error:
        # orjson refuses text UTF-8 cannot carry and values deeper than it recurses; only
        # then is the value walked, and the standard library writes it in the same spelling.
        if "recursion" not in str(error).lower() and not _holds_surrogate(value):
            raise
        return _dumps_stdlib(value)
    if not _shows_whole_float(text):
        return text
    return orjson.dumps(_plain(value))


def _holds_surrogate(value: Any) -> bool:
    kind = type(value)
    if kind is str:
        return _SURROGATE.search(value) is not None
    if kind is dict:
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if kind is list or kind is tuple:
        return any(_holds_surrogate(v) for v in value)
    return False


def _stdlib_ready(value: Any) -> Any:
    """The value as orjson would write it (whole and non-finite doubles), pairs checked."""
    kind = type(value)
    if kind is str:
        if _SPLIT_PAIR.search(value) is not None:
            raise UnstorableText(SPLIT_PAIR_SENTENCE)
        return value
    if kind is float:
        return _plain(value) if math.isfinite(value) else None
    if kind is dict:
        return {_stdlib_ready(k): _stdlib_ready(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_stdlib_ready(v) for v in value]
    return value


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _dumps_stdlib(value: Any) -> bytes:
    """What orjson refuses for its depth or for a lone surrogate, by the standard library
    (orjson reads deep text back up to 1,024 levels; escaped surrogates, see ``loads``)."""
    # Outside strings JSON text is ASCII, so every surrogate left in the text is in a string.
    text = json.dumps(
        _stdlib_ready(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return _SURROGATE.sub(_escape_surrogate, text).encode("utf-8")


def holds_split_pair(text: str) -> bool:
    """True when ``text`` holds a high and a low surrogate as two characters (unstorable)."""
    return not text.isascii() and _SPLIT_PAIR.search(text) is not None


def preencoded(value: Any) -> Any:
    """`value` encoded once, to embed as it is in later `dumps` output (large values that
    many rows repeat). The embedded text is already in this module's spelling."""
    return orjson.Fragment(dumps(value))


def dumps_text(value: Any) -> str:
    """Compact JSON text, whole doubles written as integers."""
    return dumps(value).decode()


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse JSON text; raises ``ValueError`` (``orjson.JSONDecodeError``) on bad input."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        value = loads_escaped_surrogates(data)
        if value is _UNREADABLE:
            raise
        return value


_UNREADABLE: Any = object()


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads_escaped_surrogates(data: bytes | bytearray | memoryview | str) -> Any:
    """Second reading of text orjson refused: escaped lone surrogates are read as characters.

    Answers ``_UNREADABLE`` when the text holds no such escape or is not JSON either way.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if _ESCAPED_SURROGATE.search(raw) is None:
        return _UNREADABLE
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except ValueError:
        return _UNREADABLE


def is_unreadable(value: Any) -> bool:
    """True for the answer ``loads_escaped_surrogates`` gives text it cannot read."""
    return value is _UNREADABLE
