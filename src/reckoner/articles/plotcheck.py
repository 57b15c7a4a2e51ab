"""The one shape of plot a LaTeX body may draw (issue 23). No I/O here.

pgfplots can read a file (``\\addplot table {file}``, ``xticklabels from table``), run a
program (``gnuplot``) or run code held in a key (``/.code``); the command allow-list cannot
see any of that, since it lives in key-value options and keywords. So a body may use
``tikzpicture`` only without options and holding axes, an ``axis`` only with the keys
listed here, and ``\\addplot`` only as ``\\addplot[keys] coordinates {...}`` with its points
inline: a picture of numbers, nothing more.
"""

from __future__ import annotations

import re

AXIS_KEYS = frozenset(
    [
        "width",
        "height",
        "xlabel",
        "ylabel",
        "title",
        "xmin",
        "xmax",
        "ymin",
        "ymax",
        "grid",
        "xmode",
        "ymode",
    ]
)
PLOT_KEYS = frozenset(["mark", "no marks", "only marks", "smooth", "thick", "thin", "very thick"])

_ADDPLOT = re.compile(r"\\addplot(?![A-Za-z])")
_ADDPLOT_SHAPE = re.compile(r"\\addplot(?:\[([^\[\]{}]*)\])?[ \t]*coordinates[ \t]*\{[^{}\\]*\}")
_AXIS = re.compile(r"\\begin[ \t]*\{axis\}")
_TIKZ = re.compile(r"\\begin[ \t]*\{tikzpicture\}[ \t]*\[")
_OPTIONS = re.compile(r"\[((?:[^\[\]{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\]")


def _line(body: str, offset: int) -> int:
    return body.count("\n", 0, offset) + 1


def _keys(options: str) -> list[str]:
    """The keys of ``a=1, b={x, y}, c``: split at commas outside braces."""
    keys, depth, start = [], 0, 0
    for index, char in enumerate(options + ","):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            part = options[start:index].strip()
            if part:
                keys.append(part.partition("=")[0].strip())
            start = index + 1
    return keys


def _bad_key(options: str, allowed: frozenset[str]) -> str | None:
    for key in _keys(options):
        if key not in allowed:
            return key
    return None


def plot_refusal(body: str) -> str | None:
    """One sentence naming the first plot the body draws in another shape, else None."""
    tikz = _TIKZ.search(body)
    if tikz:
        return (
            f"The LaTeX body gives the tikzpicture at line {_line(body, tikz.start())} options, "
            "which may run code; write \\begin{tikzpicture} with no options and put the "
            "settings on the axis."
        )
    for found in _AXIS.finditer(body):
        options = _OPTIONS.match(body, found.end())
        bad = _bad_key(options.group(1), AXIS_KEYS) if options else None
        if bad is not None:
            return (
                f"The LaTeX body's axis at line {_line(body, found.start())} uses the option "
                f"{bad!r}, which is not among those a figure may use; use only "
                f"{', '.join(sorted(AXIS_KEYS))}."
            )
    for found in _ADDPLOT.finditer(body):
        shape = _ADDPLOT_SHAPE.match(body, found.start())
        line = _line(body, found.start())
        if shape is None:
            return (
                f"The LaTeX body's \\addplot at line {line} is not followed by its points "
                "inline; write \\addplot coordinates {(x,y) ...}, never a table, a file or "
                "a program."
            )
        bad = _bad_key(shape.group(1) or "", PLOT_KEYS)
        if bad is not None:
            return (
                f"The LaTeX body's \\addplot at line {line} uses the option {bad!r}, which is "
                f"not among those a plot may use; use only {', '.join(sorted(PLOT_KEYS))}."
            )
    return None
