"""The distribution (issue 25): the wheel `uv build` makes installs alone, without extras, into
a fresh virtual environment and runs there; a feature whose extra is missing answers the one
sentence that names the install command. The build, the install and the first checks are
`.ci/wheel-check` itself, so CI and this file check the same thing."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from reckoner import __version__
from reckoner.host.extras import DISTRIBUTION, EXTRAS, install_command

ROOT = Path(__file__).resolve().parent.parent
HANDSHAKE = ROOT / ".ci" / "mcp_handshake.py"
SDK_MODULES = sorted({name for names in EXTRAS.values() for name in names})


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment holding the base wheel and nothing else."""
    where = tmp_path_factory.mktemp("wheel") / "venv"
    done = subprocess.run(
        [str(ROOT / ".ci" / "wheel-check"), str(where)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return where


def run(
    venv: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "reckoner"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={"PATH": os.environ["PATH"], "COLUMNS": "200", **(env or {})},
    )


def handshake(
    venv: Path, serve: list[str], calls: list[tuple[str, dict[str, Any]]], env: dict[str, str]
) -> dict[str, Any]:
    asked = [word for tool, args in calls for word in ("--call", tool, json.dumps(args))]
    done = subprocess.run(
        [
            str(venv / "bin" / "python"),
            str(HANDSHAKE),
            *asked,
            "--",
            str(venv / "bin" / "reckoner"),
            *serve,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={"PATH": os.environ["PATH"], **env},
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_extras_in_pyproject_are_the_ones_host_extras_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    declared = project["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        names = {spec.split(">")[0].split("=")[0].split("<")[0] for spec in declared[extra]}
        assert names == set(modules), extra
    assert declared["all"] == [f"{DISTRIBUTION}[{','.join(sorted(EXTRAS, reverse=True))}]"]
    base = {spec.split(">")[0].split("<")[0] for spec in project["dependencies"]}
    assert not base & set(SDK_MODULES), "an extra's package is in the base install"


def test_the_readme_installs_the_distribution_and_names_each_extra_as_host_extras_does() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert f"uv tool install {DISTRIBUTION}" in readme
    assert f"pipx install {DISTRIBUTION}" in readme
    assert install_command("search") in readme
    for extra in (*EXTRAS, "all"):
        assert f"| `{DISTRIBUTION}[{extra}]` |" in readme, extra


def test_the_wheel_installs_alone_in_a_fresh_venv_and_prints_its_version(venv: Path) -> None:
    done = run(venv, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"reckoner {__version__}"
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m, importlib.util as u, json, sys;"
            f"print(json.dumps([m.version('{DISTRIBUTION}'),"
            " [n for n in sys.argv[1:] if u.find_spec(n) is not None]]))",
            *SDK_MODULES,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    version, present = json.loads(probe.stdout)
    assert version == __version__
    assert present == [], "the base wheel pulled in an extra's package"


def test_the_installed_server_answers_an_mcp_handshake_and_a_call(
    venv: Path, tmp_path: Path
) -> None:
    answer = handshake(
        venv,
        ["serve"],
        [("record_start", {"title": "from the wheel"})],
        {"RECKONER_HOME": str(tmp_path)},
    )
    assert answer["server"] == {"name": "reckoner", "version": __version__}
    assert len(answer["tools"]) == 6 and "eval" in answer["tools"]
    assert answer["calls"] == [{"ok": True}]


def test_search_without_its_extra_answers_the_install_sentence(venv: Path, tmp_path: Path) -> None:
    env = {"RECKONER_HOME": str(tmp_path), "ANTHROPIC_API_KEY": "sk-test-key"}
    answer = handshake(
        venv,
        ["serve", "--preset", "reckoner-with-search"],
        [
            ("record_start", {"title": "a lookup"}),
            ("search", {"question": "What is the speed of sound in dry air at 20 degC?"}),
        ],
        env,
    )
    receipt = answer["calls"][1]
    assert receipt["ok"] is False
    assert install_command("search") in receipt["error"], receipt
    assert "Traceback" not in json.dumps(receipt)


def test_a_model_article_without_its_extra_answers_the_install_sentence(
    venv: Path, tmp_path: Path
) -> None:
    env = {"RECKONER_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test-key"}
    for tool, args in (("record_start", {"title": "t"}), ("record_end", {"text": "done"})):
        assert run(venv, "call", tool, json.dumps(args), env=env).returncode == 0
    listing = json.loads(run(venv, "records", "--json", env=env).stdout)
    record_id = listing["closed"][0]["id"]
    done = run(
        venv,
        "article",
        record_id,
        "--writer",
        "openai",
        "--model",
        "m",
        "--out",
        str(tmp_path),
        env=env,
    )
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert install_command("models") in said, said
    assert "Traceback" not in said
    assert not list(tmp_path.glob("*.md"))


def test_doctor_in_the_base_install_names_each_missing_extra_and_its_command(
    venv: Path, tmp_path: Path
) -> None:
    done = run(venv, "doctor", "--json", "--home", str(tmp_path))
    assert done.returncode == 0, done.stderr
    extras = json.loads(done.stdout)["extras"]
    for extra in EXTRAS:
        assert extras[extra]["installed"] is False
        assert extras[extra]["install"] == install_command(extra)
    screen = run(venv, "doctor", "--home", str(tmp_path)).stdout
    assert install_command("search") in screen


def test_the_installed_pitfalls_server_names_the_package_version(
    venv: Path, tmp_path: Path
) -> None:
    """The standalone pitfalls server reports the version from reckoner.version, which the
    wheel carries under the distribution name reckoner-mcp (not an installed ``reckoner``)."""
    answer = handshake(
        venv, ["pitfalls", "serve", "--home", str(tmp_path / "home")], [], {"HOME": str(tmp_path)}
    )
    assert answer["server"] == {"name": "reckoner-pitfalls", "version": __version__}
