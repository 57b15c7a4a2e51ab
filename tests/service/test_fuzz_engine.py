"""Issue 8, "Tests": a bounded fuzz run through a real Engine in a temporary home.

Random formulas (the core property tests' generators, plus heavy shapes over large arrays),
tagged values and get options go through `Engine.call`. A case fails on any call over two
seconds, any ENGINE_UNKNOWN_ERROR, any exception escaping the engine, or any slot that
differs once the home is opened again (replay). Measuring a call's time here is the
issue's definition of a failed fuzz case, not a speed assertion: the work budget
(MAX_CALL_WORK) is what keeps every call short, deterministically. The time measured is the
CPU time of the calling thread (the engine computes in it): on the shared machines that run
this suite, wall time also counts the other processes' turns on the two cores.

The default run is time-boxed to a few seconds; the `slow` variant runs far longer.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reckoner import Engine, wire
from reckoner.core.api import stored

# The core's property generators live beside the core tests; reuse them, not a copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from test_properties import (
    SLOTS,
    deep_formulas,
    digit_args,
    dims,
    expressions,
    forms,
    giant,
    tagged_values,
)

CALL_SECONDS = 2.0
BIG = 20_000
BIG_COMPLEX = 2_000

_BASE = {name: stored(value) for name, value in SLOTS.items()}
_LARGE = {
    "big": {"array": [float(k) for k in range(BIG)], "dim": "ohm"},
    "bigc": {"array": [{"re": float(k), "im": 1.0} for k in range(BIG_COMPLEX)]},
}
_NAMES = [*_BASE, *_LARGE, "P", "out", "x1"]

_heavy = st.one_of(
    st.tuples(expressions, st.sampled_from(["@big", "@bigc"])).map(
        lambda t: t[0].replace("@a", t[1]).replace("@c", t[1])
    ),
    st.tuples(
        st.sampled_from(["$sum", "$prod", "$seq"]),
        st.sampled_from(["10", "300", "3000", "100000", "1000000"]),
        st.sampled_from(["@bigc*k", "@big*k", "$sin(@big)+k", "@bigc^k", "$abs(@bigc)+k^1"]),
    ).map(lambda t: f"{t[0]}_{{k=1}}^{{{t[1]}}}({t[2]})"),
    st.tuples(
        st.sampled_from(["$sin(", "$exp(", "$sqrt(", "$abs(", "-(", "$conj(", "$atan("]),
        st.integers(1, 199),
        st.sampled_from(["@big", "@bigc", "@z", "k"]),
    ).map(lambda t: t[0] * t[1] + t[2] + ")" * t[1]),
    st.integers(1, 1200).map(lambda n: "+".join(["$sin(@bigc)"] * n)),
)
formulas = st.one_of(expressions, expressions, giant, deep_formulas, _heavy)
calls = st.one_of(
    st.tuples(st.just("eval"), formulas, st.sampled_from(_NAMES)),
    st.tuples(st.just("set"), st.sampled_from(_NAMES), tagged_values),
    st.tuples(st.just("get"), st.sampled_from(_NAMES), forms, digit_args, dims),
)


class _Fuzz:
    """One home shared by the examples of a run; each example is one record."""

    def __init__(self, home: Path, seconds: float) -> None:
        self.home = home
        self.engine = Engine(home)
        self.deadline = time.monotonic() + seconds
        self.calls = 0

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        started = time.thread_time()
        receipt = self.engine.call(tool, args)  # an escaping exception fails the case
        took = time.thread_time() - started
        self.calls += 1
        assert took <= CALL_SECONDS, f"{tool} {args!r:.300} took {took:.2f} s"
        assert receipt.get("code") != "ENGINE_UNKNOWN_ERROR", (tool, f"{args!r:.300}", receipt)
        return receipt

    def run(self, steps: list[tuple[Any, ...]]) -> None:
        if time.monotonic() > self.deadline:
            return  # the time box is spent: the remaining examples pass untouched
        if self.engine.open_record_id is not None:
            # A failed example (or hypothesis replaying one) left its record open.
            assert self.call("record_end", {})["ok"]
        assert self.call("record_start", {"title": "fuzz"})["ok"]
        for name, tagged in {**_BASE, **_LARGE}.items():
            assert self.call("set", {"name": name, "value": tagged})["ok"], name
        for step in steps:
            if step[0] == "eval":
                self.call("eval", {"formula": step[1], "target": step[2]})
            elif step[0] == "set":
                self.call("set", {"name": step[1], "value": step[2]})
            else:
                _, name, form, digits, dim = step
                args = {"name": name, "form": form, "digits": digits, "dim": dim}
                self.call("get", {k: v for k, v in args.items() if v is not None})
        self.check_spelling()
        self.check_replay()
        assert self.call("record_end", {})["ok"]

    def check_spelling(self) -> None:
        """Every row is in the stored spelling (whole doubles as integers), including the
        eval rows written without reading their text back: spelling a row read back from
        the file again gives the very bytes on disk."""
        lines = (self.home / "open-record.jsonl").read_bytes().splitlines(keepends=True)
        for line in lines[1:]:
            assert wire.dumps_line(wire.loads(line)) == line, line[:300]

    def check_replay(self) -> None:
        """Every slot (revision and stored form) is the same after the home is reopened."""
        live = self.engine.slot_snapshot()
        self.engine.close()
        self.engine = Engine(self.home)
        replayed = self.engine.slot_snapshot()
        assert wire.dumps(replayed) == wire.dumps(live)

    def close(self) -> None:
        self.engine.close()


def _fuzz(tmp_path: Path, examples: int, seconds: float) -> None:
    fuzz = _Fuzz(tmp_path / "home", seconds)

    # The number of examples is the point: the short run and the long (slow) run differ in it.
    @settings(
        max_examples=examples,
        database=None,
        suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.data_too_large],
    )
    @given(st.lists(calls, min_size=1, max_size=12))
    def case(steps: list[tuple[Any, ...]]) -> None:
        fuzz.run(steps)

    try:
        case()
    finally:
        fuzz.close()
    assert fuzz.calls > 0


def test_fuzzed_calls_stay_short_known_and_replayable(tmp_path: Path) -> None:
    """Issue 8: a time-boxed fuzz run, no call over 2 s, no unknown error, no replay change.
    Spec: docs/reference/limits.md (issue 8)."""
    _fuzz(tmp_path, examples=60, seconds=8.0)


@pytest.mark.slow
@pytest.mark.timeout(1_800)
def test_a_long_fuzz_run_stays_short_known_and_replayable(tmp_path: Path) -> None:
    """Issue 8: the long variant (3,000 cases) of test_fuzzed_calls_stay_short_known_and_replayable,
    which runs by default. Spec: docs/reference/limits.md (issue 8)."""
    _fuzz(tmp_path, examples=3_000, seconds=1_200.0)


# -- the slowest inputs found, as explicit cases of the same rule --------------------------

_SINES = "+".join(["$sin(k)"] * 1247)  # the issue's 9,997-character body


def _slowest(tmp_path: Path, sets: dict[str, Any], steps: list[tuple[str, dict[str, Any]]]) -> None:
    fuzz = _Fuzz(tmp_path / "home", seconds=600.0)
    try:
        assert fuzz.call("record_start", {"title": "slowest"})["ok"]
        for name, tagged in sets.items():
            assert fuzz.call("set", {"name": name, "value": tagged})["ok"], name
        for tool, args in steps:
            fuzz.call(tool, args)
        fuzz.check_replay()
    finally:
        fuzz.close()


def test_the_issues_slow_evals_answer_within_two_seconds(tmp_path: Path) -> None:
    """Issue 8: 154 s, 23 s and 29 s before the work budget; each is now refused at once.
    Spec: docs/reference/limits.md (issue 8)."""
    million = {"array": [k / 1e6 for k in range(1_000_000)]}
    complex_19 = {"array": [{"re": float(k), "im": 1.0} for k in range(19)]}
    formulas = [
        f"$sum_{{k=1}}^{{1000000}}({_SINES})",
        "$sin(" * 190 + "@x" + ")" * 190,
        "$sum_{k=1}^{1000000}(@c)",
    ]
    _slowest(
        tmp_path,
        {"x": million, "c": complex_19},
        [("eval", {"formula": f, "target": "out"}) for f in formulas],
    )


@pytest.mark.slow
def test_million_element_complex_sets_and_gets_stay_under_two_seconds(
    tmp_path: Path,
) -> None:
    """Issue 8: the slowest set/get/eval calls the fuzzing found, at MAX_ARRAY_ELEMENTS: the
    long variant of test_fuzzed_calls_stay_short_known_and_replayable (small arrays) and
    test_the_issues_slow_evals_answer_within_two_seconds, which run by default.
    Spec: docs/reference/limits.md (issue 8)."""
    n = 1_000_000
    sets = {
        "cplx": {"array": [{"re": k + 0.5, "im": 1.5} for k in range(n)]},
        "polar": {"array": [{"mag": k + 0.5, "ang": 1.5} for k in range(n)]},
        "pairs": {"array": [[k + 0.5, 1.5] for k in range(n // 2)]},
    }
    steps: list[tuple[str, dict[str, Any]]] = []
    for name in sets:
        for options in ({}, {"form": "polar"}, {"digits": 3}, {"form": "rect", "digits": 3}):
            steps.append(("get", {"name": name, **options}))
        steps.append(("eval", {"formula": f"@{name}", "target": "out"}))
        steps.append(("eval", {"formula": f"@{name}+@{name}", "target": "out"}))
    _slowest(tmp_path, sets, steps)
