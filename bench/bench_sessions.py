"""An ``eval`` in one MCP session while another session's long tool runs (issue 22).

One real `reckoner serve --http --preset reckoner-with-search-and-compute` on loopback, its
Anthropic SDK pointed at the loopback fake provider, which holds every search turn for
``--hold`` seconds (10 by default). Session A times ``eval`` calls over streamable HTTP in
three phases, measured in the same run and on the same server:

- *idle*: nothing else runs;
- *lookup*: session B's ``search`` is waiting on the held provider turn;
- *compute*: session B's ``compute`` run is a Python child sleeping ``--hold`` seconds.

The figure is each busy phase's mean `eval` against the idle mean (the mean, not the median:
one `eval` held for the whole lookup is the failure this measures, and a median hides it);
the median and the slowest call are shown beside it. Before issue 22 a lookup held the
engine, so an `eval` beside it waited for the whole provider turn; the target is within 1.2x
of idle. Each phase is run ``--rounds`` times, alternating, and the best of each is kept (the
machine is noisy; the best is the least disturbed).

With ``--shared-record`` both sessions share one engine (one record), as before lanes per
session; the long call must still not hold the other session's `eval`.

Run: ``uv run python bench/bench_sessions.py [--hold S] [--calls N] [--rounds N]
[--shared-record]``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from provider_fakes import FakeAnthropic, Source, reply_json  # noqa: E402

KEY = "sk-ant-bench-not-a-secret"
PRESET = "reckoner-with-search-and-compute"


@contextmanager
def served(home: Path, project: Path, fake: FakeAnthropic, *extra: str) -> Iterator[str]:
    """The server on loopback; yields its MCP URL."""
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": fake.root,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    command = [sys.executable, "-m", "reckoner", "serve", "--home", str(home), "--http"]
    command += ["--port", "0", "--preset", PRESET, "--project", str(project), *extra]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stderr is not None
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = process.stderr.readline().decode()
            if not line and process.poll() is not None:
                raise SystemExit(f"the server exited with {process.returncode}")
            found = re.search(r"(http://\S+/mcp)", line)
            url = found.group(1) if found else None
        if url is None:
            raise SystemExit("the server never announced its URL")
        stderr = process.stderr
        threading.Thread(target=lambda: stderr.read(), daemon=True).start()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def receipt(result: Any) -> dict[str, Any]:
    content = result.structured_content
    assert isinstance(content, dict), result
    return content


async def timed_evals(client: Client, calls: int) -> list[float]:
    """Seconds per ``eval``, one after another."""
    times = []
    for step in range(calls):
        started = time.perf_counter()
        args = {"formula": f"(@V)^2/@R * {step + 1}", "target": "P"}
        answer = receipt(await client.call_tool("eval", args))
        times.append(time.perf_counter() - started)
        assert answer["ok"] is True, answer
    return times


async def while_running(
    busy: Callable[[], Awaitable[dict[str, Any]]], client: Client, calls: int, hold: float
) -> list[float]:
    """Time ``calls`` evals that start once ``busy`` is under way and end before it does."""
    times: list[float] = []
    outcome: dict[str, Any] = {}

    async def background() -> None:
        outcome.update(await busy())

    async with anyio.create_task_group() as group:
        group.start_soon(background)
        await anyio.sleep(min(1.0, hold / 4))  # the long call has reached its wait
        times = await timed_evals(client, calls)
    assert outcome.get("ok") is True, outcome
    return times


Figures = dict[str, tuple[float, float, float]]
"""Per phase: the mean, median and slowest `eval`, in seconds."""


def summary(times: list[float]) -> tuple[float, float, float]:
    return statistics.fmean(times), statistics.median(times), max(times)


async def measure(url: str, hold: float, calls: int, rounds: int, shared: bool) -> Figures:
    sleep = f"import time\ntime.sleep({hold})\nprint('slept')\n"
    best: Figures = {}
    async with Client(url, mode="legacy") as a, Client(url, mode="legacy") as b:
        # With --shared-record both sessions write the one record A opens.
        starters = ((a, "the timed session"),) if shared else ((a, "A"), (b, "B"))
        for client, title in starters:
            assert receipt(await client.call_tool("record_start", {"title": title}))["ok"]
        await a.call_tool("set", {"name": "V", "value": {"num": 12, "dim": "volt"}})
        await a.call_tool("set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}})
        await timed_evals(a, calls)  # warm: the formula cache and the connections
        for round_no in range(rounds):
            phases = {
                "idle": timed_evals(a, calls),
                "lookup": while_running(lambda n=round_no: _search(b, n), a, calls, hold),
                "compute": while_running(lambda: _compute(b, sleep), a, calls, hold),
            }
            for name, run in phases.items():
                figures = summary(await run)
                best[name] = min(best.get(name, figures), figures)
    return best


async def _search(client: Client, round_no: int) -> dict[str, Any]:
    question = f"What is the density of copper (round {round_no})?"
    return receipt(await client.call_tool("search", {"question": question}))


async def _compute(client: Client, code: str) -> dict[str, Any]:
    args = {"op": "run", "engine": "python", "code": code}
    return receipt(await client.call_tool("compute", args))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", type=float, default=10.0, help="seconds a long call takes")
    parser.add_argument("--calls", type=int, default=30, help="evals timed per phase")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the three phases")
    parser.add_argument(
        "--shared-record", action="store_true", help="serve with --shared-record (one engine)"
    )
    options = parser.parse_args()
    # The evals of a busy phase must end before its long call does.
    fake = FakeAnthropic()
    fake.script.sources = [Source("https://en.wikipedia.org/wiki/Copper", "Copper")]
    fake.script.extract_text = reply_json("8.96 g/cm3", [0])
    fake.script.search_delay = options.hold
    with tempfile.TemporaryDirectory() as scratch:
        home, project = Path(scratch, "home"), Path(scratch, "project")
        project.mkdir()
        try:
            extra = ("--shared-record",) if options.shared_record else ()
            with served(home, project, fake, *extra) as url:
                best = anyio.run(
                    measure, url, options.hold, options.calls, options.rounds, bool(extra)
                )
        finally:
            fake.close()
    idle = best["idle"][0]
    print(
        f"eval in session A over streamable HTTP: {options.calls} calls a phase, best of "
        f"{options.rounds}; B's long call holds {options.hold:g} s"
        + (" (--shared-record)" if options.shared_record else "")
    )
    print(f"  {'':26} {'mean':>9} {'median':>9} {'slowest':>9}  mean vs idle")
    labels = {"idle": "idle server", "lookup": "during B's lookup", "compute": "during B's compute"}
    for name, label in labels.items():
        mean, median, slowest = best[name]
        cells = " ".join(f"{x * 1000:7.2f}ms" for x in (mean, median, slowest))
        print(f"  {label:26} {cells}  {mean / idle:5.2f}x")
    print("target: within 1.2x of idle")


if __name__ == "__main__":
    main()
