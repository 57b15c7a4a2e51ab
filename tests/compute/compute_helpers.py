"""Helpers for the compute tests: a project, a service over it, fake engines on PATH."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reckoner.compute.service import ComputeService
from reckoner.compute.settings import normalise
from reckoner.compute.vocabulary import MathCode, NextKind, NextReason

# Python first from this interpreter's directory (no version-manager shim in between), then
# the machine's PATH for Rscript and octave-cli.
REAL_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

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
            row_sink=lambda ok, content: self.rows.append((ok, content)),
            search_path=search_path,
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
