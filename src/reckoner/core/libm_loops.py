"""Which numpy loops give the C library's doubles, so that a real array may be mapped in C.

One decision lives here: numpy's float64 `sin` and `cos` loops, in the numpy this project
locks (2.4), call the C library's `sin` and `cos` for each element, the functions math.sin
and math.cos call, so they give the same doubles without a Python call per element. Other
loops (exp, log, tan, power) are numpy's own SIMD code on AVX-512 machines and differ from
the C library in the last place on some arguments, so they are never stood in for it
(docs/decisions/bounded-forms.md). numpy's main branch has its own SIMD sine again, so each
loop is trusted only after a probe finds it agreeing.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]

_LOOPS: dict[str, tuple[Callable[[Array], Array], Callable[[float], float]]] = {
    "$sin": (np.sin, math.sin),
    "$cos": (np.cos, math.cos),
}
_PROBE_SIZE = 8192


def libm_loop(name: str) -> Callable[[Array], Array] | None:
    """numpy's loop for the function `name` ($sin, $cos) when it gives what the C library
    gives, else None: map the scalar function instead."""
    if name not in _LOOPS or not _agrees(name):
        return None
    return _LOOPS[name][0]


@functools.cache
def _agrees(name: str) -> bool:
    """True when numpy's loop gives the C library's double for every argument of a fixed
    probe over the magnitudes 1e-11 to 1e11, contiguous and strided: an implementation of
    its own (a SIMD sine within an ulp or two) differs from it on a share of such
    arguments, and is then not used."""
    rng = np.random.default_rng(27)
    probe = rng.standard_normal(_PROBE_SIZE) * np.exp(rng.uniform(-25.0, 25.0, _PROBE_SIZE))
    loop, scalar = _LOOPS[name]
    for view in (probe, probe[::3]):
        libm = np.fromiter(map(scalar, view.tolist()), np.float64, view.size)
        if not np.array_equal(loop(view), libm):
            return False
    return True
