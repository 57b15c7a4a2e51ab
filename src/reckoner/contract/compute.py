"""The compute tool (issue 12): its operations, modes, engines and arguments."""

from __future__ import annotations

from .limits import (
    MAX_COMPUTE_SCRIPT_LENGTH,
    MIN_COMPUTE_TIMEOUT_MS,
)
from .presets import COMPUTE_PRESET, SEARCH_AND_COMPUTE_PRESET
from .tools import Argument, JSONSchema, Null, Tool

COMPUTE_ENGINES: tuple[str, ...] = (
    "python",
    "r",
    "octave",
    "julia",
    "matlab",
    "maple",
    "wolfram",
    "cli",
)
"""The engines compute knows, in its default probe order (one descriptor each)."""
COMPUTE_OPS: tuple[str, ...] = ("probe", "run", "receipt", "install")
COMPUTE_MODES: tuple[str, ...] = ("code", "file", "expr")

_STRINGS: JSONSchema = {"type": "array", "items": {"type": "string", "minLength": 1}}

COMPUTE_TOOL = Tool(
    "compute",
    False,
    (
        Argument(
            "op",
            True,
            Null.REFUSED,
            {"type": "string", "enum": list(COMPUTE_OPS)},
            "probe: which engines and packages this machine has; run: run code and archive a "
            "receipt; receipt: re-check an archived run by its runId; install: plan (dryRun) "
            "or execute (confirm) a package install.",
        ),
        Argument(
            "engine",
            False,
            Null.ABSENT,
            {"type": "string", "enum": list(COMPUTE_ENGINES)},
            "The engine to probe, run or install into. cli needs cli.command.",
        ),
        Argument(
            "mode",
            False,
            Null.ABSENT,
            {"type": "string", "enum": list(COMPUTE_MODES)},
            "code: the tool writes code to the archive and runs it (the default); file: run a "
            "file inside the project (copied into the archive); expr: one expression through "
            "the engine's eval form.",
        ),
        Argument(
            "code",
            False,
            Null.ABSENT,
            {"type": "string", "maxLength": MAX_COMPUTE_SCRIPT_LENGTH},
            "The script for mode code.",
        ),
        Argument(
            "file",
            False,
            Null.ABSENT,
            {"type": "string", "minLength": 1},
            "For mode file: a path relative to the project root. For op receipt: the runId.",
        ),
        Argument(
            "expr",
            False,
            Null.ABSENT,
            {"type": "string", "maxLength": MAX_COMPUTE_SCRIPT_LENGTH},
            "The expression for mode expr.",
        ),
        Argument(
            "packages",
            False,
            Null.ABSENT,
            _STRINGS,
            "Packages the run needs (checked by name before running; a missing one is "
            "reported, never installed) or that install should install: name, name[extras], "
            "name<op>version.",
        ),
        Argument(
            "timeoutMs",
            False,
            Null.ABSENT,
            {"type": "integer", "minimum": MIN_COMPUTE_TIMEOUT_MS},
            "The run's time limit in milliseconds; the whole process tree is killed after it.",
        ),
        Argument(
            "captureFiles",
            False,
            Null.ABSENT,
            _STRINGS,
            "Files inside the project the run writes, copied into the receipt's captured/.",
        ),
        Argument(
            "cli",
            False,
            Null.ABSENT,
            {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "minLength": 1},
                    "argv": {"type": "array", "items": {"type": "string"}},
                    "stdin": {"type": "string"},
                },
                "required": ["command"],
                "additionalProperties": False,
            },
            "For engine cli: the program, its argv and an optional stdin (both part of the "
            "run id and archived as argv.json and stdin.txt); the archived script's path is "
            "appended unless argv already carries a program slot (-c, -e, ...).",
        ),
        Argument(
            "scope",
            False,
            Null.ABSENT,
            {"type": "string", "enum": ["user", "system"]},
            "For install: user (the default) or system; never remembered.",
        ),
        Argument(
            "dryRun",
            False,
            Null.ABSENT,
            {"type": "boolean"},
            "For install: true (the default) returns the plan and its planToken only.",
        ),
        Argument(
            "confirm",
            False,
            Null.ABSENT,
            {"type": "string", "minLength": 1},
            "For install: the planToken of the plan to execute, exactly as returned.",
        ),
    ),
    presets=(COMPUTE_PRESET, SEARCH_AND_COMPUTE_PRESET),
)
