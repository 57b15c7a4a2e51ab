"""The `reckoner` command line's parser: one function per command group, each adding its
commands and options; `reckoner --help` lists every command."""

from __future__ import annotations

from reckoner import __version__
from reckoner.cli.options import add_compute_options, add_home, add_lane, port_number

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any

PANEL_PORT = 8765


def build_parser() -> argparse.ArgumentParser:
    """The whole command line; `reckoner --help` lists every command."""
    import argparse

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
    groups = (_add_call, _add_records, _add_serve, _add_demo, _add_article, _add_compute)
    for add in (*groups, _add_panel, _add_doctor):
        add(commands)

    from reckoner.pitfalls.cli import add_parser as add_pitfalls_parser

    add_pitfalls_parser(commands)
    return parser


def _add_call(commands: Any) -> None:
    """`call`: one engine call on the home, its receipt printed."""
    import argparse

    from reckoner.cli.help import call_tools, tools_help

    call = commands.add_parser(
        "call",
        help="make one engine call on the home and print its receipt as JSON",
        description=(
            f"Make one call ({', '.join(tool.name for tool in call_tools())}) on the home's "
            "engine and print the receipt as JSON. Exit code 1 when the engine refused."
        ),
        epilog=tools_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    call.add_argument("tool", metavar="TOOL", help=" | ".join(t.name for t in call_tools()))
    call.add_argument(
        "args", metavar="JSON", help="the arguments as one JSON object ('-' reads stdin)"
    )
    add_home(call)
    add_lane(call)


def _add_records(commands: Any) -> None:
    """`records` and `show`: the home's records, one record's timeline."""
    records = commands.add_parser("records", help="list the records of the home")
    records.add_argument("--json", action="store_true", help="print the list as JSON")
    add_home(records)

    show = commands.add_parser("show", help="render one record's timeline in the terminal")
    show.add_argument("id", help="the record identifier (see 'reckoner records')")
    show.add_argument("--json", action="store_true", help="print the record as JSON instead")
    add_home(show)


def _add_serve(commands: Any) -> None:
    """`serve`: the MCP server on stdio or streamable HTTP."""
    from reckoner.cli.help import presets_help
    from reckoner.contract.presets import PURE_PRESET
    from reckoner.server.defaults import DEFAULT_HTTP_PORT
    from reckoner.server.texts import PRESETS

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
        type=port_number,
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
        help=presets_help(),
    )
    add_compute_options(serve)
    add_home(serve)
    add_lane(serve)


def _add_demo(commands: Any) -> None:
    """`demo`: a worked calculation through the real server."""
    demo = commands.add_parser(
        "demo",
        help="run a worked calculation through the real MCP server, as an agent would",
        description=(
            "Start 'reckoner serve' over stdio, drive a worked calculation through it (a loaded "
            "voltage divider, then a series RLC impedance) and show every call and receipt. "
            "Uses a fresh home under the temp directory unless --home is given."
        ),
    )
    add_home(demo)


def _add_article(commands: Any) -> None:
    """`article`: a closed record written up; a flag left out takes the remembered setting."""
    import argparse

    from reckoner.articles.settings import REMEMBERED

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
    add_home(article)


def _add_compute(commands: Any) -> None:
    """`compute probe|run|receipt`: the compute tool from the command line."""
    import argparse

    from reckoner.cli.help import compute_help

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
        epilog=compute_help(),
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
        add_home(step)


def _add_panel(commands: Any) -> None:
    """`panel`: the web panel over the home's records."""
    panel = commands.add_parser("panel", help="run the local web panel over the home's records")
    panel.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    panel.add_argument(
        "--port", type=port_number, default=PANEL_PORT, help=f"port (default {PANEL_PORT})"
    )
    panel.add_argument("--open", action="store_true", help="open the panel in the browser")
    panel.add_argument(
        "--token",
        help="the panel's access token (default: RECKONER_PANEL_TOKEN, else a new one per "
        "launch); a flag is visible to other users in the process list, the variable is not",
    )
    add_home(panel)


def _add_doctor(commands: Any) -> None:
    """`doctor`: what is installed and how the home is."""
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
    add_home(doctor)
