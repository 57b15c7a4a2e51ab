"""The memory over MCP: the tools and the automatic reminder, mounted into
``reckoner serve --pitfalls`` or served alone by ``reckoner pitfalls serve``.

The reminder rides on the failing tool's own result, as one more text content item after
the unchanged receipt, so every client shows it to the model with no extra round trip.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext

from reckoner.contract.pitfalls import PITFALL_TOOLS
from reckoner.contract.tools import Tool, property_schema
from reckoner.version import __version__
from reckoner.wire import dumps_text

from .detector import Detector, build_clue
from .render import reminder
from .texts import DESCRIPTIONS, PREVENTION_RULE, STANDALONE_RULE, TITLES
from .tiers import Pitfalls
from .tools import TOOL_NAMES, Answer, PitfallTools

REMINDER_LESSONS = 3
STANDALONE_NAME = "reckoner-pitfalls"


def _input_schema(tool: Tool) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {a.key: property_schema(a) for a in tool.arguments},
        "required": list(tool.required),
        "additionalProperties": False,
    }


def _listed(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=TITLES[tool.name],
        description=DESCRIPTIONS[tool.name],
        input_schema=_input_schema(tool),
        annotations=types.ToolAnnotations(
            title=TITLES[tool.name],
            read_only_hint=tool.name in ("pitfall_search", "pitfall_list"),
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )


def answer_result(answer: Answer) -> types.CallToolResult:
    """An answer as a tool result: the readable text first, the JSON twin beside it."""
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text=answer.text),
            types.TextContent(type="text", text=dumps_text(answer.data)),
        ],
        structured_content=answer.data,
        is_error=not answer.ok,
    )


class PitfallsMount:
    """The tools, the detector and the prevention rule for one server process."""

    def __init__(self, pitfalls: Pitfalls) -> None:
        self.pitfalls = pitfalls
        self.tools = PitfallTools(pitfalls)
        self.detector = Detector()
        self.instructions = PREVENTION_RULE
        self.listed = [_listed(tool) for tool in PITFALL_TOOLS]
        # Sessions of an HTTP server call in from several worker threads at once.
        self._lock = threading.Lock()

    @staticmethod
    def handles(tool: str) -> bool:
        return tool in TOOL_NAMES

    def call_now(self, tool: str, args: Any) -> types.CallToolResult:
        with self._lock:
            return answer_result(self.tools.call(tool, args))

    async def call(self, tool: str, args: Any) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(self.call_now, tool, args)

    def observe(self, session: str, tool: str, args: Any, receipt: dict[str, Any]) -> str | None:
        """Feed one finished call to the detector; the reminder text when one fires."""
        with self._lock:
            if receipt.get("ok") is True:
                self.detector.success(session, tool)
                return None
            if not self.detector.failure(session, tool, time.time()):
                return None
            clue = build_clue(args, (receipt.get("code"), receipt.get("error")))
            hits = self.pitfalls.search(clue, limit=REMINDER_LESSONS, failed_tool=tool)
            return reminder(
                [hit.entry for hit in hits],
                tool,
                [hit.library.card_path(hit.entry["id"]) for hit in hits],
            )

    def forget(self, session: str) -> None:
        with self._lock:
            self.detector.forget(session)


def session_key(ctx: ServerRequestContext[Any]) -> str:
    """The detector's session for a request: the HTTP session id when the transport has one,
    else the process (a stdio server serves one client for its whole life).

    The SDK builds its session and connection objects per request, so neither identifies
    a conversation; the ``Mcp-Session-Id`` header does.
    """
    headers = getattr(ctx.request, "headers", None)
    session_id = headers.get("mcp-session-id") if headers is not None else None
    return f"http-{session_id}" if session_id else "process"


def build_standalone_server(mount: PitfallsMount) -> Server[Any]:
    """An MCP server with the memory only: its tools and the prevention rule."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=mount.listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        args: Any = {} if params.arguments is None else params.arguments
        if not mount.handles(params.name):
            return answer_result(
                Answer(
                    {
                        "ok": False,
                        "code": "PITFALL_INVALID_ARGS",
                        "error": f"unknown tool {params.name[:60]!r}; the tools are "
                        f"{', '.join(TOOL_NAMES)}",
                    },
                    f"unknown tool {params.name[:60]!r}; the tools are {', '.join(TOOL_NAMES)}",
                )
            )
        return await mount.call(params.name, args)

    return Server(
        STANDALONE_NAME,
        # The package's own version: the distribution is named reckoner-mcp, not reckoner.
        version=__version__,
        title="reckoner pitfalls: lessons learned from tool failures",
        instructions=STANDALONE_RULE,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_standalone(home: Path, *, project: Path | str | None, project_dir: str | None) -> None:
    """``reckoner pitfalls serve``: the memory alone, over stdio."""
    from mcp.server.stdio import stdio_server

    server = build_standalone_server(
        PitfallsMount(Pitfalls.open(home, project=project, project_dir=project_dir))
    )

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
