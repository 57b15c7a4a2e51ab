# ruff: noqa: E501 - one lesson or failure a line reads best as the data it is
"""A labelled set for the reminder's precision (issue 26): 50 lessons as a developer's
library holds them, and 50 tool failures as Claude Code reports them, half of them the
failure one lesson is about, half about nothing the library knows.

Shared by the test that holds the figures to their targets and the bench that prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.pitfalls.detector import build_clue
from reckoner.pitfalls.hook import REMINDER_LESSONS
from reckoner.pitfalls.model import clean_fields
from reckoner.pitfalls.tiers import Pitfalls


def _lesson(title: str, solution: str, *tags: str, area: str = "", symptom: str = "") -> dict:
    fields: dict[str, Any] = {"title": title, "solution": solution, "tags": list(tags)}
    if area:
        fields["area"] = area
    if symptom:
        fields["symptom"] = symptom
    return fields


LESSONS: list[dict[str, Any]] = [
    _lesson(
        "npm install -g fails with EACCES",
        "npm install --prefix ~/.local -g PACKAGE",
        "npm",
        "EACCES",
    ),
    _lesson(
        "pip refuses to install: externally-managed-environment",
        "use a venv or uv tool install",
        "pip",
        "PEP668",
    ),
    _lesson("git push rejected: non-fast-forward", "git pull --rebase, then push", "git", "rebase"),
    _lesson(
        "docker build cannot reach the registry behind the proxy",
        "pass HTTP_PROXY as a build arg",
        "docker",
        "proxy",
    ),
    _lesson(
        "pytest cannot import the package under src layout",
        "set pythonpath = src in pytest config or install editable",
        "pytest",
        "ModuleNotFoundError",
    ),
    _lesson(
        "Edit finds several matches of old_string",
        "give more surrounding lines or use replace_all",
        "Edit",
        "replace_all",
    ),
    _lesson("reckoner eval refuses 2x", "write the product: 2*@x", "ENGINE_INVALID_IDENTIFIER"),
    _lesson(
        "reckoner slot not found after a restart",
        "record_start resumes; set the slot again in the new record",
        "ENGINE_SLOT_NOT_FOUND",
    ),
    _lesson(
        "reckoner refuses adding volt and ampere",
        "check the formula's dimensions; multiply, do not add",
        "ENGINE_DIMENSION_MISMATCH",
    ),
    _lesson(
        "cargo build fails linking openssl",
        "apt-get install libssl-dev pkg-config",
        "cargo",
        "openssl",
    ),
    _lesson(
        "node-gyp rebuild fails without python3",
        "install python3 and make, set npm_config_python",
        "node-gyp",
        "python3",
    ),
    _lesson(
        "uvicorn address already in use on port 8000",
        "kill the old server or pass --port 0",
        "uvicorn",
        "EADDRINUSE",
    ),
    _lesson("mypy cannot find stubs for yaml", "uv add --dev types-PyYAML", "mypy", "types-PyYAML"),
    _lesson(
        "ruff reports E501 on long URLs in docstrings",
        "add a noqa: E501 on that line",
        "ruff",
        "E501",
    ),
    _lesson(
        "psql connection refused on localhost 5432",
        "start postgresql: service postgresql start",
        "postgres",
        "5432",
    ),
    _lesson(
        "playwright wants to download a browser",
        "launch with executable_path=/usr/bin/chromium",
        "playwright",
        "chromium",
    ),
    _lesson(
        "latexmk stops at missing ctexart.cls",
        "apt-get install texlive-lang-chinese",
        "latexmk",
        "ctexart",
    ),
    _lesson("go test: cannot find module providing package", "run go mod tidy", "go", "gomod"),
    _lesson(
        "tsc cannot find name describe in test files",
        "add @types/jest to types in tsconfig",
        "tsc",
        "jest",
    ),
    _lesson(
        "make: *** missing separator", "indent recipes with a tab, not spaces", "make", "Makefile"
    ),
    _lesson(
        "ssh host key verification failed after a rebuild",
        "ssh-keygen -R HOST then reconnect",
        "ssh",
        "known_hosts",
    ),
    _lesson(
        "curl SSL certificate problem: unable to get local issuer",
        "install ca-certificates or pass --cacert",
        "curl",
        "ssl",
    ),
    _lesson(
        "alembic upgrade head: target database is not up to date",
        "alembic stamp head after checking the schema",
        "alembic",
        "migration",
    ),
    _lesson(
        "jest ESM: cannot use import statement outside a module",
        "set transform or run node --experimental-vm-modules",
        "jest",
        "esm",
    ),
    _lesson(
        "terraform state lock held",
        "terraform force-unlock LOCK_ID once no run is active",
        "terraform",
        "lock",
    ),
    _lesson(
        "kubectl: the connection to the server was refused",
        "kubectl config use-context the right cluster",
        "kubectl",
        "kubeconfig",
    ),
    _lesson(
        "poetry lock hangs resolving",
        "poetry lock --no-update, or pin the slow dependency",
        "poetry",
        "resolver",
    ),
    _lesson(
        "Read tool refuses a file over its size limit",
        "read a range with offset and limit",
        "Read",
        "offset",
    ),
    _lesson(
        "Write tool refuses: file has not been read yet",
        "Read the file first, then Write",
        "Write",
        "read-first",
    ),
    _lesson(
        "git commit fails: gpg failed to sign the data",
        "git config commit.gpgsign false for this repo, or start gpg-agent",
        "git",
        "gpg",
    ),
    _lesson(
        "black and ruff format fight over quotes",
        "use one formatter: ruff format only",
        "ruff",
        "black",
    ),
    _lesson(
        "numpy ImportError: libopenblas not found",
        "install libopenblas0 or use the wheel from PyPI",
        "numpy",
        "openblas",
    ),
    _lesson(
        "Rscript: there is no package called ggplot2",
        "install.packages('ggplot2') into the user library",
        "Rscript",
        "ggplot2",
    ),
    _lesson(
        "octave-cli: pkg load signal fails", "pkg install -forge signal first", "octave", "signal"
    ),
    _lesson(
        "webpack: Module not found: Can't resolve 'fs'",
        "set resolve.fallback fs: false for the browser build",
        "webpack",
        "fallback",
    ),
    _lesson(
        "django migrations conflict: multiple leaf nodes",
        "python manage.py makemigrations --merge",
        "django",
        "migrations",
    ),
    _lesson(
        "redis-cli: NOAUTH Authentication required",
        "pass -a with the password from REDIS_PASSWORD",
        "redis",
        "NOAUTH",
    ),
    _lesson(
        "java: UnsupportedClassVersionError",
        "run with the JDK the class was built for (major version 61 is 17)",
        "java",
        "jdk",
    ),
    _lesson(
        "mvn: could not resolve dependencies offline",
        "mvn -o only after mvn dependency:go-offline",
        "maven",
        "offline",
    ),
    _lesson(
        "gradle daemon out of memory",
        "org.gradle.jvmargs=-Xmx2g in gradle.properties",
        "gradle",
        "OutOfMemoryError",
    ),
    _lesson(
        "rsync deletes the destination folder's extra files",
        "drop --delete unless a mirror is meant",
        "rsync",
        "delete",
    ),
    _lesson(
        "sed -i on macOS needs an empty suffix",
        "sed -i '' on BSD sed; GNU sed takes -i alone",
        "sed",
        "bsd",
    ),
    _lesson(
        "tar: Cowardly refusing to create an empty archive",
        "name the files to archive after -czf",
        "tar",
        "archive",
    ),
    _lesson(
        "chromium headless crashes without --no-sandbox as root",
        "pass --no-sandbox when running as root",
        "chromium",
        "sandbox",
    ),
    _lesson(
        "systemctl: System has not been booted with systemd",
        "use service or run the daemon directly in containers",
        "systemd",
        "container",
    ),
    _lesson(
        "ffmpeg: Unknown encoder libx264",
        "install an ffmpeg built with libx264",
        "ffmpeg",
        "libx264",
    ),
    _lesson(
        "reckoner record_start refused: a record is open",
        "record_end it or resume it; one open record per lane",
        "ENGINE_OPEN_RECORD_FOUND",
    ),
    _lesson(
        "reckoner unit kOhm written as KOhm",
        "prefixes are case-sensitive: kOhm",
        "ENGINE_INVALID_UNIT",
    ),
    _lesson(
        "hypothesis health check: data too large",
        "bound the strategy sizes or suppress_health_check",
        "hypothesis",
        "HealthCheck",
    ),
    _lesson(
        "wheel build fails: Microsoft Visual C++ 14.0 is required",
        "install the build tools or use a prebuilt wheel",
        "pip",
        "msvc",
    ),
]


@dataclass(frozen=True)
class Failure:
    """One failed tool call as the hook sees it; ``lesson`` is the index of the lesson it is
    about, or None when no lesson is."""

    tool: str
    tool_input: dict[str, Any]
    error: str
    lesson: int | None


def _bash(command: str, error: str, lesson: int | None) -> Failure:
    return Failure("Bash", {"command": command}, error, lesson)


RELATED: list[Failure] = [
    _bash(
        "npm install -g typescript",
        "Exit code 243\nnpm ERR! code EACCES\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/node_modules/typescript'",
        0,
    ),
    _bash(
        "pip install requests",
        "Exit code 1\nerror: externally-managed-environment\nThis environment is externally managed",
        1,
    ),
    _bash(
        "git push origin main",
        "Exit code 1\n! [rejected] main -> main (non-fast-forward)\nerror: failed to push some refs",
        2,
    ),
    _bash(
        "uv run pytest",
        "Exit code 2\nE   ModuleNotFoundError: No module named 'mypkg'\nERROR collecting tests/test_a.py",
        4,
    ),
    Failure(
        "Edit",
        {"file_path": "/app/settings.py", "old_string": "DEBUG = True"},
        "Found 3 matches of the string to replace, but replace_all is false",
        5,
    ),
    Failure(
        "mcp__reckoner__eval",
        {"formula": "2x + 1", "target": "y"},
        "ENGINE_INVALID_IDENTIFIER: 2x is not a name; write the product 2*@x",
        6,
    ),
    Failure(
        "mcp__reckoner__eval",
        {"formula": "@V + @I", "target": "P"},
        "ENGINE_DIMENSION_MISMATCH: cannot add volt and ampere",
        8,
    ),
    _bash(
        "cargo build --release",
        "Exit code 101\nerror: failed to run custom build command for `openssl-sys`\nCould not find directory of OpenSSL installation",
        9,
    ),
    _bash(
        "npm ci",
        "Exit code 1\ngyp ERR! find Python\ngyp ERR! configure error\nnode-gyp rebuild failed: python3 not found",
        10,
    ),
    _bash(
        "uvicorn app:app",
        "Exit code 1\nERROR: [Errno 98] error while attempting to bind on address ('127.0.0.1', 8000): address already in use",
        11,
    ),
    _bash(
        "uv run mypy src",
        'Exit code 1\nsrc/conf.py:3: error: Library stubs not installed for "yaml"\nHint: "python3 -m pip install types-PyYAML"',
        12,
    ),
    _bash(
        "psql -h localhost -U app",
        'Exit code 2\npsql: error: connection to server at "localhost", port 5432 failed: Connection refused',
        14,
    ),
    _bash(
        "uv run python shots.py",
        "Exit code 1\nplaywright._impl._errors.Error: Executable doesn't exist; run playwright install to download chromium",
        15,
    ),
    _bash(
        "latexmk -xelatex article.tex",
        "Exit code 12\n! LaTeX Error: File `ctexart.cls' not found.",
        16,
    ),
    _bash("make build", "Exit code 2\nMakefile:4: *** missing separator.  Stop.", 19),
    _bash(
        "ssh deploy@build-1",
        "Exit code 255\nHost key verification failed.\nOffending key in /root/.ssh/known_hosts:3",
        20,
    ),
    _bash(
        "terraform apply",
        "Exit code 1\nError: Error acquiring the state lock\nLock Info: ID: 4b1f",
        24,
    ),
    Failure(
        "Read",
        {"file_path": "/app/data/big.log"},
        "File content (3.2MB) exceeds maximum allowed size; use offset and limit parameters to read a range",
        27,
    ),
    Failure(
        "Write",
        {"file_path": "/app/README.md"},
        "File has not been read yet. Read it first before writing to it.",
        28,
    ),
    _bash(
        "git commit -m 'fix'",
        "Exit code 128\nerror: gpg failed to sign the data\nfatal: failed to write commit object",
        29,
    ),
    _bash(
        "Rscript plot.R",
        "Exit code 1\nError in library(ggplot2) : there is no package called 'ggplot2'",
        32,
    ),
    _bash(
        "python manage.py migrate",
        "Exit code 1\nCommandError: Conflicting migrations detected; multiple leaf nodes in the migration graph",
        35,
    ),
    _bash(
        "java -jar tool.jar",
        'Exit code 1\nException in thread "main" java.lang.UnsupportedClassVersionError: class file version 61.0',
        37,
    ),
    _bash(
        "chromium --headless --screenshot page.html",
        "Exit code 1\nRunning as root without --no-sandbox is not supported",
        43,
    ),
    Failure(
        "mcp__reckoner__set",
        {"name": "R", "value": {"num": 4.7, "unit": "KOhm"}},
        "ENGINE_INVALID_UNIT: unit 'KOhm' is not known; prefixes are case-sensitive, did you mean kOhm?",
        47,
    ),
]

UNRELATED: list[Failure] = [
    _bash(
        "ls /data/missing",
        "Exit code 2\nls: cannot access '/data/missing': No such file or directory",
        None,
    ),
    _bash("false", "Exit code 1", None),
    _bash("grep -r TODO src", "Exit code 1", None),
    _bash(
        "python -c 'import foo'",
        "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1\nImportError: cannot import name 'bar' from 'foo'",
        None,
    ),
    Failure(
        "mcp__reckoner__eval",
        {"formula": "@F / 0", "target": "a"},
        "ENGINE_DIVISION_BY_ZERO: the divisor is zero; check the value you set first",
        None,
    ),
    _bash("cat notes.txt", "Exit code 1\ncat: notes.txt: Permission denied", None),
    _bash("wc -l data.csv", "Exit code 1\nwc: data.csv: No such file or directory", None),
    _bash("python script.py", "Exit code 1\nZeroDivisionError: division by zero", None),
    _bash(
        "node index.js",
        "Exit code 1\nTypeError: Cannot read properties of undefined (reading 'length')",
        None,
    ),
    Failure(
        "Edit",
        {"file_path": "/app/main.py", "old_string": "def main():"},
        "String to replace not found in file.",
        None,
    ),
    _bash(
        "pytest tests/test_math.py",
        "Exit code 1\nFAILED tests/test_math.py::test_add - assert 3 == 4",
        None,
    ),
    _bash(
        "echo $UNSET_VAR | jq .",
        'Exit code 5\njq: error (at <stdin>:0): Cannot index string with string "x"',
        None,
    ),
    Failure(
        "WebFetch", {"url": "https://example.org/page"}, "Request failed with status code 404", None
    ),
    _bash("timeout 5 sleep 10", "Exit code 124", None),
    _bash(
        "mkdir /proc/x",
        "Exit code 1\nmkdir: cannot create directory '/proc/x': No such file or directory",
        None,
    ),
    _bash(
        "python -m json.tool bad.json",
        "Exit code 1\nExpecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        None,
    ),
    Failure("Glob", {"pattern": "**/*.rs"}, "No files found", None),
    _bash("diff a.txt b.txt", "Exit code 1\n1c1\n< one\n---\n> two", None),
    _bash(
        "ping -c1 10.0.0.1",
        "Exit code 1\n1 packets transmitted, 0 received, 100% packet loss",
        None,
    ),
    _bash("python train.py", "Exit code 137\nKilled", None),
    _bash(
        "awk '{print $3}' log.txt | sort -n | tail -1",
        "Exit code 2\nawk: cannot open log.txt (No such file or directory)",
        None,
    ),
    Failure(
        "mcp__reckoner__eval",
        {"formula": "sqrt(@A", "target": "r"},
        "ENGINE_PARSE_ERROR: unclosed parenthesis at column 5",
        None,
    ),
    _bash("convert in.png out.jpg", "Exit code 127\nbash: convert: command not found", None),
    _bash("unzip bundle.zip", "Exit code 9\nEnd-of-central-directory signature not found.", None),
    _bash(
        "python -m http.server 8080 & curl localhost:8081",
        "Exit code 7\ncurl: (7) Failed to connect to localhost port 8081: Couldn't connect to server",
        None,
    ),
]

FAILURES = RELATED + UNRELATED

FIRST_RIGHT_TARGET = 0.80
"""Of related failures, the share whose reminder offers the right lesson first."""
QUIET_TARGET = 0.90
"""Of unrelated failures, the share for which no reminder fires."""


@dataclass(frozen=True)
class Precision:
    """How the reminder did on the labelled set."""

    first_right: int
    related: int
    quiet: int
    unrelated: int
    misses: tuple[str, ...]
    """Each failure the reminder got wrong, with what it offered, to read when it regresses."""

    @property
    def first_right_share(self) -> float:
        return self.first_right / self.related

    @property
    def quiet_share(self) -> float:
        return self.quiet / self.unrelated


def measure(home: Path, *, evidence: bool = True) -> Precision:
    """Record the 50 lessons in ``home`` and offer a reminder for each of the 50 failures,
    exactly as the hook does (its clue, its search, its number of lessons); without
    ``evidence``, as a plain search of the clue (the reminder before issue 26)."""
    pitfalls = Pitfalls.open(home)
    ids = [str(pitfalls.record(clean_fields(fields)).entry["id"]) for fields in LESSONS]
    first_right = quiet = 0
    misses: list[str] = []
    for failure in FAILURES:
        clue = build_clue(failure.tool_input, (failure.error,))
        tool = failure.tool if evidence else None
        hits = pitfalls.search(clue, limit=REMINDER_LESSONS, failed_tool=tool)
        offered = [str(hit.entry["title"]) for hit in hits]
        if failure.lesson is None:
            quiet += not hits
            right = not hits
        else:
            right = bool(hits) and hits[0].entry["id"] == ids[failure.lesson]
            first_right += right
        if not right:
            misses.append(f"{failure.error.splitlines()[-1][:60]!r} -> {offered}")
    return Precision(first_right, len(RELATED), quiet, len(UNRELATED), tuple(misses))
