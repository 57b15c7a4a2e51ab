"""Figures for sweeps (issue 23): from a step's facts to a figure, an SVG and pgfplots. No I/O.

A sweep is what the panel plots (``plot.js`` with ``realSeries``): a step whose result is a
flat array of at least two finite reals. Its horizontal axis is, in this order, an array the
step read with as many elements (the sweep's index given as an array, ``@L`` for ``T(L)``),
the bound variable of a ``$seq`` whose lower bound is an integer literal, or the element's
position from 0 (what the panel shows). Axis labels name the quantity and its unit,
``L / m`` (ISO 80000-1's quantity over unit). A figure shows at most ``MAX_POINTS`` points,
evenly taken with the first and the last, so a million-element array stays a small picture.

Markdown gets the SVG inline (one file, the article stays self-contained; VS Code, Jupyter,
pandoc, GitLab and Obsidian show it; GitHub's sanitiser drops inline SVG). LaTeX gets a
pgfplots axis with its coordinates inline (never a table file). The SVG has no script, no
style sheet and no link, every text escaped, and the same facts give the same bytes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape as xml_escape

from reckoner.articles.escape import without_controls
from reckoner.articles.fact_model import ArrayValue, Dim, Facts, Step, Value
from reckoner.articles.markup import Markup
from reckoner.articles.mathtex import identifier
from reckoner.units.spelling import spell_vector

MAX_POINTS = 500
"""The most points a figure draws; a longer sweep is thinned evenly, ends kept."""

_AXIS_HEIGHT = "height=0.5\\linewidth"  # the plot's one number that is no fact

# What XML 1.0 cannot hold at all, even escaped: surrogates and the two non-characters.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")

_SEQ = re.compile(r"^\s*\$seq_\{\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(-?\d+)\s*\}")

_LABELS = {"en": {"index": "index", "against": "{y} against {x}"}}
_LABELS["zh-CN"] = {"index": "序号", "against": "{y} 随 {x} 的变化"}


@dataclass(frozen=True, slots=True)
class Axis:
    """One axis: the quantity's name (a slot, a bound variable, or None for the position),
    its unit vector and the values drawn along it."""

    name: str | None
    dim: Dim
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Figure:
    """A sweep as it is drawn: the step's target against its index."""

    x: Axis
    y: Axis


def _thinned(count: int) -> list[int]:
    """At most MAX_POINTS positions out of ``count``, evenly spread, first and last kept."""
    if count <= MAX_POINTS:
        return list(range(count))
    last = count - 1
    return sorted({round(i * last / (MAX_POINTS - 1)) for i in range(MAX_POINTS)})


def sweep_figure(step: Step, series: Callable[[Value], tuple[float, ...] | None]) -> Figure | None:
    """The figure of ``step`` when its result is a sweep (the panel's rule), else None."""
    ys = series(step.result)
    if ys is None:
        return None
    assert isinstance(step.result, ArrayValue)  # series gives reals only for an array
    count = len(ys)
    xs: tuple[float, ...] | None = None
    x_name: str | None = None
    x_dim: Dim = (0, 0, 0, 0, 0, 0, 0)
    for name, value in step.reads:
        read = series(value)
        if read is not None and len(read) == count and isinstance(value, ArrayValue):
            xs, x_name, x_dim = read, name, value.dim
            break
    if xs is None:
        bound = _SEQ.match(step.formula)
        start = int(bound.group(2)) if bound else 0
        x_name = bound.group(1) if bound else None
        xs = tuple(float(start + i) for i in range(count))
    keep = _thinned(count)
    return Figure(
        x=Axis(x_name, x_dim, tuple(xs[i] for i in keep)),
        y=Axis(step.target, step.result.dim, tuple(ys[i] for i in keep)),
    )


# -- labels ------------------------------------------------------------------------------


def unit_text(dim: Dim) -> str:
    """A unit as plain text, spelled from the one table the articles, the panel and `show`
    use (``m``, ``W/(m·K)``); a pure number has none."""
    return spell_vector(dim) if any(dim) else ""


def axis_text(axis: Axis, language: str) -> str:
    """An axis label as plain text: ``L / m``, ``k``, ``index``."""
    name = axis.name if axis.name is not None else _LABELS[language]["index"]
    unit = unit_text(axis.dim)
    return f"{name} / {unit}" if unit else name


def axis_tex(axis: Axis, language: str, markup: Markup) -> str:
    """An axis label as TeX text: ``$L$ / $\textnormal{m}$`` (the unit as the article
    spells it)."""
    if axis.name is None:
        name = markup.text(_LABELS[language]["index"])
    else:
        name = f"${identifier(axis.name)}$"
    # In math: the article's unit spelling may carry a power (\textnormal{s}^{-1}).
    unit = f"${markup.unit(axis.dim)}$" if any(axis.dim) else ""
    return f"{name} / {unit}" if unit else name


# -- numbers -----------------------------------------------------------------------------


def _coordinate(x: float) -> str:
    """A coordinate as both formats write it: six significant figures, the same every run."""
    text = f"{x:.6g}"
    return "0" if text == "-0" else text


def _nice_step(span: float) -> float:
    """A tick spacing of 1, 2 or 5 times a power of ten giving four to ten ticks."""
    raw = span / 5
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def ticks(low: float, high: float) -> tuple[float, float, list[float]]:
    """The axis range and its tick values: a flat series gets one unit either side."""
    if low == high:
        low, high = low - 1, high + 1
    step = _nice_step(high - low)
    first = math.ceil(low / step - 1e-9)
    values = []
    index = first
    while index * step <= high + step * 1e-9:
        values.append(index * step)
        index += 1
    return low, high, values


@dataclass(frozen=True, slots=True)
class _Range:
    """An axis's range in units of a power of ten (``scale``), so neither the span of two
    doubles near the largest one nor a pixel's arithmetic can overflow, and ticks at 1, 2
    or 5 of those units are round numbers of the axis too."""

    scale: float
    low: float
    high: float
    ticks: list[float]

    @classmethod
    def of(cls, values: tuple[float, ...]) -> _Range:
        largest = max(abs(min(values)), abs(max(values)))
        exponent = math.floor(math.log10(largest)) if largest else 0
        scale = 10.0 ** max(exponent, -300)
        low, high, marks = ticks(min(values) / scale, max(values) / scale)
        return cls(scale, low, high, marks)

    def fraction(self, value: float) -> float:
        return (value / self.scale - self.low) / (self.high - self.low)

    def label(self, tick: float) -> str:
        return _coordinate(tick * self.scale)


# -- SVG ---------------------------------------------------------------------------------

_W, _H = 480, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 16, 16, 48


def _xml_text(text: str) -> str:
    """A label as XML character data holds it: control characters and what XML cannot
    carry dropped (as prose drops them), the rest kept for ``xml_escape``."""
    return _NOT_XML.sub("", without_controls(text))


def svg(figure: Figure, language: str) -> str:
    """The figure as a standalone SVG element: viewBox, axes, ticks, labels and the line."""
    x_range, y_range = _Range.of(figure.x.values), _Range.of(figure.y.values)
    width, height = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def px(x: float) -> str:
        return f"{_LEFT + x_range.fraction(x) * width:.1f}"

    def py(y: float) -> str:
        return f"{_TOP + height - y_range.fraction(y) * height:.1f}"

    x_label, y_label = axis_text(figure.x, language), axis_text(figure.y, language)
    title = _LABELS[language]["against"].format(y=y_label, x=x_label)
    x_label, y_label, title = (_xml_text(text) for text in (x_label, y_label, title))
    quoted = xml_escape(title, {'"': "&quot;"})
    bottom, left = _TOP + height, _LEFT
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" '
        f'height="{_H}" role="img" aria-label="{quoted}" '
        'font-family="sans-serif" font-size="12">',
        f"<title>{xml_escape(title)}</title>",
        f'<rect x="0" y="0" width="{_W}" height="{_H}" fill="white"/>',
        f'<path d="M{left} {_TOP}V{bottom}H{left + width}" fill="none" stroke="black"/>',
    ]
    for value in x_range.ticks:
        at = f"{_LEFT + (value - x_range.low) / (x_range.high - x_range.low) * width:.1f}"
        lines.append(f'<path d="M{at} {bottom}v5" stroke="black"/>')
        lines.append(
            f'<text x="{at}" y="{bottom + 18}" text-anchor="middle">{x_range.label(value)}</text>'
        )
    for value in y_range.ticks:
        fraction = (value - y_range.low) / (y_range.high - y_range.low)
        at = f"{_TOP + height - fraction * height:.1f}"
        lines.append(f'<path d="M{left} {at}h-5" stroke="black"/>')
        lines.append(
            f'<text x="{left - 8}" y="{at}" text-anchor="end" dominant-baseline="middle">'
            f"{y_range.label(value)}</text>"
        )
    points = " ".join(
        f"{px(x)},{py(y)}" for x, y in zip(figure.x.values, figure.y.values, strict=True)
    )
    lines.append(f'<polyline points="{points}" fill="none" stroke="#1f5fa8" stroke-width="1.5"/>')
    if len(figure.y.values) <= 24:
        lines.extend(
            f'<circle cx="{px(x)}" cy="{py(y)}" r="2.5" fill="#1f5fa8"/>'
            for x, y in zip(figure.x.values, figure.y.values, strict=True)
        )
    lines.append(
        f'<text x="{left + width / 2:.1f}" y="{_H - 8}" text-anchor="middle">'
        f"{xml_escape(x_label)}</text>"
    )
    middle = f"{_TOP + height / 2:.1f}"
    lines.append(
        f'<text x="16" y="{middle}" text-anchor="middle" transform="rotate(-90 16 {middle})">'
        f"{xml_escape(y_label)}</text>"
    )
    lines.append("</svg>")
    return "\n".join(lines)


# -- pgfplots ----------------------------------------------------------------------------


def _points(figure: Figure) -> str:
    return " ".join(
        # A space after the comma: "(10,100)" would read as ten thousand one hundred.
        f"({_coordinate(x)}, {_coordinate(y)})"
        for x, y in zip(figure.x.values, figure.y.values, strict=True)
    )


def pgfplots(figure: Figure, language: str, markup: Markup) -> str:
    """The figure as a centred pgfplots axis, its coordinates inline."""
    points = _points(figure)
    marks = "mark=*" if len(figure.y.values) <= 24 else "no marks"
    return "\n".join(
        [
            r"\begin{center}",
            r"\begin{tikzpicture}",
            f"\\begin{{axis}}[width=\\linewidth, {_AXIS_HEIGHT}, "
            f"xlabel={{{axis_tex(figure.x, language, markup)}}}, "
            f"ylabel={{{axis_tex(figure.y, language, markup)}}}]",
            f"\\addplot[{marks}] coordinates {{{points}}};",
            r"\end{axis}",
            r"\end{tikzpicture}",
            r"\end{center}",
        ]
    )


def figure_blocks(facts: Facts, markup: Markup, language: str) -> Callable[[Step], list[str]]:
    """What the template writes after a step: its figure when it is a sweep, else nothing."""
    series = facts.series

    def blocks(step: Step) -> list[str]:
        if type(step.result) is not ArrayValue:
            return []
        figure = sweep_figure(step, series)
        if figure is None:
            return []
        if markup.format == "tex":
            return [pgfplots(figure, language, markup)]
        return [svg(figure, language)]

    return blocks


# -- the audit's view --------------------------------------------------------------------


def _spaces(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def without_figures(text: str, facts: Facts) -> str:
    """``text`` with the figures of ``facts``' sweeps blanked (same length, same lines), for
    the audit: an SVG's geometry and ticks and a plot's coordinates are a picture of a
    step's result, which the article shows as numbers beside it. Only a figure drawn here
    from the record is blanked, byte for byte: an SVG or a plot a model wrote itself is
    audited like the rest of its text."""
    has_svg, has_plot = "<svg" in text, "\\addplot" in text
    if not (has_svg or has_plot):
        return text
    series = facts.series
    for step in facts.steps:
        figure = sweep_figure(step, series) if type(step.result) is ArrayValue else None
        if figure is None:
            continue
        if has_svg:
            for language in _LABELS:
                drawn = svg(figure, language)
                text = text.replace(drawn, _spaces(drawn))
        if has_plot:
            drawn = f"coordinates {{{_points(figure)}}}"
            text = text.replace(drawn, _spaces(drawn))
    if has_plot:
        text = text.replace(_AXIS_HEIGHT, _spaces(_AXIS_HEIGHT))
    return text
