"""The install op: a plan shown (dry run), then executed only when handed back its token.

The plan itself is :mod:`reckoner.compute.install`'s (pure); here it is built for the
program a run would start, executed command by command through the process owner, and
audited under ``Computation/installs/`` with the packages found before and after.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from reckoner.host.calls import current_call, heartbeat

from . import discovery, identity, install, refusals, runner
from .context import Context, Response
from .engines import DESCRIPTORS
from .probe import EngineState, require_allowed, require_subprocesses, require_valid_specs
from .vocabulary import NextKind

INSTALL_TIMEOUT_FLOOR_MS = 600_000
"""An install command gets at least this long, whatever the run timeout is."""
_TAIL_CHARS = 2000


@dataclass(frozen=True, slots=True)
class _Plan:
    """A plan the caller confirmed, with what it installs into."""

    engine: str
    state: EngineState
    specs: list[str]
    scope: str
    body: dict[str, Any]
    token: str


def answer(ctx: Context, args: dict[str, Any]) -> Response:
    """install: the plan and its token (dry run), or the plan executed (confirm)."""
    require_subprocesses(ctx)
    engine = args.get("engine")
    if engine is None:
        raise refusals.invalid("install needs engine (python, r, octave or julia)")
    require_allowed(ctx, engine)
    if engine == "cli" or DESCRIPTORS[engine].commercial:
        raise refusals.never_installs(engine, DESCRIPTORS.get(engine))
    specs = list(args.get("packages") or [])
    if not specs:
        raise refusals.invalid('install needs packages: the names to install, such as ["sympy"]')
    require_valid_specs(specs)
    scope = args.get("scope") or ctx.settings.install_scope
    state = ctx.engines.usable(engine)
    assert state.path is not None
    body, why = _plan_body(ctx, engine, state.path, specs, scope)
    if body is None:
        raise refusals.no_system_scope(engine, why)
    token = install.plan_token(body)
    confirm = args.get("confirm")
    if confirm is None or args.get("dryRun") is True:
        return {
            "ok": True,
            "op": "install",
            "dryRun": True,
            "plan": body,
            "planToken": token,
            "next": {"kind": NextKind.AGENT_INSTALL.value, "confirm": token},
            "message": (
                f"plan ready: {body['manager']} in {scope} scope; call again with "
                "confirm set to the planToken to execute it"
            ),
        }
    if confirm != token:
        raise refusals.token_mismatch(token)
    return _execute(ctx, _Plan(engine, state, specs, scope, body, token))


def _plan_body(
    ctx: Context, engine: str, program: str, specs: list[str], scope: str
) -> tuple[dict[str, Any] | None, str | None]:
    """The install plan for the program a run would start (a shim's, not the shim)."""
    interpreter, native_uv = None, None
    search_path = ctx.options.search_path
    if engine == "python":
        interpreter, _ = identity.python_interpreter(program, ctx.engines.probe_dir())
        beside = os.path.dirname(interpreter.executable) if interpreter else ""
        directories = [beside, *discovery.search_directories(search_path)]
        native_uv = discovery.find_native("uv", directories)
    return install.plan(
        engine,
        program,
        specs,
        scope,
        lambda n: runner.which(n, search_path),
        install.PythonTarget(interpreter, native_uv),
    )


def _execute(ctx: Context, plan: _Plan) -> Response:
    """Every command in order until one fails, then the audit; a failure is raised."""
    descriptor, program = plan.state.descriptor, str(plan.state.path)
    before = ctx.engines.packages(descriptor, program, plan.specs)
    done_commands, installed_so_far, failed = _commands(ctx, plan.body["commands"])
    ctx.engines.forget(plan.engine)
    after = ctx.engines.packages(descriptor, program, plan.specs)
    audit = {
        "planToken": plan.token,
        "plan": plan.body,
        "scope": plan.scope,
        "manager": plan.body["manager"],
        "commands": done_commands,
        "before": {"missing": before.missing, "checked": before.known},
        "after": {"missing": after.missing, "checked": after.known},
        "uninstall": plan.body["uninstall"],
        "executedAt": int(time.time() * 1000),
    }
    audit_path = ctx.archive.write_install_audit(plan.token, audit)
    facts = {
        "op": "install",
        "planToken": plan.token,
        "audit": ctx.archive.relative(audit_path),
        "installedSoFar": installed_so_far,
        "commands": done_commands,
        "after": audit["after"],
        "manager": plan.body["manager"],
        "managerAssumed": plan.body["managerAssumed"],
        "managerWhy": plan.body["managerWhy"],
    }
    if failed is not None:
        raise refusals.install_failed(failed, facts)
    return {"ok": True, "dryRun": False, **facts}


def _commands(
    ctx: Context, commands: list[list[str]]
) -> tuple[list[dict[str, Any]], list[list[str]], runner.Completed | None]:
    """(what each command did, the commands that succeeded, the one that failed or None)."""
    done_commands = []
    installed_so_far: list[list[str]] = []
    call = current_call()
    spec = runner.RunSpec(
        cwd=str(ctx.project),
        timeout_ms=max(ctx.settings.timeout_ms, INSTALL_TIMEOUT_FLOOR_MS),
        names=(*runner.INSTALL_ENVIRONMENT, *ctx.settings.pass_environment),
        cancel=call.cancelled,  # a cancelled install's package manager dies too
    )
    for command in commands:
        with heartbeat(f"install ({command[0]})"):
            done = runner.run(command, spec)
        done_commands.append(
            {
                "argv": command,
                "exit": done.exit,
                "timedOut": done.timed_out,
                "durationMs": round(done.duration_ms, 1),
                "stdoutTail": done.stdout.decode("utf-8", "replace")[-_TAIL_CHARS:],
                "stderrTail": done.stderr.decode("utf-8", "replace")[-_TAIL_CHARS:],
            }
        )
        if done.exit != 0:
            return done_commands, installed_so_far, done
        installed_so_far.append(command)
    return done_commands, installed_so_far, None
