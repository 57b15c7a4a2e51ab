"""What this server knows of its engines, and the probe op that reports it.

An engine is located and version-probed (and a commercial one license-checked) once per
server lifetime; ``Engines.usable`` turns what was learned into a program a run can start
or the refusal that says why not. A cli command is located and, when it belongs to a known
family, version-probed on every call, since the caller names it.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import discovery, identity, install, refusals, runner
from .engines import DESCRIPTORS, Descriptor, family_of

if TYPE_CHECKING:
    from pathlib import Path

    from .context import Context, Response


_SHELL_META = re.compile(r"[\s;|&$`<>(){}\[\]*?!~'\"\\#]")


@dataclass(slots=True)
class EngineState:
    """What a probe learned about one engine, kept for the server's lifetime."""

    name: str
    descriptor: Descriptor
    path: str | None = None
    found_via: str | None = None
    version: str | None = None
    probe: dict[str, Any] = field(default_factory=dict)
    licensed: bool | None = None
    license_probe: dict[str, Any] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "engine": self.name,
            "path": self.path,
            "version": self.version,
            "source": "path",
            "foundVia": self.found_via,
            "commercial": self.descriptor.commercial,
        }
        if self.descriptor.verify:
            body["verify"] = self.descriptor.verify
        return body


@dataclass(frozen=True, slots=True)
class Program:
    """The program a run starts and what it is."""

    engine: str  # "python", ..., or "cli"
    path: str
    descriptor: Descriptor | None  # the cli command's family, when recognised
    info: dict[str, Any]


class Engines:
    """The engines of one project's server, probed once each; safe from several threads."""

    def __init__(self, project: Path, search_path: str | None) -> None:
        self.project = project
        self.search_path = search_path
        self.states: dict[str, EngineState] = {}
        self.identities = identity.Identities()
        self._lock = threading.Lock()

    def probe_dir(self) -> str:
        """Probes run where the runs do: a launcher picks its program by the cwd."""
        return discovery.probe_cwd(self.project)

    def state(self, name: str) -> EngineState:
        """Locate and version-probe an engine once per server lifetime."""
        with self._lock:
            state = self.states.get(name)
            if state is not None:
                return state
            descriptor = DESCRIPTORS[name]
            state = EngineState(name, descriptor)
            located = discovery.locate(descriptor, self.search_path)
            if located is not None:
                state.path, state.found_via = located.path, located.found_via
                probed = discovery.probe_version(descriptor, located.path, self.probe_dir())
                state.version, state.probe = probed.version, probed.diagnostics
                if state.version is not None and descriptor.commercial:
                    state.licensed, state.license_probe = discovery.check_license(
                        descriptor, located.path
                    )
            self.states[name] = state
            return state

    def forget(self, name: str) -> None:
        """Drop a cached probe (after an install changed the machine)."""
        with self._lock:
            self.states.pop(name, None)

    def usable(self, name: str) -> EngineState:
        """An engine that was found, answers its version and (if commercial) is licensed."""
        state = self.state(name)
        if state.path is None:
            raise refusals.engine_not_found(name, state.descriptor)
        if state.version is None:
            if state.probe.get("spawned") is False:
                raise refusals.not_startable(state)
            raise refusals.unusable(state)
        if state.descriptor.commercial and not state.licensed:
            raise refusals.unlicensed(state)
        return state

    def native_program(self, engine: str) -> Program:
        state = self.usable(engine)
        assert state.path is not None
        return Program(engine, state.path, state.descriptor, state.info())

    def cli_program(self, cli: Any) -> Program:
        """The caller's cli command as a program: one name or path, found on PATH."""
        if not cli:
            raise refusals.cli_command_missing()
        command = cli["command"]
        if _SHELL_META.search(command):
            raise refusals.cli_command_shell(command)
        path = discovery.locate_command(command, self.search_path)
        if path is None:
            raise refusals.cli_command_not_found(command)
        family = family_of(command)
        version = None
        if family is not None:
            version = discovery.probe_version(family, path, self.probe_dir()).version
        info = {
            "engine": f"cli:{command}",
            "path": path,
            "version": version,
            "source": "cli",
            "foundVia": "cli",
            "family": family.name if family else None,
        }
        return Program("cli", path, family, info)

    def packages(
        self, descriptor: Descriptor, program: str, specs: list[str]
    ) -> discovery.PackageCheck:
        """Which of ``specs`` (by base name) the engine lacks, asked where a run starts."""
        names = [install.base_name(s) for s in specs]
        return discovery.check_packages(descriptor, program, names, self.probe_dir())


# -- the checks every op makes ------------------------------------------------------------


def require_subprocesses(ctx: Context) -> None:
    if not ctx.options.has_subprocess:
        raise refusals.no_subprocesses()


def require_allowed(ctx: Context, engine: str) -> None:
    if engine not in ctx.settings.engines:
        raise refusals.not_allowed(engine, ctx.settings.engines)


def require_valid_specs(specs: list[str]) -> None:
    bad = install.bad_spec(specs)
    if bad is not None:
        raise refusals.unsupported_spec(bad)


# -- the probe op -------------------------------------------------------------------------


def answer(ctx: Context, args: dict[str, Any]) -> Response:
    """probe: one engine (with its packages), or every configured engine."""
    require_subprocesses(ctx)
    engine = args.get("engine")
    if engine is None:
        return _all(ctx)
    require_allowed(ctx, engine)
    configured = list(ctx.settings.engines)
    if engine == "cli":
        program = ctx.engines.cli_program(args.get("cli"))
        return {
            "ok": True,
            "op": "probe",
            "configured": configured,
            "engine": "cli",
            "engineInfo": program.info,
        }
    state = ctx.engines.usable(engine)
    response: Response = {
        "ok": True,
        "op": "probe",
        "configured": configured,
        "engine": engine,
        "engineInfo": state.info(),
    }
    packages = list(args.get("packages") or [])
    if packages:
        require_valid_specs(packages)
        check = ctx.engines.packages(state.descriptor, str(state.path), packages)
        response["packages"] = {"missing": check.missing, "checked": check.known}
    return response


def _all(ctx: Context) -> Response:
    configured = list(ctx.settings.engines)
    found, absent = [], []
    for name in configured:
        if name == "cli":
            absent.append({"engine": "cli", "why": "needs-a-caller-supplied-command"})
            continue
        state = ctx.engines.state(name)
        if state.path is None:
            absent.append({"engine": name, "why": "not-found-on-this-machine"})
            continue
        found.append(_found(state))
    missing = [a["engine"] for a in absent if a["why"] == "not-found-on-this-machine"]
    if not found:
        guides = [refusals.guide(DESCRIPTORS[name]) for name in missing]
        raise refusals.none_found(missing, guides, configured, absent)
    message = f"found {', '.join(e['engine'] for e in found)}"
    if missing:
        message += f"; configured but not found on this machine: {', '.join(missing)}"
    return {
        "ok": True,
        "op": "probe",
        "configured": configured,
        "engines": found,
        "absent": absent,
        "message": message,
        "network": "enforceable" if runner.network_isolation() else "not-enforceable",
    }


def _found(state: EngineState) -> dict[str, Any]:
    """One found engine as the probe of all lists it: usable or not, and why not."""
    info = state.info()
    info["usable"] = state.version is not None and (
        not state.descriptor.commercial or bool(state.licensed)
    )
    if state.version is None:
        info["probe"] = state.probe
    if state.descriptor.commercial:
        info["licensed"] = bool(state.licensed)
    return info
