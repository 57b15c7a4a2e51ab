"""What `unit` and `read` cost (issue 14), each against its reference in the same run.

(a) A `set` with a cached unit (`{"num": x, "unit": "kOhm"}`) against the same `set` with
    `dim` (`{"num": x, "dim": "ohm"}`), trace rows written. Target: within 1.2x.
(b) An `eval` with `read` (`{"unit": "mW", "digits": 4}`) against the `eval` plus the `get`
    it replaces. Target: below 1x.
(c) An `eval` whose `read` is a list of two units (mW and W) against the `eval` plus the two
    `get`s it replaces. Target: below 1x.
(d) A `set` with `read` (a kOhm given read in ohm) against the `set` plus the `get` it
    replaces. Target: below 1x.

Run: ``uv run python bench/bench_units.py [--calls N] [--repeats N]``.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reckoner import Engine


def _best(loops: dict[str, Callable[[], None]], repeats: int) -> dict[str, float]:
    """Interleave the sides so a busy moment of the shared machine hits both alike."""
    best = dict.fromkeys(loops, float("inf"))
    for _ in range(repeats):
        for side, loop in loops.items():
            start = time.process_time()
            loop()
            best[side] = min(best[side], time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    options = parser.parse_args()
    calls = options.calls
    with tempfile.TemporaryDirectory() as root, Engine(Path(root) / "home") as engine:
        engine.call("record_start", {"title": "unit benchmark"})
        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
        engine.call("set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}})  # warm cache
        numbers = [1.0 + (i % 97) / 10 for i in range(calls)]
        by_dim = [{"name": "R", "value": {"num": x * 1000, "dim": "ohm"}} for x in numbers]
        by_unit = [{"name": "R", "value": {"num": x, "unit": "kOhm"}} for x in numbers]
        step = {"formula": "@V^2/@R", "target": "P"}
        read = {**step, "read": {"unit": "mW", "digits": 4}}
        get = {"name": "P", "unit": "mW", "digits": 4}
        get_w = {"name": "P", "unit": "W", "digits": 4}
        read_two = {**step, "read": [{"unit": "mW", "digits": 4}, {"unit": "W", "digits": 4}]}
        read_ohm = {"unit": "ohm", "digits": 4}
        set_read = [{**args, "read": read_ohm} for args in by_unit]
        get_ohm = {"name": "R", **read_ohm}

        def sets(batch: list[dict[str, object]]) -> Callable[[], None]:
            def loop() -> None:
                for args in batch:
                    engine.call("set", args)

            return loop

        def repeated(*sequence: tuple[str, dict[str, object]]) -> Callable[[], None]:
            """The same calls, in order, once per loop step."""

            def loop() -> None:
                for _ in range(calls):
                    for tool, args in sequence:
                        engine.call(tool, args)

            return loop

        def set_then_get() -> None:
            for args in by_unit:
                engine.call("set", args)
                engine.call("get", get_ohm)

        assert engine.call("eval", read)["value"]["unit"] == "mW"
        assert [v["unit"] for v in engine.call("eval", read_two)["value"]] == ["mW", "W"]
        assert engine.call("set", set_read[0])["value"]["unit"] == "ohm"
        gc.collect()
        gc.freeze()
        best = _best(
            {
                "set dim": sets(by_dim),
                "set unit": sets(by_unit),
                "eval+read": repeated(("eval", read)),
                "eval, get": repeated(("eval", step), ("get", get)),
                "eval+read list": repeated(("eval", read_two)),
                "eval, get, get": repeated(("eval", step), ("get", get), ("get", get_w)),
                "set+read": sets(set_read),
                "set, get": set_then_get,
            },
            options.repeats,
        )
    us = {side: seconds / calls * 1e6 for side, seconds in best.items()}
    print(f"calls per side: {calls}, best of {options.repeats} (process time)")
    print(
        f"(a) set with a cached unit {us['set unit']:.1f} us vs set with dim "
        f"{us['set dim']:.1f} us: {us['set unit'] / us['set dim']:.2f}x (target within 1.2x)"
    )
    print(
        f"(b) eval with read {us['eval+read']:.1f} us vs eval + get {us['eval, get']:.1f} us: "
        f"{us['eval+read'] / us['eval, get']:.2f}x (target below 1x)"
    )
    print(
        f"(c) eval with a read list of 2 units {us['eval+read list']:.1f} us vs eval + get + get "
        f"{us['eval, get, get']:.1f} us: {us['eval+read list'] / us['eval, get, get']:.2f}x "
        f"(target below 1x)"
    )
    print(
        f"(d) set with read {us['set+read']:.1f} us vs set + get {us['set, get']:.1f} us: "
        f"{us['set+read'] / us['set, get']:.2f}x (target below 1x)"
    )


if __name__ == "__main__":
    main()
