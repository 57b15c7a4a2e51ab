"""Compute's door to the process owner (:mod:`reckoner.host.processes`).

It adds what is compute's own: the variables an engine genuinely needs besides the base
allow-list, and those an install's package manager needs. Everything else (the warden, the
whole-tree kill, the output cap, the network namespace) is the owner's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from reckoner.host import processes
from reckoner.host.processes import (
    MAX_STREAM_BYTES,
    Completed,
    RunSpec,
    kill_running,
    network_isolation,
    which,
)

__all__ = [
    "ENGINE_ENVIRONMENT",
    "INSTALL_ENVIRONMENT",
    "MAX_STREAM_BYTES",
    "Completed",
    "RunSpec",
    "child_environment",
    "kill_running",
    "network_isolation",
    "run",
    "which",
]

ENGINE_ENVIRONMENT = (
    # python: the environment and version manager that choose the interpreter
    "VIRTUAL_ENV", "PYENV_VERSION", "PYENV_ROOT", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
    # R: its home and the user's package libraries
    "R_HOME", "R_LIBS", "R_LIBS_USER", "R_LIBS_SITE",
    # julia: its depot and project
    "JULIA_DEPOT_PATH", "JULIA_PROJECT", "JULIA_LOAD_PATH",
    # the commercial engines find their license server through these
    "MLM_LICENSE_FILE", "LM_LICENSE_FILE", "MATLAB_LICENSE_FILE",
)  # fmt: skip
"""What an engine needs besides ``processes.BASE_ENVIRONMENT``; the settings add more."""

INSTALL_ENVIRONMENT = (
    "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
    "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_CACHE_DIR", "PIP_CACHE_DIR", "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
)  # fmt: skip
"""What a package manager needs to reach its index, on top of the engine's variables."""


def child_environment(
    source: Mapping[str, str] | None = None, names: Iterable[str] = ()
) -> dict[str, str]:
    """The environment an engine gets from ``source`` (ours by default)."""
    return processes.child_environment(source, (*ENGINE_ENVIRONMENT, *names))


def run(argv: Sequence[str], spec: RunSpec) -> Completed:
    """An engine's process through the owner, with the engine's variables allowed."""
    return processes.run(argv, replace(spec, names=(*ENGINE_ENVIRONMENT, *spec.names)))
