"""Where a repeated scalar eval's time goes (issue 27's fresh-text figures sit on it).

One `Engine.call("eval")` of `@V/@R` with a record open, then its parts called alone on the
same engine: the operation (arguments, program, run, slot write, row content, and its row:
an eval without a reading appends its own, see service.operations), the run of the compiled
program, the trace append (the row encoded and handed to the OS in one write) and its
encoding alone. Best of the rounds, microseconds a call; the parts do not add up to the
whole exactly (the call's gate and its lock are the rest).

Run: ``uv run python bench/bench_eval_parts.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

from reckoner import Engine, wire
from reckoner.core.api import compile_formula, run_program
from reckoner.core.errors import Failure
from reckoner.storage.record_format import encode_plain_row, encode_row

ARGS = {"formula": "@V/@R", "target": "out"}


def _best_us(action: Callable[[], object], rounds: int, number: int = 20_000) -> float:
    return min(timeit.repeat(action, number=number, repeat=rounds)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    root = Path(tempfile.mkdtemp(prefix="reckoner-bench-parts-"))
    try:
        with Engine(root / "home") as engine:
            engine.call("record_start", {"title": "parts"})
            engine.call("set", {"name": "V", "value": {"num": 230.0, "dim": "volt"}})
            engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
            assert engine.call("eval", ARGS)["ok"]
            # The engine's own parts, reached as the engine reaches them.
            operation = engine._operations["eval"]
            trace = engine._trace
            program = compile_formula(ARGS["formula"])
            assert not isinstance(program, Failure), program
            view = engine._slots.formula_view()
            operation(ARGS)
            last = (engine.home / "open-record.jsonl").read_bytes().splitlines()[-1]
            row = wire.loads(last)
            content = row["content"]
            parts = {
                "Engine.call('eval')": lambda: engine.call("eval", ARGS),
                "the operation (its row too)": lambda: operation(ARGS),
                "  the compiled program's run": lambda: run_program(program, view),
                "  the trace append": lambda: trace.append("eval", True, content, plain=True),
                "    the row's encoding": lambda: encode_plain_row(row),
                "    with the scan for whole doubles": lambda: encode_row(row),
            }
            for label, action in parts.items():
                print(f"{label:<38}{_best_us(action, rounds):6.2f} us")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
