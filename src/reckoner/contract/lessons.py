"""A lesson's vocabulary, apart from the pitfall tools that use it: the pitfalls hook reads it
on every tool call of an agent, and importing nothing keeps the hook's start fast."""

PITFALL_STATUSES: tuple[str, ...] = ("solved", "workaround", "open")
"""A lesson's status; anything else is stored as the first."""
