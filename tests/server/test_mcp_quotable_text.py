"""Issue 27 over a real MCP client against `reckoner serve`: a complex or an array reading
with `digits` carries its quotable `text`, and `set` takes the reading back through the
tool's input schema unchanged, text and all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_helpers import receipt_of, stdio_params

from reckoner.core.quoting import ANGLE


def test_complex_and_array_readings_with_text_go_back_through_set_over_stdio(
    tmp_path: Path,
) -> None:
    async def run() -> list[dict[str, Any]]:
        receipts = []
        async with Client(stdio_params(tmp_path / "home")) as client:

            async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
                receipt = receipt_of(await client.call_tool(tool, args))
                receipts.append(receipt)
                return receipt

            await call("record_start", {"title": "readings given back"})
            value = {"array": [[1.5, {"re": 3, "im": -4}]], "unit": "mA"}
            await call("set", {"name": "a", "value": value})
            for form in (None, "polar"):
                reading = await call("get", {"name": "a", "unit": "mA", "digits": 4, "form": form})
                await call("set", {"name": "b", "value": reading["value"]})
            z = await call("eval", {"formula": "3-4i", "target": "z", "read": {"digits": 3}})
            await call("set", {"name": "c", "value": z["value"]})
            wrong = {**z["value"], "text": "3.00-4.01i"}
            await call("set", {"name": "d", "value": wrong})
        return receipts

    receipts = anyio.run(run)
    _, _, rect, back, polar, back_polar, z, back_z, refused = receipts
    assert rect["value"]["text"] == [["1.500", "3.000-4.000i"]]
    assert polar["value"]["text"] == [[f"1.500{ANGLE}0.000", f"5.000{ANGLE}-0.9273"]]
    assert z["value"] == {"re": 3, "im": -4, "text": "3.00-4.00i", "dim": "dim-less"}
    assert back["ok"] and back_polar["ok"] and back_z["ok"]
    assert back["value"]["array"] == [[0.0015, {"re": 0.003, "im": -0.004}]]
    assert refused["code"] == "ENGINE_INVALID_ARGS"
    assert "spells re 3.0 and im -4.01" in refused["error"]
