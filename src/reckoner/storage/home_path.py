"""Which directory is the home: the only module that reads ``RECKONER_HOME``.

Apart from ``home`` (which names the paths inside it) so that a caller needing only the
directory, the pitfalls hook after every tool call, loads nothing else.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

HOME_ENV = "RECKONER_HOME"
DEFAULT_HOME = "~/.reckoner"


def home_directory(explicit: str | os.PathLike[str] | None = None) -> str:
    """The home to use: ``explicit``, else ``$RECKONER_HOME``, else ``~/.reckoner``.

    A string, so the hook need not load pathlib (it costs a few milliseconds per call).
    """
    if explicit is not None and os.fspath(explicit) != "":
        return os.path.expanduser(os.fspath(explicit))
    from_env = os.environ.get(HOME_ENV, "")
    if from_env.strip():
        return os.path.expanduser(from_env)
    return os.path.expanduser(DEFAULT_HOME)


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``home_directory`` as a ``Path``."""
    from pathlib import Path

    return Path(home_directory(explicit))
