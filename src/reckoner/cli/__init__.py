"""The `reckoner` command line: one entry point for calls, records, the servers and the demo.

Every failure a user can cause ends in one sentence on stderr and exit code 2, never a
traceback; `call` exits 1 when the engine refused the call. The parser is
``reckoner.cli.parser``, the commands ``reckoner.cli.commands``, the terminal's view of
records ``reckoner.cli.render``; each loads only when its command runs, so that
`reckoner pitfalls hook`, which runs after every tool call of an agent, starts fast.
"""

from __future__ import annotations

import os
import sys

from reckoner.cli.failure import EXIT_USAGE, CliError

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `reckoner` script and of `python -m reckoner`."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:2] == ["pitfalls", "hook"] and not {"-h", "--help"} & set(arguments):
        # The hook runs after every tool call of an agent: skip building the whole parser.
        from reckoner.pitfalls.hook import main as hook_main

        code = hook_main(arguments[2:])
        if argv is None:  # the console script: its output is flushed and its files closed,
            os._exit(code)  # so skip tearing the interpreter down, a seventh of a firing run
        raise SystemExit(code)
    from reckoner.cli.commands import COMMANDS
    from reckoner.cli.parser import build_parser

    parser = build_parser()
    options = parser.parse_args(arguments)
    if options.command is None:
        parser.print_help()
        raise SystemExit(EXIT_USAGE)
    try:
        code = COMMANDS[options.command](options)
    except KeyboardInterrupt:
        code = 130
    except (CliError, OSError) as exc:
        # HomeLockedError, HomeError and ServeError carry one sentence each.
        message = str(exc) or exc.__class__.__name__
        print(f"reckoner: {message}", file=sys.stderr)
        code = EXIT_USAGE
    raise SystemExit(code)
