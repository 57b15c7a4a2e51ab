"""reckoner: a deterministic, dimension-checked calculation engine for LLM agents."""

from reckoner.service.engine import Engine

__all__ = ["Engine"]
__version__ = "0.1.0"
