"""Showing a generated file to the user through the system's opener.

The opener is handed to the desktop through the process owner, detached: what it opens
(a PDF viewer, a file manager) is the user's, so it has no deadline and is not killed with
the server (docs/decisions/processes.md). It gets the base allow-listed environment and
what a desktop session needs to be reached, nothing else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from reckoner.articles.fact_model import ArticleRefusal
from reckoner.host import processes

DESKTOP_ENVIRONMENT = (
    "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS",
    "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
    "DESKTOP_SESSION", "BROWSER",
)  # fmt: skip
"""What an opener needs to reach the user's desktop session."""


def _opener() -> list[str] | None:
    if sys.platform == "darwin":
        return ["open"]
    found = processes.which("xdg-open")
    return [found] if found else None


def reveal(path: Path, *, folder: bool) -> str:
    """Open ``path`` (or the folder holding it) with the system opener; what was opened."""
    target = path.parent if folder else path
    if not target.exists():
        raise ArticleRefusal(f"{str(target)!r} no longer exists; generate the article again.")
    if sys.platform == "win32":  # pragma: no cover - no Windows runner here
        os.startfile(target)
        return str(target)
    command = _opener()
    if command is None:
        raise ArticleRefusal(
            f"This machine has no file opener (xdg-open), so nothing was opened; the file is at "
            f"{path}."
        )
    failure = processes.start_detached([*command, str(target)], names=DESKTOP_ENVIRONMENT)
    if failure is not None:
        raise ArticleRefusal(f"The file opener could not start ({failure}); the file is at {path}.")
    return str(target)
