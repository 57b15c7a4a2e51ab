"""What the pitfalls memory costs (issue 13), each against its reference in the same run.

(a) Search over 10,000 lessons (``Pitfalls.search``, limit 5, the library already read and
    its word index built): target under 20 ms a query. The first search after a change
    also reads and prepares the file and scans; the second builds the index; both are
    reported beside it.
(b) The Claude Code hook from process start to output, run exactly as the README configures
    it (``reckoner pitfalls hook`` through /bin/sh), against a bare ``python -c pass`` on the
    same machine, sides interleaved: target within 3x. Two cases: the common one (a tool
    succeeded: nothing printed) and a reminder firing (the library read and searched).

Run: ``uv run python bench/bench_pitfalls.py [--lessons N] [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reckoner.pitfalls.tiers import Pitfalls

COMMON = """npm pip docker git eval set get record build install import cache lock timeout path
permission denied missing module version wheel compile link test flaky network proxy ssl
certificate memory disk quota config env variable shell quote escape encoding utf8 unicode
json yaml schema migration database index query slow race deadlock thread async
上传 失败 权限 超时 缓存 依赖 版本 路径 编码 配置"""
QUERIES = [
    "npm install permission denied",
    "docker build cache slow",
    "ENGINE_INVALID_IDENTIFIER eval 2x",
    "上传失败 权限",
    "git push rejected non-fast-forward",
    "pytest flaky timeout network proxy",
]


def _vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    """The common words plus 3,000 made-up identifiers, drawn with Zipf-like weights."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    made_up = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(3000)]
    words = COMMON.split() + made_up
    return words, [1 / (rank + 1) for rank in range(len(words))]


def write_library(root: Path, count: int) -> None:
    """``count`` lessons in the documented file format, as a hand import would write them."""
    rng = random.Random(13)
    vocabulary, weights = _vocabulary(rng)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "entries.jsonl", "w", encoding="utf-8") as handle:
        for i in range(count):

            def words(n: int) -> str:
                return " ".join(rng.choices(vocabulary, weights, k=n))

            entry = {
                "v": 1,
                "id": f"p-20261201-{i // 10000:02d}{i % 10000:04d}-{i % 65536:04x}",
                "title": words(6),
                "area": words(2),
                "symptom": words(25),
                "cause": words(20),
                "solution": words(20),
                "evidence": words(40),
                "tags": sorted(set(rng.choices(vocabulary, weights, k=3))),
                "status": "solved",
                "notes": [],
                "created": f"2026-11-{1 + i % 28:02d}T00:00:00Z",
                "updated": f"2026-11-{1 + i % 28:02d}T00:00:00Z",
            }
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")


def bench_search(count: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        write_library(home / "pitfalls", count)
        pitfalls = Pitfalls.open(home)
        start = time.perf_counter()
        pitfalls.search(QUERIES[0])
        cold = time.perf_counter() - start
        start = time.perf_counter()
        pitfalls.search(QUERIES[0])
        building = time.perf_counter() - start
        per_query: dict[str, float] = {}
        for query in QUERIES:
            best = float("inf")
            for _ in range(runs):
                start = time.perf_counter()
                hits = pitfalls.search(query, limit=5)
                best = min(best, time.perf_counter() - start)
            per_query[query] = best
            print(f"  search {query!r}: {best * 1000:.2f} ms ({len(hits)} hits)")
        worst = max(per_query.values())
        median = statistics.median(per_query.values())
        print(
            f"(a) search over {count:,} lessons: median {median * 1000:.2f} ms, worst query "
            f"{worst * 1000:.2f} ms (target < 20 ms); first search (read, prepare, scan) "
            f"{cold * 1000:.0f} ms; second (builds the word index) {building * 1000:.0f} ms"
        )


def _timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=True)
    return time.perf_counter() - start, done.stdout


def bench_hook(runs: int) -> None:
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        write_library(home / "pitfalls", 200)
        env = {
            **os.environ,
            "RECKONER_HOME": str(home),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        }
        hook = ["/bin/sh", "-c", "reckoner pitfalls hook"]
        bare = [sys.executable, "-c", "pass"]
        failure = {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "npm install -g typescript"},
            "error": "npm ERR! code EACCES permission denied",
            "cwd": tmp,
        }
        success = {**failure, "hook_event_name": "PostToolUse", "tool_response": {"stdout": ""}}
        times: dict[str, list[float]] = {"bare": [], "quiet": [], "fires": []}
        for i in range(runs):
            session = f"bench-{i}"
            times["bare"].append(_timed(bare, b"", env)[0])
            quiet = json.dumps({**success, "session_id": session}).encode()
            times["quiet"].append(_timed(hook, quiet, env)[0])
            first = json.dumps({**failure, "session_id": session}).encode()
            _timed(hook, first, env)  # streak 1: the next failure fires
            took, out = _timed(hook, first, env)
            assert out, "the second failure in a row prints the reminder"
            times["fires"].append(took)
        bare_ms = statistics.median(times["bare"]) * 1000
        for case in ("quiet", "fires"):
            ms = statistics.median(times[case]) * 1000
            print(
                f"(b) hook, {case}: median {ms:.1f} ms against python -c pass {bare_ms:.1f} ms: "
                f"{ms / bare_ms:.2f}x (target within 3x)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    options = parser.parse_args()
    bench_search(options.lessons, options.runs)
    bench_hook(options.runs)


if __name__ == "__main__":
    main()
