"""What a run really starts, asked in the run's own working directory and environment.

The program found on PATH may be a launcher that picks the real one per directory: a pyenv
shim reads ``.python-version`` from its cwd, so a probe made anywhere else can name another
interpreter than the one that ran. Python is asked for ``sys.executable`` and its version
as the run's own interpreter reports them (with the facts an install plan needs); any other
engine is named by its resolved program and asked its version in the same cwd.

Only a program that cannot choose is remembered: a native executable of the engine's own
name (``python3.11``, ``Rscript``), keyed by its resolved path and file identity. A script
(every pyenv or asdf shim) or a native program of another name (a mise shim, the juliaup
launcher) is asked again before every run.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import runner
from .discovery import PROBE_TIMEOUTS_MS, is_native
from .engines import Descriptor, family_of
from .install import Interpreter

_MARK = "reckoner-interpreter"
# Cheap to start (no json or platform import: a probe runs before every run) and valid on
# Python 2.7 too, so an old interpreter still gets a name and a version. Fields are NUL
# separated: a path may hold any other character.
PYTHON_IDENTITY = (
    "import sys\n"
    "try:\n"
    "    import importlib.util\n"
    "    pip = str(importlib.util.find_spec('pip') is not None)\n"
    "except Exception:\n"
    "    pip = 'None'\n"
    "sys.stdout.write('\\0'.join(['" + _MARK + "', sys.executable, sys.version.split()[0], "
    "sys.prefix, getattr(sys, 'base_prefix', sys.prefix), pip, '']))\n"
)
_TAIL = 2000


@dataclass(frozen=True, slots=True)
class Identity:
    """The program a run starts (``launcher``) and what it really runs (``path``, ``version``)."""

    launcher: str
    path: str
    version: str | None
    cwd: str
    python: Interpreter | None = None
    failure: dict[str, Any] | None = None  # the probe's diagnostics when it gave no answer

    def engine_info(self, found: dict[str, Any]) -> dict[str, Any]:
        """An engineInfo for a receipt: the cached probe's facts, corrected by this one."""
        info = {**found, "path": self.path, "version": self.version, "probedIn": self.cwd}
        if self.launcher != self.path:
            info["launcher"] = self.launcher
        if self.failure is not None:
            info["identityProbe"] = self.failure
        return info


def python_interpreter(
    program: str,
    cwd: str,
    timeout_ms: int = PROBE_TIMEOUTS_MS[0],
    env: Mapping[str, str] | None = None,
) -> tuple[Interpreter | None, dict[str, Any]]:
    """The interpreter ``program`` starts in ``cwd`` (None, diagnostics when it cannot say)."""
    argv = [program, "-c", PYTHON_IDENTITY]
    done = runner.run(argv, runner.RunSpec(cwd=cwd, timeout_ms=timeout_ms, env=env))
    diagnostics: dict[str, Any] = {"argv": argv[:2], "exit": done.exit, "cwd": cwd}
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    start = fields.index(_MARK) if _MARK in fields else -1
    facts = fields[start + 1 : start + 6] if start >= 0 else []
    if done.exit != 0 or len(facts) != 5:
        diagnostics["stderrTail"] = done.stderr.decode("utf-8", "replace")[-_TAIL:]
        return None, diagnostics
    executable, version, prefix, base_prefix, pip = facts
    interpreter = Interpreter(
        executable=executable or program,  # empty when the interpreter cannot tell
        version=version,
        prefix=prefix,
        base_prefix=base_prefix,
        has_pip={"True": True, "False": False}.get(pip),
    )
    return interpreter, diagnostics


def identify(
    program: str,
    family: Descriptor | None,
    cwd: str,
    timeout_ms: int = PROBE_TIMEOUTS_MS[0],
    env: Mapping[str, str] | None = None,
) -> Identity:
    """What ``program`` runs when started in ``cwd`` with the run's environment.

    ``env`` is the source the run's own environment is built from (None: the runner's
    default, as the run uses); ``timeout_ms`` bounds the question.
    """
    if family is not None and family.name == "python":
        interpreter, diagnostics = python_interpreter(program, cwd, timeout_ms, env)
        if interpreter is not None:
            return Identity(program, interpreter.executable, interpreter.version, cwd, interpreter)
        return Identity(program, os.path.realpath(program), None, cwd, failure=diagnostics)
    resolved = os.path.realpath(program)
    if family is None:
        return Identity(program, resolved, None, cwd)
    argv = [program, *family.version_argv]
    done = runner.run(argv, runner.RunSpec(cwd=cwd, timeout_ms=timeout_ms, env=env))
    text = done.stdout.decode("utf-8", "replace") + "\n" + done.stderr.decode("utf-8", "replace")
    version = family.version_of(text) if done.exit == 0 else None
    failure = None
    if version is None:
        failure = {"argv": argv, "exit": done.exit, "cwd": cwd, "stderrTail": text[-_TAIL:]}
    return Identity(program, resolved, version, cwd, failure=failure)


def _fixed_key(program: str, family: Descriptor | None, cwd: str) -> tuple[Any, ...] | None:
    """The key under which ``program``'s identity may be remembered, or None: it may choose."""
    real = os.path.realpath(program)
    if family is None or not is_native(Path(real)):
        return None
    own = family_of(os.path.basename(real))
    if own is None or own.name != family.name:
        return None
    try:
        status = os.stat(real)
    except OSError:
        return None
    return (program, real, status.st_ino, status.st_size, status.st_mtime_ns, cwd)


class Identities:
    """The identities a server has asked; a program that may choose is asked every time."""

    def __init__(self) -> None:
        self._known: dict[tuple[Any, ...], Identity] = {}
        self._lock = threading.Lock()

    def of(
        self,
        program: str,
        family: Descriptor | None,
        cwd: str,
        timeout_ms: int,
        env: Mapping[str, str] | None = None,
    ) -> Identity:
        """The identity the run about to start will have; ``env`` as the run gets it."""
        key = _fixed_key(program, family, cwd)
        if key is not None and env is not None:
            key = (*key, tuple(sorted(env.items())))
        if key is not None:
            with self._lock:
                known = self._known.get(key)
            if known is not None:
                return known
        found = identify(program, family, cwd, min(timeout_ms, PROBE_TIMEOUTS_MS[0]), env)
        if key is not None and found.failure is None:
            with self._lock:
                self._known[key] = found
        return found
