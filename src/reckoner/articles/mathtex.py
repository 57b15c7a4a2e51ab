"""Formulas as LaTeX, from the core's own parse tree: for the panel's KaTeX and for articles.

The grammar lives only in ``reckoner.core.parser``: this module parses with it and walks the
tree, so a formula is typeset exactly as the engine read it (``-2^2`` as ``-2^{2}``).
A formula that does not parse gets no LaTeX; the caller shows the ASCII text instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, TypeVar

from reckoner.articles.escape import tex_text
from reckoner.contract.limits import MAX_FORMULA_LENGTH
from reckoner.core.errors import EngineError
from reckoner.core.names import is_name
from reckoner.core.parser import parse
from reckoner.core.syntax import (
    Binary,
    Bounded,
    BoundName,
    Call,
    Chain,
    Constant,
    Field,
    Index,
    Node,
    Number,
    SlotRef,
    Unary,
)

# Binding strength, loosest first; a child weaker than its context gets parentheses.
_ADDITIVE, _MULTIPLICATIVE, _UNARY, _POWER, _ATOM = range(5)

_CONSTANTS = {
    "$pi": r"\pi",
    "$e": r"\mathrm{e}",
    "$inf": r"\infty",
    "$i": r"\mathrm{i}",
    "$j": r"\mathrm{j}",
}

# Functions written as an operator name before a parenthesized argument list.
_OPERATORS = {
    "$exp": r"\exp",
    "$ln": r"\ln",
    "$log": r"\log_{10}",
    "$sin": r"\sin",
    "$cos": r"\cos",
    "$tan": r"\tan",
    "$asin": r"\arcsin",
    "$acos": r"\arccos",
    "$atan": r"\arctan",
    "$sign": r"\operatorname{sgn}",
    "$re": r"\operatorname{Re}",
    "$im": r"\operatorname{Im}",
    "$arg": r"\arg",
    "$len": r"\operatorname{len}",
    "$atan2": r"\operatorname{atan2}",
    "$min": r"\min",
    "$max": r"\max",
}

# Functions whose notation surrounds the argument.
_ENCLOSURES = {
    "$abs": (r"\left|", r"\right|"),
    "$floor": (r"\left\lfloor ", r"\right\rfloor "),
    "$ceil": (r"\left\lceil ", r"\right\rceil "),
    "$sqrt": (r"\sqrt{", "}"),
    "$conj": (r"\overline{", "}"),
}

_GREEK = frozenset(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "pi",
        "rho",
        "sigma",
        "tau",
        "upsilon",
        "phi",
        "chi",
        "psi",
        "omega",
        "Gamma",
        "Delta",
        "Theta",
        "Lambda",
        "Xi",
        "Pi",
        "Sigma",
        "Upsilon",
        "Phi",
        "Psi",
        "Omega",
    ]
)
# Every command the tables above spell, for the LaTeX allow-list (``texwords``).
TABLE_COMMANDS = frozenset(
    [
        *_GREEK,
        *(
            name
            for spelled in [
                *_CONSTANTS.values(),
                *_OPERATORS.values(),
                *(mark for pair in _ENCLOSURES.values() for mark in pair),
            ]
            for name in re.findall(r"\\([A-Za-z]+|.)", spelled)
        ),
    ]
)
_EXPONENT = re.compile(r"^([0-9.]+)e([+-]?[0-9]+)([ij]?)$")


def _text(name: str) -> str:
    """A name's letters as LaTeX text (underscores escaped)."""
    return name.replace("_", r"\_")


@lru_cache(maxsize=65536)
def identifier(name: str) -> str:
    """A slot or bound name: ``V_in`` -> ``V_{\\mathrm{in}}``, ``R1`` -> ``R_{1}``. A name the
    engine would not accept (a damaged or hand-made record) is shown as escaped text."""
    if not is_name(name):
        return r"\mbox{" + tex_text(name) + "}"
    base, sep, sub = name.partition("_")
    if not sep:
        # Letters then digits (R1, x12): the digits are a subscript.
        letters = name.rstrip("0123456789")
        if letters != name and letters.isascii() and letters.isalpha():
            base, sub = letters, name[len(letters) :]
    if not base or (sep and not sub):
        # A leading or trailing underscore has no natural subscript reading.
        return r"\mathit{" + _text(name) + "}"
    if base in _GREEK:
        head = "\\" + base
    elif len(base) == 1:
        head = base
    else:
        head = r"\mathit{" + base + "}"  # the part before the first underscore has none
    return head + (f"_{{\\mathrm{{{_text(sub)}}}}}" if sub else "")


def _number(node: Number) -> str:
    match = _EXPONENT.match(node.text)
    if match:
        mantissa, exponent, suffix = match.groups()
        imaginary = r"\,\mathrm{" + suffix + "}" if suffix else ""
        return f"{mantissa}\\times 10^{{{int(exponent)}}}{imaginary}"
    if node.text[-1:] in ("i", "j"):
        return node.text[:-1] + r"\,\mathrm{" + node.text[-1] + "}"
    return node.text


def _strength(node: Node) -> int:
    fixed = _FIXED_STRENGTH.get(type(node))
    if fixed is not None:
        return fixed
    if isinstance(node, Chain):
        return _ADDITIVE if node.rest and node.rest[0][0] in ("+", "-") else _MULTIPLICATIVE
    if isinstance(node, Binary):
        if node.op in ("+", "-"):
            return _ADDITIVE
        if node.op in ("*", "/"):
            return _MULTIPLICATIVE
        return _POWER
    if isinstance(node, Number) and node.text[-1:] in ("i", "j"):
        return _MULTIPLICATIVE  # 2j typesets as a product
    if isinstance(node, Number) and "e" in node.text:
        return _MULTIPLICATIVE  # 2.5e-3 typesets as 2.5 x 10^-3
    if isinstance(node, Bounded) and node.notation.name in ("$sum", "$prod", "$integral", "$limit"):
        return _MULTIPLICATIVE  # a big operator reaches to the right
    return _ATOM


# The node kinds whose binding strength never depends on their content, looked up by type:
# a long formula asks for the strength of nearly every node.
_FIXED_STRENGTH = {
    SlotRef: _ATOM,
    BoundName: _ATOM,
    Constant: _ATOM,
    Call: _ATOM,
    Index: _ATOM,
    Field: _ATOM,
    Unary: _UNARY,
}


def _paren(latex: str) -> str:
    return r"\left(" + latex + r"\right)"


def _wrap(node: Node, weakest: int) -> str:
    """The node's LaTeX, in parentheses when it binds looser than ``weakest``."""
    latex = to_latex(node)
    return _paren(latex) if _strength(node) < weakest else latex


def _args(nodes: Iterable[Node]) -> str:
    return ", ".join(to_latex(node) for node in nodes)


def _call(node: Call) -> str:
    name = node.notation.name
    if name in _ENCLOSURES:
        opener, closer = _ENCLOSURES[name]
        return opener + _args(node.args) + closer
    if name == "$transpose":
        return _wrap(node.args[0], _ATOM) + r"^{\mathsf{T}}"
    if name == "$mod":
        return _wrap(node.args[0], _MULTIPLICATIVE) + r" \bmod " + _wrap(node.args[1], _UNARY)
    operator = _OPERATORS.get(name, r"\operatorname{" + _text(name[1:]) + "}")
    return operator + _paren(_args(node.args))


def _bounded(node: Bounded) -> str:
    name = node.notation.name
    variable = identifier(node.variable) if node.variable else ""
    lower = to_latex(node.lower) if node.lower is not None else ""
    upper = to_latex(node.upper) if node.upper is not None else ""
    body = node.args[0]
    if name in ("$sum", "$prod"):
        symbol = r"\sum" if name == "$sum" else r"\prod"
        return f"{symbol}_{{{variable}={lower}}}^{{{upper}}} {_wrap(body, _MULTIPLICATIVE)}"
    if name == "$seq":
        return r"\left[\, " + to_latex(body) + r" \,\right]_{" + f"{variable}={lower}}}^{{{upper}}}"
    if name == "$integral":
        differential = r"\,\mathrm{d}" + to_latex(node.args[1])
        limits = f"_{{{lower}}}^{{{upper}}}" if node.lower is not None else ""
        return r"\int" + limits + " " + _wrap(body, _MULTIPLICATIVE) + differential
    if name == "$limit":
        return r"\lim_{" + f"{variable} \\to {lower}}} " + _wrap(body, _MULTIPLICATIVE)
    if name == "$diff":
        wrt = to_latex(node.args[1])
        if len(node.args) > 2:
            order = to_latex(node.args[2])
            return (
                f"\\frac{{\\mathrm{{d}}^{{{order}}}}}{{\\mathrm{{d}}{wrt}^{{{order}}}}}"
                + _paren(to_latex(body))
            )
        return f"\\frac{{\\mathrm{{d}}}}{{\\mathrm{{d}}{wrt}}}" + _paren(to_latex(body))
    return r"\operatorname{" + _text(name[1:]) + "}" + _paren(_args(node.args))


def to_latex(node: Node) -> str:
    """LaTeX for one parse tree."""
    return _LATEX_OF[type(node)](node)


def _constant(node: Constant) -> str:
    return _CONSTANTS.get(node.notation.name, r"\mathrm{" + _text(node.notation.name[1:]) + "}")


def _index(node: Index) -> str:
    return _wrap(node.target, _ATOM) + r"\left[" + to_latex(node.index) + r"\right]"


def _field(node: Field) -> str:
    return _wrap(node.target, _ATOM) + r".\mathrm{" + _text(node.name) + "}"


def _unary(node: Unary) -> str:
    return node.op + _wrap(node.operand, _UNARY)


def _chain_node(node: Chain) -> str:
    return _chain(node.first, [(op, operand) for op, operand, _ in node.rest])


def _binary(node: Binary) -> str:
    return _chain(node.left, [(node.op, node.right)])


def _name(node: SlotRef | BoundName) -> str:
    return identifier(node.name)


# Each node kind's typesetting, looked up by type (one lookup, not a run of isinstance).
_LATEX_OF: dict[type, Callable[[Any], str]] = {
    Number: _number,
    SlotRef: _name,
    BoundName: _name,
    Constant: _constant,
    Call: _call,
    Bounded: _bounded,
    Index: _index,
    Field: _field,
    Unary: _unary,
    Chain: _chain_node,
    Binary: _binary,
}


def _chain(first: Node, rest: list[tuple[str, Node]]) -> str:
    """A left-associative run (``a + b - c``, ``a * b / c``) or a single ``^``."""
    if rest and rest[0][0] == "^":
        # ^ is right-associative: the base needs parentheses unless it is an atom.
        return f"{{{_wrap(first, _ATOM)}}}^{{{to_latex(rest[0][1])}}}"
    if rest and rest[0][0] in ("+", "-"):
        latex = to_latex(first)
        for op, operand in rest:
            # A signed operand reads badly bare (a - -b), so it is bracketed too.
            weakest = _POWER if isinstance(operand, Unary) else _MULTIPLICATIVE
            latex += f" {op} {_wrap(operand, weakest)}"
        return latex
    latex = _wrap(first, _MULTIPLICATIVE)
    for op, operand in rest:
        if op == "/":
            # Folding left: everything so far is the numerator, so no brackets are needed.
            latex = f"\\frac{{{latex}}}{{{to_latex(operand)}}}"
        else:
            latex += f" \\cdot {_wrap(operand, _POWER)}"
    return latex


# Typesetting depends on a formula's structure, not on which slots it names or which plain
# numbers it writes: to the parser a slot and a plain number are the same kind of atom, and
# both are typeset as their own text. So a shape (each slot and plain number replaced by a
# placeholder slot) is parsed once, and its LaTeX kept as a format template whose fields
# take the atoms' own LaTeX. Two levels of templates: by the formula with its slots' names
# taken out (``formula_latex``: one cheap scan for "@" and one format call, for a step
# repeated over other slots), and by the shape with its numbers taken out too (for a step
# repeated with other constants). A shape's first formula is typeset as it stands, so a
# record whose formulas never share a structure pays for no template.
_HOLE_NAME = "zzqhole"
_HOLE = "@" + _HOLE_NAME
# The atoms a shape stands for: a slot (its whole name), and a plain number that is a whole
# token: not glued to a name (R1, $atan2), a decimal point (2.5.3), an exponent (2e+5,
# 1.5e-3) or a suffix (2j), and short enough never to overflow (the lexer refuses that).
# Anything else stays in the shape as written, which is always safe: it only shares less.
_ATOMS = re.compile(
    r"@([A-Za-z_][A-Za-z0-9_]*)"
    r"|(?<![A-Za-z0-9_.])(?<![0-9.]e[+-])([0-9]{1,300}(?:\.[0-9]+)?)(?![A-Za-z0-9_.])"
)
# A placeholder as the shape's LaTeX shows it, with its number.
_HOLE_LATEX = re.compile(r"\\mathit\{" + _HOLE_NAME + r"\}_\{\\mathrm\{([0-9]+)\}\}")


@lru_cache(maxsize=8192)
def _shape_latex(shape: str) -> str | None:
    try:
        return to_latex(parse(shape))
    except EngineError:
        return None
    except RecursionError:
        return None


# How many shapes and keys each table below holds before it starts again (a long record
# has a few dozen; a server typesetting for days must not grow without bound).
_TABLE_LIMIT = 8192


_K = TypeVar("_K")
_V = TypeVar("_V")


def _keep(table: dict[_K, _V], key: _K, value: _V) -> _V:
    if len(table) >= _TABLE_LIMIT:
        table.clear()  # one C call, safe beside a thread reading the table
    table[key] = value
    return value


_UNSEEN: Any = object()
# A template is built for what comes round again: a shape from its second formula on (the
# first is typeset as it stands, so a record whose formulas never share a structure pays no
# template work), a key (below) from its second formula on (until then its shape's template
# is filled directly, so formulas that differ in their constants pay no key template).
_sighted_shapes: dict[str, None] = {}
_sighted_keys: dict[str, None] = {}
_shape_templates: dict[tuple[str, tuple[type, ...]], str | None] = {}
_key_templates: dict[str, str | None] = {}


def _shape_template(shape: str, kinds: tuple[type, ...]) -> str | None:
    """The LaTeX of a shape (its atoms all ``@zzqhole``) as a format template. ``kinds``
    tells each atom's kind in order (``str`` for a slot, ``NoneType`` for a number): the
    slots are the first fields, in order, then the numbers."""
    next_slot, next_number = 0, kinds.count(str)
    fields: list[int] = []  # the field of each atom, in the formula's order
    for kind in kinds:
        if kind is str:
            fields.append(next_slot)
            next_slot += 1
        else:
            fields.append(next_number)
            next_number += 1
    return _template_of(_shape_latex(_numbered(shape)), fields)


# A formula's slots are found first (a scan that looks only for "@", cheap), and its text
# with each slot's name taken out is the key of a template whose fields take the slots'
# identifiers: the steps of a long record name other slots far more often than they change
# their structure or their constants. The mark stands where a name was; it is no formula
# character, so the key is unambiguous.
_SLOT_NAME = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)")
_SLOT_MARK = "\x00"
# What stands for a slot's field while a template's numbers are filled in.
_FIELD_OPEN, _FIELD_CLOSE = "\x01", "\x02"


def _key_template(key: str) -> Any:
    """The template of a formula with its slots' names taken out (``key``): its shape's
    template with the numbers filled in and the slots left as fields; None when it does not
    parse; ``_UNSEEN`` for a shape met for the first time (typeset the formula itself)."""
    formula = key.replace(_SLOT_MARK, _HOLE)
    pieces = _ATOMS.split(formula)
    atoms = pieces[1::3]
    shape = _HOLE.join(pieces[::3])
    if len(shape) + len(atoms) * len(str(len(atoms))) > MAX_FORMULA_LENGTH:
        # The numbered placeholders must not carry the shape over the limit.
        return _keep(_key_templates, key, _direct_template(formula))
    kinds = tuple(map(type, atoms))
    template = _known_shape_template(shape, kinds)
    if template is _UNSEEN or template is None:
        return template if template is _UNSEEN else _keep(_key_templates, key, None)
    fields = [f"{_FIELD_OPEN}{index}{_FIELD_CLOSE}" for index in range(key.count(_SLOT_MARK))]
    filled = template.format(*fields, *filter(None, pieces[2::3]))
    escaped = filled.replace("{", "{{").replace("}", "}}")
    return _keep(_key_templates, key, escaped.replace(_FIELD_OPEN, "{").replace(_FIELD_CLOSE, "}"))


def _known_shape_template(shape: str, kinds: tuple[type, ...]) -> Any:
    """The shape's template, built on its second sighting; ``_UNSEEN`` on its first."""
    template = _shape_templates.get((shape, kinds), _UNSEEN)
    if template is _UNSEEN:
        if shape not in _sighted_shapes:
            _keep(_sighted_shapes, shape, None)
            return _UNSEEN
        template = _keep(_shape_templates, (shape, kinds), _shape_template(shape, kinds))
    return template


def _through_shape(formula: str, key: str) -> str | None:
    """A formula whose key has no template yet: the key's template when the key comes
    round again, else its shape's template filled with its own atoms, else (a shape met
    for the first time) the formula typeset as it stands."""
    if key in _sighted_keys:
        template = _key_template(key)
        if template is _UNSEEN:
            return _shape_latex(formula)
        return None if template is None else template.format(*_slot_identifiers(formula))
    _keep(_sighted_keys, key, None)
    pieces = _ATOMS.split(formula)
    atoms = pieces[1::3]
    shape = _HOLE.join(pieces[::3])
    if len(shape) + len(atoms) * len(str(len(atoms))) > MAX_FORMULA_LENGTH:
        return _shape_latex(formula)  # the numbered placeholders must not carry it over
    template = _known_shape_template(shape, tuple(map(type, atoms)))
    if template is _UNSEEN:
        return _shape_latex(formula)
    if template is None:
        return None
    result: str = template.format(
        *map(identifier, filter(None, atoms)), *filter(None, pieces[2::3])
    )
    return result


def _slot_identifiers(formula: str) -> Iterator[str]:
    return map(identifier, _SLOT_NAME.findall(formula))


def _direct_template(formula: str) -> str | None:
    """The template of a formula whose slots are all ``@zzqhole``, typeset as it stands."""
    return _template_of(_shape_latex(_numbered(formula)), list(range(formula.count(_HOLE))))


def _numbered(shape: str) -> str:
    """The shape with its k-th ``@zzqhole`` made ``@zzqholek``, so the LaTeX tells them apart."""
    pieces = shape.split(_HOLE)
    return pieces[0] + "".join(f"{_HOLE}{index}{piece}" for index, piece in enumerate(pieces[1:]))


def _template_of(latex: str | None, fields: list[int]) -> str | None:
    """A shape's LaTeX as a format template: placeholder k becomes field ``fields[k]``."""
    if latex is None:
        return None
    parts = _HOLE_LATEX.split(latex)
    for index in range(0, len(parts), 2):
        parts[index] = parts[index].replace("{", "{{").replace("}", "}}")
    for index in range(1, len(parts), 2):
        parts[index] = "{" + str(fields[int(parts[index])]) + "}"
    return "".join(parts)


@lru_cache(maxsize=8192)
def formula_latex(formula: str) -> str | None:
    """LaTeX for a formula, or None when the core does not parse it."""
    if _HOLE_NAME in formula or _SLOT_MARK in formula or len(formula) > MAX_FORMULA_LENGTH:
        # A name or a character that could be mistaken for a placeholder; a formula over
        # the limit gets the parser's own refusal (its shape could be shorter).
        return _shape_latex(formula)
    # split() yields the text between slots and each slot's name, from one scan.
    pieces = _SLOT_NAME.split(formula)
    slots = len(pieces) // 2
    if len(formula) + slots * (len(_HOLE) + len(str(slots))) > MAX_FORMULA_LENGTH:
        return _shape_latex(formula)  # numbered placeholders must not carry it over the limit
    key = _SLOT_MARK.join(pieces[::2])
    template = _key_templates.get(key, _UNSEEN)
    if template is _UNSEEN:
        return _through_shape(formula, key)
    if template is None:
        return None
    result: str = template.format(*map(identifier, pieces[1::2]))
    return result


def clear_caches() -> None:
    """Forget every typeset formula (benchmarks measure the work, not the cache)."""
    formula_latex.cache_clear()
    _key_templates.clear()
    _shape_templates.clear()
    _sighted_keys.clear()
    _sighted_shapes.clear()
    _shape_latex.cache_clear()
    identifier.cache_clear()
