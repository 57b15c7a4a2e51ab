"""One run, from its claimed attempt to its sealed receipt, its answer and its record row.

The steps, in order: claim the attempt and archive the script (``_claim``), start the
engine with its output streamed straight into the archive (``_start``), look at what it
left (``_after``), seal the receipt, and answer. The warnings grow in that order on the
request's one list, which the receipt and the answer both carry.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reckoner.host.calls import current_call, heartbeat

from . import archive as arch
from . import install, provenance, refusals, runner
from .archive import Attempt
from .containment import stop_sentence
from .context import Context, Response
from .engines import CLI_EXT, PROGRAM_SLOTS, expand
from .receipt import MD_STDOUT_CHARS
from .render import PARTIAL_CHARS, STREAM_CAP_BYTES, last_lines, receipt_markdown, trimmed
from .vocabulary import WarningCode

if TYPE_CHECKING:
    from .run import RunRequest


ROW_SCRIPT_CHARS = 8000
"""How much of a script a record row carries (the archive holds all of it)."""
_ROW_STDOUT_CHARS = 4000


def warning(code: WarningCode, message: str) -> dict[str, str]:
    """One entry of a run's ``warnings``."""
    return {"code": code.value, "message": message}


def run_id(ctx: Context, request: RunRequest, key: str) -> str:
    """``<preset>-<projectSlug>-<first 12 hex of sha256(engine|mode|key|packages)>``.

    A cli run appends ``|`` and its argv and stdin (``provenance.cli_key``): the same
    script under another argv or stdin is another run.
    """
    cli_key = provenance.cli_key(request.cli) if request.program.engine == "cli" else ""
    parts = [request.program.info["engine"], request.mode, key, ",".join(sorted(request.packages))]
    material = "|".join([*parts, cli_key] if cli_key else parts)
    digest = hashlib.sha256(material.encode("utf-8")).hexdigest()[:12]
    return f"{ctx.options.preset}-{arch.project_slug(ctx.project)}-{digest}"


@dataclass(frozen=True, slots=True)
class Claimed:
    """The attempt a run claimed, with its archived script and what it is compared with."""

    run_id: str
    attempt: Attempt
    previous: dict[str, Any] | None  # the receipt of the attempt before, if readable
    script_path: Path
    language: str  # the script's extension
    script_bytes: bytes
    script_hash: str
    relative_source: str | None  # the project file a mode-file run ran
    cli_pins: dict[str, Any]
    engine_info: dict[str, Any]
    file_is_archived: bool
    script_changed: bool
    argv: list[str]
    cli_facts: dict[str, Any] | None  # for cli: what happened to the script

    @property
    def script_text(self) -> str:
        return self.script_bytes.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class Ended:
    """How a run ended, and the ends of what it wrote."""

    done: runner.Completed
    stopped: str | None  # the sentence, when the run was stopped before its end
    out: arch.Output
    err: arch.Output
    stdout: tuple[str, bool]  # what the answer carries of stdout, and whether it is cut
    stderr: tuple[str, bool]
    hash_after: str | None  # the script (or source file) hashed again after the run
    changed_during: bool


def execute(ctx: Context, request: RunRequest) -> Response:
    """Run ``request``: archive it, seal its receipt, append its row, answer."""
    claimed = _claim(ctx, request)
    ended = _start(ctx, request, claimed)
    captured = _after(ctx, request, claimed, ended)
    receipt = _receipt(ctx, request, claimed, ended, captured)
    ctx.archive.seal(
        claimed.attempt,
        receipt,
        receipt_markdown(receipt, claimed.script_text, ended.out.last_text(MD_STDOUT_CHARS)),
    )
    evidence = _evidence(ctx, request, claimed, ended, receipt)
    response = refusals.verdict(ended, request.program, evidence, request.timeout_ms)
    failure = {} if response["ok"] else {"code": response["code"], "error": response["error"]}
    ctx.record(response["ok"] is True, {**_row(claimed, ended, evidence), **failure})
    return response


def _claim(ctx: Context, request: RunRequest) -> Claimed:
    """The next attempt of the run's id, its script written into it and its engine asked
    who it is (where and as the run itself starts it: a shim's choice is the one recorded)."""
    if request.source is not None:
        relative_source: str | None = ctx.archive.relative(request.source)
        key = f"file:{relative_source}"
        script_bytes = request.source.read_bytes()
    else:
        relative_source = None
        script_bytes = request.text.encode("utf-8")
        key = request.text.replace("\r\n", "\n").rstrip()
    program = request.program
    identifier = run_id(ctx, request, key)
    ext = CLI_EXT if program.engine == "cli" or not program.descriptor else program.descriptor.ext
    attempt = ctx.archive.claim(identifier)
    previous = _previous(ctx, identifier, attempt.number)
    script_path = attempt.directory / f"script.{ext}"
    ctx.archive.create(script_path, script_bytes)
    script_hash = arch.sha256_bytes(script_bytes)
    cli_pins = (
        provenance.archive_cli_inputs(ctx.archive, attempt, request.cli)
        if program.engine == "cli"
        else {}
    )
    engine_info = ctx.engines.identities.of(
        program.path, program.descriptor, str(ctx.project), request.timeout_ms
    ).engine_info(program.info)
    file_is_archived = relative_source is not None and relative_source.startswith(
        f"{arch.ROOT_NAME}/"
    )
    script_changed = previous is not None and previous.get("scriptHash") != script_hash
    _before_warnings(request, file_is_archived, script_changed)
    argv, cli_facts = command_line(request, script_path)
    return Claimed(
        identifier,
        attempt,
        previous,
        script_path,
        ext,
        script_bytes,
        script_hash,
        relative_source,
        cli_pins,
        engine_info,
        file_is_archived,
        script_changed,
        argv,
        cli_facts,
    )


def _before_warnings(request: RunRequest, file_is_archived: bool, script_changed: bool) -> None:
    if file_is_archived:
        request.warnings.append(
            warning(
                WarningCode.ARCHIVED_SCRIPT_RERUN,
                "the file is an archived script: this is a new archive id, not a new "
                "attempt of the old one",
            )
        )
    if script_changed:
        request.warnings.append(
            warning(
                WarningCode.SCRIPT_CHANGED_SINCE_LAST_RECEIPT,
                "the script differs from the one the previous receipt of this id ran; "
                "that receipt no longer stands for it",
            )
        )


def _previous(ctx: Context, identifier: str, number: int) -> dict[str, Any] | None:
    """The receipt of the attempt before ``number``, if it is readable."""
    if number == 1:
        return None
    earlier = [a for a in ctx.archive.attempts_of(identifier) if a.number < number]
    for attempt in reversed(earlier):
        try:
            found = ctx.archive.read_receipt(attempt)
        except ValueError:
            found = None
        if found is not None:
            return found
    return None


def _start(ctx: Context, request: RunRequest, claimed: Claimed) -> Ended:
    """The engine run to its end, its output written straight into the archive: no output
    is held in memory, and a crash of this server leaves whatever the run had written.

    The call's control (host.calls): its cancellation kills the run's whole tree, and the
    client hears of the run's start, its progress and its end.
    """
    engine_key = request.program.info["engine"]
    directory = claimed.attempt.directory
    stdout_path, stderr_path = directory / "stdout.txt", directory / "stderr.txt"
    settings = ctx.settings
    call = current_call()
    call.report(f"{engine_key} run {claimed.run_id} (attempt {claimed.attempt.number}) started")
    with (
        ctx.archive.open_new(stdout_path) as out,
        ctx.archive.open_new(stderr_path) as err,
        heartbeat(f"{engine_key} run {claimed.run_id}"),
    ):
        spec = runner.RunSpec(
            cwd=str(ctx.project),
            timeout_ms=request.timeout_ms,
            stdin=request.cli.get("stdin"),
            isolate_network=ctx.options.isolate_network or settings.network != "on",
            names=settings.pass_environment,
            stdout=out,
            stderr=err,
            max_stream_bytes=settings.max_output_bytes,
            cancel=call.cancelled,
        )
        done = runner.run(claimed.argv, spec)
    call.report(f"{engine_key} run {claimed.run_id} {_how_it_ended(done)}")
    stopped = stop_sentence(done, settings.max_output_bytes, call.why)
    out_ends = arch.read_output(stdout_path, STREAM_CAP_BYTES)
    err_ends = arch.read_output(stderr_path, STREAM_CAP_BYTES)
    # Hashed again after the run: the source file (mode file) or the archived script.
    hashed = request.source if request.source is not None else claimed.script_path
    hash_after = arch.sha256_file(hashed)
    return Ended(
        done,
        stopped,
        out_ends,
        err_ends,
        trimmed(out_ends.size, out_ends.head, out_ends.tail),
        trimmed(err_ends.size, err_ends.head, err_ends.tail),
        hash_after,
        hash_after != claimed.script_hash,
    )


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


def command_line(request: RunRequest, script_path: Path) -> tuple[list[str], dict[str, Any] | None]:
    """The argv of a run, and for cli what happened to the script (docs/guide/compute.md)."""
    program, cli = request.program, request.cli
    if program.engine != "cli":
        assert request.template is not None
        expanded = expand(request.template, script=str(script_path), expr=request.text)
        return [program.path, *expanded], None
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


def _after(
    ctx: Context, request: RunRequest, claimed: Claimed, ended: Ended
) -> list[dict[str, Any]]:
    """The files the run was asked to leave, captured; the warnings of what it left."""
    warnings = request.warnings
    if ended.changed_during:
        warnings.append(
            warning(
                WarningCode.SCRIPT_CHANGED_DURING_RUN,
                "the script changed (or vanished) while it ran; this receipt does not "
                "stand for any one version",
            )
        )
    # A missing file is said, and a path the run turned into a link is refused in the
    # receipt (the run is kept).
    captured = [ctx.archive.capture(claimed.attempt, path) for path in request.captures]
    number = claimed.attempt.number
    if number > arch.MAX_ATTEMPTS_PER_RUN:
        warnings.append(
            warning(
                WarningCode.ARCHIVE_RETENTION_EXCEEDED,
                f"this id has {number} attempts, above "
                f"{arch.MAX_ATTEMPTS_PER_RUN}; nothing is deleted, prune by hand",
            )
        )
    elif number == 1 and ctx.archive.run_count() > arch.MAX_RUNS:
        warnings.append(
            warning(
                WarningCode.ARCHIVE_RETENTION_EXCEEDED,
                f"the project holds more than {arch.MAX_RUNS} runs; nothing is deleted, "
                "prune by hand",
            )
        )
    if ended.stdout[1] or ended.stderr[1]:
        warnings.append(
            warning(
                WarningCode.OUTPUT_TRUNCATED,
                "the response carries part of the output; the archive holds all of it",
            )
        )
    return captured


def _receipt(
    ctx: Context,
    request: RunRequest,
    claimed: Claimed,
    ended: Ended,
    captured: list[dict[str, Any]],
) -> dict[str, Any]:
    """receipt.json: everything the run was, as the archive keeps it."""
    done, source, cli_facts = ended.done, request.source, claimed.cli_facts
    receipt: dict[str, Any] = {
        "runId": claimed.run_id,
        "attempt": claimed.attempt.number,
        "attemptDir": ctx.archive.relative(claimed.attempt.directory),
        "preset": ctx.options.preset,
        "engine": request.program.info["engine"],
        "engineInfo": claimed.engine_info,
        "mode": request.mode,
        "scriptPath": ctx.archive.relative(claimed.script_path),
        "scriptAbs": str(claimed.script_path),
        "scriptHash": claimed.script_hash,
        "sourceFile": claimed.relative_source,
        "sourceHashBefore": claimed.script_hash if source is not None else None,
        "sourceHashAfter": ended.hash_after if source is not None else None,
        "argv": done.argv,
        "cwd": done.cwd,
        "exit": done.exit,
        "timedOut": done.timed_out,
        "durationMs": round(done.duration_ms, 1),
        "stdoutBytes": ended.out.size,
        "stderrBytes": ended.err.size,
        **provenance.output_hashes(claimed.attempt),
        "stdoutTruncated": ended.stdout[1],
        "stderrTruncated": ended.stderr[1],
        "packages": request.packages,
        "captured": captured,
        "network": "enforced" if done.network_enforced else "not-enforced",
        "scriptChanged": claimed.script_changed,
        "scriptChangedDuringRun": ended.changed_during,
        "previousReceipt": _previous_summary(claimed.previous),
        "warnings": request.warnings,
        "createdAt": int(time.time() * 1000),
    }
    if cli_facts is not None:
        receipt["cli"] = {**cli_facts, **claimed.cli_pins}
    if done.timed_out:
        receipt["partialStdout"] = ended.out.last_text(PARTIAL_CHARS)
        receipt["partialStderr"] = ended.err.last_text(PARTIAL_CHARS)
    if not done.spawned:
        receipt["spawnError"] = done.spawn_error
    if ended.stopped is not None:
        receipt["stopped"] = ended.stopped
    if done.cancelled:
        receipt["cancelled"] = True
    return receipt


def _previous_summary(previous: dict[str, Any] | None) -> dict[str, Any] | None:
    if previous is None:
        return None
    return {k: previous.get(k) for k in ("runId", "attempt", "scriptHash")}


def _evidence(
    ctx: Context, request: RunRequest, claimed: Claimed, ended: Ended, receipt: dict[str, Any]
) -> Response:
    """What the run's answer carries, whether it succeeded or not."""
    done = ended.done
    stdout, stdout_cut = ended.stdout
    stderr, stderr_cut = ended.stderr
    return {
        "op": "run",
        "runId": claimed.run_id,
        "attempt": claimed.attempt.number,
        "engine": receipt["engine"],
        "engineInfo": claimed.engine_info,
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
        "receipt": ctx.archive.relative(claimed.attempt.directory / arch.RECEIPT_JSON),
        "scriptPath": receipt["scriptPath"],
        "scriptHash": claimed.script_hash,
        "scriptChanged": claimed.script_changed,
        "scriptChangedDuringRun": ended.changed_during,
        "fileIsArchivedScript": claimed.file_is_archived,
        "previousReceipt": receipt["previousReceipt"],
        "captured": receipt["captured"],
        "network": receipt["network"],
        "warnings": request.warnings,
        "versionPolicy": install.VERSION_POLICY,
        "constraintsNotEnforced": install.constraints(request.packages),
    }


def _row(claimed: Claimed, ended: Ended, evidence: Response) -> dict[str, Any]:
    """The record's row of the run: what ran and how it ended, without the project at hand."""
    done, attempt = ended.done, claimed.attempt
    row = {
        "engine": evidence["engine"],
        "version": claimed.engine_info.get("version"),
        "runId": claimed.run_id,
        "attempt": attempt.number,
        "scriptHash": claimed.script_hash,
        "scriptPath": evidence["scriptPath"],
        "exit": done.exit,
        "durationMs": evidence["durationMs"],
        "timedOut": done.timed_out,
        "receipt": evidence["receipt"],
        "receiptAbs": str(attempt.directory / arch.RECEIPT_JSON),
        "language": claimed.language,
        "stdoutTail": last_lines(ended.out.last_text(_ROW_STDOUT_CHARS)),
    }
    if ended.stopped is not None:
        row["stopped"] = ended.stopped
    if done.cancelled:
        row["cancelled"] = True  # never ok: a cancelled run has no result to stand on
    # A long script is cut; the archive holds all of it.
    script_text = claimed.script_text
    row["script"] = script_text[:ROW_SCRIPT_CHARS]
    if len(script_text) > ROW_SCRIPT_CHARS:
        row["scriptTruncated"] = True
    return row
