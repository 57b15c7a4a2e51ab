"""The LaTeX side of an article: the checks on a body and the XeLaTeX shell. No I/O here.

A writer produces the body only. The host refuses a body that would restructure the
document, reach files or the shell, or leave braces or math open (manual 10), and wraps
what it accepts in its own shell: ``ctexart`` for zh-CN, ``article`` with ``fontspec`` for en.
"""

from __future__ import annotations

import re

_PACKAGES = ("amsmath", "amssymb", "booktabs", "longtable")

# Commands a body may not use: they restructure the document, read or write files, run
# programs or change how TeX reads its input.
FORBIDDEN_COMMANDS = frozenset(
    {
        "documentclass",
        "usepackage",
        "RequirePackage",
        "input",
        "include",
        "includeonly",
        "InputIfFileExists",
        "includegraphics",
        "verbatiminput",
        "lstinputlisting",
        "endinput",
        "write",
        "write18",
        "immediate",
        "openout",
        "openin",
        "closeout",
        "read",
        "readline",
        "newwrite",
        "newread",
        "ShellEscape",
        "directlua",
        "latelua",
        "special",
        "catcode",
        "csname",
        "def",
        "edef",
        "gdef",
        "xdef",
        "let",
        "makeatletter",
        "output",
        "everypar",
        "everyjob",
    }
)
_FORBIDDEN_ENVIRONMENTS = frozenset({"document", "filecontents", "filecontents*"})
_COMMAND = re.compile(r"\\([A-Za-z@]+|.)")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{([^}]*)\}")


class BodyRefusal(ValueError):
    """A LaTeX body the host will not compile; the message is one sentence naming why."""


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def check_body(body: str) -> None:
    """Refuse a body that restructures the document, reaches outside it or is unbalanced."""
    if "^^" in body:
        line = _line_of(body, body.index("^^"))
        raise BodyRefusal(
            f"The LaTeX body uses the ^^ character escape at line {line}; write the characters "
            "themselves."
        )
    depth = 0
    dollars = 0
    index = 0
    length = len(body)
    while index < length:
        char = body[index]
        if char == "\\":
            match = _COMMAND.match(body, index)
            name = match.group(1) if match else ""
            if name in FORBIDDEN_COMMANDS:
                raise BodyRefusal(
                    f"The LaTeX body uses \\{name} at line {_line_of(body, index)}; a body may "
                    "not restructure the document, load packages, reach files or run programs, "
                    "so write the body without it."
                )
            if name in ("begin", "end"):
                environment = _ENVIRONMENT.match(body, index)
                if environment and environment.group(1).strip() in _FORBIDDEN_ENVIRONMENTS:
                    raise BodyRefusal(
                        f"The LaTeX body opens or closes the {environment.group(1).strip()} "
                        f"environment at line {_line_of(body, index)}; the host supplies the "
                        "document around the body, so write the body alone."
                    )
            index = match.end() if match else index + 1
            continue
        if char == "%":
            newline = body.find("\n", index)
            index = length if newline < 0 else newline
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise BodyRefusal(
                    f"The LaTeX body closes a brace at line {_line_of(body, index)} that was "
                    "never opened; balance every { with a }."
                )
        elif char == "$":
            dollars += 1
        index += 1
    if depth:
        raise BodyRefusal(
            f"The LaTeX body leaves {depth} brace(s) open at its end; balance every {{ with a }}."
        )
    if dollars % 2:
        raise BodyRefusal(
            "The LaTeX body has an odd number of unescaped $ signs, so some math is never "
            "closed; close every $ and write a literal dollar as \\$."
        )


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
