"""A scripted agent benchmark (issues 14 and 27): realistic questions, each as the call
sequence a careful agent makes, run through a real MCP client against `reckoner serve`.

Every question is written twice: with `unit` on set/get and `read` on set and eval (a list
of readings where one value is asked in two units), and as the same question written without
them (the manual's calls only: SI numbers and `dim`, a hand-made unit slot and a division for
every non-SI answer, a `get` after every `eval`). Both runs must reach the known answers, and
each closing text must quote every answer as its reading's `text` spells it, with no claim of
precision of its own; a question that must stop stops at one refusal naming every missing
slot. The table counts the calls. The questions are in `agent_questions.py` (issue 14) and
`agent_friction.py` (issue 27's friction: US and imperial gallons, quoting, two missing
slots), written with the builders of `agent_script.py`.

Run: ``uv run python bench/agent_tasks.py`` (prints the table of calls per question).
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_friction import FRICTION
from agent_questions import QUESTIONS
from agent_script import Call, Task

TASKS: list[Task] = [*QUESTIONS, *FRICTION]


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    if isinstance(value, dict):
        return [n for key, item in value.items() if key != "dim" for n in _numbers(item)]
    return []


_NUMERAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?")


def _spellings(text: Any) -> list[str]:
    """Every numeral of a reading's `text`: a real's, a complex's two, an array's."""
    if isinstance(text, list):
        return [s for item in text for s in _spellings(item)]
    return _NUMERAL.findall(text) if isinstance(text, str) else []


def _check_quoted(task: Task, calls: list[Call], hits: list[dict[str, Any]], answer: float) -> bool:
    """Issue 27: where the closing text states an answer, it quotes it as the answer's reading
    `text` spells it (trailing zeros kept: "68.00", never 68), and it claims no precision of
    its own. True when the closing states this answer."""
    closing = calls[-1][1].get("text", "")
    assert calls[-1][0] == "record_end" and "significant" not in closing, task.question
    stated = [s for s in _spellings(closing) if math.isclose(float(s), answer, rel_tol=5e-4)]
    if not stated:
        return False
    spelled = [
        s
        for hit in hits
        for s in _spellings(hit.get("text"))
        if math.isclose(float(s), answer, rel_tol=5e-4)
    ]
    assert spelled, (task.question, answer, "stated but read without digits")
    assert all(s == spelled[-1] for s in stated), (task.question, spelled[-1], closing)
    return True


def _label(value: dict[str, Any]) -> str:
    """A reading as the table shows it: its `text` where it has one, as quoted."""
    spelled = _spellings(value.get("text")) or [f"{n:g}" for n in _numbers(value)]
    numbers = ", ".join(spelled)
    unit = value.get("unit") or value.get("dim")
    if isinstance(unit, list) or unit == "dim-less":
        unit = ""
    return f"{numbers} {unit}".strip()


def check(task: Task, receipts: list[dict[str, Any]], *, with_units: bool) -> list[str]:
    """The task's answers, found in the receipts' values; raises when one is missing."""
    calls = task.with_units if with_units else task.without
    refused = [
        (call, receipt) for call, receipt in zip(calls, receipts, strict=True) if not receipt["ok"]
    ]
    if task.stops:
        assert [r["code"] for _, r in refused] == ["ENGINE_SLOT_NOT_FOUND"], refused
        assert receipts[-1] == {"ok": True}
        error = refused[0][1]["error"]
        assert all(name in error for name in task.missing), (task.question, error)
        return ["stops: " + error.split(";")[0]]
    assert not refused, refused
    # A list read answers a list of readings: each is a value of its own.
    values = [
        v
        for r in receipts
        if "value" in r
        for v in (r["value"] if isinstance(r["value"], list) else [r["value"]])
    ]
    shown = []
    quoted = []
    for answer in task.answers:
        hits = [
            v for v in values if any(math.isclose(n, answer, rel_tol=5e-4) for n in _numbers(v))
        ]
        assert hits, (task.question, answer, values)
        if _label(hits[-1]) not in shown:
            shown.append(_label(hits[-1]))
        quoted.append(_check_quoted(task, calls, hits, answer))
    assert any(quoted), (task.question, "the closing states no answer")
    if with_units:
        # No hand-made unit slot: every quantity is transcribed with its unit, none in SI.
        assert all("dim" not in args["value"] for tool, args in calls if tool == "set"), (
            task.question
        )
    return shown


async def run_all(home: Path, *, with_units: bool) -> list[list[dict[str, Any]]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reckoner", "serve", "--home", str(home)]
    )
    results = []
    async with Client(params) as client:
        for task in TASKS:
            receipts = []
            for tool, args in task.with_units if with_units else task.without:
                result = await client.call_tool(tool, args)
                receipts.append(result.structured_content)
            results.append(receipts)
    return results


def table(root: Path) -> list[tuple[Task, int, int, list[str]]]:
    """Run every task both ways; each row: task, calls with, calls without, answers shown."""
    import anyio

    with_runs = anyio.run(lambda: run_all(root / "with", with_units=True))
    without_runs = anyio.run(lambda: run_all(root / "without", with_units=False))
    rows = []
    for task, with_receipts, without_receipts in zip(TASKS, with_runs, without_runs, strict=True):
        shown = check(task, with_receipts, with_units=True)
        check(task, without_receipts, with_units=False)
        rows.append((task, len(task.with_units), len(task.without), shown))
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        rows = table(Path(root))
    print(
        "| question | area | calls with unit/read | calls without | unit slots without | answer |"
    )
    print("|---|---|---|---|---|---|")
    for task, with_calls, without_calls, shown in rows:
        slots = ", ".join(task.hand_made_units) or "-"
        print(
            f"| {task.question} | {task.area} | {with_calls} | {without_calls} | {slots} | "
            f"{'; '.join(shown)} |"
        )
    total_with = sum(r[1] for r in rows)
    total_without = sum(r[2] for r in rows)
    print(
        f"| **all {len(rows)} questions** | | **{total_with}** | **{total_without}** | "
        f"{sum(len(r[0].hand_made_units) for r in rows)} | "
        f"{1 - total_with / total_without:.0%} fewer calls |"
    )


if __name__ == "__main__":
    main()
