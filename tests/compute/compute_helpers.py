"""Helpers for the compute tests: a project, a service over it, fake engines on PATH."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reckoner.compute.context import ComputeOptions
from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise
from reckoner.compute.vocabulary import NextKind, NextReason
from reckoner.contract.codes import MathCode

# Python first from this interpreter's directory (no version-manager shim in between), then
# the machine's PATH for Rscript and octave-cli.
REAL_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

PYENV_ROOT = Path(os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv")))
PYENV_SHIMS = PYENV_ROOT / "shims"

SEEN_CODES: set[str] = set()
SEEN_KINDS: set[str] = set()
SEEN_REASONS: set[str] = set()


def checked(response: dict[str, Any]) -> dict[str, Any]:
    """A response, after checking that it is plain JSON and that its vocabulary is known."""
    text = json.dumps(response, allow_nan=False)
    assert json.loads(text) == response
    assert type(response.get("ok")) is bool
    if response["ok"] is False:
        assert response["code"] in {c.value for c in MathCode}, response
        assert isinstance(response["error"], str) and response["error"], response
        assert "\n" not in response["error"]
        nxt = response["next"]
        assert nxt["kind"] in {k.value for k in NextKind}, response
        SEEN_CODES.add(response["code"])
        SEEN_KINDS.add(nxt["kind"])
        if nxt["kind"] == NextKind.REASON:
            assert nxt["reason"] in {r.value for r in NextReason}, response
            SEEN_REASONS.add(nxt["reason"])
    elif isinstance(response.get("next"), dict):
        SEEN_KINDS.add(response["next"]["kind"])
    return response


class Compute:
    """A ComputeService whose every response is checked, with the rows it appended."""

    def __init__(self, project: Path, search_path: str = REAL_PATH, **settings: Any) -> None:
        self.project = project
        self.rows: list[tuple[bool, dict[str, Any]]] = []
        self.service = ComputeService(
            project,
            normalise(settings),
            ComputeOptions(
                row_sink=lambda ok, content: self.rows.append((ok, content)),
                search_path=search_path,
            ),
        )

    def __call__(self, **args: Any) -> dict[str, Any]:
        return checked(self.service.call(args))

    def receipt(self, response: dict[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.project / response["receipt"]).read_text())
        return data


def write_program(directory: Path, name: str, body: str) -> Path:
    """An executable shell script named ``name`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_engine(directory: Path, name: str, version_line: str, *, licensed: bool = True) -> Path:
    """A fake engine: prints its version for a version probe, else echoes its argv as JSON.

    A license probe (the descriptor's license argv) exits 1 when ``licensed`` is False.
    """
    license_exit = "0" if licensed else "1"
    body = f"""
for a in "$@"; do
  case "$a" in
    --version|-version|'disp(version)'|'interface(version)') echo '{version_line}'; exit 0;;
    'disp(license())'|'$LicenseID') echo license; exit {license_exit};;
  esac
done
if [ "$1" = "-q" ] && [ "$2" = "-c" ] && [ "$3" = "quit" ]; then exit {license_exit}; fi
printf '%s\\n' "ARGV"
for a in "$@"; do printf '%s\\n' "$a"; done
"""
    return write_program(directory, name, body)


def argv_echo(stdout: str) -> list[str]:
    lines = stdout.split("\n")
    start = lines.index("ARGV")
    return [line for line in lines[start + 1 :] if line != ""]


Factory = Callable[..., Compute]


def pyenv_versions() -> tuple[str, str] | None:
    """The pyenv default and another installed 3.x, or None when this machine has no two."""
    pyenv = shutil.which("pyenv")
    if pyenv is None or not (PYENV_SHIMS / "python3").is_file():
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYENV_VERSION")}
    done = subprocess.run(
        [pyenv, "versions", "--bare", "--skip-aliases"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd="/",
        check=False,
    )
    default = subprocess.run(
        [pyenv, "version-name"], capture_output=True, text=True, env=env, timeout=60, cwd="/"
    ).stdout.strip()
    others = [v for v in done.stdout.split() if v.startswith("3.") and v != default]
    if not others or not default:
        return None
    return default, ("3.9.18" if "3.9.18" in others else others[0])
