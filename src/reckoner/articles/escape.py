"""How a record's own words are made safe to write into an article. No I/O here.

Control characters (C0 but tab and newline, DEL, C1) have no visible form; in a ``.tex``
they stop XeLaTeX (DEL is an invalid character to TeX) and in a ``.md`` they reach the
terminal of whoever prints the file. Prose drops them; verbatim output shows C0 and DEL in
caret notation (ESC is ``^[``) and drops C1, which has none. Everything else is written as
the record holds it, escaped for the format.
"""

from __future__ import annotations

import re

CONTROL_CHARACTERS = "".join(
    chr(code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
)
"""The characters no article carries as they are: every C0 control but tab and newline,
DEL and every C1 control."""

CONTROL = re.compile("[" + re.escape(CONTROL_CHARACTERS) + "]")
_DROPPED: dict[int, str | None] = dict.fromkeys(map(ord, CONTROL_CHARACTERS))

_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
TEX_ESCAPE_COMMANDS = frozenset(
    name for spelled in _TEX_ESCAPES.values() for name in re.findall(r"\\([A-Za-z]+|.)", spelled)
)
"""The commands the TeX escapes are spelled with (the LaTeX allow-list must hold them)."""

_TEX_TABLE: dict[int, str | None] = {
    **{ord(char): spelled for char, spelled in _TEX_ESCAPES.items()},
    **_DROPPED,
}
_TEX_SPECIAL = re.compile("[" + re.escape("".join(_TEX_ESCAPES) + CONTROL_CHARACTERS) + "]")

_MD_ESCAPED = "\\`*_$<>[]|#"
_MD_TABLE: dict[int, str | None] = {
    **{ord(char): "\\" + char for char in _MD_ESCAPED},
    **_DROPPED,
}
_MD_SPECIAL = re.compile("[" + re.escape(_MD_ESCAPED + CONTROL_CHARACTERS) + "]")


def tex_text(prose: str) -> str:
    """Prose as LaTeX text: TeX's special characters escaped, control characters dropped."""
    # Most prose has nothing to escape, and a search for the characters that need it costs
    # far less than a translation that maps every character.
    return prose.translate(_TEX_TABLE) if _TEX_SPECIAL.search(prose) else prose


def markdown_text(prose: str) -> str:
    """Prose as Markdown text: its markup characters escaped, control characters dropped."""
    return prose.translate(_MD_TABLE) if _MD_SPECIAL.search(prose) else prose


def without_controls(text: str) -> str:
    """The text with its control characters dropped (for a verbatim literal)."""
    return text.translate(_DROPPED) if CONTROL.search(text) else text


def caret_visible(line: str) -> str:
    """A verbatim line with C0 and DEL in caret notation (ESC is ``^[``), C1 dropped."""
    if not CONTROL.search(line):
        return line
    shown = []
    for char in line:
        code = ord(char)
        if (code < 0x20 and char not in "\t\n") or code == 0x7F:
            shown.append("^" + chr(code ^ 0x40))
        elif not 0x80 <= code < 0xA0:
            shown.append(char)
    return "".join(shown)
