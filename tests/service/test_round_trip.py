"""Issue 8 item 4: every accepted value round-trips through the record (docs/guide/records.md).

What `set` or `eval` stores, a replay stores bit for bit: the sign of a zero included, and a
value nested as deep as the engine accepts. Compared bit for bit means every double by its
hex spelling (so -0.0 differs from 0.0), every integer and every string exactly.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import file_rows, open_file

from reckoner import Engine
from reckoner.contract.limits import MAX_VALUE_DEPTH


def bits(value: Any) -> Any:
    """A value with every double spelled by its bits, for an exact comparison."""
    if type(value) is float:
        return ("f", value.hex())
    if isinstance(value, dict):
        return {key: bits(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [bits(item) for item in value]
    return value


def nested_object(depth: int, leaf: dict[str, Any]) -> dict[str, Any]:
    value = leaf
    for _ in range(depth):
        value = {"object": {"a": value}}
    return value


# -- the cases the issue names --------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "formula"),
    [
        ({"re": -4, "im": -0.0}, "$sqrt(@z)"),
        ({"re": -4, "im": 0.0}, "$sqrt(@z)"),
        ({"num": -0.0}, "$atan2(@z, -1)"),
        ({"num": -0.0}, "$atan2(-1, @z)"),
        ({"num": -0.0}, "1/@z"),
        ({"array": [-0.0, 0.0, {"re": -1, "im": -0.0}]}, "$sqrt(@z)"),
        ({"array": [-0.0, 1.5, -2.0]}, "@z*1"),
        ({"mag": 2, "ang": 3.141592653589793}, "$sqrt(@z)"),
    ],
)
def test_a_signed_zero_answers_the_same_live_and_after_replay(
    home: Path, value: dict[str, Any], formula: str
) -> None:
    """Issue 8: `$sqrt` of {re: -4, im: -0.0} is the same root live and after a restart.
    Spec: docs/guide/records.md (issue 8)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Zeros"})
        assert engine.call("set", {"name": "z", "value": value})["ok"]
        live = engine.call("eval", {"formula": formula, "target": "r"})
        live_slots = bits(engine.slot_snapshot())
    with Engine(home) as again:
        assert bits(again.slot_snapshot()) == live_slots
        replayed = again.call("eval", {"formula": formula, "target": "r2"})
        assert replayed["ok"] == live["ok"]
        if live["ok"]:
            snapshot = again.slot_snapshot()
            assert bits(snapshot["r2"][1]) == live_slots["r"][1]


def test_sqrt_of_minus_4_minus_0j_is_minus_2j_after_replay(home: Path) -> None:
    """Issue 8: the exact example: -2j live, and -2j (not +2j) after replay.
    Spec: docs/guide/records.md (issue 8)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Zeros"})
        engine.call("set", {"name": "z", "value": {"re": -4, "im": -0.0}})
        engine.call("eval", {"formula": "$sqrt(@z)", "target": "r"})
        assert engine.call("get", {"name": "r"})["value"]["im"] == -2
    with Engine(home) as again:
        again.call("eval", {"formula": "$sqrt(@z)", "target": "r2"})
        assert again.call("get", {"name": "r2"})["value"]["im"] == -2
    stored = file_rows(open_file(home))[1]["content"]["value"]
    assert bits(stored["im"]) == ("f", (-0.0).hex())


@pytest.mark.parametrize("depth", [120, 126, 127, 150, MAX_VALUE_DEPTH])
def test_a_deeply_nested_object_is_written_and_replayed(home: Path, depth: int) -> None:
    """Issue 8: objects nested 126-200 levels were acknowledged and lost; now written.
    Spec: docs/guide/records.md (issue 8)."""
    value = nested_object(depth, {"num": 1.5, "dim": "volt"})
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Deep"})
        receipt = engine.call("set", {"name": "d", "value": value})
        assert receipt["ok"] is True
        assert engine.call("eval", {"formula": "@d", "target": "e"})["ok"]
        live = bits(engine.slot_snapshot())
    with Engine(home) as again:
        assert bits(again.slot_snapshot()) == live
        assert again.call("record_end", {}) == {"ok": True}


def test_an_object_one_level_too_deep_is_refused_not_lost(home: Path) -> None:
    """Issue 8 / docs/reference/codes.md: past MAX_VALUE_DEPTH the set is refused, and nothing is
    stored.
    Spec: docs/guide/records.md (issue 8)."""
    with Engine(home) as engine:
        engine.call("record_start", {"title": "Deep"})
        receipt = engine.call(
            "set", {"name": "d", "value": nested_object(MAX_VALUE_DEPTH + 1, {"num": 1})}
        )
        assert receipt["ok"] is False and "MAX_VALUE_DEPTH" in receipt["error"]
        assert engine.slot_snapshot() == {}


def test_reckoner_call_prints_a_deep_object_without_a_traceback(tmp_path: Path) -> None:
    """Issue 8: `reckoner call` on a 200-level object answers its receipt, no traceback.
    Spec: docs/guide/records.md (issue 8)."""
    home = tmp_path / "home"

    def call(tool: str, args: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "reckoner", "call", tool, "-", "--home", str(home)],
            input=json.dumps(args),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    assert call("record_start", {"title": "Deep"}).returncode == 0
    value = nested_object(MAX_VALUE_DEPTH, {"num": 2})
    done = call("set", {"name": "d", "value": value})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["value"] == nested_object(
        MAX_VALUE_DEPTH, {"num": 2, "dim": [0] * 7}
    )
    got = call("get", {"name": "d"})
    assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr


# -- the property: random values and formulas, then replay -------------------------------

DIMS = [None, "volt", "ohm", "degC", "metre", [1, -2, 0, 0, 0, 0, 0]]
doubles = st.one_of(
    # Signed zeros beside negative reals are where a branch cut shows a lost sign.
    st.sampled_from([0.0, -0.0, -1.0, -4.0]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1.7976931348623157e308, 2.0**63, -(2.0**53)]),
    st.integers(-(2**60), 2**60),
)
small_doubles = st.floats(-1e6, 1e6, allow_nan=False)
elements = st.one_of(
    doubles,
    st.builds(lambda re, im: {"re": re, "im": im}, doubles, doubles),
    st.builds(lambda mag, ang: {"mag": mag, "ang": ang}, small_doubles, small_doubles),
)


def _with_dim(value: dict[str, Any], dim: Any) -> dict[str, Any]:
    return value if dim is None else {**value, "dim": dim}


scalars = st.builds(
    _with_dim,
    st.one_of(
        st.builds(lambda x: {"num": x}, doubles),
        st.builds(lambda re, im: {"re": re, "im": im}, doubles, doubles),
        st.builds(lambda mag, ang: {"mag": mag, "ang": ang}, small_doubles, small_doubles),
    ),
    st.sampled_from(DIMS),
)
arrays = st.builds(
    _with_dim,
    st.builds(
        lambda items: {"array": items},
        st.one_of(
            st.lists(doubles, max_size=12),
            st.lists(elements, max_size=8),
            st.lists(st.lists(doubles, min_size=2, max_size=2), min_size=1, max_size=4),
        ),
    ),
    st.sampled_from(DIMS),
)
values = st.recursive(
    st.one_of(scalars, arrays),
    lambda inner: st.builds(
        lambda fields: {"object": fields},
        st.dictionaries(st.sampled_from(["a", "b", "c_1"]), inner, min_size=1, max_size=3),
    ),
    max_leaves=6,
)
# Every one-slot formula is evaluated on every stored slot; two-slot ones on drawn pairs.
UNARY = [
    "@{0}",
    "@{0}^2",
    "@{0}^0.5",
    "-@{0}",
    "1/@{0}",
    "$sqrt(@{0})",
    "$ln(@{0})*2",
    "$abs(@{0})",
    "$arg(@{0})",
    "$conj(@{0})",
    "$exp(@{0})",
    "$atan2(@{0}, -1)",
    "$atan2(-1, @{0})",
    "$sum_{{k=1}}^{{4}}(k*@{0})",
    "@{0}.a",
    "@{0}[0]",
]
BINARY = [
    "@{0}+@{1}",
    "@{0}-@{1}",
    "@{0}*@{1}",
    "@{0}/@{1}",
    "$atan2(@{0}, @{1})",
    "$min(@{0}, @{1})",
    "$sin(@{0})*$cos(@{1})",
]
formulas = st.tuples(st.sampled_from(BINARY), st.integers(0, 5), st.integers(0, 5))


# Each example starts an engine on a fresh home, writes and replays the record: fewer than
# the profile's examples keep it to seconds.
@settings(
    max_examples=40,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.data_too_large],
)
@given(
    st.lists(values, min_size=1, max_size=6),
    st.lists(formulas, min_size=1, max_size=8),
)
def test_property_every_slot_and_every_answer_survives_a_replay(
    stored: list[dict[str, Any]], evaluated: list[tuple[str, int, int]]
) -> None:
    """Issue 8: random values and formulas; a new Engine on the same home holds every slot
    bit for bit, and every formula answers the same, bit for bit, before and after.
    Spec: docs/guide/records.md (issue 8)."""
    with tempfile.TemporaryDirectory() as directory:
        home = Path(directory) / "home"
        with Engine(home) as engine:
            assert engine.call("record_start", {"title": "Property"}) == {"ok": True}
            for i, value in enumerate(stored):
                engine.call("set", {"name": f"s{i}", "value": value})
            texts = [template.format(f"s{i}") for template in UNARY for i in range(len(stored))]
            texts += [
                template.format(f"s{a % len(stored)}", f"s{b % len(stored)}")
                for template, a, b in evaluated
            ]
            live = []
            for j, text in enumerate(texts):
                receipt = engine.call("eval", {"formula": text, "target": f"t{j}"})
                live.append(receipt)
            live_slots = bits(engine.slot_snapshot())
        with Engine(home) as again:
            assert bits(again.slot_snapshot()) == live_slots
            for j, text in enumerate(texts):
                receipt = again.call("eval", {"formula": text, "target": f"u{j}"})
                # The same answer, or the same refusal (whose sentence may list the slots).
                assert receipt["ok"] == live[j]["ok"], (text, receipt, live[j])
                assert receipt.get("code") == live[j].get("code"), (text, receipt, live[j])
                if receipt["ok"]:
                    replayed = bits(again.slot_snapshot()[f"u{j}"][1])
                    assert replayed == live_slots[f"t{j}"][1], text
