"""The formula scanner: ASCII text to tokens (manual 4.1). Positions are 0-based offsets."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from .errors import ErrorCode, fail
from .notation import ascii_spelling


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


@dataclass(frozen=True, slots=True)
class Token:
    kind: T
    text: str
    pos: int
    value: float | complex = 0.0


CHARSET_DESCRIPTION = (
    "digits, ASCII letters, $ and @ before a name, space, tab, newline, "
    "and the punctuation + - * / ^ ( ) [ ] { } , . _ = ->"
)

_PUNCTUATION = {
    "+": T.PLUS, "*": T.STAR, "/": T.SLASH, "^": T.CARET, "(": T.LPAREN, ")": T.RPAREN,
    "[": T.LBRACKET, "]": T.RBRACKET, "{": T.LBRACE, "}": T.RBRACE, ",": T.COMMA,
    ".": T.DOT, "=": T.EQUALS,
}  # fmt: skip
_WHITESPACE = frozenset(" \t\n")
_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | _DIGITS


def at(pos: int) -> str:
    """A position for a message, counted from 1 as an editor does."""
    return f"character {pos + 1}"


def tokenize(text: str, symbol_names: frozenset[str]) -> list[Token]:
    """Scan the whole formula; the first character outside the language is refused."""
    tokens: list[Token] = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c in _WHITESPACE:
            i += 1
        elif c in _DIGITS:
            i = _number(text, i, tokens)
        elif c in _NAME_START:
            j = _name_end(text, i)
            tokens.append(Token(T.NAME, text[i:j], i))
            i = j
        elif c == "@" or c == "$":
            j = _name_end(text, i + 1)
            if j == i + 1:
                what = "slot" if c == "@" else "notation"
                raise fail(
                    ErrorCode.INVALID_FORMULA,
                    f"'{c}' at {at(i)} must be followed by a {what} name (a letter or "
                    f"underscore, then letters, digits or underscores), as in "
                    f"{'@R' if c == '@' else '$sqrt(x)'}",
                )
            name = text[i + 1 : j]
            if c == "@":
                tokens.append(Token(T.SLOT, name, i))
            else:
                # `$sum_{` scans as one name `sum_`: split the position marker back off.
                if ("$" + name) not in symbol_names and name.endswith("_"):
                    stem = "$" + name[:-1]
                    if stem in symbol_names:
                        tokens.append(Token(T.SYMBOL, stem, i))
                        tokens.append(Token(T.UNDERSCORE, "_", j - 1))
                        i = j
                        continue
                tokens.append(Token(T.SYMBOL, "$" + name, i))
            i = j
        elif c == "-":
            if i + 1 < n and text[i + 1] == ">":
                tokens.append(Token(T.ARROW, "->", i))
                i += 2
            else:
                tokens.append(Token(T.MINUS, "-", i))
                i += 1
        elif c in _PUNCTUATION:
            tokens.append(Token(_PUNCTUATION[c], c, i))
            i += 1
        else:
            raise fail(ErrorCode.INVALID_FORMULA, _charset_message(c, i))
    tokens.append(Token(T.END, "", n))
    return tokens


def _charset_message(c: str, pos: int) -> str:
    code = ord(c)
    shown = repr(c) if (code < 32 or code == 127 or 0xD800 <= code <= 0xDFFF) else f"'{c}'"
    hint = ""
    if c == ">":
        hint = " ('>' exists only in the two-character '->' of a $limit subscript)"
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
    tokens.append(Token(T.NUMBER, text[start:i], start, value))
    return i
