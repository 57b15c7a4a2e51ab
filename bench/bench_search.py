"""The lookup's own cost (issue 11, docs/guide/lookup.md), against references measured in the same
run.

(a) Pipeline overhead per lookup: `Engine.call("search", ...)` with in-process providers that
    answer at once, so everything timed is ours: the engine's gate, state.json read and the
    policy resolved (per call, as the manual asks), the allow-list filter, the extraction
    prompt built and its reply read, and the row appended. Reference: a `record_message`
    call (one row appended), timed interleaved. Target: under 5 ms per lookup.
(b) The same over the official SDKs against the fake Anthropic server on loopback, minus the
    same two SDK requests made directly: what a lookup adds to the provider's own time.
(c) Replay of an open record holding 1,000 `search` rows: `Engine(home)` (recovery and the
    budget's count) against the README's floor of reading the file and `orjson.loads`-ing
    every line, and against opening an engine on an empty home. Target: within 3x the floor
    (the README's replay target), fixed start-up cost aside.

Run: ``uv run python bench/bench_search.py [--lookups N] [--rows N]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

# The lookup's fakes and the provider fakes they build on (tests/provider_fakes.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lookup"))

from fakes import FakeAnthropic, Source, reply_json

from reckoner import Engine
from reckoner.lookup.providers import Candidate
from reckoner.lookup.service import SearchTool, build_provider
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile

SOURCES = [
    Candidate(
        f"https://{host}/wiki/Copper",
        "Copper - reference",
        "Density (near r.t.) 8.96 g/cm3; melting point 1084.62 degC",
        "April 30, 2025",
    )
    for host in ("en.wikipedia.org", "evil.example", "physics.nist.gov", "blog.example.com")
] * 3
REPLY = reply_json("The density of copper near room temperature is 8.96 g/cm3.", [0, 1])


class InstantProvider:
    """A provider that answers at once: the pipeline's time is all that is left."""

    name = "anthropic"
    model = "instant"

    def search(
        self, question: str, max_results: int, within: float | None = None
    ) -> list[Candidate]:
        return SOURCES[:max_results]

    def complete(
        self, system: str, user: str, model: str, max_tokens: int, within: float | None = None
    ) -> str:
        return REPLY


def _engine(
    home: Path, make: Callable[[str, Mapping[str, str]], Any], env: dict[str, str]
) -> Engine:
    engine = Engine(home)
    StateFile(HomeLayout(home)).write_subtree("search", {"maxSearchesPerRecord": 1000})
    engine.attach(
        "search",
        SearchTool(
            StateFile(HomeLayout(home)), {"tier": "strict"}, engine.log, env=env, make_provider=make
        ),
    )
    assert engine.call("record_start", {"title": "bench"}) == {"ok": True}
    return engine


def _interleaved(
    n: int, ours: Callable[[], object], reference: Callable[[], object]
) -> tuple[float, float]:
    """Median seconds per call of each, alternated so machine noise hits both alike."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(n):
        started = time.perf_counter()
        ours()
        a.append(time.perf_counter() - started)
        started = time.perf_counter()
        reference()
        b.append(time.perf_counter() - started)
    a.sort()
    b.sort()
    return a[n // 2], b[n // 2]


def bench_pipeline(root: Path, lookups: int) -> None:
    env = {"ANTHROPIC_API_KEY": "sk-bench"}
    engine = _engine(root / "pipeline", lambda name, e: InstantProvider(), env)
    question = {"question": "What is the density of copper?"}
    for _ in range(20):
        engine.call("search", question)
    ours, reference = _interleaved(
        lookups,
        lambda: engine.call("search", question),
        lambda: engine.call("record_message", {"text": "a reference row"}),
    )
    assert engine.call("search", question)["ok"] is True
    engine.close()
    print(f"(a) pipeline overhead per lookup, median of {lookups} (in-process providers)")
    print(f"    search call:           {ours * 1000:7.3f} ms   (target < 5 ms)")
    print(f"    record_message call:   {reference * 1000:7.3f} ms   (one row appended)")
    print(f"    ratio:                 {ours / reference:7.1f}x")


def bench_sdk(root: Path, lookups: int) -> None:
    fake = FakeAnthropic()
    try:
        fake.script.sources = [Source(c.url, c.title or "", c.snippet or "") for c in SOURCES]
        fake.script.extract_text = REPLY
        env = {"ANTHROPIC_API_KEY": "sk-bench", "ANTHROPIC_BASE_URL": fake.root}
        engine = _engine(root / "sdk", lambda name, e: build_provider(name, e, max_retries=0), env)
        direct = build_provider("anthropic", env, max_retries=0)
        question = {"question": "What is the density of copper?"}

        def bare() -> None:
            direct.search(question["question"], 12)
            direct.complete("system", "user", direct.model, 800)

        for _ in range(5):
            engine.call("search", question)
            bare()
        ours, reference = _interleaved(lookups, lambda: engine.call("search", question), bare)
        engine.close()
    finally:
        fake.close()
    print(f"(b) over the official SDK against the fake Anthropic server, median of {lookups}")
    print(f"    search call:                    {ours * 1000:7.2f} ms")
    print(f"    the same two SDK requests bare: {reference * 1000:7.2f} ms")
    print(f"    added by the lookup:            {(ours - reference) * 1000:7.2f} ms")


def bench_replay(root: Path, rows: int) -> None:
    home = root / "replay"
    env = {"ANTHROPIC_API_KEY": "sk-bench"}
    engine = _engine(home, lambda name, e: InstantProvider(), env)
    for _ in range(rows):
        assert engine.call("search", {"question": "What is the density of copper?"})["ok"]
    engine.close()
    path = home / "open-record.jsonl"
    size = path.stat().st_size

    def floor() -> None:
        with open(path, "rb") as handle:
            [orjson.loads(line) for line in handle.read().splitlines()]

    def reopen() -> None:
        Engine(home).close()

    empty = root / "empty"
    Engine(empty).close()

    def reopen_empty() -> None:
        Engine(empty).close()

    for _ in range(3):
        floor(), reopen(), reopen_empty()
    ours, floor_time = _interleaved(15, reopen, floor)
    fixed, _unused = _interleaved(15, reopen_empty, floor)
    replay = ours - fixed
    print(
        f"(c) replay of an open record with {rows:,} search rows ({size / 1e6:.1f} MB), "
        "median of 15"
    )
    print(f"    floor (read + orjson.loads per line): {floor_time * 1000:7.2f} ms")
    print(f"    Engine(home) with the record:         {ours * 1000:7.2f} ms")
    print(f"    Engine(home) on an empty home:        {fixed * 1000:7.2f} ms")
    print(f"    replay's share / floor:               {replay / floor_time:7.2f}x   (target <= 3x)")
    print(f"    whole open / floor:                   {ours / floor_time:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lookups", type=int, default=400)
    parser.add_argument("--rows", type=int, default=1000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        bench_pipeline(root, options.lookups)
        bench_sdk(root, max(options.lookups // 4, 20))
        bench_replay(root, options.rows)


if __name__ == "__main__":
    main()
