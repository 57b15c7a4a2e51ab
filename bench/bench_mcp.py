"""Round-trip `eval` calls per second through `reckoner serve` over stdio, against the floor.

The floor is a minimal MCPServer of the same SDK, over the same stdio transport, with one
tool that returns a small dict: what any MCP tool costs before it does any work. Both are
driven by the SDK's own client in this one run, both servers up at once and the calls
alternating between them, so whatever else loads the machine weighs on both sides alike;
the best round of each is kept. Target (issue 4): reckoner within 1.2x of the floor.

    uv run python bench/bench_mcp.py [--calls 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

FORMULA = "@V * @R2 / (@R1 + @R2)"


def run_floor_server() -> None:
    """The floor: one tool, a small dict back, nothing else."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("floor")

    @server.tool()
    def eval(formula: str, target: str) -> dict[str, Any]:
        return {"ok": True, "target": target, "rev": 1}

    server.run("stdio")


async def _prepare(client: Client) -> None:
    await client.call_tool("record_start", {"title": "bench_mcp"})
    for name, num, unit in (("V", 12, "volt"), ("R1", 4700, "ohm"), ("R2", 10000, "ohm")):
        await client.call_tool("set", {"name": name, "value": {"num": num, "dim": unit}})


async def _race(
    floor: StdioServerParameters, reckoner: StdioServerParameters, calls: int
) -> tuple[float, float]:
    """Both servers up at once, calls alternating between them, so load from anything else
    on the machine falls on both sides alike. Returns calls per second of each."""
    args = {"formula": FORMULA, "target": "Vout"}
    async with Client(floor) as floor_client, Client(reckoner) as reckoner_client:
        await _prepare(reckoner_client)
        for _ in range(50):  # warm-up: imports, caches, the listed tool schemas
            await floor_client.call_tool("eval", args)
            await reckoner_client.call_tool("eval", args)
        spent = {"floor": 0.0, "reckoner": 0.0}
        for _ in range(calls):
            for side, client in (("floor", floor_client), ("reckoner", reckoner_client)):
                started = time.perf_counter()
                result = await client.call_tool("eval", args)
                spent[side] += time.perf_counter() - started
                assert not result.is_error, result
    return calls / spent["floor"], calls / spent["reckoner"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--floor-server", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.floor_server:
        run_floor_server()
        return

    floor = StdioServerParameters(
        command=sys.executable, args=[str(Path(__file__).resolve()), "--floor-server"]
    )
    best_floor = 0.0
    best_reckoner = 0.0
    for round_number in range(1, options.rounds + 1):
        with tempfile.TemporaryDirectory(prefix="reckoner-bench-") as home:
            reckoner = StdioServerParameters(
                command=sys.executable, args=["-m", "reckoner", "serve", "--home", home]
            )
            floor_rate, reckoner_rate = anyio.run(_race, floor, reckoner, options.calls)
        best_floor = max(best_floor, floor_rate)
        best_reckoner = max(best_reckoner, reckoner_rate)
        print(
            f"round {round_number}: floor {floor_rate:8.0f} calls/s   "
            f"reckoner eval {reckoner_rate:8.0f} calls/s   "
            f"ratio {floor_rate / reckoner_rate:.2f}x"
        )
    ratio = best_floor / best_reckoner
    print(f"best: floor {best_floor:.0f} calls/s, reckoner eval {best_reckoner:.0f} calls/s")
    print(
        f"ratio (floor / reckoner, round-trip time of reckoner over the floor's): {ratio:.2f}x "
        f"(target <= 1.20x) -> {'met' if ratio <= 1.2 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
