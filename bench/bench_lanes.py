"""An ``eval`` call with other engines active on the same home, beside the single-engine
figure, in one run (issue 9).

Two homes. On the *shared* home, ``--others`` child processes each hold a lane with an
open record and keep calling (``set`` then ``eval``, one pair every ``--pause-ms``); on the
*alone* home this process's engine is the only one. The children run during both sides, so
the machine's load is the same for both. Each side is measured in a fresh process (an
engine's speed drifts with where its process put things in memory), the sides alternating
round by round, and the best of each is kept. The ratio is what sharing a home costs one call.
Target: shared within 1.1x of alone.

Run: ``uv run python bench/bench_lanes.py [--calls N] [--repeats N] [--others N]``.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reckoner import Engine

CHILD = """
import sys, time
from reckoner import Engine
home, pause = sys.argv[1], float(sys.argv[2]) / 1000
engine = Engine(home)
engine.call("record_start", {"title": f"busy neighbour on lane {engine.lane}"})
engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
print(engine.lane, flush=True)
step = 0
while True:
    step += 1
    engine.call("set", {"name": "V", "value": {"num": 1 + step % 97, "dim": "volt"}})
    engine.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    time.sleep(pause)
"""


def _prepared(home: Path) -> Engine:
    engine = Engine(home)
    engine.call("record_start", {"title": "Benchmark"})
    engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
    engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
    return engine


def _eval_loop(engine: Engine, calls: int) -> tuple[float, float]:
    """Wall-clock and process CPU seconds of ``calls`` eval calls."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        receipt = engine.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert receipt["ok"] is True
    return wall, cpu


def measure(home: Path, calls: int, loops: int) -> None:
    """One side in a fresh process: the best of ``loops`` eval loops, in us per call."""
    with _prepared(home) as engine:
        gc.collect()
        gc.freeze()
        timings = [_eval_loop(engine, calls) for _ in range(loops)]
        wall = min(t[0] for t in timings) / calls * 1e6
        cpu = min(t[1] for t in timings) / calls * 1e6
        print(f"{engine.lane} {wall:.4f} {cpu:.4f}", flush=True)
        engine.call("record_end", {})


def _side(home: Path, calls: int, loops: int) -> tuple[int, float, float]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--measure",
            str(home),
            "--calls",
            str(calls),
            "--loops",
            str(loops),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lane, wall, cpu = done.stdout.split()
    return int(lane), float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="eval calls per loop")
    parser.add_argument("--loops", type=int, default=3, help="loops per measuring process")
    parser.add_argument("--repeats", type=int, default=7, help="measuring processes per side")
    parser.add_argument("--others", type=int, default=3, help="neighbour engine processes")
    parser.add_argument("--pause-ms", type=float, default=5.0, help="neighbours' pause")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure is not None:
        measure(options.measure, options.calls, options.loops)
        return
    root = Path(tempfile.mkdtemp(prefix="reckoner-bench-lanes-"))
    neighbours: list[subprocess.Popen[str]] = []
    try:
        homes = {"alone": root / "alone", "shared": root / "shared"}
        for _ in range(options.others):
            child = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(homes["shared"]), str(options.pause_ms)],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert child.stdout is not None
            child.stdout.readline()  # the neighbour holds its lane and its record
            neighbours.append(child)
        best = {side: [float("inf"), float("inf")] for side in homes}
        lanes = {"alone": 0, "shared": 0}
        for round_number in range(options.repeats):
            # Alternate which side goes first, so neither always follows the other.
            order = ("alone", "shared") if round_number % 2 == 0 else ("shared", "alone")
            for side in order:
                lanes[side], wall, cpu = _side(homes[side], options.calls, options.loops)
                best[side] = [min(best[side][0], wall), min(best[side][1], cpu)]
        print(
            f"eval calls, {options.calls:,} per loop, best of {options.repeats} processes x "
            f"{options.loops} loops per side, {options.others} neighbour engines calling "
            f"every {options.pause_ms:g} ms"
        )
        alone_label = f"one engine on its home (lane {lanes['alone']}):"
        shared_label = f"beside {options.others} active engines (lane {lanes['shared']}):"
        for label, side in ((alone_label, "alone"), (shared_label, "shared")):
            wall, cpu = best[side]
            print(f"    {label:<42} {wall:6.2f} us wall, {cpu:6.2f} us CPU")
        wall_ratio = best["shared"][0] / best["alone"][0]
        cpu_ratio = best["shared"][1] / best["alone"][1]
        print(f"    ratio shared / alone, wall time: {wall_ratio:.3f}   (target <= 1.1)")
        print(f"    ratio shared / alone, CPU time:  {cpu_ratio:.3f}")
    finally:
        for child in neighbours:
            child.kill()
            child.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
