"""The pure core: formulas, values and dimensions. No I/O, no clock, nothing else of reckoner."""

from .api import (
    Evaluated,
    admit,
    check_name,
    compile_formula,
    evaluate,
    parse_value,
    render_value,
    stored,
)
from .errors import ErrorCode, Failure
from .values import Obj, Quantity, Value

__all__ = [
    "ErrorCode",
    "Evaluated",
    "Failure",
    "Obj",
    "Quantity",
    "Value",
    "admit",
    "check_name",
    "compile_formula",
    "evaluate",
    "parse_value",
    "render_value",
    "stored",
]
