"""What every compute op works over: one project, its settings, its archive, its engines,
and how this server's host lets compute reach them.

The service builds one frozen ``Context``; the ops (probe, run, receipt, install) are
functions over it, so no op keeps state of its own between calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.contract.presets import COMPUTE_PRESET

from .archive import Archive
from .probe import Engines
from .settings import ComputeSettings

Response = dict[str, Any]
"""One op's answer: a JSON object (``ok`` first)."""
RowSink = Callable[[bool, dict[str, Any]], None]
"""Appends one compute row to the open record, if any: (ok, content)."""


@dataclass(frozen=True, slots=True)
class ComputeOptions:
    """How one server's compute reaches its host, and where its rows and notes go.

    ``preset`` names the archive's runs; ``search_path`` replaces PATH when engines are
    located; ``has_subprocess`` False refuses every probe and run; ``isolate_network`` runs
    every engine without network; ``row_sink`` and ``log`` take the record rows and the
    operator's notes.
    """

    preset: str = COMPUTE_PRESET
    row_sink: RowSink | None = None
    search_path: str | None = None
    has_subprocess: bool = True
    isolate_network: bool = False
    log: Callable[[str], None] | None = None


@dataclass(frozen=True, slots=True)
class Context:
    """One project's compute, as every op sees it."""

    project: Path
    settings: ComputeSettings
    options: ComputeOptions
    archive: Archive
    engines: Engines
    record: RowSink
    """Appends a run's row to the open record (best effort; the service's own)."""

    def log(self, message: str) -> None:
        if self.options.log is not None:
            self.options.log(message)
