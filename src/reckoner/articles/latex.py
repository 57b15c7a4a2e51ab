"""The LaTeX side of an article: the checks on a body and the XeLaTeX shell. No I/O here.

A writer produces the body only. The host reads the body as TeX would and refuses any
command or environment outside the allow-list (``texwords``), any control character or
``^^`` escape, and braces, math or environments left open (docs/guide/articles.md); it wraps what it
accepts in its own shell: ``ctexart`` for zh-CN, ``article`` with ``fontspec`` for en.
"""

from __future__ import annotations

import re
import unicodedata

from reckoner.articles.escape import CONTROL
from reckoner.articles.plotcheck import plot_refusal
from reckoner.articles.texwords import (
    ALLOWED_COMMANDS,
    ALLOWED_ENVIRONMENTS,
    ALLOWED_SUMMARY,
    ALLOWED_SYMBOLS,
)

_PACKAGES = ("amsmath", "amssymb", "booktabs", "longtable", "pgfplots")

# What the scan stops at, as TeX reads the body: a control word (a backslash and a run of
# letters; every non-ASCII character is taken here and cut to TeX's letters below), a
# control symbol (a backslash and any one character, or none at the end), a comment to its
# line's end, a brace or a dollar. Nothing the allow-list admits changes catcodes, so this
# is how TeX itself splits the body.
_TOKEN = re.compile(r"\\([A-Za-z\x80-\U0010ffff]+)|\\(.?)|%[^\n]*|([{}$])", re.DOTALL)
_WORD, _SYMBOL, _SIGN = 1, 2, 3
_ENVIRONMENT_NAME = re.compile(r"[ \t]*\n?[ \t]*\{([^{}\\%\s]+)\}")


class BodyRefusal(ValueError):
    """A LaTeX body the host will not compile; the message is one sentence naming why."""


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# The Unicode categories XeLaTeX reads as letters (catcode 11): letters and combining marks
# (TeX Live's load-unicode-data.tex); unassigned ones too, to err on the long side.
_TEX_LETTER_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Cn"})


def _is_tex_letter(char: str) -> bool:
    if char.isascii():
        return char.isalpha()
    return unicodedata.category(char) in _TEX_LETTER_CATEGORIES


def _control_name(body: str, start: int, end: int) -> tuple[str, int]:
    """The name of the control sequence the scan found at ``start`` (without its backslash)
    and where it ends, cut where TeX ends it."""
    name = body[start + 1 : end]
    if name.isascii():
        return name, end
    length = 0
    while length < len(name) and _is_tex_letter(name[length]):
        length += 1
    if length == 0:
        return name[0], start + 2  # a backslash and a non-letter: a control symbol
    return name[:length], start + 1 + length


def _shown(name: str) -> str:
    if name in ("", "\n", "\t", " "):
        return {"": "a backslash at the very end", "\n": "a backslash at a line end"}.get(
            name, "an escaped space"
        )
    return "\\" + name


def _refuse_command(body: str, name: str, offset: int) -> BodyRefusal:
    return BodyRefusal(
        f"The LaTeX body uses {_shown(name)} at line {_line_of(body, offset)}, which is not "
        f"among the commands an article may use; use only {ALLOWED_SUMMARY}."
    )


def _refuse_characters(body: str) -> None:
    control = CONTROL.search(body)
    if control:
        raise BodyRefusal(
            f"The LaTeX body contains the control character U+{ord(control.group()):04X} at "
            f"line {_line_of(body, control.start())}; write the text without control characters."
        )
    if "^^" in body:
        line = _line_of(body, body.index("^^"))
        raise BodyRefusal(
            f"The LaTeX body uses the ^^ character escape at line {line}; write the characters "
            "themselves."
        )


class _Scan:
    """One body's check: the environments open, and the refusals of what the scan met."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.environments: list[tuple[str, int]] = []

    def environment(self, command: str, offset: int, end: int) -> None:
        """Check ``\\begin{name}`` or ``\\end{name}`` at ``offset`` (its braces are counted
        as the scan meets them)."""
        body = self.body
        line = _line_of(body, offset)
        found = _ENVIRONMENT_NAME.match(body, end)
        if found is None:
            raise BodyRefusal(
                f"The LaTeX body's \\{command} at line {line} is not followed by an "
                f"environment name in braces; write \\{command}{{itemize}} and the like."
            )
        name = found.group(1)
        if name not in ALLOWED_ENVIRONMENTS:
            raise BodyRefusal(
                f"The LaTeX body opens or closes the {name} environment at line {line}, which "
                f"is not among the environments an article may use; use only {ALLOWED_SUMMARY}."
            )
        if command == "begin":
            self.environments.append((name, line))
        elif not self.environments or self.environments[-1][0] != name:
            open_one = self.environments[-1][0] if self.environments else None
            raise BodyRefusal(
                f"The LaTeX body closes the {name} environment at line {line} "
                + (f"while {open_one} is the one open" if open_one else "that was never opened")
                + "; close environments in the order they were opened."
            )
        else:
            self.environments.pop()

    def refuse_unopened_brace(self, offset: int) -> None:
        raise BodyRefusal(
            f"The LaTeX body closes a brace at line {_line_of(self.body, offset)} that was "
            "never opened; balance every { with a }."
        )

    def finish(self, depth: int, dollars: int) -> None:
        """Refuse braces, math or environments the body leaves open at its end."""
        if depth:
            raise BodyRefusal(
                f"The LaTeX body leaves {depth} brace(s) open at its end; balance every "
                "{ with a }."
            )
        if dollars % 2:
            raise BodyRefusal(
                "The LaTeX body has an odd number of unescaped $ signs, so some math is never "
                "closed; close every $ and write a literal dollar as \\$."
            )
        if self.environments:
            name, line = self.environments[-1]
            raise BodyRefusal(
                f"The LaTeX body leaves the {name} environment opened at line {line} open at "
                f"its end; close it with \\end{{{name}}}."
            )


def check_body(body: str) -> None:
    """Refuse a body that uses anything but the allow-list (``texwords``), or leaves braces,
    math or environments open; the refusal names the command and the line."""
    _refuse_characters(body)
    scan = _Scan(body)
    depth = dollars = 0
    # A long article is tens of thousands of tokens: the common ones (an allowed ASCII
    # command, a brace, a dollar) are settled in this loop, the rest in calls.
    for token in _TOKEN.finditer(body):
        kind = token.lastindex
        if kind == _SIGN:
            char = token.group(_SIGN)
            if char == "{":
                depth += 1
            elif char == "$":
                dollars += 1
            else:
                depth -= 1
                if depth < 0:
                    scan.refuse_unopened_brace(token.start())
        elif kind == _WORD:
            word, end = token.group(_WORD), token.end()
            if word not in ALLOWED_COMMANDS:
                word, end = _cut_word(body, token.start(), end)
            if word == "begin" or word == "end":
                scan.environment(word, token.start(), end)
        elif kind == _SYMBOL and token.group(_SYMBOL) not in ALLOWED_SYMBOLS:
            raise _refuse_command(body, token.group(_SYMBOL), token.start())
    scan.finish(depth, dollars)
    if "addplot" in body or "{axis}" in body or "{tikzpicture}" in body:
        refusal = plot_refusal(body)
        if refusal is not None:
            raise BodyRefusal(refusal)


def _cut_word(body: str, start: int, end: int) -> tuple[str, int]:
    """A control word the scan took that is not allowed as it stands, cut where TeX cuts
    it (the scan takes every non-ASCII character): its name and end when that is allowed."""
    name, end = _control_name(body, start, end)
    is_word = len(name) > 1 or _is_tex_letter(name)
    if name not in (ALLOWED_COMMANDS if is_word else ALLOWED_SYMBOLS):
        raise _refuse_command(body, name, start)
    return name, end


def shell(body: str, language: str) -> str:
    """The whole ``.tex`` file: the XeLaTeX preamble for ``language`` around ``body``."""
    if language == "zh-CN":
        lines = [r"\documentclass[11pt,a4paper]{ctexart}"]
    else:
        lines = [r"\documentclass[11pt,a4paper]{article}", r"\usepackage{fontspec}"]
    lines.extend(f"\\usepackage{{{name}}}" for name in _PACKAGES)
    lines.extend(
        [
            r"\usepackage[margin=25mm]{geometry}",
            # Figures of sweeps (issue 23), drawn as this TeX Live's pgfplots draws them.
            r"\pgfplotsset{compat=1.18}",
            # Every display is numbered, (1), (2), ..., so a step can be cited (issue 23):
            # \[ ... \] (what writers emit) becomes amsmath's equation environment.
            r"\DeclareRobustCommand{\[}{\begin{equation}}",
            r"\DeclareRobustCommand{\]}{\end{equation}}",
            r"\setlength{\parindent}{0pt}",
            r"\setlength{\parskip}{0.6em}",
            r"\begin{document}",
            body.rstrip("\n"),
            r"\end{document}",
            "",
        ]
    )
    return "\n".join(lines)


SHELL_REQUIREMENTS = {
    "en": ("article.cls", "fontspec.sty", *(f"{name}.sty" for name in _PACKAGES), "geometry.sty"),
    "zh-CN": ("ctexart.cls", *(f"{name}.sty" for name in _PACKAGES), "geometry.sty"),
}
