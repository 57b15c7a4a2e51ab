"""The commands: each takes the parsed options, does its one thing through the package's
owners (the engine, the record archive, the servers, compute, articles) and returns the exit
code; a failure the user can fix is a ``CliError`` with its one sentence."""

from __future__ import annotations

import sys

from reckoner.cli.failure import EXIT_REFUSED, CliError
from reckoner.cli.render import print_record, print_records

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    import argparse
    from typing import Any


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
    print_records(listing, _console())
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
    print_record(record, _console())
    return 0


def _compute_options(options: argparse.Namespace) -> dict[str, Any]:
    engines = options.compute_engines
    return {
        "mode": options.compute_mode,
        "engines": engines.split(",") if engines else None,
        "timeoutMs": options.compute_timeout_ms,
        "network": options.compute_network,
    }


def cmd_serve(options: argparse.Namespace) -> int:
    from reckoner.access import HTTP_TOKEN_VARIABLE, TokenError, chosen_token
    from reckoner.server.http import ServeError
    from reckoner.server.run import ServeOptions, serve

    if options.token is not None and not options.http:
        raise CliError("--token guards the HTTP transport only; add --http, or leave it out.")
    try:
        token = chosen_token(options.token, HTTP_TOKEN_VARIABLE) if options.http else None
    except TokenError as unusable:
        raise CliError(str(unusable)) from None
    try:
        serve(
            options.home,
            ServeOptions(
                http=options.http,
                http_token=token,
                host=options.host,
                port=options.port,
                shared_record=options.shared_record,
                preset=options.preset,
                lane=options.lane,
                project=options.project,
                compute_options=_compute_options(options),
                pitfalls=options.pitfalls,
                pitfalls_project_dir=options.pitfalls_project_dir,
            ),
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
    from reckoner.articles.run import ArticleAsk, print_job, run_article_job

    ask = ArticleAsk(
        record_id=options.id,
        format_name=options.format,
        directory=options.out,
        file_name=options.name,
        language=options.language,
        writer=options.writer,
        model=options.model,
        base_url=options.base_url,
        compile_pdf=options.compile,
    )
    job = run_article_job(_archive(options.home), ask, console=_console(stderr=True))
    return print_job(job, _console(), _console(stderr=True))


def cmd_panel(options: argparse.Namespace) -> int:
    from reckoner.access import PANEL_TOKEN_VARIABLE, TokenError, chosen_token
    from reckoner.panel.run import run_panel
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
