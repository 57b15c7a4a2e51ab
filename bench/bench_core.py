"""The pure core's speed against pint and against the floor, measured in the same run (issue 2).

For ten realistic agent formulas, one call of ``reckoner.core.api.evaluate`` (parse cached by
the formula's text, then dimension-checked evaluation and the storable check) is timed
against pint doing the same unit-checked arithmetic in its natural idiom (numpy-backed
quantities where pint vectorises), and against the floor: plain Python floats or numpy with
no units at all. Each figure is the best of several interleaved ``timeit`` rounds, per call.

Run: ``uv run python bench/bench_core.py [--repeat N]``.
Targets: the core at least 3x faster than pint on the geometric mean, and element-wise
arithmetic on 100,000 elements within 5x of numpy.
"""

from __future__ import annotations

import argparse
import cmath
import math
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pint

from reckoner.core.api import Evaluated, evaluate, parse_value, render_value
from reckoner.core.errors import Failure
from reckoner.core.values import Value

ureg = pint.UnitRegistry()
Q_ = ureg.Quantity
N_ARRAY = 100_000


@dataclass(frozen=True)
class Case:
    name: str
    formula: str
    core: Callable[[], Any]
    pint: Callable[[], Any]
    floor: Callable[[], Any]


def _slots() -> dict[str, Value]:
    rng = np.random.default_rng(7)
    raw: dict[str, Any] = {
        "V": {"num": 230.0, "dim": "volt"},
        "I": {"num": 16.0, "dim": "ampere"},
        "R": {"num": 4.7e3, "dim": "ohm"},
        "C": {"num": 2.2e-6, "dim": "farad"},
        "L": {"num": 1e-3, "dim": "henry"},
        "f": {"num": 50.0, "dim": "hertz"},
        "z": {"re": 3.0, "im": 4.0, "dim": "ohm"},
        "T": {"num": 21.5, "dim": "degC"},
        "dT": {"num": 3.25, "dim": "kelvin"},
        "x": {"array": rng.random(N_ARRAY).tolist(), "dim": "ohm"},
        "y": {"array": rng.random(N_ARRAY).tolist(), "dim": "ohm"},
    }
    slots: dict[str, Value] = {}
    for name, tagged in raw.items():
        value = parse_value(tagged)
        assert not isinstance(value, Failure), value
        slots[name] = value
    return slots


def _cases() -> list[Case]:
    slots = _slots()
    x_np = np.asarray(slots["x"].payload)  # type: ignore[union-attr]
    y_np = np.asarray(slots["y"].payload)  # type: ignore[union-attr]
    v, i, r, c, ind, f = 230.0, 16.0, 4.7e3, 2.2e-6, 1e-3, 50.0
    z = complex(3.0, 4.0)
    t_k, dt = 21.5 + 273.15, 3.25
    pv, pi_, pr = Q_(v, "volt"), Q_(i, "ampere"), Q_(r, "ohm")
    pc, pl, pf = Q_(c, "farad"), Q_(ind, "henry"), Q_(f, "hertz")
    pz = Q_(z, "ohm")
    pt, pdt = Q_(t_k, "kelvin"), Q_(dt, "kelvin")
    px, py = Q_(x_np, "ohm"), Q_(y_np, "ohm")
    pk = np.arange(1000)

    def core(formula: str) -> Callable[[], Any]:
        def call() -> Any:
            result = evaluate(formula, slots)
            assert isinstance(result, Evaluated), result
            return result.value

        return call

    def degc_core() -> Any:
        result = evaluate("@T + @dT", slots)
        assert isinstance(result, Evaluated), result
        return render_value(result.value, None, None, "degC")

    rlc = "@R + $j*(2*$pi*@f*@L - 1/(2*$pi*@f*@C))"
    angle = "$abs(@z)*$cos($atan2($re(@z), $im(@z)))"
    sum20 = "$sum_{k=1}^{20}(@V/(k*@R))"
    seq1000 = "$seq_{k=0}^{999}(@V*$sin(2*$pi*k/1000))"
    return [
        Case("Ohm's law", "@V/@R", core("@V/@R"), lambda: pv / pr, lambda: v / r),
        Case("power V^2/R", "(@V)^2/@R", core("(@V)^2/@R"), lambda: pv**2 / pr, lambda: v**2 / r),
        Case("RC time constant", "@R*@C", core("@R*@C"), lambda: pr * pc, lambda: r * c),
        Case(
            "RLC impedance",
            rlc,
            core(rlc),
            lambda: pr + 1j * (2 * math.pi * pf * pl - 1 / (2 * math.pi * pf * pc)),
            lambda: r + 1j * (2 * math.pi * f * ind - 1 / (2 * math.pi * f * c)),
        ),
        Case(
            "three-phase power",
            "$sqrt(3)*@V*@I",
            core("$sqrt(3)*@V*@I"),
            lambda: math.sqrt(3) * pv * pi_,
            lambda: math.sqrt(3) * v * i,
        ),
        Case(
            "20-term $sum",
            sum20,
            core(sum20),
            lambda: sum((pv / (k * pr) for k in range(2, 21)), pv / pr),
            lambda: sum(v / (k * r) for k in range(1, 21)),
        ),
        Case(
            "1,000-point $seq",
            seq1000,
            core(seq1000),
            lambda: pv * np.sin(2 * np.pi * pk / 1000),
            lambda: [v * math.sin(2 * math.pi * k / 1000) for k in range(1000)],
        ),
        Case(
            "100k element-wise",
            "@x*2 + @y",
            core("@x*2 + @y"),
            lambda: px * 2 + py,
            lambda: x_np * 2 + y_np,
        ),
        Case(
            "$atan2/$abs on a complex",
            angle,
            core(angle),
            lambda: abs(pz) * np.cos(np.arctan2(pz.imag, pz.real)),
            lambda: abs(z) * math.cos(cmath.phase(z)),
        ),
        Case(
            "degC via get dim",
            "@T + @dT, get dim degC",
            degc_core,
            lambda: (pt + pdt).to("degC"),
            lambda: t_k + dt - 273.15,
        ),
    ]


def _check(case: Case) -> None:
    """The three sides compute the same number, so the timings compare like with like."""
    ours = case.core()
    if isinstance(ours, dict):
        got: Any = ours["num"]
    else:
        got = ours.payload
    theirs = case.pint()
    want = theirs.magnitude if hasattr(theirs, "magnitude") else theirs
    floor = case.floor()
    assert np.allclose(np.asarray(got), np.asarray(want), rtol=1e-9), case.name
    assert np.allclose(np.asarray(got), np.asarray(floor), rtol=1e-9), case.name


def best_per_call(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """Seconds per call of each function: the best of `repeat` rounds, each round timing the
    functions in turn (~0.05 s each), so a burst of load elsewhere hits all sides alike."""
    timers = [timeit.Timer(fn) for fn in fns]
    numbers = [max(1, timer.autorange()[0] // 4) for timer in timers]
    best = [math.inf] * len(fns)
    for _ in range(repeat):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(numbers[i]) / numbers[i])
    return best


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:10.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="timing rounds (best is kept)")
    args = parser.parse_args()
    cases = _cases()
    print(
        f"{'formula':28} {'core us':>10} {'pint us':>10} {'floor us':>10} "
        f"{'pint/core':>10} {'core/floor':>10}"
    )
    speedups: list[float] = []
    overheads: list[float] = []
    element_wise = 0.0
    for case in cases:
        _check(case)
        core, theirs, floor = best_per_call([case.core, case.pint, case.floor], args.repeat)
        speedups.append(theirs / core)
        overheads.append(core / floor)
        if case.name.startswith("100k"):
            element_wise = core / floor
        print(
            f"{case.name:28} {_us(core)} {_us(theirs)} {_us(floor)} "
            f"{theirs / core:9.2f}x {core / floor:9.2f}x"
        )
    speedup = geomean(speedups)
    print()
    print(f"geometric mean: core is {speedup:.2f}x faster than pint (target >= 3x)")
    print(f"geometric mean: core costs {geomean(overheads):.2f}x the floor")
    print(f"100k element-wise: core costs {element_wise:.2f}x numpy (target <= 5x)")
    met = speedup >= 3.0 and element_wise <= 5.0
    print("targets met" if met else "TARGET MISSED")


if __name__ == "__main__":
    main()
