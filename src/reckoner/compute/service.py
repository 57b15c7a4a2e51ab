"""The compute tool: probe, run, receipt and install, answered as one JSON object each.

``ComputeService.call(args)`` never raises. A refusal is ``{"ok": false, "code", "error",
"next"}``: ``code`` and ``next.kind`` (with ``next.reason``) are the machine-readable part,
``error`` the one sentence. A failed call leaves the archive as it was. This module checks
the arguments, hands the op to its module (probe, run, receipt, installer), turns a refusal
into its receipt, and appends a run's row to the open record.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reckoner.contract.compute import COMPUTE_OPS
from reckoner.contract.refusal import Refusal

from . import installer, probe, receipt, refusals, run, runner
from .archive import Archive
from .arguments import argument_error
from .context import ComputeOptions, Context, Response
from .probe import Engines
from .settings import ComputeSettings

_OPS: dict[str, Callable[[Context, dict[str, Any]], Response]] = {
    "probe": probe.answer,
    "run": run.answer,
    "receipt": receipt.answer,
    "install": installer.answer,
}


class ComputeService:
    """One project's compute tool over its settings; safe to call from several threads."""

    def __init__(
        self, project: Path, settings: ComputeSettings, options: ComputeOptions | None = None
    ) -> None:
        options = options or ComputeOptions()
        root = project.resolve()
        self.settings = settings
        self.options = options
        self.context = Context(
            root,
            settings,
            options,
            Archive(root),
            Engines(root, options.search_path),
            self._row,
        )
        for note in settings.notes:
            self.context.log(note)

    def close(self) -> None:
        """Kill every run still under way (the server is stopping); their receipts say so."""
        killed = runner.kill_running()
        if killed:
            self.context.log(f"compute: {killed} run(s) killed as the server stopped")

    def call(self, args: Any) -> Response:
        """One compute call in, one JSON-serialisable response out; never raises."""
        op = args.get("op") if isinstance(args, dict) else None
        if op not in COMPUTE_OPS:
            op = None  # echoed back only when it is an op: inf or an object is not JSON
        try:
            error = argument_error(args)
            if error:
                raise refusals.invalid(error)
            if self.settings.mode == "off":
                raise refusals.compute_off()
            return _OPS[args["op"]](self.context, args)
        except Refusal as refusal:
            self._discard_attempt()
            response = {"op": op, **refusal.receipt()} if op else refusal.receipt()
            if op == "run" and self.settings.mode != "off":  # off writes nothing anywhere
                self._row(False, response)
            return response
        except OSError as error:
            # The project's Computation folder cannot be written (a file or a link in its
            # place, a read-only or full disk): the attempt this call claimed goes again, so
            # the sentence is true, and the run is on record as refused.
            self._discard_attempt()
            response = refusals.archive_unwritable(op, self.context.archive.root, error)
            if op == "run":
                self._row(False, response)
            return response
        except Exception as error:  # the response is the only channel
            self.context.log(f"compute internal error: {type(error).__name__}: {error}")
            self._discard_attempt()
            return refusals.internal(op, error)

    def _discard_attempt(self) -> None:
        try:
            self.context.archive.discard_unsealed()
        except OSError as error:
            self.context.log(f"compute: a refused attempt could not be removed: {error}")

    def _row(self, ok: bool, content: dict[str, Any]) -> None:
        """Append a run's row to the open record; a refusal before the archive carries only
        its code, its sentence and the engine."""
        sink = self.options.row_sink
        if sink is None:
            return
        if not ok and "runId" not in content:
            content = {
                "code": content.get("code"),
                "error": content.get("error"),
                "engine": content.get("engine"),
            }
        try:
            sink(ok, content)
        except Exception as error:  # the record is best effort; the receipt already stands
            self.context.log(f"compute row not appended: {error}")


def default_project() -> Path:
    """The project root when none is given: the working directory."""
    return Path(os.getcwd())
