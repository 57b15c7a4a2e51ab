"""`reckoner demo`: a worked calculation driven through the real MCP server, as an agent would.

The demo spawns `reckoner serve` over stdio, connects with the MCP SDK's own client, reads
the persona and the tools the way an agent host does, then makes every call of a worked
example and shows each call beside its receipt.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reckoner.articles.files import ensure_directory
from reckoner.articles.run import ArticleAsk, run_article_job
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive
from reckoner.wire import dumps_text

TITLE = "Worked example: a loaded voltage divider, then a series RLC impedance at 1 kHz"

# (tool, arguments) in the order an agent following the persona and the reckoner-template
# skill makes them: each given quantity transcribed as given, with its unit (the engine
# converts), and each result read in the same call that computes it. A part's message comes
# after its givens are set, so every number it quotes is one a receipt showed (issue 27).
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("record_start", {"title": TITLE}),
    ("set", {"name": "Vin", "value": {"num": 12, "unit": "V"}}),
    ("set", {"name": "R1", "value": {"num": 4.7, "unit": "kOhm"}}),
    ("set", {"name": "R2", "value": {"num": 10, "unit": "kOhm"}}),
    ("set", {"name": "RL", "value": {"num": 22, "unit": "kOhm"}}),
    (
        "record_message",
        {
            "text": "Part 1: 12 V across R1 = 4.7 kOhm over R2 = 10 kOhm, "
            "with a 22 kOhm load across R2."
        },
    ),
    ("record_message", {"text": "The bottom leg is R2 in parallel with RL."}),
    ("eval", {"formula": "@R2 * @RL / (@R2 + @RL)", "target": "Rp"}),
    ("record_message", {"text": "The divider ratio applied to the source gives the output."}),
    ("eval", {"formula": "@Vin * @Rp / (@R1 + @Rp)", "target": "Vout", "read": {"digits": 4}}),
    ("record_message", {"text": "Ohm's law across the load gives the load current."}),
    (
        "eval",
        {"formula": "@Vout / @RL", "target": "IL", "read": {"unit": "mA", "digits": 4}},
    ),
    ("set", {"name": "R", "value": {"num": 100, "unit": "ohm"}}),
    ("set", {"name": "L", "value": {"num": 10, "unit": "mH"}}),
    ("set", {"name": "C", "value": {"num": 1, "unit": "uF"}}),
    ("set", {"name": "f", "value": {"num": 1, "unit": "kHz"}}),
    (
        "record_message",
        {"text": "Part 2: R = 100 ohm, L = 10 mH, C = 1 uF in series at f = 1 kHz."},
    ),
    ("record_message", {"text": "The angular frequency is 2*pi*f."}),
    ("eval", {"formula": "2 * $pi * @f", "target": "w"}),
    ("record_message", {"text": "The series impedance is R + j(wL - 1/(wC))."}),
    (
        "eval",
        {
            "formula": "@R + $j * (@w * @L - 1 / (@w * @C))",
            "target": "Z",
            "read": [{"digits": 4}, {"form": "polar", "digits": 4}],
        },
    ),
    (
        "record_message",
        {"text": "Part 3: the magnitude of the impedance over a sweep of drive frequencies."},
    ),
    ("set", {"name": "fs", "value": {"array": [0.25, 0.5, 1, 1.5, 2, 3, 5], "unit": "kHz"}}),
    (
        "eval",
        {
            "formula": "$abs(@R + $j * (2 * $pi * @fs * @L - 1 / (2 * $pi * @fs * @C)))",
            "target": "Zs",
            "read": {"digits": 4},
        },
    ),
    (
        "record_message",
        {
            "text": "A dimension slip is refused, not computed: adding the "
            "frequency to the impedance."
        },
    ),
    ("eval", {"formula": "@Z + @f", "target": "wrong"}),
    ("record_end", {"text": "filled in from the readings above: see CLOSING"}),
)

# The closing text quotes the results exactly as the readings showed them, as the persona
# asks; each placeholder names the slot its number comes from.
CLOSING = (
    "The loaded divider gives Vout = {Vout} and a load current of {IL}. The series RLC "
    "circuit has Z = {Z} at 1 kHz, that is {Z_polar}: capacitive, since the imaginary "
    "part is negative."
)

# The one call the demo expects the engine to refuse.
EXPECTED_REFUSALS = frozenset({"@Z + @f"})


@dataclass
class Exchange:
    """One call and the receipt it came back with."""

    tool: str
    args: dict[str, Any]
    receipt: dict[str, Any]
    is_error: bool

    @property
    def expected(self) -> bool:
        refused_on_purpose = self.args.get("formula") in EXPECTED_REFUSALS
        return (self.receipt.get("ok") is True) != refused_on_purpose


def quote(value: dict[str, Any]) -> str:
    """A reading as a closing text quotes it: the numbers as given, and the unit it was read
    in (else the stored vector's name)."""
    shown = value.get("unit", value.get("dim"))
    unit = f" {shown}" if isinstance(shown, str) else ""
    if "num" in value:
        return f"{value['num']}{unit}"
    if "re" in value:
        sign = "-" if value["im"] < 0 else "+"
        return f"({value['re']} {sign} {abs(value['im'])}j){unit}"
    if "mag" in value:
        return f"{value['mag']}{unit} at {value['ang']} rad"
    return dumps_text(value)


def _quoted(args: dict[str, Any], value: Any) -> dict[str, str]:
    """The closing text's quotes of one call's reading (or list of readings), each keyed by
    its slot, ``_polar`` added for a polar reading."""
    name = str(args.get("target", args.get("name")))
    reads, values = args["read"], value
    if not isinstance(reads, list):
        reads, values = [reads], [value]
    return {
        name + ("_polar" if read.get("form") == "polar" else ""): quote(shown)
        for read, shown in zip(reads, values, strict=True)
    }


def server_parameters(home: Path) -> StdioServerParameters:
    """How the demo starts the server: this interpreter running `reckoner serve`."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "reckoner", "serve", "--home", str(home)]
    )


async def drive(home: Path, console: Console) -> list[Exchange]:
    """Connect to a fresh `reckoner serve` over stdio and make every call of the example."""
    exchanges: list[Exchange] = []
    async with Client(server_parameters(home)) as client:
        info = client.server_info
        tools = await client.list_tools()
        prompts = await client.list_prompts()
        name = f"{info.name} {info.version}" if info else "reckoner"
        console.print(
            f"Connected to [bold]{escape(name)}[/bold] over stdio: "
            f"{len(tools.tools)} tools ({', '.join(t.name for t in tools.tools)}), "
            f"skills {', '.join(p.name for p in prompts.prompts)}."
        )
        instructions = (client.instructions or "").strip().splitlines()
        if instructions:
            console.print(f"[dim]Persona: {escape(instructions[0][:160])}…[/dim]")
        shown: dict[str, str] = {}
        for tool, planned in CALLS:
            args = {"text": CLOSING.format(**shown)} if tool == "record_end" else planned
            result = await client.call_tool(tool, args)
            receipt = result.structured_content or {}
            exchanges.append(Exchange(tool, args, dict(receipt), bool(result.is_error)))
            if "read" in args and receipt.get("ok") is True:
                shown.update(_quoted(args, receipt["value"]))
            if tool == "record_start" and receipt.get("ok") is not True:
                break  # the home already has an open record: nothing below would belong to it
    return exchanges


def _table(exchanges: list[Exchange]) -> Table:
    table = Table(title="MCP tool calls and their receipts", title_justify="left", show_lines=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("tool", style="bold")
    table.add_column("arguments", overflow="fold")
    table.add_column("receipt", overflow="fold")
    for number, exchange in enumerate(exchanges, start=1):
        ok = exchange.receipt.get("ok") is True
        style = "green" if ok else ("yellow" if exchange.expected else "red")
        table.add_row(
            str(number),
            exchange.tool,
            escape(dumps_text(exchange.args)),
            f"[{style}]{escape(dumps_text(exchange.receipt))}[/{style}]",
        )
    return table


def run_demo(home: Path | None = None, console: Console | None = None) -> int:
    """Run the worked example; 0 when every receipt was as expected, 1 otherwise."""
    console = console or Console(highlight=False)
    if home is None:
        home = Path(tempfile.mkdtemp(prefix="reckoner-demo-"))
    console.print(f"Home: {home}")
    exchanges = anyio.run(drive, home, console)
    console.print(_table(exchanges))
    unexpected = [e for e in exchanges if not e.expected]
    if exchanges and exchanges[0].receipt.get("ok") is not True:
        console.print(
            f"[red]{escape(str(exchanges[0].receipt.get('error')))}[/red]\n"
            "Close that record first (reckoner call record_end '{}' --home ...) "
            "or run the demo without --home."
        )
        return 1
    newest = RecordArchive(HomeLayout(home)).index().closed
    if newest:
        path = HomeLayout(home).record_file(newest[0].id)
        console.print(f"The record is filed at [bold]{escape(str(path))}[/bold]")
        console.print(
            f"See its timeline with: reckoner show {newest[0].id} --home {escape(str(home))}"
        )
        article = write_demo_article(home, newest[0].id, console)
        if article is None:
            return 1
    if unexpected:
        console.print(f"[red]{len(unexpected)} call(s) answered unexpectedly.[/red]")
        return 1
    return 0


def write_demo_article(home: Path, record_id: str, console: Console) -> Path | None:
    """The record written up by the template writer, into ``<home>/articles``."""
    archive = RecordArchive(HomeLayout(home))
    folder = ensure_directory(home / "articles")
    ask = ArticleAsk(record_id, "md", directory=str(folder), writer="template")
    job = run_article_job(archive, ask)
    if job.status != "done" or job.path is None:
        console.print(f"[red]The article could not be written: {escape(job.error or '')}[/red]")
        return None
    console.print(f"The article is written at [bold]{escape(job.path)}[/bold]")
    return Path(job.path)
