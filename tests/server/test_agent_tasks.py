"""Issue 14's scripted agent benchmark as a test: every question reaches its known answers
through a real MCP client both ways, and `unit`/`read` never cost a call. Issue 27's
friction questions: gallons with no extra call, answers quoted from each reading's `text`,
one refusal naming both missing slots.

Both benchmark tests read the one table of the module (`scripted`): every question run both
ways through `reckoner serve` once, as `bench/agent_tasks.py` prints it; each test checks
its own questions' rows of it."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from agent_friction import FRICTION
from agent_script import Task
from agent_tasks import TASKS, table

Rows = list[tuple[Task, int, int, list[str]]]


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Rows:
    """Every task run both ways through real servers (two launches), checked as it runs:
    each row is a task, its calls with and without unit/read, and the answers it showed."""
    return table(tmp_path_factory.mktemp("agent-tasks"))


def test_scripted_questions_reach_known_answers_in_fewer_calls(scripted: Rows) -> None:
    """Issue 14: at least 12 realistic questions (electrical, mechanics, thermal, fluids, a
    sweep, a must-stop) run through `reckoner serve`; with unit/read none needs a hand-made
    unit slot, none needs more calls, and together they need at least 40% fewer calls than
    the same questions written without `read` (the issue's target).
    Spec: docs/guide/mcp-clients.md (issue 14)."""
    areas = {task.area.split(" ")[0] for task in TASKS}
    assert len(TASKS) >= 12 and {"electrical", "mechanics", "thermal", "fluids"} <= areas
    assert any(task.stops for task in TASKS) and any("sweep" in task.area for task in TASKS)
    rows = scripted
    assert {"minutes", "mm", "m^3/s^2", "kWh"} <= {u for t in TASKS for u in _units_asked(t)}
    for task, with_calls, without_calls, shown in rows:
        assert with_calls <= without_calls, task.question
        assert shown, task.question
    total_with = sum(row[1] for row in rows)
    total_without = sum(row[2] for row in rows)
    assert total_with <= 0.6 * total_without, (total_with, total_without)


def _units_asked(task: Task) -> set[str]:
    """Every unit a question's calls name, given or read (minutes spelled out)."""
    units: set[str] = set()
    for tool, args in task.with_units:
        read = args.get("read", [])
        options = [*(read if isinstance(read, list) else [read])]
        options.append(args["value"] if tool == "set" else args)
        units.update(o["unit"] for o in options if isinstance(o.get("unit"), str))
    return {"minutes" if u == "min" else u for u in units}


def test_the_baseline_runs_use_no_unit_and_no_read() -> None:
    """The baseline stays the manual's calls: no unit on any value, no read on any call, so
    every call read and unit save is counted against it.
    Spec: docs/guide/mcp-clients.md (issue 14)."""
    for task in TASKS:
        for tool, args in task.without:
            assert "read" not in args and "unit" not in args, (task.question, tool, args)
            assert tool != "set" or args["value"] is None or "unit" not in args["value"]


def test_scripts_follow_the_persona_rule_3_message_before_every_eval() -> None:
    """Persona rule 3: each step is one eval preceded by a record_message saying what it does;
    both variants of every question are written that way, so neither is favoured.
    Spec: docs/guide/mcp-clients.md (issue 14)."""
    for task in TASKS:
        for calls in (task.with_units, task.without):
            for before, (tool, _) in itertools.pairwise(calls):
                if tool == "eval":
                    assert before[0] == "record_message", (task.question, before)


def test_friction_questions_cost_no_extra_call_and_quote_each_reading_text(
    scripted: Rows,
) -> None:
    """Issue 27's Why, as questions a careful agent answers: `gal`, `usgal` and `gal_imp`
    are each set with their unit and read in litres in that same call (no call to learn what
    a gallon is, nothing refused); every closing text quotes its answers as the readings'
    `text` spells them ("68.00"), with no claim of precision of its own; a formula missing
    @g and @h stops at one refusal that names both."""
    assert all(task in TASKS for task in FRICTION)
    gallons, quoting, missing = FRICTION
    units = [args["value"].get("unit") for tool, args in gallons.with_units if tool == "set"]
    assert units == ["gal", "usgal", "gal_imp"]
    assert [tool for tool, _ in gallons.with_units].count("get") == 0
    assert len(gallons.with_units) == 2 + len(units) + 1  # start, note, the sets, end
    for task in TASKS:
        for calls in (task.with_units, task.without):
            assert "significant" not in calls[-1][1].get("text", ""), task.question
    rows = {task.question: shown for task, _, _, shown in scripted}
    assert rows[gallons.question] == ["18.93 L", "22.73 L"]
    assert rows[quoting.question] == ["68.00 V", "1.360 W"]
    assert "@g" in rows[missing.question][0] and "@h" in rows[missing.question][0]
