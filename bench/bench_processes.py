"""What the process owner's warden adds to a child's start (issue 21).

Each child of the package runs under a warden (a ``python -I -S`` script that makes itself
a subreaper, streams the output with its cap and kills the whole tree). This times
``processes.run(["true"])`` against a bare ``subprocess.run(["true"])``, interleaved, and
prints the medians and the difference: the price of the whole-tree guarantees per process.

Run: ``uv run python bench/bench_processes.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time

from reckoner.host import processes


def _ms(action: object) -> float:
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    options = parser.parse_args()
    true = shutil.which("true") or "/bin/true"
    bare: list[float] = []
    owned: list[float] = []
    spec = processes.RunSpec(cwd="/", timeout_ms=10_000)
    for _ in range(options.runs):
        bare.append(_ms(lambda: subprocess.run([true], check=False)))
        owned.append(_ms(lambda: processes.run([true], spec)))
    bare_ms, owned_ms = statistics.median(bare), statistics.median(owned)
    print(f"bare subprocess.run(['true'])    median {bare_ms:6.2f} ms")
    print(f"processes.run(['true']) (warden) median {owned_ms:6.2f} ms")
    print(f"added per process                median {owned_ms - bare_ms:6.2f} ms")


if __name__ == "__main__":
    main()
