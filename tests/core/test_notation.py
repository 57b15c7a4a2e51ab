"""docs/reference/notations.md: the 35 notations, their written forms, positions, arities and
meanings."""

from __future__ import annotations

import cmath
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from core_helpers import leaves, q, refused, scalar, value_of, vec

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_BOUNDED_STEPS, MAX_CALL_WORK
from reckoner.core import bounded
from reckoner.core.api import Evaluated, compile_formula, evaluate
from reckoner.core.errors import Failure
from reckoner.core.notation import BY_NAME, NOTATIONS, VOCABULARY, Kind, Notation
from reckoner.core.values import Quantity, Value

# The manual's tables of 5.2, 5.3 and 5.4, in its order: name -> written form.
MANUAL_WRITTEN_FORMS = {
    "$pi": "$pi",
    "$e": "$e",
    "$inf": "$inf",
    "$i": "$i",
    "$j": "$j",
    "$abs": "$abs(x)",
    "$sqrt": "$sqrt(x)",
    "$exp": "$exp(x)",
    "$ln": "$ln(x)",
    "$log": "$log(x)",
    "$sin": "$sin(x)",
    "$cos": "$cos(x)",
    "$tan": "$tan(x)",
    "$asin": "$asin(x)",
    "$acos": "$acos(x)",
    "$atan": "$atan(x)",
    "$floor": "$floor(x)",
    "$ceil": "$ceil(x)",
    "$sign": "$sign(x)",
    "$re": "$re(x)",
    "$im": "$im(x)",
    "$arg": "$arg(x)",
    "$conj": "$conj(x)",
    "$len": "$len(a)",
    "$transpose": "$transpose(M)",
    "$atan2": "$atan2(x, y)",
    "$min": "$min(a, b)",
    "$max": "$max(a, b)",
    "$mod": "$mod(a, b)",
    "$sum": "$sum_{k=a}^{b}(body)",
    "$prod": "$prod_{k=a}^{b}(body)",
    "$seq": "$seq_{k=a}^{b}(body)",
    "$integral": "$integral_{a}^{b}(body, x) or $integral(body, x)",
    "$limit": "$limit_{x->a}(body)",
    "$diff": "$diff(body, x) or $diff(body, x, n)",
}

# Each notation in its written form with concrete arguments (every shape it accepts).
CONCRETE: dict[str, list[str]] = {
    "$sum": ["$sum_{k=1}^{3}(k)"],
    "$prod": ["$prod_{k=1}^{3}(k)"],
    "$seq": ["$seq_{k=1}^{3}(k)"],
    "$integral": ["$integral_{0}^{1}(x, x)", "$integral(x, x)"],
    "$limit": ["$limit_{x->0}(x)"],
    "$diff": ["$diff(x, x)", "$diff(x, x, 2)"],
    "$len": ["$len(@arr)"],
    "$transpose": ["$transpose(@mat)"],
}
SLOTS: dict[str, Value] = {
    "arr": q(np.array([1.0, 2.0, 3.0])),
    "mat": q(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), "metre"),
    "V": q(12.0, "volt"),
    "n": q(4.0),
    "sum": q(1.0),
    "abs": q(2.0),
    "ohm": q(3.0),
}


def concrete(n: Notation) -> list[str]:
    if n.name in CONCRETE:
        return CONCRETE[n.name]
    if n.kind is Kind.CONSTANT:
        return [n.name]
    return [n.name + "(" + ", ".join(["0.5"] * n.arities[0]) + ")"]


def test_the_table_holds_exactly_the_35_names_with_their_written_forms() -> None:
    """Spec: docs/reference/notations.md (notation)."""
    assert len(NOTATIONS) == 35
    assert {n.name: n.written for n in NOTATIONS} == MANUAL_WRITTEN_FORMS
    assert list(BY_NAME) == list(MANUAL_WRITTEN_FORMS)
    kinds = [n.kind for n in NOTATIONS]
    assert kinds.count(Kind.CONSTANT) == 5
    assert kinds.count(Kind.FUNCTION) == 24
    assert kinds.count(Kind.BOUNDED) == 6
    assert [n.name for n in NOTATIONS if n.kind is Kind.FUNCTION and n.arities == (2,)] == [
        "$atan2",
        "$min",
        "$max",
        "$mod",
    ]
    assert BY_NAME["$diff"].arities == (2, 3) and BY_NAME["$integral"].arities == (2,)
    unevaluable = [n.name for n in NOTATIONS if not n.evaluable]
    assert unevaluable == ["$integral", "$limit", "$diff"]


@pytest.mark.parametrize("notation", NOTATIONS, ids=lambda n: n.name)
def test_every_notation_parses_in_its_written_form(notation: Notation) -> None:
    """Spec: docs/reference/notations.md (the namespace and the positions)."""
    for text in concrete(notation):
        assert not isinstance(compile_formula(text), Failure), text
        result = evaluate(text, SLOTS)
        if notation.evaluable:
            assert not isinstance(result, Failure) or result.code is ErrorCode.UNDEFINED_RESULT
        else:
            assert isinstance(result, Failure)
            assert result.code is ErrorCode.UNSUPPORTED_SYMBOL
            assert notation.written in result.message


@pytest.mark.parametrize(
    "notation", [n for n in NOTATIONS if n.kind is not Kind.CONSTANT], ids=lambda n: n.name
)
def test_a_wrong_argument_count_is_invalid_arity_repeating_the_written_form(
    notation: Notation,
) -> None:
    """Spec: docs/reference/notations.md (the namespace and the positions)."""
    for text in concrete(notation):
        head, _, _ = text.rpartition("(")
        for count in range(0, 5):
            if count in notation.arities:
                continue
            wrong = head + "(" + ", ".join(["1"] * count) + ")"
            message = refused(wrong, ErrorCode.INVALID_ARITY, SLOTS)
            assert notation.written in message and str(count) in message


def test_an_unknown_notation_lists_the_whole_vocabulary() -> None:
    """Spec: docs/reference/notations.md (the namespace and the positions)."""
    for text in ("$foo", "$Sqrt(2)", "$sum_k", "$pi2", "$integ(x, x)"):
        message = refused(text, ErrorCode.INVALID_NOTATION)
        assert "35" in message and VOCABULARY in message
        for n in NOTATIONS:
            assert n.name in message


def test_slot_names_never_collide_with_notation() -> None:
    """Spec: docs/reference/notations.md (the namespace and the positions)."""
    assert scalar("@sum + @abs + @ohm + $abs(-1)", SLOTS) == 7.0


@pytest.mark.parametrize("name", ["$pi", "$e", "$inf", "$i", "$j"])
@pytest.mark.parametrize("suffix", ["()", "(1)", "_{1}", "_"])
def test_a_constant_takes_no_parenthesis_and_no_position(name: str, suffix: str) -> None:
    """Spec: docs/reference/notations.md (constants)."""
    message = refused(name + suffix, ErrorCode.INVALID_NOTATION)
    assert f"write it bare as {name}" in message and f"{name}^2" in message


def test_the_constants_have_their_values_and_inf_is_no_result() -> None:
    """Spec: docs/reference/notations.md (constants)."""
    assert scalar("$pi") == math.pi
    assert scalar("$e") == math.e
    assert scalar("$i") == 1j and scalar("$j") == 1j
    assert scalar("$atan($inf)") == pytest.approx(math.pi / 2)
    assert scalar("1/$inf") == 0.0
    refused("$inf", ErrorCode.UNDEFINED_RESULT)


@pytest.mark.parametrize(
    "notation", [n for n in NOTATIONS if n.kind is Kind.FUNCTION], ids=lambda n: n.name
)
def test_a_function_without_parentheses_or_with_a_subscript_repeats_its_written_form(
    notation: Notation,
) -> None:
    """Spec: docs/reference/notations.md (functions)."""
    assert notation.written in refused(notation.name, ErrorCode.INVALID_NOTATION)
    assert notation.written in refused(notation.name + " + 1", ErrorCode.INVALID_NOTATION)
    with_sub = notation.name + "_{1}(" + ", ".join(["1"] * notation.arities[0]) + ")"
    assert notation.written in refused(with_sub, ErrorCode.INVALID_NOTATION)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$abs(-3)", 3.0),
        ("$abs(3+4j)", 5.0),
        ("$sqrt(9)", 3.0),
        ("$sqrt(-4+0j)", 2j),
        ("$exp(1)", math.e),
        ("$exp($i*$pi)", -1 + 0j),
        ("$ln($e)", 1.0),
        ("$ln(-1+0j)", math.pi * 1j),
        ("$log(1000)", 3.0),
        ("$log(-100+0j)", cmath.log10(-100)),
        ("$sin($pi/2)", 1.0),
        ("$cos(0)", 1.0),
        ("$tan($pi/4)", 1.0),
        ("$asin(1)", math.pi / 2),
        ("$acos(1)", 0.0),
        ("$asin(2+0j)", cmath.asin(2)),
        ("$atan(1)", math.pi / 4),
        ("$floor(-1.5)", -2.0),
        ("$ceil(-1.5)", -1.0),
        ("$floor(2)", 2.0),
        ("$sign(-3)", -1.0),
        ("$sign(0)", 0.0),
        ("$sign(0.1)", 1.0),
        ("$re(3+4j)", 3.0),
        ("$im(3+4j)", 4.0),
        ("$im(3)", 0.0),
        ("$arg(1j)", math.pi / 2),
        ("$arg(-2)", math.pi),
        ("$arg(2)", 0.0),
        ("$conj(3+4j)", 3 - 4j),
        ("$conj(2)", 2.0),
        ("$len(@arr)", 3.0),
        ("$atan2(1, 0)", 0.0),
        ("$atan2(0, 1)", math.pi / 2),
        ("$atan2(-1, 0)", math.pi),
        ("$atan2(1, 1)", math.pi / 4),
        ("$min(2, -3)", -3.0),
        ("$max(2, -3)", 2.0),
        ("$mod(7, 3)", 1.0),
        ("$mod(-7, 3)", -1.0),
        ("$mod(7, -3)", 1.0),
        ("$mod(5.5, 2)", 1.5),
    ],
)
def test_each_function_computes_its_mathematical_value(
    text: str, expected: float | complex
) -> None:
    """Spec: docs/reference/notations.md (functions)."""
    got = scalar(text, SLOTS)
    assert type(got) is type(expected), (text, got)
    assert got == pytest.approx(expected, abs=1e-12)


def test_len_counts_the_outer_elements_and_transpose_transposes() -> None:
    """Spec: docs/reference/notations.md (functions)."""
    assert scalar("$len(@mat)", SLOTS) == 2.0
    assert leaves("$transpose(@mat)", SLOTS) == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    assert value_of("$transpose(@mat)", SLOTS).vector == vec("metre")  # type: ignore[union-attr]
    mixed = {"m": q([[1.0, 2j], [3.0, 4.0]])}
    assert leaves("$transpose(@m)", mixed) == [[1.0, 3.0], [2j, 4.0]]
    assert scalar("$len(@e)", {"e": q([])}) == 0.0


@pytest.mark.parametrize("arg", ["@V", "2", "@arr", "$seq_{k=1}^{2}($seq_{j=1}^{k}(j))"])
def test_len_and_transpose_refuse_the_wrong_value(arg: str) -> None:
    """Spec: docs/reference/notations.md (functions)."""
    if arg not in ("@arr", "$seq_{k=1}^{2}($seq_{j=1}^{k}(j))"):
        assert "array" in refused(f"$len({arg})", ErrorCode.INVALID_ARGS, SLOTS)
    assert "rectangular" in refused(f"$transpose({arg})", ErrorCode.INVALID_ARGS, SLOTS)


# -- 5.4 bounded forms -------------------------------------------------------------------------


def test_sum_prod_and_seq_fold_and_collect_over_their_range() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    assert scalar("$sum_{k=1}^{4}(k)") == 10.0
    assert scalar("$prod_{k=1}^{4}(k)") == 24.0
    assert leaves("$seq_{k=0}^{3}(k^2)") == [0.0, 1.0, 4.0, 9.0]
    assert scalar("$sum_{k=-2}^{2}(k)") == 0.0
    assert scalar("$sum_{k=5}^{5}(k)") == 5.0
    assert leaves("$seq_{k=1}^{2}($seq_{j=1}^{3}(k*j))") == [[1, 2, 3], [2, 4, 6]]


def test_the_bound_variable_is_a_dimensionless_real() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    values = leaves("$seq_{k=1}^{3}(k)")
    assert all(type(v) is float for v in values)
    value = value_of("$seq_{k=1}^{3}(k*@V)", SLOTS)
    assert isinstance(value, Quantity) and value.vector == vec("volt")
    assert value_of("$sum_{k=1}^{3}(k)").vector == vec("dim-less")  # type: ignore[union-attr]


def test_sum_and_prod_fold_with_the_operators_vector_arithmetic() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    assert value_of("$sum_{k=1}^{3}(@V)", SLOTS).vector == vec("volt")  # type: ignore[union-attr]
    assert value_of("$prod_{k=1}^{3}(@V)", SLOTS).vector == (6, 3, -9, -3, 0, 0, 0)  # type: ignore[union-attr]
    refused("$sum_{k=1}^{2}(@V^k)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    refused("$seq_{k=1}^{2}(@V^k)", ErrorCode.INCOMPATIBLE_DIMENSION, SLOTS)
    assert leaves("$sum_{k=1}^{2}(@arr*k)", SLOTS) == [3.0, 6.0, 9.0]


class CountingSlots(Mapping[str, Value]):
    """A slot table that counts how often each slot is looked up."""

    def __init__(self, slots: dict[str, Value]) -> None:
        self.slots = slots
        self.lookups: dict[str, int] = {}

    def __getitem__(self, key: str) -> Value:
        self.lookups[key] = self.lookups.get(key, 0) + 1
        return self.slots[key]

    def get(self, key: str, default: object = None) -> Value | None:  # type: ignore[override]
        self.lookups[key] = self.lookups.get(key, 0) + 1
        return self.slots.get(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.slots)

    def __len__(self) -> int:
        return len(self.slots)


@pytest.mark.parametrize("body", ["@x*k", "@x^1*k"])
def test_bounds_are_evaluated_once_before_the_body(body: str) -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    # Both an element-wise body (run over all steps at once) and a stepped one.
    slots = CountingSlots({"lo": q(1.0), "hi": q(5.0), "x": q(2.0)})
    result = evaluate(f"$sum_{{k=@lo}}^{{@hi}}({body})", slots)
    assert isinstance(result, Evaluated) and result.value.payload == 30.0  # type: ignore[union-attr]
    assert slots.lookups["lo"] == 1 and slots.lookups["hi"] == 1 and slots.lookups["x"] >= 1
    assert list(result.reads) == ["lo", "hi", "x"]


def test_the_variable_is_visible_only_inside_its_own_body() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    for text in (
        "$sum_{k=1}^{3}(k) + k",
        "$sum_{k=1}^{k}(1)",
        "$sum_{k=k}^{3}(1)",
        "$seq_{k=1}^{2}(1) * k",
        "$sum_{i=1}^{2}(i) + $sum_{j=1}^{2}(i)",
    ):
        assert "'k'" in refused(text, ErrorCode.NAME_NOT_BOUND) or "'i'" in refused(
            text, ErrorCode.NAME_NOT_BOUND
        )


def test_an_outer_variable_reaches_inner_bounds_and_bodies() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    assert scalar("$sum_{i=1}^{3}($sum_{j=1}^{i}(1))") == 6.0
    assert scalar("$sum_{i=1}^{3}($sum_{j=1}^{2}(i*j))") == 18.0


def test_a_nested_variable_of_the_same_name_shadows_the_outer_one() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    assert scalar("$sum_{k=1}^{2}($sum_{k=10}^{11}(k))") == 42.0
    assert scalar("$sum_{k=1}^{2}(k + $sum_{k=10}^{10}(k) + k)") == 26.0
    assert scalar("$sum_{k=1}^{2}($sum_{k=k}^{2}(k))") == 5.0


@pytest.mark.parametrize(
    "bounds", ["_{k=1.5}^{3}", "_{k=1}^{@V}", "_{k=1}^{1j}", "_{k=1}^{@arr}", "_{k=$inf}^{1}"]
)
def test_a_bound_must_be_a_dimensionless_integer(bounds: str) -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    for name in ("$sum", "$prod", "$seq"):
        message = refused(f"{name}{bounds}(k)", ErrorCode.INVALID_INDEX, SLOTS)
        assert "bound" in message and "whole number" in message


def test_a_complex_bound_with_im_zero_is_an_integer() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    assert scalar("$sum_{k=0j}^{2+0j}(k)") == 3.0


def test_a_lower_bound_above_the_upper_one_is_invalid_index() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    message = refused("$sum_{k=3}^{1}(k)", ErrorCode.INVALID_INDEX)
    assert "3" in message and "1" in message and "swap" in message


def test_a_range_over_max_bounded_steps_is_refused_before_the_body_runs() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    text = f"$sum_{{k=1}}^{{{MAX_BOUNDED_STEPS + 1}}}(@nope)"
    message = refused(text, ErrorCode.INVALID_INDEX)
    assert str(MAX_BOUNDED_STEPS) in message and "MAX_BOUNDED_STEPS" in message
    huge = refused("$prod_{k=1}^{1e300}(k)", ErrorCode.INVALID_INDEX)
    assert "MAX_BOUNDED_STEPS" in huge


def test_enclosing_ranges_multiply_into_the_step_limit() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    message = refused("$sum_{i=1}^{1000}($seq_{j=1}^{1001}(1))", ErrorCode.INVALID_INDEX)
    assert "1000 enclosing steps" in message and "MAX_BOUNDED_STEPS" in message
    message = refused(
        "$sum_{i=1}^{100}($sum_{j=1}^{100}($sum_{m=1}^{101}(1)))", ErrorCode.INVALID_INDEX
    )
    assert "10000 enclosing steps" in message
    assert scalar("$sum_{i=1}^{10}(1) + $sum_{j=1}^{10}($sum_{m=1}^{10}(1))") == 110.0


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("$integral_{0}^{1}(x^2, x)", "$integral"),
        ("$integral(x^2, x)", "$integral"),
        ("$limit_{x->0}($sin(x)/x)", "$limit"),
        ("$diff(x^2, x)", "$diff"),
        ("$diff(x^3, x, 2)", "$diff"),
        ("1 + $integral(@nope, x)", "$integral"),
        # A slot read only inside one, then another after it: the later slot keeps its name.
        ("$integral_{0}^{1}(@V, x) + @V", "$integral"),
        ("$diff(@V*x, x) - @V", "$diff"),
        ("$limit_{x->0}(@V*x) * @V", "$limit"),
    ],
)
def test_the_unevaluable_three_are_refused_with_their_written_form(text: str, name: str) -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    message = refused(text, ErrorCode.UNSUPPORTED_SYMBOL)
    assert BY_NAME[name].written in message and "closed form" in message


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("$sum(k)", ErrorCode.INVALID_ARITY),
        ("$seq(1)", ErrorCode.INVALID_ARITY),
        ("$limit(x)", ErrorCode.INVALID_ARITY),
        ("$sum_{k->1}^{2}(k)", ErrorCode.INVALID_ARITY),
        ("$sum_{k=1}(k)", ErrorCode.INVALID_ARITY),
        ("$prod_{1}^{2}(1)", ErrorCode.INVALID_ARITY),
        ("$limit_{x=0}(x)", ErrorCode.INVALID_ARITY),
        ("$limit_{0}(x)", ErrorCode.INVALID_ARITY),
        ("$limit_{x->0}^{1}(x)", ErrorCode.INVALID_ARITY),
        ("$integral_{x=0}^{1}(x, x)", ErrorCode.INVALID_ARITY),
        ("$integral_{0}(x, x)", ErrorCode.INVALID_ARITY),
        ("$integral^{1}(x, x)", ErrorCode.INVALID_ARITY),
        ("$diff_{x}(x, x)", ErrorCode.INVALID_NOTATION),
        ("$diff_{x}^{2}(x, x)", ErrorCode.INVALID_NOTATION),
        ("$sum_{k=1}^{2}", ErrorCode.INVALID_NOTATION),
        ("$sum_{k=1}^{2} + 1", ErrorCode.INVALID_NOTATION),
        ("$diff", ErrorCode.INVALID_NOTATION),
    ],
)
def test_a_position_out_of_place_is_refused_with_the_written_form(
    text: str, code: ErrorCode
) -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    message = refused(text, code)
    name = text[: text.index("_")] if "_" in text else text.split("(")[0].split(" ")[0]
    name = name.split("^")[0]
    assert BY_NAME[name].written in message


def test_an_unevaluable_body_is_still_parsed_first() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    refused("$integral($foo, x)", ErrorCode.INVALID_NOTATION)
    refused("$diff(2x, x)", ErrorCode.INVALID_IDENTIFIER)


def test_a_bare_name_inside_a_position_is_still_a_bound_variable() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    assert "'n'" in refused("$sum_{k=1}^{n}(k)", ErrorCode.NAME_NOT_BOUND)
    assert scalar("$sum_{k=1}^{@n}(k)", SLOTS) == 10.0


STEP_BODIES = [
    "k",
    "@V*$sin(2*$pi*k/1000)",
    "1/k",
    "$ln(k)",
    "$sqrt(k-2)",
    "k*@arr",
    "$atan2(k, 1)",
    "$min(k, 2)",
    "-k/3",
    "$mod(k, 3)",
    "k*$i",
    "$abs(k-5)*@V",
    "@nope*k",
    "x*k",
    "1e308*k*k",
    "$exp(k*300)",
    "k/(k-k)",
    "$floor(k/2) + $ceil(k/3)",
    "$conj(k) - $re(k) + $im(k)*@V/@V",
    "$asin(k/10)",
    "$tan(k) * $cos(k) - $sign(k - 1)",
    "@V/@V + k*(2 + 3*@n) - @n",
]


@contextmanager
def _at_once_from(steps: int) -> Iterator[None]:
    """Forms of at least `steps` steps try all steps at once (a huge number: none does)."""
    with patch.object(bounded, "AT_ONCE_FROM", steps):
        yield


@pytest.mark.parametrize("name", ["$seq", "$sum", "$prod"])
@pytest.mark.parametrize("body", STEP_BODIES)
def test_an_element_wise_body_gives_exactly_what_the_steps_give(name: str, body: str) -> None:
    for lo, hi in ((0, 12), (-3, 3), (1, 1)):
        formula = f"{name}_{{k={lo}}}^{{{hi}}}({body})"
        with _at_once_from(1):
            at_once = evaluate(formula, SLOTS)
        with _at_once_from(10**9):
            stepped = evaluate(formula, SLOTS)
        if isinstance(stepped, Failure):
            assert at_once == stepped
            continue
        assert isinstance(at_once, Evaluated)
        assert at_once.value.vector == stepped.value.vector  # type: ignore[union-attr]
        got, want = at_once.value.payload, stepped.value.payload  # type: ignore[union-attr]
        assert type(got) is type(want)
        got = got.tolist() if isinstance(got, np.ndarray) else got
        want = want.tolist() if isinstance(want, np.ndarray) else want
        assert got == want  # bit for bit, not approximately
        assert list(at_once.reads) == list(stepped.reads)


def test_the_element_wise_bodies_above_do_run_all_steps_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    stepped: list[str] = []
    original = bounded._spend_steps

    def spy(run: Any, form: bounded.Form, count: int, enclosing: int) -> None:
        stepped.append(form.name)
        original(run, form, count, enclosing)

    monkeypatch.setattr(bounded, "_spend_steps", spy)
    for name in ("$seq", "$sum", "$prod"):
        assert isinstance(evaluate(f"{name}_{{k=1}}^{{50}}(@V*$sin(k)/@V)", SLOTS), Evaluated)
        assert isinstance(evaluate(f"{name}_{{k=1}}^{{50}}(k^2)", SLOTS), Evaluated)
        # An array at every step: the lanes hold scalars, so these take the steps.
        assert isinstance(evaluate(f"{name}_{{k=1}}^{{50}}(k*@arr)", SLOTS), Evaluated)
    assert stepped == ["$seq", "$sum", "$prod"]


ELEMENTS = [0.0, -0.0, 0.5, -0.5, 1.0, 2.5, 1e-300, 700.0, -3.0, 1e300]
UNARY_FUNCTIONS = [
    n.name
    for n in NOTATIONS
    if n.kind is Kind.FUNCTION and n.arities == (1,) and n.name not in ("$len", "$transpose")
]


@pytest.mark.parametrize("name", UNARY_FUNCTIONS)
@pytest.mark.parametrize("cut", [slice(0, 2), slice(2, 6), slice(0, 10), slice(4, 8)])
def test_a_function_of_an_array_maps_exactly_as_over_its_elements(name: str, cut: slice) -> None:
    """Spec: docs/reference/notations.md (functions)."""
    elements = ELEMENTS[cut]
    slots = {"a": q(np.array(elements))}
    mapped = evaluate(f"$atan({name}(@a))" if name != "$exp" else f"{name}(@a)*0", slots)
    singles = [
        evaluate(f"$atan({name}(@a[{i}]))" if name != "$exp" else f"{name}(@a[{i}])*0", slots)
        for i in range(len(elements))
    ]
    failures = [s for s in singles if isinstance(s, Failure)]
    if isinstance(mapped, Failure):
        assert failures and failures[0].code is mapped.code, (mapped, failures)
        return
    assert not failures
    got = np.asarray(mapped.value.payload).tolist()  # type: ignore[union-attr]
    want = [s.value.payload for s in singles]  # type: ignore[union-attr]
    assert [math.copysign(1, x) if x == 0 else x for x in got] == [
        math.copysign(1, x) if x == 0 else x for x in want
    ]  # bit for bit, the sign of zero included


def test_a_stepped_body_over_max_call_work_is_refused_before_it_runs() -> None:
    """Issue 8: within the step limit, yet a billion operations; refused before step one.
    Spec: docs/reference/notations.md (bounded forms).
    (The stepped rule: issue 27's lanes answer the nested form at its real cost.)"""
    heavy = "+".join(["k^1"] * 1000)
    with _at_once_from(10**9):
        message = refused(f"$sum_{{k=1}}^{{1000000}}({heavy} + @nope)", ErrorCode.INVALID_INDEX)
        assert "MAX_CALL_WORK" in message and str(MAX_CALL_WORK) in message
        assert "1000000 steps" in message
        nested = refused(
            f"$seq_{{i=1}}^{{1000}}($sum_{{k=1}}^{{1000}}({heavy}))", ErrorCode.INVALID_INDEX
        )
        assert "MAX_CALL_WORK" in nested and "enclosing steps" in nested


def test_array_terms_weigh_their_elements_in_the_work() -> None:
    """Issue 8: a fold of whole arrays pays for every element it adds.
    Spec: docs/reference/notations.md (bounded forms)."""
    big = {"big": q(np.zeros(1_000_000))}
    assert "MAX_CALL_WORK" in refused("$sum_{k=1}^{300}(@big)", ErrorCode.INVALID_INDEX, big)
    assert len(leaves("$sum_{k=1}^{10}(@big)", big)) == 1_000_000


def test_an_element_wise_body_is_not_held_to_the_work_limit() -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    light = "+".join(["k"] * 100)
    assert scalar(f"$sum_{{k=1}}^{{1000000}}({light})") == 100 * 1_000_000 * 1_000_001 / 2
