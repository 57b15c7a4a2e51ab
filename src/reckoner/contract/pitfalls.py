"""The pitfalls memory's tools (issues 13 and 26), which the server option ``pitfalls``
switches on, and a lesson's vocabulary.

Light on purpose: the pitfalls hook loads it without the engine's value shapes."""

from __future__ import annotations

from . import limits
from .lessons import PITFALL_STATUSES
from .tools import Argument, JSONSchema, Null, Tool

# -- tools a server option switches on (issue 13) ------------------------------------------

PITFALLS_OPTION = "pitfalls"
"""``reckoner serve --pitfalls`` (any preset) and ``reckoner pitfalls serve``."""


_LINE: JSONSchema = {"type": "string"}
_TAGS: JSONSchema = {"type": "array", "items": {"type": "string"}}
_STATUS: JSONSchema = {"type": "string", "enum": list(PITFALL_STATUSES)}
_LIMIT: JSONSchema = {"type": "integer", "minimum": 1, "maximum": limits.MAX_PITFALL_RESULTS}
_STATUS_TEXT = (
    "solved (the default), workaround (it works but the cause stays) or open (no fix yet)."
)


def _lesson_fields(*, title_required: bool) -> tuple[Argument, ...]:
    def text(key: str, what: str) -> Argument:
        return Argument(key, False, Null.ABSENT, _LINE, what)

    return (
        Argument(
            "title",
            title_required,
            Null.REFUSED if title_required else Null.ABSENT,
            _LINE,
            "The lesson in one line, as you would search for it next time "
            "('eval refuses 2x: write 2*@x'). Cut to 200 characters.",
        ),
        text("area", "Where it happens: a tool, file, module or command. Cut to 200 characters."),
        text("symptom", "What you saw: the failing call and its error, in short."),
        text("cause", "Why it failed, once you know."),
        text("solution", "What works instead: the exact call, flag or step."),
        text("evidence", "The error text or output that proves it, verbatim."),
        Argument(
            "tags",
            False,
            Null.ABSENT,
            _TAGS,
            "Index words you would search by (tool names, error codes); at most 16 of 24 "
            "characters, trimmed and de-duplicated.",
        ),
        Argument("status", False, Null.ABSENT, _STATUS, _STATUS_TEXT),
    )


PITFALL_TOOLS: tuple[Tool, ...] = (
    Tool("pitfall_record", False, _lesson_fields(title_required=True), option=PITFALLS_OPTION),
    Tool(
        "pitfall_search",
        False,
        (
            Argument(
                "query",
                False,
                Null.ABSENT,
                _LINE,
                "Words of the task or the error (tool names, error codes, file names). "
                "Empty lists the most recent lessons.",
            ),
            Argument("tag", False, Null.ABSENT, _LINE, "Only lessons carrying exactly this tag."),
            Argument("limit", False, Null.ABSENT, _LIMIT, "At most this many lessons (default 5)."),
        ),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_update",
        False,
        (
            Argument(
                "id",
                True,
                Null.REFUSED,
                _LINE,
                "The lesson's id, as a record or search answered it (p-YYYYMMDD-HHMMSS-xxxx).",
            ),
            Argument(
                "note",
                False,
                Null.ABSENT,
                _LINE,
                "A dated note appended to the lesson: it happened again, the fix changed.",
            ),
            *(a for a in _lesson_fields(title_required=False)),
        ),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_list",
        False,
        (
            Argument("status", False, Null.ABSENT, _STATUS, "Only lessons with this status."),
            Argument("tag", False, Null.ABSENT, _LINE, "Only lessons carrying exactly this tag."),
            Argument(
                "limit", False, Null.ABSENT, _LIMIT, "At most this many lessons (default 10)."
            ),
        ),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_delete",
        False,
        (Argument("id", True, Null.REFUSED, _LINE, "The id of the lesson to delete."),),
        option=PITFALLS_OPTION,
    ),
    Tool(
        "pitfall_merge",
        False,
        (
            Argument("id", True, Null.REFUSED, _LINE, "The id of the lesson that stays."),
            Argument(
                "duplicate",
                True,
                Null.REFUSED,
                _LINE,
                "The id of the lesson folded into it (its notes, tags and any field the "
                "kept lesson lacks) and then deleted.",
            ),
        ),
        option=PITFALLS_OPTION,
    ),
)
"""The pitfalls memory's tools; served only with the pitfalls option on."""

OPTION_TOOLS: tuple[Tool, ...] = PITFALL_TOOLS
"""Every tool a server option switches on."""

OPTION_TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in OPTION_TOOLS}


def option_tools(options: frozenset[str] | set[str]) -> tuple[Tool, ...]:
    """The tools the given server options switch on, in order."""
    return tuple(tool for tool in OPTION_TOOLS if tool.option in options)
