"""The compute settings (``state.json``'s ``compute`` subtree and server options). Pure.

Every unusable value falls back to its default, and each fallback is returned as a note
the caller logs: a hand-edited file never stops the server and never fails silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reckoner.contract.compute import COMPUTE_ENGINES
from reckoner.contract.limits import MAX_STREAM_BYTES, MIN_COMPUTE_TIMEOUT_MS, MIN_STREAM_CAP_BYTES

MODES = ("off", "auto", "on")
SCOPES = ("user", "system")
DEFAULT_TIMEOUT_MS = 60_000
NETWORKS = ("on", "off")
DEFAULT_MAX_OUTPUT_BYTES = MAX_STREAM_BYTES
MAX_PASSED_NAMES = 64
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
SETTING_KEYS = (
    "mode", "engines", "timeoutMs", "packages", "installScope", "network", "maxOutputBytes",
    "passEnvironment",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ComputeSettings:
    """What the compute tool may do on this server."""

    mode: str = "auto"
    engines: tuple[str, ...] = COMPUTE_ENGINES
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    packages: tuple[str, ...] = ()
    install_scope: str = "user"
    # off: runs go without network, or are refused where that cannot be enforced; any
    # other value is kept as given so that every run is refused until it is fixed
    network: str = "on"
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES  # per stream; a run past it is stopped
    pass_environment: tuple[str, ...] = ()  # variables a run gets beyond the allow-list
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def network_understood(self) -> bool:
        return self.network in NETWORKS

    def as_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "engines": list(self.engines),
            "timeoutMs": self.timeout_ms,
            "packages": list(self.packages),
            "installScope": self.install_scope,
            "network": self.network,
            "maxOutputBytes": self.max_output_bytes,
            "passEnvironment": list(self.pass_environment),
        }


def normalise(raw: Any) -> ComputeSettings:
    """Settings from a subtree (or server options merged over it), defaults where unusable."""
    notes: list[str] = []
    tree: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if raw is not None and not isinstance(raw, dict):
        notes.append("compute settings are not an object; using the defaults")
    unknown = sorted(str(k) for k in tree if k not in SETTING_KEYS)
    if unknown:
        notes.append(f"compute settings ignore unknown keys: {', '.join(unknown)}")
    mode = _pick(tree, notes, "mode", MODES, "auto")
    scope = _pick(tree, notes, "installScope", SCOPES, "user")
    network = _network(tree, notes)
    return ComputeSettings(
        mode,
        _engines(tree, notes),
        _timeout(tree, notes),
        _packages(tree, notes),
        scope,
        network,
        _max_output(tree, notes),
        _passed_names(tree, notes),
        tuple(notes),
    )


def _pick(
    tree: dict[str, Any], notes: list[str], key: str, allowed: tuple[str, ...], default: str
) -> str:
    value = tree.get(key, default)
    if value in allowed:
        return str(value)
    notes.append(f"compute {key} {value!r} is not one of {', '.join(allowed)}; using {default}")
    return default


def _engines(tree: dict[str, Any], notes: list[str]) -> tuple[str, ...]:
    raw = tree.get("engines")
    if raw is None:
        return COMPUTE_ENGINES
    listed = raw if isinstance(raw, list) else []
    kept = tuple(dict.fromkeys(e for e in listed if e in COMPUTE_ENGINES))
    dropped = [e for e in listed if e not in COMPUTE_ENGINES]
    if dropped:
        notes.append(f"compute engines drops unknown names: {', '.join(map(str, dropped))}")
    if kept:
        return kept
    notes.append("compute engines names no known engine; using the default list")
    return COMPUTE_ENGINES


def _timeout(tree: dict[str, Any], notes: list[str]) -> int:
    value = tree.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    if type(value) is not int or value <= 0:
        notes.append(f"compute timeoutMs {value!r} is not a positive integer; using 60000")
        return DEFAULT_TIMEOUT_MS
    if value < MIN_COMPUTE_TIMEOUT_MS:
        notes.append(f"compute timeoutMs {value} is below {MIN_COMPUTE_TIMEOUT_MS}; raised")
        return MIN_COMPUTE_TIMEOUT_MS
    return value


def _packages(tree: dict[str, Any], notes: list[str]) -> tuple[str, ...]:
    raw = tree.get("packages")
    if raw is None:
        return ()
    if isinstance(raw, list) and all(type(p) is str and p for p in raw):
        return tuple(raw)
    notes.append("compute packages is not a list of names; using none")
    return ()


def _network(tree: dict[str, Any], notes: list[str]) -> str:
    """The network setting; one not understood is kept (as text) so runs are refused, since
    reading it as on would give a run the network its owner meant to take away."""
    value = tree.get("network", "on")
    if value in NETWORKS:
        return str(value)
    shown = repr(value)[:40]
    notes.append(
        f"compute network {shown} is not one of {', '.join(NETWORKS)}; every run is refused "
        "until it is set to on or off"
    )
    return shown


def _max_output(tree: dict[str, Any], notes: list[str]) -> int:
    value = tree.get("maxOutputBytes", DEFAULT_MAX_OUTPUT_BYTES)
    if type(value) is not int or value < MIN_STREAM_CAP_BYTES:
        notes.append(
            f"compute maxOutputBytes {value!r} is not an integer of at least "
            f"{MIN_STREAM_CAP_BYTES}; using {DEFAULT_MAX_OUTPUT_BYTES}"
        )
        return DEFAULT_MAX_OUTPUT_BYTES
    return value


def _passed_names(tree: dict[str, Any], notes: list[str]) -> tuple[str, ...]:
    raw = tree.get("passEnvironment")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        notes.append("compute passEnvironment is not a list of variable names; passing none")
        return ()
    kept = [n for n in raw if type(n) is str and _VARIABLE_NAME.fullmatch(n)]
    dropped = [repr(n)[:40] for n in raw if n not in kept]
    if dropped:
        notes.append(
            f"compute passEnvironment drops what is not a variable name: {', '.join(dropped)}"
        )
    if len(kept) > MAX_PASSED_NAMES:
        notes.append(f"compute passEnvironment keeps its first {MAX_PASSED_NAMES} names")
    return tuple(dict.fromkeys(kept))[:MAX_PASSED_NAMES]


def merged(stored: Any, options: dict[str, Any]) -> ComputeSettings:
    """Server options (those given, not None) over the stored subtree."""
    tree = dict(stored) if isinstance(stored, dict) else {}
    tree.update({k: v for k, v in options.items() if v is not None})
    return normalise(tree)
