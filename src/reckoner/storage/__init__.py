"""Every file the engine touches: record files, state.json, run logs and the home lock.

Each external thing has exactly one module: ``home`` names the paths, ``record_format``
spells a record file, ``record_store`` reads and writes record files, ``state_file`` owns
``state.json``, ``run_log`` owns ``logs/``, and ``home_lock`` keeps one engine per home.
"""

from reckoner.storage.home import HomeError, HomeLayout, resolve_home
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

__all__ = [
    "ClosedEntry",
    "DeleteOutcome",
    "HomeError",
    "HomeLayout",
    "OpenEntry",
    "OpenRecordJournal",
    "RecordArchive",
    "RecordIndex",
    "RecordView",
    "RecoveredRecord",
    "resolve_home",
]
