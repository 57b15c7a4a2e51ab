"""Issue 8, "A deterministic work budget for every call" and "Valid input never gets
ENGINE_UNKNOWN_ERROR": the slow inputs the issue lists are refused by MAX_CALL_WORK (always
the same way, with no clock in the decision), ordinary large work still runs, and overflow
answers ENGINE_UNDEFINED_RESULT (or the dimension code) with one sentence.

No timing is asserted here: what these tests pin is the refusal and its code. The fuzz
tests in tests/service/test_fuzz_engine.py are the ones that fail a call over 2 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

import numpy as np
import pytest
from core_helpers import leaves, q, refused, scalar, set_value, value_of

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_CALL_WORK
from reckoner.core import bounded
from reckoner.core.api import Evaluated, evaluate, render_value
from reckoner.core.errors import Failure
from reckoner.core.values import Quantity

MILLION = 1_000_000


def _sines(length: int) -> str:
    """The issue's 9,997-character body: `$sin(k)+$sin(k)+...`."""
    return "+".join(["$sin(k)"] * ((length + 1) // 8))


def _over_budget(formula: str, slots: dict[str, Quantity] | None = None) -> str:
    message = refused(formula, ErrorCode.INVALID_INDEX, slots)
    assert "MAX_CALL_WORK" in message and str(MAX_CALL_WORK) in message, message
    # Deterministic: the same input is refused again, word for word.
    again = evaluate(formula, slots or {})
    assert isinstance(again, Failure) and again.message == message
    return message


def test_the_154_second_sum_of_sines_is_refused() -> None:
    """Issue 8: `$sum_{k=1}^{1000000}($sin(k)+...)`, 9,997 characters, ran 154 s.
    Spec: docs/reference/limits.md (issue 8)."""
    body = _sines(9_975)
    formula = f"$sum_{{k=1}}^{{1000000}}({body})"
    assert 9_900 < len(formula) <= 10_000
    _over_budget(formula)


def test_nested_sines_190_deep_over_a_large_array_are_refused() -> None:
    """Issue 8: 190 nested `$sin` ran 23 s; each level maps every element again.
    Spec: docs/reference/limits.md (issue 8)."""
    slots = {"x": q(np.linspace(0.0, 1.0, MILLION))}
    _over_budget("$sin(" * 190 + "@x" + ")" * 190, slots)
    # The same nesting over a scalar costs 190 operations and runs.
    assert isinstance(scalar("$sin(" * 190 + "0.5" + ")" * 190), float)


def test_a_complex_array_summed_a_million_times_is_refused() -> None:
    """Issue 8: a complex array summed a million times ran 29 s.
    Spec: docs/reference/limits.md (issue 8)."""
    slots = {"c": q([complex(k, 1.0) for k in range(19)])}
    message = _over_budget("$sum_{k=1}^{1000000}(@c)", slots)
    assert "1000000 steps" in message
    # Summing it a thousand times is well within the budget.
    assert len(leaves("$sum_{k=1}^{1000}(@c)", slots)) == 19


def test_element_wise_work_on_complex_arrays_is_charged_per_element() -> None:
    """Issue 8: complex arrays are handled element by element, so each element counts.
    Spec: docs/reference/limits.md (issue 8)."""
    elements = MAX_CALL_WORK // 2 + 1
    slots = {"c": q([complex(k, 1.0) for k in range(elements)])}
    value_of("@c+@c", slots)  # one pass: half the budget and one element
    _over_budget("@c+@c+@c", slots)


@contextmanager
def _stepped() -> Iterator[None]:
    """Every bounded form takes its steps (issue 27's lanes are for long forms)."""
    with patch.object(bounded, "AT_ONCE_FROM", 10**9):
        yield


def test_the_budget_boundary_is_exact_for_a_stepped_body() -> None:
    """Issue 8: a stepped `k^1` costs 5 units a step (the step, the power counted twice,
    k and 1), so MAX_CALL_WORK / 5 steps run and one step more is refused up front.
    Spec: docs/reference/limits.md (issue 8)."""
    steps = MAX_CALL_WORK // 5
    with _stepped():
        assert scalar(f"$sum_{{k=1}}^{{{steps}}}(k^1)") == steps * (steps + 1) / 2
        message = _over_budget(f"$sum_{{k=1}}^{{{steps + 1}}}(k^1)")
    assert f"{steps + 1} steps" in message


def test_nested_bounded_forms_are_refused_before_the_inner_one_runs() -> None:
    """Spec: docs/reference/limits.md (issue 8)."""
    with _stepped():
        message = _over_budget("$sum_{i=1}^{1000}($prod_{j=1}^{1000}(1+j^1/1e9))")
    assert "1000 enclosing steps" in message


def test_vectorised_work_on_a_million_reals_still_runs() -> None:
    """Issue 8: the budget does not refuse ordinary large real-array arithmetic.
    Spec: docs/reference/limits.md (issue 8)."""
    x = np.linspace(1.0, 2.0, MILLION)
    slots = {"x": q(x, "ohm"), "y": q(x[::-1].copy(), "ohm")}
    got = leaves("@x*2 + @y - @x/4", slots)
    assert len(got) == MILLION
    assert leaves("$sqrt(@x*@y)", slots)[0] == pytest.approx(np.sqrt(2.0))
    assert len(leaves("$seq_{k=1}^{1000}(k*@x[k])", slots)) == 1000
    # A body of literals and bound names runs over all million steps at once.
    assert scalar("$sum_{k=1}^{1000000}(k+k)") == MILLION * (MILLION + 1)


def test_a_failing_vectorised_attempt_does_not_retry_over_budget() -> None:
    """The all-steps-at-once path never falls back to the steps once the budget is spent.
    Spec: docs/reference/limits.md (issue 8)."""
    body = "+".join(["$sin(k)"] * 40)
    _over_budget(f"$sum_{{k=1}}^{{1000000}}({body})")


# -- overflow answers ENGINE_UNDEFINED_RESULT, never ENGINE_UNKNOWN_ERROR -----------------

HUGE = {"c": q(complex(1e308, 1e308)), "big": q(complex(1.7e308, 1.7e308))}


@pytest.mark.parametrize(
    "formula",
    ["$inf^(1+1j)", "@c^@c", "$abs(@big)", "@big^(2+1j)", "$exp(@c*@c)", "$sin(@c*@c)"],
)
def test_overflowing_complex_work_is_undefined_result(formula: str) -> None:
    """Issue 8 (docs/reference/codes.md): overflow and huge complex powers are
    ENGINE_UNDEFINED_RESULT.
    Spec: docs/reference/limits.md (issue 8)."""
    message = refused(formula, ErrorCode.UNDEFINED_RESULT, HUGE)
    assert "\n" not in message


def test_a_dimension_exponent_past_any_double_is_refused_by_its_limit() -> None:
    """Issue 8: `@x^1e308` with x in joules; the vector is refused like any vector over
    MAX_DIMENSION_EXPONENT (ENGINE_INCOMPATIBLE_DIMENSION), its exponents spelled short.
    Spec: docs/reference/limits.md (issue 8)."""
    slots = {"x": q(2.0, "joule"), "m": q(1.0, "metre")}
    message = refused("@x^1e308", ErrorCode.INCOMPATIBLE_DIMENSION, slots)
    assert "MAX_DIMENSION_EXPONENT" in message and len(message) < 400
    deep = refused("((@m^1e300)^1e300)^1e300 + 1", ErrorCode.INCOMPATIBLE_DIMENSION, slots)
    assert "1e900" in deep


def test_polar_form_of_a_complex_near_the_largest_double_stays_finite() -> None:
    """Issue 8: `get` with form polar of a complex whose magnitude overflows.
    Spec: docs/reference/limits.md (issue 8)."""
    big = set_value({"re": 1.7e308, "im": 1.7e308})
    refusal = render_value(big, "polar", None, None)
    assert isinstance(refusal, Failure) and refusal.code is ErrorCode.UNDEFINED_RESULT
    assert "rect" in refusal.message
    fits = render_value(set_value({"re": 1e308, "im": 1e307}), "polar", None, None)
    assert not isinstance(fits, Failure) and fits["mag"] > 1e308  # type: ignore[index]


def test_rounding_the_largest_double_keeps_it_finite() -> None:
    """get with digits: rounding 1.7976931348623157e308 to 2 digits would leave the doubles.
    Spec: docs/reference/limits.md (issue 8)."""
    largest = set_value({"num": 1.7976931348623157e308})
    shown = render_value(largest, None, 2, None)
    text = "1.7976931348623157e308"
    assert shown == {"num": 1.7976931348623157e308, "text": text, "dim": "dim-less"}


def test_the_sum_of_a_constant_body_runs_at_once_and_matches_the_steps() -> None:
    """Spec: docs/reference/limits.md (issue 8)."""
    result = evaluate("$sum_{k=1}^{1000}(0.1)", {})
    with _stepped():
        stepped = evaluate("$sum_{k=1}^{1000}(0.1)", {})
    assert isinstance(result, Evaluated) and isinstance(stepped, Evaluated)
    assert result.value == stepped.value


@pytest.mark.parametrize("digits", [None, 1, 3, 9, 17, 40])
@pytest.mark.parametrize("dim", [None, "degC"])
@pytest.mark.parametrize("form", [None, "rect", "polar"])
def test_get_rounds_a_real_array_at_once_exactly_as_element_by_element(
    digits: int | None, dim: str | None, form: str | None
) -> None:
    """Issue 8 (speed of a million-element get; docs/guide/formulas.md): the whole-array rounding of
    `get` with digits gives, element for element and type for type, what one scalar gets.
    Spec: docs/reference/limits.md (issue 8)."""
    rng = np.random.default_rng(3)
    wide = rng.standard_normal(2_000) * 10.0 ** rng.integers(-300, 300, 2_000)
    edges = [0.0, -0.0, 1.7976931348623157e308, -1.7976931348623157e308, 5e-324, 2.5, 1e16]
    edges += [0.15, -0.15, 1.25, 0.125, 2.5e-7, -3.5, 1234.5, 9.95, 0.0005]  # ties (issue 14)
    values = np.concatenate([wide, np.array(edges)])
    array = set_value({"array": values.tolist(), "dim": "kelvin"})
    shown = render_value(array, form, digits, dim)
    assert not isinstance(shown, Failure)
    for i in (*range(0, 2_000, 97), *range(2_000, 2_000 + len(edges))):
        single = set_value({"num": float(values[i]), "dim": "kelvin"})
        one = render_value(single, form, digits, dim)
        assert not isinstance(one, Failure)
        want = {k: v for k, v in one.items() if k not in ("dim", "text")}
        want = want["num"] if form is None else want
        got = shown["array"][i]  # type: ignore[index]
        assert got == want and repr(got) == repr(want), (i, values[i])
        if digits is not None:  # issue 27: each element's text is what it alone reads
            assert shown["text"][i] == one["text"], (i, values[i])  # type: ignore[index]


def test_the_angle_of_a_complex_whose_angle_underflows_is_zero() -> None:
    """Found by fuzzing: cmath.phase raised on 1.7e308+5e-324j (an angle below the
    smallest double); $arg and get's polar form answer 0 like atan2.
    Spec: docs/reference/limits.md (issue 8)."""
    slots = {"b": set_value({"re": 1.7e308, "im": 5e-324})}
    assert scalar("$arg(@b)", slots) == 0.0
    polar = render_value(slots["b"], "polar", None, None)
    assert polar == {"mag": 1.7e308, "ang": 0, "dim": "dim-less"}


def test_reading_many_large_arrays_is_charged_for_the_row_that_keeps_them() -> None:
    """Issue 8: every array a formula reads is written into its trace row (docs/guide/records.md,
    vars), so reading ten million-element slots would write ten million numbers; each
    first read is charged before it happens.
    Spec: docs/reference/limits.md (issue 8)."""
    slots = {f"a{i}": q(np.zeros(MILLION)) for i in range(10)}
    formula = "+".join(f"@a{i}" for i in range(10))
    message = _over_budget(formula, slots)
    assert "reading @a" in message
    assert len(leaves("@a0+@a1+@a2", slots)) == MILLION  # three are within the budget
