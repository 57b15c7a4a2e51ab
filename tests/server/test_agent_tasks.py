"""Issue 14's scripted agent benchmark as a test: every question reaches its known answers
through a real MCP client both ways, and `unit`/`read` never cost a call."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from agent_tasks import TASKS, table


def test_issue_14_scripted_questions_reach_known_answers_in_fewer_calls(tmp_path: Path) -> None:
    """Issue 14: at least 12 realistic questions (electrical, mechanics, thermal, fluids, a
    sweep, a must-stop) run through `reckoner serve`; with unit/read none needs a hand-made
    unit slot, none needs more calls, and together they need far fewer."""
    areas = {task.area.split(" ")[0] for task in TASKS}
    assert len(TASKS) >= 12 and {"electrical", "mechanics", "thermal", "fluids"} <= areas
    assert any(task.stops for task in TASKS) and any("sweep" in task.area for task in TASKS)
    rows = table(tmp_path)
    for task, with_calls, without_calls, shown in rows:
        assert with_calls <= without_calls, task.question
        assert shown, task.question
    total_with = sum(row[1] for row in rows)
    total_without = sum(row[2] for row in rows)
    assert total_with <= 0.7 * total_without, (total_with, total_without)
