"""The direct routes of a chain's nested nodes (docs/decisions/eval-speed.md) answer what the
general rule answers: `binary` applied left to right over the operands' values.

A chain's first operators are compiled as two-operand nodes whose scalar operands (real or
complex) skip `operate`; this checks every such route against the rule it stands for,
refusals included (by their code: the rule is applied here without positions).
"""

from __future__ import annotations

from random import Random

from core_helpers import q
from hypothesis import given, settings
from hypothesis import strategies as st

from reckoner import wire
from reckoner.core.api import Evaluated, evaluate, stored
from reckoner.core.arithmetic import binary
from reckoner.core.errors import EngineError, Failure
from reckoner.core.values import Quantity

SLOTS = {
    "V": q(12.0, "volt"),
    "R": q(4.7e3, "ohm"),
    "z": q(complex(3.0, -4.0), "ohm"),
    "x": q(0.75),
    "w": q(complex(0.0, 1.0)),
}
OPERANDS = [
    "@V", "@R", "@z", "@x", "@w", "2", "0", "1.5", "(-0.0)", "1e308", "$j", "$pi",
    "(2+3*$j)", "(0*$j)",
]  # fmt: skip


def _value(operand: str) -> Quantity:
    got = evaluate(operand, SLOTS)
    assert isinstance(got, Evaluated), got
    value = got.value
    assert isinstance(value, Quantity)
    return value


def _by_rule(operands: list[str], ops: list[str]) -> Quantity | str:
    """binary folded left to right; a refusal as its code."""
    value = _value(operands[0])
    try:
        for op, operand in zip(ops, operands[1:], strict=True):
            value = binary(op, value, _value(operand), 0)
    except EngineError as error:
        return error.failure.code.value
    return value


_chains = st.tuples(
    st.lists(st.sampled_from(OPERANDS), min_size=2, max_size=12),
    st.sampled_from(["+-", "*/"]),  # one precedence level: a chain applies it left to right
    st.randoms(use_true_random=False),
)


@settings(max_examples=400, deadline=None)
@given(_chains)
def test_a_chain_answers_what_binary_folded_left_to_right_answers(
    case: tuple[list[str], str, Random],
) -> None:
    operands, level, random = case
    ops = [random.choice(level) for _ in operands[1:]]
    pairs = zip(ops, operands[1:], strict=True)
    text = operands[0] + "".join(op + operand for op, operand in pairs)
    got = evaluate(text, SLOTS)
    expected = _by_rule(operands, ops)
    if isinstance(expected, str):
        assert isinstance(got, Failure) and got.code.value == expected, (text, got)
        return
    if isinstance(got, Failure):
        # The rule gave a value no slot may hold (an infinity): the eval refuses it at the end.
        assert got.code.value == "ENGINE_UNDEFINED_RESULT", (text, got)
        return
    assert wire.dumps(stored(got.value)) == wire.dumps(stored(expected)), text
