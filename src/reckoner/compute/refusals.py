"""Every way compute says no: the ``next`` builders, the refusal sentences, and the answer
of a run from how it ended.

Each builder returns the :class:`~reckoner.contract.refusal.Refusal` its caller raises, with
``next`` first among the extra fields, so every failure receipt reads ``ok``, ``code``,
``error``, ``next``, then its evidence. The sentences name what was wrong and the fix; a
caller branches on ``code`` and ``next.kind`` (with ``next.reason``), never on the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reckoner.contract.codes import MathCode
from reckoner.contract.refusal import Refusal

from . import archive as arch
from . import install
from .engines import Descriptor
from .runner import Completed
from .vocabulary import NextKind, NextReason

if TYPE_CHECKING:
    from .context import Response
    from .execute import Ended
    from .probe import EngineState, Program


# -- next -------------------------------------------------------------------------------


def reason(why: NextReason, /, **extra: Any) -> dict[str, Any]:
    """``next`` of kind reason: a refusal the caller reads by its reason."""
    return {"kind": NextKind.REASON.value, "reason": why.value, **extra}


def note(text: str) -> dict[str, Any]:
    """``next`` of kind note: what to do, in words."""
    return {"kind": NextKind.NOTE.value, "text": text}


def guide(descriptor: Descriptor) -> dict[str, Any]:
    """``next`` for an engine to install: the user's guide, or the vendor's."""
    steps = descriptor.guide
    kind = NextKind.VENDOR if descriptor.commercial else NextKind.USER_INSTALL
    body: dict[str, Any] = {
        "kind": kind.value,
        "engine": descriptor.name,
        "linux": steps.linux,
        "macos": steps.macos,
        "windows": steps.windows,
        "link": steps.link,
    }
    if descriptor.verify:
        body["verify"] = descriptor.verify
    return body


# -- any op -----------------------------------------------------------------------------


def invalid(sentence: str) -> Refusal:
    """An argument of the wrong shape, said in ``sentence``."""
    return Refusal(
        MathCode.INVALID_ARGUMENT,
        sentence,
        next=note("fix the argument as the sentence says and call again"),
    )


def compute_off() -> Refusal:
    return Refusal(
        MathCode.NOT_AVAILABLE,
        "compute is off on this server; nothing was probed or run",
        next={"kind": NextKind.ENABLE.value, "setting": "compute.mode", "values": ["auto", "on"]},
    )


def no_subprocesses() -> Refusal:
    return Refusal(
        MathCode.NO_SUBPROCESS,
        "this host runs no subprocesses, so no engine can be probed or run here; "
        "this is not a missing engine",
        next=note("run compute on a host that allows subprocesses"),
    )


def not_allowed(engine: str, allowed: tuple[str, ...]) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"the engine {engine} is not allowed on this server; the allowed engines are "
        f"{', '.join(allowed)}",
        next=reason(NextReason.ENGINE_NOT_ALLOWED),
        engine=engine,
    )


def unsupported_spec(spec: str) -> Refusal:
    return Refusal(
        MathCode.INVALID_ARGUMENT,
        f"the package spec {spec[:60]!r} is not supported; write name, name[extras] or "
        "name<op>version with op one of == >= <= ~= != > < = (no spaces, shell "
        "characters or URLs)",
        next=reason(NextReason.UNSUPPORTED_VERSION_SYNTAX),
    )


def archive_unwritable(op: str | None, root: Path, error: OSError) -> Response:
    """The project's Computation folder cannot be written (a file or a link in its place, a
    read-only or full disk)."""
    return {
        "ok": False,
        "op": op,
        "code": MathCode.REFUSED.value,
        "error": f"the archive under {root} cannot be written "
        f"({error.strerror or error}); make it a writable folder and run again",
        "next": note("the run did not happen or was not archived; nothing was changed"),
    }


def internal(op: str | None, error: Exception) -> Response:
    return {
        "ok": False,
        "op": op,
        "code": MathCode.REFUSED.value,
        "error": (
            f"compute failed internally ({type(error).__name__}: {error}); nothing was archived"
        ),
        "next": reason(NextReason.POLICY),
    }


# -- engines ----------------------------------------------------------------------------


def engine_not_found(name: str, descriptor: Descriptor) -> Refusal:
    return Refusal(
        MathCode.ENGINE_NOT_FOUND,
        f"{name} was not found on PATH or in its known install locations; install it "
        f"({descriptor.guide.linux}) or put it on PATH",
        next=guide(descriptor),
        engine=name,
    )


def not_startable(state: EngineState) -> Refusal:
    return Refusal(
        MathCode.NO_SUBPROCESS,
        f"{state.name} was found at {state.path} but could not be started "
        f"({state.probe.get('spawnError')}); the engine is there, starting it failed",
        next=reason(NextReason.NO_SUBPROCESS),
        engine=state.name,
        probe=state.probe,
    )


def unusable(state: EngineState) -> Refusal:
    return Refusal(
        MathCode.ENGINE_UNUSABLE,
        f"{state.name} was found at {state.path} but its version probe "
        f"({' '.join(state.probe.get('argv', []))}) failed with exit "
        f"{state.probe.get('exit')}; check that it runs from a terminal",
        next=note("the engine is installed; repair it rather than installing another"),
        engine=state.name,
        engineInfo=state.info(),
        probe=state.probe,
    )


def unlicensed(state: EngineState) -> Refusal:
    return Refusal(
        MathCode.ENGINE_LICENSE_REQUIRED,
        f"{state.name} {state.version} at {state.path} has no usable license; activate one "
        f"with the vendor's tools",
        next=guide(state.descriptor),
        engine=state.name,
        engineInfo=state.info(),
        licenseProbe=state.license_probe,
    )


def none_found(
    missing: list[str], guides: list[dict[str, Any]], configured: list[str], absent: list[Any]
) -> Refusal:
    return Refusal(
        MathCode.ENGINE_NOT_FOUND,
        "no configured engine was found on this machine "
        f"({', '.join(missing) or 'none configured'}); "
        "install one, or run a command with engine cli",
        next={"kind": NextKind.USER_INSTALL.value, "engines": guides},
        configured=configured,
        absent=absent,
    )


def cli_command_missing() -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        'engine cli needs cli.command, the program to run (e.g. {"command": "python3"})',
        next=reason(NextReason.MISSING_CLI_COMMAND),
        engine="cli",
    )


def cli_command_shell(command: str) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"cli.command {command[:60]!r} holds a shell metacharacter or a space; give one "
        "program name or path and put its arguments in cli.argv (nothing runs a shell)",
        next=reason(NextReason.POLICY),
        engine="cli",
    )


def cli_command_not_found(command: str) -> Refusal:
    return Refusal(
        MathCode.ENGINE_NOT_FOUND,
        f"the cli command {command!r} was not found on PATH; install it or give its full path",
        next={"kind": NextKind.USER_INSTALL.value, "engine": "cli", "command": command},
        engine="cli",
    )


# -- run --------------------------------------------------------------------------------


def network_policy(sentence: str) -> Refusal:
    return Refusal(MathCode.REFUSED, sentence, next=reason(NextReason.POLICY))


def cli_has_no_expr() -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        "engine cli has no expression form; use mode code or file",
        next=reason(NextReason.EXPR_NOT_SUPPORTED),
        engine="cli",
    )


def no_such_form(engine: str, mode: str) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"{engine} has no {'expression' if mode == 'expr' else 'script'} form here; "
        f"use mode {'code' if mode == 'expr' else 'expr'}",
        next=reason(NextReason.MODE_NOT_SUPPORTED),
        engine=engine,
    )


def file_missing(text: str, project: Path) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"the file {text!r} does not exist in the project ({project})",
        next=reason(NextReason.FILE_NOT_FOUND),
    )


def outside_project(what: str, relative: str, error: Exception, project: Path) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"{what} {relative[:80]!r} is refused: {error}; give a path relative to the "
        f"project root {project} that stays inside it",
        next=reason(NextReason.PATH_OUTSIDE_PROJECT),
    )


def missing_packages(engine: str, missing: list[str], packages: list[str]) -> Refusal:
    return Refusal(
        MathCode.MISSING_PACKAGES,
        f"{engine} lacks the package(s) {', '.join(missing)}; install them "
        "(compute op install with dryRun shows the plan) and run again",
        next={"kind": NextKind.AGENT_INSTALL.value, "engine": engine, "packages": missing},
        engine=engine,
        missing=missing,
        versionPolicy=install.VERSION_POLICY,
        constraintsNotEnforced=install.constraints(packages),
    )


def verdict(ended: Ended, program: Program, evidence: Response, timeout_ms: int) -> Response:
    """The run's answer from how it ended: started or not, stopped, timed out, its exit code;
    ``evidence`` is what the answer carries after ``next`` (the receipt among it)."""
    done, stopped = ended.done, ended.stopped
    if not done.spawned:
        return Refusal(
            MathCode.NO_SUBPROCESS,
            f"{program.path} could not be started ({done.spawn_error}); the run is "
            "archived with no output",
            next=reason(NextReason.NO_SUBPROCESS),
            **evidence,
        ).receipt()
    if stopped is not None:
        if done.cancelled and done.overflowed is None:
            # Not a policy refusal: the caller stopped it, and may simply ask again.
            again = note("the run was cancelled before its end; call again to run it anew")
            return Refusal(MathCode.REFUSED, stopped, next=again, **evidence).receipt()
        policy = reason(NextReason.POLICY)
        return Refusal(MathCode.REFUSED, stopped, next=policy, **evidence).receipt()
    if done.timed_out:
        return Refusal(
            MathCode.TIMEOUT,
            f"the run passed its time limit of {timeout_ms} ms and its whole process tree "
            "was killed; the output so far is in the response and the receipt (raise timeoutMs "
            "or shorten the computation)",
            next=note("partial output is kept in receipt.json as partialStdout and partialStderr"),
            **evidence,
        ).receipt()
    if done.exit != 0:
        return _failed(ended, program, evidence)
    return {"ok": True, **evidence}


def _failed(ended: Ended, program: Program, evidence: Response) -> Response:
    """A run that exited non-zero: a command line the engine rejected, or the script's fault."""
    done = ended.done
    engine, engine_key = program.engine, program.info["engine"]
    signs = program.descriptor.bad_argv_signs if program.descriptor else ()
    low = (ended.err.head + ended.err.tail).decode("utf-8", "replace").lower()
    if not ended.out.head.strip() and any(s.lower() in low for s in signs):
        return Refusal(
            MathCode.ENGINE_BAD_ARGV,
            f"{engine_key} rejected its command line ({' '.join(done.argv[1:])[:120]}); "
            "this version spells its options differently",
            next={"kind": NextKind.ENGINE_OVERRIDE.value, "engine": engine, "argv": done.argv},
            **evidence,
        ).receipt()
    return Refusal(
        MathCode.NONZERO_EXIT,
        f"{engine_key} exited with {done.exit}; its stderr and the receipt "
        f"{evidence['receipt']} say why",
        next=note("fix the script and run again; the receipt of this run stays archived"),
        **evidence,
    ).receipt()


# -- receipt ----------------------------------------------------------------------------


def not_a_run_id(reference: str) -> Refusal:
    return invalid(
        f"{reference[:80]!r} is not a run id; pass the runId a run returned (or "
        "Computation/<runId>)"
    )


def no_archive(run_id: str, wanted: int | None, project: Path) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"no archive {arch.ROOT_NAME}/{run_id}"
        f"{'' if wanted is None else f'/attempts/{wanted}'} "
        f"exists in {project}; check the runId",
        next=reason(NextReason.ARCHIVE_MISSING),
        runId=run_id,
    )


def receipt_unparsable(directory: str, error: ValueError, run_id: str) -> Refusal:
    return Refusal(
        MathCode.INVALID_ARGUMENT,
        f"{directory}/receipt.json cannot be parsed ({str(error)[:80]}); "
        "the archive is damaged, rerun the script for a new receipt",
        next=reason(NextReason.RECEIPT_UNPARSABLE),
        runId=run_id,
    )


def no_receipt(directory: str, run_id: str) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"{directory} has no receipt.json; the run never finished archiving",
        next=reason(NextReason.ARCHIVE_MISSING),
        runId=run_id,
    )


# -- install ----------------------------------------------------------------------------


def never_installs(engine: str, descriptor: Descriptor | None) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"compute never installs into {engine}"
        + (
            "; its packages come from the vendor"
            if descriptor
            else "; it is a caller-supplied command"
        ),
        next=guide(descriptor) if descriptor else reason(NextReason.POLICY),
        engine=engine,
    )


def no_system_scope(engine: str, why: str | None) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        f"{engine} has no system-scope install here: {why}; use scope user",
        next=reason(NextReason.SYSTEM_SCOPE_UNSUPPORTED, why=why),
        engine=engine,
    )


def token_mismatch(token: str) -> Refusal:
    return Refusal(
        MathCode.REFUSED,
        "confirm does not match this plan's planToken (the plan or its arguments changed); "
        "run a dry run again and confirm its token",
        next=reason(NextReason.PLAN_TOKEN_MISMATCH),
        planToken=token,
    )


def install_failed(failed: Completed, facts: dict[str, Any]) -> Refusal:
    code = MathCode.TIMEOUT if failed.timed_out else MathCode.NONZERO_EXIT
    return Refusal(
        code,
        f"the install command {' '.join(failed.argv)[:120]} "
        + ("timed out" if failed.timed_out else f"exited with {failed.exit}")
        + f"; its output is in {facts['audit']}",
        next=note("no rollback is attempted; the audit file lists the uninstall commands"),
        timedOut=failed.timed_out,
        **facts,
    )
