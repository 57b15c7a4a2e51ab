"""Small helpers shared by the pure core's tests: run a formula, expect a value or a code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import ROW_BY_NAME, ZERO, Vector
from reckoner.core.api import Evaluated, evaluate, parse_value, render_value
from reckoner.core.errors import Failure
from reckoner.core.values import Obj, Quantity, Value


def vec(name: str) -> Vector:
    """The vector of a table name."""
    return ROW_BY_NAME[name].vector


def q(payload: Any, dim: str | Vector = ZERO) -> Quantity:
    """A quantity from a plain payload and a table name or vector."""
    vector = vec(dim) if isinstance(dim, str) else dim
    if isinstance(payload, int):
        payload = float(payload)
    return Quantity(payload, vector)


def run(formula: Any, slots: Mapping[str, Value] | None = None) -> Evaluated | Failure:
    return evaluate(formula, slots or {})


def value_of(formula: str, slots: Mapping[str, Value] | None = None) -> Value:
    """The value of a formula that must succeed."""
    result = run(formula, slots)
    assert isinstance(result, Evaluated), f"{formula!r} failed: {result}"
    return result.value


def scalar(formula: str, slots: Mapping[str, Value] | None = None) -> float | complex:
    value = value_of(formula, slots)
    assert isinstance(value, Quantity) and not value.is_array, value
    payload = value.payload
    assert isinstance(payload, float | complex)
    return payload


def leaves(formula: str, slots: Mapping[str, Value] | None = None) -> list[Any]:
    """The elements of an array result as a nested list."""
    value = value_of(formula, slots)
    assert isinstance(value, Quantity) and value.is_array, value
    payload = value.payload
    return payload.tolist() if isinstance(payload, np.ndarray) else list(payload)  # type: ignore[arg-type]


def failure(formula: Any, slots: Mapping[str, Value] | None = None) -> Failure:
    """The failure of a formula that must be refused."""
    result = run(formula, slots)
    assert isinstance(result, Failure), f"{formula!r} was accepted: {result}"
    return result


def refused(formula: Any, code: ErrorCode, slots: Mapping[str, Value] | None = None) -> str:
    """Assert the refusal's code and hand back its sentence."""
    result = failure(formula, slots)
    assert result.code is code, f"{formula!r}: expected {code}, got {result}"
    assert result.code is not ErrorCode.UNKNOWN_ERROR
    return result.message


def set_value(raw: Any) -> Value:
    value = parse_value(raw)
    assert not isinstance(value, Failure), f"{raw!r} refused: {value}"
    return value


def set_refused(raw: Any, code: ErrorCode) -> str:
    value = parse_value(raw)
    assert isinstance(value, Failure), f"{raw!r} accepted: {value}"
    assert value.code is code, f"{raw!r}: expected {code}, got {value}"
    return value.message


def get(value: Value, form: Any = None, digits: Any = None, dim: Any = None) -> Any:
    rendered = render_value(value, form, digits, dim)
    assert not isinstance(rendered, Failure), rendered
    return rendered


def get_refused(
    value: Value, code: ErrorCode, form: Any = None, digits: Any = None, dim: Any = None
) -> str:
    rendered = render_value(value, form, digits, dim)
    assert isinstance(rendered, Failure), f"accepted: {rendered}"
    assert rendered.code is code, rendered
    return rendered.message


def obj(**fields: Value) -> Obj:
    return Obj(dict(fields))
