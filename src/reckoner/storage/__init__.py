"""Every file the engine touches: record files, state.json, run logs and the lane locks.

Each external thing has exactly one module: ``home`` names the paths, ``record_format``
spells a record file, ``record_store`` reads and writes record files, ``state_file`` owns
``state.json``, ``run_log`` owns ``logs/``, and ``home_lock`` keeps one engine per lane.
"""

from reckoner.storage.home import HomeError, HomeLayout, resolve_home
from reckoner.storage.home_lock import HomeLock, HomeLockedError, acquire_home_lock, acquire_lane
from reckoner.storage.record_store import (
    ClosedEntry,
    DeleteOutcome,
    OpenEntry,
    OpenRecordJournal,
    RecordArchive,
    RecordIndex,
    RecordView,
    RecoveredRecord,
)
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
