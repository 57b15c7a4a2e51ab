"""The LaTeX toolchain: the one module that runs TeX programs (an article's optional compile,
docs/guide/articles.md).

``latexmk -xelatex`` is preferred and plain ``xelatex`` (two passes, for the long tables) is
the fallback. TeX runs with shell escape off and file writes limited to the article's folder,
since a model wrote part of the input. A failure keeps the ``.tex`` and reports the log's tail.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reckoner.articles.latex import SHELL_REQUIREMENTS
from reckoner.host import processes

COMPILE_TIMEOUT_S = 300.0
LOG_TAIL_LINES = 30
_KPSEWHICH_TIMEOUT_MS = 20_000
TEX_ENVIRONMENT = ("TEXMFHOME", "TEXMFVAR", "TEXMFCONFIG", "SOURCE_DATE_EPOCH")
"""What TeX may take from our environment besides the base allow-list: the user's own
tree and caches (a package installed there is found), and a reproducible date."""
# kpathsea reads these over texmf.cnf: no \write18, no reads or writes outside the folder.
TEX_SETTINGS = {"shell_escape": "f", "openout_any": "p", "openin_any": "p"}


@dataclass(frozen=True)
class CompileOutcome:
    ok: bool
    pdf: Path | None
    driver: str
    sentence: str
    log_tail: str


class CompileCancelled(Exception):
    """The job was cancelled while TeX ran; its whole process tree has been stopped."""


def capability() -> dict[str, object]:
    """What the setup dialog needs to know: the drivers found, and whether each shell's
    classes and packages are installed."""
    latexmk = processes.which("latexmk")
    xelatex = processes.which("xelatex")
    found = {name: _kpsewhich(name) for names in SHELL_REQUIREMENTS.values() for name in names}
    shells = {
        language: all(found[name] for name in names)
        for language, names in SHELL_REQUIREMENTS.items()
    }
    return {
        "latexmk": latexmk,
        "xelatex": xelatex,
        "ctex": found["ctexart.cls"],
        "fontspec": found["fontspec.sty"],
        "shells": shells,
        "canCompile": xelatex is not None,
    }


def _kpsewhich(name: str) -> bool:
    program = processes.which("kpsewhich")
    if program is None:
        return False
    done = processes.run(
        [program, name],
        processes.RunSpec(
            cwd="/", timeout_ms=_KPSEWHICH_TIMEOUT_MS, names=TEX_ENVIRONMENT, values=TEX_SETTINGS
        ),
    )
    return done.exit == 0 and bool(done.stdout.strip())


def compile_pdf(
    tex: Path,
    cancelled: Callable[[], bool],
    timeout: float = COMPILE_TIMEOUT_S,
) -> CompileOutcome:
    """Compile ``tex`` in its own folder; the outcome names the driver and, on failure, why."""
    folder = tex.parent
    latexmk = processes.which("latexmk")
    xelatex = processes.which("xelatex")
    if xelatex is None:
        return CompileOutcome(
            False,
            None,
            "none",
            "No xelatex was found on this machine, so the PDF was not made; install TeX Live's "
            "XeLaTeX (Debian: texlive-xetex, latexmk, texlive-lang-chinese) or turn compile off.",
            "",
        )
    flags = ["-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape"]
    if latexmk is not None:
        driver = "latexmk"
        program = f"-pdfxelatex={xelatex} {' '.join(flags)} %O %S"
        passes = [[latexmk, "-xelatex", program, tex.name]]
    else:
        driver = "xelatex"
        passes = [[xelatex, *flags, tex.name]] * 2
    deadline = time.monotonic() + timeout
    for command in passes:
        code = _run(command, folder, cancelled, deadline)
        if code is None:
            return CompileOutcome(
                False,
                None,
                driver,
                f"The PDF compile took longer than {timeout:.0f} s and was stopped; the .tex "
                "is kept, so compile it by hand or shorten the article.",
                _log_tail(tex),
            )
        if code != 0:
            return CompileOutcome(
                False,
                None,
                driver,
                f"{driver} failed (exit status {code}); the .tex is kept beside the log, whose "
                "last lines follow.",
                _log_tail(tex),
            )
    pdf = tex.with_suffix(".pdf")
    if not pdf.is_file():
        return CompileOutcome(
            False, None, driver, f"{driver} finished but wrote no PDF.", _log_tail(tex)
        )
    return CompileOutcome(True, pdf, driver, "", "")


def _run(
    command: list[str], folder: Path, cancelled: Callable[[], bool], deadline: float
) -> int | None:
    """The exit status, None on timeout; raises CompileCancelled when the job is cancelled.

    latexmk starts xelatex as a child: the process owner stops the whole tree either way.
    """
    left_ms = max(int((deadline - time.monotonic()) * 1000), 1)
    with open(folder / ".compile-output.txt", "wb") as output:
        done = processes.run(
            command,
            processes.RunSpec(
                cwd=str(folder),
                timeout_ms=left_ms,
                names=TEX_ENVIRONMENT,
                values=TEX_SETTINGS,
                stdout=output,
                stderr=output,
                cancel=cancelled,
            ),
        )
    if done.cancelled:
        raise CompileCancelled
    if done.timed_out:
        return None
    if not done.spawned:
        return 127
    return done.exit if done.exit is not None else 1


def _log_tail(tex: Path) -> str:
    for candidate in (tex.with_suffix(".log"), tex.parent / ".compile-output.txt"):
        try:
            lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if lines:
            return "\n".join(lines[-LOG_TAIL_LINES:])
    return ""
