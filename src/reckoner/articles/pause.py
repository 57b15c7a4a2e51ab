"""When the cycle collector waits: while an article's facts and template text are built.

Both steps make tens of thousands of small objects that hold no cycles, while the parsed
record (hundreds of thousands of live objects) is in memory; each collection the allocations
set off walks the whole record and finds nothing. So the collector waits for the length of
these bounded, pure steps and resumes as it was. Nested and concurrent holders (the panel
runs jobs on threads) share one pause; the last one out restores the collector.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for the block, then back as it was before the first holder."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
