"""The README's Python example runs, and every receipt its comments show is the one it gets.

The example is read from README.md: each ``engine.call(...)`` is made in order against a
fresh home, and a JSON comment on the call's line (the receipt, or its value) or alone on
the next line (the whole receipt) must equal what the engine answered.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from reckoner import Engine

ROOT = Path(__file__).resolve().parents[1]
_CALL = re.compile(r"^\s*engine\.call\((?P<args>.*)\)\s*(?:#\s*(?P<comment>.*))?$")
_ALONE = re.compile(r"^\s*#\s*(?P<comment>\{.*\})\s*$")


def _example() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    block = re.search(r"```python\n(from reckoner import Engine\n.*?)```", text, re.S)
    assert block is not None, "README.md has no Python example that imports Engine"
    return block.group(1).splitlines()


def _json_comment(comment: str | None) -> Any:
    if comment is None or not comment.startswith("{"):
        return None  # a comment in words ("stores 4700 ohm")
    return json.loads(comment)


def test_readme_python_example_answers_the_receipts_it_shows(tmp_path: Path) -> None:
    """README "What it does" (units in and out, read on eval and set): the example's calls
    run as written and each receipt it quotes is the engine's, so the README cannot drift
    from what the engine answers."""
    lines = _example()
    checked = 0
    with Engine(home=tmp_path / "home") as engine:
        last: dict[str, Any] | None = None
        for line in lines:
            call = _CALL.match(line)
            if call is not None:
                tool, args = ast.literal_eval(f"({call.group('args')})")
                last = engine.call(tool, args)
                assert last["ok"] is True, (line, last)
                shown = _json_comment(call.group("comment"))
                if shown is not None:
                    assert shown in (last, last.get("value")), (line, last)
                    checked += 1
                continue
            alone = _ALONE.match(line)
            if alone is not None:
                assert last is not None and json.loads(alone.group("comment")) == last, line
                checked += 1
    assert checked >= 4, "the example shows fewer receipts than it used to"
