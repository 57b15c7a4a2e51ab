"""How a command ends: its exit codes, and the one failure a user can fix."""

EXIT_REFUSED = 1
"""`call` and `compute`: the engine or the tool refused."""

EXIT_USAGE = 2
"""A failure the user can fix, said in one sentence on stderr."""


class CliError(Exception):
    """A failure the user can fix; the message is the one sentence printed."""
