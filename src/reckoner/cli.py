"""The `reckoner` command line: one entry point for calls, records, the servers and the demo.

Every failure a user can cause ends in one sentence on stderr and exit code 2, never a
traceback; `call` exits 1 when the engine refused the call.
"""

from __future__ import annotations

import os
import sys

from reckoner import __version__

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from reckoner.contract.tools import Tool

EXIT_REFUSED = 1
EXIT_USAGE = 2

PANEL_PORT = 8765


class CliError(Exception):
    """A failure the user can fix; the message is the one sentence printed."""


# ---------------------------------------------------------------------------------------
# The parser


def _port(text: str) -> int:
    """A TCP port for argparse: 0 (pick a free one) to 65535."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port; give a number from 1 to 65535, or 0 for a free one"
        )
    return port


def _add_home(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="the engine's home directory (default: $RECKONER_HOME, else ~/.reckoner)",
    )


def _add_compute_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="compute's project root, where Computation/ is kept (default: the working directory)",
    )
    parser.add_argument(
        "--compute-mode", choices=("off", "auto", "on"), help="compute's mode (default: auto)"
    )
    parser.add_argument(
        "--compute-engines",
        metavar="LIST",
        help="comma-separated engines compute may use, in probe order",
    )
    parser.add_argument(
        "--compute-timeout-ms", type=int, metavar="MS", help="a run's time limit (default 60000)"
    )
    parser.add_argument(
        "--compute-network",
        choices=("on", "off"),
        help="off runs engines without network where the machine can enforce it",
    )


def _compute_options(options: argparse.Namespace) -> dict[str, Any]:
    engines = options.compute_engines
    return {
        "mode": options.compute_mode,
        "engines": engines.split(",") if engines else None,
        "timeoutMs": options.compute_timeout_ms,
        "network": options.compute_network,
    }


def _signatures(tools: Any) -> list[str]:
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


def _call_tools() -> tuple[Tool, ...]:
    """What `reckoner call` takes: the engine's six and search, which runs through the
    engine's gate; compute runs beside the engine and has its own command."""
    from reckoner.contract.engine import TOOLS
    from reckoner.contract.search import SEARCH_TOOL

    return (*TOOLS, SEARCH_TOOL)


def _tools_help() -> str:
    """The tools and their argument keys, from the one contract."""
    from reckoner.contract.compute import COMPUTE_TOOL

    lines = [
        "tools and their JSON arguments (key? is optional):",
        *_signatures(_call_tools()),
    ]
    lines.append(
        """example: reckoner call set '{"name": "R1", "value": {"num": 4700, "dim": "ohm"}}'"""
    )
    lines.append(f"{COMPUTE_TOOL.name} has a command of its own: reckoner {COMPUTE_TOOL.name} run")
    return "\n".join(lines)


def _presets_help() -> str:
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


def _add_lane(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lane",
        metavar="N",
        help=(
            "the lane (1-64) whose open record this engine holds (default: $RECKONER_LANE, "
            "else the lowest lane with an open record nobody holds, else the lowest free lane)"
        ),
    )


def _compute_help() -> str:
    """The compute tool as the contract spells it, for `reckoner compute --help`."""
    from reckoner.contract.compute import COMPUTE_TOOL

    lines = ["the tool these commands call (key? is optional):", *_signatures((COMPUTE_TOOL,))]
    lines.append("example: reckoner compute run --engine python --expr '2**10'")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line; `reckoner --help` lists every command."""
    import argparse

    from reckoner.articles.settings import REMEMBERED
    from reckoner.contract.presets import PURE_PRESET
    from reckoner.server.defaults import DEFAULT_HTTP_PORT
    from reckoner.server.texts import PRESETS

    parser = argparse.ArgumentParser(
        prog="reckoner",
        description=(
            "A deterministic, dimension-checked calculation engine for LLM agents, "
            "with a crash-safe record of every call."
        ),
        epilog="Run 'reckoner COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"reckoner {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    call = commands.add_parser(
        "call",
        help="make one engine call on the home and print its receipt as JSON",
        description=(
            f"Make one call ({', '.join(tool.name for tool in _call_tools())}) on the home's "
            "engine and print the receipt as JSON. Exit code 1 when the engine refused."
        ),
        epilog=_tools_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    call.add_argument("tool", metavar="TOOL", help=" | ".join(t.name for t in _call_tools()))
    call.add_argument(
        "args", metavar="JSON", help="the arguments as one JSON object ('-' reads stdin)"
    )
    _add_home(call)
    _add_lane(call)

    records = commands.add_parser("records", help="list the records of the home")
    records.add_argument("--json", action="store_true", help="print the list as JSON")
    _add_home(records)

    show = commands.add_parser("show", help="render one record's timeline in the terminal")
    show.add_argument("id", help="the record identifier (see 'reckoner records')")
    show.add_argument("--json", action="store_true", help="print the record as JSON instead")
    _add_home(show)

    serve = commands.add_parser(
        "serve",
        help="run the MCP server (stdio, or streamable HTTP on loopback)",
        description=(
            "Run the MCP server with the six tools, the two skills and the persona. "
            "Speaks MCP over stdio unless --http is given. Logs go to stderr and the home's "
            "logs/, never to stdout."
        ),
    )
    serve.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    serve.add_argument(
        "--host", default="127.0.0.1", help="loopback address for --http (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_HTTP_PORT,
        help=f"port for --http (default {DEFAULT_HTTP_PORT}; 0 picks a free one)",
    )
    serve.add_argument(
        "--token",
        help="with --http: refuse (401) every request without Authorization: Bearer <token> "
        "(default: RECKONER_HTTP_TOKEN; unset, no token is asked); a flag is visible to other "
        "users in the process list, the variable is not",
    )
    serve.add_argument(
        "--shared-record",
        action="store_true",
        help="with --http: one engine and one open record for every session (default: each "
        "session its own lane, record and slots)",
    )
    serve.add_argument(
        "--pitfalls",
        action="store_true",
        help="also serve the pitfalls memory (pitfall_* tools, reminders after repeated failures)",
    )
    serve.add_argument(
        "--pitfalls-project-dir",
        metavar="PATH",
        default=None,
        help="with --pitfalls: the project library under the working directory "
        "(default .reckoner/pitfalls; '' uses the global library only)",
    )
    serve.add_argument(
        "--preset",
        choices=PRESETS,
        default=PURE_PRESET,
        help=_presets_help(),
    )
    _add_compute_options(serve)
    _add_home(serve)
    _add_lane(serve)

    demo = commands.add_parser(
        "demo",
        help="run a worked calculation through the real MCP server, as an agent would",
        description=(
            "Start 'reckoner serve' over stdio, drive a worked calculation through it (a loaded "
            "voltage divider, then a series RLC impedance) and show every call and receipt. "
            "Uses a fresh home under the temp directory unless --home is given."
        ),
    )
    _add_home(demo)

    article = commands.add_parser(
        "article",
        help="write a closed record up as a Markdown or LaTeX solution article",
        description=(
            "Write a closed record up as a standalone solution article. Every number in it is "
            "audited against the record (each number beside a quantity against that quantity, "
            "the record's own prose against what the engine computed); every finding is "
            "listed as a warning. "
            "A flag left out takes the remembered generation setting (the panel's Settings, "
            "Generation): "
            + "; ".join(f"{setting} ({flag})" for setting, flag in REMEMBERED)
            + ". A flag given overrides it. The format is not remembered: each format has "
            "its own settings, so --format picks which ones apply."
        ),
    )
    article.add_argument("id", help="the record identifier (see 'reckoner records')")
    article.add_argument("--format", choices=("md", "tex"), default="md", help="default: md")
    article.add_argument(
        "--out",
        metavar="DIR",
        help="the output directory (default: the format's remembered one, else the current one)",
    )
    article.add_argument(
        "--name", metavar="FILE", help="the file name (default: reckoner-<first 8 of the id>)"
    )
    article.add_argument(
        "--language",
        choices=("auto", "en", "zh-CN"),
        help="default: the format's remembered language, else auto",
    )
    article.add_argument(
        "--writer",
        choices=("template", "openai", "anthropic"),
        help="template (no model) or a model provider; default: the remembered writer",
    )
    article.add_argument(
        "--model", help="the provider's model name; default: the remembered writer's model"
    )
    article.add_argument(
        "--base-url",
        help="the provider's base URL (OpenAI-compatible servers); default: the remembered one",
    )
    article.add_argument(
        "--compile",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="compile the LaTeX article to PDF with XeLaTeX; default: the remembered choice",
    )
    _add_home(article)

    compute = commands.add_parser(
        "compute",
        help="probe the engines, run code with a receipt, or re-check a receipt",
        description=(
            "The compute tool from the command line: 'probe' lists the engines, 'run' runs "
            "code, a project file or one expression and archives a receipt under "
            "<project>/Computation/, 'receipt' re-checks an archived run. Prints the "
            "response as JSON; exit code 1 when it was refused. A run made while the home "
            "has an open record is also a row of it."
        ),
        epilog=_compute_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = compute.add_subparsers(dest="compute_op", metavar="OP", required=True)
    compute_probe = steps.add_parser("probe", help="list the engines found on this machine")
    compute_probe.add_argument("--engine", help="probe this engine only")
    compute_run = steps.add_parser("run", help="run code and archive a receipt")
    compute_run.add_argument("--engine", required=True, help="python, r, octave, julia, ...")
    source = compute_run.add_mutually_exclusive_group(required=True)
    source.add_argument("--code", help="the script's text ('-' reads stdin)")
    source.add_argument("--file", help="a file inside the project")
    source.add_argument("--expr", help="one expression")
    compute_run.add_argument("--package", action="append", default=[], help="a package it needs")
    compute_run.add_argument("--capture", action="append", default=[], help="a file to capture")
    compute_run.add_argument("--timeout-ms", type=int, help="the run's time limit")
    compute_receipt = steps.add_parser("receipt", help="re-check an archived run")
    compute_receipt.add_argument("id", help="the runId (or Computation/<runId>)")
    for step in (compute_probe, compute_run, compute_receipt):
        step.add_argument(
            "--project", metavar="DIR", help="the project root (default: the working directory)"
        )
        _add_home(step)

    panel = commands.add_parser("panel", help="run the local web panel over the home's records")
    panel.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    panel.add_argument(
        "--port", type=_port, default=PANEL_PORT, help=f"port (default {PANEL_PORT})"
    )
    panel.add_argument("--open", action="store_true", help="open the panel in the browser")
    panel.add_argument(
        "--token",
        help="the panel's access token (default: RECKONER_PANEL_TOKEN, else a new one per "
        "launch); a flag is visible to other users in the process list, the variable is not",
    )
    _add_home(panel)

    doctor = commands.add_parser(
        "doctor",
        help="say what is installed and how the home is, for a bug report",
        description=(
            "Print the version, the installed extras, the compute engines, TeX, Chromium and "
            "pdftoppm found, which provider keys are set (named, never shown) and the home's "
            "health (open records, unreadable records, free space). Only reads; never fails."
        ),
    )
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    _add_home(doctor)

    from reckoner.pitfalls.cli import add_parser as add_pitfalls_parser

    add_pitfalls_parser(commands)
    return parser


# ---------------------------------------------------------------------------------------
# Rendering values and rows for the terminal


def _number(x: Any) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    return str(x)


def _dim_text(dim: Any) -> str:
    """The unit after a stored value, spelled as the articles and the panel spell it."""
    from reckoner.contract.dimensions import ROW_BY_NAME
    from reckoner.core.dimensions import integers
    from reckoner.units.spelling import spell_vector

    if dim is None:
        return ""
    if isinstance(dim, str):
        row = ROW_BY_NAME.get(dim)
        shown = spell_vector(integers(row.vector)) if row else dim
        return f" {shown}" if shown else ""
    if isinstance(dim, list) and len(dim) == 7 and all(type(x) is int for x in dim):
        shown = spell_vector(dim)
        return f" {shown}" if shown else ""
    return f" {dim}"


def _unit_text(unit: str) -> str:
    """A unit as written (``kOhm``), in SI symbols (``kΩ``) as the articles spell it."""
    from reckoner.units.spelling import spell_written

    return spell_written(unit)


def _bare(element: Any) -> str:
    if isinstance(element, list):
        return "[" + ", ".join(_bare(e) for e in element) + "]"
    if isinstance(element, dict):
        return _scalar(element)
    return _number(element)


def _scalar(value: dict[str, Any]) -> str:
    if "num" in value:
        return _number(value["num"])
    if "re" in value and "im" in value:
        im = value["im"]
        sign = "-" if isinstance(im, int | float) and im < 0 else "+"
        size = -im if sign == "-" else im
        return f"{_number(value['re'])} {sign} {_number(size)}j"
    if "mag" in value and "ang" in value:
        return f"{_number(value['mag'])} ∠ {_number(value['ang'])} rad"
    return str(value)


def format_value(value: Any) -> str:
    """A tagged value (as in receipts and rows) in one readable line: ``4700 ohm``; a reading
    in a unit (``{"num": 30.64, "unit": "mW", "dim": "watt"}``) shows that unit, since its
    numbers are in it; a list of readings shows each, in order."""
    if value is None:
        return "(deleted)"
    if isinstance(value, list):
        return "; ".join(format_value(item) for item in value)
    if not isinstance(value, dict):
        return str(value)
    if "object" in value and isinstance(value["object"], dict):
        fields = ", ".join(f"{k}: {format_value(v)}" for k, v in value["object"].items())
        return "{" + fields + "}"
    unit = value.get("unit")
    shown = f" {_unit_text(unit)}" if isinstance(unit, str) else _dim_text(value.get("dim"))
    if "array" in value:
        return _bare(value["array"]) + shown
    if "mag" in value and "ang" in value:
        return f"{_number(value['mag'])}{shown} ∠ {_number(value['ang'])} rad"
    return _scalar(value) + shown


def _time(at: Any) -> str:
    if not isinstance(at, int | float):
        return "-"
    from datetime import datetime

    return datetime.fromtimestamp(at / 1000).strftime("%Y-%m-%d %H:%M:%S")


def _row_lines(row: dict[str, Any]) -> tuple[str, str]:
    """The tool label and the body of one trace row, as Rich markup."""
    from rich.markup import escape

    tool = str(row.get("tool", "?"))
    content = row.get("content")
    body: dict[str, Any] = content if isinstance(content, dict) else {}
    if tool == "search" and "outcome" in body:
        return _lookup_lines(body)
    if row.get("ok") is not True and not (tool == "compute" and "runId" in body):
        code = escape(str(body.get("code", "")))
        error = escape(str(body.get("error", "")))
        return f"[dim]{escape(tool)} ✗[/dim]", f"[dim]{code}: {error}[/dim]"
    if tool == "record_start":
        return "[bold]record_start[/bold]", f"[bold]{escape(str(body.get('title', '')))}[/bold]"
    if tool == "record_message":
        hidden = " [dim](note for the article)[/dim]" if body.get("hide") else ""
        return "message", f"[italic]{escape(str(body.get('text', '')))}[/italic]{hidden}"
    if tool == "record_end":
        text = body.get("text")
        return "[bold]record_end[/bold]", escape(
            str(text)
        ) if text else "[dim](no closing text)[/dim]"
    if tool == "set":
        given = body.get("unit")
        written = (
            f" [dim](given in {escape(_unit_text(given))})[/dim]" if isinstance(given, str) else ""
        )
        value = escape(format_value(body.get("value")))
        line = f"{escape(str(body.get('name')))} = {value}{written}"
        return "set", line + _read_line(body, "reading")
    if tool == "get":
        return "get", f"{escape(str(body.get('name')))} → {escape(format_value(body.get('value')))}"
    if tool == "eval":
        lines = [
            f"[cyan]{escape(str(body.get('formula', '')))}[/cyan]",
            f"  → {escape(str(body.get('target')))} (rev {escape(str(body.get('rev')))}) = "
            f"[green]{escape(format_value(body.get('result')))}[/green]",
        ]
        variables = body.get("vars")
        if isinstance(variables, dict):
            for name, held in variables.items():
                lines.append(f"  [dim]@{escape(str(name))} = {escape(format_value(held))}[/dim]")
        return "eval", "\n".join(lines) + _read_line(body, "value")
    if tool == "compute" and "runId" in body:
        return "compute", _compute_row_text(body)
    from reckoner.wire import dumps_text

    return escape(tool), escape(dumps_text(body))


def _read_line(body: dict[str, Any], key: str) -> str:
    """The reading a `read` asked for in the same call (a set row keeps it as ``reading``, an
    eval row as ``value``), on a line of its own: what the model was shown and quoted."""
    from rich.markup import escape

    if key not in body:
        return ""
    return f"\n  read → [green]{escape(format_value(body[key]))}[/green]"


_LOOKUP_ACCENT = {"answered": "green", "insufficient": "yellow", "refused": "yellow"}


def _lookup_lines(body: dict[str, Any]) -> tuple[str, str]:
    """A `search` row (manual 12.5): the question, the answer or its sentence, the sources."""
    from rich.markup import escape

    outcome = str(body.get("outcome"))
    accent = _LOOKUP_ACCENT.get(outcome, "red")
    lines = [f"[bold]{escape(str(body.get('question', '')))}[/bold]"]
    synthesis = body.get("synthesis")
    answer = synthesis.get("answer") if isinstance(synthesis, dict) else None
    if outcome == "answered" and isinstance(answer, str):
        lines.append(f"  → [green]{escape(answer)}[/green]")
    else:
        code = escape(str(body.get("code") or outcome))
        lines.append(f"  [{accent}]{code}: {escape(str(body.get('error', '')))}[/{accent}]")
    used = [s for s in body.get("used") or () if isinstance(s, dict)]
    cited = body.get("candidates")
    if used or cited:
        total = len(cited) if isinstance(cited, list) else len(used)
        lines.append(f"  [dim]Sources ({len(used)} of {total} cited):[/dim]")
        for source in used:
            title = source.get("title")
            shown = f"{title} — {source.get('url')}" if title else str(source.get("url"))
            lines.append(f"    [dim]{escape(shown)}[/dim]")
    tier = body.get("tier")
    label = f"[{accent}]search[/{accent}]" + (f" [dim]({escape(str(tier))})[/dim]" if tier else "")
    return label, "\n".join(lines)


def _compute_row_text(body: dict[str, Any]) -> str:
    """A compute run in a few lines: engine, exit, duration, receipt, the output's end."""
    from rich.markup import escape

    exit_text = "timed out" if body.get("timedOut") else f"exit {body.get('exit')}"
    lines = [
        f"{escape(str(body.get('engine')))} {escape(str(body.get('version') or ''))}: "
        f"{exit_text}, {escape(str(body.get('durationMs')))} ms, attempt {body.get('attempt')}",
        f"  [dim]receipt {escape(str(body.get('receipt')))}[/dim]",
    ]
    tail = body.get("stdoutTail")
    if isinstance(tail, str) and tail:
        lines.extend(f"  [green]{escape(line)}[/green]" for line in tail.splitlines())
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# The commands


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def _read_json_argument(text: str) -> Any:
    from reckoner.wire import loads

    if text == "-":
        text = sys.stdin.read()
    try:
        return loads(text)
    except ValueError as exc:
        raise CliError(
            f"the arguments are not valid JSON ({exc}); pass one JSON object, "
            """for example '{"title": "Ohm's law"}'"""
        ) from None


def _open_engine(home: str | None, lane: str | None) -> Any:
    from reckoner.service import Engine

    return Engine(home=home, lane=lane)


def cmd_call(options: argparse.Namespace) -> int:
    from reckoner.contract.search import SEARCH_TOOL
    from reckoner.wire import dumps_text

    args = _read_json_argument(options.args)
    with _open_engine(options.home, options.lane) as engine:
        if options.tool == SEARCH_TOOL.name:
            from reckoner.lookup.service import attach_search

            attach_search(engine)
        receipt: dict[str, Any] = engine.call(options.tool, args)
    print(dumps_text(receipt))
    return 0 if receipt.get("ok") is True else EXIT_REFUSED


def _archive(home: str | None) -> Any:
    from reckoner.storage.home import HomeLayout, resolve_home
    from reckoner.storage.record_archive import RecordArchive

    root = resolve_home(home)
    if not root.is_dir():
        raise CliError(
            f"no reckoner home at {root}; run 'reckoner demo' or 'reckoner serve' first, "
            "or pass --home"
        )
    return RecordArchive(HomeLayout(root))


def cmd_records(options: argparse.Namespace) -> int:
    from reckoner.wire import dumps_text

    listing: dict[str, Any] = _archive(options.home).index_json()
    if options.json:
        print(dumps_text(listing))
        return 0
    from rich.table import Table

    console = _console()
    table = Table(title="records", title_justify="left")
    table.add_column("id", style="bold")
    table.add_column("state")
    table.add_column("opened")
    table.add_column("ended")
    table.add_column("title")
    for opened in listing.get("openRecords", []):
        lane = opened.get("lane")
        table.add_row(
            opened["id"],
            "[yellow]open[/yellow]" + (f" (lane {lane})" if lane != 1 else ""),
            _time(opened.get("openedAt")),
            "",
            str(opened.get("title") or ""),
        )
    for entry in listing.get("closed", []):
        table.add_row(
            entry["id"],
            "closed",
            _time(entry.get("openedAt")),
            _time(entry.get("endedAt")),
            str(entry.get("title") or ""),
        )
    for record_id in listing.get("unreadable", []):
        table.add_row(record_id, "[red]unreadable[/red]", "", "", "")
    if table.row_count == 0:
        console.print("No records yet. Run 'reckoner demo' to make one.")
    else:
        console.print(table)
    return 0


def cmd_show(options: argparse.Namespace) -> int:
    from reckoner.wire import dumps_text

    record: dict[str, Any] | None = _archive(options.home).read_json(options.id)
    if record is None:
        raise CliError(
            f"no readable record {options.id!r} in this home; 'reckoner records' lists the ids"
        )
    if options.json:
        print(dumps_text(record))
        return 0
    from rich.markup import escape
    from rich.table import Table

    console = _console()
    state = "open" if record.get("open") else f"closed {_time(record.get('endedAt'))}"
    console.print(
        f"[bold]{escape(str(record.get('title') or '(untitled)'))}[/bold]\n"
        f"[dim]record {escape(str(record['id']))} · opened {_time(record.get('openedAt'))} · "
        f"{state}[/dim]"
    )
    table = Table(show_header=True, box=None, padding=(0, 1))
    table.add_column("#", justify="right", style="dim")
    table.add_column("tool")
    table.add_column("")
    for row in record.get("rows", []):
        label, body = _row_lines(row)
        table.add_row(str(row.get("seq", "")), label, body)
    console.print(table)
    return 0


def cmd_serve(options: argparse.Namespace) -> int:
    from reckoner.access import HTTP_TOKEN_VARIABLE, TokenError, chosen_token
    from reckoner.server.run import ServeError, serve

    if options.token is not None and not options.http:
        raise CliError("--token guards the HTTP transport only; add --http, or leave it out.")
    try:
        token = chosen_token(options.token, HTTP_TOKEN_VARIABLE) if options.http else None
    except TokenError as unusable:
        raise CliError(str(unusable)) from None
    try:
        serve(
            options.home,
            pitfalls=options.pitfalls,
            pitfalls_project_dir=options.pitfalls_project_dir,
            http=options.http,
            http_token=token,
            host=options.host,
            port=options.port,
            preset=options.preset,
            lane=options.lane,
            project=options.project,
            compute_options=_compute_options(options),
            shared_record=options.shared_record,
        )
    except ServeError as exc:
        raise CliError(str(exc)) from None
    return 0


def _compute_arguments(options: argparse.Namespace) -> dict[str, Any]:
    if options.compute_op == "probe":
        return {"op": "probe", "engine": options.engine}
    if options.compute_op == "receipt":
        return {"op": "receipt", "file": options.id}
    mode = "code" if options.code is not None else "file" if options.file is not None else "expr"
    text = {"code": options.code, "file": options.file, "expr": options.expr}[mode]
    if mode == "code" and text == "-":
        text = sys.stdin.read()
    return {
        "op": "run",
        "engine": options.engine,
        "mode": mode,
        mode: text,
        "packages": options.package or None,
        "captureFiles": options.capture or None,
        "timeoutMs": options.timeout_ms,
    }


def cmd_compute(options: argparse.Namespace) -> int:
    from reckoner.compute.mount import mount
    from reckoner.contract.compute import COMPUTE_TOOL
    from reckoner.storage.home import resolve_home
    from reckoner.storage.home_lock import HomeLockedError
    from reckoner.wire import dumps_text

    args = {k: v for k, v in _compute_arguments(options).items() if v is not None}
    home = resolve_home(options.home)
    engine = None
    if args["op"] == "run":
        try:
            engine = _open_engine(options.home, None)
        except HomeLockedError:
            print(
                "reckoner: the home is in use by a running server, so this run is not added "
                "to its open record",
                file=sys.stderr,
            )
    try:
        row = None
        if engine is not None:
            opened = engine

            def row(ok: bool, content: dict[str, Any]) -> None:
                opened.append_preset_row(COMPUTE_TOOL.name, ok, content)

        def log(message: str) -> None:
            print(f"reckoner: {message}", file=sys.stderr)

        service = mount(home, project=options.project, row_sink=row, log=log)
        response = service.call(args)
    finally:
        if engine is not None:
            engine.close()
    print(dumps_text(response))
    return 0 if response.get("ok") is True else EXIT_REFUSED


def cmd_demo(options: argparse.Namespace) -> int:
    from pathlib import Path

    from reckoner.demo import run_demo

    return run_demo(Path(options.home) if options.home else None)


def cmd_article(options: argparse.Namespace) -> int:
    from reckoner.articles.run import print_job, run_article_job

    job = run_article_job(
        _archive(options.home),
        record_id=options.id,
        format_name=options.format,
        directory=options.out,
        file_name=options.name,
        language=options.language,
        writer=options.writer,
        model=options.model,
        base_url=options.base_url,
        compile_pdf=options.compile,
        console=_console(stderr=True),
    )
    return print_job(job, _console(), _console(stderr=True))


def cmd_panel(options: argparse.Namespace) -> int:
    from reckoner.access import PANEL_TOKEN_VARIABLE, TokenError, chosen_token
    from reckoner.panel.app import run_panel
    from reckoner.storage.home import resolve_home

    try:
        token = chosen_token(options.token, PANEL_TOKEN_VARIABLE)
    except TokenError as unusable:
        raise CliError(str(unusable)) from None
    run_panel(resolve_home(options.home), options.host, options.port, options.open, token)
    return 0


def cmd_doctor(options: argparse.Namespace) -> int:
    from reckoner.doctor import print_report, report
    from reckoner.wire import dumps_text

    facts = report(options.home)
    if options.json:
        print(dumps_text(facts))
    else:
        print_report(facts, _console())
    return 0


def cmd_pitfalls(options: argparse.Namespace) -> int:
    from reckoner.pitfalls.cli import run

    return run(options)


COMMANDS = {
    "call": cmd_call,
    "records": cmd_records,
    "show": cmd_show,
    "serve": cmd_serve,
    "demo": cmd_demo,
    "article": cmd_article,
    "compute": cmd_compute,
    "panel": cmd_panel,
    "doctor": cmd_doctor,
    "pitfalls": cmd_pitfalls,
}


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `reckoner` script and of `python -m reckoner`."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:2] == ["pitfalls", "hook"] and not {"-h", "--help"} & set(arguments):
        # The hook runs after every tool call of an agent: skip building the whole parser.
        from reckoner.pitfalls.hook import main as hook_main

        code = hook_main(arguments[2:])
        if argv is None:  # the console script: its output is flushed and its files closed,
            os._exit(code)  # so skip tearing the interpreter down, a seventh of a firing run
        raise SystemExit(code)
    parser = build_parser()
    options = parser.parse_args(arguments)
    if options.command is None:
        parser.print_help()
        raise SystemExit(EXIT_USAGE)
    try:
        code = COMMANDS[options.command](options)
    except KeyboardInterrupt:
        code = 130
    except (CliError, OSError) as exc:
        # HomeLockedError, HomeError and ServeError carry one sentence each.
        message = str(exc) or exc.__class__.__name__
        print(f"reckoner: {message}", file=sys.stderr)
        code = EXIT_USAGE
    raise SystemExit(code)
