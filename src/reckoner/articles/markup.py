r"""How facts are spelled in an article's two formats: values, units and prose. No I/O here.

Numbers are TeX math in both formats (Markdown carries it between ``$`` signs, as GitHub and
KaTeX render it), so a number reads the same in a ``.md`` and in a PDF. Units are SI symbols
from ``reckoner.units.spelling``: Unicode text after the math in Markdown, a plain space
before it (``$4.07$ kΩ``); upright text (``\textnormal``) after a thin space inside the math
in LaTeX
(``$4.07\,\textnormal{kΩ}$``); an angle's sign follows its number with no space (42.67°).
Prose is escaped for the format, never rewritten: the record's words reach the article as
written.
"""

from __future__ import annotations

import re

from reckoner.articles.escape import (
    CONTROL_CHARACTERS,
    caret_visible,
    markdown_text,
    tex_text,
    without_controls,
)
from reckoner.articles.fact_model import (
    ArrayValue,
    Cplx,
    Dim,
    Element,
    Num,
    ObjectValue,
    Scalar,
    Value,
)
from reckoner.articles.mathtex import identifier
from reckoner.articles.numbers import cut_tex
from reckoner.contract.dimensions import BASE_SYMBOLS
from reckoner.core.dimensions import first_name
from reckoner.lookup.fact import SourceLine
from reckoner.units.spelling import is_angle_sign, spell_vector, spell_written

# TeX's specials a unit's spelling may hold (a percent sign); everything else is set as
# written: XeLaTeX's text fonts have Ω, µ, °, ·, Δ, which the math fonts' \Omega would not
# keep in a PDF's text layer.
_UNIT_TEX = str.maketrans({"%": r"\%", "μ": "µ"})
_POWER = re.compile(r"[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_PLAIN_POWER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def unit_symbols_tex(spelled: str) -> str:
    r"""A unit's Unicode symbols as upright text inside math, its powers as superscripts:
    ``kΩ`` -> ``\textnormal{kΩ}``, ``kg/m³`` -> ``\textnormal{kg/m}^{3}``."""
    parts: list[str] = []
    at = 0
    for match in _POWER.finditer(spelled):
        if match.start() > at:
            parts.append(r"\textnormal{" + spelled[at : match.start()].translate(_UNIT_TEX) + "}")
        parts.append("^{" + match.group().translate(_PLAIN_POWER) + "}")
        at = match.end()
    if at < len(spelled):
        parts.append(r"\textnormal{" + spelled[at:].translate(_UNIT_TEX) + "}")
    return "".join(parts)


# A URL that can stand as a link target as it is; anything else is shown as escaped text,
# never rewritten (percent-encoding would change the address the record holds).
_LINKABLE = re.compile(r"https?://[^\s<>\\" + re.escape(CONTROL_CHARACTERS) + "]+")

# Where a typeset address may break: after each character that is no letter or digit.
_URL_BREAKS = re.compile(r"(?<=[^\w])(?=.)", re.S)

# An array longer than this shows its head and its length; the record keeps every element.
ARRAY_SHOWN = 12

FORMATS = ("md", "tex")


def unit_name(dim: Dim) -> str | None:
    """The table name of a vector (``ohm``), None for a pure number or an unnamed vector."""
    if not any(dim):
        return None
    return first_name(dim)


def unit_tex(dim: Dim) -> str:
    """An unnamed vector spelled from the base symbols: ``\\mathrm{m}^{2}\\,\\mathrm{kg}``."""
    parts = []
    for symbol, exponent in zip(BASE_SYMBOLS, dim, strict=True):
        if exponent == 1:
            parts.append(f"\\mathrm{{{symbol}}}")
        elif exponent:
            parts.append(f"\\mathrm{{{symbol}}}^{{{exponent}}}")
    return r"\,".join(parts)


def number_tex(number: Num | Cplx, imaginary: str) -> str:
    if isinstance(number, Num):
        return cut_tex(number.text)
    re_part, im_part = cut_tex(number.re), number.im
    sign = "-" if im_part.startswith("-") else "+"
    unit = f"\\,\\mathrm{{{imaginary}}}"
    if re_part == "0":
        return f"{'-' if sign == '-' else ''}{cut_tex(im_part.lstrip('-'))}{unit}"
    return f"{re_part} {sign} {cut_tex(im_part.lstrip('-'))}{unit}"


def _element_tex(element: Element, imaginary: str) -> str:
    if isinstance(element, tuple):
        shown = [_element_tex(item, imaginary) for item in element[:ARRAY_SHOWN]]
        if len(element) > ARRAY_SHOWN:
            shown.append(r"\ldots")
        return r"\left[" + ", ".join(shown) + r"\right]"
    return number_tex(element, imaginary)


class Markup:
    """One format's spelling of the pieces a writer puts together."""

    format = "md"

    def __init__(self, imaginary: str = "i") -> None:
        self.imaginary = imaginary
        self._units: dict[Dim, str] = {}
        # A value's TeX, its unit and the text after its name (``_pieces``), by the value
        # object: facts share one object per distinct stored value, and an article shows
        # most values several times (a condition and each step reading it, a result and
        # the results table). Kept with the value, so ids stay unique.
        self._pieces: dict[int, tuple[str, str, str, Value]] = {}
        # The text after a name alone, by the same key: a step's sentence looks up a tail per
        # value it names, a dict lookup where a call to ``tail`` would cost more than it.
        self.tails: dict[int, str] = {}

    # -- formatting primitives, per format ------------------------------------------------

    def math(self, tex: str) -> str:
        return f"${tex}$"

    # What opens and closes displayed math: a writer puts each relation between them.
    display_marks = ("$$\n", "\n$$")

    def text(self, prose: str) -> str:
        return markdown_text(prose)

    def paragraph(self, prose: str) -> str:
        # A record message may span lines; each becomes its own line of the paragraph.
        lines = prose.splitlines()
        if len(lines) == 1:
            return self.text(lines[0])  # the common case, without a generator
        return "  \n".join(self.text(line) for line in lines or [""])

    def heading(self, prose: str, level: int) -> str:
        return "#" * level + " " + self.text(prose)

    # How a table row's cells are put on its line.
    _row_start, _cell_gap, _row_end = "| ", " | ", " |"

    def _framed(self, header: tuple[str, ...], lines: list[str]) -> str:
        """A table: the header, then the rows' lines."""
        head = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(head + lines)

    def quote(self, prose: str) -> str:
        return "\n".join("> " + line for line in self.paragraph(prose).split("\n"))

    def bullets(self, items: list[str]) -> str:
        return "\n".join("- " + item for item in items)

    def code(self, literal: str) -> str:
        """A name shown as written (a run id, a path): a code span."""
        literal = without_controls(literal)
        fence = "`" * (_longest_run(literal, "`") + 1)
        padded = f" {literal} " if literal.startswith("`") or literal.endswith("`") else literal
        return f"{fence}{padded}{fence}"

    def code_block(self, literal: str) -> str:
        """Lines shown verbatim (a program's output): a fenced block no line can close."""
        fence = "`" * max(3, _longest_run(literal, "`") + 1)
        body = "\n".join(caret_visible(line) for line in literal.rstrip("\n").split("\n"))
        return f"{fence}text\n{body}\n{fence}"

    def link(self, url: str) -> str:
        if _LINKABLE.fullmatch(url):
            return f"[{self.text(url)}](<{url}>)"
        return self.text(url)

    def source(self, source: SourceLine) -> str:
        """One credited source: ``title, date: URL``, the URL as a link where it can be one."""
        head = ", ".join(self.text(p) for p in (source.title, source.published_at) if p)
        return f"{head}: {self.link(source.url)}" if head else self.link(source.url)

    # -- values -------------------------------------------------------------------------

    def unit(self, dim: Dim) -> str:
        """The unit of a vector as this format sets it (``spell_vector``): Ω, W/(m·K)."""
        shown = self._units.get(dim)
        if shown is None:
            shown = self._units[dim] = self.symbols(spell_vector(dim))
        return shown

    def symbols(self, spelled: str) -> str:
        """A unit's Unicode spelling as this format sets it: as text in Markdown."""
        return self.text(spelled)

    def after(self, tex: str, unit: str) -> str:
        """A number's TeX and its unit (as ``symbols`` gives it), closing the math a name
        or the number opened: ``4.07$ kΩ``, ``-43.93$°``."""
        if not unit:
            return f"{tex}$"
        return f"{tex}${unit}" if is_angle_sign(unit) else f"{tex}$ {unit}"

    def unit_cell(self, unit: str) -> str:
        return unit or "—"

    def _pieces_of(self, value: Value) -> tuple[str, str, str, Value]:
        """(its TeX, its unit as ``unit`` gives it, what follows its name in a sentence
        (``tail``), the value), made once per value. The text after a name closes the math
        the name opened: `` = 6875$ ohm``, or ``$ = (...)`` for an object (no TeX)."""
        known = self._pieces.get(id(value))
        if known is not None:
            return known
        if type(value) is Scalar and type(value.number) is Num:
            # The commonest value, a real in a unit seen before: no other test is needed.
            text = value.number.text
            tex = cut_tex(text) if "e" in text else text
            unit = self._units.get(value.dim)
            if unit is None:
                unit = self.unit(value.dim)
            tail = " = " + self.after(tex, unit)
        elif isinstance(value, ObjectValue):
            tex, unit, tail = "", "", f"$ = {self.value(value)}"
        else:
            if isinstance(value, ArrayValue):
                tex = _element_tex(value.items, self.imaginary)
            else:
                tex = number_tex(value.number, self.imaginary)
            known_unit = self._units.get(value.dim)
            unit = self.unit(value.dim) if known_unit is None else known_unit
            tail = " = " + self.after(tex, unit)
        known = self._pieces[id(value)] = (tex, unit, tail, value)
        self.tails[id(value)] = tail
        return known

    def value(self, value: Value) -> str:
        """A value in running text: ``$6875$ ohm``, an object as its fields in parentheses."""
        if isinstance(value, Scalar | ArrayValue):
            tex, unit, _, _ = self._pieces_of(value)
            return "$" + self.after(tex, unit)
        parts = [f"{self.math(_field_tex(name))} = {self.value(sub)}" for name, sub in value.fields]
        return "(" + "; ".join(parts) + ")"

    def tail(self, value: Value) -> str:
        """What follows a value's name, which opens the math, in a sentence: ``$R_{p}`` +
        `` = 6875$ ohm`` (``tails`` holds it once made)."""
        return self._pieces_of(value)[2]

    def si(self, value: Value) -> str:
        """A real's SI value and unit in running text or a cell: ``$4070$ Ω``."""
        tex, unit, _, _ = self._pieces_of(value)
        return "$" + self.after(tex, unit)

    def table(self, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
        """A table of cells already in this format."""
        start, gap, end = self._row_start, self._cell_gap, self._row_end
        return self._framed(header, [start + gap.join(row) + end for row in rows])

    def reading(self, number: str, written_unit: str) -> tuple[str, str]:
        """A number as the record read or was given it, and its unit as written, in this
        format: (``4.07``, ``kΩ``)."""
        return cut_tex(number), self.symbols(spell_written(written_unit))

    def rows(self, name: str, value: Value) -> list[tuple[str, str, str]]:
        """Table rows (quantity, value, unit); an object gives one row per field."""
        if isinstance(value, Scalar | ArrayValue):
            tex, unit, _, _ = self._pieces_of(value)
            return [(self.math(identifier(name)), self.math(tex), self.unit_cell(unit))]
        out: list[tuple[str, str, str]] = []
        for field_name, sub in value.fields:
            for quantity, shown, unit in self.rows(field_name, sub):
                out.append((self.math(identifier(name)) + "." + quantity, shown, unit))
        return out


def _longest_run(text: str, char: str) -> int:
    return max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)


def _field_tex(name: str) -> str:
    return identifier(name)


_ANGLE_TEX = frozenset(unit_symbols_tex(sign) for sign in ("°", "′", "″"))


class TexMarkup(Markup):
    """The LaTeX body's spelling (the shell around it is ``latex.py``'s)."""

    format = "tex"

    display_marks = ("\\[\n", "\n\\]")

    def text(self, prose: str) -> str:
        return tex_text(prose)

    def symbols(self, spelled: str) -> str:
        return unit_symbols_tex(spelled)

    def after(self, tex: str, unit: str) -> str:
        if not unit:
            return f"{tex}$"
        return f"{tex}{unit}$" if unit in _ANGLE_TEX else f"{tex}\\,{unit}$"

    def unit_cell(self, unit: str) -> str:
        return f"${unit}$" if unit else "—"

    def paragraph(self, prose: str) -> str:
        lines = prose.splitlines()
        if len(lines) == 1:
            return self.text(lines[0])
        if not lines:
            return ""
        # Each line of a several-line paragraph starts with an empty box, so an empty first
        # line is still a line for \\ to end and a line starting with [ or * is never read
        # as the optional argument of the \\ before it.
        return "\\\\\n".join(r"\mbox{}" + self.text(line) for line in lines)

    def heading(self, prose: str, level: int) -> str:
        command = {1: "section", 2: "subsection"}.get(level, "subsubsection")
        return f"\\{command}*{{{self.text(prose)}}}"

    _row_start, _cell_gap, _row_end = "", " & ", r" \\"

    def _framed(self, header: tuple[str, ...], lines: list[str]) -> str:
        columns = "l" * len(header)
        head = [
            f"\\begin{{longtable}}{{{columns}}}",
            r"\toprule",
            " & ".join(header) + r" \\",
            r"\midrule",
            r"\endhead",
        ]
        return "\n".join(head + lines + [r"\bottomrule", r"\end{longtable}"])

    def quote(self, prose: str) -> str:
        return "\\begin{quote}\n" + self.paragraph(prose) + "\n\\end{quote}"

    def bullets(self, items: list[str]) -> str:
        lines = [r"\begin{itemize}", *(r"\item " + item for item in items), r"\end{itemize}"]
        return "\n".join(lines)

    def link(self, url: str) -> str:
        # The address is escaped typewriter text that may break after each mark between
        # its words (/ . - ? & = and the like), as xurl breaks a \url (issue 23); \url itself
        # reads its argument verbatim, which the body check could not follow. A run of
        # letters and digits is never split, so a number in it stays one number.
        pieces = _URL_BREAKS.split(url)
        return r"\texttt{" + r"\allowbreak{}".join(self.text(piece) for piece in pieces) + "}"

    def code(self, literal: str) -> str:
        # Typewriter text that may break after a slash, so a long receipt path fits the page.
        return r"\texttt{" + self.text(literal).replace("/", r"/\allowbreak{}") + "}"

    def code_block(self, literal: str) -> str:
        """Each line escaped and set in typewriter type, its spaces kept; a line starts with an
        empty box so neither its leading spaces are dropped nor a ``[`` or ``*`` after the
        line break is read as an argument of ``\\``."""
        lines = [
            r"\mbox{}" + self.text(caret_visible(line.expandtabs(8))).replace(" ", "\\ ")
            for line in literal.rstrip("\n").split("\n")
        ]
        return "\\begin{quote}\n\\ttfamily\n" + "\\\\\n".join(lines) + "\n\\end{quote}"


def markup_for(format_name: str, imaginary: str = "i") -> Markup:
    return TexMarkup(imaginary) if format_name == "tex" else Markup(imaginary)
