"""Issue 12 and docs/guide/compute.md: install plans, their token, the manager detection and the
audit file."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from compute_helpers import Compute, fake_engine
from hypothesis import given
from hypothesis import strategies as st

from reckoner.compute import install


def _real_uv() -> str:
    """The uv binary itself (a version manager's shim re-dispatches on its own name)."""
    found = shutil.which("uv")
    assert found, "uv is needed for the install tests"
    if Path(found).read_bytes()[:2] == b"#!":
        done = subprocess.run(["pyenv", "which", "uv"], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.strip()
    return found


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A throwaway virtual environment with uv beside its interpreter."""
    uv = _real_uv()
    target = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", str(target)], check=True, timeout=120)
    (target / "bin" / "uv").symlink_to(uv)
    return target


def test_dry_run_then_confirm_installs_into_the_venv(venv: Path, project: Path) -> None:
    """docs/guide/compute.md: dryRun returns the plan and planToken; confirm with it executes; audit
    kept."""
    compute = Compute(project, str(venv / "bin"))
    missing = compute(op="run", engine="python", code="import six", packages=["six"])
    assert missing["code"] == "MATH_MISSING_PACKAGES"

    planned = compute(op="install", engine="python", packages=["six"])
    assert planned["ok"] is True and planned["dryRun"] is True
    plan = planned["plan"]
    interpreter = str(venv / "bin" / "python3")
    assert plan["manager"] == "uv" and plan["managerAssumed"] is False
    assert plan["commands"] == [
        [str(venv / "bin" / "uv"), "pip", "install", "--python", interpreter, "six"]
    ]
    assert planned["next"] == {"kind": "agent-install", "confirm": planned["planToken"]}
    assert not (project / "Computation").exists()

    wrong = compute(op="install", engine="python", packages=["six"], confirm="plan-0000")
    assert wrong["code"] == "MATH_REFUSED"
    assert wrong["next"] == {"kind": "reason", "reason": "plan-token-mismatch"}
    changed = compute(
        op="install", engine="python", packages=["six==1.17.0"], confirm=planned["planToken"]
    )
    assert changed["next"]["reason"] == "plan-token-mismatch"
    assert not (project / "Computation").exists()

    done = compute(op="install", engine="python", packages=["six"], confirm=planned["planToken"])
    assert done["ok"] is True, done
    assert done["installedSoFar"] == plan["commands"]
    audit = json.loads((project / done["audit"]).read_text())
    assert audit["before"]["missing"] == ["six"] and audit["after"]["missing"] == []
    assert audit["uninstall"] == plan["uninstall"] and audit["planToken"] == planned["planToken"]
    ran = compute(
        op="run", engine="python", code="import six\nprint(six.__name__)", packages=["six"]
    )
    assert ran["ok"] is True and ran["stdout"] == "six\n"


def _base(executable: str, *, pip: bool | None = True) -> install.Interpreter:
    return install.Interpreter(executable, "3.11.7", "/usr", "/usr", pip)


def test_python_manager_detection(tmp_path: Path) -> None:
    """docs/guide/compute.md: conda/mamba by path and resolvability; a venv's pip, uv for a venv
    without
    pip; else the base interpreter's pip (managerAssumed only when it has none)."""
    found = {"conda": "/opt/conda/bin/conda"}

    def which(name: str) -> str | None:
        return found.get(name)

    conda = install.python_manager(_base("/home/u/miniconda3/envs/x/bin/python"), which, None)
    assert conda.name == "conda" and not conda.assumed
    found.clear()
    found["mamba"] = "/opt/mamba"
    assert install.python_manager(_base("/home/u/miniforge3/bin/python"), which, None).name == (
        "mamba"
    )
    found.clear()
    assert install.python_manager(_base("/home/u/miniforge3/bin/python"), which, None).name == (
        "pip"
    )
    bare = install.python_manager(_base(str(tmp_path / "python3"), pip=None), which, "/bin/uv")
    assert bare.name == "pip" and bare.assumed is True  # uv never installs into a base one
    venv = install.Interpreter("/v/bin/python", "3.11.7", "/v", "/usr", False)
    assert install.python_manager(venv, which, "/bin/uv").program == "/bin/uv"
    bootstrap = install.python_manager(venv, which, None)
    assert bootstrap.name == "pip-venv" and bootstrap.assumed is True
    body, _ = install.plan("python", "/usr/bin/python3", ["sympy"], "user", which)
    assert body is not None
    assert body["commands"] == [["/usr/bin/python3", "-m", "pip", "install", "--user", "sympy"]]
    assert body["managerAssumed"] is True
    system, _ = install.plan("python", "/usr/bin/python3", ["sympy"], "system", which)
    assert system is not None and "--user" not in system["commands"][0]
    bare_venv, _ = install.plan(
        "python", "/v/bin/python", ["six"], "user", which, install.PythonTarget(venv)
    )
    assert bare_venv is not None and bare_venv["commands"] == [
        ["/v/bin/python", "-m", "ensurepip"],
        ["/v/bin/python", "-m", "pip", "install", "six"],
    ]


@pytest.mark.parametrize("engine", ["r", "octave", "julia"])
def test_r_octave_julia_are_user_scope_only(tmp_path: Path, project: Path, engine: str) -> None:
    """docs/guide/compute.md: system scope refused with the engine's own reason; user scope
    plans."""
    bin_dir = tmp_path / "bin"
    fake_engine(bin_dir, "julia", "julia version 1.10.0")
    search = f"{bin_dir}:/usr/bin"
    compute = Compute(project, search)
    refused = compute(op="install", engine=engine, packages=["foo"], scope="system")
    assert refused["code"] == "MATH_REFUSED"
    assert refused["next"]["reason"] == "system-scope-unsupported"
    assert refused["next"]["why"] == install.SYSTEM_UNSUPPORTED[engine]
    planned = compute(op="install", engine=engine, packages=["foo"])
    assert planned["ok"] is True and planned["plan"]["scope"] == "user"
    assert planned["plan"]["commands"][0][0] == planned["plan"]["program"]
    assert planned["planToken"].startswith("plan-")
    assert not (project / "Computation").exists()  # a dry run executes and writes nothing


def test_a_plan_token_is_bound_to_the_plan() -> None:
    """docs/guide/compute.md: any change to the plan changes its token; the same plan, the same
    token."""
    body, _ = install.plan("python", "/usr/bin/python3", ["six"], "user", lambda n: None)
    again, _ = install.plan("python", "/usr/bin/python3", ["six"], "user", lambda n: None)
    other, _ = install.plan("python", "/usr/bin/python3", ["six"], "system", lambda n: None)
    assert body is not None and again is not None and other is not None
    assert install.plan_token(body) == install.plan_token(again) != install.plan_token(other)


@pytest.mark.parametrize("spec", ["numpy", "numpy[extra]", "numpy==1.2", "numpy=1.2", "a~=2.0"])
def test_accepted_spec_forms(spec: str) -> None:
    """docs/guide/compute.md: name, name[extras], name<op>version."""
    assert install.bad_spec([spec]) is None


def test_install_needs_packages_and_never_touches_cli(project: Path) -> None:
    """docs/guide/compute.md: install is for an engine's packages; cli is a caller's command."""
    compute = Compute(project)
    assert compute(op="install", engine="python")["code"] == "MATH_INVALID_ARGUMENT"
    refused = compute(op="install", engine="cli", packages=["x"])
    assert refused["next"] == {"kind": "reason", "reason": "policy"}


SHELL = " ;|&$`()<>'\"\\\n\t*?!#~{}@"


@given(st.text(min_size=0, max_size=12), st.sampled_from(SHELL), st.text(max_size=12))
def test_a_spec_with_a_shell_character_is_refused(head: str, char: str, tail: str) -> None:
    """docs/guide/compute.md: space, ;, |, &, $, backtick, @, brackets and the rest never pass."""
    spec = f"{head}{char}{tail}"
    if char in "<>" and install.PACKAGE_SPEC.fullmatch(spec):
        return  # name<version and name>version are operators, never given to a shell
    assert install.bad_spec([spec]) == spec
