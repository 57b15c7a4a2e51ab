"""The terminal's view of records: a tagged value in one line, a trace row as Rich markup,
the records table and one record's timeline (`reckoner records`, `reckoner show`).

Units are spelled as the articles and the panel spell them (``reckoner.units.spelling``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    from typing import Any


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
        said = f"[italic]{escape(str(body.get('text', '')))}[/italic]{hidden}"
        return "message", said + _warning_lines(body)
    if tool == "record_end":
        text = body.get("text")
        shown = escape(str(text)) if text else "[dim](no closing text)[/dim]"
        return "[bold]record_end[/bold]", shown + _warning_lines(body)
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


def _warning_lines(body: dict[str, Any]) -> str:
    """The mark of a message or end whose text quotes a number no receipt showed (issue 27):
    each of the row's ``warnings`` sentences on a line of its own; nothing without them."""
    from rich.markup import escape

    warnings = body.get("warnings")
    if not isinstance(warnings, list):
        return ""
    return "".join(
        f"\n  [yellow]unverified number: {escape(w)}[/yellow]"
        for w in warnings
        if isinstance(w, str)
    )


def _read_line(body: dict[str, Any], key: str) -> str:
    """The reading a `read` asked for in the same call (a set row keeps it as ``reading``, an
    eval row as ``value``), on a line of its own: what the model was shown and quoted."""
    from rich.markup import escape

    if key not in body:
        return ""
    return f"\n  read → [green]{escape(format_value(body[key]))}[/green]"


_LOOKUP_ACCENT = {"answered": "green", "insufficient": "yellow", "refused": "yellow"}


def _lookup_lines(body: dict[str, Any]) -> tuple[str, str]:
    """A `search` row (docs/guide/lookup.md): the question, the answer or its sentence, the
    sources."""
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


def print_records(listing: dict[str, Any], console: Any) -> None:
    """The home's records as a table: the open ones (with their lane), the closed, the
    unreadable."""
    from rich.table import Table

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


def print_record(record: dict[str, Any], console: Any) -> None:
    """One record's title, state and rows."""
    from rich.markup import escape
    from rich.table import Table

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
