"""The Engine's speed against references measured in the same run (issue 3).

(a) A set+eval loop inside one open record, every row appended to the file, against pint
    doing the bare unit-checked arithmetic of the same formula, ``(@V)^2/@R`` with V in
    volt and R in ohm. Target: one full ``eval`` call (parse cache, evaluation, slot write,
    trace row written) costs no more than half of pint's arithmetic.
(b) Replay of a 1,000,000-row open record through ``Engine(home)`` (lock, log, recovery by
    replay) against the floor: read the file and ``json.loads`` every line. Target: 3x.
(c) The record list over 10,000 closed records through ``Engine.records()``: cold (a fresh
    engine's first list) against the floor of reading the first and last line of each
    file (target: 3x), and warm (the cached list; target: under 5 ms).

The record files for (b) and (c) come from ``bench_records.py``'s generators.
Run: ``uv run python bench/bench_engine.py [--calls N] [--rows N] [--records N]``.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pint

# bench_records is a sibling script: running this file puts bench/ first on sys.path.
from bench_records import (
    best_of,
    index_floor,
    replay_floor_orjson,
    replay_floor_stdlib,
    write_closed_records,
    write_open_record,
)
from reckoner import Engine
from reckoner.storage.home import HomeLayout


def _per_call(seconds: float, calls: int) -> str:
    return f"{seconds / calls * 1e6:7.1f} us"


def bench_calls(root: Path, calls: int, repeats: int) -> None:
    ureg = pint.UnitRegistry()
    volts, ohms = ureg.Quantity(12.0, "volt"), ureg.Quantity(4.7e3, "ohm")

    def pint_loop() -> None:
        for _ in range(calls):
            power = volts**2 / ohms
        assert power.check("[power]")

    with Engine(root / "calls") as engine:
        engine.call("record_start", {"title": "Benchmark"})
        engine.call("set", {"name": "R", "value": {"num": 4.7e3, "dim": "ohm"}})
        values = [{"num": 1.0 + index % 97, "dim": "volt"} for index in range(calls)]

        def eval_loop() -> None:
            for _ in range(calls):
                receipt = engine.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
            assert receipt["ok"] is True

        def set_eval_loop() -> None:
            for value in values:
                engine.call("set", {"name": "V", "value": value})
                receipt = engine.call("eval", {"formula": "(@V)^2/@R", "target": "P"})
            assert receipt["ok"] is True

        engine.call("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
        # pint's registry is a large heap that every garbage collection would walk, in
        # either side's loop: settle it out of the collector's way first.
        gc.collect()
        gc.freeze()
        # Interleave the sides, so a busy moment of the machine hits both alike; keep the
        # process's CPU time too, which a machine shared with other work disturbs less.
        best = {side: [float("inf"), float("inf")] for side in ("pint", "eval", "pair")}
        loops = {"pint": pint_loop, "eval": eval_loop, "pair": set_eval_loop}
        for _ in range(repeats):
            for side, loop in loops.items():
                wall, cpu = _timed(loop)
                best[side] = [min(best[side][0], wall), min(best[side][1], cpu)]
        gc.unfreeze()
        rows = len((engine.read_record(engine.open_record_id or "") or _never()).rows)
    (pint_time, pint_cpu), (eval_time, eval_cpu) = best["pint"], best["eval"]
    pair_time = best["pair"][0]
    print(f"(a) {calls:,} calls per loop, best of {repeats}, every row appended ({rows:,} rows)")
    print(f"    pint  V**2/R (bare arithmetic):        {_per_call(pint_time, calls)}")
    print(f"    Engine.call eval, row written:         {_per_call(eval_time, calls)}")
    print(f"    Engine.call set + eval, rows written:  {_per_call(pair_time, calls)} a pair")
    print(f"    set+eval pairs per second: {calls / pair_time:,.0f}")
    print(f"    eval calls per second:     {calls / eval_time:,.0f}")
    print(f"    ratio eval call to pint, wall time: {eval_time / pint_time:.2f}   (target <= 0.5)")
    print(f"    ratio eval call to pint, CPU time:  {eval_cpu / pint_cpu:.2f}")


def _timed(action: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and process CPU seconds of one run of ``action``."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def _never() -> object:
    raise AssertionError("the open record cannot be read")


def bench_replay(root: Path, rows: int, repeats: int) -> None:
    home = root / "replay"
    layout = HomeLayout(home)
    layout.prepare()
    size = write_open_record(layout, rows)

    # The generator's set rows write R<seq % 50> on odd seqs, its eval rows write Rp.
    names = {f"R{seq % 50}" for seq in range(2, rows + 1) if seq % 2} | {"Rp"}

    def open_engine() -> None:
        with Engine(home) as engine:
            assert engine.open_record_id is not None
            assert set(engine.slot_snapshot()) == names

    floor = best_of(repeats, lambda: replay_floor_orjson(layout.open_record))
    stdlib = best_of(1, lambda: replay_floor_stdlib(layout.open_record))
    gc.collect()
    ours = best_of(repeats, open_engine)

    def floor_without_gc() -> None:
        # The store parses with the collector paused; hold the floor to the same rule.
        gc.disable()
        try:
            replay_floor_orjson(layout.open_record)
        finally:
            gc.enable()

    strict = best_of(repeats, floor_without_gc)
    print(f"(b) replay of a {rows:,}-row open record ({size / 1e6:.0f} MB), best of {repeats}")
    print(f"    floor (read + orjson.loads per line): {floor * 1000:8.0f} ms")
    print(f"    floor (read + json.loads per line):   {stdlib * 1000:8.0f} ms")
    print(f"    Engine(home) open, record resumed:    {ours * 1000:8.0f} ms")
    print(f"    ratio to the json floor:   {ours / stdlib:.2f}x   (target <= 3x)")
    print(f"    floor (orjson, collector paused):     {strict * 1000:8.0f} ms")
    print(f"    ratio to the orjson floor: {ours / floor:.2f}x")
    print(f"    ratio to the orjson floor with the collector paused: {ours / strict:.2f}x")


def bench_list(root: Path, count: int, rows_each: int, repeats: int) -> None:
    home = root / "list"
    layout = HomeLayout(home)
    layout.prepare()
    write_closed_records(layout, count, rows_each)
    # A listed directory has settled: let its time leave the racy window (a kernel tick).
    time.sleep(0.3)

    def cold() -> None:
        with Engine(home) as engine:
            started = time.perf_counter()
            listing = engine.records()
            timings.append(time.perf_counter() - started)
            assert len(listing.closed) == count and not listing.unreadable

    timings: list[float] = []
    index_floor(layout.records_dir)  # warm the page cache for both sides alike
    floor = best_of(repeats, lambda: index_floor(layout.records_dir))
    for _ in range(repeats):
        cold()
    ours = min(timings)
    with Engine(home) as engine:
        engine.records()
        warm_runs = 200
        started = time.perf_counter()
        for _ in range(warm_runs):
            engine.records()
        warm = (time.perf_counter() - started) / warm_runs
    print(f"(c) record list over {count:,} closed records of {rows_each} rows, best of {repeats}")
    print(f"    floor (first + last line of each):    {floor * 1000:8.1f} ms")
    print(f"    Engine.records() cold:                {ours * 1000:8.1f} ms")
    print(f"    ratio cold to floor: {ours / floor:.2f}x   (target <= 3x)")
    print(f"    Engine.records() warm: {warm * 1000:.3f} ms   (target < 5 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--rows-per-record", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reckoner-bench-engine-"))
    try:
        bench_calls(root, options.calls, max(options.repeats, 7))
        bench_replay(root, options.rows, options.repeats)
        bench_list(root, options.records, options.rows_per_record, options.repeats)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
