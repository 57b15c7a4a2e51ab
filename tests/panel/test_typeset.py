"""Formulas typeset from the core's parse tree (docs/guide/formulas.md precedence, 5 notation; issue
5).

The LaTeX must keep the structure the engine evaluates: a typeset formula that reads
differently from what was computed would misstate the record.
"""

from __future__ import annotations

import pytest

from reckoner.panel.typeset import formula_latex, identifier, typeset_rows

# Formulas covering every node class and every notation shape; shared with the browser
# test that renders each output with the vendored KaTeX.
SAMPLES: dict[str, str] = {
    "(@V)^2/@R": r"\frac{{V}^{2}}{R}",
    "-2^2": r"-{2}^{2}",
    "2^3^2": r"{2}^{{3}^{2}}",
    "(2^3)^2": r"{\left({2}^{3}\right)}^{2}",
    "@a-(@b-@c)": r"a - \left(b - c\right)",
    "@a-(-@b)": r"a - \left(-b\right)",
    "2*(@a+@b)": r"2 \cdot \left(a + b\right)",
    "@a*@b/@c*@d": r"\frac{a \cdot b}{c} \cdot d",
    "-(@a*@b)": r"-\left(a \cdot b\right)",
    "2.5e-3*@I": r"2.5\times 10^{-3} \cdot I",
    "2j+1": r"2\,\mathrm{j} + 1",
    "$pi*@r^2": r"\pi \cdot {r}^{2}",
    "$e^(2)": r"{\mathrm{e}}^{2}",
    "$sqrt(@P*@R_load)": r"\sqrt{P \cdot R_{\mathrm{load}}}",
    "$abs(@z)": r"\left|z\right|",
    "$floor(@x)+$ceil(@y)": r"\left\lfloor x\right\rfloor  + \left\lceil y\right\rceil ",
    "$conj(@z)": r"\overline{z}",
    "$ln(@x)": r"\ln\left(x\right)",
    "$log(@x)": r"\log_{10}\left(x\right)",
    "$atan2(@x, @y)": r"\operatorname{atan2}\left(x, y\right)",
    "$mod(@a, @b)": r"a \bmod b",
    "$transpose(@M)": r"M^{\mathsf{T}}",
    "$sum_{k=1}^{10}(k^2)": r"\sum_{k=1}^{10} {k}^{2}",
    "$prod_{k=1}^{4}(@x+k)": r"\prod_{k=1}^{4} \left(x + k\right)",
    "$seq_{k=0}^{10}($sin(k))": r"\left[\, \sin\left(k\right) \,\right]_{k=0}^{10}",
    "$integral_{0}^{1}(x^2, x)": r"\int_{0}^{1} {x}^{2}\,\mathrm{d}x",
    "$integral(x^2, x)": r"\int {x}^{2}\,\mathrm{d}x",
    "$limit_{x->0}($sin(x)/x)": r"\lim_{x \to 0} \frac{\sin\left(x\right)}{x}",
    "$diff(x^2, x)": r"\frac{\mathrm{d}}{\mathrm{d}x}\left({x}^{2}\right)",
    "$diff(x^2, x, 2)": r"\frac{\mathrm{d}^{2}}{\mathrm{d}x^{2}}\left({x}^{2}\right)",
    "@net.ports[0].z": r"\mathit{net}.\mathrm{ports}\left[0\right].\mathrm{z}",
    "@alpha*@theta_1": r"\alpha \cdot \theta_{\mathrm{1}}",
}


@pytest.mark.parametrize(("formula", "latex"), SAMPLES.items())
def test_typeset_keeps_the_parsed_structure(formula: str, latex: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert formula_latex(formula) == latex


@pytest.mark.parametrize(
    ("name", "latex"),
    [
        ("V", "V"),
        ("V_in", r"V_{\mathrm{in}}"),
        ("R1", r"R_{\mathrm{1}}"),
        ("P_load_max", r"P_{\mathrm{load\_max}}"),
        ("Rload", r"\mathit{Rload}"),
        ("omega", r"\omega"),
        ("_x", r"\mathit{\_x}"),
        ("x_", r"\mathit{x\_}"),
    ],
)
def test_slot_names_read_as_symbols_with_subscripts(name: str, latex: str) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    assert identifier(name) == latex


@pytest.mark.parametrize("formula", ["1+", "2x", "$nope(1)", "@a @b", "", "1 # 2"])
def test_a_formula_the_core_refuses_gets_no_latex(formula: str) -> None:
    """Spec: docs/guide/formulas.md (the grammar)."""
    assert formula_latex(formula) is None


def test_typeset_rows_covers_accepted_evals_only() -> None:
    """Spec: docs/guide/records.md (trace rows)."""
    rows = [
        {"seq": 1, "tool": "record_start", "ok": True, "content": {"title": "t", "record": "1"}},
        {"seq": 2, "tool": "eval", "ok": True, "content": {"formula": "@a*2", "target": "b"}},
        {"seq": 3, "tool": "eval", "ok": False, "content": {"code": "X", "error": "e"}},
        {"seq": 4, "tool": "eval", "ok": False, "content": {"formula": "@a*2", "code": "X"}},
        {"seq": 5, "tool": "eval", "ok": True, "content": {"formula": "@a +", "target": "c"}},
        {"seq": 6, "tool": "set", "ok": True, "content": {"name": "a", "value": None}},
        {"seq": 7, "tool": "eval", "ok": True, "content": "not an object"},
    ]
    assert typeset_rows(rows) == {"2": r"a \cdot 2"}
