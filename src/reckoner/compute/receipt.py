"""The receipt op: an archived run re-checked by its runId.

It reads the attempt's receipt.json, hashes the script and the pinned inputs again to say
whether they changed since the run, and writes receipt.md where it is missing.
"""

from __future__ import annotations

import re
from typing import Any

from . import archive as arch
from . import provenance, refusals
from .archive import Attempt, OutsideProject
from .context import Context, Response
from .render import STREAM_CAP_BYTES, receipt_markdown

MD_STDOUT_CHARS = 4000
"""How much of the output's end receipt.md shows."""

_REFERENCE = re.compile(r"(?:Computation/)?([^/]+)(?:/attempts/(\d+))?/?(?:receipt\.json)?")


def answer(ctx: Context, args: dict[str, Any]) -> Response:
    """receipt: what an archived run was, and whether its script or inputs changed since."""
    reference = args.get("file")
    if reference is None:
        raise refusals.invalid("receipt needs file: the runId of the run (or Computation/<runId>)")
    attempt = _find_attempt(ctx, reference)
    receipt = _read(ctx, attempt)
    script_rel = receipt.get("scriptPath")
    current = _current_hash(ctx, script_rel)
    pinned = provenance.recheck(ctx.project, attempt, receipt)
    changed = (
        current is None or current != receipt.get("scriptHash") or provenance.inputs_changed(pinned)
    )
    rewrote = _ensure_markdown(ctx, attempt, receipt, current)
    latest = ctx.archive.attempts_of(attempt.run_id)[-1].number
    return {
        "ok": True,
        "op": "receipt",
        "runId": attempt.run_id,
        "attempt": attempt.number,
        "latestAttempt": latest,
        "receipt": ctx.archive.relative(attempt.directory / arch.RECEIPT_JSON),
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


def _find_attempt(ctx: Context, reference: str) -> Attempt:
    """The attempt ``reference`` names: a runId, optionally with ``/attempts/<n>``."""
    match = _REFERENCE.fullmatch(reference)
    run_id = match.group(1) if match else ""
    if not arch.RUN_ID_PATTERN.fullmatch(run_id):
        raise refusals.not_a_run_id(reference)
    attempts = ctx.archive.attempts_of(run_id)
    wanted = int(match.group(2)) if match and match.group(2) else None
    chosen = [a for a in attempts if wanted is None or a.number == wanted]
    if not chosen:
        raise refusals.no_archive(run_id, wanted, ctx.project)
    return chosen[-1]


def _read(ctx: Context, attempt: Attempt) -> dict[str, Any]:
    directory = ctx.archive.relative(attempt.directory)
    try:
        receipt = ctx.archive.read_receipt(attempt)
    except ValueError as error:
        raise refusals.receipt_unparsable(directory, error, attempt.run_id) from None
    if receipt is None:
        raise refusals.no_receipt(directory, attempt.run_id)
    return receipt


def _current_hash(ctx: Context, script_rel: Any) -> str | None:
    """The script's hash now, or None when it is gone or its path leaves the project."""
    if not isinstance(script_rel, str):
        return None
    try:
        return arch.sha256_file(arch.inside(ctx.project, script_rel))
    except OutsideProject:
        return None


def _ensure_markdown(
    ctx: Context, attempt: Attempt, receipt: dict[str, Any], current: str | None
) -> bool:
    """receipt.md written where it is missing (never over one); True when it was."""
    script_rel = receipt.get("scriptPath")
    script_text = None
    if isinstance(script_rel, str) and current is not None:
        script_text = (ctx.project / script_rel).read_bytes().decode("utf-8", "replace")
    stdout_path = attempt.directory / "stdout.txt"
    stdout_text = (
        arch.read_output(stdout_path, STREAM_CAP_BYTES).last_text(MD_STDOUT_CHARS)
        if stdout_path.is_file()
        else None
    )
    return ctx.archive.ensure_receipt_md(
        attempt, receipt_markdown(receipt, script_text, stdout_text)
    )
