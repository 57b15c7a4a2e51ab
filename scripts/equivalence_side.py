"""The equivalence driver's machinery: one checkout's programs in fresh places, the
normaliser that hides the clock, the pid and chance, and the tape of calls with what each
changed on disk. Used by scripts/equivalence_driver.py, in the checkout's own interpreter.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

PITFALL_ID = re.compile(r"p-\d{8}-\d{6}-[0-9a-z]+")
FIXED_PATH = "/usr/local/bin:/usr/bin:/bin"
SKIPPED_FILES = (".lock", ".state.lock", ".lanes.lock")


def preset_names() -> list[str]:
    """The presets the checkout's contract lists (after: contract.registry; before: core)."""
    for module in ("reckoner.contract.registry", "reckoner.core.contract"):
        try:
            return list(importlib.import_module(module).PRESET_NAMES)
        except ImportError:
            continue
    raise SystemExit(
        "neither reckoner.contract.registry nor reckoner.core.contract holds PRESET_NAMES"
    )


class Normaliser:
    """Hides what depends on the clock, the pid or chance, so the two sides compare by code.

    Applied to every text the driver reports, and to each file before it is compared with
    its last state (so a file rewritten with only a new timestamp reads as unchanged). The
    work directory and the checkout read as <WORK> and <CHECKOUT>; a millisecond clock
    reading of this run (a record id, a row's ``at``) as <ms>, its first 8 digits (an
    article's default file name) as <ms8>; an id that recurs keeps one number per run."""

    def __init__(self, roots: dict[str, str]) -> None:
        self.roots = sorted(roots.items(), key=lambda item: -len(item[0]))
        self.low = int(time.time() * 1000) - 3_600_000
        self.numbers: dict[str, dict[str, str]] = {}

    def numbered(self, label: str) -> Callable[[re.Match[str]], str]:
        seen = self.numbers.setdefault(label, {})
        return lambda match: seen.setdefault(match.group(0), f"<{label}-{len(seen) + 1}>")

    def __call__(self, text: str) -> str:
        for path, label in self.roots:
            text = text.replace(path, label)
        high = int(time.time() * 1000) + 3_600_000
        text = re.sub(
            r"(?<!\d)\d{13}(?!\d)",
            lambda m: "<ms>" if self.low <= int(m.group(0)) <= high else m.group(0),
            text,
        )
        text = re.sub(
            r"(?<!\d)\d{8}(?!\d)",
            lambda m: (
                "<ms8>" if self.low // 10**5 <= int(m.group(0)) <= high // 10**5 else m.group(0)
            ),
            text,
        )
        for pattern, replacement in NOISE:
            text = re.sub(pattern, replacement, text)
        return PITFALL_ID.sub(self.numbered("pitfall"), text)


NOISE: tuple[tuple[str, str], ...] = (
    # timestamps: ISO (rows, lessons, receipts) and log-file names
    (r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?", "<time>"),
    (r"\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d(\.\d+)?", "<time>"),
    # durations of runs and lookups, as JSON (maybe inside a JSON string) and as prose
    (r'(\\?"durationMs\\?": ?)[0-9.]+', r"\1<duration>"),
    (r"duration: [0-9.]+ ms", "duration: <duration> ms"),
    # the loopback fake's port, and the disk's free space (doctor)
    (r"(127\.0\.0\.1|localhost):\d+", r"\1:<port>"),
    (r'("freeBytes": ?)\d+|(free space +)\d+ GiB', r"\1\2<free>"),
)
"""The patterns the normaliser replaces after the paths and clock readings, with why."""


class Side:
    """The checkout under test and the work directory its programs live in."""

    def __init__(self, checkout: Path, work: Path) -> None:
        self.reckoner = str(checkout / ".venv" / "bin" / "reckoner")
        self.work = work
        self.out: dict[str, str] = {}
        self.norm = Normaliser(
            {str(work): "<WORK>", str(work.resolve()): "<WORK>", str(checkout): "<CHECKOUT>"}
        )

    def put(self, item: str, text: str) -> None:
        self.out[item] = self.norm(text)

    def tape(self, *roots: Path) -> Tape:
        return Tape(roots, self.norm)

    def place(self, name: str) -> dict[str, Path]:
        """A fresh user home, reckoner home, temp dir and project for one scenario."""
        root = self.work / name
        places = {k: root / k for k in ("user", "home", "tmp", "proj")}
        for path in places.values():
            path.mkdir(parents=True)
        return places

    @staticmethod
    def env(places: dict[str, Path], **extra: str) -> dict[str, str]:
        return {
            "PATH": FIXED_PATH,
            "HOME": str(places["user"]),
            "RECKONER_HOME": str(places["home"]),
            "TMPDIR": str(places["tmp"]),
            "COLUMNS": "100",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            **extra,
        }

    def run(
        self, places: dict[str, Path], *args: str, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """One `reckoner` command in the scenario's places (stdin empty unless given)."""
        return subprocess.run(
            [self.reckoner, *args],
            input=stdin or "",
            capture_output=True,
            text=True,
            env=self.env(places),
            cwd=places["proj"],
            timeout=120,
        )

    def cli(self, places: dict[str, Path], *args: str) -> str:
        """One `reckoner` command: its exit code, stdout and stderr as one text."""
        return self.cli_stdin(places, None, *args)

    def cli_stdin(self, places: dict[str, Path], stdin: str | None, *args: str) -> str:
        """One `reckoner` command given ``stdin``: its exit code, stdout and stderr."""
        done = self.run(places, *args, stdin=stdin)
        return f"exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"

    def server(
        self, places: dict[str, Path], *args: str, env: dict[str, str] | None = None
    ) -> StdioServerParameters:
        return StdioServerParameters(
            command=self.reckoner,
            args=list(args),
            env={**self.env(places), **(env or {})},
            cwd=str(places["proj"]),
        )


def dump(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def model(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


def files_of(roots: tuple[Path, ...], norm: Normaliser) -> dict[str, str]:
    """Every file under the roots but the logs and the lock files, by path, as normalised
    text."""
    found: dict[str, str] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.name in SKIPPED_FILES or "logs" in path.parts:
                continue
            try:
                found[norm(str(path))] = norm(path.read_text("utf-8"))
            except UnicodeDecodeError:  # a cache keyed by inode and mtime: only its presence
                found[norm(str(path))] = "(binary file)\n"
    return found


class Tape:
    """A scenario's calls, each with its result and what it changed on disk."""

    def __init__(self, roots: tuple[Path, ...], norm: Normaliser) -> None:
        self.roots = roots
        self.norm = norm
        self.seen = files_of(roots, norm)
        self.lines: list[str] = []

    def changes(self) -> list[str]:
        now = files_of(self.roots, self.norm)
        said: list[str] = []
        for path in sorted(set(self.seen) - set(now)):
            said.append(f"removed {path}")
        for path, text in now.items():
            old = self.seen.get(path)
            if old == text:
                continue
            if old is not None and text.startswith(old):
                said.append(f"appended to {path}:\n{text[len(old) :]}")
            else:
                said.append(f"{'wrote' if old is None else 'rewrote'} {path}:\n{text}")
        self.seen = now
        return said

    def note(self, tool: str, args: Any, result: Any) -> None:
        entry = {"call": tool, "arguments": args, "result": result}
        self.lines.append(self.norm(dump(entry)) + "".join(f"  {c}\n" for c in self.changes()))

    def text(self) -> str:
        return "".join(f"=== call {n}\n{line}" for n, line in enumerate(self.lines, 1))


async def call(client: Client, tape: Tape, tool: str, args: Any) -> dict[str, Any]:
    try:
        dumped = model(await client.call_tool(tool, args))
    except Exception as error:  # a protocol error is an answer too: it is compared
        dumped = {"raised": type(error).__name__, "message": str(error)}
    tape.note(tool, args, dumped)
    structured = dumped.get("structuredContent")
    return structured if isinstance(structured, dict) else {}
