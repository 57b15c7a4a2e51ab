"""What an over-large request body costs the panel (issue 8): a real `reckoner panel` on
loopback is sent settings bodies of growing size in 1 MiB chunks with no Content-Length, and
for each the run reports the answer, how much of the body the client managed to push before
the panel hung up, the time to the answer, and the panel's peak memory against its peak
after an ordinary request in the same run.

Run: ``uv run python bench/bench_panel_body.py [--sizes 1 64 400]`` (sizes in MiB).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

CHUNK = 1 << 20


def _peak_kib(pid: int) -> int:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert match
    return int(match.group(1))


def _body(mebibytes: int, pushed: list[int]) -> Iterator[bytes]:
    yield b'{"panel":{"showAll":true},"pad":"'
    block = b"x" * CHUNK
    for _ in range(mebibytes):
        pushed[0] += CHUNK
        yield block
    yield b'"}'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 400])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        panel = subprocess.Popen(
            [sys.executable, "-m", "reckoner", "panel", "--home", home, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert panel.stdout is not None
            match = re.search(r"(http://127\.0\.0\.1:\d+)/", panel.stdout.readline().decode())
            assert match
            url = f"{match.group(1)}/api/reckoner/settings"
            ordinary = httpx.put(url, json={"panel": {"showAll": True}}, timeout=60)
            assert ordinary.status_code == 200
            reference = _peak_kib(panel.pid)
            print(f"panel peak after an ordinary PUT: {reference / 1024:.1f} MiB")
            print(f"{'offered':>10} {'answer':>7} {'pushed':>10} {'seconds':>8} {'peak':>9}")
            for size in options.sizes:
                pushed = [0]
                started = time.perf_counter()
                answer = httpx.put(
                    url,
                    content=_body(size, pushed),
                    headers={"content-type": "application/json"},
                    timeout=600,
                )
                seconds = time.perf_counter() - started
                peak = _peak_kib(panel.pid)
                print(
                    f"{size:>6} MiB {answer.status_code:>7} {pushed[0] / CHUNK:>6.0f} MiB "
                    f"{seconds:>8.2f} {peak / reference:>8.2f}x"
                )
        finally:
            panel.terminate()
            panel.wait(timeout=30)


if __name__ == "__main__":
    main()
