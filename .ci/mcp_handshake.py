"""An MCP handshake against an installed `reckoner serve`, with the `mcp` SDK that the same
install brought: initialize, tools/list and, when asked, tool calls in order. Prints one JSON
object (the server's name and version, the tool names, each call's structured result) and
exits 1 with a sentence on stderr when the server does not answer.

    python mcp_handshake.py [--call TOOL JSON]... -- COMMAND [ARG...]

Used by .ci/wheel-check and by tests/test_wheel.py, so both check the same thing.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: mcp_handshake.py [--call TOOL JSON]... -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    calls = [
        (options[at + 1], json.loads(options[at + 2]))
        for at in range(0, len(options), 3)
        if options[at] == "--call"
    ]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    answer: dict[str, object] = {}

    async def talk() -> None:
        with anyio.fail_after(120):
            await converse()

    async def converse() -> None:
        async with Client(params) as client:
            info = client.server_info
            answer["server"] = {"name": info.name, "version": info.version} if info else None
            answer["tools"] = [tool.name for tool in (await client.list_tools()).tools]
            answer["calls"] = [
                (await client.call_tool(tool, arguments)).structured_content
                for tool, arguments in calls
            ]

    try:
        anyio.run(talk)
    except Exception as error:  # the check's verdict, not a traceback
        print(f"the MCP handshake failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
