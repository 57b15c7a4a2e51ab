"""Every file the engine touches: record files, state.json, run logs and the lane locks.

Each external thing has exactly one module: ``home`` names the paths, ``record_format``
spells a record file, ``open_journal`` writes the open record files and closes them,
``record_archive`` reads and deletes record files (``record_summaries`` reads a list entry
from as little of a file as it can, and ``regular_files`` opens only regular files),
``state_file`` owns ``state.json``, ``run_log`` owns ``logs/``, and ``home_lock`` keeps one
engine per lane.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the pitfalls hook imports this package at start
if TYPE_CHECKING:
    from typing import Any

    from reckoner.storage.home import HomeError, HomeLayout, resolve_home
    from reckoner.storage.home_lock import (
        HomeLock,
        HomeLockedError,
        acquire_home_lock,
        acquire_lane,
    )
    from reckoner.storage.open_journal import OpenRecordJournal, RecoveredRecord
    from reckoner.storage.record_archive import (
        DeleteOutcome,
        RecordArchive,
        RecordIndex,
        RecordView,
    )
    from reckoner.storage.record_summaries import ClosedEntry, OpenEntry
    from reckoner.storage.run_log import RunLog, open_run_log
    from reckoner.storage.state_file import StateFile

__all__ = [
    "ClosedEntry",
    "DeleteOutcome",
    "HomeError",
    "HomeLayout",
    "HomeLock",
    "HomeLockedError",
    "OpenEntry",
    "OpenRecordJournal",
    "RecordArchive",
    "RecordIndex",
    "RecordView",
    "RecoveredRecord",
    "RunLog",
    "StateFile",
    "acquire_home_lock",
    "acquire_lane",
    "open_run_log",
    "resolve_home",
]

_MODULE_OF = {
    "ClosedEntry": "record_summaries",
    "OpenEntry": "record_summaries",
    "OpenRecordJournal": "open_journal",
    "RecoveredRecord": "open_journal",
    "DeleteOutcome": "record_archive",
    "RecordArchive": "record_archive",
    "RecordIndex": "record_archive",
    "RecordView": "record_archive",
    "HomeError": "home",
    "HomeLayout": "home",
    "resolve_home": "home",
    "HomeLock": "home_lock",
    "HomeLockedError": "home_lock",
    "acquire_home_lock": "home_lock",
    "acquire_lane": "home_lock",
    "RunLog": "run_log",
    "open_run_log": "run_log",
    "StateFile": "state_file",
}


def __getattr__(name: str) -> Any:
    # Each name is loaded from its module on first use, so a caller that needs one module
    # does not load them all: the pitfalls hook, which must start fast, needs only home_path.
    if name not in __all__:
        raise AttributeError(f"module 'reckoner.storage' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"reckoner.storage.{_MODULE_OF[name]}"), name)
