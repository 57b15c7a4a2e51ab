"""The compute tool's arguments: the shared checker (reckoner.contract.checks) judges them
against the one contract; what is compute's own is which arguments each op reads. Pure."""

from __future__ import annotations

from typing import Any

from reckoner.contract.checks import CheckOptions, argument_problem
from reckoner.contract.compute import COMPUTE_TOOL

_OPTIONS = CheckOptions(too_long_fix="write it to a file in the project and use mode file")
"""A script over the inline limit has a way round it: mode file reads it from the project."""


OP_KEYS: dict[str, frozenset[str]] = {
    "probe": frozenset({"op", "engine", "packages", "cli"}),
    "run": frozenset(
        {
            "op",
            "engine",
            "mode",
            "code",
            "file",
            "expr",
            "packages",
            "timeoutMs",
            "captureFiles",
            "cli",
        }
    ),
    "receipt": frozenset({"op", "file"}),
    "install": frozenset({"op", "engine", "packages", "scope", "dryRun", "confirm"}),
}
"""The arguments each op reads; another one given is a mistake worth saying."""


def argument_error(args: Any) -> str | None:
    """The one sentence saying what is wrong with the arguments, or None."""
    problem = argument_problem(COMPUTE_TOOL, args, _OPTIONS)
    if problem is not None or not isinstance(args, dict):
        return problem
    taken = OP_KEYS[args["op"]]
    unused = [key for key in COMPUTE_TOOL.keys if args.get(key) is not None and key not in taken]
    if unused:
        return (
            f"op {args['op']} takes no {unused[0]}; its arguments are "
            f"{', '.join(k for k in COMPUTE_TOOL.keys if k in taken)}"
        )
    return None
