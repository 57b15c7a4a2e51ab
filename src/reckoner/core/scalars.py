"""The scalar kinds as mypy can narrow them.

A scalar is a Python ``float`` or ``complex`` (an ``int`` only where an exact integer is
meant). Under mypy's numeric promotion ``float | complex`` never narrows on
``type(x) is complex``, which would leave the arithmetic untyped; these guards narrow it.
"""

from __future__ import annotations

from typing_extensions import TypeIs

Real = float
Scalar = float | complex


def is_complex(x: Scalar) -> TypeIs[complex]:
    """True for a complex scalar (a Python complex), False for a real one."""
    return type(x) is complex


def is_real(x: Scalar) -> TypeIs[float]:
    """True for a real scalar (float or int), False for a complex one."""
    return type(x) is not complex
