"""The run op's request: every check a run passes before anything is claimed or started.

A run that gets past these is a ``RunRequest`` (the program found, the source read, the
packages checked); :mod:`reckoner.compute.execute` then runs and archives it. Every refusal
here leaves the archive untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.contract.compute import COMPUTE_ENGINES

from . import archive as arch
from . import execute, refusals, runner
from .archive import OutsideProject
from .containment import network_refusal
from .context import Context, Response
from .execute import warning
from .probe import Program, require_allowed, require_subprocesses, require_valid_specs
from .vocabulary import WarningCode

_SOURCES = ("code", "file", "expr")


@dataclass(frozen=True, slots=True)
class RunRequest:
    """A run that passed every check: what starts, on what, under which limits."""

    program: Program
    mode: str  # code, file or expr
    text: str  # the code, the expression, or the file's project-relative path
    source: Path | None  # the file, in mode file
    template: tuple[str, ...] | None  # the engine's argv template (None for cli)
    packages: list[str]
    captures: list[Path]
    cli: dict[str, Any]
    timeout_ms: int
    warnings: list[dict[str, str]]
    """The run's warnings so far; the run adds its own, in order, to this same list."""


def answer(ctx: Context, args: dict[str, Any]) -> Response:
    """run: the checks, then the run itself (archived, its row appended)."""
    require_subprocesses(ctx)
    engine = args.get("engine")
    if engine is None:
        raise refusals.invalid(f"run needs engine, one of {', '.join(COMPUTE_ENGINES)}")
    require_allowed(ctx, engine)
    _network_allows_a_run(ctx)
    mode, text = _source_text(args)
    if engine == "cli" and mode == "expr":
        raise refusals.cli_has_no_expr()
    if engine != "cli" and args.get("cli") is not None:
        raise refusals.invalid("cli is only for engine cli")
    packages = list(dict.fromkeys([*ctx.settings.packages, *(args.get("packages") or [])]))
    require_valid_specs(packages)
    captures = [inside(ctx, p, "captureFiles") for p in args.get("captureFiles") or []]
    source = _source_file(ctx, mode, text)
    if engine == "cli":
        program = ctx.engines.cli_program(args.get("cli"))
    else:
        program = ctx.engines.native_program(engine)
    request = RunRequest(
        program,
        mode,
        text,
        source,
        _template(program, mode),
        packages,
        captures,
        args.get("cli") or {},
        args.get("timeoutMs") or ctx.settings.timeout_ms,
        _package_precheck(ctx, program, packages),
    )
    return execute.execute(ctx, request)


def inside(ctx: Context, relative: str, what: str) -> Path:
    """``relative`` resolved inside the project, or the refusal naming ``what`` it was."""
    try:
        return arch.inside(ctx.project, relative)
    except OutsideProject as error:
        raise refusals.outside_project(what, relative, error, ctx.project) from None


def _network_allows_a_run(ctx: Context) -> None:
    network = ctx.settings.network
    refusal = network_refusal(network, network != "off" or bool(runner.network_isolation()))
    if refusal is not None:
        raise refusals.network_policy(refusal)


def _source_text(args: dict[str, Any]) -> tuple[str, str]:
    """(the mode, its text): the mode given, else the one source given, else code."""
    given = [key for key in _SOURCES if args.get(key) is not None]
    mode = args.get("mode") or (given[0] if len(given) == 1 else "code")
    for key in _SOURCES:
        if key != mode and args.get(key) is not None:
            raise refusals.invalid(
                f"mode {mode} takes {mode}, not {key}; drop {key} or set mode {key}"
            )
    text = args.get(mode)
    if text is None:
        raise refusals.invalid(f"mode {mode} needs {mode}")
    return mode, text


def _source_file(ctx: Context, mode: str, text: str) -> Path | None:
    """The file a mode-file run runs (it must exist inside the project); None otherwise."""
    if mode != "file":
        return None
    source = inside(ctx, text, "file")
    if not source.is_file():
        raise refusals.file_missing(text, ctx.project)
    return source


def _template(program: Program, mode: str) -> tuple[str, ...] | None:
    """The engine's argv for this mode (a cli command has none: its caller gives argv)."""
    if program.engine == "cli":
        return None
    assert program.descriptor is not None
    template = program.descriptor.eval_argv if mode == "expr" else program.descriptor.run_argv
    if template is None:
        raise refusals.no_such_form(program.engine, mode)
    return template


def _package_precheck(ctx: Context, program: Program, packages: list[str]) -> list[dict[str, str]]:
    """The warnings of the package check; a package the engine is known to lack refuses."""
    if not packages:
        return []
    descriptor = program.descriptor
    if descriptor is None or descriptor.package_probe is None:
        return [
            warning(
                WarningCode.PACKAGE_PRECHECK_SKIPPED,
                "the packages were not checked: this engine has no package probe",
            )
        ]
    check = ctx.engines.packages(descriptor, program.path, packages)
    if not check.known:
        return [
            warning(
                WarningCode.PACKAGE_PRECHECK_UNKNOWN,
                "the package probe gave no answer; the packages were not checked",
            )
        ]
    if check.missing:
        raise refusals.missing_packages(program.engine, check.missing, packages)
    return []
