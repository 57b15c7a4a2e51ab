"""What the pitfalls memory costs (issue 13), each against its reference in the same run.

(a) Search over 10,000 lessons (``Pitfalls.search``, limit 5, the library already read;
    the best process CPU time of several runs per query): target under 20 ms a query.
    Beside it, what a change costs: reading the library with no usable search cache (the
    first read after a hand edit: read, fold, index, write the cache), reading it through
    the cache (a process that starts cold), and recording one lesson (append, card,
    INDEX.md, the cache rebuilt).
(b) The Claude Code hook from process start to output, run exactly as the README configures
    it (``reckoner pitfalls hook`` through /bin/sh, the console script on PATH), against a
    bare ``python -c pass`` of the same interpreter, all sides interleaved round by round:
    target within 3x. Cases: the common ones (a tool succeeded, or failed once: nothing
    printed), and a reminder firing (the same tool failed twice in a row, so the libraries
    are read and searched and the reminder printed) over a small library (200 lessons,
    global only) and over realistic ones: 300 lessons in the project library, about other
    things so that they cannot fill the reminder and the global library is read and
    searched too, and the global library with those 300 (recording writes both) and 300
    that match: 600. Also reported, with no target: a reminder firing over a large global
    library (the search's 10,000 lessons), and one right after a hand edit of both
    realistic libraries, when the hook rebuilds their caches. Times are wall clock from
    spawn to exit and the children's CPU time; the ratios divide medians (and, in
    brackets, bests) of the same run.

The package's bytecode is compiled first, as an installed package's is after its first run;
otherwise an environment with PYTHONDONTWRITEBYTECODE would recompile every module of
every hook call. Lessons are written straight to ``entries.jsonl``, as a hand import would,
and read once so their search caches exist, as after recording them.

Run: ``uv run python bench/bench_pitfalls.py [--lessons N] [--runs N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import reckoner
from reckoner.pitfalls.library import Library
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


def _vocabulary(rng: random.Random, common: bool) -> tuple[list[str], list[float]]:
    """The common words (unless not ``common``) and 3,000 made-up identifiers, drawn with
    Zipf-like weights."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    made_up = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(3000)]
    words = COMMON.split() + made_up if common else made_up
    return words, [1 / (rank + 1) for rank in range(len(words))]


def lessons(count: int, *, first: int = 0, common: bool = True) -> list[dict[str, object]]:
    """``count`` lessons in the documented file format, numbered from ``first``; the same
    for the same arguments. Without ``common`` they share no word with the benchmark's
    queries and failures: lessons about something else."""
    rng = random.Random(13)
    vocabulary, weights = _vocabulary(rng, common)

    def words(n: int) -> str:
        return " ".join(rng.choices(vocabulary, weights, k=n))

    made = []
    for i in range(first, first + count):
        made.append(
            {
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
        )
    return made


def write_library(root: Path, entries: list[dict[str, object]]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "entries.jsonl", "w", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _timed(action: Callable[[], object]) -> float:
    """The process's CPU time for ``action``: on a shared machine, wall time is mostly the
    other processes."""
    start = time.process_time()
    action()
    return time.process_time() - start


def bench_search(count: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        root = home / "pitfalls"
        write_library(root, lessons(count))
        rebuilt = _timed(lambda: Library(root).index())  # no cache yet: read, fold, index
        cached = min(_timed(lambda: Library(root).index()) for _ in range(3))
        recorded = _timed(lambda: Library(root).record({"title": "bench", "solution": "x"}))
        pitfalls = Pitfalls.open(home)
        pitfalls.search(QUERIES[0])
        per_query: dict[str, float] = {}
        for query in QUERIES:
            best = float("inf")
            for _ in range(runs):
                start = time.process_time()
                hits = pitfalls.search(query, limit=5)
                best = min(best, time.process_time() - start)
            per_query[query] = best
            print(f"  search {query!r}: {best * 1000:.2f} ms ({len(hits)} hits)")
        worst = max(per_query.values())
        median = statistics.median(per_query.values())
        print(
            f"(a) search over {count:,} lessons: median {median * 1000:.2f} ms, worst query "
            f"{worst * 1000:.2f} ms (target < 20 ms)\n"
            f"    read with no usable cache (first read after a hand edit) {_ms(rebuilt)}; "
            f"read through the cache {_ms(cached)}; record one lesson {_ms(recorded)}"
        )


def _spawn(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall time from spawn to exit, the children's CPU time, and what the command printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stdout


def bench_hook(rounds: int, large: int) -> None:
    compileall.compile_dir(Path(reckoner.__file__).parent, quiet=1)
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        small_home, home = Path(tmp) / "small-home", Path(tmp) / "home"
        large_home = Path(tmp) / "large-home"
        project, elsewhere = Path(tmp) / "app", Path(tmp) / "elsewhere"
        elsewhere.mkdir()
        project_root = project / ".reckoner" / "pitfalls"
        matching, other = lessons(300), lessons(300, first=300, common=False)
        write_library(small_home / "pitfalls", matching[:200])
        write_library(project_root, other)
        write_library(home / "pitfalls", matching + other)
        write_library(large_home / "pitfalls", lessons(large))
        roots = (small_home, home, large_home)
        for root in (*(h / "pitfalls" for h in roots), project_root):
            Library(root).index()  # as after recording: the search caches exist
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
        hook = ["/bin/sh", "-c", "reckoner pitfalls hook"]
        failure = {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "npm install -g typescript"},
            "error": "npm ERR! code EACCES permission denied",
            "cwd": str(project),
        }
        success = {**failure, "hook_event_name": "PostToolUse", "tool_response": {"stdout": ""}}
        homes = {  # where each case's lessons are and where the failing tool ran
            "small": (small_home, elsewhere),
            "realistic": (home, project),
            "large": (large_home, elsewhere),
            "after a hand edit": (home, project),
        }
        global_only = {str(entry["id"]) for entry in matching}
        cases = ["bare", "quiet", "failed once", *homes]
        wall: dict[str, list[float]] = {case: [] for case in cases}
        cpu: dict[str, list[float]] = {case: [] for case in cases}

        def record(
            case: str, command: list[str], payload: bytes, with_env: dict[str, str]
        ) -> bytes:
            took, used, out = _spawn(command, payload, with_env)
            wall[case].append(took)
            cpu[case].append(used)
            return out

        for i in range(rounds):
            record("bare", [sys.executable, "-c", "pass"], b"", env)
            quiet = json.dumps({**success, "session_id": f"quiet-{i}"}).encode()
            out = record("quiet", hook, quiet, {**env, "RECKONER_HOME": str(home)})
            assert out == b"", "a success prints nothing"
            for case, (case_home, cwd) in homes.items():
                case_env = {**env, "RECKONER_HOME": str(case_home)}
                event = {**failure, "session_id": f"{case}-{i}", "cwd": str(cwd)}
                first = json.dumps(event).encode()
                if case == "realistic":  # streak 1, nothing printed; the next failure fires
                    assert record("failed once", hook, first, case_env) == b""
                else:
                    _spawn(hook, first, case_env)
                if case == "after a hand edit":
                    for root in (project_root, home / "pitfalls"):
                        with open(root / "entries.jsonl", "ab") as handle:
                            handle.write(b"\n")  # a blank line: skipped, but a change
                out = record(case, hook, first, case_env)
                reminder = json.loads(out)["hookSpecificOutput"]["additionalContext"]
                if cwd == project:  # the project library was searched and the global one too
                    assert any(f"id {lesson_id}" in reminder for lesson_id in global_only), case
                assert "id p-" in reminder, case
        bare_wall, bare_cpu = statistics.median(wall["bare"]), statistics.median(cpu["bare"])
        print(
            f"(b) {rounds} rounds; python -c pass: {_ms(bare_wall)} wall "
            f"(best {_ms(min(wall['bare']))}), {_ms(bare_cpu)} CPU"
        )
        labels = {
            "quiet": "hook, a tool succeeded (nothing printed)",
            "failed once": "hook, a tool failed once (nothing printed)",
            "small": "hook, a reminder fires, 200 lessons",
            "realistic": "hook, a reminder fires, 300 project + 600 global lessons",
            "large": f"hook, a reminder fires, {large:,} global lessons",
            "after a hand edit": "hook, a reminder fires right after a hand edit",
        }
        for case, label in labels.items():
            median_wall, median_cpu = statistics.median(wall[case]), statistics.median(cpu[case])
            target = "" if case in ("large", "after a hand edit") else " (target within 3x)"
            print(
                f"    {label}: {_ms(median_wall)} wall, {median_wall / bare_wall:.2f}x "
                f"[best {min(wall[case]) / min(wall['bare']):.2f}x]; {_ms(median_cpu)} CPU, "
                f"{median_cpu / bare_cpu:.2f}x{target}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=25, help="runs per search query")
    parser.add_argument("--rounds", type=int, default=25, help="rounds of hook calls")
    options = parser.parse_args()
    bench_search(options.lessons, options.runs)
    bench_hook(options.rounds, options.lessons)


if __name__ == "__main__":
    main()
