"""Finding an engine and asking it what it is: PATH first, then known install locations.

A version probe is retried only on the cold-start signature (no exit code: not spawned or
timed out); a deterministic failure (a nonzero exit, unreadable output) is final.
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import runner
from .engines import Descriptor, expand

PROBE_TIMEOUTS_MS = (20_000, 45_000, 45_000)
_TAIL = 2000


@dataclass(frozen=True, slots=True)
class Located:
    path: str
    found_via: str  # "path" or "known-install"


@dataclass(frozen=True, slots=True)
class VersionProbe:
    """The outcome of asking an engine its version, with the diagnostics a caller sees."""

    version: str | None
    diagnostics: dict[str, Any]


def probe_cwd(project: Path | None = None) -> str:
    """Where a probe runs: the project when it exists, else a directory that certainly exists.

    Runs happen in the project, and a launcher such as a pyenv shim picks its program by the
    cwd, so a probe elsewhere could describe another program.
    """
    if project is not None and project.is_dir():
        return str(project)
    return tempfile.gettempdir()


def locate(descriptor: Descriptor, search_path: str | None = None) -> Located | None:
    """The engine's program: a candidate on PATH, else the first known install location."""
    for candidate in descriptor.candidates:
        found = runner.which(candidate, search_path)
        if found:
            return Located(found, "path")
    for pattern in descriptor.known_locations:
        expanded = os.path.expanduser(pattern)
        for hit in sorted(glob.glob(expanded), reverse=True):  # the newest version first
            if os.path.isfile(hit) and os.access(hit, os.X_OK):
                return Located(hit, "known-install")
    return None


def locate_command(command: str, search_path: str | None = None) -> str | None:
    """A cli command as the spawner will resolve it: a path as given, else a PATH lookup."""
    if os.sep in command or (os.altsep and os.altsep in command):
        path = Path(command)
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return runner.which(command, search_path)


def is_native(path: Path) -> bool:
    """An executable that is a program itself, not a script: a shim or wrapper (``#!``)
    decides at run time what it starts, so it is never trusted as a package manager."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(2)
    except OSError:
        return False
    return path.is_file() and os.access(path, os.X_OK) and start != b"#!"


def find_native(name: str, directories: Sequence[str]) -> str | None:
    """The first ``name`` in ``directories`` that is a native program (shims are skipped)."""
    for directory in directories:
        if directory and is_native(Path(directory) / name):
            return str(Path(directory) / name)
    return None


def search_directories(search_path: str | None = None) -> list[str]:
    """The directories a PATH lookup goes through, in order."""
    return (search_path if search_path is not None else os.environ.get("PATH", "")).split(
        os.pathsep
    )


def _tail(data: bytes) -> str:
    return data.decode("utf-8", "replace")[-_TAIL:]


def probe_version(descriptor: Descriptor, program: str, cwd: str | None = None) -> VersionProbe:
    """Ask for the version; up to three tries, the later ones only after a cold start."""
    argv = [program, *descriptor.version_argv]
    tries: list[dict[str, Any]] = []
    done: runner.Completed | None = None
    for timeout in PROBE_TIMEOUTS_MS:
        done = runner.run(argv, runner.RunSpec(cwd=cwd or probe_cwd(), timeout_ms=timeout))
        tries.append(
            {
                "exit": done.exit,
                "timedOut": done.timed_out,
                "spawned": done.spawned,
                "ms": round(done.duration_ms, 1),
            }
        )
        if done.exit is not None:
            break  # an answer, good or bad, is deterministic: never retried
    assert done is not None
    text = done.stdout.decode("utf-8", "replace") + "\n" + done.stderr.decode("utf-8", "replace")
    version = descriptor.version_of(text) if done.exit == 0 else None
    diagnostics = {
        "argv": argv,
        "exit": done.exit,
        "timedOut": done.timed_out,
        "spawned": done.spawned,
        "ms": round(done.duration_ms, 1),
        "stderrTail": _tail(done.stderr),
        "attempts": len(tries),
        "retried": len(tries) > 1,
        "retryDiag": tries,
    }
    if done.spawn_error:
        diagnostics["spawnError"] = done.spawn_error
    return VersionProbe(version, diagnostics)


def check_license(descriptor: Descriptor, program: str) -> tuple[bool, dict[str, Any]]:
    """Whether a commercial engine starts with a license; (True, ...) for the free ones."""
    if descriptor.license_argv is None:
        return True, {}
    argv = [program, *descriptor.license_argv]
    done = runner.run(argv, runner.RunSpec(cwd=probe_cwd(), timeout_ms=PROBE_TIMEOUTS_MS[0]))
    diagnostics = {"argv": argv, "exit": done.exit, "stderrTail": _tail(done.stderr)}
    return done.exit == 0, diagnostics


@dataclass(frozen=True, slots=True)
class PackageCheck:
    """Which packages a probe found. ``known`` is False when the probe itself never answered."""

    missing: list[str]
    known: bool
    diagnostics: dict[str, Any]


def check_packages(
    descriptor: Descriptor, program: str, names: Sequence[str], cwd: str | None = None
) -> PackageCheck:
    """Probe each package by its base name; an unanswered probe never reads as missing.

    ``cwd`` is the run's own: the interpreter a launcher picks there is the one checked.
    """
    if not names or descriptor.package_probe is None:
        return PackageCheck([], descriptor.package_probe is not None, {})
    argv = [program, *expand(descriptor.package_probe, packages=names)]
    tries = 0
    done: runner.Completed | None = None
    for timeout in PROBE_TIMEOUTS_MS:
        tries += 1
        done = runner.run(argv, runner.RunSpec(cwd=cwd or probe_cwd(), timeout_ms=timeout))
        if done.exit is not None:
            break
    assert done is not None
    status: dict[str, str] = {}
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        parts = line.replace(":", " ").split()
        if len(parts) >= 2 and parts[-1] in ("ok", "missing"):
            status[parts[0]] = parts[-1]
    diagnostics: dict[str, Any] = {"argv": argv, "exit": done.exit, "attempts": tries}
    if done.exit != 0 or any(name not in status for name in names):
        diagnostics["stderrTail"] = _tail(done.stderr)
        return PackageCheck([], False, diagnostics)
    return PackageCheck([n for n in names if status[n] == "missing"], True, diagnostics)
