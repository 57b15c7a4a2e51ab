"""JSON text for the pitfalls memory without importing the ``json`` package.

Importing ``json`` compiles its regular expressions, which loads ``re``: together about as
long as a bare interpreter's whole start, paid by the hook after every tool call (issue 13).
The parsing and the string escaping here are the standard library's own C code (``_json``,
the accelerator ``json`` itself calls), so the values read and the text written are exactly
``json``'s; only the plumbing around them is new. Input is UTF-8 (a BOM is skipped), as
``json.loads`` reads bytes; anything that is not one JSON value raises ``ValueError``.
"""

from __future__ import annotations

from _json import encode_basestring, encode_basestring_ascii, make_scanner

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Defaults:
    """``json.loads``'s settings, in the form its C scanner reads them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


# The scanner reads those attributes off any object; typeshed asks for a JSONDecoder, and a
# cast would import typing, which the hook's start must not pay for.
_scan_once = make_scanner(_Defaults())  # type: ignore[arg-type]  # reads only these attributes


def loads(data: bytes | str) -> Any:
    """The one JSON value in ``data``, as ``json.loads`` reads it."""
    if isinstance(data, bytes):
        # Not the utf-8-sig codec: looking it up costs the hook an import.
        text = data.decode("utf-8", "surrogatepass")
        text = text[1:] if text.startswith("\ufeff") else text
    else:
        text = data
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan_once(text, start)
    except StopIteration as missing:  # no value where one must be, as json says it
        raise ValueError(f"expecting a JSON value at character {missing.value}") from None
    except SystemError:
        # Python 3.11's scanner can raise its own error only once json.decoder is loaded;
        # a malformed text is rare enough to load it then, and scan again for the message.
        import json.decoder  # noqa: F401

        value, end = _scan_once(text, start)
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value


def _number(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _encode(value: Any, out: Callable[[str], object], quote: Callable[[str], str]) -> None:
    if isinstance(value, str):
        out(quote(value))
    elif value is None:
        out("null")
    elif value is True:
        out("true")
    elif value is False:
        out("false")
    elif isinstance(value, int):
        out(int.__repr__(value))
    elif isinstance(value, float):
        out(_number(value))
    elif isinstance(value, dict):
        out("{")
        for i, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            out(f",{quote(key)}:" if i else f"{quote(key)}:")
            _encode(item, out, quote)
        out("}")
    elif isinstance(value, list | tuple):
        out("[")
        for i, item in enumerate(value):
            if i:
                out(",")
            _encode(item, out, quote)
        out("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value: Any, *, ascii_only: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))`` for strings,
    numbers, booleans, None, lists, tuples and dicts with string keys."""
    parts: list[str] = []
    _encode(value, parts.append, encode_basestring_ascii if ascii_only else encode_basestring)
    return "".join(parts)
