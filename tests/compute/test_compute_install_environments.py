"""Issue 21 case 7: an install plan uses the manager of the environment that runs the code.

Real environments are made in the test (``uv venv``, ``python -m venv``) and the plans are
confirmed through the compute tool, installing a tiny pure package (six) from the index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from compute_helpers import PYENV_ROOT, PYENV_SHIMS, Compute, pyenv_versions, write_program


def _native_uv() -> Path:
    """The uv program itself: a pyenv shim named uv (a script) is skipped, as plans skip it."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(directory or ".") / "uv"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            with open(candidate, "rb") as handle:
                if handle.read(2) != b"#!":
                    return candidate
    pytest.skip("needs a uv program on PATH")


def _installs_six(compute: Compute, plan_token: str) -> None:
    done = compute(op="install", engine="python", packages=["six"], confirm=plan_token)
    assert done["ok"] is True, done
    assert done["after"] == {"missing": [], "checked": True}
    ran = compute(
        op="run", engine="python", code="import six\nprint(six.__file__)", packages=["six"]
    )
    assert ran["ok"] is True, ran
    return None


def test_a_uv_venv_without_pip_gets_a_uv_plan_whose_confirm_installs_into_it(
    tmp_path: Path, project: Path
) -> None:
    """Issue 21 case 7: uv venv makes no pip, so the plan is uv pip install --python <it>."""
    uv = _native_uv()
    venv = tmp_path / "uv-env"
    subprocess.run([str(uv), "venv", "-q", str(venv)], check=True, timeout=120)
    assert not list(venv.glob("lib/python*/site-packages/pip"))  # no pip: the attack's premise
    # A shim named uv beside the interpreter (as in a pyenv shims folder) is never trusted.
    write_program(venv / "bin", "uv", f'echo "shim ran: $*" >> "{tmp_path}/shim.log"\nexit 1\n')
    compute = Compute(project, f"{venv / 'bin'}:{uv.parent}:/usr/bin:/bin")

    planned = compute(op="install", engine="python", packages=["six"])
    plan = planned["plan"]
    interpreter = str(venv / "bin" / "python3")
    assert plan["manager"] == "uv" and plan["managerAssumed"] is False, plan
    assert plan["commands"] == [
        [str(uv.parent / "uv"), "pip", "install", "--python", interpreter, "six"]
    ]
    assert plan["program"] == interpreter
    _installs_six(compute, planned["planToken"])
    assert list(venv.glob("lib/python*/site-packages/six.py"))
    assert not (tmp_path / "shim.log").exists()


def test_a_plain_venv_gets_its_own_pip_and_confirm_installs_into_it(
    tmp_path: Path, project: Path
) -> None:
    """Issue 21 case 7: a python -m venv environment installs with its own pip, no --user."""
    venv = tmp_path / "plain-env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    compute = Compute(project, f"{venv / 'bin'}:/usr/bin:/bin")

    planned = compute(op="install", engine="python", packages=["six"])
    plan = planned["plan"]
    interpreter = str(venv / "bin" / "python3")
    assert plan["manager"] == "pip-venv" and plan["managerAssumed"] is False, plan
    assert plan["commands"] == [[interpreter, "-m", "pip", "install", "six"]]
    _installs_six(compute, planned["planToken"])
    assert list(venv.glob("lib/python*/site-packages/six.py"))


def test_a_pyenv_uv_shim_is_not_trusted_and_the_plan_targets_the_interpreter_that_runs(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 case 7: a shims folder holding a uv shim gives no "uv, user scope" plan; the
    plan is the own pip of the interpreter the project's .python-version starts, and its dry
    run resolves."""
    versions = pyenv_versions()
    if versions is None or not (PYENV_SHIMS / "uv").is_file():
        pytest.skip("needs pyenv shims for python3 and uv, and two Python 3 versions")
    monkeypatch.delenv("PYENV_VERSION", raising=False)  # the project decides, as pyenv would
    monkeypatch.delenv("PYENV_DIR", raising=False)
    (project / ".python-version").write_text(versions[1] + "\n")
    compute = Compute(project, f"{PYENV_SHIMS}:/usr/bin:/bin")
    ran = compute(op="run", engine="python", code="import sys\nprint(sys.executable)")
    real = ran["stdout"].strip()
    assert ran["ok"] is True
    assert Path(real).resolve().is_relative_to(PYENV_ROOT / "versions" / versions[1])

    planned = compute(op="install", engine="python", packages=["six"])
    plan = planned["plan"]
    assert plan["manager"] == "pip" and plan["managerAssumed"] is False, plan
    assert plan["program"] == real
    assert plan["commands"] == [[real, "-m", "pip", "install", "--user", "six"]]
    assert not any(str(PYENV_SHIMS) in part for command in plan["commands"] for part in command)
    system = compute(op="install", engine="python", packages=["six"], scope="system")
    assert system["plan"]["commands"] == [[real, "-m", "pip", "install", "six"]]

    dry = subprocess.run(
        [*plan["commands"][0], "--dry-run", "--no-deps"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert dry.returncode == 0, dry.stderr
