"""The pure core: formulas, values and dimensions. No I/O, no clock, nothing else of reckoner.

The names below load on first use: a caller that needs only the contract or the limits (the
pitfalls hook, which must start fast) does not pay for numpy and the evaluator.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from reckoner.contract.codes import ErrorCode

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
    from .errors import Failure
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


def __getattr__(name: str) -> object:
    if name in ("ErrorCode", "Failure"):
        from . import errors

        return getattr(errors, name)
    if name in ("Obj", "Quantity", "Value"):
        from . import values

        return getattr(values, name)
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'reckoner.core' has no attribute {name!r}")
