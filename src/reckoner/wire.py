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

Two kinds of part are written without being walked: a float64 ``numpy`` array (orjson
writes its doubles exactly as it writes Python floats, so only an array holding a whole
double needs converting) and an ``Encoded`` value, text this module already wrote. A trace
row that carries 10,000-element arrays is then one copy of their text, not a walk.
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
# numbers, where the regex engine's candidate checks cost milliseconds (and a reading with
# digits holds a ".0" in most of its quoted texts, where substring searches stall as well).
_LONG_TEXT = 4096
_COMMA, _BRACKET, _BRACE = (ord(c) for c in ",]}")
# ".0" read as one 16-bit number, in this machine's byte order.
_DOT_ZERO = int(np.frombuffer(b".0", dtype=np.uint16)[0])


def _shows_whole_float(text: bytes) -> bool:
    if len(text) < _LONG_TEXT:
        return _WHOLE_FLOAT_TEXT.search(text) is not None  # `$` also matches before a newline
    if text.endswith((b".0", b".0\n")):
        return True
    b = np.frombuffer(text, dtype=np.uint8)
    # Every ".0" starts at an even or an odd byte: two passes over the text read as 16-bit
    # pairs find them all, at half the passes of comparing byte by byte.
    for start in (0, 1):
        pairs = b[start : start + (b.size - start) // 2 * 2].view(np.uint16)
        at = np.flatnonzero(pairs == _DOT_ZERO) * 2 + (start + 2)
        after = b[at[at < b.size]]
        if ((after == _COMMA) | (after == _BRACKET) | (after == _BRACE)).any():
            return True
    return False


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


_LINE = orjson.OPT_APPEND_NEWLINE


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, whole doubles written as integers, lone surrogates escaped.

    Raises ``UnstorableText`` for a surrogate pair held as two characters.
    """
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError as error:
        return _dumps_refused(value, error, 0)
    if not _shows_whole_float(text):
        return text
    return orjson.dumps(_plain(value))


def dumps_line(value: Any) -> bytes:
    """``dumps`` followed by a newline, written in the same buffer (a record file's line)."""
    try:
        text = orjson.dumps(value, option=_LINE)
    except orjson.JSONEncodeError as error:
        return _dumps_refused(value, error, _LINE)
    if len(text) < _LONG_TEXT:  # a trace row's usual size: the check without another call
        if _WHOLE_FLOAT_TEXT.search(text) is None:
            return text
    elif not _shows_whole_float(text):
        return text
    return orjson.dumps(_plain(value), option=_LINE)


def dumps_plain_line(value: Any) -> bytes:
    """``dumps_line`` of a value whose doubles are in the stored spelling already (every
    whole double an integer, as ``plain`` or the core's stored forms write them): the same
    bytes, without reading the text back for whole doubles."""
    try:
        # A part this module spelled (an array's text) is copied in as it is, in one pass.
        return orjson.dumps(value, default=_embedded, option=_LINE)
    except orjson.JSONEncodeError as error:
        return _dumps_refused(value, error, _LINE)


def plain(value: Any) -> Any:
    """The value with every whole double as an integer (-0.0 kept): the stored spelling."""
    return _plain(value)


class Encoded:
    """JSON text this module wrote, embedded as it is wherever it appears in a value later
    given to ``dumps`` (a large value that many rows repeat is spelled once)."""

    __slots__ = ("fragment", "text")

    def __init__(self, text: bytes) -> None:
        self.text = text
        self.fragment = orjson.Fragment(text)


def preencoded(value: Any) -> Encoded:
    """`value` spelled once, to embed in later `dumps` output."""
    return Encoded(dumps(value))


def spelled_array(array: np.ndarray[Any, Any]) -> Encoded:
    """A numpy array spelled once, to embed in later output: its text is embedded without
    being copied into a larger piece first (an eval's array result, in its row)."""
    return Encoded(_array_text(array))


def _placeholder(part: Any) -> None:
    """orjson's fallback while the skeleton is checked: a spelled part stands as null."""
    if type(part) is Encoded or isinstance(part, np.ndarray):
        return None
    raise TypeError


def _embedded(part: Any) -> Any:
    """orjson's fallback for the final text: the part's own spelling, copied as it is."""
    if type(part) is Encoded:
        return part.fragment
    if isinstance(part, np.ndarray):
        return orjson.Fragment(_array_text(part))
    raise TypeError


def _dumps_refused(value: Any, error: orjson.JSONEncodeError, option: int) -> bytes:
    """What orjson refused on a first try: a part spelled here (an array, an ``Encoded``),
    text UTF-8 cannot carry, or a value deeper than orjson recurses."""
    try:
        # The skeleton, every spelled part as null: small, so its check for whole doubles
        # never reads the parts' own text, which is already in this module's spelling.
        skeleton = orjson.dumps(value, default=_placeholder)
    except orjson.JSONEncodeError as refused:
        # Only text and depth are left; then the value is walked, and the standard library
        # writes it in the same spelling.
        if "recursion" not in str(refused).lower() and not _holds_surrogate(value):
            raise
        text = _dumps_stdlib(value)
        return text + b"\n" if option & _LINE else text
    if _shows_whole_float(skeleton):
        value = _plain(value)
    return orjson.dumps(value, default=_embedded, option=option)


def _array_text(array: np.ndarray[Any, Any]) -> bytes:
    """A numpy array in this module's spelling, a float64 one written straight from numpy
    unless it holds a whole double (written as an integer, -0.0 excepted)."""
    if array.dtype != np.float64:
        return orjson.dumps(_plain(array.tolist()))
    # Whole, or infinite; flatnonzero itself, without its Python-level wrapper.
    candidates = (np.trunc(array) == array).ravel().nonzero()[0]
    if not len(candidates):
        return orjson.dumps(np.ascontiguousarray(array), option=_NUMPY)
    if array.ndim == 1 and len(candidates) * _FEW_WHOLE <= array.size:
        # Few candidates (a sweep from 0): each is decided as _plain decides it.
        at = [i for i in candidates.tolist() if type(_plain(float(array[i]))) is int]
        if not at:
            return orjson.dumps(np.ascontiguousarray(array), option=_NUMPY)
        return _with_integers_at(array, at)
    with np.errstate(invalid="ignore"):
        whole = np.trunc(array) == array
        whole &= np.abs(array) < _LARGEST_JSON_INT
        whole &= ~((array == 0) & np.signbit(array))
    if not whole.any():
        return orjson.dumps(np.ascontiguousarray(array), option=_NUMPY)
    if whole.all():  # every double an integer (a sum of whole arrays): written from numpy
        return orjson.dumps(array.astype(np.int64), option=_NUMPY)
    # The whole doubles become integers in numpy; the list then holds ints and floats.
    mixed = array.astype(object)
    mixed[whole] = array[whole].astype(np.int64).astype(object)
    return orjson.dumps(mixed.tolist())


_NUMPY = orjson.OPT_SERIALIZE_NUMPY
# A vector with at most one whole double in this many elements (a sweep from 0) is written
# in runs from numpy, the whole ones between them as integers.
_FEW_WHOLE = 16


def _with_integers_at(array: np.ndarray[Any, Any], whole: list[int]) -> bytes:
    # The runs' texts are joined through views without their brackets: the vector's text is
    # copied once, into the result, not once per bracket and comma.
    pieces: list[bytes | memoryview] = [b"["]
    start = 0
    for i in whole:
        if i > start:
            pieces.append(memoryview(orjson.dumps(array[start:i], option=_NUMPY))[1:-1])
            pieces.append(b",")
        pieces.append(b"%d," % int(array[i]))
        start = i + 1
    if start < array.size:
        pieces.append(memoryview(orjson.dumps(array[start:], option=_NUMPY))[1:-1])
    else:
        pieces[-1] = pieces[-1][:-1]  # no comma after the last element
    pieces.append(b"]")
    return b"".join(pieces)


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
    if kind is Encoded:
        return _stdlib_ready(loads(value.text))
    if isinstance(value, np.ndarray):
        return _stdlib_ready(value.tolist())
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
