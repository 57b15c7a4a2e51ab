"""Issue 27, "Vectorised bounded forms": the issue's forms through ``Engine.call("eval")``
against numpy doing the same math and writing the same trace row.

Every engine call is the real thing: a record open in a temporary home, a fresh formula
text each call (parsed and compiled), the body run over all steps at once, the slot and
the trace row written to the record file before the receipt. The reference computes the
same numbers the natural numpy way and writes the row the engine writes (the slots read
and the result, spelled by orjson) with one write. Also measured, once per form: the same
form through the core with every form taking its steps (the rule before issue 27, with the
work limit lifted), for the speed-up.

Target: each form within 5x numpy plus the row write, i.e. engine <= 5 * numpy + row.
The ratios use process CPU time, best of interleaved rounds.

Run: ``uv run python bench/bench_bounded.py [--calls N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import orjson

from reckoner import Engine
from reckoner.core import bounded, work
from reckoner.core.api import Evaluated, evaluate, parse_value

N = 100_000
DIMLESS = [0, 0, 0, 0, 0, 0, 0]


@dataclass(frozen=True)
class Case:
    formula: str
    numpy: Callable[[], Any]
    reads: tuple[str, ...]  # the slots the row's vars carry


def _cases(a: np.ndarray[Any, Any], dt: float) -> list[Case]:
    # Each reference makes the steps' values itself, as the form does (np.arange).
    return [
        Case(
            "$sum_{k=1}^{100000}(1/k^2)",
            lambda: float(np.sum(1.0 / np.arange(1, N + 1, dtype=np.float64) ** 2)),
            (),
        ),
        Case("$sum_{k=0}^{99999}(@a[k]^2)", lambda: float(np.sum(a**2)), ("a",)),
        Case(
            "$seq_{k=0}^{99999}(@a[k]*$sin(k*@dt))",
            lambda: a * np.sin(np.arange(N, dtype=np.float64) * dt),
            ("a", "dt"),
        ),
        Case(
            "$seq_{k=0}^{9999}($sum_{j=0}^{9}(k*j))",
            lambda: (np.arange(10_000.0)[:, None] * np.arange(10.0)[None, :]).sum(axis=1),
            (),
        ),
    ]


def _row(case: Case, seq: int, slots: dict[str, Any], result: Any) -> bytes:
    spelled = {"array": result} if isinstance(result, np.ndarray) else {"num": result}
    row = {
        "seq": seq,
        "at": 1_700_000_000_000,
        "tool": "eval",
        "ok": True,
        "content": {
            "formula": case.formula,
            "target": "out",
            "rev": 1,
            "vars": {name: {**slots[name], "dim": DIMLESS} for name in case.reads},
            "result": {**spelled, "dim": DIMLESS},
        },
    }
    return orjson.dumps(row, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n"


def _stepped_seconds(case: Case, slots: dict[str, Any]) -> float:
    """The form through the core with every form taking its steps (the limit lifted)."""
    values = {}
    for name, tagged in slots.items():
        value = parse_value(
            {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in tagged.items()}
        )
        assert not isinstance(value, Exception) and not hasattr(value, "code")
        values[name] = value
    with (
        patch.object(bounded, "AT_ONCE_FROM", 10**9),
        patch.object(bounded, "MAX_CALL_WORK", 10**9),
        patch.object(work, "MAX_CALL_WORK", 10**9),
    ):
        started = time.process_time()
        result = evaluate(case.formula, values)  # type: ignore[arg-type]
        elapsed = time.process_time() - started
    assert isinstance(result, Evaluated), result
    return elapsed


def bench(root: Path, calls: int, rounds: int) -> list[tuple[str, float, float, float, float]]:
    rng = np.random.default_rng(27)
    a = rng.standard_normal(N)
    dt = 0.001
    slots: dict[str, Any] = {"a": {"array": a}, "dt": {"num": dt}}
    cases = _cases(a, dt)
    fresh = iter(range(10**9))
    best: dict[tuple[str, str], float] = {}
    with (
        Engine(root / "bounded") as engine,
        (root / "reference.jsonl").open("ab", buffering=0) as sink,
    ):
        engine.call("record_start", {"title": "bounded forms"})
        assert engine.call("set", {"name": "a", "value": {"array": a.tolist()}})["ok"]
        assert engine.call("set", {"name": "dt", "value": {"num": dt}})["ok"]
        fd = sink.fileno()
        seq = iter(range(10, 10**9))
        for _ in range(rounds):
            for case in cases:
                texts = [case.formula + " " * (1 + next(fresh) % 7) for _ in range(calls)]

                def ours(texts: list[str] = texts) -> None:
                    for text in texts:
                        receipt = engine.call("eval", {"formula": text, "target": "out"})
                        assert receipt["ok"], receipt

                def numpy_only(case: Case = case) -> None:
                    for _ in range(calls):
                        case.numpy()

                def numpy_and_row(case: Case = case) -> None:
                    for _ in range(calls):
                        os.write(fd, _row(case, next(seq), slots, case.numpy()))

                for side, loop in (("ours", ours), ("numpy", numpy_only), ("row", numpy_and_row)):
                    started = time.process_time()
                    loop()
                    elapsed = (time.process_time() - started) / calls
                    key = (case.formula, side)
                    best[key] = min(best.get(key, math.inf), elapsed)
    table = []
    for case in cases:
        ours_s, numpy_s = best[(case.formula, "ours")], best[(case.formula, "numpy")]
        row_s = best[(case.formula, "row")] - numpy_s  # the row's spelling and write alone
        table.append(
            (case.formula, ours_s, numpy_s, max(row_s, 0.0), _stepped_seconds(case, slots))
        )
    return table


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reckoner-bench-bounded-"))
    try:
        table = bench(root, options.calls, options.rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"Engine.call('eval') of the issue's bounded forms, best of {options.rounds} rounds")
    print(f"of {options.calls} calls (process CPU time)\n")
    print(
        "| form | engine | numpy | row write | 5x numpy + row | engine / (5x numpy + row) "
        "| steps (before) |"
    )
    print("|---|---|---|---|---|---|---|")
    for formula, ours, numpy_s, row, stepped in table:
        target = 5 * numpy_s + row
        print(
            f"| `{formula}` | {_ms(ours)} | {_ms(numpy_s)} | {_ms(row)} | {_ms(target)} | "
            f"{ours / target:.2f} | {_ms(stepped)} |"
        )
    print("\ntarget: engine / (5x numpy + row) <= 1 for every form")


if __name__ == "__main__":
    main()
