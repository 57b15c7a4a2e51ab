"""How deeply a JSON value nests, measured without recursion (issue 21, case 14).

The MCP SDK reads and writes messages with pydantic, whose JSON parser stops at 200
levels and whose serializer at 255; the engine accepts values nested 200 levels,
which as JSON can be twice as deep. The transport measures depth here to decide, on the way
in, what it reads itself (server.stdio_lines) and, on the way out, which receipts the SDK
can carry as structured content (server.app).
"""

from __future__ import annotations

from typing import Any

MAX_STRUCTURED_DEPTH = 190
"""Deepest receipt sent as structured content. pydantic's serializer refuses a result past
255 levels, and a client built on the same SDK cannot parse a message past 200; the
response and the tool result wrap the receipt in two more levels, so 190 leaves room."""


def nests_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests dicts and lists more than ``limit`` levels (the outermost
    container is level 1)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children: Any
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
