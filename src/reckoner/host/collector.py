"""When Python's cycle collector waits: the one owner of pausing it.

Some bounded steps make hundreds of thousands of small objects that hold no cycles: a record
file parsed row by row, an article's facts and template text, the reading of a large array.
Each collection their allocations set off walks the whole growing heap and finds nothing, so
the collector waits for the length of such a step and resumes as it was. Nested and
concurrent holders (the server and the panel run calls on threads) share one pause; the last
one out restores the collector, so no holder turns it back on under another.
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
