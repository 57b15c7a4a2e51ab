"""reckoner: a deterministic, dimension-checked calculation engine for LLM agents."""

from __future__ import annotations

from reckoner.version import __version__

TYPE_CHECKING = False  # not typing's: importing typing costs a hook's start
if TYPE_CHECKING:
    from typing import Any

    from reckoner.service.engine import Engine

__all__ = ["Engine", "__version__"]


def __getattr__(name: str) -> Any:
    # Loaded on first use, so a command that needs no engine (the pitfalls hook, --help)
    # does not pay for numpy and the unit catalogue at start.
    if name == "Engine":
        from reckoner.service.engine import Engine

        return Engine
    raise AttributeError(f"module 'reckoner' has no attribute {name!r}")
