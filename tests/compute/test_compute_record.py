"""Issue 12 (into the record): a run appends one compute row; recovery keeps it as a fact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from compute_helpers import REAL_PATH

from reckoner import Engine
from reckoner.compute.context import ComputeOptions
from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive


def _service(engine: Engine, project: Path) -> ComputeService:
    return ComputeService(
        project,
        normalise({}),
        ComputeOptions(
            row_sink=lambda ok, content: engine.append_preset_row("compute", ok, content),
            search_path=REAL_PATH,
        ),
    )


def test_a_run_is_a_row_and_recovery_never_reruns_it(tmp_path: Path, project: Path) -> None:
    """Issue 12: the row holds engine, version, runId, attempt, hash, exit, receipt, stdout."""
    home = tmp_path / "home"
    with Engine(home) as engine:
        assert engine.call("record_start", {"title": "a sum"}) == {"ok": True}
        response = _service(engine, project).call(
            {"op": "run", "engine": "python", "code": "print(sum(range(101)))"}
        )
        assert response["ok"] is True
    attempts_before = sorted(p.name for p in (project / "Computation").iterdir())
    with Engine(home) as engine:  # recovery replays the open record
        assert engine.open_record_id is not None
        view = engine.read_record(engine.open_record_id)
        assert view is not None
        [row] = [r for r in view.rows if r["tool"] == "compute"]
        assert row["ok"] is True
        content = row["content"]
        assert content["runId"] == response["runId"] and content["attempt"] == 1
        assert content["stdoutTail"] == "5050" and content["exit"] == 0
        assert content["version"] == response["engineInfo"]["version"]
        assert content["timedOut"] is False and content["receipt"] == response["receipt"]
        assert engine.slot_snapshot() == {}
        assert engine.call("set", {"name": "S", "value": {"num": 5050}})["ok"] is True
    assert sorted(p.name for p in (project / "Computation").iterdir()) == attempts_before


def test_no_open_record_no_row(tmp_path: Path, project: Path) -> None:
    """Issue 12: rows only go to an open record; without one the run still stands."""
    with Engine(tmp_path / "home") as engine:
        assert engine.append_preset_row("compute", True, {"x": 1}) is False
        response = _service(engine, project).call({"op": "run", "engine": "python", "code": "1"})
        assert response["ok"] is True
        assert RecordArchive(HomeLayout(tmp_path / "home")).index().open is None


def test_engine_tools_cannot_be_appended_as_preset_rows(tmp_path: Path) -> None:
    """The preset row path is for tools the engine does not answer."""
    with Engine(tmp_path / "home") as engine:
        engine.call("record_start", {"title": "t"})
        with pytest.raises(ValueError):
            engine.append_preset_row("set", True, {})


def test_cli_compute_commands(tmp_path: Path, project: Path) -> None:
    """Issue 12 (CLI): probe, run and receipt; a run joins the home's open record."""
    home = tmp_path / "home"
    env_path = REAL_PATH

    def cli(*args: str) -> tuple[int, dict]:
        done = subprocess.run(
            [sys.executable, "-m", "reckoner", *args],
            capture_output=True,
            text=True,
            cwd=project,
            env={"PATH": env_path, "HOME": str(tmp_path)},
            timeout=120,
        )
        return done.returncode, json.loads(done.stdout)

    with Engine(home) as engine:
        engine.call("record_start", {"title": "cli"})
    code, probe = cli("compute", "probe", "--engine", "python", "--home", str(home))
    assert code == 0 and probe["engineInfo"]["engine"] == "python"
    code, run = cli("compute", "run", "--engine", "python", "--expr", "6*7", "--home", str(home))
    assert code == 0 and run["stdout"] == "42\n"
    code, receipt = cli("compute", "receipt", run["runId"], "--home", str(home))
    assert code == 0 and receipt["scriptHash"] == run["scriptHash"]
    code, failed = cli("compute", "run", "--engine", "python", "--code", "raise SystemExit(4)",
                       "--home", str(home))  # fmt: skip
    assert code == 1 and failed["code"] == "MATH_NONZERO_EXIT" and failed["exit"] == 4
    with Engine(home) as engine:
        assert engine.open_record_id is not None
        view = engine.read_record(engine.open_record_id)
        assert view is not None
        assert [(r["tool"], r["ok"]) for r in view.rows[1:]] == [
            ("compute", True),
            ("compute", False),
        ]


def test_show_renders_a_compute_row(tmp_path: Path, project: Path) -> None:
    """Issue 12 (CLI): `reckoner show` gives a run's engine, exit, receipt and output."""
    home = tmp_path / "home"
    with Engine(home) as engine:
        engine.call("record_start", {"title": "shown"})
        response = _service(engine, project).call(
            {"op": "run", "engine": "python", "code": "print('the answer', 42)"}
        )
        record_id = engine.open_record_id
    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "show", str(record_id), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": REAL_PATH, "COLUMNS": "200", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert "exit 0" in done.stdout and "the answer 42" in done.stdout
    assert response["runId"] in done.stdout


def test_compute_help_derives_from_the_contract() -> None:
    """Issue 12: the CLI help spells compute's arguments from the one contract."""
    from reckoner.contract.compute import COMPUTE_TOOL

    done = subprocess.run(
        [sys.executable, "-m", "reckoner", "compute", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert COMPUTE_TOOL.signature() in done.stdout
    for argument in COMPUTE_TOOL.arguments:
        assert f"{argument.key}: " in done.stdout
