"""The pitfalls memory's vocabulary (issue 13), apart from the contract that uses it so the
pitfalls hook can read it without loading the contract's dataclasses and dimension table."""

PITFALL_STATUSES: tuple[str, ...] = ("solved", "workaround", "open")
"""A lesson's status; anything else is stored as the first."""
