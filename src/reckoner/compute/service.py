"""The compute tool: probe, run, receipt and install, answered as one JSON object each.

``ComputeService.call(args)`` never raises. A refusal is ``{"ok": false, "code", "error",
"next"}``: ``code`` and ``next.kind`` (with ``next.reason``) are the machine-readable part,
``error`` the one sentence. A failed call leaves the archive as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reckoner.contract.codes import MathCode
from reckoner.contract.compute import COMPUTE_ENGINES, COMPUTE_OPS
from reckoner.contract.presets import COMPUTE_PRESET
from reckoner.host.calls import current_call, heartbeat

from . import archive as arch
from . import discovery, identity, install, provenance, runner
from .archive import Archive, Attempt, OutsideProject
from .arguments import argument_error
from .containment import network_refusal, stop_sentence
from .engines import CLI_EXT, DESCRIPTORS, PROGRAM_SLOTS, Descriptor, expand, family_of
from .render import PARTIAL_CHARS, STREAM_CAP_BYTES, last_lines, receipt_markdown, trimmed
from .settings import ComputeSettings
from .vocabulary import NextKind, NextReason, WarningCode

Response = dict[str, Any]
RowSink = Callable[[bool, dict[str, Any]], None]
"""Appends one compute row to the open record, if any: (ok, content)."""

MD_STDOUT_CHARS = 4000
"""How much of the output's end receipt.md shows."""
ROW_SCRIPT_CHARS = 8000
"""How much of a script a record row carries (the archive holds all of it)."""

_SHELL_META = re.compile(r"[\s;|&$`<>(){}\[\]*?!~'\"\\#]")


class Refused(Exception):
    """A call refused with its code, next and sentence (and any evidence fields)."""

    def __init__(self, code: MathCode, message: str, next_: dict[str, Any], **extra: Any) -> None:
        super().__init__(message)
        self.response: Response = {
            "ok": False,
            "code": code.value,
            "error": message,
            "next": next_,
            **extra,
        }


def _reason(reason: NextReason, **extra: Any) -> dict[str, Any]:
    return {"kind": NextKind.REASON.value, "reason": reason.value, **extra}


def _note(text: str) -> dict[str, Any]:
    return {"kind": NextKind.NOTE.value, "text": text}


def _invalid(message: str) -> Refused:
    return Refused(
        MathCode.INVALID_ARGUMENT,
        message,
        _note("fix the argument as the sentence says and call again"),
    )


def _guide(descriptor: Descriptor) -> dict[str, Any]:
    guide = descriptor.guide
    kind = NextKind.VENDOR if descriptor.commercial else NextKind.USER_INSTALL
    body: dict[str, Any] = {
        "kind": kind.value,
        "engine": descriptor.name,
        "linux": guide.linux,
        "macos": guide.macos,
        "windows": guide.windows,
        "link": guide.link,
    }
    if descriptor.verify:
        body["verify"] = descriptor.verify
    return body


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
class _Program:
    """The program a run starts and what it is."""

    engine: str  # "python", ..., or "cli"
    path: str
    descriptor: Descriptor | None  # the cli command's family, when recognised
    info: dict[str, Any]


class ComputeService:
    """One project's compute tool over its settings; safe to call from several threads."""

    def __init__(
        self,
        project: Path,
        settings: ComputeSettings,
        *,
        preset: str = COMPUTE_PRESET,
        row_sink: RowSink | None = None,
        search_path: str | None = None,
        has_subprocess: bool = True,
        isolate_network: bool = False,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.project = project.resolve()
        self.settings = settings
        self.preset = preset
        self.archive = Archive(self.project)
        self._row_sink = row_sink
        self._search_path = search_path
        self._has_subprocess = has_subprocess
        self._isolate = isolate_network
        self._log = log or (lambda message: None)
        self._states: dict[str, EngineState] = {}
        self._identities = identity.Identities()
        self._probe_lock = threading.Lock()
        for note in settings.notes:
            self._log(note)

    def close(self) -> None:
        """Kill every run still under way (the server is stopping); their receipts say so."""
        killed = runner.kill_running()
        if killed:
            self._log(f"compute: {killed} run(s) killed as the server stopped")

    # -- the entry point ----------------------------------------------------------------

    def call(self, args: Any) -> Response:
        """One compute call in, one JSON-serialisable response out; never raises."""
        op = args.get("op") if isinstance(args, dict) else None
        if op not in COMPUTE_OPS:
            op = None  # echoed back only when it is an op: inf or an object is not JSON
        try:
            error = argument_error(args)
            if error:
                raise _invalid(error)
            if self.settings.mode == "off":
                raise Refused(
                    MathCode.NOT_AVAILABLE,
                    "compute is off on this server; nothing was probed or run",
                    {
                        "kind": NextKind.ENABLE.value,
                        "setting": "compute.mode",
                        "values": ["auto", "on"],
                    },
                )
            handler = {
                "probe": self._probe,
                "run": self._run,
                "receipt": self._receipt,
                "install": self._install,
            }[args["op"]]
            return handler(args)
        except Refused as refused:
            self._discard_attempt()
            response = {"op": op, **refused.response} if op else refused.response
            if op == "run" and self.settings.mode != "off":  # off writes nothing anywhere
                self._row(False, response)
            return response
        except OSError as error:
            # The project's Computation folder cannot be written (a file or a link in its
            # place, a read-only or full disk): the attempt this call claimed goes again, so
            # the sentence is true, and the run is on record as refused.
            self._discard_attempt()
            response = {
                "ok": False,
                "op": op,
                "code": MathCode.REFUSED.value,
                "error": f"the archive under {self.archive.root} cannot be written "
                f"({error.strerror or error}); make it a writable folder and run again",
                "next": _note("the run did not happen or was not archived; nothing was changed"),
            }
            if op == "run":
                self._row(False, response)
            return response
        except Exception as error:  # the response is the only channel
            self._log(f"compute internal error: {type(error).__name__}: {error}")
            self._discard_attempt()
            return {
                "ok": False,
                "op": op,
                "code": MathCode.REFUSED.value,
                "error": (
                    f"compute failed internally ({type(error).__name__}: {error}); nothing "
                    "was archived"
                ),
                "next": _reason(NextReason.POLICY),
            }

    # -- discovery ----------------------------------------------------------------------

    def _no_subprocess_host(self) -> None:
        if not self._has_subprocess:
            raise Refused(
                MathCode.NO_SUBPROCESS,
                "this host runs no subprocesses, so no engine can be probed or run here; "
                "this is not a missing engine",
                _note("run compute on a host that allows subprocesses"),
            )

    def _state(self, name: str) -> EngineState:
        """Locate and version-probe an engine once per server lifetime."""
        with self._probe_lock:
            state = self._states.get(name)
            if state is not None:
                return state
            descriptor = DESCRIPTORS[name]
            state = EngineState(name, descriptor)
            located = discovery.locate(descriptor, self._search_path)
            if located is not None:
                state.path, state.found_via = located.path, located.found_via
                probed = discovery.probe_version(descriptor, located.path, self._probe_dir())
                state.version, state.probe = probed.version, probed.diagnostics
                if state.version is not None and descriptor.commercial:
                    state.licensed, state.license_probe = discovery.check_license(
                        descriptor, located.path
                    )
            self._states[name] = state
            return state

    def _probe_dir(self) -> str:
        """Probes run where the runs do: a launcher picks its program by the cwd."""
        return discovery.probe_cwd(self.project)

    def forget(self, name: str) -> None:
        """Drop a cached probe (after an install changed the machine)."""
        with self._probe_lock:
            self._states.pop(name, None)

    def _usable(self, name: str) -> EngineState:
        """An engine that was found, answers its version and (if commercial) is licensed."""
        state = self._state(name)
        descriptor = state.descriptor
        if state.path is None:
            raise Refused(
                MathCode.ENGINE_NOT_FOUND,
                f"{name} was not found on PATH or in its known install locations; install it "
                f"({descriptor.guide.linux}) or put it on PATH",
                _guide(descriptor),
                engine=name,
            )
        if state.version is None:
            if state.probe.get("spawned") is False:
                raise Refused(
                    MathCode.NO_SUBPROCESS,
                    f"{name} was found at {state.path} but could not be started "
                    f"({state.probe.get('spawnError')}); the engine is there, starting it failed",
                    _reason(NextReason.NO_SUBPROCESS),
                    engine=name,
                    probe=state.probe,
                )
            raise Refused(
                MathCode.ENGINE_UNUSABLE,
                f"{name} was found at {state.path} but its version probe "
                f"({' '.join(state.probe.get('argv', []))}) failed with exit "
                f"{state.probe.get('exit')}; check that it runs from a terminal",
                _note("the engine is installed; repair it rather than installing another"),
                engine=name,
                engineInfo=state.info(),
                probe=state.probe,
            )
        if descriptor.commercial and not state.licensed:
            raise Refused(
                MathCode.ENGINE_LICENSE_REQUIRED,
                f"{name} {state.version} at {state.path} has no usable license; activate one "
                f"with the vendor's tools",
                _guide(descriptor),
                engine=name,
                engineInfo=state.info(),
                licenseProbe=state.license_probe,
            )
        return state

    def _allowed(self, engine: str) -> None:
        if engine not in self.settings.engines:
            raise Refused(
                MathCode.REFUSED,
                f"the engine {engine} is not allowed on this server; the allowed engines are "
                f"{', '.join(self.settings.engines)}",
                _reason(NextReason.ENGINE_NOT_ALLOWED),
                engine=engine,
            )

    def _network_allows_a_run(self) -> None:
        network = self.settings.network
        refusal = network_refusal(network, network != "off" or bool(runner.network_isolation()))
        if refusal is not None:
            raise Refused(MathCode.REFUSED, refusal, _reason(NextReason.POLICY))

    # -- probe --------------------------------------------------------------------------

    def _probe(self, args: dict[str, Any]) -> Response:
        self._no_subprocess_host()
        engine = args.get("engine")
        configured = list(self.settings.engines)
        if engine is not None:
            self._allowed(engine)
            if engine == "cli":
                program = self._cli_program(args)
                return {
                    "ok": True,
                    "op": "probe",
                    "configured": configured,
                    "engine": "cli",
                    "engineInfo": program.info,
                }
            state = self._usable(engine)
            response: Response = {
                "ok": True,
                "op": "probe",
                "configured": configured,
                "engine": engine,
                "engineInfo": state.info(),
            }
            packages = list(args.get("packages") or [])
            if packages:
                self._valid_specs(packages)
                check = discovery.check_packages(
                    state.descriptor,
                    str(state.path),
                    [install.base_name(p) for p in packages],
                    self._probe_dir(),
                )
                response["packages"] = {"missing": check.missing, "checked": check.known}
            return response
        found, absent = [], []
        for name in configured:
            if name == "cli":
                absent.append({"engine": "cli", "why": "needs-a-caller-supplied-command"})
                continue
            state = self._state(name)
            if state.path is None:
                absent.append({"engine": name, "why": "not-found-on-this-machine"})
                continue
            info = state.info()
            info["usable"] = state.version is not None and (
                not state.descriptor.commercial or bool(state.licensed)
            )
            if state.version is None:
                info["probe"] = state.probe
            if state.descriptor.commercial:
                info["licensed"] = bool(state.licensed)
            found.append(info)
        missing = [a["engine"] for a in absent if a["why"] == "not-found-on-this-machine"]
        if not found:
            raise Refused(
                MathCode.ENGINE_NOT_FOUND,
                "no configured engine was found on this machine "
                f"({', '.join(missing) or 'none configured'}); "
                "install one, or run a command with engine cli",
                {
                    "kind": NextKind.USER_INSTALL.value,
                    "engines": [_guide(DESCRIPTORS[name]) for name in missing],
                },
                configured=configured,
                absent=absent,
            )
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

    # -- run ----------------------------------------------------------------------------

    def _cli_program(self, args: dict[str, Any]) -> _Program:
        cli = args.get("cli")
        if not cli:
            raise Refused(
                MathCode.REFUSED,
                'engine cli needs cli.command, the program to run (e.g. {"command": "python3"})',
                _reason(NextReason.MISSING_CLI_COMMAND),
                engine="cli",
            )
        command = cli["command"]
        if _SHELL_META.search(command):
            raise Refused(
                MathCode.REFUSED,
                f"cli.command {command[:60]!r} holds a shell metacharacter or a space; give one "
                "program name or path and put its arguments in cli.argv (nothing runs a shell)",
                _reason(NextReason.POLICY),
                engine="cli",
            )
        path = discovery.locate_command(command, self._search_path)
        if path is None:
            raise Refused(
                MathCode.ENGINE_NOT_FOUND,
                f"the cli command {command!r} was not found on PATH; install it or give "
                "its full path",
                {"kind": NextKind.USER_INSTALL.value, "engine": "cli", "command": command},
                engine="cli",
            )
        family = family_of(command)
        version = None
        if family is not None:
            version = discovery.probe_version(family, path, self._probe_dir()).version
        info = {
            "engine": f"cli:{command}",
            "path": path,
            "version": version,
            "source": "cli",
            "foundVia": "cli",
            "family": family.name if family else None,
        }
        return _Program("cli", path, family, info)

    def _native_program(self, engine: str) -> _Program:
        state = self._usable(engine)
        assert state.path is not None
        return _Program(engine, state.path, state.descriptor, state.info())

    def _valid_specs(self, specs: list[str]) -> None:
        bad = install.bad_spec(specs)
        if bad is not None:
            raise Refused(
                MathCode.INVALID_ARGUMENT,
                f"the package spec {bad[:60]!r} is not supported; write name, name[extras] or "
                "name<op>version with op one of == >= <= ~= != > < = (no spaces, shell "
                "characters or URLs)",
                _reason(NextReason.UNSUPPORTED_VERSION_SYNTAX),
            )

    def _run(self, args: dict[str, Any]) -> Response:
        self._no_subprocess_host()
        engine = args.get("engine")
        if engine is None:
            raise _invalid(f"run needs engine, one of {', '.join(COMPUTE_ENGINES)}")
        self._allowed(engine)
        self._network_allows_a_run()
        given = [key for key in ("code", "file", "expr") if args.get(key) is not None]
        mode = args.get("mode") or (given[0] if len(given) == 1 else "code")
        source_key = {"code": "code", "file": "file", "expr": "expr"}[mode]
        for key in ("code", "file", "expr"):
            if key != source_key and args.get(key) is not None:
                raise _invalid(
                    f"mode {mode} takes {source_key}, not {key}; drop {key} or set mode {key}"
                )
        text = args.get(source_key)
        if text is None:
            raise _invalid(f"mode {mode} needs {source_key}")
        if engine == "cli" and mode == "expr":
            raise Refused(
                MathCode.REFUSED,
                "engine cli has no expression form; use mode code or file",
                _reason(NextReason.EXPR_NOT_SUPPORTED),
                engine="cli",
            )
        if engine != "cli" and args.get("cli") is not None:
            raise _invalid("cli is only for engine cli")
        packages = list(dict.fromkeys([*self.settings.packages, *(args.get("packages") or [])]))
        self._valid_specs(packages)
        captures = [self._inside(p, "captureFiles") for p in args.get("captureFiles") or []]
        source: Path | None = None
        if mode == "file":
            source = self._inside(text, "file")
            if not source.is_file():
                raise Refused(
                    MathCode.REFUSED,
                    f"the file {text!r} does not exist in the project ({self.project})",
                    _reason(NextReason.FILE_NOT_FOUND),
                )
        program = self._cli_program(args) if engine == "cli" else self._native_program(engine)
        descriptor = program.descriptor
        template = None
        if engine != "cli":
            assert descriptor is not None
            template = descriptor.eval_argv if mode == "expr" else descriptor.run_argv
            if template is None:
                raise Refused(
                    MathCode.REFUSED,
                    f"{engine} has no {'expression' if mode == 'expr' else 'script'} form here; "
                    f"use mode {'code' if mode == 'expr' else 'expr'}",
                    _reason(NextReason.MODE_NOT_SUPPORTED),
                    engine=engine,
                )
        warnings: list[dict[str, str]] = []
        names = [install.base_name(p) for p in packages]
        if names:
            if descriptor is None or descriptor.package_probe is None:
                warnings.append(
                    _warning(
                        WarningCode.PACKAGE_PRECHECK_SKIPPED,
                        "the packages were not checked: this engine has no package probe",
                    )
                )
            else:
                check = discovery.check_packages(descriptor, program.path, names, self._probe_dir())
                if not check.known:
                    warnings.append(
                        _warning(
                            WarningCode.PACKAGE_PRECHECK_UNKNOWN,
                            "the package probe gave no answer; the packages were not checked",
                        )
                    )
                elif check.missing:
                    raise Refused(
                        MathCode.MISSING_PACKAGES,
                        f"{engine} lacks the package(s) {', '.join(check.missing)}; install them "
                        "(compute op install with dryRun shows the plan) and run again",
                        {
                            "kind": NextKind.AGENT_INSTALL.value,
                            "engine": engine,
                            "packages": check.missing,
                        },
                        engine=engine,
                        missing=check.missing,
                        versionPolicy=install.VERSION_POLICY,
                        constraintsNotEnforced=install.constraints(packages),
                    )
        return self._execute(
            args, program, mode, text, source, template, packages, captures, warnings
        )

    def _discard_attempt(self) -> None:
        try:
            self.archive.discard_unsealed()
        except OSError as error:
            self._log(f"compute: a refused attempt could not be removed: {error}")

    def _inside(self, relative: str, what: str) -> Path:
        try:
            return arch.inside(self.project, relative)
        except OutsideProject as error:
            raise Refused(
                MathCode.REFUSED,
                f"{what} {relative[:80]!r} is refused: {error}; give a path relative to the "
                f"project root {self.project} that stays inside it",
                _reason(NextReason.PATH_OUTSIDE_PROJECT),
            ) from None

    def run_id(
        self, engine_key: str, mode: str, key: str, packages: list[str], cli_key: str = ""
    ) -> str:
        """``<preset>-<projectSlug>-<first 12 hex of sha256(engine|mode|key|packages)>``.

        A cli run appends ``|`` and its argv and stdin (``provenance.cli_key``): the same
        script under another argv or stdin is another run.
        """
        parts = [engine_key, mode, key, ",".join(sorted(packages))]
        material = "|".join([*parts, cli_key] if cli_key else parts)
        digest = hashlib.sha256(material.encode("utf-8")).hexdigest()[:12]
        return f"{self.preset}-{arch.project_slug(self.project)}-{digest}"

    def _execute(
        self,
        args: dict[str, Any],
        program: _Program,
        mode: str,
        text: str,
        source: Path | None,
        template: tuple[str, ...] | None,
        packages: list[str],
        captures: list[Path],
        warnings: list[dict[str, str]],
    ) -> Response:
        engine = program.engine
        engine_key = program.info["engine"]
        if source is not None:
            relative_source = self.archive.relative(source)
            key = f"file:{relative_source}"
            script_bytes = source.read_bytes()
        else:
            relative_source = None
            script_bytes = text.encode("utf-8")
            key = text.replace("\r\n", "\n").rstrip()
        cli = args.get("cli") or {}
        cli_key = provenance.cli_key(cli) if engine == "cli" else ""
        run_id = self.run_id(engine_key, mode, key, packages, cli_key)
        ext = (
            CLI_EXT
            if engine == "cli"
            else (program.descriptor.ext if program.descriptor else CLI_EXT)
        )
        attempt = self.archive.claim(run_id)
        previous = self._previous(run_id, attempt.number)
        script_path = attempt.directory / f"script.{ext}"
        self.archive.create(script_path, script_bytes)
        script_hash = arch.sha256_bytes(script_bytes)
        cli_pins = provenance.archive_cli_inputs(self.archive, attempt, cli) if cli_key else {}
        # Asked where and as the run itself starts it: a shim's choice is the one recorded.
        timeout_ms = args.get("timeoutMs") or self.settings.timeout_ms
        engine_info = self._identities.of(
            program.path, program.descriptor, str(self.project), timeout_ms
        ).engine_info(program.info)
        file_is_archived = relative_source is not None and relative_source.startswith(
            f"{arch.ROOT_NAME}/"
        )
        if file_is_archived:
            warnings.append(
                _warning(
                    WarningCode.ARCHIVED_SCRIPT_RERUN,
                    "the file is an archived script: this is a new archive id, not a new "
                    "attempt of the old one",
                )
            )
        script_changed = previous is not None and previous.get("scriptHash") != script_hash
        if script_changed:
            warnings.append(
                _warning(
                    WarningCode.SCRIPT_CHANGED_SINCE_LAST_RECEIPT,
                    "the script differs from the one the previous receipt of this id ran; "
                    "that receipt no longer stands for it",
                )
            )

        argv, cli_facts = _command_line(program, template, cli, script_path, text)

        stdout_path = attempt.directory / "stdout.txt"
        stderr_path = attempt.directory / "stderr.txt"
        # The engine writes straight into the archive: no output is held in memory, and a
        # crash of this server leaves whatever the run had written.
        # The call's control (host.calls): its cancellation kills the run's whole tree, and
        # the client hears of the run's start, its progress and its end.
        call = current_call()
        call.report(f"{engine_key} run {run_id} (attempt {attempt.number}) started")
        with (
            self.archive.open_new(stdout_path) as out,
            self.archive.open_new(stderr_path) as err,
            heartbeat(f"{engine_key} run {run_id}"),
        ):
            done = runner.run(
                argv,
                runner.RunSpec(
                    cwd=str(self.project),
                    timeout_ms=timeout_ms,
                    stdin=cli.get("stdin"),
                    isolate_network=self._isolate or self.settings.network != "on",
                    names=self.settings.pass_environment,
                    stdout=out,
                    stderr=err,
                    max_stream_bytes=self.settings.max_output_bytes,
                    cancel=call.cancelled,
                ),
            )
        call.report(f"{engine_key} run {run_id} {_how_it_ended(done)}")
        stopped = stop_sentence(done, self.settings.max_output_bytes, call.why)
        out_ends = arch.read_output(stdout_path, STREAM_CAP_BYTES)
        err_ends = arch.read_output(stderr_path, STREAM_CAP_BYTES)
        # Hashed again after the run: the source file (mode file) or the archived script.
        hash_after = arch.sha256_file(source if source is not None else script_path)
        changed_during = hash_after != script_hash
        if changed_during:
            warnings.append(
                _warning(
                    WarningCode.SCRIPT_CHANGED_DURING_RUN,
                    "the script changed (or vanished) while it ran; this receipt does not "
                    "stand for any one version",
                )
            )

        captured = [self._capture(attempt, path) for path in captures]
        if attempt.number > arch.MAX_ATTEMPTS_PER_RUN:
            warnings.append(
                _warning(
                    WarningCode.ARCHIVE_RETENTION_EXCEEDED,
                    f"this id has {attempt.number} attempts, above "
                    f"{arch.MAX_ATTEMPTS_PER_RUN}; nothing is deleted, prune by hand",
                )
            )
        elif attempt.number == 1 and self.archive.run_count() > arch.MAX_RUNS:
            warnings.append(
                _warning(
                    WarningCode.ARCHIVE_RETENTION_EXCEEDED,
                    f"the project holds more than {arch.MAX_RUNS} runs; nothing is deleted, "
                    "prune by hand",
                )
            )

        stdout, stdout_cut = trimmed(out_ends.size, out_ends.head, out_ends.tail)
        stderr, stderr_cut = trimmed(err_ends.size, err_ends.head, err_ends.tail)
        if stdout_cut or stderr_cut:
            warnings.append(
                _warning(
                    WarningCode.OUTPUT_TRUNCATED,
                    "the response carries part of the output; the archive holds all of it",
                )
            )
        network = "enforced" if done.network_enforced else "not-enforced"
        receipt_rel = self.archive.relative(attempt.directory / arch.RECEIPT_JSON)
        receipt: dict[str, Any] = {
            "runId": run_id,
            "attempt": attempt.number,
            "attemptDir": self.archive.relative(attempt.directory),
            "preset": self.preset,
            "engine": engine_key,
            "engineInfo": engine_info,
            "mode": mode,
            "scriptPath": self.archive.relative(script_path),
            "scriptAbs": str(script_path),
            "scriptHash": script_hash,
            "sourceFile": relative_source,
            "sourceHashBefore": script_hash if source is not None else None,
            "sourceHashAfter": hash_after if source is not None else None,
            "argv": done.argv,
            "cwd": done.cwd,
            "exit": done.exit,
            "timedOut": done.timed_out,
            "durationMs": round(done.duration_ms, 1),
            "stdoutBytes": out_ends.size,
            "stderrBytes": err_ends.size,
            **provenance.output_hashes(attempt),
            "stdoutTruncated": stdout_cut,
            "stderrTruncated": stderr_cut,
            "packages": packages,
            "captured": captured,
            "network": network,
            "scriptChanged": script_changed,
            "scriptChangedDuringRun": changed_during,
            "previousReceipt": _previous_summary(previous),
            "warnings": warnings,
            "createdAt": int(time.time() * 1000),
        }
        if cli_facts is not None:
            receipt["cli"] = {**cli_facts, **cli_pins}
        if done.timed_out:
            receipt["partialStdout"] = out_ends.last_text(PARTIAL_CHARS)
            receipt["partialStderr"] = err_ends.last_text(PARTIAL_CHARS)
        if not done.spawned:
            receipt["spawnError"] = done.spawn_error
        if stopped is not None:
            receipt["stopped"] = stopped
        if done.cancelled:
            receipt["cancelled"] = True
        self.archive.seal(
            attempt,
            receipt,
            receipt_markdown(receipt, _text(script_bytes), out_ends.last_text(MD_STDOUT_CHARS)),
        )

        evidence: Response = {
            "op": "run",
            "runId": run_id,
            "attempt": attempt.number,
            "engine": engine_key,
            "engineInfo": engine_info,
            "exit": done.exit,
            "timedOut": done.timed_out,
            "durationMs": receipt["durationMs"],
            "stdout": stdout,
            "stderr": stderr,
            "stdoutTruncated": stdout_cut,
            "stderrTruncated": stderr_cut,
            "stdoutHash": receipt["stdoutHash"],
            "stderrHash": receipt["stderrHash"],
            "argv": done.argv,
            "cwd": done.cwd,
            "receipt": receipt_rel,
            "scriptPath": receipt["scriptPath"],
            "scriptHash": script_hash,
            "scriptChanged": script_changed,
            "scriptChangedDuringRun": changed_during,
            "fileIsArchivedScript": file_is_archived,
            "previousReceipt": receipt["previousReceipt"],
            "captured": captured,
            "network": network,
            "warnings": warnings,
            "versionPolicy": install.VERSION_POLICY,
            "constraintsNotEnforced": install.constraints(packages),
        }
        row = {
            "engine": engine_key,
            "version": engine_info.get("version"),
            "runId": run_id,
            "attempt": attempt.number,
            "scriptHash": script_hash,
            "scriptPath": receipt["scriptPath"],
            "exit": done.exit,
            "durationMs": receipt["durationMs"],
            "timedOut": done.timed_out,
            "receipt": receipt_rel,
            "receiptAbs": str(attempt.directory / arch.RECEIPT_JSON),
            "language": ext,
            "stdoutTail": last_lines(out_ends.last_text(4000)),
        }
        if stopped is not None:
            row["stopped"] = stopped
        if done.cancelled:
            row["cancelled"] = True  # never ok: a cancelled run has no result to stand on
        # The record shows what ran without the project at hand; a long script is cut.
        script_text = _text(script_bytes)
        row["script"] = script_text[:ROW_SCRIPT_CHARS]
        if len(script_text) > ROW_SCRIPT_CHARS:
            row["scriptTruncated"] = True
        response = _verdict(done, program, evidence, out_ends, err_ends, timeout_ms, stopped)
        self._row(
            response["ok"] is True,
            {
                **row,
                **(
                    {} if response["ok"] else {"code": response["code"], "error": response["error"]}
                ),
            },
        )
        return response

    def _capture(self, attempt: Attempt, path: Path) -> dict[str, Any]:
        """Copy one file the run wrote into captured/, with its hash; missing is said, and a
        path the run turned into a link is refused in the receipt (the run is kept)."""
        return self.archive.capture(attempt, path)

    def _previous(self, run_id: str, number: int) -> dict[str, Any] | None:
        """The receipt of the attempt before ``number``, if it is readable."""
        if number == 1:
            return None
        earlier = [a for a in self.archive.attempts_of(run_id) if a.number < number]
        for attempt in reversed(earlier):
            try:
                found = self.archive.read_receipt(attempt)
            except ValueError:
                found = None
            if found is not None:
                return found
        return None

    def _row(self, ok: bool, content: dict[str, Any]) -> None:
        if self._row_sink is None:
            return
        if not ok and "runId" not in content:
            content = {
                "code": content.get("code"),
                "error": content.get("error"),
                "engine": content.get("engine"),
            }
        try:
            self._row_sink(ok, content)
        except Exception as error:  # the record is best effort; the receipt already stands
            self._log(f"compute row not appended: {error}")

    # -- receipt ------------------------------------------------------------------------

    def _find_attempt(self, reference: str) -> Attempt:
        match = re.fullmatch(
            r"(?:Computation/)?([^/]+)(?:/attempts/(\d+))?/?(?:receipt\.json)?", reference
        )
        run_id = match.group(1) if match else ""
        if not arch.RUN_ID_PATTERN.fullmatch(run_id):
            raise _invalid(
                f"{reference[:80]!r} is not a run id; pass the runId a run returned (or "
                "Computation/<runId>)"
            )
        attempts = self.archive.attempts_of(run_id)
        wanted = int(match.group(2)) if match and match.group(2) else None
        chosen = [a for a in attempts if wanted is None or a.number == wanted]
        if not chosen:
            raise Refused(
                MathCode.REFUSED,
                f"no archive {arch.ROOT_NAME}/{run_id}"
                f"{'' if wanted is None else f'/attempts/{wanted}'} "
                f"exists in {self.project}; check the runId",
                _reason(NextReason.ARCHIVE_MISSING),
                runId=run_id,
            )
        return chosen[-1]

    def _receipt(self, args: dict[str, Any]) -> Response:
        reference = args.get("file")
        if reference is None:
            raise _invalid("receipt needs file: the runId of the run (or Computation/<runId>)")
        attempt = self._find_attempt(reference)
        try:
            receipt = self.archive.read_receipt(attempt)
        except ValueError as error:
            raise Refused(
                MathCode.INVALID_ARGUMENT,
                f"{self.archive.relative(attempt.directory)}/receipt.json cannot be "
                f"parsed ({str(error)[:80]}); "
                "the archive is damaged, rerun the script for a new receipt",
                _reason(NextReason.RECEIPT_UNPARSABLE),
                runId=attempt.run_id,
            ) from None
        if receipt is None:
            raise Refused(
                MathCode.REFUSED,
                f"{self.archive.relative(attempt.directory)} has no receipt.json; the "
                "run never finished archiving",
                _reason(NextReason.ARCHIVE_MISSING),
                runId=attempt.run_id,
            )
        script_rel = receipt.get("scriptPath")
        current = None
        if isinstance(script_rel, str):
            try:
                current = arch.sha256_file(arch.inside(self.project, script_rel))
            except OutsideProject:
                current = None
        pinned = provenance.recheck(self.project, attempt, receipt)
        changed = (
            current is None
            or current != receipt.get("scriptHash")
            or provenance.inputs_changed(pinned)
        )
        script_text = None
        if isinstance(script_rel, str) and current is not None:
            script_text = _text((self.project / script_rel).read_bytes())
        stdout_path = attempt.directory / "stdout.txt"
        stdout_text = (
            arch.read_output(stdout_path, STREAM_CAP_BYTES).last_text(MD_STDOUT_CHARS)
            if stdout_path.is_file()
            else None
        )
        rewrote = self.archive.ensure_receipt_md(
            attempt, receipt_markdown(receipt, script_text, stdout_text)
        )
        latest = self.archive.attempts_of(attempt.run_id)[-1].number
        return {
            "ok": True,
            "op": "receipt",
            "runId": attempt.run_id,
            "attempt": attempt.number,
            "latestAttempt": latest,
            "receipt": self.archive.relative(attempt.directory / arch.RECEIPT_JSON),
            "receiptMdWritten": rewrote,
            "scriptPath": script_rel,
            "scriptHash": receipt.get("scriptHash"),
            "currentScriptHash": current,
            "scriptChanged": changed,
            "scriptChangedDuringRun": receipt.get("scriptChangedDuringRun"),
            **pinned,
            "engine": receipt.get("engine"),
            "engineInfo": receipt.get("engineInfo"),
            "argv": receipt.get("argv"),
            "cwd": receipt.get("cwd"),
            "exit": receipt.get("exit"),
            "timedOut": receipt.get("timedOut"),
            "durationMs": receipt.get("durationMs"),
            "network": receipt.get("network"),
            "warnings": receipt.get("warnings"),
        }

    # -- install ------------------------------------------------------------------------

    def _plan(
        self, engine: str, program: str, specs: list[str], scope: str
    ) -> tuple[dict[str, Any] | None, str | None]:
        """The install plan for the program a run would start (a shim's, not the shim)."""
        interpreter, native_uv = None, None
        if engine == "python":
            interpreter, _ = identity.python_interpreter(program, self._probe_dir())
            beside = os.path.dirname(interpreter.executable) if interpreter else ""
            directories = [beside, *discovery.search_directories(self._search_path)]
            native_uv = discovery.find_native("uv", directories)
        return install.plan(
            engine,
            program,
            specs,
            scope,
            lambda n: runner.which(n, self._search_path),
            install.PythonTarget(interpreter, native_uv),
        )

    def _install(self, args: dict[str, Any]) -> Response:
        self._no_subprocess_host()
        engine = args.get("engine")
        if engine is None:
            raise _invalid("install needs engine (python, r, octave or julia)")
        self._allowed(engine)
        if engine == "cli" or DESCRIPTORS[engine].commercial:
            descriptor = DESCRIPTORS.get(engine)
            raise Refused(
                MathCode.REFUSED,
                f"compute never installs into {engine}"
                + (
                    "; its packages come from the vendor"
                    if descriptor
                    else "; it is a caller-supplied command"
                ),
                _guide(descriptor) if descriptor else _reason(NextReason.POLICY),
                engine=engine,
            )
        specs = list(args.get("packages") or [])
        if not specs:
            raise _invalid('install needs packages: the names to install, such as ["sympy"]')
        self._valid_specs(specs)
        scope = args.get("scope") or self.settings.install_scope
        state = self._usable(engine)
        assert state.path is not None
        body, refusal = self._plan(engine, state.path, specs, scope)
        if body is None:
            raise Refused(
                MathCode.REFUSED,
                f"{engine} has no system-scope install here: {refusal}; use scope user",
                _reason(NextReason.SYSTEM_SCOPE_UNSUPPORTED, why=refusal),
                engine=engine,
            )
        token = install.plan_token(body)
        confirm = args.get("confirm")
        dry_run = args.get("dryRun")
        if confirm is None or dry_run is True:
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
            raise Refused(
                MathCode.REFUSED,
                "confirm does not match this plan's planToken (the plan or its arguments changed); "
                "run a dry run again and confirm its token",
                _reason(NextReason.PLAN_TOKEN_MISMATCH),
                planToken=token,
            )
        names = [install.base_name(s) for s in specs]
        before = discovery.check_packages(state.descriptor, state.path, names, self._probe_dir())
        done_commands = []
        installed_so_far: list[list[str]] = []
        failed: runner.Completed | None = None
        call = current_call()
        for command in body["commands"]:
            with heartbeat(f"install ({command[0]})"):
                done = runner.run(
                    command,
                    runner.RunSpec(
                        cwd=str(self.project),
                        timeout_ms=max(self.settings.timeout_ms, 600_000),
                        names=(*runner.INSTALL_ENVIRONMENT, *self.settings.pass_environment),
                        cancel=call.cancelled,  # a cancelled install's package manager dies too
                    ),
                )
            done_commands.append(
                {
                    "argv": command,
                    "exit": done.exit,
                    "timedOut": done.timed_out,
                    "durationMs": round(done.duration_ms, 1),
                    "stdoutTail": done.stdout.decode("utf-8", "replace")[-2000:],
                    "stderrTail": done.stderr.decode("utf-8", "replace")[-2000:],
                }
            )
            if done.exit != 0:
                failed = done
                break
            installed_so_far.append(command)
        self.forget(engine)
        after = discovery.check_packages(state.descriptor, state.path, names, self._probe_dir())
        audit = {
            "planToken": token,
            "plan": body,
            "scope": scope,
            "manager": body["manager"],
            "commands": done_commands,
            "before": {"missing": before.missing, "checked": before.known},
            "after": {"missing": after.missing, "checked": after.known},
            "uninstall": body["uninstall"],
            "executedAt": int(time.time() * 1000),
        }
        audit_path = self.archive.write_install_audit(token, audit)
        facts = {
            "op": "install",
            "planToken": token,
            "audit": self.archive.relative(audit_path),
            "installedSoFar": installed_so_far,
            "commands": done_commands,
            "after": audit["after"],
            "manager": body["manager"],
            "managerAssumed": body["managerAssumed"],
            "managerWhy": body["managerWhy"],
        }
        if failed is not None:
            code = MathCode.TIMEOUT if failed.timed_out else MathCode.NONZERO_EXIT
            raise Refused(
                code,
                f"the install command {' '.join(failed.argv)[:120]} "
                + ("timed out" if failed.timed_out else f"exited with {failed.exit}")
                + f"; its output is in {facts['audit']}",
                _note("no rollback is attempted; the audit file lists the uninstall commands"),
                timedOut=failed.timed_out,
                **facts,
            )
        return {"ok": True, "dryRun": False, **facts}


def _verdict(
    done: runner.Completed,
    program: _Program,
    evidence: Response,
    out_ends: arch.Output,
    err_ends: arch.Output,
    timeout_ms: int,
    stopped: str | None = None,
) -> Response:
    """The run's answer from how it ended: started or not, timed out, its exit code."""
    engine, engine_key, receipt_rel = program.engine, program.info["engine"], evidence["receipt"]
    if not done.spawned:
        return Refused(
            MathCode.NO_SUBPROCESS,
            f"{program.path} could not be started ({done.spawn_error}); the run is "
            "archived with no output",
            _reason(NextReason.NO_SUBPROCESS),
            **evidence,
        ).response
    if stopped is not None:
        if done.cancelled and done.overflowed is None:
            # Not a policy refusal: the caller stopped it, and may simply ask again.
            again = _note("the run was cancelled before its end; call again to run it anew")
            return Refused(MathCode.REFUSED, stopped, again, **evidence).response
        return Refused(MathCode.REFUSED, stopped, _reason(NextReason.POLICY), **evidence).response
    if done.timed_out:
        return Refused(
            MathCode.TIMEOUT,
            f"the run passed its time limit of {timeout_ms} ms and its whole process tree "
            "was killed; the output so far is in the response and the receipt (raise timeoutMs "
            "or shorten the computation)",
            _note("partial output is kept in receipt.json as partialStdout and partialStderr"),
            **evidence,
        ).response
    if done.exit != 0:
        signs = program.descriptor.bad_argv_signs if program.descriptor else ()
        low = (err_ends.head + err_ends.tail).decode("utf-8", "replace").lower()
        if not out_ends.head.strip() and any(s.lower() in low for s in signs):
            return Refused(
                MathCode.ENGINE_BAD_ARGV,
                f"{engine_key} rejected its command line ({' '.join(done.argv[1:])[:120]}); "
                "this version spells its options differently",
                {"kind": NextKind.ENGINE_OVERRIDE.value, "engine": engine, "argv": done.argv},
                **evidence,
            ).response
        return Refused(
            MathCode.NONZERO_EXIT,
            f"{engine_key} exited with {done.exit}; its stderr and the receipt "
            f"{receipt_rel} say why",
            _note("fix the script and run again; the receipt of this run stays archived"),
            **evidence,
        ).response
    return {"ok": True, **evidence}


def _how_it_ended(done: runner.Completed) -> str:
    """The end of a run, as its last progress message says it."""
    seconds = f"{done.duration_ms / 1000:.1f} s"
    if not done.spawned:
        return "could not be started"
    if done.cancelled:
        return f"was cancelled after {seconds}; its process tree was killed"
    if done.timed_out:
        return f"passed its time limit after {seconds}"
    return f"finished after {seconds} with exit {done.exit}"


def _command_line(
    program: _Program,
    template: tuple[str, ...] | None,
    cli: dict[str, Any],
    script_path: Path,
    text: str,
) -> tuple[list[str], dict[str, Any] | None]:
    """The argv of a run, and for cli what happened to the script (spec 5.4)."""
    if program.engine != "cli":
        assert template is not None
        return [program.path, *expand(template, script=str(script_path), expr=text)], None
    given = cli.get("argv", [])
    slot = next((a for a in given if a in PROGRAM_SLOTS), None)
    argv = [program.path, *given]
    if slot is None:
        # Without the script the program would sit in its REPL and exit 0 with no output.
        argv.append(str(script_path))
    facts: dict[str, Any] = {
        "command": cli["command"],
        "argv": given,
        "scriptAppended": slot is None,
    }
    if slot is not None:
        facts["scriptSkipped"] = (
            f"cli.argv carries the program slot {slot}, so the script was not appended"
        )
    return argv, facts


def _warning(code: WarningCode, message: str) -> dict[str, str]:
    return {"code": code.value, "message": message}


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _previous_summary(previous: dict[str, Any] | None) -> dict[str, Any] | None:
    if previous is None:
        return None
    return {k: previous.get(k) for k in ("runId", "attempt", "scriptHash")}


def default_project() -> Path:
    """The project root when none is given: the working directory."""
    return Path(os.getcwd())
