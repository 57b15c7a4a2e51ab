"""The reminder's precision on the labelled set (issue 26): 50 lessons, 50 tool failures,
half of them about no lesson. Counts, not times: the same on any machine.

Prints, for the reminder's evidence rule and for a plain search of the same clue (the
reminder before issue 26), how often the first lesson offered is the right one for a
related failure and how often no reminder fires for an unrelated one.

Run: ``uv run python bench/bench_pitfalls_reminders.py``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "pitfalls"))

from reminder_cases import FIRST_RIGHT_TARGET, QUIET_TARGET, measure


def main() -> None:
    print("reminders on 50 lessons and 50 failures (25 related, 25 unrelated)")
    print(f"  {'':32} {'right lesson first':>20} {'quiet when unrelated':>22}")
    for label, evidence in (("evidence rule (the reminder)", True), ("plain search", False)):
        with tempfile.TemporaryDirectory() as home:
            p = measure(Path(home), evidence=evidence)
        right = f"{p.first_right}/{p.related} = {p.first_right_share:.0%}"
        quiet = f"{p.quiet}/{p.unrelated} = {p.quiet_share:.0%}"
        print(f"  {label:32} {right:>20} {quiet:>22}")
    print(f"targets: right first >= {FIRST_RIGHT_TARGET:.0%}, quiet >= {QUIET_TARGET:.0%}")


if __name__ == "__main__":
    main()
