"""Issue 27, "Vectorised bounded forms": $sum, $prod and $seq bodies run over every step at
once give bit for bit what the steps give (values, sign of zero, complex parts, the slots
read, and every refusal word for word), forms of 10^5 to 10^6 steps are accepted, and their
work is charged at its real cost (docs/decisions/bounded-forms.md).

The stepped rule is the reference: `_stepped()` makes every form take its steps, with the
work limit lifted where a long form's steps would pass it.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

import numpy as np
import pytest
from core_helpers import q
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reckoner import wire
from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_CALL_WORK
from reckoner.core import bounded, libm_loops, work
from reckoner.core.api import Evaluated, evaluate, stored
from reckoner.core.errors import Failure
from reckoner.core.notation import NOTATIONS, Kind
from reckoner.core.values import Value

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def _at_once() -> Iterator[None]:
    """Every form of at least one step tries all its steps at once."""
    with patch.object(bounded, "AT_ONCE_FROM", 1):
        yield


@contextmanager
def _stepped(limit: int = MAX_CALL_WORK) -> Iterator[None]:
    """Every form takes its steps, under a work limit of `limit`."""
    with (
        patch.object(bounded, "AT_ONCE_FROM", 10**9),
        patch.object(bounded, "MAX_CALL_WORK", limit),
        patch.object(work, "MAX_CALL_WORK", limit),
    ):
        yield


def _same(at_once: Evaluated | Failure, stepped: Evaluated | Failure) -> None:
    """The two answers are one: the same refusal word for word, or the same stored bytes
    (the sign of zero kept) and the same slots read in the same order."""
    if isinstance(stepped, Failure) or isinstance(at_once, Failure):
        assert at_once == stepped
        return
    assert wire.dumps(stored(at_once.value)) == wire.dumps(stored(stepped.value))
    assert list(at_once.reads) == list(stepped.reads)


def _compare(formula: str, slots: dict[str, Value]) -> None:
    """All steps at once answer what the steps answer, refusals included."""
    with _at_once():
        at_once = evaluate(formula, slots)
    with _stepped():
        _same(at_once, evaluate(formula, slots))


def _both(formula: str, slots: dict[str, Value], limit: int = MAX_CALL_WORK) -> Evaluated:
    with _at_once():
        at_once = evaluate(formula, slots)
    with _stepped(limit):
        stepped = evaluate(formula, slots)
    _same(at_once, stepped)
    assert isinstance(at_once, Evaluated), at_once
    return at_once


RNG = np.random.default_rng(27)
N = 100_000
SLOTS: dict[str, Value] = {
    "a": q(RNG.standard_normal(N) * 10.0 ** RNG.integers(-5, 5, N)),
    "dt": q(0.001, "second"),
    "w": q(2.0 * np.pi * 50.0, "hertz"),
    "x": q(0.75),
    "n": q(-2.5),
    "L": q(1.5, "metre"),
    "z": q(complex(0.5, -1.25)),
    "c": q([complex(float(k), 0.5 - k) for k in range(40)]),
    "short": q(np.array([1.0, -0.0, 2.5, 0.0, -3.0])),
}

ISSUE_FORMS = [
    "$sum_{k=1}^{100000}(1/k^2)",
    "$sum_{k=0}^{99999}(@a[k]^2)",
    "$seq_{k=0}^{99999}(@a[k]*$sin(k*@dt*@w))",
    "$seq_{k=0}^{9999}($sum_{j=0}^{9}(k*j))",
]


@pytest.mark.parametrize("formula", ISSUE_FORMS)
def test_the_issues_forms_are_accepted_and_equal_the_steps(formula: str) -> None:
    """Issue 27: each form the issue lists was refused (or took 230 ms); now accepted under
    MAX_CALL_WORK and identical to the steps (run with the limit lifted)."""
    _both(formula, SLOTS, limit=10**8)


def test_a_million_steps_are_accepted() -> None:
    """Issue 27: forms of 10^6 steps run at their real cost, within MAX_CALL_WORK."""
    got = evaluate("$sum_{k=1}^{1000000}(1/k^2)", {})
    assert isinstance(got, Evaluated)
    want = functools.reduce(operator.add, (1.0 / float(k) ** 2.0 for k in range(1, 1_000_001)))
    assert got.value.payload == want  # type: ignore[union-attr]
    seq = evaluate("$seq_{k=0}^{999999}($cos(k/1000)*@x)", SLOTS)
    assert isinstance(seq, Evaluated)
    assert seq.value.payload.shape == (1_000_000,)  # type: ignore[union-attr]


def test_sums_and_products_fold_left_to_right_as_the_steps() -> None:
    """The decision: numpy's accumulate is a sequential left fold, where np.sum pairs terms;
    a sum whose pairwise and sequential totals differ shows which one the engine takes."""
    terms = RNG.standard_normal(N) * 10.0 ** RNG.integers(-8, 8, N)
    sequential = functools.reduce(operator.add, terms.tolist())
    assert float(np.sum(terms)) != sequential  # the two orders differ on these terms
    got = evaluate("$sum_{k=0}^{99999}(@t[k])", {"t": q(terms)})
    assert isinstance(got, Evaluated) and got.value.payload == sequential  # type: ignore[union-attr]
    factors = 1.0 + RNG.standard_normal(2_000) * 1e-3
    product = functools.reduce(operator.mul, factors.tolist())
    got = evaluate("$prod_{k=0}^{1999}(@t[k])", {"t": q(factors)})
    assert isinstance(got, Evaluated) and got.value.payload == product  # type: ignore[union-attr]


@given(st.lists(st.floats(allow_nan=False, width=64), min_size=1, max_size=300))
@PROPERTY
def test_a_sum_of_any_reals_is_the_left_fold(items: list[float]) -> None:
    slots: dict[str, Value] = {"t": q(np.array(items))}
    formula = f"$sum_{{k=0}}^{{{len(items) - 1}}}(@t[k])"
    _compare(formula, slots)


complex_parts = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e200, max_value=1e200)


@given(
    st.lists(st.builds(complex, complex_parts, complex_parts), min_size=1, max_size=60),
    st.sampled_from(["$sum", "$prod", "$seq"]),
    st.sampled_from(["@t[k]", "@t[k]*@t[k]", "@t[k]/(k+1)", "(k-3)/@t[k]", "@t[k]^2", "-@t[k]"]),
)
@PROPERTY
def test_complex_bodies_equal_the_steps(items: list[complex], name: str, body: str) -> None:
    slots: dict[str, Value] = {"t": q(items)}
    formula = f"{name}_{{k=0}}^{{{len(items) - 1}}}({body})"
    _compare(formula, slots)


UNARY = [n.name for n in NOTATIONS if n.kind is Kind.FUNCTION and n.arities == (1,)]
PAIRS = [n.name for n in NOTATIONS if n.kind is Kind.FUNCTION and n.arities == (2,)]


def _bodies() -> st.SearchStrategy[str]:
    """Bodies in k (and j, inside a nested form): slots real, complex, dimensioned and
    indexed by the step, every operator and function, and nested $sum and $prod."""
    leaves = st.sampled_from(
        [
            *("k", "k", "j", "0", "2", "0.5", "-0.0", "1e308", "$pi", "$i", "$inf"),
            *("@x", "@n", "@L", "@z", "@short[k]", "@short[k-2]", "@c[k]", "@a[k*k]"),
            *("@dt*@w", "@short"),
        ]
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.builds(lambda a, op, b: f"({a}{op}{b})", inner, st.sampled_from("+-*/^"), inner),
            st.builds(lambda a: f"-{a}", inner),
            st.builds(lambda f, a: f"{f}({a})", st.sampled_from(UNARY), inner),
            st.builds(lambda f, a, b: f"{f}({a}, {b})", st.sampled_from(PAIRS), inner, inner),
            st.builds(
                lambda f, lo, hi, a: f"{f}_{{j={lo}}}^{{{hi}}}({a})",
                st.sampled_from(["$sum", "$prod", "$seq"]),
                st.sampled_from(["0", "1", "-2"]),
                st.sampled_from(["3", "4", "k"]),
                inner,
            ),
        )

    return st.recursive(leaves, extend, max_leaves=8)


@given(_bodies(), st.sampled_from(["$sum", "$prod", "$seq"]), st.integers(-3, 3))
@PROPERTY
def test_any_body_run_at_once_equals_its_steps(body: str, name: str, lo: int) -> None:
    """Values, NaN and inf refusals, dimension errors, indices outside the array, objects:
    whatever the steps answer, all steps at once answer the same, word for word."""
    formula = f"{name}_{{k={lo}}}^{{{lo + 30}}}({body})"
    with _at_once():
        at_once = evaluate(formula, SLOTS)
    with _stepped():
        stepped = evaluate(formula, SLOTS)
    if isinstance(stepped, Failure) and "MAX_CALL_WORK" in stepped.message:
        # The steps of nested forms can cost more than the limit where all steps at once
        # do not: that is the point of running them at once, so compare nothing else.
        return
    _same(at_once, stepped)


@pytest.mark.parametrize(
    ("formula", "code"),
    [
        ("$sum_{k=0}^{99999}(1/(k-77777))", ErrorCode.UNDEFINED_RESULT),
        ("$sum_{k=0}^{99999}(k + @L)", ErrorCode.INCOMPATIBLE_DIMENSION),
        ("$sum_{k=0}^{99999}(@a[k+1])", ErrorCode.INVALID_INDEX),
        ("$seq_{k=0}^{99999}($ln(k-50000))", ErrorCode.UNDEFINED_RESULT),
        ("$sum_{k=0}^{99999}($sqrt(@a[k]))", ErrorCode.UNDEFINED_RESULT),
        ("$prod_{k=0}^{99999}((k-99990)^0.5)", ErrorCode.UNDEFINED_RESULT),
        ("$sum_{k=1}^{100000}($exp(k))", ErrorCode.UNDEFINED_RESULT),
        ("$seq_{k=0}^{9999}($sum_{j=0}^{9}(1/(k*10+j-99987)))", ErrorCode.UNDEFINED_RESULT),
    ],
)
def test_a_failing_step_is_refused_as_the_steps_refuse_it(formula: str, code: ErrorCode) -> None:
    """Issue 27: the refusal names the same step's values in the same sentence as the steps
    (which, run with the limit lifted, are the reference)."""
    with _at_once():
        at_once = evaluate(formula, SLOTS)
    with _stepped(10**8):
        stepped = evaluate(formula, SLOTS)
    assert isinstance(at_once, Failure) and at_once.code is code
    assert at_once == stepped


def test_the_first_failing_step_wins_over_later_ones() -> None:
    """Two divisors that reach zero at different steps: the earlier step is the one named,
    although the later one is written first."""
    got = evaluate("$sum_{k=0}^{999}(1/(k-900) + 2/(k-300))", {})
    assert isinstance(got, Failure)
    assert "dividend is 2" in got.message


def test_a_mapped_function_costs_one_unit_per_eight_steps() -> None:
    """MAX_CALL_WORK's rate for a math function mapped in C: 10^6 steps of $sin cost
    125,000 units, so three fit in the limit and four do not."""
    three = "+".join(["$sin(k)"] * 3)
    assert isinstance(evaluate(f"$sum_{{k=1}}^{{1000000}}({three})", {}), Evaluated)
    four = "+".join(["$sin(k)"] * 4)
    refusal = evaluate(f"$sum_{{k=1}}^{{1000000}}({four})", {})
    assert isinstance(refusal, Failure) and refusal.code is ErrorCode.INVALID_INDEX
    assert "run over the 1000000 steps of $sum at character 1" in refusal.message
    assert "MAX_CALL_WORK" in refusal.message


def test_a_nested_form_over_all_steps_names_its_enclosing_steps() -> None:
    heavy = "+".join(["$sin(k*j)"] * 8)
    refusal = evaluate(f"$seq_{{k=1}}^{{1000}}($sum_{{j=1}}^{{1000}}({heavy}))", {})
    assert isinstance(refusal, Failure) and "times 1000 enclosing steps" in refusal.message


def test_a_body_holding_an_array_per_step_takes_the_steps() -> None:
    """The lanes hold one scalar a step: `k*@short` is an array at each step, so the form
    takes its steps (and the stepped budget) exactly as before."""
    got = _both("$sum_{k=0}^{99}(k*@short)", SLOTS)
    assert got.value.payload.tolist() == [4950.0, 0.0, 12375.0, 0.0, -14850.0]  # type: ignore[union-attr]
    _both("$sum_{k=1}^{40}($seq_{j=1}^{k}(j)[0])", SLOTS)  # a range that changes with k


@pytest.mark.parametrize("power", [1, 2, 3, 4, 5, 8])
def test_a_whole_power_of_the_step_is_pows_double(power: int) -> None:
    """The decision: `k^p` of a bound variable is multiplied out while every result stays
    below 2**53 (exact, so equal to pow's answer); past that it is pow itself. Either way
    each element is Python's `float(k) ** p`."""
    got = evaluate(f"$seq_{{k=-99999}}^{{99999}}(k^{power})", {})
    assert isinstance(got, Evaluated)
    want = [float(k) ** float(power) for k in range(-99_999, 100_000)]
    assert got.value.payload.tolist() == want  # type: ignore[union-attr]


def test_a_compiled_form_run_again_sees_each_runs_slots() -> None:
    """The compiled form keeps its operators' vector rules between runs; a slot that
    changes (a divisor set to zero, a length in place of a number) is judged afresh."""
    formula = "$sum_{k=0}^{99}(k/@d + @e)"
    one = {"d": q(2.0), "e": q(1.0)}
    assert isinstance(evaluate(formula, one), Evaluated)
    zero = evaluate(formula, {"d": q(0.0), "e": q(1.0)})
    assert isinstance(zero, Failure) and zero.code is ErrorCode.UNDEFINED_RESULT
    length = evaluate(formula, {"d": q(2.0), "e": q(1.0, "metre")})
    assert isinstance(length, Failure) and length.code is ErrorCode.INCOMPATIBLE_DIMENSION
    with _stepped():
        assert evaluate(formula, {"d": q(0.0), "e": q(1.0)}) == zero


def test_a_compiled_function_run_again_judges_each_runs_argument() -> None:
    """A function of the lanes keeps the vector its rule gave between runs; an argument of
    another vector (a length) or one that overflows to infinity is judged afresh, and each
    run answers what the steps answer."""
    formula = "$sum_{k=0}^{99}($sin(k*@d))"
    for d in (q(0.5), q(0.5, "metre"), q(1e307), q(0.25)):
        _compare(formula, {"d": d})
    length = evaluate(formula, {"d": q(0.5, "metre")})
    assert isinstance(length, Failure) and length.code is ErrorCode.INCOMPATIBLE_DIMENSION
    overflow = evaluate(formula, {"d": q(1e307)})
    assert isinstance(overflow, Failure) and overflow.code is ErrorCode.UNDEFINED_RESULT


@pytest.mark.parametrize(
    "formula",
    [
        "$seq_{k=0}^{40}($sum_{j=0}^{0}(k) + k)",
        "$seq_{k=0}^{40}($sum_{j=5}^{5}(k^1) * k)",
        "$sum_{k=0}^{40}(k) + $sum_{k=0}^{40}(k)",
        "$seq_{k=0}^{40}($prod_{j=0}^{0}(k) - k)",
    ],
)
def test_a_fold_leaves_the_steps_it_reads_unchanged(formula: str) -> None:
    """The sum negates its terms in place when they are an array of its own: a fold over
    one inner step reads the outer variable itself, which later operators still read."""
    _both(formula, SLOTS)


@given(
    st.lists(st.floats(width=64), min_size=1, max_size=300),
    st.sampled_from(["$sum", "$prod"]),
    st.sampled_from(["@t[k]", "-@t[k]", "@t[k]*k", "@t[k]^2", "$sin(@t[k])", "$cos(@t[k])"]),
)
@PROPERTY
def test_a_fold_of_any_reals_is_the_steps_fold(items: list[float], name: str, body: str) -> None:
    """The decision's fold (the first term less the others negated, numpy's in-order
    subtract.reduce) and the C library's sine and cosine run in numpy's loop, against the
    steps: NaN, infinities, -0.0, huge and tiny terms included."""
    slots: dict[str, Value] = {"t": q(np.array(items))}
    formula = f"{name}_{{k=0}}^{{{len(items) - 1}}}({body})"
    _compare(formula, slots)


def test_a_numpy_sine_that_is_not_the_c_librarys_is_not_used() -> None:
    """numpy's own loop stands in for math.sin only once a probe finds it giving the C
    library's doubles: a sine one unit in the last place off (as a SIMD sine would be on
    some arguments) is found out, and the form keeps the C library's."""
    off = {"$sin": (lambda v: np.nextafter(np.sin(v), np.inf), math.sin)}
    libm_loops._agrees.cache_clear()
    try:
        with patch.dict(libm_loops._LOOPS, off):
            _both("$seq_{k=0}^{999}($sin(k/7))", {})
            assert libm_loops.libm_loop("$sin") is None
    finally:
        libm_loops._agrees.cache_clear()
    assert libm_loops.libm_loop("$sin") is np.sin  # this numpy's own loop is the C library's


@pytest.mark.parametrize(
    "formula",
    [
        "$sum_{k=0}^{19}(@x*@x^k)",  # a positive base: no step can be refused
        "$seq_{k=-3}^{3}(@n^k)",  # a negative base to whole powers
        "$seq_{k=-3}^{3}(@n^(k/2))",  # a negative base to a fractional power: refused
        "$seq_{k=-3}^{3}((@x-@x)^k)",  # zero to a negative power: refused
        "$seq_{k=1}^{3}((@x-@x)^k)",  # zero to positive powers
        "$seq_{k=0}^{3}((-0.0)^(-k))",  # a negative zero to k=0 then negative powers
        "$seq_{k=0}^{3}((-@n)^(k/3))",  # a positive base to fractional powers
    ],
)
def test_one_base_for_every_step_is_refused_as_the_steps_refuse_it(formula: str) -> None:
    """`@r^k`: the base is one number for every step, so which refusal can happen (zero to
    a negative power, a negative base to a fractional one) is decided once; the answer and
    every refusal are the steps' own."""
    _compare(formula, SLOTS)
