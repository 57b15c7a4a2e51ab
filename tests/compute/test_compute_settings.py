"""Issue 12 (settings): state.json's compute subtree and server options, defaults on bad values."""

from __future__ import annotations

from pathlib import Path

import pytest
from compute_helpers import Compute

from reckoner.compute.mount import STATE_KEY, mount
from reckoner.compute.settings import DEFAULT_TIMEOUT_MS, normalise
from reckoner.contract.compute import COMPUTE_ENGINES
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile


def test_defaults() -> None:
    """docs/guide/compute.md: auto, every engine in order, 60000 ms, no packages, user scope."""
    settings = normalise({})
    assert settings.as_json() == {
        "mode": "auto",
        "engines": list(COMPUTE_ENGINES),
        "timeoutMs": 60000,
        "packages": [],
        "installScope": "user",
        "network": "on",
        "maxOutputBytes": 16 * 1024 * 1024,
        "passEnvironment": [],
    }
    assert settings.notes == ()


@pytest.mark.parametrize(
    ("raw", "field", "expected"),
    [
        ({"mode": "always"}, "mode", "auto"),
        ({"engines": ["r", "fortran", "r", "python"]}, "engines", ("r", "python")),
        ({"engines": ["fortran"]}, "engines", COMPUTE_ENGINES),
        ({"engines": "python"}, "engines", COMPUTE_ENGINES),
        ({"timeoutMs": -5}, "timeout_ms", DEFAULT_TIMEOUT_MS),
        ({"timeoutMs": 10}, "timeout_ms", 1000),
        ({"timeoutMs": "fast"}, "timeout_ms", DEFAULT_TIMEOUT_MS),
        ({"packages": ["numpy", 3]}, "packages", ()),
        ({"installScope": "global"}, "install_scope", "user"),
        # Issue 21: a network value not understood is kept, so that every run is refused.
        ({"network": "sometimes"}, "network", "'sometimes'"),
        ({"maxOutputBytes": 10}, "max_output_bytes", 16 * 1024 * 1024),
        ({"maxOutputBytes": "big"}, "max_output_bytes", 16 * 1024 * 1024),
        ({"passEnvironment": "HOME"}, "pass_environment", ()),
        ({"passEnvironment": ["GOOD_ONE", "bad name", 3]}, "pass_environment", ("GOOD_ONE",)),
        ({"colour": 1}, "mode", "auto"),
    ],
)
def test_unusable_values_fall_back_with_a_note(raw: dict, field: str, expected: object) -> None:
    """docs/guide/compute.md: an unusable value falls back to its default, and the fallback is
    said."""
    settings = normalise(raw)
    assert getattr(settings, field) == expected
    assert settings.notes, raw


def test_mount_reads_the_state_subtree_and_options_win(tmp_path: Path) -> None:
    """Issue 12: settings come from state.json's compute subtree; server options override."""
    home = tmp_path / "home"
    layout = HomeLayout(home)
    layout.prepare()
    StateFile(layout).write_subtree(STATE_KEY, {"mode": "on", "timeoutMs": 5000, "bogus": 1})
    logged: list[str] = []
    service = mount(home, project=tmp_path, options={"timeoutMs": 2000}, log=logged.append)
    assert service.settings.mode == "on" and service.settings.timeout_ms == 2000
    assert any("bogus" in line for line in logged)


def test_off_is_a_true_no_op(project: Path) -> None:
    """docs/guide/compute.md: off probes nothing, runs nothing, writes nothing; next says how to
    enable."""
    compute = Compute(project, "/nonexistent", mode="off")
    for args in (
        {"op": "probe"},
        {"op": "run", "engine": "python", "code": "print(1)"},
        {"op": "receipt", "file": "x"},
        {"op": "install", "engine": "python", "packages": ["six"]},
    ):
        response = compute(**args)
        assert response["code"] == "MATH_NOT_AVAILABLE"
        assert response["next"]["kind"] == "enable"
    assert compute.service.context.engines.states == {}
    assert list(project.iterdir()) == []
    assert compute.rows == []


def test_an_engine_left_out_of_the_settings_is_refused(project: Path) -> None:
    """docs/guide/compute.md: engines lists the allowed engines; dropping cli closes the escape
    hatch."""
    compute = Compute(project, engines=["python"])
    for engine in ("r", "cli"):
        response = compute(
            op="run",
            engine=engine,
            code="1",
            **({"cli": {"command": "python3"}} if engine == "cli" else {}),
        )
        assert response["code"] == "MATH_REFUSED"
        assert response["next"] == {"kind": "reason", "reason": "engine-not-allowed"}
