"""Install plans: which manager, which commands, in which scope, and the token bound to them.

Pure: a plan is data built from the engine's program path and the request. The service
shows it (dry run) and executes it only when handed back its exact ``planToken``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
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
class Manager:
    name: str
    assumed: bool
    why: str


def python_manager(interpreter: str, which: Callable[[str], str | None]) -> Manager:
    """Detect, never guess: conda/mamba by path marks, uv beside the interpreter, else pip."""
    lowered = interpreter.replace("\\", "/").lower()
    if any(mark in lowered for mark in _CONDA_MARKS):
        if which("conda"):
            return Manager(
                "conda", False, "the interpreter lives in a conda environment and conda resolves"
            )
        if which("mamba"):
            return Manager(
                "mamba", False, "the interpreter lives in a conda environment and mamba resolves"
            )
    beside = Path(interpreter).parent
    for name in ("uv", "uv.exe"):
        if (beside / name).is_file() and os.access(beside / name, os.X_OK):
            return Manager("uv", False, f"uv sits beside the interpreter in {beside}")
    if (beside.parent / "pyvenv.cfg").is_file():
        return Manager(
            "pip-venv",
            True,
            "the interpreter is a virtual environment's with no uv beside it; the plan assumes "
            "its pip",
        )
    return Manager(
        "pip", True, "no conda, mamba or uv belongs to the interpreter; the plan assumes pip --user"
    )


def _command(
    interpreter: str, manager: Manager, specs: list[str], scope: str
) -> tuple[list[list[str]], list[list[str]]]:
    names = [base_name(s) for s in specs]
    if manager.name in ("conda", "mamba"):
        return [[manager.name, "install", "-y", "-c", "conda-forge", *specs]], [
            [manager.name, "remove", "-y", *names]
        ]
    if manager.name == "uv":
        uv = str(Path(interpreter).parent / "uv")
        return (
            [[uv, "pip", "install", "--python", interpreter, *specs]],
            [[uv, "pip", "uninstall", "--python", interpreter, *names]],
        )
    user = ["--user"] if manager.name == "pip" and scope == "user" else []
    return (
        [[interpreter, "-m", "pip", "install", *user, *specs]],
        [[interpreter, "-m", "pip", "uninstall", "-y", *names]],
    )


def _quote_r(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def plan(
    engine: str,
    program: str,
    specs: list[str],
    scope: str,
    which: Callable[[str], str | None],
) -> tuple[dict[str, Any] | None, str | None]:
    """(the plan, None), or (None, why system scope is refused) for one engine's packages."""
    names = [base_name(s) for s in specs]
    if engine == "python":
        manager = python_manager(program, which)
        if scope == "system" and manager.name in SYSTEM_UNSUPPORTED:
            return None, SYSTEM_UNSUPPORTED[manager.name]
        commands, uninstall = _command(program, manager, specs, scope)
    elif scope == "system":
        return None, SYSTEM_UNSUPPORTED[engine]
    elif engine == "r":
        manager = Manager("R install.packages", False, "R's own installer, into R_LIBS_USER")
        code = (
            "lib <- Sys.getenv('R_LIBS_USER'); dir.create(lib, recursive = TRUE, "
            f"showWarnings = FALSE); install.packages(c({_quote_r(names)}), lib = lib, "
            "repos = 'https://cloud.r-project.org')"
        )
        commands = [[program, "-e", code]]
        uninstall = [
            [
                program,
                "-e",
                f"remove.packages(c({_quote_r(names)}), lib = Sys.getenv('R_LIBS_USER'))",
            ]
        ]
    elif engine == "octave":
        manager = Manager("Octave pkg", False, "Octave's pkg, into the user's package directory")
        commands = [
            [program, "--quiet", "--no-init-file", "--eval", f"pkg install -forge {n}"]
            for n in names
        ]
        uninstall = [
            [program, "--quiet", "--no-init-file", "--eval", f"pkg uninstall {n}"] for n in names
        ]
    else:  # julia
        manager = Manager(
            "Julia Pkg", False, "Julia's Pkg, into the active environment and user depot"
        )
        listed = ", ".join(f'"{n}"' for n in names)
        commands = [[program, "--startup-file=no", "-e", f"using Pkg; Pkg.add([{listed}])"]]
        uninstall = [[program, "--startup-file=no", "-e", f"using Pkg; Pkg.rm([{listed}])"]]
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


def plan_token(body: dict[str, Any]) -> str:
    """A token bound to the plan's content: any change to the plan changes it."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "plan-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]
