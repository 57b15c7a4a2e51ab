"""Putting a compute service together for a home and a project (the server's and the CLI's)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reckoner.contract.presets import COMPUTE_PRESET
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile

from .context import ComputeOptions, RowSink
from .service import ComputeService, default_project
from .settings import merged

STATE_KEY = "compute"
"""The ``state.json`` subtree holding the compute settings."""


def mount(
    home: Path,
    *,
    project: Path | str | None = None,
    preset: str = COMPUTE_PRESET,
    options: dict[str, Any] | None = None,
    row_sink: RowSink | None = None,
    log: Callable[[str], None] | None = None,
) -> ComputeService:
    """The service over ``state.json``'s compute subtree, with server options on top."""
    stored = StateFile(HomeLayout(home)).subtree(STATE_KEY)
    settings = merged(stored, dict(options or {}))
    root = Path(project) if project is not None else default_project()
    return ComputeService(
        root,
        settings,
        ComputeOptions(
            preset=preset,
            row_sink=row_sink,
            isolate_network=settings.network == "off",
            log=log,
        ),
    )
