"""Showing a generated file to the user: the one module that starts the system's opener."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from reckoner.articles.facts import ArticleRefusal


def _opener() -> list[str] | None:
    if sys.platform == "darwin":
        return ["open"]
    found = shutil.which("xdg-open")
    return [found] if found else None


def reveal(path: Path, *, folder: bool) -> str:
    """Open ``path`` (or the folder holding it) with the system opener; what was opened."""
    target = path.parent if folder else path
    if not target.exists():
        raise ArticleRefusal(f"{str(target)!r} no longer exists; generate the article again.")
    if sys.platform == "win32":  # pragma: no cover - no Windows runner here
        os.startfile(target)  # type: ignore[attr-defined]
        return str(target)
    command = _opener()
    if command is None:
        raise ArticleRefusal(
            f"This machine has no file opener (xdg-open), so nothing was opened; the file is at "
            f"{path}."
        )
    try:
        subprocess.Popen(
            [*command, str(target)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as failure:
        raise ArticleRefusal(
            f"The file opener could not start ({failure.strerror or type(failure).__name__}); "
            f"the file is at {path}."
        ) from None
    return str(target)
