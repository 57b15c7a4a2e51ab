"""Which tools each preset serves: the six engine tools, then the preset's own."""

from __future__ import annotations

from .compute import COMPUTE_TOOL
from .engine import TOOL_BY_NAME, TOOLS
from .presets import PURE_PRESET
from .search import SEARCH_TOOL
from .tools import Tool

PRESET_TOOLS: tuple[Tool, ...] = (SEARCH_TOOL, COMPUTE_TOOL)
"""Tools that exist only in the presets that name them, in the order a preset lists them."""

PRESET_TOOL_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in PRESET_TOOLS}
ANY_TOOL_BY_NAME: dict[str, Tool] = {**TOOL_BY_NAME, **PRESET_TOOL_BY_NAME}
"""Every tool any preset serves, by name."""

PRESET_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            PURE_PRESET,
            *(tool.presets[0] for tool in PRESET_TOOLS),
            *(name for tool in PRESET_TOOLS for name in tool.presets),
        ]
    )
)
"""Every preset, from the tools: the pure one, the one-tool presets, then the combined."""


def added_tools(preset: str) -> tuple[Tool, ...]:
    """The tools a preset adds to the six, in ``PRESET_TOOLS`` order."""
    return tuple(tool for tool in PRESET_TOOLS if preset in tool.presets)


def tools_of(preset: str) -> tuple[Tool, ...]:
    """The tools one preset serves, in order: the six, then the preset's own."""
    return TOOLS + added_tools(preset)
