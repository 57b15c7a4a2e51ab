"""Property tests (issue 2, "Bad input"; docs/reference/codes.md): whatever arrives, the core
answers a
value or one of the 19 codes, never raises, and never reports ENGINE_UNKNOWN_ERROR."""

from __future__ import annotations

import math
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reckoner import wire
from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ALL_NAMES
from reckoner.contract.limits import MAX_NESTING_DEPTH
from reckoner.core import bounded
from reckoner.core.api import Evaluated, check_name, evaluate, parse_value, render_value, stored
from reckoner.core.errors import EngineError, Failure
from reckoner.core.lexer import KIND, POS, TEXT, T, tokenize
from reckoner.core.notation import BY_NAME, NOTATIONS, Kind
from reckoner.core.values import Quantity, Value

# The long variants: twenty times the examples of the short ones in the default run.
SLOW = settings(max_examples=4000)


def _slot_table() -> dict[str, Value]:
    raw = {
        "V": {"num": 12, "dim": "volt"},
        "R": {"num": 4.7e3, "dim": "ohm"},
        "zero": {"num": 0},
        "neg": {"num": -2.5},
        "tiny": {"num": 5e-324},
        "huge": {"num": 1.7e308},
        "z": {"re": 3, "im": -4, "dim": "ohm"},
        "w": {"mag": 2, "ang": 1},
        "a": {"array": [1, 2, 3]},
        "e": {"array": []},
        "m": {"array": [[1, 2], [3, 4]], "dim": "metre"},
        "ragged": {"array": [[1], [2, {"re": 0, "im": 1}], []]},
        "c": {"array": [{"re": 1, "im": 1}, 0]},
        "o": {
            "object": {"v": {"num": 1, "dim": "volt"}, "p": {"array": [0, 1]}, "n": {"object": {}}}
        },
        "t": {"num": 25, "dim": "degC"},
    }
    table: dict[str, Value] = {}
    for name, tagged in raw.items():
        value = parse_value(tagged)
        assert not isinstance(value, Failure), value
        table[name] = value
    return table


SLOTS = _slot_table()
FUNCTIONS = [n for n in NOTATIONS if n.kind is Kind.FUNCTION]
CONSTANTS = [n.name for n in NOTATIONS if n.kind is Kind.CONSTANT]

numbers = st.sampled_from(
    [
        "0",
        "1",
        "2",
        "3",
        "0.5",
        "2.5e-3",
        "1e5",
        "1e308",
        "1e-320",
        "308",
        "1e300",
        "2j",
        "4i",
        "0j",
        "1e3i",
        "7",
        "10",
        "1e400",
        "2e",
        "2.",
        "1E5",
        "2x",
        "-1",
    ]
)
slot_refs = st.sampled_from([f"@{name}" for name in SLOTS] + ["@missing", "@V.x", "@o.v"])
bound_names = st.sampled_from(["k", "x", "j", "n"])
bounds = st.sampled_from(
    ["0", "1", "3", "-2", "2.5", "300", "2e6", "1e300", "@V", "1j", "$inf", "k"]
)


def _expressions() -> st.SearchStrategy[str]:
    leaves = st.one_of(numbers, slot_refs, bound_names, st.sampled_from(CONSTANTS))

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        def call(args: list[str], which: int) -> str:
            n = FUNCTIONS[which % len(FUNCTIONS)]
            return f"{n.name}({', '.join(args)})"

        def bounded(name: str, var: str, lo: str, hi: str, body: str) -> str:
            return f"{name}_{{{var}={lo}}}^{{{hi}}}({body})"

        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "^"]), inner).map(
                lambda t: f"{t[0]} {t[1]} {t[2]}"
            ),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
            st.tuples(st.lists(inner, min_size=0, max_size=3), st.integers(0, 100)).map(
                lambda t: call(*t)
            ),
            st.tuples(
                st.sampled_from(["$sum", "$prod", "$seq"]), bound_names, bounds, bounds, inner
            ).map(lambda t: bounded(*t)),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(inner, st.sampled_from(["v", "p", "n", "x"])).map(lambda t: f"{t[0]}.{t[1]}"),
            inner.map(lambda e: f"$integral_{{0}}^{{1}}({e}, x)"),
            inner.map(lambda e: f"$limit_{{x->0}}({e})"),
            inner.map(lambda e: f"$diff({e}, x)"),
        )

    return st.recursive(leaves, extend, max_leaves=12)


expressions = _expressions()
FORMULA_ALPHABET = "0123456789abcxyzeEijk_$@+-*/^()[]{},.=> \t\n"
token_soup = st.text(alphabet=FORMULA_ALPHABET, max_size=60)
any_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=60)


def _nested(kind: str, depth: int) -> str:
    wrappers = {
        "paren": ("(", ")"),
        "abs": ("$abs(", ")"),
        "index": ("@a[", "]"),
        "pow": ("2^(", ")"),
        "seq": ("$sum_{k=0}^{0}(", ")"),
    }
    opening, closing = wrappers[kind]
    return opening * depth + "1" + closing * depth


deep_formulas = st.tuples(
    st.sampled_from(["paren", "abs", "index", "pow", "seq"]),
    st.integers(MAX_NESTING_DEPTH - 5, MAX_NESTING_DEPTH + 5),
).map(lambda t: _nested(*t))
long_names = st.integers(1, 9000).map(lambda n: "@" + "a" * n + " + 1")
giant = st.sampled_from(
    [
        "2^2^2^2^2^2",
        "10^308*10",
        "(1e308+1e308j)*(1e308+1e308j)",
        "$exp(1e308)",
        "@huge*@huge",
        "@huge^@huge",
        "@tiny/@huge",
        "$sum_{k=1}^{1000000000}(k)",
        "$seq_{k=-1e300}^{1e300}(k)",
        "$prod_{k=1}^{1000}($prod_{j=1}^{1001}(1))",
        "@V^1e300",
        "@V^-1e300",
        "@m^$inf",
        "$floor($inf-$inf)",
        "$atan2($inf, $inf)",
        "$mod($inf, 1)",
        "@a^@a^@a^@a",
        "@z^@z^@z",
    ]
)


def _check_answer(formula: Any, result: Evaluated | Failure) -> None:
    if isinstance(result, Failure):
        assert isinstance(result.code, ErrorCode)
        assert result.code is not ErrorCode.UNKNOWN_ERROR, (formula, result)
        assert result.message and "\n" not in result.message, (formula, result)
        return
    # Whatever the core answers can be stored and written: finite, whole, JSON-ready.
    text = wire.dumps_text(stored(result.value))
    assert "NaN" not in text and "Infinity" not in text
    assert isinstance(result.reads, dict)


def _evaluate_twice(formula: Any) -> None:
    first = evaluate(formula, SLOTS)
    _check_answer(formula, first)
    second = evaluate(formula, SLOTS)
    # Deterministic: the same slot table and formula give the same answer.
    if isinstance(first, Failure):
        assert second == first
    else:
        assert isinstance(second, Evaluated)
        assert wire.dumps(stored(second.value)) == wire.dumps(stored(first.value))


@given(expressions)
def test_grammar_formulas_answer_a_value_or_a_code(formula: str) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    _evaluate_twice(formula)


@given(st.one_of(token_soup, any_text))
def test_random_text_answers_a_value_or_a_code(formula: str) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    _evaluate_twice(formula)


@given(st.one_of(deep_formulas, long_names, giant))
def test_adversarial_formulas_answer_a_value_or_a_code(formula: str) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    _evaluate_twice(formula)


@given(st.tuples(expressions, any_text, expressions).map(lambda t: f"{t[0]}{t[1]}{t[2]}"))
def test_non_ascii_or_control_text_inside_a_formula_is_refused_by_the_charset(
    formula: str,
) -> None:
    """Spec: docs/guide/formulas.md (the charset and the literals)."""
    result = evaluate(formula, SLOTS)
    _check_answer(formula, result)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    outside = [c for c in formula if c not in FORMULA_ALPHABET + letters]
    if outside:
        # The scanner reads the whole text before anything else can fail.
        assert isinstance(result, Failure)
        if result.code is ErrorCode.INVALID_FORMULA and "U+" in result.message:
            named = chr(int(result.message.split("U+", 1)[1].split(")")[0], 16))
            assert named in outside or named == ">"


@given(expressions, st.sampled_from(["$seq", "$sum", "$prod"]), st.integers(-4, 2))
def test_all_steps_at_once_gives_exactly_what_the_steps_give(body: str, name: str, lo: int) -> None:
    """Spec: docs/reference/notations.md (bounded forms)."""
    formula = f"{name}_{{k={lo}}}^{{{lo + 6}}}({body})"
    with patch.object(bounded, "AT_ONCE_FROM", 1):
        at_once = evaluate(formula, SLOTS)
    with patch.object(bounded, "AT_ONCE_FROM", 10**9):
        stepped = evaluate(formula, SLOTS)
    if isinstance(stepped, Failure) or isinstance(at_once, Failure):
        assert at_once == stepped  # the same code and the same sentence
        return
    # Bit for bit, the sign of zero included (stored forms keep it, issue 8).
    assert wire.dumps(stored(at_once.value)) == wire.dumps(stored(stepped.value))
    assert list(at_once.reads) == list(stepped.reads)


# -- tagged values and tool-argument shapes ----------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
numeric_positions = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False), st.integers(-(10**6), 10**6), json_scalars
)
dims = st.one_of(
    st.none(),
    st.sampled_from(ALL_NAMES),
    st.sampled_from(["volts", "", "Ohm", "degF"]),
    st.lists(
        st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.booleans(), st.integers()),
        min_size=5,
        max_size=8,
    ),
    json_scalars,
)


def _tagged() -> st.SearchStrategy[Any]:
    def with_dim(bag: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.one_of(st.just(bag), dims.map(lambda d: {**bag, "dim": d}))

    elements = st.recursive(
        st.one_of(
            numeric_positions,
            st.fixed_dictionaries({"re": numeric_positions, "im": numeric_positions}),
            st.fixed_dictionaries({"mag": numeric_positions, "ang": numeric_positions}),
            json_values,
        ),
        lambda inner: st.lists(inner, max_size=4),
        max_leaves=10,
    )
    scalars = st.one_of(
        st.fixed_dictionaries({"num": numeric_positions}),
        st.fixed_dictionaries({"re": numeric_positions, "im": numeric_positions}),
        st.fixed_dictionaries({"mag": numeric_positions, "ang": numeric_positions}),
        st.fixed_dictionaries({"array": st.lists(elements, max_size=5)}),
    ).flatmap(with_dim)
    return st.recursive(
        st.one_of(scalars, json_values),
        lambda inner: st.one_of(
            st.fixed_dictionaries(
                {
                    "object": st.dictionaries(
                        st.sampled_from(["a", "b_1", "1x", "", "é"]), inner, max_size=3
                    )
                }
            ),
            st.fixed_dictionaries({"array": st.lists(inner, max_size=3)}),
        ),
        max_leaves=6,
    )


tagged_values = _tagged()
forms = st.one_of(st.none(), st.sampled_from(["rect", "polar", "Rect", ""]), json_scalars)
digit_args = st.one_of(
    st.none(), st.integers(-2, 20), st.floats(allow_nan=True, allow_infinity=True), json_scalars
)


@given(tagged_values, forms, digit_args, dims)
def test_set_and_get_answer_a_value_or_a_code(raw: Any, form: Any, digits: Any, dim: Any) -> None:
    """Spec: docs/guide/formulas.md (values)."""
    value = parse_value(raw)
    if isinstance(value, Failure):
        assert value.code is not ErrorCode.UNKNOWN_ERROR, (raw, value)
        assert value.message and "\n" not in value.message
        return
    echo = wire.dumps_text(stored(value))  # every stored value can be written
    assert "NaN" not in echo and "Infinity" not in echo
    # A get receipt with no options stores back exactly (docs/guide/formulas.md).
    receipt = render_value(value, None, None, None)
    assert not isinstance(receipt, Failure)
    again = parse_value(wire.loads(wire.dumps(receipt)))
    assert not isinstance(again, Failure), (receipt, again)
    # An exact reading keeps the sign of zero, so the receipt stores back bit for bit.
    assert wire.dumps(stored(again)) == wire.dumps(stored(value))
    rendered = render_value(value, form, digits, dim)
    if isinstance(rendered, Failure):
        assert rendered.code is not ErrorCode.UNKNOWN_ERROR, (raw, form, digits, dim, rendered)
    else:
        reparsed = parse_value(wire.loads(wire.dumps(rendered)))
        assert not isinstance(reparsed, Failure) or reparsed.code is not ErrorCode.UNKNOWN_ERROR


@given(json_values)
def test_any_json_as_a_tool_argument_answers_a_code(raw: Any) -> None:
    """Spec: docs/reference/codes.md (the failure shape)."""
    for result in (parse_value(raw), evaluate(raw, SLOTS), render_value(SLOTS["o"], raw, raw, raw)):
        if isinstance(result, Failure):
            assert result.code is not ErrorCode.UNKNOWN_ERROR, (raw, result)
    failure = check_name(raw, "name")
    assert failure is None or failure.code is ErrorCode.INVALID_IDENTIFIER


@given(st.one_of(any_text, json_values))
def test_check_name_accepts_exactly_the_name_rule(raw: Any) -> None:
    """Spec: docs/guide/formulas.md (the slot table and its rules)."""
    failure = check_name(raw, "name")
    expected_ok = (
        isinstance(raw, str)
        and bool(raw)
        and raw.isascii()
        and (raw[0].isalpha() or raw[0] == "_")
        and all(c.isalnum() or c == "_" for c in raw)
    )
    assert (failure is None) == expected_ok, raw


@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=30)
)
def test_element_wise_arithmetic_matches_numpy(items: list[float]) -> None:
    """Spec: docs/guide/formulas.md (arrays)."""
    slots = {"x": Quantity(np.array(items), (0, 0, 0, 0, 0, 0, 0))}
    with np.errstate(all="ignore"):
        want = np.array(items) * 2.0 - np.array(items) / 3.0
    result = evaluate("@x*2 - @x/3", slots)
    if not bool(np.isfinite(want).all()):
        assert isinstance(result, Failure) and result.code is ErrorCode.UNDEFINED_RESULT
        return
    assert isinstance(result, Evaluated)
    assert np.asarray(result.value.payload).tolist() == want.tolist()  # type: ignore[union-attr]


@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6).filter(lambda b: b != 0))
def test_mod_is_fmod_and_atan2_is_the_angle_of_the_point(a: float, b: float) -> None:
    """Spec: docs/reference/notations.md (functions)."""
    slots = {"a": Quantity(a), "b": Quantity(b)}
    mod = evaluate("$mod(@a, @b)", slots)
    assert isinstance(mod, Evaluated) and mod.value.payload == math.fmod(a, b)  # type: ignore[union-attr]
    angle = evaluate("$atan2(@a, @b)", slots)
    assert isinstance(angle, Evaluated)
    assert angle.value.payload == math.atan2(b, a)  # type: ignore[union-attr]


# -- heavier variants ---------------------------------------------------------------------------


@pytest.mark.slow
@SLOW
@given(st.one_of(expressions, token_soup, any_text, deep_formulas, long_names, giant))
def test_slow_formulas_answer_a_value_or_a_code(formula: str) -> None:
    """The long variant (4,000 examples of every generator at once) of the grammar, random
    text and adversarial tests above, which run by default.
    Spec: docs/reference/codes.md (the failure shape)."""
    _evaluate_twice(formula)


@pytest.mark.slow
@SLOW
@given(tagged_values, forms, digit_args, dims)
def test_slow_set_and_get_answer_a_value_or_a_code(
    raw: Any, form: Any, digits: Any, dim: Any
) -> None:
    """The long variant (4,000 examples) of test_set_and_get_answer_a_value_or_a_code, which
    runs by default. Spec: docs/guide/formulas.md (values)."""
    test_set_and_get_answer_a_value_or_a_code.hypothesis.inner_test(raw, form, digits, dim)  # type: ignore[attr-defined]


@given(st.one_of(expressions, token_soup))
def test_each_token_the_scanner_makes_is_the_text_at_its_position(formula: str) -> None:
    """docs/guide/formulas.md: the scanner reads names, slots, notations and numbers whole; each
    token
    is the formula's own text at the position it reports (a slot without its @), in order.
    Spec: docs/guide/formulas.md (the charset and the literals)."""
    try:
        tokens = tokenize(formula, frozenset(BY_NAME))
    except EngineError:
        return
    assert tokens[-1][KIND] is T.END and tokens[-1][POS] == len(formula)
    end = 0
    for token in tokens[:-1]:
        assert token[POS] >= end and formula[end : token[POS]].strip(" \t\n") == ""
        written = "@" + token[TEXT] if token[KIND] is T.SLOT else token[TEXT]
        assert formula[token[POS] : token[POS] + len(written)] == written
        end = token[POS] + len(written)
