"""Did a change of the tree change behaviour? Runs one scenario in two checkouts and diffs
what each did: the MCP surface of every preset, the receipts and record rows of a corpus of
calls, the demo record's article bytes and the CLI's text.

    uv run python scripts/check_equivalence.py --before DIR --after DIR

Each checkout runs `scripts/equivalence_driver.py` (this checkout's) in its own interpreter,
``DIR/.venv/bin/python`` (run ``uv sync --frozen`` there first), in fresh temp directories.
What depends on the clock, the pid or chance is normalised by the driver, in one place
(`equivalence_side.Normaliser`), as it observes; a difference that is expected and
documented goes in `ALLOWED` with its reason. Every other difference prints as a unified
diff per item, and the exit code is 1. The decision record is
docs/decisions/restructure-equivalence.md.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "equivalence_driver.py"
FAKES = HERE.parent / "tests"
PARTS = ("surface", "engine", "pitfalls", "compute", "search", "http", "cli")


@dataclass(frozen=True)
class Allowed:
    """An expected difference: in the items whose name matches ``item``, what ``before``
    matches in the before-text and what ``after`` matches in the after-text both read as
    ``same`` (a replacement that may use the groups), for ``reason``. Anything else the
    two texts differ by is still a finding."""

    item: str
    before: str | None  # None: the before-text is taken as it is
    after: str
    same: str
    reason: str


_ONE_WORDING = (
    "docs/decisions/argument-checks.md, 'One wording for every tool' (commit d5c932c): compute "
    "and the pitfall tools share one argument checker"
)
_END = r"[^\"\\]*"  # the rest of a sentence, up to the end of its JSON string (escaped or not)

_ISSUE_27_TEXT = "issue 27, commit 79213fa (complex and array readings carry quotable text)"
_ISSUE_27_PROSE = "issue 27, commit 035987e (numbers in a record's prose checked as written)"
_ISSUE_27_DESCRIPTIONS = (
    r"\"description\": \"(Round every leaf to this many significant digits|A tagged value "
    r"carrying exactly one tag|Open a record, titled with|Append one explanation to the open "
    r"record|One explanation for the record|Close the open record with|An optional closing "
    r"text)(?:[^\"\\]|\\.)*\""
)

_ISSUE_27_HELP = (
    r"(      digits: |        Quote numbers only as |      text: An optional closing text)"
    r"(?:.|\n)*?(?:stores rounded numbers\.\n|\n(?=      hide:)|\n(?=  search ))"
)

ALLOWED: tuple[Allowed, ...] = (
    Allowed(
        r"^receipts compute$",
        r"compute's (\w+) must be one of [^\"\\]*?, but it is the string '(\w+)'",
        r"compute's (\w+) '(\w+)' is not one of [^;\"\\]*; give one of them as written"
        r"(?:, or leave \w+ out)?; " + _END,
        r"compute's \1: <\2 is none of its values>",
        f"{_ONE_WORDING}: a value outside an enum is quoted, the values listed, the way to "
        "leave it out and the argument's description added",
    ),
    Allowed(
        r"^receipts compute$",
        r"compute's ([\w.]+)\[(\d+)\] must be an? \w+, but it is (" + _END + ")",
        r"compute's ([\w.]+) must be an array of \w+s, but its item (\d+) is ([^;\"\\]*); " + _END,
        r"compute's \1[\2]: <wrong kind: \3>",
        f"{_ONE_WORDING}: a wrong item is said of the array, with the argument's description",
    ),
    Allowed(
        r"^receipts compute$",
        None,
        r"(compute's \w+ must be an? \w+)(?: of \w+s)?(, but it is [^;\"\\]*); " + _END,
        r"\1\2",
        f"{_ONE_WORDING}: a wrong kind names the items' kind and adds the argument's description",
    ),
    Allowed(
        r"^receipts compute$",
        None,
        r"compute needs (\w+) \(null is refused\): ",
        r"compute needs \1: ",
        f"{_ONE_WORDING}: a required argument given as null says that null is refused",
    ),
    Allowed(
        r"^receipts pitfalls$",
        r"or leave status out to list every lesson",
        r"or leave status out; Only lessons with this status\.",
        r"or leave status out<, and why>",
        f"{_ONE_WORDING}: pitfall_list's status filter ends with the argument's description",
    ),
    Allowed(
        r"^receipts pitfalls$",
        r"(\w+)'s (\w+) must be an array of strings, but it is an array of length \d+;",
        r"(\w+)'s (\w+) must be an array of strings, but its item \d+ is [^;\"\\]*;",
        r"\1's \2 must be an array of strings, <but an item is not>;",
        f"{_ONE_WORDING}: a wrong item of an array is named by its index and value",
    ),
    # Issue 27 (new behaviour, merged into main beside the restructure): not the restructure.
    Allowed(
        r"^(receipts|cli|article)",
        None,
        r",(?:\n +)?\\?\"text\\?\": ?\\?\"-?[0-9.e+-]+(?:∠-?[0-9.e+-]+|[+-][0-9.e+-]+i)\\?\""
        r"|,\\?\"text\\?\": ?\[(?:[^\[\]\n]|\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\])*\]"
        r"|,\n( +)\"text\": \[\n(?:\1 .*\n)*?\1\]",
        "",
        f"{_ISSUE_27_TEXT}: a complex or array reading with digits carries its text",
    ),
    Allowed(
        r"^cli show",
        None,
        r",\\?\"warnings\\?\":\[[^\]\n]*\]|\n {21}unverified number: .*(?:\n {19}\S.*)*",
        "",
        f"{_ISSUE_27_PROSE}: a message quoting a number no receipt showed carries warnings",
    ),
    Allowed(
        r"^(surface --preset|http: surface$)",
        r"(\"instructions\": |\"text\": )\"(# reckoner-\w+|You are connected)(?:[^\"\\]|\\.)*\"",
        r"(\"instructions\": |\"text\": )\"(# reckoner-\w+|You are connected)(?:[^\"\\]|\\.)*\"",
        r"\1\"\2 <prose>\"",
        f"{_ISSUE_27_TEXT} and {_ISSUE_27_PROSE}: the persona and both skills say so (their "
        "prose is not compared while this entry stands)",
    ),
    Allowed(
        r"^(surface --preset|http: surface$)",
        _ISSUE_27_DESCRIPTIONS,
        _ISSUE_27_DESCRIPTIONS,
        r"\"description\": \"\1 <prose>\"",
        f"{_ISSUE_27_TEXT} and {_ISSUE_27_PROSE}: the descriptions of digits, the value, "
        "record_start, record_message and record_end say so",
    ),
    Allowed(
        r"^(surface --preset|http: surface$)",
        None,
        r",\n( +)\"text\": \{\n\1 \"anyOf\": \[\n(?:\1 .*\n)*?\1\}"
        r"|,\n( +)\"text\": \{\n\2 \"maxLength\": 66,\n\2 \"type\": \"string\"\n\2\}"
        r"|,\n( +)\"text\": \{\n\3 \"items\": \{\n\3  \"\$ref\": \"#/\$defs/text\"\n\3 \},"
        r"\n\3 \"type\": \"array\"\n\3\}",
        "",
        f"{_ISSUE_27_TEXT}: the value schema takes a reading's text (up to 66 characters) beside "
        "re/im and mag/ang, and a list of texts beside array ($defs/text)",
    ),
    Allowed(
        r"^cli call --help$",
        _ISSUE_27_HELP,
        _ISSUE_27_HELP,
        r"\1<prose>\n",
        f"{_ISSUE_27_TEXT} and {_ISSUE_27_PROSE}: the help of digits, record_message's and "
        "record_end's text, from the same descriptions",
    ),
    Allowed(
        r"^cli demo$",
        r"\n[│┃┏┡└][^\n]*",
        r"\n[│┃┏┡└][^\n]*",
        "",
        f"{_ISSUE_27_TEXT} and {_ISSUE_27_PROSE}: the demo's table of receipts wraps the new "
        "text and warnings (its lines are not compared while this entry stands; the demo's "
        "record is, in 'cli show --json')",
    ),
    Allowed(
        r"^cli show( --json)?$",
        r"(?s).+",
        r"(?s).+",
        "<the demo's record>",
        "issue 27, commit 547e53b (the demo states each part after its givens are set, so its "
        "messages quote only numbers a receipt showed): the demo's rows are in another order "
        "(`show` is still compared on the replayed record, 'cli replay: show')",
    ),
)
"""The documented differences, each with where it is decided."""


def run_side(checkout: Path, work: Path, only: str) -> dict[str, str]:
    """The driver's items for one checkout, already normalised by the driver."""
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{python} does not exist; run 'uv sync --frozen' in {checkout} first")
    command = [str(python), str(DRIVER), "--checkout", str(checkout), "--work", str(work)]
    command += ["--fakes", str(FAKES), "--only", only]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=work)
    if done.returncode != 0:
        raise SystemExit(f"the driver failed in {checkout}:\n{done.stderr[-4000:]}")
    items: dict[str, str] = json.loads(done.stdout)
    return items


def allow(name: str, before: str, after: str) -> tuple[str, str, list[tuple[str, int, int]]]:
    """Both texts with every allowed difference of this item read the same way, and each
    entry that matched, with how often in the before- and the after-text."""
    used: list[tuple[str, int, int]] = []
    for entry in ALLOWED:
        if re.search(entry.item, name) is None:
            continue
        old, old_count = (
            (before, 0) if entry.before is None else re.subn(entry.before, entry.same, before)
        )
        new, new_count = re.subn(entry.after, entry.same, after)
        if old_count or new_count:
            used.append((entry.reason, old_count, new_count))
        before, after = old, new
    return before, after, used


def compare(before: dict[str, str], after: dict[str, str]) -> int:
    """Print a unified diff per differing item, then the allowed differences that matched;
    the number of items that differ."""
    differing = 0
    allowed: dict[str, list[str]] = {}
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            differing += 1
            print(f"### {name}: only {'after' if old is None else 'before'} has this item")
            continue
        old, new, used = allow(name, old, new)
        for reason, old_count, new_count in used:
            allowed.setdefault(reason, []).append(f"{name} ({old_count}/{new_count})")
        if old == new:
            continue
        differing += 1
        print(f"### {name}: differs")
        sys.stdout.writelines(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"before/{name}",
                f"after/{name}",
            )
        )
        print()
    for reason, items in allowed.items():
        print(
            f"# allowed: {reason}; in {len(items)} items (matches before/after): "
            + ", ".join(items)
        )
    return differing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout before")
    parser.add_argument("--after", type=Path, required=True, help="the checkout after")
    parser.add_argument("--only", default="", help=f"comma-separated parts of {', '.join(PARTS)}")
    parser.add_argument(
        "--keep", type=Path, help="also write each side's items to DIR/{before,after}.json"
    )
    options = parser.parse_args()
    unknown = {p for p in options.only.split(",") if p} - set(PARTS)
    if unknown:
        parser.error(f"--only takes {', '.join(PARTS)}, not {', '.join(sorted(unknown))}")
    sides: dict[str, dict[str, str]] = {}
    for label, checkout in (("before", options.before), ("after", options.after)):
        work = Path(tempfile.mkdtemp(prefix=f"eq-{label[0]}-"))
        try:
            began = time.monotonic()
            sides[label] = run_side(checkout.resolve(), work, options.only)
            took = time.monotonic() - began
            count = len(sides[label])
            print(f"# {label}: {checkout} ({_commit(checkout)}), {count} items, {took:.0f} s")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if options.keep:
            options.keep.mkdir(parents=True, exist_ok=True)
            (options.keep / f"{label}.json").write_text(
                json.dumps(sides[label], indent=1, ensure_ascii=False)
            )
    differing = compare(sides["before"], sides["after"])
    total = len(set(sides["before"]) | set(sides["after"]))
    print(
        f"# {differing} of {total} items differ"
        if differing
        else f"# all {total} items are the same"
    )
    return 1 if differing else 0


def _commit(checkout: Path) -> str:
    """The checkout's commit, and how many tracked files differ from it (a merge in progress
    in a shared checkout is compared as its working tree stands)."""
    git = ["git", "-C", str(checkout)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    status = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    changed = len(status.stdout.splitlines())
    dirty = f", {changed} tracked files changed since it" if changed else ""
    return (head.stdout.strip() or "not a git checkout") + dirty


if __name__ == "__main__":
    sys.exit(main())
