"""``reckoner pitfalls ...``: the memory from a terminal (list, search, show, record, update,
delete, merge), the standalone MCP server (serve) and the Claude Code hook (hook).

Every command but show goes through the same tools a model calls, so the checks, limits and
sentences are the same ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from reckoner.contract.lessons import PITFALL_STATUSES
from reckoner.contract.pitfalls import OPTION_TOOL_BY_NAME

from .tiers import DEFAULT_PROJECT_DIR, Pitfalls

EXIT_REFUSED = 1


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="the home whose pitfalls/ is the global library "
        "(default: $RECKONER_HOME, else ~/.reckoner)",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=None,
        help="the project directory (default: the working directory)",
    )
    parser.add_argument(
        "--project-dir",
        metavar="PATH",
        default=DEFAULT_PROJECT_DIR,
        help=f"the project library, relative to the project (default {DEFAULT_PROJECT_DIR}; "
        "'' uses the global library only)",
    )


def _help(tool: str, key: str) -> str:
    for argument in OPTION_TOOL_BY_NAME[tool].arguments:
        if argument.key == key:
            return argument.description.replace("%", "%%")
    raise KeyError(key)


def _lesson_options(parser: argparse.ArgumentParser, tool: str) -> None:
    for key in ("title", "area", "symptom", "cause", "solution", "evidence"):
        parser.add_argument(f"--{key}", help=_help(tool, key))
    parser.add_argument(
        "--tag", dest="tags", action="append", metavar="TAG", help=_help(tool, "tags")
    )
    parser.add_argument("--status", choices=PITFALL_STATUSES, help=_help(tool, "status"))


def add_parser(commands: Any) -> None:
    """The ``pitfalls`` command and its subcommands, on the main parser's subparsers."""
    pitfalls = commands.add_parser(
        "pitfalls",
        help="the pitfalls memory: lessons from tool failures (list, search, serve, hook, ...)",
        description="Lessons learned from tool failures, in a project library "
        "(.reckoner/pitfalls) backed by a global one (<home>/pitfalls).",
    )
    sub = pitfalls.add_subparsers(dest="pitfalls_command", metavar="SUBCOMMAND", required=True)

    listing = sub.add_parser("list", help="list the most recent lessons")
    listing.add_argument("--status", choices=PITFALL_STATUSES)
    listing.add_argument("--tag")
    listing.add_argument("--limit", type=int, default=10)

    search = sub.add_parser("search", help="search the lessons (project first, then global)")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--tag")
    search.add_argument("--limit", type=int, default=5)

    show = sub.add_parser("show", help="print one lesson's card")
    show.add_argument("id", metavar="ID")

    record = sub.add_parser("record", help="record a lesson")
    _lesson_options(record, "pitfall_record")

    update = sub.add_parser("update", help="update a lesson or add a note")
    update.add_argument("id", metavar="ID")
    update.add_argument("--note", help=_help("pitfall_update", "note"))
    _lesson_options(update, "pitfall_update")

    delete = sub.add_parser("delete", help="delete a lesson (kept in the history)")
    delete.add_argument("id", metavar="ID")
    merge = sub.add_parser("merge", help="fold a duplicate lesson into another, then delete it")
    merge.add_argument("id", metavar="ID", help=_help("pitfall_merge", "id"))
    merge.add_argument("duplicate", metavar="DUPLICATE", help=_help("pitfall_merge", "duplicate"))

    for parser in (listing, search, show, record, update, delete, merge):
        _common(parser)
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")

    serve = sub.add_parser(
        "serve",
        help="run an MCP server (stdio) with only the pitfall_* tools",
        description="An MCP server over stdio with the pitfalls memory alone: pitfall_record, "
        "pitfall_search, pitfall_update, pitfall_list, pitfall_delete, pitfall_merge and the "
        "prevention rule.",
    )
    _common(serve)

    hook = sub.add_parser(
        "hook",
        help="the Claude Code hook: reads one hook event on stdin",
        description="Feed a Claude Code hook event (PostToolUseFailure, PostToolUse, "
        "SessionEnd) from stdin to the detector, printing additional context when a reminder "
        "fires; on SessionStart print the project's most recent lessons. Always exits 0.",
    )
    hook.add_argument("--home", metavar="DIR")
    hook.add_argument("--project-dir", metavar="PATH")


def _args(options: argparse.Namespace, keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: getattr(options, k) for k in keys if getattr(options, k, None) is not None}


def run(options: argparse.Namespace) -> int:
    """Run one ``pitfalls`` subcommand; returns the exit code."""
    from reckoner.storage.home import resolve_home

    command = options.pitfalls_command
    if command == "hook":
        return _hook(options)
    home = resolve_home(options.home)
    project = Path(options.project) if options.project else Path.cwd()
    if command == "serve":
        from .mcp import serve_standalone

        serve_standalone(home, project=project, project_dir=options.project_dir)
        return 0

    pitfalls = Pitfalls.open(home, project=project, project_dir=options.project_dir)
    if command == "show":
        return _show(pitfalls, options)
    return _call_tool(pitfalls, options)


def _hook(options: argparse.Namespace) -> int:
    from .hook import main as hook_main

    argv = [*(("--home", options.home) if options.home else ())]
    if options.project_dir is not None:
        argv += ["--project-dir", options.project_dir]
    return hook_main(argv)


def _show(pitfalls: Pitfalls, options: argparse.Namespace) -> int:
    """Print one lesson's card (or its JSON); the only command that is not a tool's."""
    from reckoner.wire import dumps_text

    from . import render

    found = pitfalls.find(options.id.strip())
    if found is None:
        print(
            f"reckoner: no lesson has the id {options.id[:40]!r}; "
            "'reckoner pitfalls list' shows the ids",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    entry, _ = found
    print(
        dumps_text(entry) if options.json else render.card(entry),
        end="\n" if options.json else "",
    )
    return 0


_LESSON_KEYS = ("title", "area", "symptom", "cause", "solution", "evidence", "tags", "status")

_TOOL_OF: dict[str, tuple[str, tuple[str, ...]]] = {
    "list": ("pitfall_list", ("status", "tag", "limit")),
    "search": ("pitfall_search", ("query", "tag", "limit")),
    "record": ("pitfall_record", _LESSON_KEYS),
    "update": ("pitfall_update", ("id", "note", *_LESSON_KEYS)),
    "delete": ("pitfall_delete", ("id",)),
    "merge": ("pitfall_merge", ("id", "duplicate")),
}
"""Each terminal command as the tool it calls, and the options that are its arguments."""


def _call_tool(pitfalls: Pitfalls, options: argparse.Namespace) -> int:
    """A command through the tool a model calls: the same checks, limits and sentences."""
    from reckoner.wire import dumps_text

    from .tools import PitfallTools

    tool, keys = _TOOL_OF[options.pitfalls_command]
    answer = PitfallTools(pitfalls).call(tool, _args(options, keys))
    if options.json:
        print(dumps_text(answer.data))
    elif answer.ok:
        print(answer.text)
    if not answer.ok:
        if not options.json:
            print(f"reckoner: {answer.data['error']}", file=sys.stderr)
        return EXIT_REFUSED
    return 0
