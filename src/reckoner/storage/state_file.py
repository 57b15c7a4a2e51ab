"""``state.json``, the remembered settings: the only module that touches it (docs/guide/records.md).

The file is a tree with one subtree per module that remembers settings, plus the flat
``restartRequired`` marker. A writer replaces only its own subtree; every other key,
including a newer build's, survives verbatim. Writes replace the file atomically, and
each read-modify-write holds ``.state.lock`` (``flock``) so that writers in different
processes, each changing its own subtree, never lose each other's change.
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from reckoner import wire
from reckoner.storage.home import HomeLayout
from reckoner.storage.home_lock import home_wide

SCHEMA_VERSION = 1
SCHEMA_KEY = "schema"
RESTART_KEY = "restartRequired"
GENERATION_KEY = "generation"
_FORMATS = ("markdown", "latex")

# One lock per file for every StateFile in this process (the engine and the panel may each
# hold one on the same home); the flock on .state.lock orders the processes.
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock_for(path: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


class StateFile:
    """Read and write ``state.json`` one subtree at a time."""

    def __init__(self, layout: HomeLayout) -> None:
        self.layout = layout
        self._thread_lock = _lock_for(os.path.abspath(layout.state_file))

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        """Exclusive against this process's threads and every other process."""
        with self._thread_lock, home_wide(self.layout.state_lock_file):
            yield

    # -- reading -------------------------------------------------------------------

    def read(self) -> dict[str, Any]:
        """The whole tree; a missing, corrupt or non-object file reads as ``{}``."""
        try:
            with open(self.layout.state_file, "rb") as handle:
                data = handle.read()
            value = wire.loads(data)
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def problem(self) -> str | None:
        """Why the file would read as ``{}`` although it exists (``reckoner doctor``), or
        None when it is absent or a JSON object."""
        try:
            with open(self.layout.state_file, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return None
        except OSError as error:
            return f"cannot be read ({error.strerror or type(error).__name__})"
        try:
            value = wire.loads(data)
        except ValueError:
            return "is not valid JSON, so every remembered setting reads as its default"
        if not isinstance(value, dict):
            return "is not a JSON object, so every remembered setting reads as its default"
        return None

    def subtree(self, key: str) -> dict[str, Any]:
        """A copy of one module's subtree; ``{}`` when absent or not an object."""
        value = self.read().get(key)
        tree = copy.deepcopy(value) if isinstance(value, dict) else {}
        if key == GENERATION_KEY:
            self._overlay_legacy_directory(tree)
        return tree

    def restart_required(self) -> bool:
        """True while something changed that the running engine reads only at its next start."""
        return self.read().get(RESTART_KEY) is True

    # -- writing -------------------------------------------------------------------

    def write_subtree(self, key: str, value: dict[str, Any] | None) -> None:
        """Replace one subtree (None removes it); every other key survives verbatim."""
        if key in (SCHEMA_KEY, RESTART_KEY):
            raise ValueError(f"{key!r} is not a settings subtree; it is managed by StateFile")
        if value is not None and not isinstance(value, dict):
            raise TypeError(f"the {key!r} subtree must be an object or None")
        with self._lock():
            tree = self.read()
            if value is None:
                tree.pop(key, None)
            else:
                tree[key] = copy.deepcopy(value)
            self._write_locked(tree)
            if key == GENERATION_KEY:
                # The first write of the article settings supersedes the old text file.
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.layout.legacy_generate_dir_file)

    def set_restart_required(self, flag: bool) -> None:
        """Set the flat marker; absent while false, since absent and false are one fact."""
        with self._lock():
            tree = self.read()
            if flag:
                if tree.get(RESTART_KEY) is True:
                    return
                tree[RESTART_KEY] = True
            else:
                if RESTART_KEY not in tree:
                    return
                del tree[RESTART_KEY]
            self._write_locked(tree)

    def migrate_legacy(self) -> bool:
        """Fold an older build's flat article keys into the tree, once, at start (9.1).

        ``generateDir`` and ``generateLanguage`` go into both formats, ``generateCompile``
        into LaTeX alone, and ``generateFormat`` is dropped. Returns True when it wrote.
        """
        legacy = {"generateDir": "directory", "generateLanguage": "language"}
        with self._lock():
            tree = self.read()
            flat = [k for k in (*legacy, "generateCompile", "generateFormat") if k in tree]
            if not flat:
                return False
            generation = tree.get(GENERATION_KEY)
            if not isinstance(generation, dict):
                generation = {}
            targets = {name: _child(generation, name) for name in _FORMATS}
            for old, new in legacy.items():
                if old in tree:
                    for target in targets.values():
                        # A value the newer tree already holds was chosen later; keep it.
                        target.setdefault(new, tree[old])
            if "generateCompile" in tree:
                targets["latex"].setdefault("compile", tree["generateCompile"])
            for old in flat:
                del tree[old]
            tree[GENERATION_KEY] = generation
            self._write_locked(tree)
            return True

    def _write_locked(self, tree: dict[str, Any]) -> None:
        schema = tree.get(SCHEMA_KEY)
        if type(schema) is not int or schema < SCHEMA_VERSION:
            tree = {
                SCHEMA_KEY: SCHEMA_VERSION,
                **{k: v for k, v in tree.items() if k != SCHEMA_KEY},
            }
        target = self.layout.state_file
        temp = target.with_name(f".state.json.{os.getpid()}.{time.time_ns()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with open(fd, "wb") as handle:
                handle.write(wire.dumps(tree) + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def _overlay_legacy_directory(self, generation: dict[str, Any]) -> None:
        try:
            text = self.layout.legacy_generate_dir_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return
        if not text:
            return
        for name in _FORMATS:
            _child(generation, name).setdefault("directory", text)


def _child(tree: dict[str, Any], name: str) -> dict[str, Any]:
    """``tree[name]`` as an object, replacing a non-object there."""
    value = tree.get(name)
    if not isinstance(value, dict):
        value = {}
        tree[name] = value
    return value
