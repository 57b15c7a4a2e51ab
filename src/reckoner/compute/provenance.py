"""What a receipt pins besides the script, and how ``op: receipt`` checks it again.

A run's outputs (``stdout.txt``, ``stderr.txt``) and a ``cli`` run's inputs (its argv in
``argv.json``, its stdin in ``stdin.txt``) are archived beside the script and recorded with
their sha256, so an edit to any of them after the run is seen, never passed as what ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import archive as arch
from .archive import Archive, Attempt

STDOUT = "stdout.txt"
STDERR = "stderr.txt"
ARGV = "argv.json"
STDIN = "stdin.txt"


def cli_key(cli: dict[str, Any]) -> str:
    """The part of a ``cli`` run's id that its argv and stdin decide (absent stdin is null)."""
    inputs = {"argv": list(cli.get("argv") or []), "stdin": cli.get("stdin")}
    return json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _argv_bytes(argv: list[str]) -> bytes:
    return (json.dumps(argv, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def archive_cli_inputs(store: Archive, attempt: Attempt, cli: dict[str, Any]) -> dict[str, Any]:
    """Write argv.json (and stdin.txt when there is a stdin) and say where, with hashes."""
    argv_data = _argv_bytes(list(cli.get("argv") or []))
    store.create(attempt.directory / ARGV, argv_data)
    facts: dict[str, Any] = {
        "argvPath": store.relative(attempt.directory / ARGV),
        "argvHash": arch.sha256_bytes(argv_data),
        "stdinPath": None,
        "stdinHash": None,
    }
    stdin = cli.get("stdin")
    if stdin is not None:
        stdin_data = stdin.encode("utf-8")
        store.create(attempt.directory / STDIN, stdin_data)
        facts["stdinPath"] = store.relative(attempt.directory / STDIN)
        facts["stdinHash"] = arch.sha256_bytes(stdin_data)
    return facts


def output_hashes(attempt: Attempt) -> dict[str, str | None]:
    """The sha256 of the run's archived stdout and stderr, as the receipt records them."""
    return {
        "stdoutHash": arch.sha256_file(attempt.directory / STDOUT),
        "stderrHash": arch.sha256_file(attempt.directory / STDERR),
    }


def _changed(project: Path, recorded: Any, relative: Any) -> bool | None:
    """Whether an archived file no longer has its recorded hash; None when none was recorded."""
    if not isinstance(recorded, str):
        return None
    if not isinstance(relative, str):
        return True
    try:
        current = arch.sha256_file(arch.inside(project, relative))
    except arch.OutsideProject:
        return True
    return current != recorded


def recheck(project: Path, attempt: Attempt, receipt: dict[str, Any]) -> dict[str, Any]:
    """Each pinned file checked against its recorded hash (None: the receipt recorded none).

    ``outputChanged`` is true when stdout.txt or stderr.txt differs or is gone; for a
    ``cli`` run ``argvChanged`` and ``stdinChanged`` say the same of its inputs.
    """
    base = attempt.directory.relative_to(project)
    out = _changed(project, receipt.get("stdoutHash"), (base / STDOUT).as_posix())
    err = _changed(project, receipt.get("stderrHash"), (base / STDERR).as_posix())
    result: dict[str, Any] = {
        "outputChanged": None if out is None and err is None else bool(out or err),
    }
    cli = receipt.get("cli")
    if isinstance(cli, dict):
        result["argvChanged"] = _changed(project, cli.get("argvHash"), cli.get("argvPath"))
        stdin_recorded = cli.get("stdinHash")
        if stdin_recorded is None and "stdinHash" in cli:
            # The run had no stdin: a stdin.txt appearing later is not what ran.
            result["stdinChanged"] = (attempt.directory / STDIN).exists()
        else:
            result["stdinChanged"] = _changed(project, stdin_recorded, cli.get("stdinPath"))
    return result


def inputs_changed(checked: dict[str, Any]) -> bool:
    """Whether a cli run's argv or stdin no longer are what ran."""
    return bool(checked.get("argvChanged") or checked.get("stdinChanged"))
