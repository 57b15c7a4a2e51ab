"""`reckoner doctor`: what is installed and what the home looks like, in one screen a user can
paste into a bug report (or as JSON).

Every fact comes from the part that owns it: the extras from ``reckoner.host.extras``, the
programs from ``reckoner.host.processes.which`` (and the compiler's own TeX check), the compute
engines from ``reckoner.compute.discovery``, the provider keys' names from
``reckoner.providers.config`` and the home from ``reckoner.storage``. Doctor only reads: it
creates no home and takes no lock. It never raises: a section that fails says why and the
others still report. A key's value is never read beyond whether it is empty.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Mapping
from typing import Any

from reckoner.version import __version__

LOW_FREE_BYTES = 64 * 1024 * 1024
"""Below this the home's disk is reported as nearly full: a long record, an article's PDF
build or a compute run's archive can need tens of megabytes."""

CHROMIUM = "/usr/bin/chromium"
"""The browser the panel's screenshots and browser tests drive (Debian's Chromium)."""


def _guarded(build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A section's facts, or the one sentence of why they could not be gathered."""
    try:
        return build()
    except Exception as error:  # doctor reports; it never stops on a part's fault
        return {"error": f"{type(error).__name__}: {error}"}


def _extras() -> dict[str, Any]:
    from reckoner.host.extras import EXTRAS, install_command, missing

    found: dict[str, Any] = {}
    for extra in EXTRAS:
        absent = missing(extra)
        found[extra] = {
            "installed": not absent,
            "missing": list(absent),
            "install": install_command(extra),
        }
    return found


def _engines() -> dict[str, Any]:
    from reckoner.compute.discovery import locate
    from reckoner.compute.engines import DESCRIPTORS

    engines: dict[str, Any] = {}
    for name, descriptor in DESCRIPTORS.items():
        located = locate(descriptor)
        engines[name] = located.path if located is not None else None
    return engines


def _programs() -> dict[str, Any]:
    from reckoner.articles.compiler import capability
    from reckoner.host.processes import which

    tex = capability()
    chromium = which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    return {
        "latexmk": tex["latexmk"],
        "xelatex": tex["xelatex"],
        "ctex": tex["ctex"],
        "fontspec": tex["fontspec"],
        "chromium": chromium,
        "pdftoppm": which("pdftoppm"),
        "pdftotext": which("pdftotext"),
    }


def _keys(env: Mapping[str, str]) -> dict[str, Any]:
    from reckoner.providers.config import KEY_VARIABLES, PROVIDERS

    return {
        variable: "set" if env.get(variable, "").strip() else "not set"
        for kind in PROVIDERS
        for variable in KEY_VARIABLES[kind]
    }


def _home(explicit: str | None) -> dict[str, Any]:
    from reckoner.storage.home import HomeLayout
    from reckoner.storage.home_lock import held_lanes
    from reckoner.storage.home_path import resolve_home
    from reckoner.storage.record_archive import RecordArchive
    from reckoner.storage.state_file import StateFile

    root = resolve_home(explicit)
    layout = HomeLayout(root)
    problems: list[str] = []
    facts: dict[str, Any] = {"path": str(root), "exists": root.exists()}
    free = layout.free_bytes()
    facts["freeBytes"] = free
    if free is not None and free < LOW_FREE_BYTES:
        problems.append(
            f"only {free // 1024} KiB free on the home's disk (under "
            f"{LOW_FREE_BYTES // (1024 * 1024)} MiB); free some space or pass another --home"
        )
    if not root.exists():
        facts["problems"] = problems
        facts["note"] = "the home does not exist yet; the first call creates it"
        return facts
    if not root.is_dir():
        problems.append(f"{root} is a file, not a directory; move it away or pass another --home")
        facts["problems"] = problems
        return facts
    if not os.access(root, os.W_OK):
        problems.append(f"{root} is not writable; make it writable or pass another --home")
    records = layout.records_dir
    if records.exists() and not records.is_dir():
        problems.append(f"{records} is a file where the home needs a directory; move it away")
    listing = RecordArchive(layout).index()
    facts["closedRecords"] = len(listing.closed)
    facts["openRecords"] = [{"lane": entry.lane, "id": entry.id} for entry in listing.open_records]
    facts["lanesWithOpenFiles"] = layout.lanes_with_open_files()
    facts["lanesInUse"] = [{"lane": lane, "pid": pid} for lane, pid in held_lanes(layout)]
    facts["unreadableRecords"] = listing.unreadable
    if listing.unreadable:
        problems.append(
            f"{len(listing.unreadable)} record file(s) cannot be read as a record: "
            + ", ".join(listing.unreadable[:5])
        )
    state = StateFile(layout).problem()
    if state is not None:
        problems.append(f"{layout.state_file} {state}")
    facts["problems"] = problems
    return facts


def report(home: str | None = None, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Everything doctor knows, as JSON-ready data; never raises."""
    environment = os.environ if env is None else env
    return {
        "version": __version__,
        "python": platform.python_version(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "extras": _guarded(_extras),
        "engines": _guarded(_engines),
        "programs": _guarded(_programs),
        "keys": _guarded(lambda: _keys(environment)),
        "home": _guarded(lambda: _home(home)),
    }


def _found(value: Any) -> str:
    if value is None or value is False:
        return "[yellow]not found[/yellow]"
    if value is True:
        return "[green]found[/green]"
    return f"[green]{value}[/green]"


def _size(count: int | None) -> str:
    if count is None:
        return "unknown"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024:
            return f"{count} {unit}"
        count //= 1024
    return f"{count} TiB"


def _rows(facts: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(section, item, what was found) for the screen, as Rich markup."""
    from rich.markup import escape

    rows = [
        ("reckoner", "version", facts["version"]),
        ("", "python", escape(f"{facts['python']} ({facts['executable']})")),
        ("", "platform", escape(facts["platform"])),
    ]
    sections: list[tuple[str, Callable[[str, Any], str]]] = [
        (
            "extras",
            lambda name, v: (
                "[green]installed[/green]"
                if v["installed"]
                else f"[yellow]not installed[/yellow]: {escape(v['install'])}"
            ),
        ),
        ("engines", lambda name, v: _found(v)),
        ("programs", lambda name, v: _found(escape(v) if isinstance(v, str) else v)),
        ("keys", lambda name, v: "[green]set[/green]" if v == "set" else "not set"),
    ]
    for section, shown in sections:
        values = facts[section]
        if "error" in values and isinstance(values["error"], str):
            rows.append((section, "", f"[red]{escape(values['error'])}[/red]"))
            continue
        for index, (name, value) in enumerate(values.items()):
            rows.append((section if index == 0 else "", escape(name), shown(name, value)))
    rows.extend(_home_rows(facts["home"]))
    return rows


def _home_rows(home: dict[str, Any]) -> list[tuple[str, str, str]]:
    from rich.markup import escape

    if "path" not in home:
        return [("home", "", f"[red]{escape(str(home.get('error')))}[/red]")]
    rows = [("home", "path", escape(home["path"]))]
    rows.append(("", "free space", _size(home.get("freeBytes"))))
    if "note" in home:
        rows.append(("", "", escape(home["note"])))
    if "closedRecords" in home:
        opened = ", ".join(f"lane {e['lane']}: {e['id']}" for e in home["openRecords"])
        rows.append(("", "closed records", str(home["closedRecords"])))
        rows.append(("", "open records", escape(opened) or "none"))
        in_use = ", ".join(
            f"lane {e['lane']} (pid {e['pid'] if e['pid'] is not None else '?'})"
            for e in home["lanesInUse"]
        )
        rows.append(("", "lanes in use", in_use or "none"))
        rows.append(("", "unreadable records", str(len(home["unreadableRecords"]))))
    for problem in home["problems"]:
        rows.append(("", "[red]problem[/red]", f"[red]{escape(problem)}[/red]"))
    if not home["problems"]:
        rows.append(("", "health", "[green]ok[/green]"))
    return rows


def print_report(facts: dict[str, Any], console: Any) -> None:
    """The report as one table on ``console`` (a rich Console)."""
    from rich.table import Table

    table = Table(title=f"reckoner doctor {facts['version']}", show_header=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    table.add_column(overflow="fold")
    for row in _rows(facts):
        table.add_row(*row)
    console.print(table)
