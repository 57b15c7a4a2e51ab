"""The formula scanner: ASCII text to tokens (docs/guide/formulas.md). Positions are 0-based
offsets."""

from __future__ import annotations

import math
from enum import Enum
from typing import Final, TypeAlias

from reckoner.contract.codes import ErrorCode

from .errors import fail
from .notation import ascii_spelling, sign_spelling


class T(Enum):
    """Token kinds."""

    NUMBER = "number"
    NAME = "name"
    SLOT = "@name"
    SYMBOL = "$name"
    PLUS = "+"
    MINUS = "-"
    STAR = "*"
    SLASH = "/"
    CARET = "^"
    LPAREN = "("
    RPAREN = ")"
    LBRACKET = "["
    RBRACKET = "]"
    LBRACE = "{"
    RBRACE = "}"
    COMMA = ","
    DOT = "."
    UNDERSCORE = "_"
    EQUALS = "="
    ARROW = "->"
    END = "end of formula"


# Enum members read as module globals: `T.PLUS` costs an attribute lookup on the enum
# class each time, ten times a global's, on every token of every formula.
K_NUMBER = T.NUMBER
K_NAME = T.NAME
K_SLOT = T.SLOT
K_SYMBOL = T.SYMBOL
K_PLUS = T.PLUS
K_MINUS = T.MINUS
K_STAR = T.STAR
K_SLASH = T.SLASH
K_CARET = T.CARET
K_LPAREN = T.LPAREN
K_RPAREN = T.RPAREN
K_LBRACKET = T.LBRACKET
K_RBRACKET = T.RBRACKET
K_LBRACE = T.LBRACE
K_RBRACE = T.RBRACE
K_COMMA = T.COMMA
K_DOT = T.DOT
K_UNDERSCORE = T.UNDERSCORE
K_EQUALS = T.EQUALS
K_ARROW = T.ARROW
K_END = T.END


# A token is a plain tuple (kind, text, pos, value), read by index: a NamedTuple costs a
# second tuple and a copy per token, and scanning a 20-token formula then took 8.1 us where
# plain tuples take 4.7 us. `value` is a number token's value, 0.0 for every other kind.
Token: TypeAlias = tuple[T, str, int, float | complex]
KIND: Final = 0
TEXT: Final = 1
POS: Final = 2
VALUE: Final = 3


CHARSET_DESCRIPTION = (
    "digits, ASCII letters, $ and @ before a name, space, tab, newline, "
    "and the punctuation + - * / ^ ( ) [ ] { } , . _ = ->"
)

_PUNCTUATION = {
    "+": K_PLUS, "*": K_STAR, "/": K_SLASH, "^": K_CARET, "(": K_LPAREN, ")": K_RPAREN,
    "[": K_LBRACKET, "]": K_RBRACKET, "{": K_LBRACE, "}": K_RBRACE, ",": K_COMMA,
    ".": K_DOT, "=": K_EQUALS,
}  # fmt: skip
_WHITESPACE = frozenset(" \t\n")
_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | _DIGITS


# A program compiled for a token shape (reckoner.core.shapes) is shared by every text of
# that shape, so its positions are token indices offset by POSITION_MARK, and a message
# names them as a marker that the shape cache replaces with the position of the token in
# the text actually evaluated. Real positions never reach the mark (MAX_FORMULA_LENGTH).
POSITION_MARK = 1 << 40


def at(pos: int) -> str:
    """A position for a message, counted from 1 as an editor does."""
    if pos >= POSITION_MARK:
        return f"character \x00{pos - POSITION_MARK}\x00"
    return f"character {pos + 1}"


def tokenize(text: str, symbol_names: frozenset[str]) -> list[Token]:
    """Scan the whole formula; the first character outside the language is refused."""
    tokens: list[Token] = []
    keep = tokens.append
    punctuation = _PUNCTUATION
    name_chars = _NAME_CHARS
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        # The branches run in the order characters are common in formulas.
        kind = punctuation.get(c)
        if kind is not None:
            keep((kind, c, i, 0.0))
            i += 1
        elif c == "@" or c == "$":
            j = i + 1
            if j < n and text[j] in _NAME_START:
                j += 1
                while j < n and text[j] in name_chars:
                    j += 1
            else:
                what = "slot" if c == "@" else "notation"
                raise fail(
                    ErrorCode.INVALID_FORMULA,
                    f"'{c}' at {at(i)} must be followed by a {what} name (a letter or "
                    f"underscore, then letters, digits or underscores), as in "
                    f"{'@R' if c == '@' else '$sqrt(x)'}",
                )
            name = text[i + 1 : j]
            if c == "@":
                keep((K_SLOT, name, i, 0.0))
            else:
                # `$sum_{` scans as one name `sum_`: split the position marker back off.
                if ("$" + name) not in symbol_names and name.endswith("_"):
                    stem = "$" + name[:-1]
                    if stem in symbol_names:
                        keep((K_SYMBOL, stem, i, 0.0))
                        keep((K_UNDERSCORE, "_", j - 1, 0.0))
                        i = j
                        continue
                keep((K_SYMBOL, "$" + name, i, 0.0))
            i = j
        elif c in _WHITESPACE:
            i += 1
        elif c in _NAME_START:
            j = i + 1
            while j < n and text[j] in name_chars:
                j += 1
            keep((K_NAME, text[i:j], i, 0.0))
            i = j
        elif c in _DIGITS:
            i = _number(text, i, tokens)
        elif c == "-":
            if i + 1 < n and text[i + 1] == ">":
                keep((K_ARROW, "->", i, 0.0))
                i += 2
            else:
                keep((K_MINUS, "-", i, 0.0))
                i += 1
        else:
            raise fail(ErrorCode.INVALID_FORMULA, _charset_message(c, i))
    keep((K_END, "", n, 0.0))
    return tokens


def _charset_message(c: str, pos: int) -> str:
    code = ord(c)
    shown = repr(c) if (code < 32 or code == 127 or 0xD800 <= code <= 0xDFFF) else f"'{c}'"
    hint = ""
    if c == ">":
        hint = " ('>' exists only in the two-character '->' of a $limit subscript)"
    elif spelled_sign := sign_spelling(c):
        hint = f" (write {spelled_sign})"
    elif code > 127:
        spelled = ascii_spelling(c)
        hint = (
            f" (a formula is ASCII; write {spelled} for it)"
            if spelled
            else " (a formula is ASCII; write names and operators in ASCII)"
        )
    return (
        f"the character {shown} (U+{code:04X}) at {at(pos)} is not part of the formula "
        f"language{hint}; the charset is {CHARSET_DESCRIPTION}"
    )


def _name_end(text: str, i: int) -> int:
    n = len(text)
    if i < n and text[i] in _NAME_START:
        i += 1
        while i < n and text[i] in _NAME_CHARS:
            i += 1
    return i


def _digits_end(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _DIGITS:
        i += 1
    return i


def _number(text: str, start: int, tokens: list[Token]) -> int:
    n = len(text)
    i = _digits_end(text, start)
    if i < n and text[i] == ".":
        if i + 1 < n and text[i + 1] in _DIGITS:
            i = _digits_end(text, i + 1)
        else:
            raise fail(
                ErrorCode.INVALID_NUMBER,
                f"the number '{text[start : i + 1]}' at {at(start)} has no digit after its "
                f"decimal point; write it as '{text[start:i]}' or '{text[start:i]}.0'",
            )
    if i < n and text[i] == "e":
        j = i + 1
        if j < n and text[j] in "+-":
            j += 1
        k = _digits_end(text, j)
        if k == j:
            raise fail(
                ErrorCode.INVALID_NUMBER,
                f"the number '{text[start:j]}' at {at(start)} has an exponent 'e' with no "
                f"digits after it; write an exponent such as '{text[start:i]}e3', or "
                f"'{text[start:i]}*$e' for Euler's number",
            )
        i = k
    literal = text[start:i]
    magnitude = float(literal)
    if math.isinf(magnitude):
        raise fail(
            ErrorCode.INVALID_NUMBER,
            f"the number '{literal}' at {at(start)} is beyond the largest double "
            f"(about 1.8e308); write a smaller literal or scale the quantity",
        )
    imaginary = i < n and text[i] in "ij"
    if imaginary:
        i += 1
    if i < n and text[i] in _NAME_CHARS:
        j = _name_end(text, i) if text[i] in _NAME_START else _digits_end(text, i)
        word = text[i:j]
        if text[i] == "E" and literal.isdigit() and j > i:
            fix = f"'{literal}e{text[i + 1 : j]}' (the exponent 'e' is lowercase)"
        else:
            fix = f"'{text[start:i]}*{word}' (multiplication is written with '*')"
        raise fail(
            ErrorCode.INVALID_IDENTIFIER,
            f"the letter '{text[i]}' at {at(i)} directly follows the number "
            f"'{text[start:i]}'; a letter may follow a number only as the imaginary suffix "
            f"i or j, so write {fix}",
        )
    value: float | complex = complex(0.0, magnitude) if imaginary else magnitude
    tokens.append((K_NUMBER, text[start:i], start, value))
    return i
