"""The help texts the parser shows, drawn from the one contract: each tool's call and
arguments, what each preset serves, what compute takes."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    from typing import Any

    from reckoner.contract.tools import Tool


def signatures(tools: Any) -> list[str]:
    """Each tool's call and its arguments, from the one contract (key? marks an option)."""
    import textwrap

    lines = []
    for tool in tools:
        served = (
            f"   (presets {', '.join(tool.presets)}: its policy and provider apply)"
            if tool.presets
            else ""
        )
        lines.append(f"  {tool.signature()}{served}")
        for argument in tool.arguments:
            text = f"{argument.key}: {argument.description}"
            lines.extend(
                textwrap.wrap(text, 88, initial_indent="      ", subsequent_indent="        ")
            )
    return lines


def call_tools() -> tuple[Tool, ...]:
    """What `reckoner call` takes: the engine's six and search, which runs through the
    engine's gate; compute runs beside the engine and has its own command."""
    from reckoner.contract.engine import TOOLS
    from reckoner.contract.search import SEARCH_TOOL

    return (*TOOLS, SEARCH_TOOL)


def tools_help() -> str:
    """The tools and their argument keys, from the one contract."""
    from reckoner.contract.compute import COMPUTE_TOOL

    lines = [
        "tools and their JSON arguments (key? is optional):",
        *signatures(call_tools()),
    ]
    lines.append(
        """example: reckoner call set '{"name": "R1", "value": {"num": 4700, "dim": "ohm"}}'"""
    )
    lines.append(f"{COMPUTE_TOOL.name} has a command of its own: reckoner {COMPUTE_TOOL.name} run")
    return "\n".join(lines)


def presets_help() -> str:
    """What each preset serves, from the one contract: ``reckoner-with-search adds search``."""
    from reckoner.contract.presets import PURE_PRESET
    from reckoner.contract.registry import added_tools
    from reckoner.contract.search import SEARCH_TOOL
    from reckoner.server.texts import PRESETS

    parts = [f"{PURE_PRESET}: the six tools and the persona"]
    for preset in PRESETS:
        added = [tool.name for tool in added_tools(preset)]
        if added:
            parts.append(f"{preset} adds {' and '.join(added)}")
    return (
        "; ".join(parts) + f" (each added tool brings its rules into the persona; "
        f"{SEARCH_TOOL.name} is configured by ANTHROPIC_API_KEY or OPENAI_API_KEY; "
        f"default: {PURE_PRESET})"
    )


def compute_help() -> str:
    """The compute tool as the contract spells it, for `reckoner compute --help`."""
    from reckoner.contract.compute import COMPUTE_TOOL

    lines = ["the tool these commands call (key? is optional):", *signatures((COMPUTE_TOOL,))]
    lines.append("example: reckoner compute run --engine python --expr '2**10'")
    return "\n".join(lines)
