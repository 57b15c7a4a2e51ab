"""The article speed work keeps its promises (issue 10, Speed): a formula typeset through a
shared shape reads exactly as the core parsed it, and the collector pause leaves the cycle
collector as it found it."""

from __future__ import annotations

import gc
import math
import re
import threading
from typing import Any

import pytest
from article_helpers import HAND_ID, hand_rows
from hypothesis import given
from hypothesis import strategies as st
from test_template_and_audit import RECORD_SEARCH, records

from reckoner.articles.fact_model import ArticleRefusal
from reckoner.articles.facts import collect_facts
from reckoner.articles.mathtex import _shape_latex, clear_caches, formula_latex, identifier
from reckoner.articles.numbers import cut, cut_all
from reckoner.articles.writers.template import render
from reckoner.host.collector import collector_paused


@pytest.mark.parametrize(
    ("formula", "latex"),
    [
        ("2 * @a", r"2 \cdot a"),
        ("3 * @a", r"3 \cdot a"),
        ("2 * @a + 2", r"2 \cdot a + 2"),
        ("2 * @a + 3", r"2 \cdot a + 3"),
        ("2.50 / @R1", r"\frac{2.50}{R_{\mathrm{1}}}"),
        ("2e+5 * @a", r"2\times 10^{5} \cdot a"),
        ("@x2 * 2", r"x_{\mathrm{2}} \cdot 2"),
        ("$atan2(1, 2)", r"\operatorname{atan2}\left(1, 2\right)"),
        ("-2^2", r"-{2}^{2}"),
    ],
)
def test_formulas_sharing_a_shape_keep_their_own_numbers_and_slots(
    formula: str, latex: str
) -> None:
    """Issue 10: each formula is typeset from the core's tree; sharing a shape with another
    formula (other constants, other slots) never lends it the other's text.
    Spec: docs/guide/articles.md (issue 10)."""
    clear_caches()
    formula_latex("7 * @zz")  # the shape of several cases above, typeset first
    assert formula_latex(formula) == latex
    assert formula_latex(formula) == _shape_latex(formula)


@pytest.mark.parametrize(
    "formula",
    [
        *("1" + "9" * 400 + " * @a", "2" + "0" * 308 + ".5 * @a", "2 * @a +", "1e * @a"),
        *("@5 * 2", "2.5.3 * @a", "2@a", "1. * @a", "2x * @a"),
        # Over the length limit, though its shape (short placeholders for long names) is not.
        " + ".join(["@" + "a" * 60] * 200),
    ],
)
def test_a_formula_the_parser_refuses_gets_no_latex_through_a_shape(formula: str) -> None:
    """Issue 10: a formula the core refuses is shown as written, even when its shape (with
    the numbers as placeholders) would parse.
    Spec: docs/guide/articles.md (issue 10)."""
    clear_caches()
    assert formula_latex(formula) is None


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was_after_facts_and_render(enabled: bool) -> None:
    """Issue 10 (Speed): the pause around facts and the template restores the collector,
    also when the facts are refused.
    Spec: docs/guide/articles.md (issue 10)."""
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
        render(facts, "en", "md")
        assert gc.isenabled() is enabled
        with pytest.raises(ArticleRefusal):
            collect_facts(HAND_ID, hand_rows(), is_open=True)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_overlapping_pauses_resume_the_collector_once_the_last_ends() -> None:
    """Issue 10 (Speed): jobs on threads overlap; the collector resumes when the last ends.
    Spec: docs/guide/articles.md (issue 10)."""
    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with collector_paused():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    inside.wait(5)
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the worker still holds the pause
    release.set()
    worker.join(5)
    assert gc.isenabled()


# -- the optimised paths against the straightforward ones ----------------------------------

_EDGES = [0.0, -0.0, 1e-3, 1e6, 0.00099995, 999999.99995, 0.00100005, 12.34565, 5e-324]
_EDGES += [1.7976931348623157e308, math.inf, -math.inf, math.nan, 1e10, 1.5e-110, 2.5e120]
numbers = st.one_of(
    st.floats(),
    st.floats(min_value=-2e6, max_value=2e6),
    st.floats(min_value=-1e-2, max_value=1e-2),
    st.integers(-(10**7), 10**7).map(float),
    st.sampled_from(_EDGES).flatmap(
        lambda x: st.sampled_from([x, -x, math.nextafter(x, 0), math.nextafter(x, math.inf)])
    ),
)


@given(st.lists(numbers, max_size=60))
def test_cutting_numbers_in_one_pass_gives_the_bytes_of_cutting_each(
    xs: list[float],
) -> None:
    """Issue 10 (Speed): the batch cut is the manual's cut (four decimals at most, the
    exponential form below 1e-3 and from 1e6), number for number.
    Spec: docs/guide/articles.md (issue 10)."""
    assert cut_all(xs) == [cut(x) for x in xs]


_ATOMS = ["@a", "@R1", "@x2e", "@be", "@V_in", "@xs[0]", "@o.v", "$pi", "$e", "k", "x"]
_ATOMS += ["2", "0.5", "12.25", "007", "1e5", "2.5e-3", "3e+2", "2j", "1.5i", "1.", "2.5.3"]
_ATOMS += ["1" + "9" * 400]
_CALLS = ["$sqrt(A)", "$exp(A)", "$abs(A)", "$atan2(A, B)", "$max(A, B)", "$mod(A, B)"]
_CALLS += ["$transpose(A)", "$sum_{k=B}^{C}(A)", "$seq_{k=0}^{B}(A)", "$diff(A, x, 2)"]
_CALLS += ["$integral_{B}^{C}(A, x)", "$limit_{x->B}(A)", "(A)", "-A", "A", "AB", "A@B"]
_CALLS += ["A e-3 B", "A[1]", "A.f"]


def _formulas() -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "^"]), inner).map(" ".join)
        call = st.tuples(st.sampled_from(_CALLS), inner, inner, inner).map(
            lambda parts: (
                parts[0].replace("A", parts[1]).replace("B", parts[2]).replace("C", parts[3])
            )
        )
        return binary | call

    return st.recursive(st.sampled_from(_ATOMS), grow, max_leaves=12)


@given(_formulas(), st.booleans())
def test_a_formula_typeset_through_its_shape_reads_as_the_direct_typesetting(
    formula: str, fresh: bool
) -> None:
    """Issue 10 (Speed): typesetting through a shared shape template gives exactly the LaTeX
    of the formula's own parse tree, and no LaTeX where the core refuses the formula.
    Spec: docs/guide/articles.md (issue 10)."""
    if fresh:
        clear_caches()
    # The same structure with other slots and other constants: the first is typeset as it
    # stands, the later ones through the templates of its shape.
    renamed = re.sub(r"@([A-Za-z_][A-Za-z0-9_]*)", r"@\1q", formula)
    recounted = re.sub(r"(?<![A-Za-z0-9_.])(2|0\.5|12\.25)(?![A-Za-z0-9_.])", "7", formula)
    for variant in (formula, renamed, recounted, formula):
        assert formula_latex(variant) == _shape_latex(variant), variant


@RECORD_SEARCH
@given(records(), st.randoms(use_true_random=False))
def test_rows_out_of_seq_order_give_the_facts_and_bytes_of_the_sorted_record(
    rows: list[dict[str, Any]], rng: Any
) -> None:
    """Issue 10 (docs/guide/articles.md: messages and steps interleave by seq): facts are read
    in one pass in the written order; a file whose rows are out of order is read sorted, with
    the same facts and the same article as the record in order (RECORD_EXAMPLES records; the
    slow variant searches the profile's budget).
    Spec: docs/guide/articles.md (issue 10)."""
    _sorted_on_reading(rows, rng)


@pytest.mark.slow
@given(records(), st.randoms(use_true_random=False))
def test_rows_out_of_seq_order_give_the_facts_and_bytes_of_the_sorted_record_full_budget(
    rows: list[dict[str, Any]], rng: Any
) -> None:
    """The long variant of test_rows_out_of_seq_order_give_the_facts_and_bytes_of_the_sorted_
    record, which runs by default: the profile's whole budget of records.
    Spec: docs/guide/articles.md (issue 10)."""
    _sorted_on_reading(rows, rng)


def _sorted_on_reading(rows: list[dict[str, Any]], rng: Any) -> None:
    shuffled = rows[:]
    rng.shuffle(shuffled)
    in_order = collect_facts(HAND_ID, rows, is_open=False)
    out_of_order = collect_facts(HAND_ID, shuffled, is_open=False)
    assert out_of_order == in_order
    assert out_of_order.reference == in_order.reference
    assert render(out_of_order, "en", "md") == render(in_order, "en", "md")


@pytest.mark.parametrize("slots", [1000, 2400])
def test_a_long_formula_of_short_names_is_typeset_as_the_core_reads_it(
    slots: int,
) -> None:
    """Issue 10 (Speed): a formula near the length limit whose placeholders would be longer
    than its own names is typeset directly, as the core parses it.
    Spec: docs/guide/articles.md (issue 10)."""
    clear_caches()
    formula = " + ".join(["@a"] * slots)
    assert formula_latex(formula) == _shape_latex(formula)
    assert (formula_latex(formula) is None) == (len(formula) > 10_000)


@pytest.mark.parametrize(
    ("name", "latex"),
    [
        ("a12", r"a_{\mathrm{12}}"),
        ("R1_12", r"\mathit{R1}_{\mathrm{12}}"),
        ("tau_3", r"\tau_{\mathrm{3}}"),
        ("Vout", r"\mathit{Vout}"),
        ("a1b2", r"\mathit{a1b2}"),
        ("x_", r"\mathit{x\_}"),
        ("_x", r"\mathit{\_x}"),
    ],
)
def test_a_name_of_letters_then_digits_takes_the_digits_as_its_subscript(
    name: str, latex: str
) -> None:
    """Issue 10 (each formula typeset as mathematics): a trailing run of digits after
    letters is a subscript; any other name keeps its digits in its body.
    Spec: docs/guide/articles.md (issue 10)."""
    assert identifier(name) == latex


# Few numbers and dim lists, written as the engine and a hand-edited file may write them (an
# int or a float, 0.0 or -0.0, a dim of floats, a damaged dim), so that a record's values
# come round again with another dim or another spelling.
_POOL_NUMBERS = st.sampled_from([1, 1.0, 2.5, 0.0, -0.0, 1e7, 3])
_ONE = [1, 0, 0, 0, 0, 0, 0]
_POOL_DIMS = st.sampled_from(
    [[0] * 7, _ONE, [1.0, *_ONE[1:]], _ONE[::-1], _ONE[:6], [[1], *_ONE[1:]], [0.5, *_ONE[1:]]]
)


@st.composite
def _pooled_values(draw: st.DrawFn, depth: int = 0) -> Any:
    kind = draw(st.sampled_from(["num", "num", "re", "array"] + (["object"] if depth < 1 else [])))
    if kind == "num":
        return {"num": draw(_POOL_NUMBERS), "dim": draw(_POOL_DIMS)}
    if kind == "re":
        parts = st.sampled_from([1, 2.5, -0.0])
        return {"re": draw(parts), "im": draw(parts), "dim": draw(_POOL_DIMS)}
    if kind == "array":
        few = st.sampled_from([1, 2.5])
        items = draw(st.lists(st.one_of(few, st.lists(few, max_size=1)), max_size=2))
        return {"array": items, "dim": draw(_POOL_DIMS)}
    names = st.sampled_from(["a", "b"])
    return {"object": draw(st.dictionaries(names, _pooled_values(depth + 1), min_size=1))}


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["set", "eval"]),
            st.sampled_from(["x", "y"]),
            st.one_of(_pooled_values(), _pooled_values(), st.none()),
            st.dictionaries(st.sampled_from(["x", "y"]), _pooled_values(), max_size=2),
        ),
        max_size=12,
    )
)
def test_a_value_found_again_is_the_value_its_row_gives_read_alone(
    calls: list[tuple[str, str, Any, dict[str, Any]]],
) -> None:
    """Issue 10 (Speed; docs/guide/articles.md: conditions are each slot's last set, steps carry
    what they
    read): the collector finds a value it met before by its number, or by its content, rather
    than reading it again; each condition and each step is still what its own row gives when
    it is the only row of a record, however the same numbers came before.
    Spec: docs/guide/articles.md (issue 10)."""
    start = {"seq": 1, "tool": "record_start", "ok": True, "content": {"title": "t"}}
    end = {"seq": 99, "tool": "record_end", "ok": True, "content": {}}
    rows: list[dict[str, Any]] = []
    for seq, (tool, name, value, reads) in enumerate(calls, start=2):
        if tool == "set":
            content: dict[str, Any] = {"name": name, "value": value}
        else:
            content = {"formula": "@x + @y", "target": name, "vars": reads, "result": value}
        rows.append({"seq": seq, "tool": tool, "ok": True, "content": content})
    whole = collect_facts(HAND_ID, [start, *rows, end], is_open=False)
    conditions: dict[str, Any] = {}
    steps: list[Any] = []
    for one in rows:
        alone = collect_facts(HAND_ID, [start, one, end], is_open=False)
        steps.extend(alone.steps)
        if one["tool"] == "set" and one["content"]["value"] is None:
            conditions.pop(one["content"]["name"], None)
        conditions.update(alone.conditions)
    assert whole.steps == tuple(steps)
    assert whole.conditions == tuple(conditions.items())


@given(st.lists(numbers, max_size=40))
def test_each_stored_number_is_shown_as_its_own_cut(xs: list[float]) -> None:
    """Issue 10 (Speed; docs/guide/articles.md: every number is cut before a writer sees it): the
    texts
    of a record's numbers, cut in one pass and handed out together, are each number's cut.
    Spec: docs/guide/articles.md (issue 10)."""
    start = {"seq": 1, "tool": "record_start", "ok": True, "content": {"title": "t"}}
    # Results of steps: a given keeps the digits it was written with (``shown_given``).
    evals = [
        {
            "seq": seq,
            "tool": "eval",
            "ok": True,
            "content": {"formula": "1", "target": f"x{seq}", "result": value},
        }
        for seq, value in enumerate(({"num": x, "dim": [0] * 7} for x in xs), start=2)
    ]
    facts = collect_facts(HAND_ID, [start, *evals], is_open=False)
    assert [step.result.number.text for step in facts.steps] == [cut(x) for x in xs]  # type: ignore[union-attr]
