"""reckoner: a deterministic, dimension-checked calculation engine for LLM agents."""

__version__ = "0.1.0"
