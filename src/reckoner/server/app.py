"""The MCP server: the six tools, the two skills and the persona over the engines it serves.

Built on the SDK's low-level ``Server`` because the engine, not the transport, must judge
every argument: the low-level server hands ``tools/call`` arguments through unvalidated, so
a missing, extra or wrongly typed argument comes back as the engine's receipt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from reckoner import __version__
from reckoner.contract.presets import PURE_PRESET
from reckoner.contract.registry import tools_of
from reckoner.server.held_arguments import HeldArguments
from reckoner.server.in_flight import in_worker
from reckoner.server.json_depth import MAX_STRUCTURED_DEPTH, nests_deeper_than
from reckoner.server.texts import SKILLS, Skill, persona, skill_text
from reckoner.server.tools import DESCRIPTIONS, INPUT_SCHEMAS, TITLES
from reckoner.wire import dumps_text

if TYPE_CHECKING:
    from reckoner.pitfalls.mcp import PitfallsMount

SERVER_NAME = "reckoner"

RESOURCE_NOT_FOUND = -32002
"""The MCP schema's code for an unknown resource URI; ``mcp_types`` names no constant for it."""


class ToolCaller(Protocol):
    """What the server needs of the engine: one call in, one receipt out, never raising."""

    def call(self, tool: str, args: Any) -> dict[str, Any]: ...


@runtime_checkable
class Engines(Protocol):
    """Which engine answers a request: ``OneEngine`` for every session, or a lane of its own
    per session (``reckoner.server.sessions``). Neither ever raises."""

    async def answer(
        self, ctx: ServerRequestContext[Any], tool: str, args: Any
    ) -> dict[str, Any]: ...

    async def answer_beside(
        self, ctx: ServerRequestContext[Any], caller: PresetToolCaller, args: Any
    ) -> dict[str, Any]: ...


class OneEngine:
    """One engine for every session (stdio, and `serve --http --shared-record`).

    No lock of its own: the engine's mutex keeps each row whole and seq in the order of
    appends, and holds it only to read the slots a call needs and to append its row, so a
    lookup or a compute run of one client never holds up another's calls."""

    def __init__(self, engine: ToolCaller) -> None:
        self._engine = engine

    async def answer(self, ctx: ServerRequestContext[Any], tool: str, args: Any) -> dict[str, Any]:
        return await in_worker(ctx, lambda: self._engine.call(tool, args))

    async def answer_beside(
        self, ctx: ServerRequestContext[Any], caller: PresetToolCaller, args: Any
    ) -> dict[str, Any]:
        return await in_worker(ctx, lambda: caller.call(args))


def receipt_result(receipt: dict[str, Any]) -> types.CallToolResult:
    """A receipt as a tool result: structured, as compact JSON text, isError when refused.

    A receipt nesting deeper than the SDK's serializer can write (a deep value echoed by
    `set` or `get`) goes as its text alone, so the call still answers what it did."""
    deep = nests_deeper_than(receipt, MAX_STRUCTURED_DEPTH)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=dumps_text(receipt))],
        structured_content=None if deep else receipt,
        is_error=receipt.get("ok") is not True,
    )


class PresetToolCaller(Protocol):
    """A preset's own tool (compute, search): one call in, one response out, never raising."""

    def call(self, args: Any) -> dict[str, Any]: ...


def _tool(name: str, *, open_world: bool) -> types.Tool:
    return types.Tool(
        name=name,
        title=TITLES[name],
        description=DESCRIPTIONS[name],
        input_schema=INPUT_SCHEMAS[name],
        annotations=types.ToolAnnotations(
            title=TITLES[name],
            read_only_hint=False,
            destructive_hint=name == "record_end",
            idempotent_hint=False,
            open_world_hint=open_world,
        ),
    )


def _tools(preset: str) -> list[types.Tool]:
    # A preset's own tool reaches outside the engine (engines, the network): open world.
    return [_tool(t.name, open_world=bool(t.presets)) for t in tools_of(preset)]


def _find_skill(*, name: str | None = None, uri: str | None = None) -> Skill | None:
    for skill in SKILLS:
        if skill.name == name or skill.uri == uri:
            return skill
    return None


class _ToolHandlers:
    """``tools/list`` and ``tools/call`` of one server: the preset's tools, the preset tools
    answered beside the engine, and the pitfalls memory when it is mounted."""

    def __init__(
        self,
        engines: Engines,
        preset: str,
        held: HeldArguments | None,
        pitfalls: PitfallsMount | None,
        preset_tools: dict[str, PresetToolCaller | None],
    ) -> None:
        served = {tool.name for tool in tools_of(preset)}
        self.own = {
            name: caller
            for name, caller in preset_tools.items()
            if name in served and caller is not None
        }
        self.withheld = frozenset(name for name, caller in preset_tools.items() if caller is None)
        self.tools = [t for t in _tools(preset) if t.name not in self.withheld]
        self.tools += pitfalls.listed if pitfalls is not None else []
        self.engines, self.held, self.pitfalls = engines, held, pitfalls

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        # Absent arguments reach the engine as an empty object so it names what is missing.
        args: Any = {} if params.arguments is None else params.arguments
        if self.held is not None:
            args = self.held.restore(args)
        caller = self.own.get(params.name)
        if caller is not None:
            return receipt_result(await self.engines.answer_beside(ctx, caller, args))
        pitfalls = self.pitfalls
        if pitfalls is None:
            return receipt_result(await self.engines.answer(ctx, params.name, args))
        if pitfalls.handles(params.name):
            return await pitfalls.call(params.name, args)
        from reckoner.pitfalls.mcp import session_key

        receipt = await self.engines.answer(ctx, params.name, args)
        result = receipt_result(receipt)
        text = await anyio.to_thread.run_sync(
            pitfalls.observe, session_key(ctx), params.name, args, receipt
        )
        if text is not None:
            # After the unchanged receipt, so a client reading content[0] still gets it.
            result.content.append(types.TextContent(type="text", text=text))
        return result


async def _list_prompts(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[types.Prompt(name=s.name, description=s.description) for s in SKILLS]
    )


async def _get_prompt(
    ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    skill = _find_skill(name=params.name)
    if skill is None:
        known = ", ".join(s.name for s in SKILLS)
        # An MCPError reaches the client as this JSON-RPC error on every revision; any other
        # exception would be code 0 or "Internal server error" with a traceback.
        raise MCPError(
            types.INVALID_PARAMS,
            f"There is no prompt {params.name!r}; the prompts are: {known}.",
        )
    return types.GetPromptResult(
        description=skill.description,
        messages=[
            types.PromptMessage(
                role="user", content=types.TextContent(type="text", text=skill_text(skill))
            )
        ],
    )


async def _list_resources(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[
            types.Resource(
                name=s.name,
                uri=s.uri,
                description=s.description,
                mime_type="text/markdown",
            )
            for s in SKILLS
        ]
    )


async def _read_resource(
    ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    skill = _find_skill(uri=str(params.uri))
    if skill is None:
        known = ", ".join(s.uri for s in SKILLS)
        raise MCPError(
            RESOURCE_NOT_FOUND,
            f"There is no resource {str(params.uri)!r}; the resources are: {known}.",
        )
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(
                uri=skill.uri, mime_type="text/markdown", text=skill_text(skill)
            )
        ]
    )


def build_server(
    engine: ToolCaller | Engines,
    *,
    preset: str = PURE_PRESET,
    held: HeldArguments | None = None,
    pitfalls: PitfallsMount | None = None,
    preset_tools: dict[str, PresetToolCaller | None] | None = None,
) -> Server[Any]:
    """The MCP server over ``engine``: one engine every session shares, or ``Engines`` that
    pick the calling session's own (``reckoner.server.sessions``).

    The preset decides the tools listed. A preset tool answered by the engine (``search``)
    works once the engine has it attached (``reckoner.server.run`` does for its preset);
    ``preset_tools`` answers the others (``compute``) by name beside the engine, not under its
    lock, so a long computation never holds up set, get or eval, and a tool mapped to None is
    switched off and not listed. ``held`` gives back the arguments its transport rewriter held
    aside (lone surrogates). With ``pitfalls`` (``serve --pitfalls``) it also lists the
    pitfall_* tools, adds the prevention rule to the instructions, and appends a reminder to a
    failing result when the detector fires.
    """
    engines = engine if isinstance(engine, Engines) else OneEngine(engine)
    handlers = _ToolHandlers(engines, preset, held, pitfalls, preset_tools or {})
    instructions = persona(preset, handlers.withheld)
    if pitfalls is not None:
        instructions += "\n\n" + pitfalls.instructions
    return Server(
        SERVER_NAME,
        version=__version__,
        title="reckoner: dimension-checked calculation engine",
        instructions=instructions,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
        on_list_resources=_list_resources,
        on_read_resource=_read_resource,
    )
