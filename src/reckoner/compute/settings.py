"""The compute settings (``state.json``'s ``compute`` subtree and server options). Pure.

Every unusable value falls back to its default, and each fallback is returned as a note
the caller logs: a hand-edited file never stops the server and never fails silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reckoner.core.contract import COMPUTE_ENGINES
from reckoner.core.limits import MIN_COMPUTE_TIMEOUT_MS

MODES = ("off", "auto", "on")
SCOPES = ("user", "system")
DEFAULT_TIMEOUT_MS = 60_000
NETWORKS = ("on", "off")
SETTING_KEYS = ("mode", "engines", "timeoutMs", "packages", "installScope", "network")


@dataclass(frozen=True, slots=True)
class ComputeSettings:
    """What the compute tool may do on this server."""

    mode: str = "auto"
    engines: tuple[str, ...] = COMPUTE_ENGINES
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    packages: tuple[str, ...] = ()
    install_scope: str = "user"
    network: str = "on"  # off: runs go without network where the machine can enforce it
    notes: tuple[str, ...] = field(default=(), compare=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "engines": list(self.engines),
            "timeoutMs": self.timeout_ms,
            "packages": list(self.packages),
            "installScope": self.install_scope,
            "network": self.network,
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

    def pick(key: str, allowed: tuple[str, ...], default: str) -> str:
        value = tree.get(key, default)
        if value in allowed:
            return str(value)
        notes.append(f"compute {key} {value!r} is not one of {', '.join(allowed)}; using {default}")
        return default

    mode = pick("mode", MODES, "auto")
    scope = pick("installScope", SCOPES, "user")
    network = pick("network", NETWORKS, "on")

    engines: tuple[str, ...] = COMPUTE_ENGINES
    raw_engines = tree.get("engines")
    if raw_engines is not None:
        listed = raw_engines if isinstance(raw_engines, list) else []
        kept = tuple(dict.fromkeys(e for e in listed if e in COMPUTE_ENGINES))
        dropped = [e for e in listed if e not in COMPUTE_ENGINES]
        if dropped:
            notes.append(f"compute engines drops unknown names: {', '.join(map(str, dropped))}")
        if kept:
            engines = kept
        else:
            notes.append("compute engines names no known engine; using the default list")

    timeout = tree.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    if type(timeout) is not int or timeout <= 0:
        notes.append(f"compute timeoutMs {timeout!r} is not a positive integer; using 60000")
        timeout = DEFAULT_TIMEOUT_MS
    elif timeout < MIN_COMPUTE_TIMEOUT_MS:
        notes.append(f"compute timeoutMs {timeout} is below {MIN_COMPUTE_TIMEOUT_MS}; raised")
        timeout = MIN_COMPUTE_TIMEOUT_MS

    packages: tuple[str, ...] = ()
    raw_packages = tree.get("packages")
    if raw_packages is not None:
        if isinstance(raw_packages, list) and all(type(p) is str and p for p in raw_packages):
            packages = tuple(raw_packages)
        else:
            notes.append("compute packages is not a list of names; using none")

    return ComputeSettings(mode, engines, timeout, packages, scope, network, tuple(notes))


def merged(stored: Any, options: dict[str, Any]) -> ComputeSettings:
    """Server options (those given, not None) over the stored subtree."""
    tree = dict(stored) if isinstance(stored, dict) else {}
    tree.update({k: v for k, v in options.items() if v is not None})
    return normalise(tree)
