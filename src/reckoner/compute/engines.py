"""One descriptor per engine: where to find it, how to ask its version, how to run it.

Argv templates are data. Placeholders are replaced at string level wherever they occur
(``run('<script>')`` expands inside the element): ``<script>`` the archived script's
absolute path, ``<expr>`` the expression, ``<pkgs>`` the packages joined by commas; the
element ``<pkgs...>`` alone becomes one argv item per package. No template holds a shell
metacharacter such as ``|`` or ``%``: nothing here ever goes through a shell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from reckoner.contract.compute import COMPUTE_ENGINES

SCRIPT = "<script>"
EXPR = "<expr>"
PKGS = "<pkgs>"
PKGS_EACH = "<pkgs...>"
PLACEHOLDERS = (SCRIPT, EXPR, PKGS, PKGS_EACH)


@dataclass(frozen=True, slots=True)
class InstallGuide:
    """How a user installs an engine themselves, per operating system."""

    linux: str
    macos: str
    windows: str
    link: str


@dataclass(frozen=True, slots=True)
class Descriptor:
    """Everything compute knows about one engine; behaviour lives elsewhere."""

    name: str
    ext: str
    candidates: tuple[str, ...]
    known_locations: tuple[str, ...]  # glob patterns; ~ is the user's home
    version_argv: tuple[str, ...]
    version_pattern: str  # first group is the version, searched in stdout then stderr
    run_argv: tuple[str, ...] | None
    eval_argv: tuple[str, ...] | None
    package_probe: tuple[str, ...] | None
    guide: InstallGuide
    commercial: bool = False
    license_argv: tuple[str, ...] | None = None
    verify: str | None = None  # why a template still needs confirming on a licensed machine
    bad_argv_signs: tuple[str, ...] = field(default=())

    def version_of(self, text: str) -> str | None:
        found = re.search(self.version_pattern, text)
        return found.group(1) if found else None


def expand(
    template: Sequence[str], *, script: str = "", expr: str = "", packages: Sequence[str] = ()
) -> list[str]:
    """A template with every placeholder replaced at string level."""
    argv: list[str] = []
    joined = ",".join(packages)
    for item in template:
        if item == PKGS_EACH:
            argv.extend(packages)
            continue
        argv.append(item.replace(SCRIPT, script).replace(EXPR, expr).replace(PKGS, joined))
    return argv


# Package probes print one line per package, "name ok" or "name missing".
_PY_PROBE = (
    "import sys, importlib.util, importlib.metadata as m\n"
    "for p in sys.argv[1:]:\n"
    "    try:\n"
    "        m.distribution(p); ok = True\n"
    "    except Exception:\n"
    "        ok = importlib.util.find_spec(p.replace('-', '_')) is not None\n"
    "    print(p, 'ok' if ok else 'missing')\n"
)
_R_PROBE = (
    "for (p in strsplit('<pkgs>', ',')[[1]]) "
    "cat(p, if (requireNamespace(p, quietly = TRUE)) 'ok' else 'missing', '\\n')"
)
_OCTAVE_PROBE = (
    "ps = strsplit('<pkgs>', ','); for i = 1:numel(ps), "
    "if isempty(pkg('list', ps{i})), s = 'missing'; else, s = 'ok'; end, "
    "disp([ps{i} ' ' s]); end"
)
_JULIA_PROBE = (
    'for p in split("<pkgs>", ","); '
    'println(p, " ", Base.find_package(String(p)) === nothing ? "missing" : "ok"); end'
)

DESCRIPTORS: dict[str, Descriptor] = {
    "python": Descriptor(
        name="python",
        ext="py",
        candidates=("python3", "python", "py"),
        known_locations=(
            "/usr/bin/python3",
            "/usr/local/bin/python3",
            "/opt/homebrew/bin/python3",
            "~/AppData/Local/Programs/Python/Python3*/python.exe",
        ),
        version_argv=("--version",),
        version_pattern=r"Python (\d+\.\d+(?:\.\d+)?)",
        run_argv=(SCRIPT,),
        eval_argv=("-c", f"print({EXPR})"),
        package_probe=("-c", _PY_PROBE, PKGS_EACH),
        guide=InstallGuide(
            linux="sudo apt-get install python3 (Debian/Ubuntu) or sudo dnf install python3",
            macos="brew install python",
            windows="winget install Python.Python.3.12",
            link="https://www.python.org/downloads/",
        ),
        bad_argv_signs=("unknown option", "usage: python"),
    ),
    "r": Descriptor(
        name="r",
        ext="R",
        candidates=("Rscript",),
        known_locations=(
            "/usr/lib/R/bin/Rscript",
            "/opt/R/*/bin/Rscript",
            "/Library/Frameworks/R.framework/Resources/bin/Rscript",
            "C:/Program Files/R/R-*/bin/Rscript.exe",
        ),
        version_argv=("--version",),
        version_pattern=r"version (\d+\.\d+\.\d+)",
        run_argv=(SCRIPT,),
        eval_argv=("-e", EXPR),
        package_probe=("-e", _R_PROBE),
        guide=InstallGuide(
            linux="sudo apt-get install r-base-core (Debian/Ubuntu) or sudo dnf install R",
            macos="brew install r",
            windows="winget install RProject.R",
            link="https://cran.r-project.org/",
        ),
        bad_argv_signs=("unknown option", "Usage: Rscript"),
    ),
    "octave": Descriptor(
        name="octave",
        ext="m",
        candidates=("octave-cli", "octave"),
        known_locations=(
            "/usr/bin/octave-cli",
            "/opt/octave*/bin/octave-cli",
            "/Applications/Octave-*.app/Contents/Resources/usr/bin/octave-cli",
            "C:/Program Files/GNU Octave/Octave-*/mingw64/bin/octave-cli.exe",
        ),
        version_argv=("--version",),
        version_pattern=r"version (\d+\.\d+\.\d+)",
        run_argv=("--quiet", "--no-init-file", "--no-window-system", SCRIPT),
        eval_argv=("--quiet", "--no-init-file", "--no-window-system", "--eval", EXPR),
        package_probe=("--quiet", "--no-init-file", "--no-window-system", "--eval", _OCTAVE_PROBE),
        guide=InstallGuide(
            linux=(
                "sudo apt-get install octave (Debian/Ubuntu) or flatpak install org.octave.Octave"
            ),
            macos="brew install octave",
            windows="winget install GNU.Octave",
            link="https://octave.org/download",
        ),
        bad_argv_signs=("unrecognized option", "invalid option"),
    ),
    "julia": Descriptor(
        name="julia",
        ext="jl",
        candidates=("julia",),
        known_locations=(
            "~/.juliaup/bin/julia",
            "/opt/julia*/bin/julia",
            "/Applications/Julia-*.app/Contents/Resources/julia/bin/julia",
            "~/AppData/Local/Programs/Julia-*/bin/julia.exe",
        ),
        version_argv=("--version",),
        version_pattern=r"julia version (\d+\.\d+\.\d+)",
        run_argv=("--startup-file=no", SCRIPT),
        eval_argv=("--startup-file=no", "-e", f"println({EXPR})"),
        package_probe=("--startup-file=no", "-e", _JULIA_PROBE),
        guide=InstallGuide(
            linux="curl -fsSL https://install.julialang.org | sh (juliaup, user scope)",
            macos="brew install juliaup && juliaup add release",
            windows="winget install julia -s msstore",
            link="https://julialang.org/downloads/",
        ),
        bad_argv_signs=("unknown option", "invalid option"),
    ),
    "matlab": Descriptor(
        name="matlab",
        ext="m",
        candidates=("matlab",),
        known_locations=(
            "/usr/local/MATLAB/R*/bin/matlab",
            "/Applications/MATLAB_R*.app/bin/matlab",
            "C:/Program Files/MATLAB/R*/bin/matlab.exe",
        ),
        version_argv=("-batch", "disp(version)"),
        version_pattern=r"(\d+\.\d+\.\d+\.\d+(?: \(R\d{4}[ab]\))?)",
        run_argv=("-batch", f"run('{SCRIPT}')"),
        eval_argv=("-batch", f"disp({EXPR})"),
        package_probe=None,
        guide=InstallGuide(
            linux="the MathWorks installer for Linux, then activate a license",
            macos="the MathWorks installer for macOS, then activate a license",
            windows="the MathWorks installer for Windows, then activate a license",
            link="https://www.mathworks.com/downloads/",
        ),
        commercial=True,
        license_argv=("-batch", "disp(license())"),
        verify="the -batch form needs R2019a or later; confirm on a licensed machine",
        bad_argv_signs=("not a valid option", "Unknown command option"),
    ),
    "maple": Descriptor(
        name="maple",
        ext="mpl",
        candidates=("maple",),
        known_locations=(),
        version_argv=("-q", "-c", "interface(version)", "-c", "quit"),
        version_pattern=r"Maple (\d+(?:\.\d+)*)",
        run_argv=("-q", SCRIPT),
        eval_argv=None,
        package_probe=None,
        guide=InstallGuide(
            linux="the Maplesoft installer for Linux, then activate a license",
            macos="the Maplesoft installer for macOS, then activate a license",
            windows="the Maplesoft installer for Windows, then activate a license",
            link="https://www.maplesoft.com/products/maple/",
        ),
        commercial=True,
        license_argv=("-q", "-c", "quit"),
        verify=(
            "the command-line spelling changes between Maple versions; confirm on "
            "a licensed machine"
        ),
        bad_argv_signs=("unknown option", "invalid option"),
    ),
    "wolfram": Descriptor(
        name="wolfram",
        ext="wl",
        candidates=("wolframscript",),
        known_locations=(),
        version_argv=("-version",),
        version_pattern=r"(\d+\.\d+(?:\.\d+)*)",
        run_argv=("-file", SCRIPT),
        eval_argv=("-code", EXPR),
        package_probe=None,
        guide=InstallGuide(
            linux="the Wolfram Engine installer for Linux, then wolframscript -activate",
            macos="the Wolfram Engine installer for macOS, then wolframscript -activate",
            windows="the Wolfram Engine installer for Windows, then wolframscript -activate",
            link="https://www.wolfram.com/engine/",
        ),
        commercial=True,
        license_argv=("-code", "$LicenseID"),
        verify="the -file and -code forms are wolframscript's; confirm on a licensed machine",
        bad_argv_signs=("Unknown option", "unrecognized option"),
    ),
}

CLI_EXT = "txt"
"""The cli engine archives its script as .txt: its command may be any program."""

PROGRAM_SLOTS = ("-c", "-m", "-e", "--eval", "--command")
"""A cli argv holding one of these already names what to run: the script is not appended."""


def family_of(command: str) -> Descriptor | None:
    """The descriptor whose program a cli command runs (python3.12 is python), if any."""
    base = re.split(r"[\\/]", command)[-1].lower().removesuffix(".exe")
    for descriptor in DESCRIPTORS.values():
        if descriptor.commercial:
            continue
        for candidate in descriptor.candidates:
            stem = candidate.lower()
            if base == stem or (
                stem.startswith("python") and re.fullmatch(r"python3?(\.\d+)?", base)
            ):
                return descriptor
    return None


def _check_descriptors() -> None:
    """Every contract engine but cli has a descriptor, and templates use known placeholders."""
    expected = set(COMPUTE_ENGINES) - {"cli"}
    if set(DESCRIPTORS) != expected:  # pragma: no cover - a build error, not a runtime state
        raise RuntimeError("compute descriptors and the contract's engines differ")


_check_descriptors()
