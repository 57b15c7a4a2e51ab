"""The slowest calls at the array limit (issue 8): sets, gets and evals of a million
complex elements (rectangular, polar) and of 500,000 pairs, and sets of a million reals
with a dim and with a unit (each number converted exactly, as alone), each timed as thread
CPU time, best of `--rounds` rounds, against the ceiling of issue 27: no call on these
machines takes more than 2 s.

These are the calls the fuzz run in `tests/service/test_fuzz_engine.py` found slowest; the
list printed here is what the README's "No call runs for seconds" quotes.

Run: ``uv run python bench/bench_largest_calls.py [--top N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from typing import Any

from reckoner import Engine

ELEMENTS = 1_000_000
CEILING_S = 2.0


def _calls() -> list[tuple[str, dict[str, Any]]]:
    sets: dict[str, Any] = {
        "cplx": {"array": [{"re": k + 0.5, "im": 1.5} for k in range(ELEMENTS)]},
        "polar": {"array": [{"mag": k + 0.5, "ang": 1.5} for k in range(ELEMENTS)]},
        "pairs": {"array": [[k + 0.5, 1.5] for k in range(ELEMENTS // 2)]},
    }
    calls: list[tuple[str, dict[str, Any]]] = [
        ("set", {"name": name, "value": value}) for name, value in sets.items()
    ]
    reals = [k * 0.37 + 0.1 for k in range(ELEMENTS)]
    calls.append(("set", {"name": "speeds", "value": {"array": reals, "unit": "km/h"}}))
    calls.append(
        ("set", {"name": "speeds", "value": {"array": reals, "dim": [1, 0, -1] + [0] * 4}})
    )
    for name in sets:
        for reading in ({}, {"form": "polar"}, {"digits": 3}, {"form": "rect", "digits": 3}):
            calls.append(("get", {"name": name, **reading}))
        calls.append(("eval", {"formula": f"@{name}", "target": "out"}))
        calls.append(("eval", {"formula": f"@{name}+@{name}", "target": "out"}))
    return calls


def _label(tool: str, args: dict[str, Any], receipt: dict[str, Any]) -> str:
    shown = {k: v for k, v in args.items() if k != "value"}
    tag = {k: v for k, v in args.get("value", {}).items() if k in ("unit", "dim")}
    if tag:
        shown["value"] = tag
    return f"{tool} {shown} ok={receipt['ok']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=10, help="how many of the slowest to print")
    parser.add_argument("--rounds", type=int, default=1, help="each call's best of this many")
    options = parser.parse_args()
    calls = _calls()
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as home, Engine(home=home) as engine:
        assert engine.call("record_start", {"title": "the largest calls"})["ok"]
        for _ in range(options.rounds):
            for tool, args in calls:
                started = time.thread_time()
                receipt = engine.call(tool, args)
                took = time.thread_time() - started
                label = _label(tool, args, receipt)
                # A server drops each receipt once written out; kept alive here, a large
                # one would be walked by the next call's cycle collections.
                del receipt
                best[label] = min(best.get(label, math.inf), took)
    print(
        f"the {options.top} slowest of {len(calls)} calls, thread CPU time, best of "
        f"{options.rounds} (ceiling {CEILING_S:.0f} s):"
    )
    for what, took in sorted(best.items(), key=lambda item: -item[1])[: options.top]:
        mark = "over" if took > CEILING_S else "within"
        print(f"  {took:5.2f} s  {mark:6}  {what}")


if __name__ == "__main__":
    main()
