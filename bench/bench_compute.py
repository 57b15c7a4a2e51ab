"""The compute tool's own cost per run, beside the engine's process time (issue 12).

(a) Overhead per ``run`` of a small Python script: the wall time of ``ComputeService.call``
    (argument checks, archive directory, script, stdout/stderr files, hashes, receipt.json,
    receipt.md, the record row into an open record) minus the engine's own process time
    measured around the same spawn. Shown beside a bare spawn of the same script through
    the same runner, interleaved with the tool's runs.
(b) ``op: probe`` of every engine: the first probe (version probes spawned) against a
    repeated probe, answered from the server-lifetime cache.

Run: ``uv run python bench/bench_compute.py [--runs N]``. Target: overhead under 20 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from reckoner import Engine
from reckoner.compute import runner
from reckoner.compute.context import ComputeOptions
from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    options = parser.parse_args()
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        project = root / "project"
        project.mkdir()
        bare_script = root / "bare.py"
        with Engine(root / "home") as engine:
            engine.call("record_start", {"title": "bench"})
            service = ComputeService(
                project,
                normalise({}),
                ComputeOptions(
                    row_sink=lambda ok, c: engine.append_preset_row("compute", ok, c),
                    search_path=search,
                ),
            )
            started = time.perf_counter()
            first = service.call({"op": "probe"})
            cold_probe = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            again = service.call({"op": "probe"})
            warm_probe = (time.perf_counter() - started) * 1000
            assert first == again
            python = next(e["path"] for e in first["engines"] if e["engine"] == "python")

            overheads, tool_walls, bare_walls, engine_ms = [], [], [], []
            bare_spec = runner.RunSpec(cwd=str(project), timeout_ms=60_000)
            for i in range(options.runs + 5):
                code = f"print({i})\n"
                bare_script.write_text(code)

                def bare_run() -> float:
                    started = time.perf_counter()
                    runner.run([python, str(bare_script)], bare_spec)
                    return (time.perf_counter() - started) * 1000

                # The two sides alternate which goes first, so neither always follows the other.
                if i % 2:
                    bare = bare_run()
                started = time.perf_counter()
                response = service.call({"op": "run", "engine": "python", "code": code})
                wall = (time.perf_counter() - started) * 1000
                if not i % 2:
                    bare = bare_run()
                assert response["ok"] is True, response
                if i < 5:
                    continue  # warm-up: page cache, first imports
                bare_walls.append(bare)
                tool_walls.append(wall)
                engine_ms.append(response["durationMs"])
                overheads.append(wall - response["durationMs"])
            rows = engine.read_record(engine.open_record_id or "")
            assert rows is not None and len(rows.rows) == options.runs + 6

    med = statistics.median
    print(f"runs: {options.runs} (python {first['engines'][0]['version']}), medians")
    print(f"  bare spawn of the script through the runner: {med(bare_walls):7.2f} ms")
    print(f"  compute run, whole call:                     {med(tool_walls):7.2f} ms")
    print(f"  the engine's own process time in that call:  {med(engine_ms):7.2f} ms")
    print(
        f"  overhead per run (call minus process time):  {med(overheads):7.2f} ms "
        f"(p90 {statistics.quantiles(overheads, n=10)[-1]:.2f} ms; target < 20 ms)"
    )
    print(
        f"  call / bare spawn:                           {med(tool_walls) / med(bare_walls):7.2f}x"
    )
    print(f"probe of all engines: first {cold_probe:.1f} ms, cached {warm_probe:.3f} ms")


if __name__ == "__main__":
    main()
