"""Install plans: which manager, which commands, in which scope, and the token bound to them.

Pure: a plan is data built from the engine's program path (for python, the interpreter as
it described itself in the project) and the request. The service
shows it (dry run) and executes it only when handed back its exact ``planToken``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

PACKAGE_SPEC = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*"  # name
    r"(\[[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*\])?"  # [extras]
    r"((==|>=|<=|~=|!=|>|<|=)[A-Za-z0-9][A-Za-z0-9.*+_-]*)?$"  # <op>version
)
VERSION_POLICY = (
    "versions are solved by the package manager: compute checks only that each package "
    "exists by its base name and passes every spec to the manager unchanged"
)
_CONDA_MARKS = ("/envs/", "/conda", "/miniconda", "/anaconda", "/mambaforge", "/miniforge")

SYSTEM_UNSUPPORTED = {
    "r": "R installs into the user library R_LIBS_USER; a system install writes the "
    "distribution's package directory, which needs root or the distribution's package manager",
    "octave": "Octave's pkg install writes the user's package directory; a system install "
    "writes Octave's share/packages, which needs root",
    "julia": "Pkg.add installs into the active environment and the user's depot "
    "(JULIA_DEPOT_PATH); a system scope is not a Julia concept",
    "conda": "conda installs into the interpreter's own environment; it has no system scope",
    "mamba": "mamba installs into the interpreter's own environment; it has no system scope",
    "uv": "uv installs into the interpreter's own virtual environment; it has no system scope",
}


def base_name(spec: str) -> str:
    """A package spec's name without extras or version (``numpy`` of ``numpy[x]>=1``)."""
    return re.split(r"[\[=<>~!]", spec, maxsplit=1)[0]


def bad_spec(specs: Sequence[str]) -> str | None:
    """The first spec the tool will not pass on (a shell metacharacter, a space, a URL)."""
    for spec in specs:
        if not PACKAGE_SPEC.fullmatch(spec):
            return spec
    return None


def constraints(specs: Sequence[str]) -> list[str]:
    """The specs that carry more than a name: checked for existence only, never enforced."""
    return [s for s in specs if base_name(s) != s]


@dataclass(frozen=True, slots=True)
class Interpreter:
    """A Python interpreter as it describes itself."""

    executable: str
    version: str
    prefix: str
    base_prefix: str
    has_pip: bool | None  # None when the interpreter could not tell

    @property
    def in_virtual_environment(self) -> bool:
        return os.path.normpath(self.prefix) != os.path.normpath(self.base_prefix)


@dataclass(frozen=True, slots=True)
class Manager:
    name: str
    assumed: bool
    why: str
    program: str | None = None  # the manager's own executable, when it is not the interpreter


def python_manager(
    interpreter: Interpreter, which: Callable[[str], str | None], native_uv: str | None
) -> Manager:
    """The interpreter's own manager, detected on the real interpreter (never a launcher).

    Conda/mamba by path marks; a virtual environment's own pip, or uv for one made by
    ``uv venv`` (no pip); a base interpreter's pip. ``native_uv`` is a uv program (never a
    shim: a shim decides per directory what it starts), looked up beside the interpreter
    first, then on PATH.
    """
    executable = interpreter.executable
    lowered = executable.replace("\\", "/").lower()
    if any(mark in lowered for mark in _CONDA_MARKS):
        for name in ("conda", "mamba"):
            if which(name):
                return Manager(
                    name, False, f"the interpreter lives in a conda environment and {name} resolves"
                )
    if interpreter.in_virtual_environment:
        if interpreter.has_pip:
            return Manager(
                "pip-venv",
                False,
                f"the interpreter belongs to the virtual environment {interpreter.prefix}, "
                "which has its own pip",
            )
        if native_uv is not None:
            return Manager(
                "uv",
                False,
                f"the virtual environment {interpreter.prefix} has no pip (uv venv makes none); "
                f"{native_uv} installs into it with --python",
                native_uv,
            )
        return Manager(
            "pip-venv",
            True,
            f"the virtual environment {interpreter.prefix} has no pip and no uv program was "
            "found; the plan bootstraps pip with ensurepip",
        )
    return Manager(
        "pip",
        interpreter.has_pip is not True,
        f"{executable} is a base interpreter (no virtual environment); its own pip, with "
        "--user in user scope"
        + ("" if interpreter.has_pip else "; pip was not found in it, so the plan assumes one"),
    )


def _command(
    interpreter: Interpreter, manager: Manager, specs: list[str], scope: str
) -> tuple[list[list[str]], list[list[str]]]:
    names = [base_name(s) for s in specs]
    python = interpreter.executable
    if manager.name in ("conda", "mamba"):
        return [[manager.name, "install", "-y", "-c", "conda-forge", *specs]], [
            [manager.name, "remove", "-y", *names]
        ]
    if manager.name == "uv":
        assert manager.program is not None
        return (
            [[manager.program, "pip", "install", "--python", python, *specs]],
            [[manager.program, "pip", "uninstall", "--python", python, *names]],
        )
    user = ["--user"] if manager.name == "pip" and scope == "user" else []
    # A venv without pip and without uv gets pip from the interpreter's own stdlib first.
    bootstrap = (
        [[python, "-m", "ensurepip"]] if manager.assumed and manager.name == "pip-venv" else []
    )
    return (
        [*bootstrap, [python, "-m", "pip", "install", *user, *specs]],
        [[python, "-m", "pip", "uninstall", "-y", *names]],
    )


def _quote_r(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


@dataclass(frozen=True, slots=True)
class PythonTarget:
    """What a python install goes into: the interpreter the program really starts in the
    project (a shim's program, not the shim; None: the program is taken as a base
    interpreter), and a uv program found beside it or on PATH (never a shim)."""

    interpreter: Interpreter | None = None
    native_uv: str | None = None


_Commands = tuple[Manager, list[list[str]], list[list[str]]]
"""A plan's manager, its install commands and the commands that undo them."""


def plan(
    engine: str,
    program: str,
    specs: list[str],
    scope: str,
    which: Callable[[str], str | None],
    python: PythonTarget = PythonTarget(),
) -> tuple[dict[str, Any] | None, str | None]:
    """(the plan, None), or (None, why system scope is refused) for one engine's packages.

    ``which`` finds conda or mamba for a python install; ``python`` is what it installs into.
    """
    if engine == "python":
        real = python.interpreter or Interpreter(program, "", "", "", None)
        manager = python_manager(real, which, python.native_uv)
        if scope == "system" and manager.name in SYSTEM_UNSUPPORTED:
            return None, SYSTEM_UNSUPPORTED[manager.name]
        commands, uninstall = _command(real, manager, specs, scope)
        program = real.executable
    elif scope == "system":
        return None, SYSTEM_UNSUPPORTED[engine]
    else:
        manager, commands, uninstall = _USER_SCOPE[engine](program, [base_name(s) for s in specs])
    body = {
        "engine": engine,
        "program": program,
        "packages": specs,
        "scope": scope,
        "manager": manager.name,
        "managerAssumed": manager.assumed,
        "managerWhy": manager.why,
        "commands": commands,
        "uninstall": uninstall,
        "versionPolicy": VERSION_POLICY,
        "constraintsNotEnforced": constraints(specs),
    }
    return body, None


def _r_commands(program: str, names: list[str]) -> _Commands:
    manager = Manager("R install.packages", False, "R's own installer, into R_LIBS_USER")
    code = (
        "lib <- Sys.getenv('R_LIBS_USER'); dir.create(lib, recursive = TRUE, "
        f"showWarnings = FALSE); install.packages(c({_quote_r(names)}), lib = lib, "
        "repos = 'https://cloud.r-project.org')"
    )
    remove = f"remove.packages(c({_quote_r(names)}), lib = Sys.getenv('R_LIBS_USER'))"
    return manager, [[program, "-e", code]], [[program, "-e", remove]]


def _octave_commands(program: str, names: list[str]) -> _Commands:
    manager = Manager("Octave pkg", False, "Octave's pkg, into the user's package directory")
    octave = [program, "--quiet", "--no-init-file", "--eval"]
    return (
        manager,
        [[*octave, f"pkg install -forge {n}"] for n in names],
        [[*octave, f"pkg uninstall {n}"] for n in names],
    )


def _julia_commands(program: str, names: list[str]) -> _Commands:
    manager = Manager("Julia Pkg", False, "Julia's Pkg, into the active environment and user depot")
    listed = ", ".join(f'"{n}"' for n in names)
    julia = [program, "--startup-file=no", "-e"]
    return (
        manager,
        [[*julia, f"using Pkg; Pkg.add([{listed}])"]],
        [[*julia, f"using Pkg; Pkg.rm([{listed}])"]],
    )


_USER_SCOPE: dict[str, Callable[[str, list[str]], _Commands]] = {
    "r": _r_commands,
    "octave": _octave_commands,
    "julia": _julia_commands,
}
"""The engines besides python, each with its own package manager in user scope."""


def plan_token(body: dict[str, Any]) -> str:
    """A token bound to the plan's content: any change to the plan changes it."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "plan-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]
